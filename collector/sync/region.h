/*
 * collector/sync/region.h - the collector's side of libmtx-preload.so: create
 * the shared-memory region the library writes into (format in
 * collector/preload/shm.h), put its name in the target's environment, and
 * drain its lanes into struct mtx_event (type MTX_EV_SYNC).
 *
 * One thread drains a region; the functions are not thread-safe with each
 * other, but run concurrently with any number of writers in any number of
 * processes.
 */
#ifndef MTX_COLLECTOR_SOURCE_SYNC_H
#define MTX_COLLECTOR_SOURCE_SYNC_H

#include <stddef.h>
#include <stdint.h>

#include "collector/event.h"

struct sync_region;

typedef void (*sync_emit_fn)(void *ctx, const struct mtx_event *ev);

/* A loss counter of the writers, followed by the drain (source-sync.c). */
struct lost_watch {
	uint64_t seen, total;
	int scribbled;
};

/* How long one thread waited for the collector (shm.h, stall_ns). */
struct sync_stall {
	int32_t pid, tid;
	uint64_t wait_ns, waits;
};

/**
 * sync_region_create - create a region of the default size
 * (MTX_SHM_DEFAULT_LANES lanes of MTX_SHM_DEFAULT_LANE_RECORDS records).
 * @out: receives the region, owned by the caller (sync_region_destroy).
 *
 * Return: 0, or -errno (e.g. -ENOSPC when /dev/shm is full).
 */
int sync_region_create(struct sync_region **out);

/**
 * sync_region_create_sized - create a region with @lane_count lanes of
 * @lane_records records each (a power of two, at least 32).
 *
 * Return: 0, -EINVAL for a bad geometry, or -errno from shm_open/ftruncate/mmap.
 */
int sync_region_create_sized(struct sync_region **out, uint32_t lane_count,
			     uint32_t lane_records);

/**
 * call_region_create - create a call region (THE CALL REGION in
 * collector/preload/shm.h) of MTX_SHM_DEFAULT_LANES lanes of
 * MTX_CALL_DEFAULT_LANE_RECORDS records, for the -pg /
 * -finstrument-functions hooks. Every sync_region_* function below works on
 * it too; its drain emits MTX_EV_CALL events (ts_ns the entry's or exit's
 * time, pid/tid the lane owner's, u.call.callsite 0).
 *
 * Return: 0, or -errno as sync_region_create.
 */
int call_region_create(struct sync_region **out);

/* call_region_create_sized - the same with a geometry (as sync_region_create_sized). */
int call_region_create_sized(struct sync_region **out, uint32_t lane_count,
			     uint32_t lane_records);

/**
 * sync_region_env - the "MTX_SYNC_REGION=/name" string to add to the target's
 * environment next to LD_PRELOAD. Owned by the region.
 */
const char *sync_region_env(struct sync_region *r);

/**
 * sync_region_map - where the region is mapped in this process, and its size
 * in bytes (@size may be NULL). For tests that write through
 * collector/preload/lane.h as the library does.
 */
void *sync_region_map(struct sync_region *r, size_t *size);

/**
 * sync_region_drain - emit every complete record of every lane, each lane in
 * its own order (the order its thread completed the operations), as
 * MTX_EV_SYNC events with ts_ns = start_ns and cpu = -1. Lanes whose thread
 * exited are freed for reuse once drained; lanes of threads that no longer
 * exist are treated as exited when free lanes run low.
 * @emit: called once per record; @ev is valid only during the call.
 *
 * Records that cannot be trusted (indices or kind/op out of range, as when the
 * target scribbled over the region) are skipped and counted in
 * sync_region_lost().
 *
 * Return: the number of records emitted.
 */
size_t sync_region_drain(struct sync_region *r, sync_emit_fn emit, void *ctx);

/*
 * sync_region_reap - mark EXITED the live lanes whose owner thread is gone
 * (it died without releasing its lane: exit() from another thread, a
 * fatal signal), so that the next drain frees them, taking the call each
 * such owner died inside (shm.h, struct mtx_sync_pending). The drain does
 * this itself when free lanes run short; the collector once more when the
 * program has exited.
 */
void sync_region_reap(struct sync_region *r);

/*
 * sync_region_open_ops - @fn for each op a live lane's owner is inside now,
 * stamped but not returned (shm.h, LANES: ops): its record, end_ns 0,
 * start_ns in CLOCK_MONOTONIC ns. Read while the owners go on (a record
 * that does not hold together is skipped), on any thread: what mtx ctl
 * live counts of the waits still going on. Returns how many.
 */
