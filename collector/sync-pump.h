/*
 * collector/sync-pump.h - a thread that drains the sync region into a queue
 * the main loop takes from: when a writer wakes it (its lane is half full,
 * or no lane is free), and at least every 20 ms.
 *
 * Why a thread: a lane holds ~2 ms of the fastest lock loop, while the main
 * loop can spend far longer in SQLite. Draining apart from writing keeps the
 * traced threads from waiting on the database. The queue is bounded: past
 * SYNC_PUMP_MAX_QUEUED records the pump stops draining, lanes fill, and the
 * traced threads wait for the collector (and count a loss only past their
 * bounded wait), so a run that outpaces the writer slows down rather than
 * exhausting memory.
 */
#ifndef MTX_COLLECTOR_SYNC_PUMP_H
#define MTX_COLLECTOR_SYNC_PUMP_H

#include <stddef.h>
#include <stdint.h>

#include "collector/event.h"
#include "collector/source-sync.h"

#define SYNC_PUMP_MAX_QUEUED (4u << 20) /* records: 224 MiB */

struct sync_pump;

/* A batch handed to the main loop; records are in each lane's own order. */
struct sync_batch {
	struct mtx_sync_record *recs;
	size_t len, cap;
};

/* sync_pump_start - start draining @r (still owned by the caller).
 * Returns 0 or -errno. */
int sync_pump_start(struct sync_pump **out, struct sync_region *r);

/* sync_pump_take - swap everything queued so far into @b (whose old
 * contents are dropped; its buffer is reused). */
void sync_pump_take(struct sync_pump *p, struct sync_batch *b);

/* sync_pump_stop - drain once more, stop the thread, free the pump; what
 * remains queued is moved into @b. Returns the records dropped because
 * memory ran out (a loss to report). */
uint64_t sync_pump_stop(struct sync_pump *p, struct sync_batch *b);

/* sync_batch_append - append @n records to @b, doubling its buffer as
 * needed. Returns 0 or -ENOMEM (@b unchanged). */
int sync_batch_append(struct sync_batch *b, const struct mtx_sync_record *recs, size_t n);

void sync_batch_free(struct sync_batch *b);

#endif
