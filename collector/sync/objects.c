/* collector/sync/objects.c - see sync-objects.h. */
#include "config.h"
#include "collector/sync/objects.h"
#include "collector/detail.h"
#include "collector/live.h"
#include "collector/preload/shm.h"
#include "collector/sync/summary.h"
#include "src/grow.h"
#include "src/keyhash.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A lock as one thread holds it (or held it: depth 0). The row of the op
 * that took it waits here until the thread's own release says how long it
 * was held, and is written with hold_ns then: updating 2 M rows once the
 * run was over took 2 s of sysbench's finish. The replay of every lock in
 * collector/sync/resolve.c stays the judge, and corrects the few it finds
 * otherwise (a thread's records out of time order: a signal handler's). */
struct held {
	uint64_t since_ns;
	int32_t depth;
	bool row_waits;
	struct writer_sync_op_row row;
};

struct object_key {
	uint64_t addr;
	int32_t pid;
	uint16_t kind;
	uint8_t lifetime_op; /* already listed in lifetime_ids */
};

struct sync_objects {
	struct object_key *keys; /* keys[id - 1] */
	int64_t count;
	size_t keys_cap;
	int64_t *slots;          /* open addressing: id, 0 = empty */
	size_t slots_cap;        /* power of two, kept at most half full */
	int64_t *lifetime_ids;
	size_t nr_lifetime, lifetime_cap;
	/* The call sites, for naming them once the run is over without
	 * reading every sync_ops row back (pigz: 0.5 s for 360 k ops). */
	struct sync_callsite *sites;
	size_t nr_sites, sites_cap;
	struct keyhash site_keys; /* (pid, addr) -> index + 1 */
	size_t last_site;         /* index + 1 of the last one seen */
	struct held *held;        /* by (tid, object): held_keys */
	size_t nr_held, held_cap;
	struct keyhash held_keys;
	struct mtx_detail *detail; /* the budget of rows (sync_objects_detail) */
	struct mtx_live *live;     /* totals for mtx ctl live, or NULL (sync_objects_live) */
};

static uint64_t hash_key(int32_t pid, uint16_t kind, uint64_t addr)
{
	uint64_t h = addr * 0x9e3779b97f4a7c15ull;
	h ^= ((uint64_t)(uint32_t)pid << 16 | kind) * 0xc2b2ae3d27d4eb4full;
	return h ^ (h >> 29);
}

static int grow_slots(struct sync_objects *o)
{
	size_t cap = o->slots_cap ? o->slots_cap * 2 : 1024;
	int64_t *slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -1;
	for (int64_t id = 1; id <= o->count; id++) {
		const struct object_key *k = &o->keys[id - 1];
		size_t i = hash_key(k->pid, k->kind, k->addr) & (cap - 1);
		while (slots[i])
			i = (i + 1) & (cap - 1);
		slots[i] = id;
	}
	free(o->slots);
	o->slots = slots;
	o->slots_cap = cap;
	return 0;
}

struct sync_objects *sync_objects_new(void)
{
	struct sync_objects *o = calloc(1, sizeof(*o));
	if (o && grow_slots(o)) {
		free(o);
		return NULL;
	}
	return o;
}

/* The id of (pid, kind, addr), 0 if it is new (*@slot: where it goes). */
static int64_t lookup(const struct sync_objects *o, int32_t pid, uint16_t kind, uint64_t addr,
		      size_t *slot)
{
	size_t i = hash_key(pid, kind, addr) & (o->slots_cap - 1);
	for (; o->slots[i]; i = (i + 1) & (o->slots_cap - 1)) {
		const struct object_key *k = &o->keys[o->slots[i] - 1];
		if (k->addr == addr && k->pid == pid && k->kind == kind)
			return o->slots[i];
	}
	*slot = i;
	return 0;
}

/* The id of (pid, kind, addr), written to sync_objects when new; <0 on error. */
static int64_t object_id(struct sync_objects *o, struct mtx_writer *w, int32_t pid, uint16_t kind,
			 uint64_t addr, uint64_t first_ns)
{
	struct object_key *keys;
	size_t slot;
	int64_t id = lookup(o, pid, kind, addr, &slot);
	int rc;
	if (id)
		return id;
	if ((size_t)(o->count + 1) * 2 > o->slots_cap) {
		if (grow_slots(o))
			return -ENOMEM;
		lookup(o, pid, kind, addr, &slot);
	}
	keys = grow_array(o->keys, &o->keys_cap, (size_t)o->count, sizeof(*keys), 1024);
	if (!keys)
		return -ENOMEM;
	o->keys = keys;
	id = ++o->count;
	o->keys[id - 1] = (struct object_key){ .addr = addr, .pid = pid, .kind = kind };
	o->slots[slot] = id;
	rc = writer_sync_object(w, id, sync_kind_name(kind), addr, pid, first_ns);
	return rc ? rc : id;
}

