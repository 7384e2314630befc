/*
 * collector/sync/collect-sync.h - the synchronization half of a collection, as
 * collect.c drives it: inject libmtx-preload.so into the program, drain its
 * records while the program runs, and complete the sync tables at the end.
 * A program the library cannot enter (static, set-ID) is traced with
 * uprobes on its pthread functions instead (collector/sync/uprobes.h),
 * whose hits come through the kernel's event stream.
 *
 * The library has a second channel, the call region, that its -pg and
 * -finstrument-functions hooks write (collector/preload/shm.h, THE CALL
 * REGION). It lives here, not in a module of its own, because it shares
 * everything but the records with the sync channel: the injection, the
 * environment, the pump thread and its end. Its records leave as
 * MTX_EV_CALL events for collector/calls.c.
 */
#ifndef MTX_COLLECTOR_COLLECT_SYNC_H
#define MTX_COLLECTOR_COLLECT_SYNC_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "collector/order.h"
#include "collector/preload/shm.h"
#include "collector/sync/inject-overhead.h"
#include "collector/sync/pump.h"
#include "collector/writer.h"

struct mtx_session;
struct mtx_event;
struct mtx_profile;
struct sync_uprobes;

/* The sync records' name in --events (mtx collect), beside the kernel
 * sources of collector/source.h, and what they are. */
#define COLLECT_SYNC_NAME "sync"
#define COLLECT_SYNC_SUMMARY "every lock, semaphore, condvar, barrier, thread and signal call (LD_PRELOAD)"

struct mtx_thread_sched;
struct mtx_phases;

struct collect_sync {
	int on;                       /* records are being collected */
	const char *method;           /* "preload", "uprobes" or "none" (meta sync_method) */
	struct sync_uprobes *uprobes; /* the fallback's probes, or NULL */
	struct mtx_writer *w;         /* where uprobe records go (collect_sync_open) */
	struct sync_region *region;
	struct sync_pump *pump;
	struct sync_objects *objects;
	struct mtx_thread_sched *sched; /* where kind sched records go (thread_sched) */
	struct mtx_phases *phases;    /* where kind phase records go (mtx_phase calls) */
	struct sync_batch batch;
	uint64_t records, lost;
	uint64_t lost_nolane;         /* of lost: no lane was free */
	uint64_t waited_ns;           /* what the threads waited for the collector */
	uint64_t prepared_ns;         /* when the regions were made */
	/* -pg / -finstrument-functions hooks: their region, and the queue of
	 * the session's ordering stage their MTX_EV_CALL events go into. */
	struct sync_region *calls;
	struct call_batch call_batch;
	struct mtx_order *order;
	int calls_queue;
	uint64_t call_events, calls_lost;
	/* --sync-stacks: frames per op asked of the library (0: none), where
	 * stacks are interned (collect_sync_open), the frames of the op being
	 * read, and the records held back until the kernel events of their
	 * time have reached the profile (its address spaces). */
	uint32_t stack_frames;
	struct mtx_profile *profile;
	uint64_t pcs[MTX_SYNC_STACK_MAX];
	uint32_t nr_pcs;
	struct sync_batch held;
	const char *inject_text;      /* --inject-overhead as given, or NULL */
	char ld_preload[PATH_MAX + 64];
	char *env[4];                 /* for target_spawn: LD_PRELOAD, MTX_SYNC_REGION, MTX_CALL_REGION */
};

/*
 * collect_sync_prepare - before the program is spawned: find the library,
 * check that @prog (found at @path) can load it, create the region. If it
 * cannot, or it runs already (process @attach_pid: mtx collect -p), say why in
 * one line and define uprobes on @prog's pthread functions instead (or go
 * on without sync records when it has none). @cs->env is then the
 * environment to add (NULL-ended, empty when off). @stack_frames > 0 asks
 * the library for each op's user stack, up to that many frames
 * (--sync-stacks; not with uprobes). @inject (--inject-overhead) goes to
 * the library; with uprobes it cannot, and that is an error. Returns 0,
 * or -errno with @err for a failure that must stop the collection.
 */
