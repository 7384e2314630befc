/*
 * collector/order.h - merge per-CPU event streams into one stream ordered by
 * time. Each CPU's ring is almost sorted (an interrupt can stamp an event and
 * write it before the event it interrupted), so each queue fixes small
 * inversions on insertion and a k-way merge emits the global order.
 */
#ifndef MTX_COLLECTOR_ORDER_H
#define MTX_COLLECTOR_ORDER_H

#include "collector/event.h"

#include <stddef.h>
#include <stdint.h>

struct order_queue {
	struct mtx_event *ev; /* circular buffer */
	size_t head, len, cap;
};

struct mtx_order {
	struct order_queue *queues;
	int nr_queues;
	uint64_t flushed_upto_ns; /* everything before this was emitted */
	uint64_t nr_late;         /* events that arrived after their time was flushed */
};

typedef void (*order_emit_fn)(void *ctx, const struct mtx_event *ev);

/* order_init - @nr_queues input streams (one per CPU). Returns 0 or -ENOMEM. */
int order_init(struct mtx_order *o, int nr_queues);

/* order_add_queue - one more input stream (e.g. the preload library's
 * call records, collector/sync/collect-sync.c). Returns its index or -ENOMEM. */
int order_add_queue(struct mtx_order *o);

/* order_push - add @ev to stream @queue. Returns 0 or -ENOMEM. */
int order_push(struct mtx_order *o, int queue, const struct mtx_event *ev);

/*
 * order_flush - emit, in time order, every queued event with ts_ns < @upto_ns
 * (UINT64_MAX for all). Ties go to the lower queue, then to push order.
 * Returns how many were emitted.
 */
size_t order_flush(struct mtx_order *o, uint64_t upto_ns, order_emit_fn emit, void *ctx);

/* order_pending - how many events wait in the queues. */
size_t order_pending(const struct mtx_order *o);

/* order_free - release the queues (pending events are dropped). */
void order_free(struct mtx_order *o);

#endif
