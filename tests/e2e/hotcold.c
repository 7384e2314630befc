/*
 * tests/e2e/hotcold.c - two functions for --overhead-budget to weigh:
 * hot() is called in a tight loop, cold() once every 10 ms, for SECONDS
 * seconds of the program's own clock; it prints how many calls of each
 * it made. Probed, hot costs a whole CPU's worth of uprobe hits, cold
 * a fraction of a percent.
 *
 * Usage: hotcold SECONDS
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static unsigned long hot_calls, cold_calls;

__attribute__((noinline, noclone)) void hot(void);
__attribute__((noinline, noclone)) void cold(void);

__attribute__((noinline, noclone)) void hot(void)
{
	hot_calls++;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline, noclone)) void cold(void)
{
	cold_calls++;
	__asm__ volatile("" ::: "memory");
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long seconds = argc == 2 ? atol(argv[1]) : 0;
	uint64_t start, next_cold, now;
	if (seconds <= 0 || seconds > 600) {
		fprintf(stderr, "usage: hotcold SECONDS (1 to 600)\n");
		return 2;
	}
	start = next_cold = now_ns();
	do {
		hot();
		now = now_ns();
		if (now >= next_cold) {
			cold();
			next_cold += 10000000;
		}
	} while (now - start < (uint64_t)seconds * 1000000000u);
	printf("hot %s, cold %lu\n", hot_calls > 1000 ? "many" : "few", cold_calls);
	return 0;
}