int64_t sync_objects_find(const struct sync_objects *o, int32_t pid, uint16_t kind, uint64_t addr)
{
	size_t slot;
	return lookup(o, pid, kind, addr, &slot);
}

static int is_lifetime_op(uint16_t op)
{
	return op == MTX_SYNC_OP_INIT || op == MTX_SYNC_OP_DESTROY || op == MTX_SYNC_OP_CREATE ||
	       op == MTX_SYNC_OP_JOIN || op == MTX_SYNC_OP_OPEN || op == MTX_SYNC_OP_CLOSE;
}

static int note_lifetime_op(struct sync_objects *o, int64_t id)
{
	struct object_key *k = &o->keys[id - 1];
	int64_t *ids;
	if (k->lifetime_op)
		return 0;
	ids = grow_array(o->lifetime_ids, &o->lifetime_cap, o->nr_lifetime, sizeof(*ids), 256);
	if (!ids)
		return -ENOMEM;
	o->lifetime_ids = ids;
	o->lifetime_ids[o->nr_lifetime++] = id;
	k->lifetime_op = 1;
	return 0;
}

void sync_objects_detail(struct sync_objects *o, struct mtx_detail *d)
{
	o->detail = d;
}

void sync_objects_live(struct sync_objects *o, struct mtx_live *l)
{
	o->live = l;
}

/* Write @row, or add it up when it is past the budget of rows and may be
 * (collector/sync/summary.h): it counts in the budget either way. */
static int emit(struct sync_objects *o, struct mtx_writer *w, struct writer_sync_op_row *row, bool lifetime_op)
{
	row->summarized = o->detail && !detail_sync_op(o->detail, row->start_ns) &&
			  sync_op_summarizable(row, lifetime_op) && writer_may_summarize(w);
	return writer_sync_op(w, row);
}

/* Count the call site of an op of @pid that started at @ns. */
static int note_callsite(struct sync_objects *o, int32_t pid, uint64_t addr, uint64_t ns)
{
	struct sync_callsite *c = o->last_site ? &o->sites[o->last_site - 1] : NULL;
	if (!c || c->addr != addr || c->pid != pid) {
		const struct sync_callsite first = { .addr = addr, .first_ns = ns, .pid = pid };
		ptrdiff_t i = keyhash_row(&o->site_keys, pid, (int64_t)addr, 0, &o->sites, &o->nr_sites,
					  &o->sites_cap, sizeof(first), &first);
		if (i < 0)
			return (int)i;
		o->last_site = (size_t)i + 1;
		c = &o->sites[i];
	}
	if (ns < c->first_ns)
		c->first_ns = ns;
	return 0;
}

const struct sync_callsite *sync_objects_callsites(const struct sync_objects *o, size_t *n)
{
	*n = o->nr_sites;
	return o->sites;
}

/* What an op does to the lock it names (or, a cond wait, to its mutex). */
enum lock_role { NO_LOCK, TAKES, RELEASES, COND_WAIT };

static enum lock_role lock_role(const struct mtx_sync_record *r)
{
	switch (r->kind) {
	case MTX_SYNC_KIND_MUTEX:
	case MTX_SYNC_KIND_RWLOCK:
	case MTX_SYNC_KIND_SPINLOCK:
		if (r->op == MTX_SYNC_OP_UNLOCK)
			return RELEASES;
		/* as the replay: any other op but a lifetime's takes it when it returns 0 */
		return r->op == MTX_SYNC_OP_INIT || r->op == MTX_SYNC_OP_DESTROY || r->result != 0 ? NO_LOCK : TAKES;
	case MTX_SYNC_KIND_COND:
		return r->op == MTX_SYNC_OP_WAIT || r->op == MTX_SYNC_OP_TIMEDWAIT ? COND_WAIT : NO_LOCK;
	default:
		return NO_LOCK; /* a semaphore is a lock only if the replay shows it */
	}
}

