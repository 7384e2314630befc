/*
 * bench/call-loop.c - call-loop [calls=200000] [runs=5]: calls one small
 * function (bench_callee) CALLS times per run, RUNS runs, and prints the
 * median ns per call and the calls made in all, for tracing it with an
 * entry + return uprobe (bench/function-uprobe-cost.sh).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

/* Not inlined, not cloned: the probed function must be called each time. */
__attribute__((noinline, noipa)) static unsigned long bench_callee(unsigned long i)
{
	sink = i;
	return i + 1;
}

static unsigned long long now_ns(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 200000;
	int runs = argc > 2 ? atoi(argv[2]) : 5;
	double ns[64], cpu_ns[64];
	unsigned long acc = 0;

	if (calls < 1 || runs < 1 || runs > 64) {
		fprintf(stderr, "usage: call-loop [calls] [runs (1-64)]\n");
		return 2;
	}
	for (int r = 0; r < runs; r++) {
		unsigned long long t0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		for (long i = 0; i < calls; i++)
			acc += bench_callee((unsigned long)i);
		cpu_ns[r] = (double)(now_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / (double)calls;
		ns[r] = (double)(now_ns(CLOCK_MONOTONIC) - t0) / (double)calls;
	}
	printf("ns_per_call %.1f\n", median(ns, runs));
	printf("cpu_ns_per_call %.1f\n", median(cpu_ns, runs));
	printf("calls %ld\n", calls * runs);
	return acc == 0; /* never: keeps acc alive */
}
