/*
 * bench/probe-rate.c - probe-rate ITERATIONS SPINS: ITERATIONS times, spin
 * SPINS loop turns (the program's own work) and call probed() once, and
 * cold() once every 1000 iterations; print the loop's wall time. With
 * SPINS chosen for ~60 us of work, an entry + return uprobe on probed()
 * (~12 us a call here) costs ~20% (bench/probe-cost.sh).
 * probe-rate --spins-per-us: how many turns make a microsecond here.
 * With PROBE_RATE_WINDOW_MS=W in the environment it also prints, every W
 * ms of the loop, "window END_NS ITERATIONS NS": the iterations done in
 * that window and its length (bench/probe-removal.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline, noipa)) void probed(unsigned long i);
__attribute__((noinline, noipa)) void cold(unsigned long i);

__attribute__((noinline, noipa)) void probed(unsigned long i)
{
	sink = i;
}

__attribute__((noinline, noipa)) void cold(unsigned long i)
{
	sink = i;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static void spin(unsigned long turns)
{
	for (volatile unsigned long k = 0; k < turns; k++)
		;
}

int main(int argc, char **argv)
{
	unsigned long long t0;
	unsigned long n, turns;
	if (argc == 2 && !strcmp(argv[1], "--spins-per-us")) {
		t0 = now_ns();
		spin(100000000);
		printf("%.1f\n", 100000000.0 * 1000 / (double)(now_ns() - t0));
		return 0;
	}
	if (argc != 3 || !(n = strtoul(argv[1], NULL, 10)) || !(turns = strtoul(argv[2], NULL, 10))) {
		fprintf(stderr, "usage: probe-rate ITERATIONS SPINS | --spins-per-us\n");
		return 2;
	}
	const char *w = getenv("PROBE_RATE_WINDOW_MS");
	unsigned long long window_ns = w ? strtoull(w, NULL, 10) * 1000000ull : 0, from, at;
	unsigned long done = 0;
	t0 = from = now_ns();
	for (unsigned long i = 0; i < n; i++) {
		spin(turns);
		probed(i);
		if (i % 1000 == 0)
			cold(i);
		if (window_ns && (i & 15) == 15 && (at = now_ns()) - from >= window_ns) {
			printf("window %llu %lu %llu\n", at, i + 1 - done, at - from);
			from = at;
			done = i + 1;
		}
	}
	printf("loop_ns %llu calls %lu\n", now_ns() - t0, n);
	return 0;
}