static struct held *held_of(struct sync_objects *o, int32_t tid, int64_t object)
{
	static const struct held none;
	ptrdiff_t i = keyhash_row(&o->held_keys, tid, object, 0, &o->held, &o->nr_held, &o->held_cap,
				  sizeof(none), &none);
	return i < 0 ? NULL : &o->held[i];
}

/* @tid lets go of @object at @ns: the row of the op that took it, if this
 * ends the hold, is written with how long. */
static int release(struct sync_objects *o, struct mtx_writer *w, int32_t tid, int64_t object, uint64_t ns)
{
	struct held *h = held_of(o, tid, object);
	if (!h)
		return -ENOMEM;
	if (h->depth == 0 || --h->depth > 0)
		return 0; /* not held by it, or held again (recursive) */
	if (!h->row_waits)
		return 0;
	h->row_waits = false;
	h->row.hold_ns = ns >= h->since_ns ? (int64_t)(ns - h->since_ns) : -1;
	return emit(o, w, &h->row, false);
}

/* @row takes @object for its thread at @ns: it waits for the release if
 * the thread did not hold it already (true), else it holds it once more. */
static int take(struct sync_objects *o, int64_t object, uint64_t ns, const struct writer_sync_op_row *row,
		bool *waits)
{
	struct held *h = held_of(o, row->tid, object);
	if (!h)
		return -ENOMEM;
	*waits = h->depth++ == 0;
	if (*waits) {
		h->since_ns = ns;
		h->row_waits = true;
		h->row = *row;
	}
	return 0;
}

int sync_objects_record(struct sync_objects *o, struct mtx_writer *w,
			const struct mtx_sync_record *r, uint32_t stack_id, bool cost_measured)
{
	int64_t id = object_id(o, w, r->pid, r->kind, r->addr, r->start_ns);
	int64_t arg = (int64_t)r->arg;
	enum lock_role role = lock_role(r);
	bool waits = false;
	int rc = 0;
	if (id < 0)
		return (int)id;
	if (o->live)
		live_sync_op(o->live, id, r);
	if (is_lifetime_op(r->op) && note_lifetime_op(o, id))
		return -ENOMEM;
	if (r->callsite > 0 && r->callsite <= INT64_MAX && note_callsite(o, r->pid, r->callsite, r->start_ns))
		return -ENOMEM;
	if (role == COND_WAIT) {
		arg = object_id(o, w, r->pid, MTX_SYNC_KIND_MUTEX, r->arg, r->start_ns);
		if (arg < 0)
			return (int)arg;
	}
	struct writer_sync_op_row row = {
		.tid = r->tid, .object_id = id, .op = sync_op_name(r->op), .start_ns = r->start_ns,
		.end_ns = r->end_ns, .result = r->result, .arg = arg, .callsite = r->callsite, .stack_id = stack_id,
		.cost_measured = cost_measured, .overhead_ns = r->overhead, .injected_ns = r->injected, .hold_ns = -1,
	};
	if (role == RELEASES)
		rc = release(o, w, r->tid, id, r->start_ns);
	else if (role == TAKES)
		rc = take(o, id, r->end_ns, &row, &waits);
	else if (role == COND_WAIT) {
		/* it lets its mutex go as it begins, and takes it back as it
		 * returns (unless its thread died waiting) */
		rc = release(o, w, r->tid, arg, r->start_ns);
		if (!rc && !sync_result_unfinished(r->result))
			rc = take(o, arg, r->end_ns, &row, &waits);
	}
	return rc || waits ? rc : emit(o, w, &row, is_lifetime_op(r->op));
}

int sync_objects_flush(struct sync_objects *o, struct mtx_writer *w)
{
	for (size_t i = 0; i < o->nr_held; i++) {
		struct held *h = &o->held[i];
		int rc;
		if (!h->row_waits)
			continue;
		h->row_waits = false;
		if ((rc = emit(o, w, &h->row, false)))
			return rc;
	}
	return 0;
}

int64_t sync_objects_count(const struct sync_objects *o)
{
	return o->count;
}

const int64_t *sync_objects_with_lifetime_ops(const struct sync_objects *o, size_t *n)
{
	*n = o->nr_lifetime;
	return o->lifetime_ids;
}

void sync_objects_free(struct sync_objects *o)
{
	if (!o)
		return;
	free(o->keys);
	free(o->slots);
	free(o->lifetime_ids);
	free(o->sites);
	keyhash_free(&o->site_keys);
	free(o->held);
	keyhash_free(&o->held_keys);
	free(o);
}
