/*
 * tests/e2e/yielder.c - test-detail.sh's program: a thread pool that yields
 * by the hundred thousand, as sysbench threads does, and counts it itself.
 *
 *   yielder THREADS YIELDS
 *
 * Each of THREADS threads calls sched_yield() exactly YIELDS times, then
 * reads the kernel's own count of its context switches (getrusage
 * RUSAGE_THREAD: voluntary and involuntary) and writes, on stderr,
 *   thread TID yields YIELDS switches N
 * The program prints "yielder: THREADS x YIELDS" on stdout and exits 0.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

static long yields;
static pthread_barrier_t start;

static void *work(void *arg)
{
	struct rusage ru;
	(void)arg;
	pthread_barrier_wait(&start);
	for (long i = 0; i < yields; i++)
		sched_yield();
	getrusage(RUSAGE_THREAD, &ru);
	fprintf(stderr, "thread %d yields %ld switches %ld\n", (int)gettid(), yields, ru.ru_nvcsw + ru.ru_nivcsw);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc == 3 ? atoi(argv[1]) : 0;
	pthread_t t[64];
	yields = argc == 3 ? atol(argv[2]) : 0;
	if (n < 1 || n > 64 || yields < 1) {
		fprintf(stderr, "usage: yielder THREADS YIELDS\n");
		return 2;
	}
	pthread_barrier_init(&start, NULL, (unsigned)n);
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, work, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("yielder: %d x %ld\n", n, yields);
	return 0;
}
