/*
 * tests/e2e/phased.c - a program that marks its phases (mtx-phase.h) and
 * logs, for test-phases.sh, what mtx must find of them:
 *
 *   mark NAME BEFORE_NS AFTER_NS   CLOCK_MONOTONIC (the clock of mtx's
 *                                  *_ns) read just before and just after
 *                                  MTX_PHASE(NAME)
 *   cpu TID PHASE NS               worker TID's CLOCK_THREAD_CPUTIME_ID
 *                                  time in phase PHASE (1 or 2)
 *
 * WORKERS threads spin for MS1 ms of CPU each in phase "one", then wait at
 * a barrier while the main thread marks phase "two" (so that no worker
 * runs across the boundary), then spin MS2 ms each and log. The main
 * thread marks phase "one" before it starts them. With "lock", phase two
 * spins under one mutex, 1 ms at a time: its workers mostly wait for it
 * (logged as "lock ADDRESS").
 *
 * With PHASED_HOLD_MS set (test-live.sh), the workers, done, log and then
 * wait at a last barrier that the main thread reaches only after holding
 * still that long, having logged "hold ADDRESS" (the barrier's), so that
 * nothing changes meanwhile but the waits going on:
 *
 *   wait TID NS                    worker TID's time inside
 *                                  pthread_mutex_lock, by its own clock
 *   enter TID NS                   CLOCK_MONOTONIC as it went into the
 *                                  last barrier
 *
 * Usage: phased WORKERS MS1 MS2 [lock]
 *        phased now      (CLOCK_MONOTONIC now, in ns: the test's own clock)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collector/preload/mtx-phase.h"

static pthread_barrier_t done_one, go_two, done_two;
static long hold_ms;
static long ms1, ms2;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER, hot_lock = PTHREAD_MUTEX_INITIALIZER;
static int locked;

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Spin until this thread has run @ms ms more; its CPU time then. The
 * thread's CPU clock is a system call: read every ~0.1 ms, not every 5 us,
 * so that the syscalls source records 20 000 events a second a worker,
 * not 400 000 (the kernel lost some under load). */
static uint64_t spin(uint64_t from, long ms)
{
	volatile uint64_t x = 0;
	uint64_t now;
	while ((now = clock_ns(CLOCK_THREAD_CPUTIME_ID)) - from < (uint64_t)ms * 1000000u)
		for (int i = 0; i < 200000; i++)
			x += (uint64_t)i;
	return now;
}

static void mark(const char *name)
{
	uint64_t before = clock_ns(CLOCK_MONOTONIC), after;
	MTX_PHASE(name);
	after = clock_ns(CLOCK_MONOTONIC);
	pthread_mutex_lock(&log_lock);
	printf("mark %s %llu %llu\n", name, (unsigned long long)before, (unsigned long long)after);
	pthread_mutex_unlock(&log_lock);
}

static void *worker(void *arg)
{
	uint64_t start = clock_ns(CLOCK_THREAD_CPUTIME_ID), one, two, waited = 0;
	(void)arg;
	one = spin(start, ms1);
	pthread_barrier_wait(&done_one);
	pthread_barrier_wait(&go_two);
	if (locked)
		for (two = one; two - one < (uint64_t)ms2 * 1000000u;) {
			uint64_t before = clock_ns(CLOCK_MONOTONIC);
			pthread_mutex_lock(&hot_lock);
			waited += clock_ns(CLOCK_MONOTONIC) - before;
			two = spin(two, 1);
			pthread_mutex_unlock(&hot_lock);
		}
	else
		two = spin(one, ms2);
	pthread_mutex_lock(&log_lock);
	printf("cpu %d 1 %llu\ncpu %d 2 %llu\n", (int)gettid(), (unsigned long long)(one - start), (int)gettid(),
	       (unsigned long long)(two - one));
	if (hold_ms) {
		printf("wait %d %llu\nenter %d %llu\n", (int)gettid(), (unsigned long long)waited, (int)gettid(),
		       (unsigned long long)clock_ns(CLOCK_MONOTONIC));
		fflush(stdout);
	}
	pthread_mutex_unlock(&log_lock);
	if (hold_ms)
		pthread_barrier_wait(&done_two);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;
	pthread_t *t;
	if (argc == 2 && !strcmp(argv[1], "now")) {
		printf("%llu\n", (unsigned long long)clock_ns(CLOCK_MONOTONIC));
		return 0;
	}
	locked = argc == 5 && !strcmp(argv[4], "lock");
	hold_ms = getenv("PHASED_HOLD_MS") ? atol(getenv("PHASED_HOLD_MS")) : 0;
	if ((argc != 4 && !locked) || n < 1 || n > 64 || (ms1 = atol(argv[2])) < 1 || (ms2 = atol(argv[3])) < 1) {
		fprintf(stderr, "usage: phased WORKERS MS1 MS2 [lock]\n");
		return 2;
	}
	t = calloc((size_t)n, sizeof(*t));
	pthread_barrier_init(&done_one, NULL, (unsigned)n + 1);
	pthread_barrier_init(&go_two, NULL, (unsigned)n + 1);
	pthread_barrier_init(&done_two, NULL, (unsigned)n + 1);
	if (locked)
		printf("lock %p\n", (void *)&hot_lock);
	mark("one");
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	pthread_barrier_wait(&done_one);
	mark("two");
	pthread_barrier_wait(&go_two);
	if (hold_ms) {
		struct timespec hold = { hold_ms / 1000, hold_ms % 1000 * 1000000 };
		pthread_mutex_lock(&log_lock);
		printf("hold %p\n", (void *)&done_two);
		fflush(stdout);
		pthread_mutex_unlock(&log_lock);
		nanosleep(&hold, NULL);
		pthread_barrier_wait(&done_two);
	}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}
