/*
 * bench/lock-pairs.h - the timed loop of uncontended pthread_mutex_lock +
 * pthread_mutex_unlock pairs, shared by bench/sync-op-cost.c (preload) and
 * bench/lock-pairs.c (built static too, for the uprobe fallback).
 */
#ifndef MTX_BENCH_LOCK_PAIRS_H
#define MTX_BENCH_LOCK_PAIRS_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Time @pairs lock+unlock pairs on one mutex, @runs times; print the
 * median ns per pair ("ns_per_pair <median> min <min> max <max>"). */
static int measure(long pairs, int runs)
{
	static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	double *ns = calloc((size_t)runs, sizeof(*ns));

	if (!ns)
		return 1;
	/* warm-up: claims the lane, faults in the pages, settles the clock */
	for (long i = 0; i < pairs / 10; i++) {
		pthread_mutex_lock(&m);
		pthread_mutex_unlock(&m);
	}
	for (int r = 0; r < runs; r++) {
		uint64_t t0 = now_ns();

		for (long i = 0; i < pairs; i++) {
			pthread_mutex_lock(&m);
			pthread_mutex_unlock(&m);
		}
		ns[r] = (double)(now_ns() - t0) / (double)pairs;
	}
	qsort(ns, (size_t)runs, sizeof(*ns), cmp_double);
	printf("ns_per_pair %.2f min %.2f max %.2f\n", ns[runs / 2], ns[0], ns[runs - 1]);
	free(ns);
	return 0;
}

#endif
