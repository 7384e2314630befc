/*
 * collector/sync/objects.h - turns drained sync records into sync_ops rows,
 * naming each object by an id.
 *
 * While collecting, an object is its (pid, kind, address): records arrive
 * lane by lane, not in time order, so a destroy and the reuse of its address
 * by another thread cannot be told apart safely here. Each such key gets a
 * sync_objects row at first sight; collector/sync/resolve.c splits keys into
 * lifetimes (destroy ends one) once the whole run is in the database.
 */
#ifndef MTX_COLLECTOR_SYNC_OBJECTS_H
#define MTX_COLLECTOR_SYNC_OBJECTS_H

#include <stddef.h>
#include <stdint.h>

#include "collector/event.h"
#include "collector/writer.h"

struct sync_objects;

struct sync_objects *sync_objects_new(void);

/* sync_objects_detail - from now on, count every op in @d's budget of rows,
 * and add up those past it that may be (collector/sync/summary.h). */
struct mtx_detail;
void sync_objects_detail(struct sync_objects *o, struct mtx_detail *d);

/* sync_objects_live - from now on, add every op up in @l too (mtx ctl live). */
struct mtx_live;
void sync_objects_live(struct sync_objects *o, struct mtx_live *l);

/*
 * sync_objects_record - write @r as a sync_ops row (and its object's row if
 * it is new). A cond wait's arg, its mutex's address, becomes that mutex's
 * object id. The row of an op that takes a lock is written when its thread
 * releases the lock, with hold_ns (see objects.c), or by
 * sync_objects_flush. @stack_id: the op's user stack (collector/stacks.h), 0 for none.
 * @cost_measured: r->overhead and r->injected are ns the library measured
 * (else sync_ops.overhead_ns and injected_ns are NULL: uprobes).
 * Returns 0 or the writer's -errno.
 */
int sync_objects_record(struct sync_objects *o, struct mtx_writer *w,
			const struct mtx_sync_record *r, uint32_t stack_id, bool cost_measured);

/*
 * sync_objects_flush - write the rows still waiting for their thread to
 * release the lock they took (it never did): without hold_ns. Call once
 * every record is in, before the run is resolved. 0 or the writer's -errno.
 */
int sync_objects_flush(struct sync_objects *o, struct mtx_writer *w);

/* A call site of the recorded ops: an address in process @pid, and when the
 * first op from it started (the address space that names it). */
struct sync_callsite {
	uint64_t addr, first_ns;
	int32_t pid;
};

/* sync_objects_callsites - every distinct call site of the ops recorded so
 * far (callsite 0, unknown, left out); @n receives the count. Owned by @o. */
const struct sync_callsite *sync_objects_callsites(const struct sync_objects *o, size_t *n);

/* sync_objects_find - the id of @pid's object of @kind at @addr, 0 when
 * no op of it was recorded yet. */
int64_t sync_objects_find(const struct sync_objects *o, int32_t pid, uint16_t kind, uint64_t addr);

/* sync_objects_count - object ids handed out so far (ids are 1..count). */
int64_t sync_objects_count(const struct sync_objects *o);

/*
 * sync_objects_with_lifetime_ops - ids of the objects that saw an op which
 * begins or ends a lifetime (init, destroy, create, join, open, close): only
 * those can need splitting. @n receives the count; the array is owned by @o.
 */
const int64_t *sync_objects_with_lifetime_ops(const struct sync_objects *o, size_t *n);

void sync_objects_free(struct sync_objects *o);

#endif
