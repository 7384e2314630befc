/*
 * src/keyhash.h - a small open-addressing hash from up to three int64 keys
 * to an index into the caller's array, for the analyses' totals.
 */
#ifndef MTX_KEYHASH_H
#define MTX_KEYHASH_H

#include "src/grow.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct keyhash_slot {
	int64_t k[3];
	size_t v; /* the caller's index + 1; 0: empty */
};

struct keyhash {
	struct keyhash_slot *slots;
	size_t cap, len; /* cap: a power of two */
};

static inline uint64_t keyhash_mix(const int64_t k[3])
{
	uint64_t h = 1469598103934665603ULL;
	for (int i = 0; i < 3; i++) {
		h ^= (uint64_t)k[i];
		h *= 1099511628211ULL;
		h ^= h >> 29;
	}
	return h;
}

static inline int keyhash_grow(struct keyhash *h)
{
	size_t cap = h->cap ? h->cap * 2 : 256;
	struct keyhash_slot *slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < h->cap; i++) {
		if (!h->slots[i].v)
			continue;
		size_t j = keyhash_mix(h->slots[i].k) & (cap - 1);
		while (slots[j].v)
			j = (j + 1) & (cap - 1);
		slots[j] = h->slots[i];
	}
	free(h->slots);
	h->slots = slots;
	h->cap = cap;
	return 0;
}

/*
 * keyhash_slot - the slot of (@a, @b, @c): its v is the index + 1 when the
 * key is there, else 0, and the caller that adds the key sets v and counts
 * it in len. NULL when memory ran out.
 */
static inline struct keyhash_slot *keyhash_slot(struct keyhash *h, int64_t a, int64_t b, int64_t c)
{
	const int64_t k[3] = { a, b, c };
	if ((h->len + 1) * 2 > h->cap && keyhash_grow(h))
		return NULL;
	size_t j = keyhash_mix(k) & (h->cap - 1);
	while (h->slots[j].v && memcmp(h->slots[j].k, k, sizeof(k)))
		j = (j + 1) & (h->cap - 1);
	if (!h->slots[j].v)
		memcpy(h->slots[j].k, k, sizeof(k));
	return &h->slots[j];
}

/*
 * keyhash_row - the index of the row keyed (@a, @b, @c) in the caller's
 * array *@rows_p (a pointer to its T * variable; *@len rows of @size bytes,
 * room for *@cap): a new key gets a copy of @init appended, the array grown
 * as needed. Returns the index, or -ENOMEM.
 */
static inline ptrdiff_t keyhash_row(struct keyhash *h, int64_t a, int64_t b, int64_t c, void *rows_p, size_t *len,
				    size_t *cap, size_t size, const void *init)
{
	struct keyhash_slot *sl = keyhash_slot(h, a, b, c);
	void *rows;
	if (!sl)
		return -ENOMEM;
	if (!sl->v) {
		/* The caller's pointer is read and written as bytes: it may be
		 * any T *. */
		memcpy(&rows, rows_p, sizeof(rows));
		if (!(rows = grow_array(rows, cap, *len, size, 64)))
			return -ENOMEM;
		memcpy(rows_p, &rows, sizeof(rows));
		memcpy((char *)rows + *len * size, init, size);
		sl->v = ++*len;
		h->len++;
	}
	return (ptrdiff_t)(sl->v - 1);
}

/*
 * keyhash_text - the index of text @s in *@texts (*@len of them, room for
 * *@cap), a copy appended when it is new, unless that would make more than
 * @max (-E2BIG). @h keys them by the text's FNV-1a hash and a probe count:
 * texts whose hashes collide take the next probe, told apart by strcmp.
 * Returns the index, or -ENOMEM.
 */
static inline ptrdiff_t keyhash_text(struct keyhash *h, char ***texts, size_t *len, size_t *cap, size_t max,
				     const char *s)
{
	uint64_t fnv = 1469598103934665603ULL;
	for (const char *p = s; *p; p++)
		fnv = (fnv ^ (unsigned char)*p) * 1099511628211ULL;
	for (int64_t probe = 0;; probe++) {
		struct keyhash_slot *sl = keyhash_slot(h, (int64_t)fnv, probe, 0);
		char **more;
		if (!sl)
			return -ENOMEM;
		if (sl->v && !strcmp((*texts)[sl->v - 1], s))
			return (ptrdiff_t)sl->v - 1;
		if (sl->v)
			continue;
		if (*len >= max)
			return -E2BIG;
		if (!(more = grow_array(*texts, cap, *len, sizeof(*more), 64)))
			return -ENOMEM;
		*texts = more;
		if (!(more[*len] = strdup(s)))
			return -ENOMEM;
		sl->v = ++*len;
		h->len++;
		return (ptrdiff_t)sl->v - 1;
	}
}

static inline void keyhash_free(struct keyhash *h)
{
	free(h->slots);
	h->slots = NULL;
	h->cap = h->len = 0;
}

#endif