size_t sync_region_open_ops(struct sync_region *r, sync_emit_fn fn, void *ctx);

/* sync_region_set_paused - switch the library's records off (@paused) or
 * on again: the wrappers check it at each call (mtx ctl source off sync). */
void sync_region_set_paused(struct sync_region *r, int paused);

/**
 * sync_region_set_stack_frames - ask the library to precede each record with
 * up to @frames return addresses of the user stack (collector/preload/shm.h,
 * FRAMES RECORDS; at most MTX_SYNC_STACK_MAX). Call before the target starts.
 * The drain then also emits those frames records, as they are (kind
 * MTX_SYNC_KIND_FRAMES, no stamps), right before their operation's record.
 */
void sync_region_set_stack_frames(struct sync_region *r, uint32_t frames);

struct sync_inject;
/**
 * sync_region_set_inject - ask the library for --inject-overhead's busy
 * wait (@inject, collector/sync/inject-overhead.h), in the records' clock
 * units. With TSC stamps this measures the TSC's rate first (~2 ms). Call
 * before the target starts. Returns 0 or -errno.
 */
int sync_region_set_inject(struct sync_region *r, const struct sync_inject *inject);

/**
 * sync_region_wake_seq - the region's drain_wake word (shm.h), to read
 * before a drain and pass to sync_region_sleep after it.
 */
uint32_t sync_region_wake_seq(struct sync_region *r);

/**
 * sync_region_sleep - sleep until a writer wakes the drain (a lane reached
 * half full, or no lane was free), sync_region_wake() is called, or
 * @timeout_ns passes. Returns at once if the word no longer holds @seq.
 */
void sync_region_sleep(struct sync_region *r, uint32_t seq, long timeout_ns);

/**
 * sync_region_close - no drain is to come: writers that find their lane
 * full stop waiting and recording (shm.h, closed).
 */
void sync_region_close(struct sync_region *r);

/**
 * sync_region_wake - wake a sync_region_sleep (e.g. to stop the drain).
 */
void sync_region_wake(struct sync_region *r);

/**
 * sync_region_lost - records lost so far: dropped by writers (lane full past
 * their bounded wait, or no lane free) plus records the drain rejected.
 */
uint64_t sync_region_lost(struct sync_region *r);

/**
 * sync_region_lost_nolane - of sync_region_lost, the records lost because
 * no lane was free (more threads alive at once than the region has lanes).
 */
uint64_t sync_region_lost_nolane(struct sync_region *r);

/**
 * sync_region_scribbled - 1 when the program wrote over the region's loss
 * counters (they went back, or jumped): the losses are then only what the
 * collector could believe.
 */
int sync_region_scribbled(struct sync_region *r);

/**
 * sync_region_stalls - how long each thread waited for the collector: the
 * lanes freed so far and those still held, one entry per lane owner that
 * waited (a thread may have several). Valid until the next drain.
 * @nr: receives the number of entries.
 */
const struct sync_stall *sync_region_stalls(struct sync_region *r, size_t *nr);

/**
 * sync_region_give_to - let a program running as @uid/@gid map the region
 * (it is created for the collector's user, mode 0600). Returns 0 or -errno.
 */
int sync_region_give_to(struct sync_region *r, unsigned uid, unsigned gid);

/**
 * sync_region_claims_without_rseq - lanes claimed by threads that had no
 * rseq area and so wrote with signals blocked (shm.h): 0 normally.
 */
uint32_t sync_region_claims_without_rseq(struct sync_region *r);

/**
 * sync_region_uses_tsc - 1 when the library stamps with rdtsc and the drain
 * converts (collector/sync/tsc-map.h), 0 when it stamps with clock_gettime.
 */
int sync_region_uses_tsc(const struct sync_region *r);

/**
 * sync_region_tsc_hz - the TSC's rate in ticks per second over the
 * collection so far (tsc_map_hz), as the drain measured it to convert
 * stamps; 0 when the records are not TSC stamps, or not yet measured.
 */
uint64_t sync_region_tsc_hz(const struct sync_region *r);

/**
 * sync_region_destroy - unmap and unlink the region and free @r. Processes
 * still mapping it keep their mapping; nobody drains it any more.
 */
void sync_region_destroy(struct sync_region *r);

#endif
