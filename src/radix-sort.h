/*
 * src/radix-sort.h - a stable sort of fixed-size records by integer fields,
 * a byte at a time (LSD radix): linear in the records, for the millions
 * that sync_resolve orders, where qsort's comparisons through a function
 * pointer took seconds.
 */
#ifndef MTX_SRC_RADIX_SORT_H
#define MTX_SRC_RADIX_SORT_H

#include <stddef.h>

/* A key: a signed integer of @size bytes (1, 2, 4 or 8) at @offset. */
struct radix_key {
	size_t offset, size;
};

#define RADIX_KEY(type, field) ((struct radix_key){ offsetof(type, field), sizeof(((type *)0)->field) })

/*
 * radix_sort - order the @n records of @size bytes at @base by @keys[0],
 * then @keys[1], ... (as ORDER BY lists them), ties kept in their order.
 * Returns 0, or -ENOMEM (the records unchanged).
 */
int radix_sort(void *base, size_t n, size_t size, const struct radix_key *keys, size_t nr_keys);

#endif
