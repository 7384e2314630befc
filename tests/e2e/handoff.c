/*
 * tests/e2e/handoff.c - for tests/e2e/test-sync-order.sh: two threads,
 * each pinned to a CPU of its own, take one spinlock ROUNDS times each;
 * inside it they draw the next number of a shared counter, so that the
 * numbers give the order of the critical sections, from the program
 * itself. Prints one line per thread:
 *
 *   <tid> <number of its 1st section> <of its 2nd> ...
 *
 * A spinlock because its waiter spins on the lock's word: it takes the
 * lock within a cache-line transfer of the unlock, the closest two
 * threads' sync ops come in time.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_spinlock_t lock;
static long counter;
static long rounds;
static int started; /* workers at the start line (atomic) */

struct worker {
	pthread_t thread;
	int cpu;
	pid_t tid;
	long *numbers;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set)) {
		fprintf(stderr, "handoff: cannot pin a thread to CPU %d\n", w->cpu);
		exit(2);
	}
	w->tid = gettid();
	/* Both at once: one started late (its CPU busy with another
	 * program) would find the other done, and no handoff to check. */
	__atomic_add_fetch(&started, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < 2)
		;
	for (long i = 0; i < rounds; i++) {
		pthread_spin_lock(&lock);
		w->numbers[i] = counter++;
		pthread_spin_unlock(&lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct worker w[2] = { { .cpu = 0 }, { .cpu = 1 } };

	rounds = argc > 1 ? atol(argv[1]) : 100000;
	if (rounds <= 0 || pthread_spin_init(&lock, PTHREAD_PROCESS_PRIVATE))
		return 2;
	for (int t = 0; t < 2; t++) {
		w[t].numbers = calloc((size_t)rounds, sizeof(long));
		if (!w[t].numbers || pthread_create(&w[t].thread, NULL, work, &w[t]))
			return 2;
	}
	for (int t = 0; t < 2; t++) {
		pthread_join(w[t].thread, NULL);
		printf("%d", (int)w[t].tid);
		for (long i = 0; i < rounds; i++)
			printf(" %ld", w[t].numbers[i]);
		printf("\n");
	}
	return 0;
}
