/*
 * src/sorted.h - where a key falls in an array sorted by an int64_t field,
 * the one binary search of the analyses (threads by tid, objects by id,
 * intervals by start, wait_for rows by tid, ...).
 */
#ifndef MTX_SRC_SORTED_H
#define MTX_SRC_SORTED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * sorted_first - the index of the first of the @n elements (@size bytes
 * each, at @base, ascending by the int64_t at @offset in each) whose key is
 * at least @key, or, when @after, greater than @key; @n if there is none.
 * Inline: with constant @size and @offset it compiles to the plain loop.
 */
static inline size_t sorted_first(const void *base, size_t n, size_t size, size_t offset, int64_t key,
				  bool after)
{
	const char *p = base;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int64_t k;
		memcpy(&k, p + mid * size + offset, sizeof(k));
		if (k < key || (after && k == key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* SORTED_FIRST - sorted_first over array @a of @n elements by @field. */
#define SORTED_FIRST(a, n, field, key, after) \
	sorted_first((a), (n), sizeof(*(a)), offsetof(__typeof__(*(a)), field), (key), (after))

#endif
