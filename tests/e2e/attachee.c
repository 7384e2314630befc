/*
 * tests/e2e/attachee.c - a program for tests/e2e/test-attach.sh to attach
 * to: started without mtx, driven step by step from its stdin, so that the
 * test knows what it did while mtx was attached and what after.
 *
 * Usage: attachee THREADS K. It starts THREADS workers, each blocked in a
 * read(2) of a pipe of its own (the gate: no pthread call, so that the only
 * sync ops of the program are the ones counted below), and then reads
 * commands, one a line, from stdin:
 *
 *   round   open every worker's gate once: each takes and releases the
 *           shared mutex exactly K times (pthread_mutex_lock/unlock) and
 *           calls attachee_work() K times, then says it is done (a byte on
 *           a pipe); once all are, print "done R ..." (R counts rounds)
 *   hold    the main thread takes the shared mutex and prints "held"; the
 *           next round opens the gates with it held (the workers block on
 *           it), lets it go 100 ms later, then waits for them as always
 *   quit    (or end of input) let the workers end, join them, print the
 *           totals and exit with status 3, a status of the program's own
 *
 * stdout (the same with or without mtx, line-buffered):
 *   ready THREADS K
 *   done R locked=<sections so far> work=<attachee_work calls so far>
 *   total rounds=R locked=... work=...
 * stderr, what differs between runs (tids, addresses, times), "key value":
 *   worker I tid TID
 *   mutex ADDR            the shared mutex's address, decimal
 *   round R BEGIN END     CLOCK_MONOTONIC ns (the clock of mtx's *_ns)
 *                         before the gates opened and once all were done
 *
 * Between commands every worker is blocked in read(2) and makes no call,
 * so mtx may attach or detach there.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t shared = PTHREAD_MUTEX_INITIALIZER;
static long locked;           /* critical sections, counted inside them */
static long k;

struct worker {
	pthread_t thread;
	int gate[2];          /* the main thread writes one byte a round */
	pid_t tid;
	long work;            /* attachee_work calls (atomic) */
};

static int done_pipe[2];      /* each worker writes one byte a round */

/* attachee_work - the function a function-probe test counts calls of:
 * not inlined, not cloned, external, one atomic add. */
__attribute__((noinline, noclone)) void attachee_work(long *calls);

__attribute__((noinline, noclone)) void attachee_work(long *calls)
{
	__atomic_fetch_add(calls, 1, __ATOMIC_RELAXED);
	__asm__ volatile("" ::: "memory");
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void put_byte(int fd, char c)
{
	while (write(fd, &c, 1) != 1)
		if (errno != EINTR) {
			perror("attachee: write");
			exit(2);
		}
}

/* get_byte - one byte from @fd; 0 at end of file. */
static char get_byte(int fd)
{
	char c;
	ssize_t n;

	while ((n = read(fd, &c, 1)) < 0)
		if (errno != EINTR) {
			perror("attachee: read");
			exit(2);
		}
	return n ? c : 0;
}

static void *work(void *arg)
{
	struct worker *w = arg;

	w->tid = gettid();
	put_byte(done_pipe[1], 's'); /* started: its tid is set */
	while (get_byte(w->gate[0]) == 'r') {
		for (long i = 0; i < k; i++) {
			pthread_mutex_lock(&shared);
			locked++;
			pthread_mutex_unlock(&shared);
			attachee_work(&w->work);
			/* CPU time of its own (~10 us), for the test to weigh
			 * mtx's running intervals against /proc's schedstat */
			for (volatile int spin = 0; spin < 10000; spin++)
				;
		}
		put_byte(done_pipe[1], 'd');
	}
	return NULL;
}

static long total_work(const struct worker *w, int n)
{
	long sum = 0;

	for (int t = 0; t < n; t++)
		sum += __atomic_load_n(&w[t].work, __ATOMIC_RELAXED);
	return sum;
}

/* all_say - wait for one byte from each of @n workers on the done pipe. */
static void all_say(int n)
{
	for (int t = 0; t < n; t++)
		if (!get_byte(done_pipe[0])) {
			fprintf(stderr, "attachee: the done pipe closed\n");
			exit(2);
		}
}

int main(int argc, char **argv)
{
	struct worker *w;
	char line[64];
	int n, rounds = 0, holding = 0;

	if (argc != 3 || (n = atoi(argv[1])) <= 0 || n > 1000 || (k = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: attachee THREADS K (THREADS <= 1000, K > 0)\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	w = calloc((size_t)n, sizeof(*w));
	if (!w || pipe(done_pipe)) {
		perror("attachee");
		return 2;
	}
	for (int t = 0; t < n; t++) {
		if (pipe(w[t].gate) || pthread_create(&w[t].thread, NULL, work, &w[t])) {
			fprintf(stderr, "attachee: cannot start worker %d\n", t);
			return 2;
		}
	}
	all_say(n);
	for (int t = 0; t < n; t++)
		fprintf(stderr, "worker %d tid %d\n", t, (int)w[t].tid);
	fprintf(stderr, "mutex %llu\n", (unsigned long long)(uintptr_t)&shared);
	printf("ready %d %ld\n", n, k);

	while (fgets(line, sizeof(line), stdin) && strcmp(line, "quit\n") != 0) {
		uint64_t begin, end;

		if (strcmp(line, "hold\n") == 0 && !holding) {
			pthread_mutex_lock(&shared);
			holding = 1;
			printf("held\n");
			continue;
		}
		if (strcmp(line, "round\n") != 0) {
			fprintf(stderr, "attachee: unknown command: %s", line);
			continue;
		}
		rounds++;
		begin = now_ns();
		for (int t = 0; t < n; t++)
			put_byte(w[t].gate[1], 'r');
		if (holding) {
			usleep(100000);
			pthread_mutex_unlock(&shared);
			holding = 0;
		}
		all_say(n);
		end = now_ns();
		fprintf(stderr, "round %d %llu %llu\n", rounds, (unsigned long long)begin,
			(unsigned long long)end);
		/* the workers wrote it before their done byte */
		printf("done %d locked=%ld work=%ld\n", rounds, __atomic_load_n(&locked, __ATOMIC_ACQUIRE),
		       total_work(w, n));
	}
	for (int t = 0; t < n; t++)
		put_byte(w[t].gate[1], 'q');
	for (int t = 0; t < n; t++)
		pthread_join(w[t].thread, NULL);
	printf("total rounds=%d locked=%ld work=%ld\n", rounds, locked, total_work(w, n));
	return 3;
}