int collect_sync_prepare(struct collect_sync *cs, const char *prog, const char *path, pid_t attach_pid,
			 uint32_t stack_frames, const struct sync_inject *inject, char **err);

/*
 * collect_sync_open - once the session is open: record the method in meta
 * and, with uprobes, open their events in @s (records then go to @w).
 * Op stacks are interned in @prof's trie and address spaces.
 * Returns 0 or -errno with @err.
 */
int collect_sync_open(struct collect_sync *cs, struct mtx_session *s, struct mtx_writer *w,
		      struct mtx_profile *prof, char **err);

/* collect_sync_pause - the library records no op while @paused (mtx ctl
 * source off sync). Returns 0, or -ENOTSUP without the library (uprobes:
 * their perf events are switched instead). */
int collect_sync_pause(struct collect_sync *cs, int paused);

/*
 * collect_sync_event - let the sync side see one event of the time-ordered
 * kernel stream. Returns 1 when it consumed it (a uprobe hit), 0 when the
 * event is the model's.
 */
int collect_sync_event(struct collect_sync *cs, const struct mtx_event *ev);

/* collect_sync_detail - count the ops in @d's budget of rows, and add up
 * those past it that may be (collector/sync/summary.h). */
struct mtx_detail;
void collect_sync_detail(struct collect_sync *cs, struct mtx_detail *d);

/* collect_sync_open_ops - @fn for each op the program's threads are
 * inside now (the library's; uprobes say nothing until the op returns):
 * see sync_region_open_ops. */
size_t collect_sync_open_ops(struct collect_sync *cs, sync_emit_fn fn, void *ctx);

/* collect_sync_object - the id of the object op @r is on, 0 when none of
 * its ops was recorded yet (sync_objects_find). */
int64_t collect_sync_object(const struct collect_sync *cs, const struct mtx_sync_record *r);

/* collect_sync_live - add every op up in @l too (mtx ctl live). */
struct mtx_live;
void collect_sync_live(struct collect_sync *cs, struct mtx_live *l);

/* collect_sync_start - start draining (after the program was spawned). */
int collect_sync_start(struct collect_sync *cs, char **err);

/*
 * collect_sync_calls - move the call events drained so far into the ordering
 * stage. Returns the time the stage may be flushed up to: every call record
 * stamped before it is in (UINT64_MAX without a call region).
 */
uint64_t collect_sync_calls(struct collect_sync *cs);

/*
 * collect_sync_stop - the program is gone: drain everything left, and push
 * the last call events into the ordering stage (before its final flush).
 */
void collect_sync_stop(struct collect_sync *cs);

/* collect_sync_write - write the oldest records drained since the last
 * call, SYNC_PUMP_TAKE_MAX at most. With op stacks, ops that started at or
 * after @events_done_ns (the kernel events before it have all gone to the
 * profile) wait for the next call. Returns how many records are left
 * waiting in the pump: call again soon when there are. */
size_t collect_sync_write(struct collect_sync *cs, struct mtx_writer *w, uint64_t events_done_ns);

/* collect_sync_give_to - the program runs as @uid/@gid: its regions are
 * theirs to map. Returns 0, or -errno with a message in @err. */
int collect_sync_give_to(struct collect_sync *cs, unsigned uid, unsigned gid, char **err);

/*
 * collect_sync_finish - the program is gone: drain the rest, write it,
 * and, when @resolve, complete the tables (sync-resolve.h) and put their
 * counts in meta; @cs->records and @cs->lost are final (the caller stores
 * them with the other sources' counts). Returns 0, or -errno with a message
 * in @err when the writer has none of its own.
 */
int collect_sync_finish(struct collect_sync *cs, struct mtx_writer *w, int resolve, char **err);

/* collect_sync_free - release everything (also after a failed start). */
void collect_sync_free(struct collect_sync *cs);

#endif
