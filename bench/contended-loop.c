/*
 * bench/contended-loop.c - contended-loop [threads=3] [pairs=2000000]: each
 * thread locks one shared mutex PAIRS times around ~50 ns of work (issue
 * 29's tight contended loop), then prints the pairs done and their rate on
 * its own clock. Fixed work, so that wall time compares runs.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile long shared;
static long pairs;

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *loop(void *arg)
{
	(void)arg;
	for (long i = 0; i < pairs; i++) {
		pthread_mutex_lock(&lock);
		for (int j = 0; j < 10; j++)
			shared++;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 3;
	pthread_t t[64];
	double start;

	pairs = argc > 2 ? atol(argv[2]) : 2000000;
	if (threads < 1 || threads > 64 || pairs < 1) {
		fprintf(stderr, "usage: contended-loop [threads 1-64] [pairs]\n");
		return 2;
	}
	start = now_s();
	for (int i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, loop, NULL)) {
			fprintf(stderr, "contended-loop: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	double s = now_s() - start;
	printf("%ld lock pairs in %.3f s: %.2f M/s\n", pairs * threads, s, (double)(pairs * threads) / s / 1e6);
	return 0;
}
