/*
 * collector/sync/resolve.h - the passes that complete the sync tables once a
 * run is loaded (sync_ops and thread_states in the database, indexes built):
 *
 *  0. calls that did not return (their thread died inside them: result
 *     NULL) end where their thread ended.
 *  1. lifetimes: an object key (pid, kind, address) is split where a
 *     destroy, join or close ended one lifetime, or an init, create or open
 *     began another; each lifetime is its own sync_objects row.
 *  2. kernel join: a thread_states 'blocked' interval that falls inside a
 *     sync op of the same thread becomes 'blocked_sync' with the op's
 *     object, and the op gets blocked = 1 and wait_ns = the time blocked.
 *  3. holders: replaying each lock's acquire/release order gives every lock
 *     request the thread that held the lock when it asked (holder_tid) and
 *     every acquisition its hold time (hold_ns). A semaphore is replayed
 *     the same way (a successful wait, trywait or timedwait takes it, a
 *     post gives it back) and keeps what that gave, and is marked used_as
 *     'lock', when it was used as a lock: its init or open, if seen, gave
 *     it the value 1; it was taken; every post came from a thread holding
 *     it; and no thread took it while it was held.
 *
 * Passes 2 and 3 share one walk of sync_ops in id order (from the writer's
 * capture when it holds every row, else a plain scan of the file), which
 * keeps the blocked intervals and each thread's lock ops (40 bytes an op);
 * pass 3 replays the locks from a merge of the threads' events in time
 * order, with the events of REPLAY_SLACK_NS ahead at hand; their UPDATEs
 * are applied in row order. A lock's hold times came with its rows (written once the
 * thread released it, collector/sync/objects.c): pass 3 changes only the
 * rows whose hold it finds otherwise.
 */
#ifndef MTX_COLLECTOR_SYNC_RESOLVE_H
#define MTX_COLLECTOR_SYNC_RESOLVE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* The ops that begin or end a lifetime, in the same words as the partial
 * index sync_ops_lifetime (schema/mtx.sql), which SQLite uses only for a
 * query that says them. */
#define LIFETIME_OPS "(op = 'init' OR op = 'create' OR op = 'open' OR op = 'destroy' OR op = 'join' OR op = 'close')"

struct sync_resolve_stats {
	uint64_t lifetimes_split; /* sync_objects rows added by pass 1 */
	uint64_t blocked_ops;     /* ops marked blocked */
	uint64_t blocked_states;  /* thread_states rows relabelled blocked_sync */
	uint64_t contended_ops;   /* lock requests that found the lock held */
	uint64_t sem_locks;       /* semaphores used as locks */
};

/*
 * sync_resolve - run the three passes on @db, inside the caller's
 * transaction. @lifetime_ids (@n of them) are the objects that saw a
 * lifetime op (sync_objects_with_lifetime_ops); ids for new lifetimes start
 * after the largest id in sync_objects. Returns 0 or -errno with a message
 * in @err (caller frees). What it changes in sync_ops and thread_states
 * it changes in @capture too (the writer's, src/derived/timeline.h), if not NULL.
 */
struct tl_capture;
int sync_resolve(sqlite3 *db, struct tl_capture *capture, const int64_t *lifetime_ids, size_t n,
		 struct sync_resolve_stats *stats, char **err);

#endif
