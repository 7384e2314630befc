/*
 * farm - a processor farm (seed 001, section 3).
 *
 * Usage: farm [workers=4] [tasks=200]     (1 <= workers <= 256, 1 <= tasks)
 *
 * The master (the main thread) fills a bounded task queue of 8 slots
 * (mutex + two condvars, "not full" and "not empty"); worker threads
 * ("worker-<i>") take tasks, run crunch() on them - the hot function, a
 * long chain of integer mixing rounds - and store the result in the result
 * array, one slot per task.  Two phases: phase 1 crunches the tasks' seeds;
 * the master then queues one end-of-phase marker per worker and everybody
 * (workers and master) meets at a pthread barrier; phase 2 crunches
 * combinations of two phase-1 results.  One stop marker per worker ends
 * the run; each worker adds its task count under a mutex
 * (pthread_mutex_timedlock) and leaves with pthread_exit.
 *
 * A run under mtx must show:
 *  - workers+1 threads: the master and the workers;
 *  - crunch() as the dominant CPU function by far (nearly all samples of
 *    the workers), workers mostly running;
 *  - the queue mutex contended; the master blocking in pthread_cond_wait on
 *    "not full" (the queue is small and the workers are fast to take), and
 *    workers on "not empty" when the master falls behind or at phase ends;
 *  - one barrier episode with workers+1 participants, the last arriver
 *    releasing all the others.
 * The master marks each phase for mtx (mtx-phase.h): "seeds" and "pairs".
 * Output: tasks per phase and a checksum of the phase-2 results; the same
 * for the same arguments.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "collector/preload/mtx-phase.h"
#include "samples/args.h"
#include "samples/selfcheck.h"

#define QUEUE_SLOTS 8
#define CRUNCH_ROUNDS 500000UL	/* ~0.75 ms per task */
#define END_OF_PHASE ((unsigned long)-1)
#define STOP ((unsigned long)-2)

struct task {
	unsigned long index;	/* or END_OF_PHASE, STOP */
	uint64_t input;
	uint64_t *out;		/* results of this task's phase */
};

static unsigned int nr_workers;
static unsigned long nr_tasks;
static uint64_t *results[2];	/* per phase */

static pthread_mutex_t queue_lock;
static pthread_cond_t not_full, not_empty;
static struct task queue[QUEUE_SLOTS];
static unsigned int queue_head, queue_len;

static pthread_barrier_t phase_barrier;
static pthread_mutex_t stats_lock;
static unsigned long tasks_done;

/* The farm's work: xorshift-multiply rounds, a chain no compiler can shorten. */
static __attribute__((noinline)) uint64_t crunch(uint64_t x)
{
	unsigned long i;

	x |= 1;
	for (i = 0; i < CRUNCH_ROUNDS; i++) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		x *= 0x2545f4914f6cdd1dULL;
	}
	return x;
}

static __attribute__((noinline)) void put_task(unsigned long index, uint64_t input, uint64_t *out, int wake_all)
{
	selfcheck_count("mutex", "lock");
	pthread_mutex_lock(&queue_lock);
	while (queue_len == QUEUE_SLOTS) {
		selfcheck_count("cond", "wait");
		pthread_cond_wait(&not_full, &queue_lock);
	}
	queue[(queue_head + queue_len++) % QUEUE_SLOTS] = (struct task){ index, input, out };
	if (wake_all) {
		selfcheck_count("cond", "broadcast");
		pthread_cond_broadcast(&not_empty);
	} else {
		selfcheck_count("cond", "signal");
		pthread_cond_signal(&not_empty);
	}
	selfcheck_count("mutex", "unlock");
	pthread_mutex_unlock(&queue_lock);
}

static __attribute__((noinline)) struct task get_task(void)
{
	struct task t;

	selfcheck_count("mutex", "lock");
	pthread_mutex_lock(&queue_lock);
	while (queue_len == 0) {
		selfcheck_count("cond", "wait");
		pthread_cond_wait(&not_empty, &queue_lock);
	}
	t = queue[queue_head];
	queue_head = (queue_head + 1) % QUEUE_SLOTS;
	queue_len--;
	selfcheck_count("cond", "signal");
	pthread_cond_signal(&not_full);
	selfcheck_count("mutex", "unlock");
	pthread_mutex_unlock(&queue_lock);
	return t;
}

