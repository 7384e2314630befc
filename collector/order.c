/* collector/order.c - see order.h. */
#include "config.h"
#include "collector/order.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int order_init(struct mtx_order *o, int nr_queues)
{
	memset(o, 0, sizeof(*o));
	o->queues = calloc((size_t)nr_queues, sizeof(*o->queues));
	if (!o->queues)
		return -ENOMEM;
	o->nr_queues = nr_queues;
	return 0;
}

int order_add_queue(struct mtx_order *o)
{
	struct order_queue *q = realloc(o->queues, ((size_t)o->nr_queues + 1) * sizeof(*q));

	if (!q)
		return -ENOMEM;
	memset(&q[o->nr_queues], 0, sizeof(*q));
	o->queues = q;
	return o->nr_queues++;
}

static struct mtx_event *queue_at(struct order_queue *q, size_t i)
{
	return &q->ev[(q->head + i) & (q->cap - 1)];
}

static int queue_grow(struct order_queue *q)
{
	size_t cap = q->cap ? q->cap * 2 : 4096;
	struct mtx_event *ev = malloc(cap * sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	for (size_t i = 0; i < q->len; i++)
		ev[i] = *queue_at(q, i);
	free(q->ev);
	q->ev = ev;
	q->cap = cap;
	q->head = 0;
	return 0;
}

int order_push(struct mtx_order *o, int queue, const struct mtx_event *ev)
{
	struct order_queue *q = &o->queues[queue];
	size_t i;

	if (q->len == q->cap && queue_grow(q))
		return -ENOMEM;
	if (ev->ts_ns < o->flushed_upto_ns)
		o->nr_late++;
	/* Insertion from the back: inversions within one CPU's ring are a few
	 * records deep, so this is linear in practice. */
	i = q->len;
	while (i > 0 && queue_at(q, i - 1)->ts_ns > ev->ts_ns) {
		*queue_at(q, i) = *queue_at(q, i - 1);
		i--;
	}
	*queue_at(q, i) = *ev;
	q->len++;
	return 0;
}

size_t order_flush(struct mtx_order *o, uint64_t upto_ns, order_emit_fn emit, void *ctx)
{
	size_t n = 0;
	/* UINT64_MAX is "all": an event stamped UINT64_MAX goes too, else
	 * order_free would drop it (and what it owns) unseen. */
	int all = upto_ns == UINT64_MAX;

	/* nr_queues is the number of CPUs (small): a linear scan for the
	 * earliest head beats a heap at this size. */
	for (;;) {
		struct order_queue *best = NULL;
		uint64_t best_ts = upto_ns;
		for (int k = 0; k < o->nr_queues; k++) {
			struct order_queue *q = &o->queues[k];
			if (q->len && (queue_at(q, 0)->ts_ns < best_ts || (all && !best))) {
				best = q;
				best_ts = queue_at(q, 0)->ts_ns;
			}
		}
		if (!best)
			break;
		emit(ctx, queue_at(best, 0));
		best->head = (best->head + 1) & (best->cap - 1);
		best->len--;
		n++;
	}
	if (upto_ns > o->flushed_upto_ns)
		o->flushed_upto_ns = upto_ns;
	return n;
}

size_t order_pending(const struct mtx_order *o)
{
	size_t n = 0;
	for (int k = 0; k < o->nr_queues; k++)
		n += o->queues[k].len;
	return n;
}

void order_free(struct mtx_order *o)
{
	for (int k = 0; k < o->nr_queues; k++)
		free(o->queues[k].ev);
	free(o->queues);
	memset(o, 0, sizeof(*o));
}
