/*
 * race2 - two threads race for a mutex; the one with less work wins.
 *
 * Usage: race2 [a_us=1000] [b_us=10000]     (1 <= a_us, b_us <= 1000000)
 *
 * Two threads (pinned to two different CPUs when the process may run on
 * two or more; the program says so on stderr when it cannot) meet at a
 * pthread barrier, take their names "race-a" and "race-b", then race-a
 * computes a_us and race-b b_us of their own CPU time (samples/cpuspin.h)
 * and each locks the mutex M.  The first to hold M takes number 0 of an atomic counter, the second
 * number 1; main prints who came first.  With the defaults race-a is far
 * ahead, by 9 ms of CPU, so a plain run says "race-a" even on a loaded
 * machine; a tracer that delays race-a's lock by more than that
 * (mtx collect --inject-overhead 30ms:thread=race-a) makes race-b win, and
 * mtx probe-effect must then call the run "divergent" at race-a's lock of
 * M; with a small delay (0.5ms) the order stays and the run is "equal".
 *
 * A run under mtx must show:
 *  - 3 threads: main, race-a, race-b;
 *  - one barrier episode of 2, then M locked once by each thread; the
 *    loser blocked on M only if it asked while the winner held it.
 * Ground truth: samples/selfcheck.h's op counts; with MTX_SELFCHECK, M's
 * address ("object name=M") and the two locks in the order taken ("order"
 * lines "race-a:lock:M", "race-b:lock:M"), samples/selfcheck-order.h.
 * Output: the work of each thread, then who took M first.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "samples/args.h"
#include "samples/cpuspin.h"
#include "samples/selfcheck.h"
#include "samples/selfcheck-order.h"

struct racer {
	pthread_t thread;
	const char *name;
	unsigned long work_us;
	int cpu;		/* to pin to, or -1 */
	unsigned int rank;	/* 0: took M first */
};

static pthread_barrier_t start;
static pthread_mutex_t M = PTHREAD_MUTEX_INITIALIZER;
static unsigned int taken;	/* how many have held M */

static void *racer(void *arg)
{
	struct racer *self = arg;
	char what[SELFCHECK_ORDER_WHAT];

	if (self->cpu >= 0) {
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(self->cpu, &one);
		pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
	}
	selfcheck_count("barrier", "wait");
	pthread_barrier_wait(&start);
	/* Named once released: a delay injected on race-a's ops falls on its
	 * lock of M, not on the barrier, where it would hold back both. */
	pthread_setname_np(pthread_self(), self->name);
	cpuspin_us(self->work_us);
	selfcheck_count("mutex", "lock");
	pthread_mutex_lock(&M);
	self->rank = __atomic_fetch_add(&taken, 1, __ATOMIC_SEQ_CST);
	snprintf(what, sizeof(what), "%s:lock:M", self->name);
	selfcheck_order(what);
	selfcheck_count("mutex", "unlock");
	pthread_mutex_unlock(&M);
	selfcheck_thread_done("racer");
	return NULL;
}

/* The first two CPUs this process may run on, or -1 each. */
static void two_cpus(int cpu[2])
{
	cpu_set_t allowed;
	int c, found = 0;

	cpu[0] = cpu[1] = -1;
	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
		return;
	for (c = 0; c < CPU_SETSIZE && found < 2; c++)
		if (CPU_ISSET(c, &allowed))
			cpu[found++] = c;
	if (found < 2)
		cpu[0] = cpu[1] = -1;
}

int main(int argc, char **argv)
{
	unsigned long a_us = 1000, b_us = 10000;
	struct racer racers[2] = { { .name = "race-a" }, { .name = "race-b" } };
	int cpu[2], i;

	if (argc > 3 || (argc > 1 && parse_arg(argv[1], 1, 1000000, &a_us)) ||
	    (argc > 2 && parse_arg(argv[2], 1, 1000000, &b_us))) {
		fprintf(stderr, "usage: race2 [a_us=1000 (1..1000000)] [b_us=10000 (1..1000000)]\n");
		return 2;
	}
	racers[0].work_us = a_us;
	racers[1].work_us = b_us;
	two_cpus(cpu);
	if (cpu[0] < 0)
		fprintf(stderr, "race2: fewer than 2 CPUs to run on: race-a and race-b not pinned\n");
	selfcheck_object("M", &M);

	selfcheck_count("barrier", "init");
	pthread_barrier_init(&start, NULL, 2);
	for (i = 0; i < 2; i++) {
		racers[i].cpu = cpu[i];
		selfcheck_count("thread", "create");
		if (pthread_create(&racers[i].thread, NULL, racer, &racers[i]) != 0) {
			fprintf(stderr, "race2: pthread_create failed\n");
			return 1;
		}
	}
	for (i = 0; i < 2; i++) {
		selfcheck_count("thread", "join");
		pthread_join(racers[i].thread, NULL);
	}
	selfcheck_count("barrier", "destroy");
	pthread_barrier_destroy(&start);
	selfcheck_order_write();

	printf("race2: race-a computes %lu us, race-b %lu us, then both lock M\n", a_us, b_us);
	printf("race2: M taken first by %s\n", racers[0].rank == 0 ? "race-a" : "race-b");
	fflush(stdout);
	selfcheck_thread_done("main");
	return 0;
}
