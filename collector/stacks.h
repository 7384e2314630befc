/*
 * collector/stacks.h - deduplicated call paths, as a trie: a node is one
 * code address called from its parent node, in one address space. CPU
 * samples (collector/profile.c) and anything else that records user
 * stacks intern their chains here and keep the leaf's id; the trie is
 * turned into rows of `stacks` (with functions) when the run ends.
 *
 * Node ids are 1, 2, ... in order of creation and never change, so rows
 * that name a stack can be written before the stacks themselves.
 */
#ifndef MTX_COLLECTOR_STACKS_H
#define MTX_COLLECTOR_STACKS_H

#include <stddef.h>
#include <stdint.h>

/* The pc of the frame added on top of a sample taken in the kernel. */
#define STACKS_PC_KERNEL UINT64_MAX

struct mtx_stacks;

struct stacks_node {
	uint32_t parent; /* 0: a root (outermost frame) */
	uint32_t space;  /* address space (collector/profile.c) */
	uint64_t pc;     /* the leaf's sampled address; callers: return address - 1 */
};

/* stacks_new - an empty trie, or NULL when out of memory. */
struct mtx_stacks *stacks_new(void);

/* stacks_intern - the id of the node (@parent, @space, @pc), created if
 * new; 0 when out of memory. */
uint32_t stacks_intern(struct mtx_stacks *st, uint32_t parent, uint32_t space, uint64_t pc);

/*
 * stacks_intern_chain - intern a call chain as perf gives it: @pcs[0] the
 * leaf's address, each next one a return address into the caller (stored
 * minus 1, so it lies in the call instruction and names the caller's line).
 * Returns the leaf's node id, or 0 for an empty chain or out of memory.
 */
uint32_t stacks_intern_chain(struct mtx_stacks *st, uint32_t space, const uint64_t *pcs, size_t nr);

/* stacks_count - how many nodes (the largest id). */
uint32_t stacks_count(const struct mtx_stacks *st);

/* stacks_node - node @id (1 .. stacks_count). */
const struct stacks_node *stacks_node(const struct mtx_stacks *st, uint32_t id);

void stacks_free(struct mtx_stacks *st);

#endif
