/*
 * collector/sync/tsc-map.h - converting the preload library's TSC stamps to
 * CLOCK_MONOTONIC nanoseconds.
 *
 * Why: rdtsc costs 16-20 ns here and the vDSO's clock_gettime 27-35 ns, and
 * an uncontended lock + unlock takes two stamps. The perf mmap page offers no
 * conversion (cap_user_time_zero is 0), so the collector calibrates itself:
 * it samples (TSC, CLOCK_MONOTONIC) pairs every time it drains (every
 * millisecond) and keeps a piecewise-linear map. A new knot is kept only when
 * the map's prediction for a fresh pair is off by more than
 * TSC_MAP_TOLERANCE_NS, so a steady clock costs two knots and a slewed one a
 * knot per slew step; every conversion is then within the tolerance plus the
 * noise of one pair (tens of ns).
 *
 * Used only when the kernel itself counts time with the TSC (clocksource
 * "tsc", which the kernel keeps only when the TSC is invariant and in step
 * across CPUs) and the CPU says constant_tsc and nonstop_tsc.
 */
#ifndef MTX_COLLECTOR_TSC_MAP_H
#define MTX_COLLECTOR_TSC_MAP_H

#include <stddef.h>
#include <stdint.h>

#define TSC_MAP_TOLERANCE_NS 200

struct tsc_point {
	uint64_t tsc, ns;
};

struct tsc_map {
	struct tsc_point *knots; /* increasing tsc */
	size_t len, cap;
	struct tsc_point latest; /* newest sample, the end of the last segment */
	uint64_t samples;
	/* The last segment's rate, ns per tick in fixed point: the drain
	 * converts millions of stamps a second, nearly all past the last knot,
	 * with one multiply each. */
	uint64_t mult;
};

/* tsc_usable - whether this machine's TSC can stand in for CLOCK_MONOTONIC. */
int tsc_usable(void);

/* tsc_sample - read one (TSC, CLOCK_MONOTONIC) pair, taking the tightest
 * of a few tries so that a preemption in between does not skew it. */
struct tsc_point tsc_sample(void);

/* tsc_map_add - add a sample (samples come in increasing order). Returns 0
 * or -ENOMEM. The first two samples must be apart (a millisecond or more)
 * for the first slope to be meaningful. */
int tsc_map_add(struct tsc_map *m, struct tsc_point p);

/* tsc_map_ns - @tsc in CLOCK_MONOTONIC ns: interpolated between knots,
 * extrapolated past the newest sample with the last slope. 0 before any
 * sample. */
uint64_t tsc_map_ns(const struct tsc_map *m, uint64_t tsc);

/* tsc_map_span_ns - a duration of @ticks in ns, at the latest rate; 0
 * before two samples. */
uint64_t tsc_map_span_ns(const struct tsc_map *m, uint64_t ticks);

/* tsc_map_hz - the TSC's mean rate in ticks per second, from the first
 * sample to the newest; 0 when they are less than a millisecond apart. */
uint64_t tsc_map_hz(const struct tsc_map *m);

void tsc_map_free(struct tsc_map *m);

#endif
