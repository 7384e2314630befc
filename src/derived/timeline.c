/*
 * src/derived/timeline.c - see timeline.h.
 */
#include "config.h"
#include "src/derived/timeline.h"
#include "src/derived/program-frames.h"
#include "src/thread-states.h"
#include "src/sorted.h"
#include "src/db.h"
#include "src/grow.h"
#include "src/spill.h"
#include "src/derived/histogram.h"
#include "src/keyhash.h"
#include "src/log.h"
#include "src/error.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- loading ---- */

/* Small direct-mapped caches in front of the hashes: most rows find their
 * thread, their strings and their totals there. Each entry holds an index
 * + 1 (0: empty) and what it is checked against. */
#define NR_RECENT 4096

struct recent_thread {
	size_t index; /* in tl->threads */
};

struct recent_string {
	uint64_t head; /* the first 8 bytes */
	size_t len, index; /* in tl->strings */
};

struct recent_total {
	int64_t tid, object_id, bucket_ns, site;
	uint16_t op;
	size_t index; /* in tl->op_totals */
};

/* A call site's index (struct tl_op_total's site), as last looked up. */
struct recent_site {
	int64_t callsite, stack_id, site; /* site + 1; 0: empty */
};

static size_t recent_slot(uint64_t a, uint64_t b, uint64_t c)
{
	/* Each key multiplied, so that each reaches the top bits kept: a lock
	 * and its unlock (c: the op) must not share a slot. */
	return (size_t)(((a * 0x9e3779b97f4a7c15ULL) ^ (b * 0xc2b2ae3d27d4eb4fULL) ^ (c * 0x165667b19e3779f9ULL)) >>
			52) % NR_RECENT;
}

struct loader {
	sqlite3 *db;
	struct recent_thread recent[NR_RECENT];
	struct recent_string recent_strings[NR_RECENT];
	struct recent_total recent_totals[NR_RECENT];
	struct mtx_timeline *tl;
	int64_t last_bucket_ns; /* the bucket of the last op (most follow in it) */
	struct recent_site recent_sites[NR_RECENT];
	struct keyhash threads, strings, op_totals, holder_totals, sites;
	size_t cap_threads, cap_strings, cap_op_totals, cap_holder_totals, cap_objects;
};

/* The interned index of @s (TL_NONE for NULL), or -ENOMEM / -E2BIG. */
static int intern_text(struct loader *l, const char *s)
{
	struct mtx_timeline *tl = l->tl;

	if (!s)
		return TL_NONE;
	return (int)keyhash_text(&l->strings, &tl->strings, &tl->nr_strings, &l->cap_strings, TL_NONE, s);
}

/* The interned index of the @len bytes at @s (a string: NUL after them). */
static int intern_bytes(struct loader *l, const char *s, size_t len)
{
	uint64_t head = 0;
	if (!s)
		return TL_NONE;
	memcpy(&head, s, len < sizeof(head) ? len : sizeof(head));
	struct recent_string *r = &l->recent_strings[recent_slot(head, len, 0)];
	if (r->index && r->len == len && r->head == head && !memcmp(l->tl->strings[r->index - 1], s, len))
		return (int)r->index - 1;
	int k = intern_text(l, s);
	if (k >= 0)
		*r = (struct recent_string){ head, len, (size_t)k + 1 };
	return k;
}

/* The interned index of column @col of @st. */
static int intern(struct loader *l, sqlite3_stmt *st, int col)
{
	/* One call through the statement's API (each costs ~13 ns, about
	 * what decoding the column does), then the value's: an unprotected
	 * value, which SQLite's docs allow on a connection used by one
	 * thread (each loader's is). */
	sqlite3_value *v = sqlite3_column_value(st, col);
	return intern_bytes(l, (const char *)sqlite3_value_text(v), (size_t)sqlite3_value_bytes(v));
}

uint16_t timeline_intern_find(const struct mtx_timeline *tl, const char *s)
{
	for (size_t i = 0; i < tl->nr_strings; i++)
		if (!strcmp(tl->strings[i], s))
			return (uint16_t)i;
	return TL_NONE;
}

/* The thread @tid, added when new; NULL when out of memory. */
static struct tl_thread *thread_of(struct loader *l, int64_t tid)
{
	struct mtx_timeline *tl = l->tl;
	/* Most rows find their thread in this cache, not in the hash. */
	struct recent_thread *r = &l->recent[recent_slot((uint64_t)tid, 0, 0)];
	if (r->index && tl->threads[r->index - 1].tid == tid)
		return &tl->threads[r->index - 1];
	struct keyhash_slot *sl = keyhash_slot(&l->threads, tid, 0, 0);
	if (!sl)
		return NULL;
	if (!sl->v) {
		struct tl_thread *more = grow_array(tl->threads, &l->cap_threads, tl->nr_threads, sizeof(*more), 64);
		if (!more)
			return NULL;
		tl->threads = more;
		memset(&tl->threads[tl->nr_threads], 0, sizeof(*more));
		tl->threads[tl->nr_threads].tid = tid;
		sl->v = ++tl->nr_threads;
		l->threads.len++;
	}
	r->index = sl->v;
	return &tl->threads[sl->v - 1];
}

