/*
 * samples/cpuspin.h - compute for a given amount of the calling thread's
 * own CPU time (CLOCK_THREAD_CPUTIME_ID), whatever else the CPU runs: the
 * "simulated computation" of seed 004's test programs.  Time the thread
 * spends preempted does not count, so the work is the same in every run
 * and is what mtx probe-effect's simulation replays.
 */
#ifndef MTX_SAMPLES_CPUSPIN_H
#define MTX_SAMPLES_CPUSPIN_H

#include <time.h>

static inline unsigned long long cpuspin_thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/* cpuspin_us - busy for @us microseconds of this thread's CPU time. The
 * clock (a syscall, not in the vDSO) is read every few microseconds of
 * work, so that a traced run does not drown in clock_gettime calls. */
static __attribute__((unused, noinline)) void cpuspin_us(unsigned long us)
{
	unsigned long long end = cpuspin_thread_ns() + 1000ULL * us;
	volatile unsigned long acc = us;
	unsigned long i;

	while (cpuspin_thread_ns() < end)
		for (i = 0; i < 2000; i++)
			acc = acc * 31 + i;
}

#endif /* MTX_SAMPLES_CPUSPIN_H */
