/* tests/unit/test-order.c - the k-way time merge of per-CPU streams. */
#include "config.h"
#include "collector/order.h"

#include <criterion/criterion.h>
#include <stdlib.h>

struct sink {
	uint64_t ts[4096];
	int queue_of[4096];
	size_t n;
};

static void collect(void *ctx, const struct mtx_event *ev)
{
	struct sink *s = ctx;
	s->ts[s->n] = ev->ts_ns;
	s->queue_of[s->n] = ev->cpu;
	s->n++;
}

static void push(struct mtx_order *o, int q, uint64_t ts)
{
	struct mtx_event ev = { .ts_ns = ts, .cpu = q };
	cr_assert_eq(order_push(o, q, &ev), 0);
}

Test(order, merges_sorted_streams)
{
	struct mtx_order o;
	struct sink s = { .n = 0 };
	cr_assert_eq(order_init(&o, 3), 0);
	for (uint64_t t = 0; t < 300; t++)
		push(&o, (int)(t % 3), t * 10);
	cr_assert_eq(order_flush(&o, UINT64_MAX, collect, &s), 300);
	for (size_t i = 1; i < s.n; i++)
		cr_assert_leq(s.ts[i - 1], s.ts[i], "out of order at %zu", i);
	order_free(&o);
}

Test(order, fixes_small_inversions_within_a_stream)
{
	struct mtx_order o;
	struct sink s = { .n = 0 };
	static const uint64_t within[] = { 10, 30, 20, 40, 35, 50, 45, 44 };
	cr_assert_eq(order_init(&o, 2), 0);
	for (size_t i = 0; i < sizeof(within) / sizeof(within[0]); i++)
		push(&o, 0, within[i]);
	push(&o, 1, 25);
	push(&o, 1, 41);
	order_flush(&o, UINT64_MAX, collect, &s);
	cr_assert_eq(s.n, 10);
	for (size_t i = 1; i < s.n; i++)
		cr_assert_leq(s.ts[i - 1], s.ts[i]);
	order_free(&o);
}

Test(order, flush_stops_at_the_watermark_and_keeps_the_rest)
{
	struct mtx_order o;
	struct sink s = { .n = 0 };
	cr_assert_eq(order_init(&o, 2), 0);
	push(&o, 0, 100);
	push(&o, 1, 150);
	push(&o, 0, 200);
	cr_assert_eq(order_flush(&o, 160, collect, &s), 2);
	cr_assert_eq(order_pending(&o), 1);
	/* An event older than the watermark arriving late is still emitted,
	 * and counted as late. */
	push(&o, 1, 120);
	cr_assert_eq(o.nr_late, 1);
	cr_assert_eq(order_flush(&o, UINT64_MAX, collect, &s), 2);
	cr_assert_eq(s.ts[2], 120);
	cr_assert_eq(s.ts[3], 200);
	order_free(&o);
}

/* Found by tests/fuzz/fuzz-perf-decode: a record stamped UINT64_MAX stayed
 * queued through the last flush, and its malloc'd path was never freed. */
Test(order, flush_of_all_takes_the_last_possible_stamp_too)
{
	struct mtx_order o;
	struct sink s = { .n = 0 };
	cr_assert_eq(order_init(&o, 2), 0);
	push(&o, 1, UINT64_MAX);
	push(&o, 0, UINT64_MAX);
	push(&o, 0, 7);
	cr_assert_eq(order_flush(&o, UINT64_MAX, collect, &s), 3);
	cr_assert_eq(order_pending(&o), 0);
	cr_assert_eq(s.ts[0], 7);
	cr_assert_eq(s.queue_of[1], 0);
	cr_assert_eq(s.queue_of[2], 1);
	order_free(&o);
}

Test(order, ties_go_to_the_lower_queue_then_push_order)
{
	struct mtx_order o;
	struct sink s = { .n = 0 };
	cr_assert_eq(order_init(&o, 2), 0);
	push(&o, 1, 5);
	push(&o, 0, 5);
	push(&o, 0, 5);
	order_flush(&o, UINT64_MAX, collect, &s);
	cr_assert_eq(s.queue_of[0], 0);
	cr_assert_eq(s.queue_of[1], 0);
	cr_assert_eq(s.queue_of[2], 1);
	order_free(&o);
}

Test(order, grows_past_its_first_capacity)
{
	struct mtx_order o;
	struct sink *s = calloc(1, sizeof(*s));
	size_t total = 0;
	cr_assert_eq(order_init(&o, 1), 0);
	/* Interleave pushes and partial flushes so the circular buffer wraps
	 * before it grows. */
	for (uint64_t t = 1; t <= 20000; t++) {
		push(&o, 0, t);
		if (t % 3000 == 0) {
			s->n = 0;
			total += order_flush(&o, t - 1000, collect, s);
		}
	}
	s->n = 0;
	total += order_flush(&o, UINT64_MAX, collect, s);
	cr_assert_eq(total, 20000);
	order_free(&o);
	free(s);
}
