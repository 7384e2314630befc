/*
 * ring - a token ring over semaphores: an order forced by construction.
 *
 * Usage: ring [threads=4] [rounds=100] [work_us=20]
 *        (2 <= threads <= 64, 1 <= rounds <= 4000, 0 <= work_us <= 100000)
 *
 * Threads "ring-<i>" and one POSIX semaphore s_i each, all at 0.  Main
 * posts s_0; ring-i waits on s_i, takes the token (checks that it is the
 * one it expects and passes it on), computes work_us of its own CPU time,
 * and posts s_{i+1} (ring-<threads-1> posts s_0): rounds times each.  Only
 * one thread holds the token at any time, so the order of the takes is
 * ring-0, ring-1, ..., ring-<threads-1>, ring-0, ... whatever the timing:
 * any overhead a tracer adds cannot change it.  mtx probe-effect must
 * call this run "equal" at any --inject-overhead.
 *
 * A run under mtx must show:
 *  - threads+1 threads: main and the ring threads;
 *  - threads x rounds sem_wait and as many sem_post (plus main's start
 *    post), each wait satisfied by the previous thread's post: the
 *    happened-before graph is the ring, rounds times over;
 *  - every ring thread blocked on its own semaphore while the others run.
 * Ground truth: samples/selfcheck.h's op counts, and with MTX_SELFCHECK
 * each take as an "order" line ("ring-<i>:take:<round>",
 * samples/selfcheck-order.h).
 * Output: the number of takes, the same for the same arguments; exit 1
 * (with a line on stderr) if the token ever came out of order.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

#include "samples/args.h"
#include "samples/cpuspin.h"
#include "samples/selfcheck.h"
#include "samples/selfcheck-order.h"

struct ring_thread {
	pthread_t thread;
	unsigned int index;
};

static unsigned int nr_threads;
static unsigned long nr_rounds, work_us;
static sem_t *sems;			/* s_i: ring-i may take the token */
static unsigned long token;		/* takes so far; only the holder touches it */
static int out_of_order;

static void *ring_thread(void *arg)
{
	const struct ring_thread *self = arg;
	unsigned int next = (self->index + 1) % nr_threads;
	unsigned long round;
	char name[16], what[SELFCHECK_ORDER_WHAT];

	snprintf(name, sizeof(name), "ring-%u", self->index);
	pthread_setname_np(pthread_self(), name);
	for (round = 0; round < nr_rounds; round++) {
		selfcheck_count("sem", "wait");
		while (sem_wait(&sems[self->index]) != 0)
			selfcheck_count("sem", "wait");
		snprintf(what, sizeof(what), "ring-%u:take:%lu", self->index, round);
		selfcheck_order(what);
		if (token != round * nr_threads + self->index)
			out_of_order = 1;
		token++;
		cpuspin_us(work_us);
		selfcheck_count("sem", "post");
		sem_post(&sems[next]);
	}
	selfcheck_thread_done("ring");
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long n = 4, rounds = 100, work = 20;
	struct ring_thread *threads;
	unsigned int i;

	if (argc > 4 || (argc > 1 && parse_arg(argv[1], 2, 64, &n)) ||
	    (argc > 2 && parse_arg(argv[2], 1, 4000, &rounds)) ||
	    (argc > 3 && parse_arg(argv[3], 0, 100000, &work))) {
		fprintf(stderr, "usage: ring [threads=4 (2..64)] [rounds=100 (1..4000)] [work_us=20 (0..100000)]\n");
		return 2;
	}
	nr_threads = (unsigned int)n;
	nr_rounds = rounds;
	work_us = work;
	threads = calloc(nr_threads, sizeof(*threads));
	sems = calloc(nr_threads, sizeof(*sems));
	if (!threads || !sems) {
		fprintf(stderr, "ring: out of memory\n");
		return 1;
	}
	for (i = 0; i < nr_threads; i++) {
		selfcheck_count("sem", "init");
		sem_init(&sems[i], 0, 0);
	}
	for (i = 0; i < nr_threads; i++) {
		threads[i].index = i;
		selfcheck_count("thread", "create");
		if (pthread_create(&threads[i].thread, NULL, ring_thread, &threads[i]) != 0) {
			fprintf(stderr, "ring: pthread_create failed\n");
			return 1;
		}
	}
	selfcheck_count("sem", "post");
	sem_post(&sems[0]);		/* the token starts at ring-0 */
	for (i = 0; i < nr_threads; i++) {
		selfcheck_count("thread", "join");
		pthread_join(threads[i].thread, NULL);
	}
	for (i = 0; i < nr_threads; i++) {
		selfcheck_count("sem", "destroy");
		sem_destroy(&sems[i]);
	}
	selfcheck_order_write();

	printf("ring: %u threads took the token %lu times\n", nr_threads, token);
	fflush(stdout);
	free(threads);
	free(sems);
	selfcheck_thread_done("main");
	if (out_of_order) {
		fprintf(stderr, "ring: the token came out of order\n");
		return 1;
	}
	return 0;
}
