/*
 * tests/unit/test-stacks.c - the stack trie (collector/stacks.c): equal
 * chains give the same node, common outer frames are shared, spaces are
 * kept apart, callers are stored as return address - 1, and the node
 * count is exact, also across the table's growth.
 */
#include "collector/stacks.h"

#include <criterion/criterion.h>

Test(stacks, dedup_and_prefix_sharing)
{
	struct mtx_stacks *st = stacks_new();
	/* leaf first, as perf gives it: leaf 0x100 called from 0x205 from 0x305 */
	const uint64_t a[] = { 0x100, 0x205, 0x305 };
	const uint64_t b[] = { 0x110, 0x205, 0x305 }; /* same callers, another leaf */
	const uint64_t c[] = { 0x205, 0x305 };        /* sampled at a return address */
	uint32_t la = stacks_intern_chain(st, 1, a, 3);
	const struct stacks_node *n;

	cr_assert_eq(stacks_count(st), 3);
	cr_assert_eq(stacks_intern_chain(st, 1, a, 3), la);
	cr_assert_eq(stacks_count(st), 3);
	uint32_t lb = stacks_intern_chain(st, 1, b, 3);
	cr_assert_neq(lb, la);
	cr_assert_eq(stacks_count(st), 4, "only the new leaf is added");
	cr_assert_eq(stacks_node(st, lb)->parent, stacks_node(st, la)->parent);

	n = stacks_node(st, la);
	cr_assert_eq(n->pc, 0x100, "the leaf keeps its address");
	n = stacks_node(st, n->parent);
	cr_assert_eq(n->pc, 0x204, "callers are return address - 1");
	n = stacks_node(st, n->parent);
	cr_assert_eq(n->pc, 0x304);
	cr_assert_eq(n->parent, 0, "the outermost frame is a root");

	/* A leaf at a return address is not the caller's node (pc differs by 1). */
	uint32_t lc = stacks_intern_chain(st, 1, c, 2);
	cr_assert_eq(stacks_node(st, lc)->pc, 0x205);
	cr_assert_eq(stacks_count(st), 5);

	/* Another address space: nothing shared. */
	cr_assert_neq(stacks_intern_chain(st, 2, a, 3), la);
	cr_assert_eq(stacks_count(st), 8);
	cr_assert_eq(stacks_intern_chain(st, 1, a, 0), 0, "an empty chain has no node");
	cr_assert_null(stacks_node(st, 0));
	cr_assert_null(stacks_node(st, 9));
	stacks_free(st);
}

Test(stacks, many_nodes_survive_rehashing)
{
	struct mtx_stacks *st = stacks_new();
	uint32_t ids[5000];
	for (uint64_t i = 0; i < 5000; i++) {
		uint64_t chain[2] = { 0x1000 + i, 0x9001 };
		ids[i] = stacks_intern_chain(st, 7, chain, 2);
	}
	cr_assert_eq(stacks_count(st), 5001, "5000 leaves and their one shared caller");
	for (uint64_t i = 0; i < 5000; i++) {
		uint64_t chain[2] = { 0x1000 + i, 0x9001 };
		cr_assert_eq(stacks_intern_chain(st, 7, chain, 2), ids[i]);
	}
	cr_assert_eq(stacks_count(st), 5001);
	stacks_free(st);
}
