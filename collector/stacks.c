/*
 * collector/stacks.c - see stacks.h. Nodes live in one array (index =
 * id - 1); an open-addressing table of ids finds (parent, space, pc).
 */
#include "config.h"
#include "collector/stacks.h"
#include "src/grow.h"

#include <stdlib.h>
#include <string.h>

struct mtx_stacks {
	struct stacks_node *nodes;
	size_t nr, cap;
	uint32_t *slots; /* node ids, 0 = empty; power-of-two size */
	size_t nr_slots;
};

struct mtx_stacks *stacks_new(void)
{
	struct mtx_stacks *st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->nr_slots = 1024;
	st->slots = calloc(st->nr_slots, sizeof(*st->slots));
	if (!st->slots) {
		free(st);
		return NULL;
	}
	return st;
}

static size_t hash(uint32_t parent, uint32_t space, uint64_t pc)
{
	uint64_t h = pc * 0x9e3779b97f4a7c15ull;
	h ^= ((uint64_t)parent << 32 | space) * 0xc2b2ae3d27d4eb4full;
	return (size_t)(h ^ (h >> 29));
}

static int same(const struct stacks_node *n, uint32_t parent, uint32_t space, uint64_t pc)
{
	return n->parent == parent && n->space == space && n->pc == pc;
}

static int rehash(struct mtx_stacks *st)
{
	size_t size = st->nr_slots * 2;
	uint32_t *slots = calloc(size, sizeof(*slots));
	if (!slots)
		return -1;
	for (size_t id = 1; id <= st->nr; id++) {
		const struct stacks_node *n = &st->nodes[id - 1];
		size_t i = hash(n->parent, n->space, n->pc) & (size - 1);
		while (slots[i])
			i = (i + 1) & (size - 1);
		slots[i] = (uint32_t)id;
	}
	free(st->slots);
	st->slots = slots;
	st->nr_slots = size;
	return 0;
}

uint32_t stacks_intern(struct mtx_stacks *st, uint32_t parent, uint32_t space, uint64_t pc)
{
	size_t i;
	struct stacks_node *nodes;

	for (i = hash(parent, space, pc) & (st->nr_slots - 1); st->slots[i]; i = (i + 1) & (st->nr_slots - 1))
		if (same(&st->nodes[st->slots[i] - 1], parent, space, pc))
			return st->slots[i];
	if (st->nr >= UINT32_MAX - 1)
		return 0;
	nodes = grow_array(st->nodes, &st->cap, st->nr, sizeof(*nodes), 256);
	if (!nodes)
		return 0;
	st->nodes = nodes;
	st->nodes[st->nr++] = (struct stacks_node){ .parent = parent, .space = space, .pc = pc };
	st->slots[i] = (uint32_t)st->nr;
	/* Keep the table at most half full. */
	if (st->nr * 2 > st->nr_slots)
		rehash(st);
	return (uint32_t)st->nr;
}

uint32_t stacks_intern_chain(struct mtx_stacks *st, uint32_t space, const uint64_t *pcs, size_t nr)
{
	uint32_t node = 0;
	/* From the outermost caller down to the leaf. */
	for (size_t i = nr; i-- > 0;) {
		node = stacks_intern(st, node, space, i ? pcs[i] - 1 : pcs[i]);
		if (!node)
			return 0;
	}
	return node;
}

uint32_t stacks_count(const struct mtx_stacks *st)
{
	return (uint32_t)st->nr;
}

const struct stacks_node *stacks_node(const struct mtx_stacks *st, uint32_t id)
{
	return id >= 1 && id <= st->nr ? &st->nodes[id - 1] : NULL;
}

void stacks_free(struct mtx_stacks *st)
{
	if (!st)
		return;
	free(st->nodes);
	free(st->slots);
	free(st);
}
