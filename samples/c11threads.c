/*
 * c11threads - a producer/consumer written with C11 <threads.h>.
 *
 * Usage: c11threads [threads=4]     (2 <= threads <= 64)
 *
 * threads/2 producers ("producer-<i>") and the other threads consumers
 * ("consumer-<i>"), all started with thrd_create and joined with
 * thrd_join.  Producers make 300 items each (produce(): busy loop) and put
 * them in a bounded queue of 16 (mtx_t + two cnd_t: cnd_wait on "not
 * full", cnd_signal "not empty"); the last producer to finish
 * cnd_broadcasts "not empty".  Consumers wait with cnd_timedwait (10 ms,
 * retried), run consume() (busy loop, the hottest function) and add the
 * result to a total under a timed mutex (mtx_timedlock) and their count to
 * a statistic under a plain one (mtx_trylock, then mtx_lock).  Consumers
 * leave with thrd_exit.
 *
 * A run under mtx must show:
 *  - threads+1 threads: main (creates, joins) and the producers/consumers;
 *  - the C11 calls recorded as their pthread counterparts would be
 *    (glibc's mtx_lock does not go through pthread_mutex_lock's PLT entry,
 *    so they are interposed on their own): the queue mutex contended,
 *    producers blocked in cnd_wait when the queue is full, consumers in
 *    cnd_timedwait when it is empty;
 *  - consumers dominated by running consume().
 * Output: items produced and consumed and their checksum; the same for the
 * same arguments.
 *
 * Not for ThreadSanitizer builds with GCC 12: its libtsan does not
 * intercept thrd_create (nor mtx_lock...), so the new threads crash in the
 * TSan runtime.
 */
#define _GNU_SOURCE
#include <pthread.h>	/* pthread_setname_np: C11 threads cannot name themselves */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <threads.h>
#include <time.h>

#include "samples/selfcheck.h"

#define ITEMS_PER_PRODUCER 300
#define QUEUE_SLOTS 16
#define PRODUCE_ITERS 50000UL	/* ~0.1 ms */
#define CONSUME_ITERS 250000UL	/* ~0.5 ms */

struct worker {
	thrd_t thread;
	unsigned int id;
	int consumer;
};

static unsigned int nr_producers, nr_consumers;

static mtx_t queue_lock;
static cnd_t not_full, not_empty;
static uint64_t queue[QUEUE_SLOTS];
static unsigned int queue_head, queue_len, producers_done;

static mtx_t total_lock;	/* mtx_timed */
static uint64_t total;
static mtx_t stats_lock;
static unsigned long consumed;

static __attribute__((noinline)) uint64_t produce(unsigned int id, unsigned int n)
{
	volatile unsigned long acc = id;
	unsigned long i;

	for (i = 0; i < PRODUCE_ITERS; i++)
		acc = acc * 31 + i;
	return (uint64_t)id << 32 | n;
}

