/*
 * collector/live.h - what mtx collect --control SOCK answers to "live"
 * (mtx ctl SOCK live, mtx browse --live SOCK): the run so far, added up as
 * the stream goes by. Each thread alive with its time in each state (the
 * model's, collector/model.h) and its lock waits (the library's records:
 * the calls that take a mutex, rwlock or spinlock, as diagnose's
 * sync_wait), the threads ended, and each sync object's ops and the time
 * in them. Totals from the start only: a client gets a window's figures
 * from the difference of two answers.
 *
 * A wait still going on counts up to the stream's now, as the state a
 * thread is in does: the library shows the ops its threads are inside
 * (collector/sync/region.h, sync_region_open_ops).
 *
 * Kept only with --control, so that a run without it pays nothing.
 */
#ifndef MTX_COLLECTOR_LIVE_H
#define MTX_COLLECTOR_LIVE_H

#include "collector/model.h"
#include "collector/preload/shm.h"

#include <stdint.h>
#include <stdio.h>

struct mtx_live;

/* live_new - totals of the run that began at @start_ns, its threads as
 * @m follows them, the ops its threads are inside from @cs. NULL when out
 * of memory. */
struct collect_sync;
struct mtx_live *live_new(const struct mtx_model *m, struct collect_sync *cs, uint64_t start_ns);

/* live_sync_op - @r, an op on sync object @object_id (collector/sync/objects.h),
 * went by. Out of memory, it is left out of the totals (and said). */
void live_sync_op(struct mtx_live *l, int64_t object_id, const struct mtx_sync_record *r);

/*
 * live_reply - the answer to "live", the stream having gone by every event
 * before @now_ns: one line of JSON, {"ok": true, "text": a summary,
 * "start_ns", "now_ns",
 * "threads": [{tid, pid, name, state, since_ns, <state>_ns...,
 * lock_wait_ns, lock_ops}], "all": {threads, ended, <state>_ns...,
 * lock_wait_ns, lock_ops} (every thread so far, alive or ended),
 * "objects": [{id, pid, kind, address, ops, op_ns, lock_wait_ns}] (the
 * LIVE_OBJECTS with the most time in their ops)}.
 */
void live_reply(struct mtx_live *l, uint64_t now_ns, FILE *out);

/*
 * live_lock_waits - @fn(@ctx, tid, object id, its pid, kind, address,
 * function id, wait ns) for each thread, object it waited for a lock on
 * and function that called the lock (functions.id, as the run's profile
 * names it; 0: not known) so far, the waits going on counted to the
 * stream's now, which it returns (as live_reply's now_ns).
 */
typedef void (*live_lock_wait_fn)(void *ctx, int64_t tid, int64_t object_id, int32_t pid, const char *kind,
				  uint64_t addr, int64_t function_id, uint64_t wait_ns);
uint64_t live_lock_waits(struct mtx_live *l, uint64_t now_ns, live_lock_wait_fn fn, void *ctx);

/* live_more - @fn(@ctx, out) writes more members of the answer (each
 * ", \"key\": value"): what mtx collect --consultant has found so far. */
typedef void (*live_more_fn)(void *ctx, FILE *out);
void live_more(struct mtx_live *l, live_more_fn fn, void *ctx);

/* How many objects an answer lists at most. */
#define LIVE_OBJECTS 100

void live_free(struct mtx_live *l);

#endif