/* Room for one more row in one of a thread's arrays. */
#define APPEND(t, name)                                                                                    \
	({                                                                                                 \
		__typeof__((t)->name) _a =                                                                 \
			spill_grow((t)->name, &(t)->cap_##name, (t)->nr_##name, sizeof(*(t)->name), 64);   \
		_a ? ((t)->name = _a, &_a[(t)->nr_##name++]) : NULL;                                       \
	})

/* Column @col of @st, 0 when NULL; @flag is set in @flags when it is not
 * (one call through the statement's API, as in intern()). */
static int64_t col_int(sqlite3_stmt *st, int col, uint16_t *flags, uint16_t flag)
{
	sqlite3_value *v = sqlite3_column_value(st, col);
	if (sqlite3_value_type(v) == SQLITE_NULL)
		return 0;
	*flags |= flag;
	return sqlite3_value_int64(v);
}

/* Whether @ns can be a time of a run, or a wait in one (TL_MAX_NS). */
static bool ns_ok(int64_t ns)
{
	return ns >= 0 && ns <= TL_MAX_NS;
}

static int row_state(struct loader *l, sqlite3_stmt *st)
{
	struct tl_thread *t = thread_of(l, sqlite3_column_int64(st, 0));
	struct tl_state *s = t ? APPEND(t, states) : NULL;
	int state = intern(l, st, 3), syscall = intern(l, st, 6);
	uint16_t flags = 0;
	if (!s || state < 0 || syscall < 0)
		return state < 0 ? state : syscall < 0 ? syscall : -ENOMEM;
	s->start_ns = sqlite3_column_int64(st, 1);
	s->end_ns = sqlite3_column_int64(st, 2);
	if (!ns_ok(s->start_ns) || !ns_ok(s->end_ns))
		return -ERANGE;
	s->state = (uint16_t)state;
	s->cpu = (int32_t)col_int(st, 4, &flags, TL_HAS_CPU);
	s->object_id = col_int(st, 5, &flags, TL_HAS_OBJECT);
	s->syscall = (uint16_t)syscall;
	s->flags = (uint8_t)(flags | (syscall != TL_NONE ? TL_HAS_SYSCALL : 0));
	return 0;
}

/* Column 4: the switch's stack (NULL: none), until finish_load puts
 * where the thread was in its place (place_switches). */
static int row_switch(struct loader *l, sqlite3_stmt *st)
{
	struct tl_thread *t = thread_of(l, sqlite3_column_int64(st, 0));
	struct tl_switch *s = t ? APPEND(t, switches) : NULL;
	if (!s)
		return -ENOMEM;
	s->ts_ns = sqlite3_column_int64(st, 1);
	if (!ns_ok(s->ts_ns))
		return -ERANGE;
	s->next_tid = (int32_t)sqlite3_column_int64(st, 2);
	s->preempt = sqlite3_column_int(st, 3) != 0;
	s->function_id = sqlite3_column_int64(st, 4); /* NULL: 0 */
	return 0;
}

/* The switches (with their stacks, once runs had them). */
static const char *switches_sql(sqlite3 *db)
{
	return db_has_column(db, "switches", "stack_id")
		       ? "SELECT prev_tid, ts_ns, next_tid, preempt, stack_id FROM switches"
		       : "SELECT prev_tid, ts_ns, next_tid, preempt, NULL FROM switches";
}

static int row_wakeup(struct loader *l, sqlite3_stmt *st)
{
	struct tl_thread *t = thread_of(l, sqlite3_column_int64(st, 0));
	struct tl_wakeup *w = t ? APPEND(t, wakeups) : NULL;
	if (!w)
		return -ENOMEM;
	w->ts_ns = sqlite3_column_int64(st, 1);
	w->waker_tid = (int32_t)sqlite3_column_int64(st, 2);
	return ns_ok(w->ts_ns) ? 0 : -ERANGE;
}

static int row_syscall(struct loader *l, sqlite3_stmt *st)
{
	struct tl_thread *t = thread_of(l, sqlite3_column_int64(st, 0));
	struct tl_syscall *s = t ? APPEND(t, syscalls) : NULL;
	int kind = intern(l, st, 4), name = intern(l, st, 5);
	uint16_t flags = 0;
	if (!s || kind < 0 || name < 0)
		return kind < 0 ? kind : name < 0 ? name : -ENOMEM;
	s->start_ns = sqlite3_column_int64(st, 1);
	s->end_ns = col_int(st, 2, &flags, TL_HAS_END);
	if (!ns_ok(s->start_ns) || !ns_ok(s->end_ns))
		return -ERANGE;
	s->fd = col_int(st, 3, &flags, TL_HAS_FD);
	s->flags = flags;
	sqlite3_value *ret = sqlite3_column_value(st, 6);
	if (sqlite3_value_type(ret) != SQLITE_NULL)
		s->flags |= TL_HAS_RET | (sqlite3_value_int64(ret) < 0 ? TL_RET_FAILED : 0);
	s->fd_kind = (uint16_t)kind;
	s->name = (uint16_t)name;
	return 0;
}

/* The third key of a total's hash: its op, its bucket's number (at most
 * TL_BUCKETS: 6 bits) and its call site's index. */
static int64_t op_bucket_key(const struct loader *l, uint16_t op, int64_t bucket_ns, int64_t site)
{
	/* Unsigned: an op far outside the threads' span (a made-up run) has a
	 * bucket number too large to shift; its key then merely collides. */
	return (int64_t)(((uint64_t)site << 22) + (uint64_t)timeline_bucket_of(&l->tl->buckets, bucket_ns) * 65536 + op);
}

/* The index of the call site (@callsite, @stack_id) among the run's, or
 * -ENOMEM. */
static int64_t site_of(struct loader *l, int64_t callsite, int64_t stack_id)
{
	struct recent_site *r = &l->recent_sites[recent_slot((uint64_t)callsite, (uint64_t)stack_id, 1)];
	if (r->site && r->callsite == callsite && r->stack_id == stack_id)
		return r->site - 1;
	struct keyhash_slot *sl = keyhash_slot(&l->sites, callsite, stack_id, 0);
	if (!sl)
		return -ENOMEM;
	if (!sl->v)
		sl->v = ++l->sites.len;
	*r = (struct recent_site){ callsite, stack_id, (int64_t)sl->v };
	return (int64_t)sl->v - 1;
}

/* Add @t to the totals of @l (for the same key: sums and maxima). */
static int merge_op_total(struct loader *l, const struct tl_op_total *t)
{
	struct mtx_timeline *tl = l->tl;
	uint64_t op_bucket = (uint64_t)t->bucket_ns + t->op + ((uint64_t)t->site << 16);
	struct recent_total *r = &l->recent_totals[recent_slot((uint64_t)t->tid, (uint64_t)t->object_id, op_bucket)];
	size_t index = r->index;
	if (!index || r->tid != t->tid || r->object_id != t->object_id || r->op != t->op ||
	    r->bucket_ns != t->bucket_ns || r->site != t->site) {
		struct keyhash_slot *sl = keyhash_slot(&l->op_totals, t->tid, t->object_id,
						       op_bucket_key(l, t->op, t->bucket_ns, t->site));
		if (!sl)
			return -ENOMEM;
		if (!sl->v) {
			struct tl_op_total *more =
				grow_array(tl->op_totals, &l->cap_op_totals, tl->nr_op_totals, sizeof(*more), 256);
			if (!more)
				return -ENOMEM;
			tl->op_totals = more;
			tl->op_totals[tl->nr_op_totals] = *t;
			sl->v = ++tl->nr_op_totals;
			l->op_totals.len++;
			*r = (struct recent_total){ t->tid, t->object_id, t->bucket_ns, t->site, t->op, sl->v };
			return 0;
		}
		*r = (struct recent_total){ t->tid, t->object_id, t->bucket_ns, t->site, t->op, index = sl->v };
	}
	timeline_add_op_total(&tl->op_totals[index - 1], t);
	return 0;
}

static int merge_holder_total(struct loader *l, const struct tl_holder_total *h)
{
	struct mtx_timeline *tl = l->tl;
	ptrdiff_t i = keyhash_row(&l->holder_totals, h->object_id, h->holder_tid, h->bucket_ns, &tl->holder_totals,
				  &tl->nr_holder_totals, &l->cap_holder_totals, sizeof(*tl->holder_totals),
				  &(struct tl_holder_total){ h->object_id, h->holder_tid, h->bucket_ns, 0, 0 });
	if (i < 0)
		return (int)i;
	tl->holder_totals[i].ops += h->ops;
	tl->holder_totals[i].wait_ns += h->wait_ns;
	return 0;
}

/* Add @o, an op of @tid, to the totals of its (tid, object, op, call site)
 * and of its holder, in the bucket it began in. */
static int add_op_totals(struct loader *l, int64_t tid, const struct tl_op *o)
{
	int64_t site = site_of(l, o->callsite, o->stack_id);
	if (site < 0)
		return (int)site;
	/* A thread's ops come in time order: most are in the last one's bucket. */
	if ((uint64_t)(o->start_ns - l->last_bucket_ns) >= (uint64_t)l->tl->buckets.width_ns)
		l->last_bucket_ns =
			timeline_bucket_ns(&l->tl->buckets, timeline_bucket_of(&l->tl->buckets, o->start_ns));
	int64_t bucket_ns = l->last_bucket_ns;
	bool blocked = o->flags & TL_BLOCKED;
	const struct tl_op_total one = {
		.tid = tid, .object_id = o->object_id, .bucket_ns = bucket_ns, .callsite = o->callsite,
		.stack_id = o->stack_id, .site = site, .op = o->op, .calls = 1,
		.blocked = blocked, .contended = (o->flags & TL_HAS_HOLDER) || blocked, .wait_ns = o->wait_ns,
		.max_wait_ns = o->wait_ns, .hold_ns = o->hold_ns, .max_hold_ns = o->hold_ns,
		.max_ns = o->end_ns - o->start_ns, .total_ns = o->end_ns - o->start_ns,
	};
	int rc = merge_op_total(l, &one);
	if (rc || !(o->flags & TL_HAS_HOLDER))
		return rc;
	return merge_holder_total(l, &(struct tl_holder_total){ o->object_id, o->holder_tid, bucket_ns, 1, o->wait_ns });
}

/* The op totals of the whole run, once every op is in (and amended). */
static int sum_op_totals(struct loader *l)
{
	int rc = 0;
	l->last_bucket_ns = l->tl->buckets.origin_ns;
	for (size_t i = 0; i < l->tl->nr_threads && !rc; i++) {
		const struct tl_thread *t = &l->tl->threads[i];
		for (size_t k = 0; k < t->nr_ops && !rc; k++)
			rc = add_op_totals(l, t->tid, &t->ops[k]);
	}
	return rc;
}

/* sync_ops.arg as struct tl_op keeps it. */
static int32_t op_arg(int64_t arg)
{
	return arg > 0 && arg <= INT32_MAX ? (int32_t)arg : 0;
}

static int row_op(struct loader *l, sqlite3_stmt *st)
{
	int64_t tid = sqlite3_column_int64(st, 0);
	struct tl_thread *t = thread_of(l, tid);
	struct tl_op *o = t ? APPEND(t, ops) : NULL;
	int op = intern(l, st, 5);
	if (!o || op < 0)
		return op < 0 ? op : -ENOMEM;
	o->flags = sqlite3_column_int64(st, 8) ? TL_BLOCKED : 0;
	o->start_ns = sqlite3_column_int64(st, 1);
	o->end_ns = sqlite3_column_int64(st, 2);
	o->id = sqlite3_column_int64(st, 3);
	o->object_id = sqlite3_column_int64(st, 4);
	o->op = (uint16_t)op;
	o->result = (int32_t)col_int(st, 6, &o->flags, TL_HAS_RESULT);
	o->holder_tid = (int32_t)col_int(st, 7, &o->flags, TL_HAS_HOLDER);
	o->wait_ns = sqlite3_column_int64(st, 9);
	o->hold_ns = sqlite3_column_int64(st, 10); /* NULL: 0 */
	o->callsite = col_int(st, 11, &o->flags, TL_HAS_CALLSITE);
	o->arg = op_arg(sqlite3_column_int64(st, 12));
	o->stack_id = (uint32_t)sqlite3_column_int64(st, 13); /* NULL: 0 */
	return ns_ok(o->start_ns) && ns_ok(o->end_ns) && ns_ok(o->wait_ns) && ns_ok(o->hold_ns) ? 0 : -ERANGE;
}

static int row_object(struct loader *l, sqlite3_stmt *st)
{
	struct mtx_timeline *tl = l->tl;
	struct tl_object *more = grow_array(tl->objects, &l->cap_objects, tl->nr_objects, sizeof(*more), 64);
	int kind = intern(l, st, 1);
	if (!more || kind < 0)
		return kind < 0 ? kind : -ENOMEM;
	tl->objects = more;
	tl->objects[tl->nr_objects++] = (struct tl_object){
		.id = sqlite3_column_int64(st, 0), .addr = sqlite3_column_int64(st, 2),
		.pid = (int32_t)sqlite3_column_int64(st, 3), .kind = (uint16_t)kind,
	};
	return 0;
}

#define OUT_OF_RANGE "a time out of range (the file is damaged)"

static int scan(struct loader *l, const char *sql, int (*row)(struct loader *, sqlite3_stmt *), char **err)
{
	sqlite3_stmt *st;
	int rc = 0, step = SQLITE_DONE;
	if (sqlite3_prepare_v2(l->db, sql, -1, &st, NULL) != SQLITE_OK) {
		error_set(err, "loading the run: %s", sqlite3_errmsg(l->db));
		return -EIO;
	}
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW)
		rc = row(l, st);
	if (!rc && step != SQLITE_DONE)
		rc = sqlite3_errcode(l->db) == SQLITE_NOMEM ? -ENOMEM : -EIO;
	if (rc)
		error_set(err, "loading the run: %s",
				rc == -ENOMEM ? "out of memory" : rc == -E2BIG ? "too many distinct names"
				: rc == -ERANGE ? OUT_OF_RANGE : sqlite3_errmsg(l->db));
	sqlite3_finalize(st);
	return rc;
}

/* ---- sorting what came out of order ---- */

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

static int cmp_state(const void *a, const void *b)
{
	const struct tl_state *x = a, *y = b;
	return CMP(x->start_ns, y->start_ns) ? CMP(x->start_ns, y->start_ns) : CMP(x->end_ns, y->end_ns);
}
/* A comparison of two @type by their @field. */
#define CMP_BY(name, type, field)                                            \
	static int name(const void *a, const void *b)                        \
	{                                                                    \
		return CMP(((const type *)a)->field, ((const type *)b)->field); \
	}
CMP_BY(cmp_switch, struct tl_switch, ts_ns)
CMP_BY(cmp_wakeup, struct tl_wakeup, ts_ns)
CMP_BY(cmp_syscall, struct tl_syscall, start_ns)
CMP_BY(cmp_thread, struct tl_thread, tid)
CMP_BY(cmp_object, struct tl_object, id)

static int cmp_op(const void *a, const void *b)
{
	const struct tl_op *x = a, *y = b;
	return CMP(x->start_ns, y->start_ns) ? CMP(x->start_ns, y->start_ns) : CMP(x->id, y->id);
}

/* Sort @n rows of @size bytes unless they already are (the usual case).
 * Never calls qsort for fewer than two: no rows may be a NULL array, which
 * qsort must not be given even with a count of 0. */
static void sort_rows(void *rows, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	for (size_t i = 1; i < n; i++)
		if (cmp((char *)rows + (i - 1) * size, (char *)rows + i * size) > 0) {
			qsort(rows, n, size, cmp);
			return;
		}
}

static void sort_thread(struct tl_thread *t)
{
	sort_rows(t->states, t->nr_states, sizeof(*t->states), cmp_state);
	sort_rows(t->switches, t->nr_switches, sizeof(*t->switches), cmp_switch);
	sort_rows(t->wakeups, t->nr_wakeups, sizeof(*t->wakeups), cmp_wakeup);
	sort_rows(t->syscalls, t->nr_syscalls, sizeof(*t->syscalls), cmp_syscall);
	sort_rows(t->ops, t->nr_ops, sizeof(*t->ops), cmp_op);
}

/*
 * Where each thread was when it left the CPU (switches.stack_id, recorded
 * with --sample): the program's own frame of the stack (program-frames.h),
 * since the leaf is mostly a libc syscall wrapper. The walk by frame
 * pointers often ends inside the C library (its functions keep none:
 * sem_wait, join), so next comes the program's frame at the call site of
 * the sync op the thread was in, if any: the thread's latest op begun by
 * the switch, if it had not ended before it (of ops begun at the same ns
 * the last by id, as SQLite's ORDER BY start_ns DESC LIMIT 1 over the
 * sync_ops_tid index did); then the stack's leaf. A switch without a stack
 * has no position. Needs the threads' ops and the objects sorted.
 */
static void place_switches(struct mtx_timeline *tl)
{
	for (size_t i = 0; i < tl->nr_threads; i++) {
		struct tl_thread *t = &tl->threads[i];
		size_t near = 0;
		for (size_t j = 0; j < t->nr_switches; j++) {
			struct tl_switch *s = &t->switches[j];
			int64_t stack_id = s->function_id;
			if (!stack_id)
				continue;
			if ((s->function_id = program_frames_stack(tl->frames, stack_id)))
				continue;
			size_t k = SORTED_FIRST_NEAR(t->ops, t->nr_ops, start_ns, s->ts_ns, true, &near);
			const struct tl_op *op = k ? &t->ops[k - 1] : NULL;
			const struct tl_object *o = op && op->end_ns >= s->ts_ns && (op->flags & TL_HAS_CALLSITE)
							    ? timeline_object(tl, op->object_id)
							    : NULL;
			if (o && o->pid)
				s->function_id = program_frames_callsite(tl->frames, o->pid, op->callsite);
			if (!s->function_id)
				s->function_id = program_frames_leaf(tl->frames, stack_id);
		}
	}
}

/* The small tables, read whole by both timeline_load and
 * timeline_capture_finish. */
#define OBJECTS_SQL "SELECT id, kind, addr, pid FROM sync_objects"

#define OPS_SQL "SELECT tid, start_ns, end_ns, id, object_id, op, result, holder_tid, blocked, wait_ns, hold_ns, " \
		"callsite, arg, stack_id FROM sync_ops"

static void loader_free_hashes(struct loader *l)
{
	keyhash_free(&l->threads);
	keyhash_free(&l->strings);
	keyhash_free(&l->op_totals);
	keyhash_free(&l->holder_totals);
	keyhash_free(&l->sites);
}

/*
 * sync_ops, the largest table, is read in two parts by id: the first by a
 * second thread on its own read-only connection while this one reads the
 * other tables, the rest by this one after them; SQLite runs one statement
 * on one core. The split evens out the two threads' work: a row of the
 * other tables takes about half an op's time (on the bench run, 4.7 M ops
 * and 5.3 M other rows, the job's share that came out fastest was 0.78,
 * which this gives). A run of little but sync ops (sync-op-cost: 10 M ops)
 * splits them in halves: its job read 78% of them alone, 4.5 s. A run with
 * fewer ops than half the work (sysbench threads: 2.5 M ops, 6.2 M other
 * rows) has the job read the syscalls too: before, it read every op and
 * then idled for a second while this thread read the rest alone.
 */
#define OTHER_ROW_COST 0.5

struct read_split {
	int64_t last_job_id; /* the job reads the ops with ids up to this */
	bool job_syscalls;   /* and the syscalls */
};

/* Rows are only appended: the largest rowid counts them. */
static double count_rows(sqlite3 *db, const char *table)
{
	char sql[64];
	snprintf(sql, sizeof(sql), "SELECT MAX(rowid) FROM %s", table);
	return (double)db_query_int(db, sql, 0);
}

static struct read_split split_read(sqlite3 *db, int64_t first_id, int64_t last_id)
{
	double ops = (double)(last_id - first_id + 1), syscalls = count_rows(db, "syscalls");
	double other = count_rows(db, "thread_states") + count_rows(db, "switches") + count_rows(db, "wakeups") +
		       syscalls;
	/* The job's ops make up half the work: with the syscalls or not. */
	struct read_split r = { 0, OTHER_ROW_COST * other > ops };
	double job_ops = (ops + OTHER_ROW_COST * (r.job_syscalls ? other - 2 * syscalls : other)) / 2;
	double share = job_ops / ops;
	r.last_job_id = first_id + (int64_t)((double)(last_id - first_id) * (share < 0 ? 0 : share > 1 ? 1 : share));
	return r;
}

struct ops_job {
	const char *path;
	char sql[224];
	const char *syscalls_sql; /* when the job reads them too */
	struct loader l;
	pthread_t thread;
	int rc;
	char *err;
};

static void *ops_job_run(void *arg)
{
	struct ops_job *j = arg;
	if (sqlite3_open_v2(j->path, &j->l.db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		j->rc = -EIO;
		error_set(&j->err, "loading the run: %s: %s", j->path, sqlite3_errmsg(j->l.db));
	} else {
		sqlite3_busy_timeout(j->l.db, 5000);
		j->rc = scan(&j->l, j->sql, row_op, &j->err);
		if (!j->rc && j->syscalls_sql)
			j->rc = scan(&j->l, j->syscalls_sql, row_syscall, &j->err);
	}
	sqlite3_close(j->l.db);
	loader_free_hashes(&j->l);
	return NULL;
}

/* Start @j on the ops of @db with ids up to @split's, and on the syscalls
 * (@syscalls_sql) if @split says so; 0, or -1 when it cannot be (a database
 * without a file, no thread). */
static int ops_job_start(sqlite3 *db, struct ops_job *j, struct read_split split, const char *syscalls_sql)
{
	j->path = sqlite3_db_filename(db, "main");
	snprintf(j->sql, sizeof(j->sql), OPS_SQL " WHERE id <= %lld", (long long)split.last_job_id);
	j->syscalls_sql = split.job_syscalls ? syscalls_sql : NULL;
	if (!j->path || !*j->path || !(j->l.tl = calloc(1, sizeof(*j->l.tl))))
		return -1;
	if (pthread_create(&j->thread, NULL, ops_job_run, j)) {
		free(j->l.tl);
		j->l.tl = NULL;
		return -1;
	}
	return 0;
}

/* Put the @src_nr rows of @size bytes at *@src before the @dst_nr at
 * *@dst, as *@dst's; *@src is then empty. The job's array, the larger part,
 * is grown in place (realloc moves pages rather than copying them). */
static int take_rows(void **dst, size_t *dst_nr, size_t *dst_cap, void **src, size_t *src_nr, size_t size)
{
	if (!*src_nr)
		return 0;
	char *rows = spill_realloc(*src, size * *src_nr, size * (*src_nr + *dst_nr + 1));
	if (!rows)
		return -ENOMEM;
	if (*dst_nr)
		memcpy(rows + size * *src_nr, *dst, size * *dst_nr);
	spill_free(*dst);
	*dst = rows;
	*dst_nr += *src_nr;
	*dst_cap = *dst_nr + 1;
	*src = NULL;
	*src_nr = 0;
	return 0;
}

#define TAKE_ROWS(dst, src, name) \
	take_rows((void **)&(dst)->name, &(dst)->nr_##name, &(dst)->cap_##name, (void **)&(src)->name, \
		  &(src)->nr_##name, sizeof(*(src)->name))

/* Put the ops the job read (the lower ids) before each thread's ops read
 * here, with the syscalls if it read them; the names in them interned
 * here. */
static int ops_job_merge(struct loader *l, struct ops_job *j)
{
	struct mtx_timeline *from = j->l.tl;
	uint16_t *map = calloc(from->nr_strings ? from->nr_strings : 1, sizeof(*map));
	int rc = map ? 0 : -ENOMEM;

	for (size_t i = 0; i < from->nr_strings && !rc; i++) {
		int k = intern_text(l, from->strings[i]);
		if (k < 0)
			rc = k;
		else
			map[i] = (uint16_t)k;
	}
	for (size_t i = 0; i < from->nr_threads && !rc; i++) {
		struct tl_thread *src = &from->threads[i], *dst = thread_of(l, src->tid);
		if (!dst) {
			rc = -ENOMEM;
			break;
		}
		for (size_t k = 0; k < src->nr_ops; k++) /* NULL in a damaged file: TL_NONE */
			src->ops[k].op = src->ops[k].op == TL_NONE ? TL_NONE : map[src->ops[k].op];
		for (size_t k = 0; k < src->nr_syscalls; k++) {
			struct tl_syscall *c = &src->syscalls[k];
			c->name = c->name == TL_NONE ? TL_NONE : map[c->name];
			c->fd_kind = c->fd_kind == TL_NONE ? TL_NONE : map[c->fd_kind];
		}
		rc = TAKE_ROWS(dst, src, ops);
		if (!rc)
			rc = TAKE_ROWS(dst, src, syscalls);
	}
	free(map);
	return rc;
}

/* What a load ends with, once every row is in: each thread's rows in
 * order, the threads and objects too, the op totals, the program's frames
 * and by them where each switch was. */
static int finish_load(struct loader *l)
{
	struct mtx_timeline *tl = l->tl;
	for (size_t i = 0; i < tl->nr_threads; i++)
		sort_thread(&tl->threads[i]);
	int rc = sum_op_totals(l);
	sort_rows(tl->threads, tl->nr_threads, sizeof(*tl->threads), cmp_thread);
	sort_rows(tl->objects, tl->nr_objects, sizeof(*tl->objects), cmp_object);
	if (!rc && !(rc = program_frames_load(l->db, &tl->frames)))
		place_switches(tl);
	return rc;
}

/* Free what @l holds but its timeline. */
static void loader_free(struct loader *l)
{
	loader_free_hashes(l);
}

/* The run's buckets: 1 us wide, doubled until the threads' span fits in
 * TL_BUCKETS of them, as a time histogram's are (its end the first past). */
_Static_assert(TL_BUCKETS == MTX_HISTOGRAM_BUCKETS, "the run's buckets double as a histogram's");
static struct tl_buckets choose_buckets(sqlite3 *db)
{
	int64_t origin = db_query_int(db, "SELECT MIN(start_ns) FROM threads", 0);
	struct mtx_histogram span;
	histogram_init(&span, origin, 1000);
	histogram_extend(&span, db_query_int(db, "SELECT MAX(COALESCE(end_ns, start_ns)) FROM threads", origin));
	return (struct tl_buckets){ origin, histogram_width_ns(&span) };
}

/* Whether the threads and processes, which the analyses also read for
 * themselves, have their times in range (the other rows are checked as
 * they load). */
static bool lifetimes_ok(sqlite3 *db)
{
	char sql[320];
	snprintf(sql, sizeof(sql),
		 "SELECT EXISTS (SELECT 1 FROM threads WHERE start_ns NOT BETWEEN 0 AND %1$lld "
		 "OR end_ns NOT BETWEEN 0 AND %1$lld) OR EXISTS (SELECT 1 FROM processes "
		 "WHERE start_ns NOT BETWEEN 0 AND %1$lld OR end_ns NOT BETWEEN 0 AND %1$lld)",
		 (long long)TL_MAX_NS);
	return db_query_int(db, sql, 0) == 0;
}

int timeline_load(sqlite3 *db, struct mtx_timeline **out, char **err)
{
	/* Runs recorded before syscalls had fd columns still load. */
	const char *syscalls_sql = db_has_column(db, "syscalls", "fd_kind")
					   ? "SELECT tid, start_ns, end_ns, fd, fd_kind, name, ret FROM syscalls"
					   : "SELECT tid, start_ns, end_ns, NULL, NULL, name, ret FROM syscalls";
	int64_t first_id = db_query_int(db, "SELECT MIN(id) FROM sync_ops", 0);
	int64_t last_id = db_query_int(db, "SELECT MAX(id) FROM sync_ops", 0);
	struct read_split split = split_read(db, first_id, last_id);
	struct loader l = { .db = db };
	struct ops_job job = { 0 };
	char rest_sql[224];
	int rc, parallel;

	*out = NULL;
	if (!lifetimes_ok(db)) {
		error_set(err, "loading the run: " OUT_OF_RANGE);
		return -ERANGE;
	}
	if (!(l.tl = calloc(1, sizeof(*l.tl)))) {
		error_set(err, "loading the run: out of memory");
		return -ENOMEM;
	}
	l.tl->buckets = choose_buckets(db);
	parallel = ops_job_start(db, &job, split, syscalls_sql) == 0;
	rc = scan(&l, OBJECTS_SQL, row_object, err);
	if (!rc)
		rc = scan(&l, "SELECT tid, start_ns, end_ns, state, cpu, object_id, syscall FROM thread_states",
			  row_state, err);
	if (!rc)
		rc = scan(&l, switches_sql(db), row_switch, err);
	if (!rc)
		rc = scan(&l, "SELECT wakee_tid, ts_ns, waker_tid FROM wakeups", row_wakeup, err);
	if (!rc && !(parallel && split.job_syscalls))
		rc = scan(&l, syscalls_sql, row_syscall, err);
	snprintf(rest_sql, sizeof(rest_sql), OPS_SQL " WHERE id > %lld", (long long)split.last_job_id);
	if (!rc)
		rc = scan(&l, parallel ? rest_sql : OPS_SQL, row_op, err);
	if (parallel) {
		pthread_join(job.thread, NULL);
		if (!rc && job.rc) {
			rc = job.rc;
			*err = job.err;
			job.err = NULL;
		}
		if (!rc && (rc = ops_job_merge(&l, &job)))
			error_set(err, "loading the run: out of memory");
		free(job.err);
		timeline_free(job.l.tl);
	}
	if (!rc && (rc = finish_load(&l)))
		error_set(err, "loading the run: %s", rc == -ENOMEM ? "out of memory" : sqlite3_errmsg(db));
	loader_free(&l);
	if (rc) {
		timeline_free(l.tl);
		return rc;
	}
	*out = l.tl;
	return 0;
}

/* ---- capturing ---- */

/* Where a captured row went: its thread's index in tl->threads and its
 * place in that thread's array (both fixed until finish_load sorts). */
struct tl_place {
	uint32_t thread, row;
};

#define NR_BY_ADDRESS 64

struct tl_capture {
	struct loader l;
	struct captured_string {
		const char *s;
		size_t index;
	} by_address[NR_BY_ADDRESS];
	bool dropped;
	/* CAPTURE_PINNED once it holds a summarized op: never dropped for its
	 * size then (the ops are nowhere else); set by the writer's caller,
	 * read by the thread that captures. */
	int pin;
	uint64_t rows, nr_switches, nr_wakeups, nr_syscalls;
	struct tl_place *states, *ops; /* by rowid - 1, by id - 1 */
	size_t nr_states, cap_states, nr_ops, cap_ops;
	size_t nr_summarized; /* of the ops, TL_SUMMARIZED ones */
	int64_t *unreturned; /* ids of the ops without a result */
	size_t nr_unreturned, cap_unreturned;
	uint64_t amended[TL_AMEND_ROW + 1]; /* for mtx -v */
};

struct tl_capture *timeline_capture_new(void)
{
	struct tl_capture *c = calloc(1, sizeof(*c));
	if (c && !(c->l.tl = calloc(1, sizeof(*c->l.tl)))) {
		free(c);
		c = NULL;
	}
	return c;
}

void timeline_capture_free(struct tl_capture *c)
{
	if (!c)
		return;
	loader_free(&c->l);
	timeline_free(c->l.tl);
	spill_free(c->states);
	spill_free(c->ops);
	free(c->unreturned);
	free(c);
}

/* Give up capturing: the build reads the run instead. */
static void drop(struct tl_capture *c)
{
	if (c->dropped)
		return;
	c->dropped = true;
	loader_free(&c->l);
	timeline_free(c->l.tl);
	c->l.tl = NULL;
	spill_free(c->states);
	spill_free(c->ops);
	free(c->unreturned);
	c->states = c->ops = NULL;
	c->unreturned = NULL;
	c->nr_states = c->nr_ops = c->nr_unreturned = 0;
}

enum { CAPTURE_OPEN, CAPTURE_PINNED, CAPTURE_TOO_LARGE };

bool timeline_capture_pin(struct tl_capture *c)
{
	int open = CAPTURE_OPEN;
	return __atomic_compare_exchange_n(&c->pin, &open, CAPTURE_PINNED, false, __ATOMIC_ACQ_REL,
					   __ATOMIC_ACQUIRE) ||
	       open == CAPTURE_PINNED;
}

/* Whether @c, @rows rows long, is too large to keep: never once pinned. */
static bool too_large(struct tl_capture *c, uint64_t rows)
{
	int open = CAPTURE_OPEN;
	return rows > TL_CAPTURE_MAX_ROWS &&
	       (__atomic_load_n(&c->pin, __ATOMIC_ACQUIRE) == CAPTURE_TOO_LARGE ||
		__atomic_compare_exchange_n(&c->pin, &open, CAPTURE_TOO_LARGE, false, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE));
}

/* The thread of a row about to be captured, or NULL (capture dropped);
 * @counted: a row TL_CAPTURE_MAX_ROWS counts. */
static struct tl_thread *capture_thread(struct tl_capture *c, int64_t tid, bool counted)
{
	struct tl_thread *t = c->dropped			      ? NULL
			      : counted && too_large(c, ++c->rows) ? NULL
								   : thread_of(&c->l, tid);
	if (!t)
		drop(c);
	return t;
}

/* Record in @places where a table's next row went: the last of @t's
 * @nr_rows rows of its kind. */
static bool place(struct tl_capture *c, struct tl_place **places, size_t *nr, size_t *cap, const struct tl_thread *t,
		  size_t nr_rows)
{
	struct tl_place *more = spill_grow(*places, cap, *nr, sizeof(*more), 4096);
	if (!more) {
		drop(c);
		return false;
	}
	*places = more;
	more[(*nr)++] = (struct tl_place){ (uint32_t)(t - c->l.tl->threads), (uint32_t)(nr_rows - 1) };
	return true;
}

/* An interned string, or -1 with the capture dropped. */
static int capture_string(struct tl_capture *c, const char *s)
{
	/* The writer's hot strings are static: most are found by address
	 * (checked, since a freed string's address may come back). */
	struct captured_string *r = &c->by_address[((uintptr_t)s >> 3) % NR_BY_ADDRESS];
	if (s && !c->dropped && r->s == s && !strcmp(c->l.tl->strings[r->index], s))
		return (int)r->index;
	int k = c->dropped ? -1 : intern_bytes(&c->l, s, s ? strlen(s) : 0);
	if (k < 0)
		drop(c);
	else if (s)
		*r = (struct captured_string){ s, (size_t)k };
	return k;
}

void timeline_capture_state(struct tl_capture *c, int64_t tid, int64_t start_ns, int64_t end_ns, const char *state,
			    int64_t cpu, const char *syscall)
{
	int state_k = capture_string(c, state), syscall_k = capture_string(c, syscall);
	struct tl_thread *t = capture_thread(c, tid, true);
	struct tl_state *s = t ? APPEND(t, states) : NULL;
	if (!s) {
		drop(c);
		return;
	}
	*s = (struct tl_state){
		.start_ns = start_ns, .end_ns = end_ns, .cpu = cpu >= 0 ? (int32_t)cpu : 0, .state = (uint16_t)state_k,
		.syscall = (uint16_t)syscall_k,
		.flags = (cpu >= 0 ? TL_HAS_CPU : 0) | (syscall_k != TL_NONE ? TL_HAS_SYSCALL : 0),
	};
	place(c, &c->states, &c->nr_states, &c->cap_states, t, t->nr_states);
}

void timeline_capture_switch(struct tl_capture *c, int64_t prev_tid, int64_t ts_ns, int64_t next_tid, int preempt,
			     int64_t stack_id)
{
	struct tl_thread *t = capture_thread(c, prev_tid, true);
	struct tl_switch *s = t ? APPEND(t, switches) : NULL;
	if (!s) {
		drop(c);
		return;
	}
	/* function_id holds the stack until timeline_capture_finish. */
	*s = (struct tl_switch){ .ts_ns = ts_ns, .function_id = stack_id, .next_tid = (int32_t)next_tid,
				 .preempt = preempt != 0 };
	c->nr_switches++;
}

void timeline_capture_wakeup(struct tl_capture *c, int64_t wakee_tid, int64_t ts_ns, int64_t waker_tid)
{
	struct tl_thread *t = capture_thread(c, wakee_tid, true);
	struct tl_wakeup *w = t ? APPEND(t, wakeups) : NULL;
	if (!w) {
		drop(c);
		return;
	}
	*w = (struct tl_wakeup){ ts_ns, (int32_t)waker_tid };
	c->nr_wakeups++;
}

void timeline_capture_syscall(struct tl_capture *c, int64_t tid, int64_t start_ns, int64_t end_ns, int64_t fd,
			      const char *fd_kind, const char *name, int64_t ret, uint16_t flags)
{
	int kind_k = capture_string(c, fd_kind), name_k = capture_string(c, name);
	struct tl_thread *t = capture_thread(c, tid, true);
	struct tl_syscall *s = t ? APPEND(t, syscalls) : NULL;
	if (!s) {
		drop(c);
		return;
	}
	flags &= TL_HAS_END | TL_HAS_FD | TL_HAS_RET;
	*s = (struct tl_syscall){
		.start_ns = start_ns, .end_ns = flags & TL_HAS_END ? end_ns : 0, .fd = flags & TL_HAS_FD ? fd : 0,
		.fd_kind = (uint16_t)kind_k, .name = (uint16_t)name_k,
		.flags = flags | ((flags & TL_HAS_RET) && ret < 0 ? TL_RET_FAILED : 0),
	};
	c->nr_syscalls++;
}

static uint16_t capped16(int64_t v)
{
	return v <= 0 ? 0 : v >= UINT16_MAX ? UINT16_MAX : (uint16_t)v;
}

void timeline_capture_op(struct tl_capture *c, int64_t tid, int64_t object_id, const char *op, int64_t start_ns,
			 int64_t end_ns, int64_t result, int64_t arg, int64_t callsite, int64_t stack_id,
			 int64_t hold_ns, int64_t overhead_ns, int64_t injected_ns, uint16_t flags)
{
	int op_k = capture_string(c, op);
	/* a summarized op is not what a read of the file would hold */
	struct tl_thread *t = capture_thread(c, tid, !(flags & TL_SUMMARIZED));
	struct tl_op *o = t ? APPEND(t, ops) : NULL;
	if (!o) {
		drop(c);
		return;
	}
	flags &= TL_HAS_RESULT | TL_HAS_CALLSITE | TL_COST_MEASURED | TL_SUMMARIZED;
	*o = (struct tl_op){
		.start_ns = start_ns, .end_ns = end_ns, .id = (int64_t)c->nr_ops + 1, .object_id = object_id,
		.callsite = flags & TL_HAS_CALLSITE ? callsite : 0, .result = flags & TL_HAS_RESULT ? (int32_t)result : 0,
		.arg = op_arg(arg), .stack_id = (uint32_t)stack_id, .op = (uint16_t)op_k, .flags = flags,
		.hold_ns = hold_ns, .overhead_ns = capped16(overhead_ns), .injected_ns = capped16(injected_ns),
	};
	c->nr_summarized += (flags & TL_SUMMARIZED) != 0;
	if (!(flags & TL_HAS_RESULT)) {
		int64_t *more = grow_array(c->unreturned, &c->cap_unreturned, c->nr_unreturned, sizeof(*more), 64);
		if (!more) {
			drop(c);
			return;
		}
		c->unreturned = more;
		more[c->nr_unreturned++] = o->id;
	}
	place(c, &c->ops, &c->nr_ops, &c->cap_ops, t, t->nr_ops);
}

/* The captured row @row of @places (rowid or id), or NULL. */
static void *captured(struct tl_capture *c, const struct tl_place *places, size_t nr, int64_t row, bool op)
{
	if (c->dropped || row < 1 || (uint64_t)row > nr)
		return NULL;
	struct tl_place p = places[row - 1];
	struct tl_thread *t = &c->l.tl->threads[p.thread];
	return op ? (void *)&t->ops[p.row] : (void *)&t->states[p.row];
}

size_t timeline_capture_nr_ops(const struct tl_capture *c)
{
	return c && !c->dropped ? c->nr_ops : 0;
}

const struct tl_op *timeline_capture_op_row(struct tl_capture *c, int64_t id, int64_t *tid, const char **name)
{
	struct tl_op *o = captured(c, c->ops, c->nr_ops, id, true);
	if (o) {
		*tid = c->l.tl->threads[c->ops[id - 1].thread].tid;
		*name = o->op == TL_NONE ? NULL : c->l.tl->strings[o->op];
	}
	return o;
}

void timeline_capture_amend(struct tl_capture *c, enum tl_amend what, int64_t row, int64_t value)
{
	if (!c)
		return;
	c->amended[what]++;
	if (what == TL_AMEND_BLOCKED_SYNC) {
		struct tl_state *s = captured(c, c->states, c->nr_states, row, false);
		int k = s ? capture_string(c, thread_state_name(TS_BLOCKED_SYNC)) : -1;
		if (k < 0) {
			drop(c);
			return;
		}
		s->state = (uint16_t)k;
		s->object_id = value;
		s->flags |= TL_HAS_OBJECT;
		return;
	}
	struct tl_op *o = captured(c, c->ops, c->nr_ops, row, true);
	if (!o) {
		drop(c);
		return;
	}
	switch (what) {
	case TL_AMEND_WAIT:
		o->flags |= TL_BLOCKED;
		o->wait_ns += value;
		break;
	case TL_AMEND_HOLDER:
		o->holder_tid = (int32_t)value;
		o->flags |= TL_HAS_HOLDER;
		break;
	case TL_AMEND_HOLD:
		o->hold_ns = value;
		break;
	case TL_AMEND_OBJECT:
		o->object_id = value;
		break;
	case TL_AMEND_ARG:
		o->arg = op_arg(value);
		break;
	case TL_AMEND_ROW:
		if (o->flags & TL_SUMMARIZED)
			c->nr_summarized--;
		o->flags &= (uint16_t)~TL_SUMMARIZED;
		break;
	case TL_AMEND_BLOCKED_SYNC:
		break;
	}
}

size_t timeline_capture_nr_summarized(const struct tl_capture *c)
{
	return c ? c->nr_summarized : 0;
}

/* The summarized ops are no rows: the timeline is the file's. */
static void drop_summarized(struct tl_capture *c)
{
	for (size_t i = 0; c->nr_summarized && i < c->l.tl->nr_threads; i++) {
		struct tl_thread *t = &c->l.tl->threads[i];
		size_t n = 0;
		for (size_t j = 0; j < t->nr_ops; j++)
			if (!(t->ops[j].flags & TL_SUMMARIZED))
				t->ops[n++] = t->ops[j];
		t->nr_ops = n;
	}
	/* places no longer hold */
	spill_free(c->ops);
	c->ops = NULL;
	c->nr_ops = c->cap_ops = 0;
}

/* Whether @db's tables hold as many rows as @c captured (rows are only
 * appended, so that an op's id and a state's rowid are its place). */
/* The id of the last captured op that is a row: sync_ops.id has gaps
 * where ops were added up (collector/sync/summary.h). */
static size_t last_op_row(struct tl_capture *c)
{
	size_t id = c->nr_ops;
	for (const struct tl_op *o; id > 0 && (o = captured(c, c->ops, c->nr_ops, (int64_t)id, true)) &&
				    (o->flags & TL_SUMMARIZED);
	     id--)
		;
	return id;
}

/* Whether the tables hold the rows captured: the last rowid of each (its
 * count, but for the ids of sync_ops added up). */
static bool capture_matches(struct tl_capture *c, sqlite3 *db)
{
	const struct {
		const char *table;
		size_t captured;
	} tables[] = { { "thread_states", c->nr_states }, { "sync_ops", last_op_row(c) },
		       { "switches", c->nr_switches },	  { "wakeups", c->nr_wakeups },
		       { "syscalls", c->nr_syscalls } };
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		double rows = count_rows(db, tables[i].table);
		if (rows != (double)tables[i].captured) {
			log_debug("derived tables: %s has %.0f rows, the capture %zu", tables[i].table, rows,
				  tables[i].captured);
			return false;
		}
	}
	return true;
}

/* The ends sync_resolve gave the ops that never returned (it sets them in
 * SQL, from the threads table). */
static int read_unreturned_ends(struct tl_capture *c, sqlite3 *db)
{
	sqlite3_stmt *st;
	int rc = 0;
	if (sqlite3_prepare_v2(db, "SELECT end_ns FROM sync_ops WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	for (size_t i = 0; i < c->nr_unreturned && !rc; i++) {
		struct tl_op *o = captured(c, c->ops, c->nr_ops, c->unreturned[i], true);
		sqlite3_bind_int64(st, 1, c->unreturned[i]);
		if (!o || sqlite3_step(st) != SQLITE_ROW)
			rc = -EIO;
		else
			o->end_ns = sqlite3_column_int64(st, 0);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc;
}

int timeline_capture_finish(struct tl_capture *c, sqlite3 *db, struct mtx_timeline **out, char **err)
{
	int rc = 0;
	*out = NULL;
	if (!c)
		return 0;
	if (c->dropped || !capture_matches(c, db)) {
		timeline_capture_free(c);
		return 0;
	}
	struct loader *l = &c->l;
	log_debug("derived tables: %llu rows captured; amended: %llu states blocked_sync, %llu ops blocked, %llu "
		  "holders, %llu holds, %llu ops to a later lifetime, %llu cond waits' mutexes; %zu ops unreturned; "
		  "%llu summarized ops made rows, %zu left out",
		  (unsigned long long)c->rows, (unsigned long long)c->amended[TL_AMEND_BLOCKED_SYNC],
		  (unsigned long long)c->amended[TL_AMEND_WAIT], (unsigned long long)c->amended[TL_AMEND_HOLDER],
		  (unsigned long long)c->amended[TL_AMEND_HOLD], (unsigned long long)c->amended[TL_AMEND_OBJECT],
		  (unsigned long long)c->amended[TL_AMEND_ARG], c->nr_unreturned,
		  (unsigned long long)c->amended[TL_AMEND_ROW], c->nr_summarized);
	rc = read_unreturned_ends(c, db);
	if (!rc)
		drop_summarized(c);
	l->db = db;
	l->tl->buckets = choose_buckets(db);
	if (!rc)
		rc = scan(l, OBJECTS_SQL, row_object, err);
	if (!rc)
		rc = finish_load(l);
	if (rc && !*err)
		error_set(err, "the captured run: %s",
				rc == -ENOMEM ? "out of memory" : sqlite3_errmsg(db));
	if (!rc) {
		*out = l->tl;
		l->tl = NULL;
	}
	timeline_capture_free(c);
	return rc;
}

void timeline_free(struct mtx_timeline *tl)
{
	if (!tl)
		return;
	for (size_t i = 0; i < tl->nr_threads; i++) {
		struct tl_thread *t = &tl->threads[i];
		spill_free(t->states);
		spill_free(t->switches);
		spill_free(t->wakeups);
		spill_free(t->syscalls);
		spill_free(t->ops);
	}
	for (size_t i = 0; i < tl->nr_strings; i++)
		free(tl->strings[i]);
	free(tl->strings);
	free(tl->threads);
	free(tl->objects);
	free(tl->op_totals);
	free(tl->holder_totals);
	program_frames_free(tl->frames);
	free(tl);
}

/* ---- lookups ---- */

const struct tl_thread *timeline_thread(const struct mtx_timeline *tl, int64_t tid)
{
	size_t i = SORTED_FIRST(tl->threads, tl->nr_threads, tid, tid, false);
	return i < tl->nr_threads && tl->threads[i].tid == tid ? &tl->threads[i] : NULL;
}

const struct tl_object *timeline_object(const struct mtx_timeline *tl, int64_t id)
{
	size_t i = SORTED_FIRST(tl->objects, tl->nr_objects, id, id, false);
	return i < tl->nr_objects && tl->objects[i].id == id ? &tl->objects[i] : NULL;
}

size_t timeline_states_from(const struct tl_thread *t, int64_t ns)
{
	return SORTED_FIRST(t->states, t->nr_states, start_ns, ns, false);
}