static __attribute__((noinline)) uint64_t consume(uint64_t item)
{
	uint64_t x = item | 1;
	unsigned long i;

	for (i = 0; i < CONSUME_ITERS; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x >> 17;
}

static int producer_main(struct worker *w)
{
	unsigned int n;

	for (n = 0; n < ITEMS_PER_PRODUCER; n++) {
		uint64_t item = produce(w->id, n);

		selfcheck_count("mutex", "lock");
		mtx_lock(&queue_lock);
		while (queue_len == QUEUE_SLOTS) {
			selfcheck_count("cond", "wait");
			cnd_wait(&not_full, &queue_lock);
		}
		queue[(queue_head + queue_len++) % QUEUE_SLOTS] = item;
		selfcheck_count("cond", "signal");
		cnd_signal(&not_empty);
		selfcheck_count("mutex", "unlock");
		mtx_unlock(&queue_lock);
	}
	selfcheck_count("mutex", "lock");
	mtx_lock(&queue_lock);
	if (++producers_done == nr_producers) {
		selfcheck_count("cond", "broadcast");
		cnd_broadcast(&not_empty);
	}
	selfcheck_count("mutex", "unlock");
	mtx_unlock(&queue_lock);
	selfcheck_thread_done("producer");
	return 0;
}

static void deadline_in_ms(struct timespec *ts, long ms)
{
	timespec_get(ts, TIME_UTC);
	ts->tv_nsec += ms * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static int consumer_main(struct worker *w)
{
	unsigned long mine = 0;
	struct timespec deadline;

	(void)w;
	for (;;) {
		uint64_t item, result;

		selfcheck_count("mutex", "lock");
		mtx_lock(&queue_lock);
		while (queue_len == 0 && producers_done < nr_producers) {
			deadline_in_ms(&deadline, 10);
			selfcheck_count("cond", "timedwait");
			cnd_timedwait(&not_empty, &queue_lock, &deadline);
		}
		if (queue_len == 0) {	/* all produced, all taken */
			selfcheck_count("mutex", "unlock");
			mtx_unlock(&queue_lock);
			break;
		}
		item = queue[queue_head];
		queue_head = (queue_head + 1) % QUEUE_SLOTS;
		queue_len--;
		selfcheck_count("cond", "signal");
		cnd_signal(&not_full);
		selfcheck_count("mutex", "unlock");
		mtx_unlock(&queue_lock);

		result = consume(item);
		do {
			deadline_in_ms(&deadline, 100);
			selfcheck_count("mutex", "timedlock");
		} while (mtx_timedlock(&total_lock, &deadline) != thrd_success);
		total += result;
		selfcheck_count("mutex", "unlock");
		mtx_unlock(&total_lock);
		mine++;
	}

	selfcheck_count("mutex", "trylock");
	if (mtx_trylock(&stats_lock) != thrd_success) {
		selfcheck_count("mutex", "lock");
		mtx_lock(&stats_lock);
	}
	consumed += mine;
	selfcheck_count("mutex", "unlock");
	mtx_unlock(&stats_lock);
	selfcheck_count("thread", "exit");
	selfcheck_thread_done("consumer");
	thrd_exit(0);
}

static int worker_main(void *arg)
{
	struct worker *w = arg;
	char name[16];

	snprintf(name, sizeof(name), "%s-%u", w->consumer ? "consumer" : "producer", w->id);
	pthread_setname_np(pthread_self(), name);
	return w->consumer ? consumer_main(w) : producer_main(w);
}

int main(int argc, char **argv)
{
	unsigned long n = 4;
	struct worker *workers;
	unsigned int i;

	if (argc > 1) {
		char *end;

		errno = 0;
		n = strtoul(argv[1], &end, 10);
		if (argc > 2 || errno || end == argv[1] || *end || argv[1][0] == '-' || n < 2 || n > 64) {
			fprintf(stderr, "usage: c11threads [threads=4 (2..64)]\n");
			return 2;
		}
	}
	nr_producers = (unsigned int)n / 2;
	nr_consumers = (unsigned int)n - nr_producers;
	workers = calloc(n, sizeof(*workers));
	if (!workers) {
		fprintf(stderr, "c11threads: out of memory\n");
		return 1;
	}
	selfcheck_count("mutex", "init");
	mtx_init(&queue_lock, mtx_plain);
	selfcheck_count("mutex", "init");
	mtx_init(&total_lock, mtx_timed);
	selfcheck_count("mutex", "init");
	mtx_init(&stats_lock, mtx_plain);
	selfcheck_count("cond", "init");
	cnd_init(&not_full);
	selfcheck_count("cond", "init");
	cnd_init(&not_empty);

	for (i = 0; i < n; i++) {
		workers[i].consumer = i >= nr_producers;
		workers[i].id = workers[i].consumer ? i - nr_producers : i;
		selfcheck_count("thread", "create");
		if (thrd_create(&workers[i].thread, worker_main, &workers[i]) != thrd_success) {
			fprintf(stderr, "c11threads: thrd_create failed\n");
			return 1;
		}
	}
	for (i = 0; i < n; i++) {
		selfcheck_count("thread", "join");
		thrd_join(workers[i].thread, NULL);
	}

	printf("producers %u consumers %u\n", nr_producers, nr_consumers);
	printf("items produced %lu consumed %lu\n",
	       (unsigned long)nr_producers * ITEMS_PER_PRODUCER, consumed);
	printf("checksum %016llx\n", (unsigned long long)total);
	fflush(stdout);

	selfcheck_count("cond", "destroy");
	cnd_destroy(&not_empty);
	selfcheck_count("cond", "destroy");
	cnd_destroy(&not_full);
	selfcheck_count("mutex", "destroy");
	mtx_destroy(&stats_lock);
	selfcheck_count("mutex", "destroy");
	mtx_destroy(&total_lock);
	selfcheck_count("mutex", "destroy");
	mtx_destroy(&queue_lock);
	free(workers);
	selfcheck_thread_done("main");
	return 0;
}
