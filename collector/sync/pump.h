/*
 * collector/sync/pump.h - a thread that drains the sync region into a queue
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
 *
 * The same thread drains the call region (-pg / -finstrument-functions
 * hooks) when there is one, into per-thread streams of raw 16-byte records
 * that the main loop takes in bounded batches, merged by time: a program
 * that makes calls far faster than the collector writes rows runs on while
 * up to CALL_PUMP_MAX_HELD records wait here, and only then waits for the
 * collector (its lanes fill). Each batch comes with a watermark: every
 * call record stamped before it has been handed out, and the main loop
 * flushes no later than that.
 */
#ifndef MTX_COLLECTOR_SYNC_PUMP_H
#define MTX_COLLECTOR_SYNC_PUMP_H

#include <stddef.h>
#include <stdint.h>

#include "collector/event.h"
#include "collector/sync/region.h"

#define SYNC_PUMP_MAX_QUEUED (1u << 20) /* records: 56 MiB */

struct sync_pump;

/* A batch handed to the main loop; records are in each lane's own order. */
struct sync_batch {
	struct mtx_sync_record *recs;
	size_t len, cap;
};

/* A function entry or exit drained from the call region. */
struct call_entry {
	uint64_t ts_ns;
	uint64_t fn;
	int32_t pid, tid;
	uint8_t at_return;
};

/* Call entries handed to the main loop, in time order; @upto_ns: every
 * record stamped before it is in this or an earlier batch (0 while nothing
 * is known). */
struct call_batch {
	struct call_entry *ev;
	size_t len, cap;
	uint64_t upto_ns;
};

/*
 * Raw call records the pump holds between drain and take: 16 M of 16 bytes,
 * 256 MiB (plus up to one drain pass of the lanes). At ~2 records per call
 * that is 8 M calls, seconds of a call-heavy program at the rate the main
 * loop writes rows (~1 M calls a second): the program waits for the
 * collector only past that.
 */
#define CALL_PUMP_MAX_HELD (16u << 20)

/* Entries handed out per take: 2.5 MiB of call_entry, and as many events
 * in the ordering stage until they are flushed. The pump waits while a take
 * merges (about a millisecond): far less than its lanes hold. */
#define CALL_PUMP_TAKE_MAX (1u << 16)

/* sync_pump_start - start draining @r and, unless NULL, the call region
 * @calls (both still owned by the caller). Returns 0 or -errno. */
int sync_pump_start(struct sync_pump **out, struct sync_region *r, struct sync_region *calls);

/* sync_pump_take_calls - the next call entries in time order into @b (its
 * old contents are dropped, its buffer reused): at most CALL_PUMP_TAKE_MAX,
 * with the watermark. */
void sync_pump_take_calls(struct sync_pump *p, struct call_batch *b);

/*
 * sync_pump_take - move the oldest records queued so far, @max at most,
 * into @b (whose old contents are dropped; its buffer is reused). Returns
 * how many are left queued. Bounded, so that the main loop comes back for
 * more while it writes them: when it took the whole queue (4 M records)
 * and then spent seconds handing it to a full row queue, the pump's queue
 * filled meanwhile, the lanes after it, and the traced threads, waiting
 * past their budget, dropped records (1.9 M of 10.2 M in
 * bench/sync-op-cost measure 720000 7, with one CPU idle).
 */
#define SYNC_PUMP_TAKE_MAX (64u << 10) /* records: 3.5 MiB */
size_t sync_pump_take(struct sync_pump *p, struct sync_batch *b, size_t max);

/* sync_pump_stop - drain once more, stop the thread, free the pump; what
 * remains queued is moved into @b and @cb (may be NULL when there is no
 * call region; its upto_ns is then UINT64_MAX). Every call record still
 * held goes into @cb at once: take the backlog first
 * (sync_pump_take_calls until it hands out none) to keep the memory bounded. Returns the records dropped because memory
 * ran out (a loss to report); *@calls_dropped the same for call records. */
uint64_t sync_pump_stop(struct sync_pump *p, struct sync_batch *b, struct call_batch *cb,
			uint64_t *calls_dropped);

/* sync_batch_append - append @n records to @b, doubling its buffer as
 * needed. Returns 0 or -ENOMEM (@b unchanged). */
int sync_batch_append(struct sync_batch *b, const struct mtx_sync_record *recs, size_t n);

void sync_batch_free(struct sync_batch *b);
void call_batch_free(struct call_batch *b);

#endif