static void *worker(void *arg)
{
	unsigned int id = (unsigned int)(unsigned long)arg;
	unsigned long done = 0;
	struct timespec deadline;
	char name[16];
	int phase;

	snprintf(name, sizeof(name), "worker-%u", id);
	pthread_setname_np(pthread_self(), name);
	for (phase = 1; phase <= 2; phase++) {
		for (;;) {
			struct task t = get_task();

			if (t.index == END_OF_PHASE || t.index == STOP)
				break;
			t.out[t.index] = crunch(t.input);
			done++;
		}
		if (phase == 1) {
			selfcheck_count("barrier", "wait");
			pthread_barrier_wait(&phase_barrier);
		}
	}

	do {
		clock_gettime(CLOCK_REALTIME, &deadline);
		deadline.tv_sec += 1;
		selfcheck_count("mutex", "timedlock");
	} while (pthread_mutex_timedlock(&stats_lock, &deadline) != 0);
	tasks_done += done;
	selfcheck_count("mutex", "unlock");
	pthread_mutex_unlock(&stats_lock);

	selfcheck_count("thread", "exit");
	selfcheck_thread_done("worker");
	pthread_exit(NULL);
}

/* A phase of the run begins (mtx-phase.h): a call only under mtx, where
 * mtx_phase is defined, and counted as the library records it. */
static void mark_phase(const char *name)
{
	if (mtx_phase) {
		selfcheck_count("phase", "mark");
		mtx_phase(name);
	}
}

int main(int argc, char **argv)
{
	unsigned long n = 4, i;
	uint64_t checksum = 0;
	pthread_t *workers;

	nr_tasks = 200;
	if (argc > 3 || (argc > 1 && parse_arg(argv[1], 1, 256, &n)) ||
	    (argc > 2 && parse_arg(argv[2], 1, 10000000, &nr_tasks))) {
		fprintf(stderr, "usage: farm [workers=4 (1..256)] [tasks=200]\n");
		return 2;
	}
	nr_workers = (unsigned int)n;
	workers = calloc(nr_workers, sizeof(*workers));
	results[0] = calloc(nr_tasks, sizeof(uint64_t));
	results[1] = calloc(nr_tasks, sizeof(uint64_t));
	if (!workers || !results[0] || !results[1]) {
		fprintf(stderr, "farm: out of memory\n");
		return 1;
	}
	selfcheck_count("mutex", "init");
	pthread_mutex_init(&queue_lock, NULL);
	selfcheck_count("mutex", "init");
	pthread_mutex_init(&stats_lock, NULL);
	selfcheck_count("cond", "init");
	pthread_cond_init(&not_full, NULL);
	selfcheck_count("cond", "init");
	pthread_cond_init(&not_empty, NULL);
	selfcheck_count("barrier", "init");
	pthread_barrier_init(&phase_barrier, NULL, nr_workers + 1);

	for (i = 0; i < nr_workers; i++) {
		selfcheck_count("thread", "create");
		if (pthread_create(&workers[i], NULL, worker, (void *)i) != 0) {
			fprintf(stderr, "farm: pthread_create failed\n");
			return 1;
		}
	}

	/* Phase 1: crunch the seeds. Under mtx the run's phases are marked
	 * too (mtx report run.db phases). */
	mark_phase("seeds");
	for (i = 0; i < nr_tasks; i++)
		put_task(i, 0x9e3779b97f4a7c15ULL * (i + 1), results[0], 0);
	for (i = 0; i < nr_workers; i++)
		put_task(END_OF_PHASE, 0, NULL, 1);
	selfcheck_count("barrier", "wait");
	pthread_barrier_wait(&phase_barrier);

	/* Phase 2: crunch pairs of phase-1 results (all final after the barrier). */
	mark_phase("pairs");
	for (i = 0; i < nr_tasks; i++)
		put_task(i, results[0][i] ^ (results[0][nr_tasks - 1 - i] >> 1), results[1], 0);
	for (i = 0; i < nr_workers; i++)
		put_task(STOP, 0, NULL, 1);

	for (i = 0; i < nr_workers; i++) {
		selfcheck_count("thread", "join");
		pthread_join(workers[i], NULL);
	}
	for (i = 0; i < nr_tasks; i++)
		checksum = checksum * 31 + results[1][i];
	printf("phase 1 tasks %lu\n", nr_tasks);
	printf("phase 2 tasks %lu\n", nr_tasks);
	printf("tasks done %lu\n", tasks_done);
	printf("checksum %016llx\n", (unsigned long long)checksum);
	fflush(stdout);

	selfcheck_count("barrier", "destroy");
	pthread_barrier_destroy(&phase_barrier);
	selfcheck_count("cond", "destroy");
	pthread_cond_destroy(&not_empty);
	selfcheck_count("cond", "destroy");
	pthread_cond_destroy(&not_full);
	selfcheck_count("mutex", "destroy");
	pthread_mutex_destroy(&stats_lock);
	selfcheck_count("mutex", "destroy");
	pthread_mutex_destroy(&queue_lock);
	free(workers);
	free(results[0]);
	free(results[1]);
	selfcheck_thread_done("main");
	return 0;
}
