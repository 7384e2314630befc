/*
 * src/grow.h - room for one more element in a doubling array, the one way
 * arrays grow in mtx.
 */
#ifndef MTX_SRC_GROW_H
#define MTX_SRC_GROW_H

#include <stdlib.h>

/*
 * grow_array - @items (@len used of *@cap elements of @elem bytes) with room
 * for at least one more: the same array, or a larger copy (*@cap updated;
 * @first elements when it was empty). NULL when memory ran out, and @items
 * is then unchanged and still valid.
 */
static inline void *grow_array(void *items, size_t *cap, size_t len, size_t elem, size_t first)
{
	size_t n;
	void *p;
	if (len < *cap)
		return items;
	n = *cap ? *cap * 2 : first;
	p = realloc(items, n * elem);
	if (p)
		*cap = n;
	return p;
}

#endif
