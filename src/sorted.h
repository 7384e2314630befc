/*
 * src/sorted.h - where a key falls in an array sorted by an int64_t field,
 * or by two, the one binary search of the analyses and of sync_resolve
 * (threads by tid, objects by id, intervals by start, lifetimes by tid and
 * start, ...), and its galloping form for passes in time order.
 */
#ifndef MTX_SRC_SORTED_H
#define MTX_SRC_SORTED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * sorted_first2 - the index of the first of the @n elements (@size bytes
 * each, at @base, ascending by the int64_t at @offset1, then by the one at
 * @offset2) whose key pair is at least (@key1, @key2), or, when @after,
 * greater; @n if there is none. Inline: with constant @size and offsets it
 * compiles to the plain loop.
 */
static inline size_t sorted_first2(const void *base, size_t n, size_t size, size_t offset1, size_t offset2,
				   int64_t key1, int64_t key2, bool after)
{
	const char *p = base;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int64_t k1, k2;
		memcpy(&k1, p + mid * size + offset1, sizeof(k1));
		memcpy(&k2, p + mid * size + offset2, sizeof(k2));
		if (k1 < key1 || (k1 == key1 && (k2 < key2 || (after && k2 == key2))))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* sorted_first - the same by one key: the first at least @key (greater,
 * when @after). */
static inline size_t sorted_first(const void *base, size_t n, size_t size, size_t offset, int64_t key,
				  bool after)
{
	return sorted_first2(base, n, size, offset, offset, key, key, after);
}

/*
 * sorted_first_near - sorted_first for keys that mostly grow from one call
 * to the next (a pass in time order): it gallops forward from *@at, where
 * the previous call ended (0 to start over), and leaves its result there.
 * Every key gets the right answer; a key below the last one searches from
 * the start. Near the last answer it costs a few steps in cache instead of
 * a search over the whole array.
 */
static inline size_t sorted_first_near(const void *base, size_t n, size_t size, size_t offset, int64_t key,
				       bool after, size_t *at)
{
	const char *p = base;
	size_t lo = *at <= n ? *at : 0, step = 1;
	int64_t k;
	if (n == 0)
		return *at = 0; /* no elements may be a NULL @base: no arithmetic on it */
#define SORTED_BEFORE(i) (memcpy(&k, p + (i) * size + offset, sizeof(k)), k < key || (after && k == key))
	if (lo > 0 && !SORTED_BEFORE(lo - 1))
		lo = 0; /* all before lo must come before the answer */
	while (lo + step < n && SORTED_BEFORE(lo + step)) {
		lo += step;
		step *= 2;
	}
#undef SORTED_BEFORE
	size_t hi = lo + step < n ? lo + step : n;
	*at = lo + sorted_first(p + lo * size, hi - lo, size, offset, key, after);
	return *at;
}

/* SORTED_FIRST - sorted_first over array @a of @n elements by @field;
 * SORTED_FIRST2 by @field1, then @field2. */
#define SORTED_FIRST(a, n, field, key, after) \
	sorted_first((a), (n), sizeof(*(a)), offsetof(__typeof__(*(a)), field), (key), (after))
#define SORTED_FIRST_NEAR(a, n, field, key, after, at) \
	sorted_first_near((a), (n), sizeof(*(a)), offsetof(__typeof__(*(a)), field), (key), (after), (at))
#define SORTED_FIRST2(a, n, field1, field2, key1, key2, after)                                         \
	sorted_first2((a), (n), sizeof(*(a)), offsetof(__typeof__(*(a)), field1),                       \
		      offsetof(__typeof__(*(a)), field2), (key1), (key2), (after))

static inline int sorted_cmp_at(const void *a, const void *b, void *offset)
{
	int64_t x, y;
	memcpy(&x, (const char *)a + (size_t)offset, sizeof(x));
	memcpy(&y, (const char *)b + (size_t)offset, sizeof(y));
	return (x > y) - (x < y);
}

/* sorted_sort - sort the @n elements (@size bytes each, at @base)
 * ascending by the int64_t at @offset, for the searches above (none to
 * sort when @n < 2: qsort takes no NULL, even for nothing). SORTED_SORT:
 * array @a by @field. */
static inline void sorted_sort(void *base, size_t n, size_t size, size_t offset)
{
	if (n > 1)
		qsort_r(base, n, size, sorted_cmp_at, (void *)offset);
}
#define SORTED_SORT(a, n, field) sorted_sort((a), (n), sizeof(*(a)), offsetof(__typeof__(*(a)), field))

#endif
