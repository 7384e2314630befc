/*
 * tests/e2e/oplatency.c - for tests/e2e/test-inject-latency.sh (SEEDS-MAP
 * P7's oracle: a program that measures its own per-op latency sees it rise
 * by what mtx collect --inject-overhead injects). One thread locks and
 * unlocks one mutex, uncontended, OPS times, and times each call itself:
 * CLOCK_MONOTONIC read just before and just after it (through the vDSO,
 * no system call; not the collector's clock or its measured TSC rate, so
 * that the oracle is independent of both). Prints
 *
 *   mutex=0x... ops=OPS lock_median_ns=N unlock_median_ns=M
 *
 * Medians, not means: a preemption or an interrupt in a few calls moves a
 * mean, not the median of thousands.
 *
 * Usage: oplatency [ops=2000]   (1 <= ops <= 1000000)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* The median of @v's @n values (sorts @v). */
static int64_t median(int64_t *v, long n)
{
	qsort(v, (size_t)n, sizeof(*v), by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	long ops = argc > 1 ? atol(argv[1]) : 2000;
	int64_t *lock_ns, *unlock_ns;

	if (ops < 1 || ops > 1000000) {
		fprintf(stderr, "usage: oplatency [ops=2000]   (1 <= ops <= 1000000)\n");
		return 2;
	}
	lock_ns = malloc((size_t)ops * sizeof(*lock_ns));
	unlock_ns = malloc((size_t)ops * sizeof(*unlock_ns));
	if (!lock_ns || !unlock_ns)
		return 1;
	for (long i = 0; i < ops; i++) {
		int64_t t0 = now_ns(), t1, t2;
		if (pthread_mutex_lock(&mutex))
			return 1;
		t1 = now_ns();
		if (pthread_mutex_unlock(&mutex))
			return 1;
		t2 = now_ns();
		lock_ns[i] = t1 - t0;
		unlock_ns[i] = t2 - t1;
	}
	printf("mutex=%p ops=%ld lock_median_ns=%lld unlock_median_ns=%lld\n", (void *)&mutex, ops,
	       (long long)median(lock_ns, ops), (long long)median(unlock_ns, ops));
	free(lock_ns);
	free(unlock_ns);
	return 0;
}
