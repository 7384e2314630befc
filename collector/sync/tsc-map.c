/* collector/sync/tsc-map.c - see tsc-map.h. */
#include "config.h"
#include "collector/sync/tsc-map.h"
#include "src/clock.h"
#include "src/grow.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <x86intrin.h>

/* Fixed-point bits of mult: exact to well under 1 ns over hours, and the
 * products fit in 128 bits for any TSC above ~16 kHz. */
#define TSC_MAP_SHIFT 48

static int file_has_word(const char *path, const char *word)
{
	char line[4096];
	FILE *f = fopen(path, "re");
	int found = 0;
	size_t n = strlen(word);
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		for (char *p = strstr(line, word); p && !found; p = strstr(p + 1, word))
			found = (p == line || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || p[n] == '\0');
	}
	fclose(f);
	return found;
}

int tsc_usable(void)
{
	return file_has_word("/sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc") &&
	       file_has_word("/proc/cpuinfo", "constant_tsc") &&
	       file_has_word("/proc/cpuinfo", "nonstop_tsc");
}

struct tsc_point tsc_sample(void)
{
	struct tsc_point best = { 0, 0 };
	uint64_t best_width = UINT64_MAX;
	for (int i = 0; i < 5; i++) {
		uint64_t before = clock_now_ns(), tsc = __rdtsc(), after = clock_now_ns();
		if (after - before < best_width) {
			best_width = after - before;
			best = (struct tsc_point){ tsc, before + (after - before) / 2 };
		}
	}
	return best;
}

/* The line through @a and @b at @tsc (a.tsc < b.tsc). */
static uint64_t on_line(struct tsc_point a, struct tsc_point b, uint64_t tsc)
{
	long double slope = (long double)(b.ns - a.ns) / (long double)(b.tsc - a.tsc);
	long double d = (long double)tsc - (long double)a.tsc;
	return (uint64_t)llroundl((long double)a.ns + d * slope);
}

uint64_t tsc_map_ns(const struct tsc_map *m, uint64_t tsc)
{
	size_t lo = 0, hi;
	struct tsc_point first, last;
	if (m->samples == 0)
		return 0;
	first = m->knots[0];
	last = m->knots[m->len - 1];
	if (tsc >= last.tsc) /* the common case: one multiply */
		return last.ns + (uint64_t)(((unsigned __int128)(tsc - last.tsc) * m->mult +
					     ((unsigned __int128)1 << (TSC_MAP_SHIFT - 1))) >> TSC_MAP_SHIFT);
	if (tsc <= first.tsc) {
		struct tsc_point next = m->len > 1 ? m->knots[1] : m->latest;
		return next.tsc > first.tsc ? on_line(first, next, tsc) : first.ns;
	}
	/* knots[lo].tsc <= tsc < knots[hi].tsc */
	hi = m->len - 1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->knots[mid].tsc <= tsc)
			lo = mid;
		else
			hi = mid;
	}
	return on_line(m->knots[lo], m->knots[hi], tsc);
}

static int push_knot(struct tsc_map *m, struct tsc_point p)
{
	struct tsc_point *k = grow_array(m->knots, &m->cap, m->len, sizeof(*k), 16);
	if (!k)
		return -ENOMEM;
	m->knots = k;
	m->knots[m->len++] = p;
	return 0;
}

int tsc_map_add(struct tsc_map *m, struct tsc_point p)
{
	struct tsc_point last;
	int rc = 0;
	if (m->samples++ == 0) {
		m->latest = p;
		return push_knot(m, p);
	}
	if (p.tsc <= m->latest.tsc)
		return 0; /* not newer: nothing to learn */
	if (m->latest.tsc > m->knots[m->len - 1].tsc) {
		uint64_t predicted = tsc_map_ns(m, p.tsc);
		uint64_t off = predicted > p.ns ? predicted - p.ns : p.ns - predicted;
		/* The rate changed: the segment so far ends at the last good sample. */
		if (off > TSC_MAP_TOLERANCE_NS)
			rc = push_knot(m, m->latest);
	}
	m->latest = p;
	last = m->knots[m->len - 1];
	if (p.tsc > last.tsc && p.ns >= last.ns)
		m->mult = (uint64_t)(((unsigned __int128)(p.ns - last.ns) << TSC_MAP_SHIFT) / (p.tsc - last.tsc));
	return rc;
}

uint64_t tsc_map_span_ns(const struct tsc_map *m, uint64_t ticks)
{
	return (uint64_t)(((unsigned __int128)ticks * m->mult + ((unsigned __int128)1 << (TSC_MAP_SHIFT - 1))) >>
			  TSC_MAP_SHIFT);
}

void tsc_map_free(struct tsc_map *m)
{
	free(m->knots);
	memset(m, 0, sizeof(*m));
}

uint64_t tsc_map_hz(const struct tsc_map *m)
{
	struct tsc_point first, last = m->latest;

	if (m->samples < 2)
		return 0;
	first = m->knots[0];
	if (last.ns < first.ns + 1000000 || last.tsc <= first.tsc)
		return 0;
	return (uint64_t)((unsigned __int128)(last.tsc - first.tsc) * 1000000000u / (last.ns - first.ns));
}
