/*
 * tests/unit/test-spill.c - arrays in a file (src/spill.c): an array grown
 * past SPILL_MIN_BYTES keeps every element while the process holds only
 * part of it in memory (/proc/self/statm says how much), resizes keep
 * what was there, a freed array gives its blocks back, arrays leave
 * malloc's memory only when the process holds more than SPILL_MEMORY_BYTES,
 * and then each of hundreds of them (five tables of many threads) does.
 */
#include "config.h"
#include "src/spill.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Data well past what the process may keep mapped in. */
#define BIG_ELEMENTS ((size_t)SPILL_RESIDENT_BYTES / sizeof(int64_t) * 3)

static char dir[] = "/var/tmp/mtx-test-spill-XXXXXX";

static void setup(void)
{
	char path[sizeof(dir) + 16];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/run.db", dir);
	cr_assert_eq(spill_beside(path), 0);
}

static void teardown(void)
{
	rmdir(dir); /* the spill file has no name: the directory is empty */
}

TestSuite(spill, .init = setup, .fini = teardown);

/* /proc/self/statm's field @k in bytes: 1 resident, 2 of them shared
 * (file pages mapped in). */
static uint64_t statm_bytes(int k)
{
	unsigned long f[3] = { 0 };
	FILE *in = fopen("/proc/self/statm", "r");
	cr_assert_not_null(in);
	cr_assert_eq(fscanf(in, "%lu %lu %lu", &f[0], &f[1], &f[2]), 3);
	fclose(in);
	return (uint64_t)f[k] * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* The least of statm's field @k seen while waiting up to 5 s for it to
 * come within @limit (the pages are dropped by a thread of spill.c's). */
static uint64_t within(int k, uint64_t limit)
{
	uint64_t least = statm_bytes(k);
	for (int i = 0; i < 500 && least > limit; i++) {
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		uint64_t now = statm_bytes(k);
		least = now < least ? now : least;
	}
	return least;
}

/* What the process holds must stay within @limit: the file's pages it has
 * mapped in, and (but under AddressSanitizer, whose quarantine keeps what
 * is freed) all it has resident. */
static void check_memory(uint64_t limit, const char *after)
{
	uint64_t mapped = within(2, limit);
	cr_expect_leq(mapped, limit, "%llu MB of the file mapped in after %s", (unsigned long long)(mapped >> 20),
		      after);
#ifndef __SANITIZE_ADDRESS__
	uint64_t resident = within(1, limit);
	cr_expect_leq(resident, limit, "%llu MB resident after %s", (unsigned long long)(resident >> 20), after);
#endif
}

static int64_t value_at(size_t i)
{
	return (int64_t)(i * 2654435761u) ^ 0x5a5a;
}

Test(spill, a_large_array_keeps_every_element_with_little_of_it_in_memory)
{
	int64_t *v = NULL;
	size_t cap = 0;
	uint64_t limit = SPILL_RESIDENT_BYTES + (64u << 20); /* the test's own memory besides */

	for (size_t i = 0; i < BIG_ELEMENTS; i++) {
		int64_t *more = spill_grow(v, &cap, i, sizeof(*v), 64);
		cr_assert_not_null(more, "no room at element %zu", i);
		v = more;
		v[i] = value_at(i);
	}
	struct spill_stats st = spill_stats();
	cr_assert_geq(st.bytes, BIG_ELEMENTS * sizeof(*v), "the array is not in the file: %llu bytes there",
		      (unsigned long long)st.bytes);
	check_memory(limit, "writing it");
	for (size_t i = 0; i < BIG_ELEMENTS; i++)
		cr_assert_eq(v[i], value_at(i), "element %zu changed", i);
	check_memory(limit, "reading it all");

	/* a resize as take_rows makes it: larger, the old elements kept */
	size_t more_elements = BIG_ELEMENTS + 1000;
	int64_t *w = spill_realloc(v, BIG_ELEMENTS * sizeof(*v), more_elements * sizeof(*v));
	cr_assert_not_null(w);
	for (size_t i = 0; i < BIG_ELEMENTS; i += 4099)
		cr_assert_eq(w[i], value_at(i), "element %zu changed by the resize", i);
	for (size_t i = BIG_ELEMENTS; i < more_elements; i++)
		w[i] = value_at(i);
	cr_assert_eq(w[more_elements - 1], value_at(more_elements - 1));

	spill_free(w);
	st = spill_stats();
	cr_expect_eq(st.bytes, 0, "%llu bytes still in the file after the free", (unsigned long long)st.bytes);
	cr_expect_geq(st.peak_bytes, BIG_ELEMENTS * sizeof(*v));
}

Test(spill, arrays_that_fit_in_memory_stay_there)
{
	char *v = NULL;
	size_t cap = 0, n = SPILL_MIN_BYTES * 8; /* past the size, within the memory */
	for (size_t i = 0; i < n; i++) {
		char *more = spill_grow(v, &cap, i, 1, 64);
		cr_assert_not_null(more);
		v = more;
		v[i] = (char)i;
	}
	cr_expect_eq(spill_stats().peak_bytes, 0, "a %zu-byte array went to the file", n);
	cr_expect_eq(v[12345], (char)12345);
	spill_free(v);
}

Test(spill, each_of_many_arrays_has_its_place_in_the_file)
{
	/* past the memory budget first, as a long run is */
	size_t hog_bytes = SPILL_MEMORY_BYTES + (32u << 20);
	char *hog = malloc(hog_bytes);
	cr_assert_not_null(hog);
	memset(hog, 1, hog_bytes);

	enum { ARRAYS = 300 }; /* five tables of 60 threads */
	static char *v[ARRAYS];
	size_t cap[ARRAYS] = { 0 };
	for (int k = 0; k < ARRAYS; k++) {
		for (size_t len = 0; len <= SPILL_MIN_BYTES / 2; len = cap[k]) {
			char *more = spill_grow(v[k], &cap[k], len, 1, 64);
			cr_assert_not_null(more, "array %d: no room at %zu bytes", k, len);
			memset(more + len, k & 0x7f, cap[k] - len);
			v[k] = more;
		}
	}
	struct spill_stats st = spill_stats();
	cr_expect_geq(st.bytes, (uint64_t)ARRAYS * SPILL_MIN_BYTES, "%llu MB in the file for %d arrays of %u MB",
		      (unsigned long long)(st.bytes >> 20), ARRAYS, SPILL_MIN_BYTES >> 20);
	for (int k = 0; k < ARRAYS; k++) {
		cr_assert_eq(v[k][0], k & 0x7f, "array %d changed", k);
		cr_assert_eq(v[k][cap[k] - 1], k & 0x7f, "array %d changed at its end", k);
		spill_free(v[k]);
	}
	cr_expect_eq(spill_stats().bytes, 0);
	for (size_t i = 0; i < hog_bytes; i += 4096) /* the drops leave memory alone */
		cr_assert_eq(hog[i], 1, "anonymous memory changed at %zu", i);
	free(hog);
}
