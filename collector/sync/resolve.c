/* collector/sync/resolve.c - see sync-resolve.h. */
#include "config.h"
#include "collector/sync/resolve.h"
#include "collector/sync/summary.h"
#include "src/clock.h"
#include "src/db.h"
#include "src/grow.h"
#include "src/keyhash.h"
#include "src/log.h"
#include "src/progress.h"
#include "src/radix-sort.h"
#include "src/sorted.h"
#include "src/spill.h"
#include "src/derived/timeline.h"
#include "src/error.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An UPDATE to apply once the scan that produced it is over: SQLite cursors
 * must not see the table they walk change under them. */
struct pending {
	int64_t row, value;
};

struct pending_list {
	struct pending *v;
	size_t len, cap;
};

static int pending_add(struct pending_list *l, int64_t row, int64_t value)
{
	struct pending *v = spill_grow(l->v, &l->cap, l->len, sizeof(*v), 1024);
	if (!v)
		return -ENOMEM;
	l->v = v;
	l->v[l->len++] = (struct pending){ row, value };
	return 0;
}

static int sql_fail(sqlite3 *db, const char *what, char **err)
{
	error_set(err, "finishing the sync tables (%s): %s", what, sqlite3_errmsg(db));
	return sqlite3_errcode(db) == SQLITE_FULL ? -ENOSPC : -EIO;
}

/* Put @l in row order: updates then walk the table's pages once rather
 * than at random. */
static int sort_pending(struct pending_list *l)
{
	return radix_sort(l->v, l->len, sizeof(*l->v), &RADIX_KEY(struct pending, row), 1);
}

/* Run @sql once per pending entry, binding (value, row), in row order, and
 * make the same change (@what) in @capture (if any). */
static int apply(sqlite3 *db, struct tl_capture *capture, enum tl_amend what, const char *sql,
		 struct pending_list *l, char **err)
{
	sqlite3_stmt *st;
	if (sort_pending(l))
		return -ENOMEM;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return sql_fail(db, sql, err);
	for (size_t i = 0; i < l->len; i++) {
		sqlite3_bind_int64(st, 1, l->v[i].value);
		sqlite3_bind_int64(st, 2, l->v[i].row);
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_finalize(st);
			return sql_fail(db, sql, err);
		}
		sqlite3_reset(st);
		timeline_capture_amend(capture, what, l->v[i].row, l->v[i].value);
	}
	sqlite3_finalize(st);
	return 0;
}

/* The next of @l's entries for row @row (in row order, from *@at): true
 * and its value in *@value (added up over several), or false. */
static bool pending_take(const struct pending_list *l, size_t *at, int64_t row, int64_t *value)
{
	bool found = false;
	for (*value = 0; *at < l->len && l->v[*at].row == row; ++*at) {
		*value += l->v[*at].value;
		found = true;
	}
	return found;
}

/* The smallest row of the three lists' next entries, or INT64_MAX. */
static int64_t next_row(const struct pending_list *const l[3], const size_t at[3])
{
	int64_t row = INT64_MAX;
	for (int i = 0; i < 3; i++)
		if (at[i] < l[i]->len && l[i]->v[at[i]].row < row)
			row = l[i]->v[at[i]].row;
	return row;
}

/*
 * The ops' updates, one statement per op: its waits (added up), the holder
 * it found, the time it held the lock. A pass per column updated a blocked
 * lock op three times (a row is rewritten whole each time).
 */
static int apply_ops(sqlite3 *db, struct tl_capture *capture, struct pending_list *waits,
		     struct pending_list *holders, struct pending_list *holds, char **err)
{
	static const char sql[] = "UPDATE sync_ops SET blocked = blocked | ?1, wait_ns = wait_ns + ?2, "
				  "holder_tid = COALESCE(?3, holder_tid), "
				  "hold_ns = CASE WHEN ?4 IS NULL THEN hold_ns WHEN ?4 >= 0 THEN ?4 END WHERE id = ?5";
	const struct pending_list *const lists[3] = { waits, holders, holds };
	size_t at[3] = { 0, 0, 0 };
	sqlite3_stmt *st;
	int64_t row, v;

	if (sort_pending(waits) || sort_pending(holders) || sort_pending(holds))
		return -ENOMEM;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return sql_fail(db, "sync_ops", err);
	while ((row = next_row(lists, at)) != INT64_MAX) {
		int64_t tid;
		const char *name;
		const struct tl_op *o = capture ? timeline_capture_op_row(capture, row, &tid, &name) : NULL;
		/* a summarized op (collector/sync/summary.h) is no row yet */
		const bool in_table = !o || !(o->flags & TL_SUMMARIZED);
		bool blocked = pending_take(waits, &at[0], row, &v);
		sqlite3_bind_int64(st, 1, blocked);
		sqlite3_bind_int64(st, 2, v);
		if (blocked)
			timeline_capture_amend(capture, TL_AMEND_WAIT, row, v);
		if (pending_take(holders, &at[1], row, &v)) {
			sqlite3_bind_int64(st, 3, v);
			timeline_capture_amend(capture, TL_AMEND_HOLDER, row, v);
		} else {
			sqlite3_bind_null(st, 3);
		}
		if (pending_take(holds, &at[2], row, &v)) {
			sqlite3_bind_int64(st, 4, v); /* negative: NULL (the capture's 0) */
			timeline_capture_amend(capture, TL_AMEND_HOLD, row, v < 0 ? 0 : v);
		} else {
			sqlite3_bind_null(st, 4);
		}
		sqlite3_bind_int64(st, 5, row);
		if (in_table && sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_finalize(st);
			return sql_fail(db, "sync_ops", err);
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return 0;
}

/* How many distinct rows @l names (once sorted). */
static uint64_t count_rows(const struct pending_list *l)
{
	uint64_t n = 0;
	for (size_t i = 0; i < l->len; i++)
		n += i == 0 || l->v[i].row != l->v[i - 1].row;
	return n;
}

static int op_is(const char *op, const char *const *names)
{
	for (; *names; names++)
		if (!strcmp(op, *names))
			return 1;
	return 0;
}

static const char *const lifetime_ends[] = { "destroy", "join", "close", NULL };

/* ---- pass 1: lifetimes ---------------------------------------------- */

struct split {
	int64_t key, new_id, from_ns;
};

/* qsort's order of two rows by (@a1, @a2) and (@b1, @b2). */
static int cmp_pairs(int64_t a1, int64_t a2, int64_t b1, int64_t b2)
{
	if (a1 != b1)
		return a1 < b1 ? -1 : 1;
	return (a2 > b2) - (a2 < b2);
}

static int split_cmp(const void *a, const void *b)
{
	const struct split *x = a, *y = b;
	return cmp_pairs(x->key, x->from_ns, y->key, y->from_ns);
}

/*
 * A cond wait names its mutex by id (arg): move it to the lifetime of the
 * mutex it fell into, the latest split of that mutex begun at or before
 * the wait. One scan of the waits and a binary search each: a statement per
 * split was a scan of sync_ops per split (seconds for pigz's 800 locks).
 */
static int move_cond_mutexes(sqlite3 *db, struct tl_capture *capture, struct split *splits, size_t n,
			     char **err)
{
	struct pending_list moved = { 0 };
	sqlite3_stmt *st;
	int rc = 0, step;

	if (n > 1) /* none: splits may be NULL, which qsort must not be given */
		qsort(splits, n, sizeof(*splits), split_cmp);
	if (sqlite3_prepare_v2(db, "SELECT op.id, op.arg, op.start_ns FROM sync_ops op "
				   "JOIN sync_objects c ON c.id = op.object_id AND c.kind = 'cond' "
				   "JOIN sync_objects m ON m.id = op.arg AND m.kind = 'mutex' "
				   "WHERE op.op IN ('wait', 'timedwait')", -1, &st, NULL) != SQLITE_OK)
		return sql_fail(db, "cond mutex", err);
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t arg = sqlite3_column_int64(st, 1), start = sqlite3_column_int64(st, 2);
		/* the first split after (arg, start) */
		size_t lo = SORTED_FIRST2(splits, n, key, from_ns, arg, start, true);

		if (lo > 0 && splits[lo - 1].key == arg)
			rc = pending_add(&moved, sqlite3_column_int64(st, 0), splits[lo - 1].new_id);
	}
	if (!rc && step != SQLITE_DONE)
		rc = sql_fail(db, "cond mutex", err);
	sqlite3_finalize(st);
	if (!rc)
		rc = apply(db, capture, TL_AMEND_ARG, "UPDATE sync_ops SET arg = ? WHERE id = ?", &moved, err);
	spill_free(moved.v);
	return rc;
}

/* Where an op falls in its object's order: by start, then id. */
struct op_place {
	int64_t start_ns, id;
};

static int place_cmp(const void *a, const void *b)
{
	const struct op_place *x = a, *y = b;
	return cmp_pairs(x->start_ns, x->id, y->start_ns, y->id);
}

struct lifetime_op {
	struct op_place at;
	int64_t end_ns;
	bool ends; /* destroy, join, close; else init, create, open */
};

struct lifetime_queries {
	sqlite3_stmt *lifetime_ops, *next, *range, *obj, *add, *end;
};

/* Into *@at, the first op of @key after @after: false if none. */
static bool next_op(sqlite3_stmt *next, int64_t key, struct op_place after, struct op_place *at)
{
	bool found;
	sqlite3_bind_int64(next, 1, key);
	sqlite3_bind_int64(next, 2, after.start_ns);
	sqlite3_bind_int64(next, 3, after.id);
	found = sqlite3_step(next) == SQLITE_ROW;
	if (found)
		*at = (struct op_place){ sqlite3_column_int64(next, 1), sqlite3_column_int64(next, 0) };
	sqlite3_reset(next);
	return found;
}

/*
 * Where @key's lifetimes begin after its first: at every op that begins
 * one (init, create, open) but the object's first op, and at the first op
 * after every op that ends one (destroy, join, close). Only those ops and
 * their neighbours are looked up, not every op of the object: the lock of
 * a 4 M-op run was walked whole for a single init and destroy.
 */
static int find_cuts(struct lifetime_queries *q, int64_t key, struct lifetime_op **ops, size_t *nr_ops,
		     size_t *ops_cap, struct op_place **cuts, size_t *nr_cuts, size_t *cuts_cap)
{
	struct op_place first, at;
	*nr_ops = *nr_cuts = 0;
	sqlite3_bind_int64(q->lifetime_ops, 1, key);
	while (sqlite3_step(q->lifetime_ops) == SQLITE_ROW) {
		struct lifetime_op *v = grow_array(*ops, ops_cap, *nr_ops, sizeof(**ops), 16);
		if (!v) {
			sqlite3_reset(q->lifetime_ops);
			return -ENOMEM;
		}
		*ops = v;
		v[(*nr_ops)++] = (struct lifetime_op){
			{ sqlite3_column_int64(q->lifetime_ops, 2), sqlite3_column_int64(q->lifetime_ops, 0) },
			sqlite3_column_int64(q->lifetime_ops, 3),
			op_is((const char *)sqlite3_column_text(q->lifetime_ops, 1), lifetime_ends) != 0 };
	}
	sqlite3_reset(q->lifetime_ops);
	if (!next_op(q->next, key, (struct op_place){ INT64_MIN, INT64_MIN }, &first))
		return 0;
	for (size_t i = 0; i < *nr_ops; i++) {
		const struct lifetime_op *l = &(*ops)[i];
		struct op_place *v;
		if (l->ends) { /* the op after it begins the next lifetime */
			if (!next_op(q->next, key, l->at, &at))
				continue;
		} else { /* it begins one, unless it is the object's first op */
			if (!place_cmp(&l->at, &first))
				continue;
			at = l->at;
		}
		v = grow_array(*cuts, cuts_cap, *nr_cuts, sizeof(**cuts), 16);
		if (!v)
			return -ENOMEM;
		*cuts = v;
		v[(*nr_cuts)++] = at;
	}
	if (*nr_cuts > 1) {
		size_t n = 1;
		qsort(*cuts, *nr_cuts, sizeof(**cuts), place_cmp);
		for (size_t i = 1; i < *nr_cuts; i++) /* an end followed by a begin: one cut */
			if (place_cmp(&(*cuts)[i], &(*cuts)[n - 1]))
				(*cuts)[n++] = (*cuts)[i];
		*nr_cuts = n;
	}
	return 0;
}

static int split_lifetimes(sqlite3 *db, struct tl_capture *capture, const int64_t *ids, size_t n,
			   struct sync_resolve_stats *stats, char **err)
{
	struct lifetime_queries q = { 0 };
	struct pending_list moved = { 0 };
	struct split *splits = NULL;
	struct lifetime_op *ops = NULL;
	struct op_place *cuts = NULL;
	size_t nr_splits = 0, splits_cap = 0, nr_ops, ops_cap = 0, nr_cuts, cuts_cap = 0;
	int64_t next_id;
	int rc = 0;

	/* The first op in time, not the first drained, created the object;
	 * attached (mtx collect -p), one first used without an init, create
	 * or open existed before: not known when it was created. */
	if (sqlite3_exec(db, "UPDATE sync_objects SET created_ns = (SELECT MIN(start_ns) FROM sync_ops "
			     "WHERE object_id = sync_objects.id)", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, "UPDATE sync_objects SET created_ns = NULL WHERE EXISTS (SELECT 1 FROM meta "
			     "WHERE key = 'attach_ns') AND (SELECT op FROM sync_ops WHERE object_id = sync_objects.id "
			     "ORDER BY start_ns, id LIMIT 1) NOT IN ('init', 'create', 'open')", NULL, NULL, NULL) !=
		    SQLITE_OK)
		return sql_fail(db, "created_ns", err);
	if (n == 0)
		return 0;
	next_id = db_query_int(db, "SELECT COALESCE(MAX(id), 0) FROM sync_objects", -1) + 1;
	if (next_id <= 0)
		return sql_fail(db, "max id", err);
	if (sqlite3_prepare_v2(db, "SELECT id, op, start_ns, end_ns FROM sync_ops INDEXED BY sync_ops_lifetime "
				   "WHERE object_id = ? AND "
				   LIFETIME_OPS " ORDER BY start_ns, id", -1, &q.lifetime_ops, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT id, start_ns FROM sync_ops WHERE object_id = ?1 AND "
				   "(start_ns, id) > (?2, ?3) ORDER BY start_ns, id LIMIT 1", -1, &q.next, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT id FROM sync_ops WHERE object_id = ?1 AND (start_ns, id) >= (?2, ?3) "
				   "AND (start_ns, id) < (?4, ?5)", -1, &q.range, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT kind, addr, pid FROM sync_objects WHERE id = ?", -1, &q.obj, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO sync_objects(id, kind, addr, pid, created_ns) VALUES (?,?,?,?,?)",
			       -1, &q.add, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "UPDATE sync_objects SET destroyed_ns = ? WHERE id = ?", -1, &q.end, NULL) != SQLITE_OK) {
		rc = sql_fail(db, "prepare", err);
		goto out;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		int64_t key = ids[i], first_new = next_id;
		char kind[16] = "";
		int64_t addr = 0, pid = 0;

		rc = find_cuts(&q, key, &ops, &nr_ops, &ops_cap, &cuts, &nr_cuts, &cuts_cap);
		if (rc)
			break;
		if (nr_cuts) {
			sqlite3_bind_int64(q.obj, 1, key);
			if (sqlite3_step(q.obj) == SQLITE_ROW) {
				snprintf(kind, sizeof(kind), "%s", (const char *)sqlite3_column_text(q.obj, 0));
				addr = sqlite3_column_int64(q.obj, 1);
				pid = sqlite3_column_int64(q.obj, 2);
			}
			sqlite3_reset(q.obj);
		}
		/* Each cut begins a lifetime of its own, to the next cut. */
		for (size_t c = 0; c < nr_cuts && !rc; c++) {
			struct op_place to = c + 1 < nr_cuts ? cuts[c + 1] : (struct op_place){ INT64_MAX, INT64_MAX };
			struct split *sp = grow_array(splits, &splits_cap, nr_splits, sizeof(*sp), 16);
			int64_t cur = next_id++;
			if (!sp) {
				rc = -ENOMEM;
				break;
			}
			splits = sp;
			splits[nr_splits++] = (struct split){ key, cur, cuts[c].start_ns };
			sqlite3_bind_int64(q.add, 1, cur);
			sqlite3_bind_text(q.add, 2, kind, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int64(q.add, 3, addr);
			sqlite3_bind_int64(q.add, 4, pid);
			sqlite3_bind_int64(q.add, 5, cuts[c].start_ns);
			if (sqlite3_step(q.add) != SQLITE_DONE)
				rc = sql_fail(db, "new lifetime", err);
			sqlite3_reset(q.add);
			stats->lifetimes_split++;
			sqlite3_bind_int64(q.range, 1, key);
			sqlite3_bind_int64(q.range, 2, cuts[c].start_ns);
			sqlite3_bind_int64(q.range, 3, cuts[c].id);
			sqlite3_bind_int64(q.range, 4, to.start_ns);
			sqlite3_bind_int64(q.range, 5, to.id);
			while (!rc && sqlite3_step(q.range) == SQLITE_ROW)
				rc = pending_add(&moved, sqlite3_column_int64(q.range, 0), cur);
			sqlite3_reset(q.range);
		}
		/* An op that ends a lifetime ends the one it falls in (the
		 * last such op in it, as they come in order). */
		for (size_t k = 0; k < nr_ops && !rc; k++) {
			size_t in = 0;
			if (!ops[k].ends)
				continue;
			while (in < nr_cuts && place_cmp(&cuts[in], &ops[k].at) <= 0)
				in++;
			sqlite3_bind_int64(q.end, 1, ops[k].end_ns);
			sqlite3_bind_int64(q.end, 2, in ? first_new + (int64_t)in - 1 : key);
			if (sqlite3_step(q.end) != SQLITE_DONE)
				rc = sql_fail(db, "destroyed_ns", err);
			sqlite3_reset(q.end);
		}
	}
	if (!rc)
		rc = apply(db, capture, TL_AMEND_OBJECT, "UPDATE sync_ops SET object_id = ? WHERE id = ?", &moved, err);
	if (!rc && nr_splits)
		rc = move_cond_mutexes(db, capture, splits, nr_splits, err);
out:
	sqlite3_finalize(q.lifetime_ops);
	sqlite3_finalize(q.next);
	sqlite3_finalize(q.range);
	sqlite3_finalize(q.obj);
	sqlite3_finalize(q.add);
	sqlite3_finalize(q.end);
	spill_free(moved.v);
	free(splits);
	free(ops);
	free(cuts);
	return rc;
}

/* ---- passes 2 and 3: one scan of sync_ops ------------------------------ */

/*
 * Both passes read every op once, in the order the table is stored (a plain
 * scan: reading through an index costs a table lookup per row), and keep in
 * memory the blocked intervals (pass 2, sorted) and each thread's lock ops
 * (pass 3, 40 bytes each), whose events are merged as they are replayed:
 * the radix sort of all the events they replaced took three times the
 * memory and half of the pass's time.
 */

/* OBJ_SEM: a semaphore that may be used as a lock; its init or open
 * makes it OBJ_OTHER unless that gave it the value 1 (binary). */
enum object_class { OBJ_OTHER = 0, OBJ_LOCK = 1, OBJ_COND = 2, OBJ_SEM = 3 };

struct object_classes {
	uint8_t *of; /* by sync_objects.id */
	int64_t len;
};

static int load_object_classes(sqlite3 *db, struct object_classes *c, char **err)
{
	sqlite3_stmt *st;
	c->len = db_query_int(db, "SELECT COALESCE(MAX(id), 0) + 1 FROM sync_objects", -1);
	if (c->len <= 0)
		return sql_fail(db, "max id", err);
	c->of = calloc((size_t)c->len, 1);
	if (!c->of)
		return -ENOMEM;
	if (sqlite3_prepare_v2(db, "SELECT id, kind FROM sync_objects", -1, &st, NULL) != SQLITE_OK)
		return sql_fail(db, "sync_objects", err);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const char *kind = (const char *)sqlite3_column_text(st, 1);
		if (id < 0 || id >= c->len || !kind)
			continue;
		if (!strcmp(kind, "mutex") || !strcmp(kind, "rwlock") || !strcmp(kind, "spinlock"))
			c->of[id] = OBJ_LOCK;
		else if (!strcmp(kind, "cond"))
			c->of[id] = OBJ_COND;
		else if (!strcmp(kind, "sem"))
			c->of[id] = OBJ_SEM;
	}
	sqlite3_finalize(st);
	return 0;
}

static enum object_class class_of(const struct object_classes *c, int64_t id)
{
	return id >= 0 && id < c->len ? (enum object_class)c->of[id] : OBJ_OTHER;
}

/* A 'blocked' interval of thread_states and the innermost op under way when
 * it began: the latest started (ties: the latest id) that had not ended. */
struct blocked {
	int64_t row, tid, start_ns, end_ns;
	int64_t op_id, op_start_ns, op_end_ns, op_object; /* op_id 0: none yet */
};

struct blocked_list {
	struct blocked *v;
	size_t len, cap;
};

static int blocked_cmp(const void *a, const void *b)
{
	const struct blocked *x = a, *y = b;
	return cmp_pairs(x->tid, x->start_ns, y->tid, y->start_ns);
}

static int load_blocked(sqlite3 *db, struct blocked_list *l, char **err)
{
	sqlite3_stmt *st;
	int step;
	if (sqlite3_prepare_v2(db, "SELECT rowid, tid, start_ns, end_ns FROM thread_states "
				   "WHERE state = 'blocked'", -1, &st, NULL) != SQLITE_OK)
		return sql_fail(db, "thread_states", err);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct blocked *v = spill_grow(l->v, &l->cap, l->len, sizeof(*v), 1024);
		if (!v) {
			sqlite3_finalize(st);
			return -ENOMEM;
		}
		l->v = v;
		l->v[l->len++] = (struct blocked){ .row = sqlite3_column_int64(st, 0),
						   .tid = sqlite3_column_int64(st, 1),
						   .start_ns = sqlite3_column_int64(st, 2),
						   .end_ns = sqlite3_column_int64(st, 3) };
	}
	sqlite3_finalize(st);
	if (step != SQLITE_DONE)
		return sql_fail(db, "thread_states", err);
	/* Without blocked intervals l->v is NULL, which qsort must not be
	 * given even for 0 rows. */
	if (l->len)
		qsort(l->v, l->len, sizeof(*l->v), blocked_cmp);
	return 0;
}

/* The first interval of @tid that began at or after @ns. */
static size_t blocked_first(const struct blocked_list *l, int64_t tid, int64_t ns)
{
	return SORTED_FIRST2(l->v, l->len, tid, start_ns, tid, ns, false);
}

/* Pass 2 for one op: every interval of its thread that began inside it. */
static void claim_blocked(struct blocked_list *l, int64_t tid, int64_t op_id, int64_t object,
			  int64_t start, int64_t end)
{
	for (size_t i = blocked_first(l, tid, start); i < l->len; i++) {
		struct blocked *b = &l->v[i];
		if (b->tid != tid || b->start_ns >= end)
			break;
		if (b->op_id && (b->op_start_ns > start || (b->op_start_ns == start && b->op_id > op_id)))
			continue; /* a later op, nested in this one, was under way */
		b->op_id = op_id;
		b->op_start_ns = start;
		b->op_end_ns = end;
		b->op_object = object;
	}
}

/* EV_TAKEN: a release the replay took ahead of its place (replay_locks). */
enum lock_event_type { EV_RELEASE = 0, EV_REQUEST = 1, EV_ACQUIRE = 2, EV_TAKEN = 3 };

/*
 * How far two threads' stamps may stand out of causal order: a release
 * stamped after the acquisition it let happen. The preload's TSC stamps
 * are converted within TSC_MAP_TOLERANCE_NS each (collector/sync/tsc-map.h);
 * before its stamp after a call waited for the call (preload_returned),
 * handoffs came inverted by up to ~1 us, and Python's threading.Lock was
 * judged a counting semaphore one run in ten. The slack keeps the verdict
 * from hanging on stamps that fine. A semaphore held by two threads at
 * once for longer than this is a counting one.
 */
#define REPLAY_SLACK_NS 2000

/*
 * What an op does to a lock, as the replay sees it: a release at an
 * unlock's (or a post's) start; a request at a taking op's start and, when
 * it succeeded, an acquisition at its end; a cond wait releases its mutex
 * at its start and takes it back at its end (unless its thread died
 * waiting). Only the ops that do one of these are kept, 40 bytes each.
 */
enum replay_what { RO_RELEASE = 1, RO_TAKE, RO_COND };

struct replay_op {
	int64_t id, start_ns, end_ns;
	int64_t written_hold; /* its row's hold_ns, -1: NULL */
	int32_t object;       /* the lock (a cond wait's: its mutex) */
	uint8_t what, write, acquired;
	bool hold_given;      /* the replay gave it a hold */
};

/* One lock event: @type of @op (NULL: none, an attach's holder) at @ts_ns.
 * The replay takes them by lock, time, then release < request <
 * acquisition, then op id: the order a sort of all of them had. */
struct lock_event {
	int64_t ts_ns, op_id;
	struct replay_op *op;
	int32_t object, tid;
	uint8_t type, write;
};

static int event_cmp(const struct lock_event *a, const struct lock_event *b)
{
	if (a->ts_ns != b->ts_ns)
		return a->ts_ns < b->ts_ns ? -1 : 1;
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	return (a->op_id > b->op_id) - (a->op_id < b->op_id);
}

/* qsort's order of lock events: by lock, then as event_cmp. */
static int lock_event_cmp(const void *a, const void *b)
{
	const struct lock_event *x = a, *y = b;
	return x->object != y->object ? (x->object > y->object) - (x->object < y->object) : event_cmp(x, y);
}

static const char *const read_ops[] = { "rdlock", "tryrdlock", "timedrdlock", NULL };
static const char *const not_acquiring[] = { "unlock", "init", "destroy", NULL };
static const char *const sem_takes[] = { "wait", "trywait", "timedwait", NULL };
static const char *const sem_inits[] = { "init", "open", NULL };

/* One sync_ops row as the passes read it: from the file, or from the
 * writer's capture of it (src/derived/timeline.h). */
struct op_row {
	int64_t id, tid, object, start_ns, end_ns, result, arg, hold_ns; /* hold_ns -1: NULL */
	const char *name;
	bool returned; /* result not NULL */
	bool has_arg;
};

/* What @op does to a lock, into *@ro: false when nothing. A semaphore's
 * ops are a lock's: its wait (trywait, timedwait) requests and, when it
 * succeeds, acquires; its post releases. Replayed, they tell whether it was
 * used as a lock; its init or open makes it OBJ_OTHER unless that gave it
 * the value 1. */
static bool replay_op_of(struct object_classes *c, const struct op_row *op, struct replay_op *ro)
{
	const char *name = op->name;
	*ro = (struct replay_op){ .id = op->id, .start_ns = op->start_ns, .end_ns = op->end_ns,
				  .written_hold = op->hold_ns, .object = (int32_t)op->object,
				  .acquired = op->returned && op->result == 0 };
	if (!name)
		return false;
	switch (class_of(c, op->object)) {
	case OBJ_LOCK:
		if (!strcmp(name, "unlock")) {
			ro->what = RO_RELEASE;
			return true;
		}
		if (op_is(name, not_acquiring))
			return false;
		ro->what = RO_TAKE;
		ro->write = !op_is(name, read_ops);
		return true;
	case OBJ_COND:
		if ((strcmp(name, "wait") && strcmp(name, "timedwait")) || !op->has_arg)
			return false;
		ro->what = RO_COND;
		ro->object = (int32_t)op->arg; /* the mutex */
		ro->acquired = op->returned;
		return true;
	case OBJ_SEM:
		if (op_is(name, sem_inits)) {
			/* arg: the value it was given (sem_open: 0 without O_CREAT) */
			if (!op->has_arg || op->arg != 1)
				c->of[op->object] = OBJ_OTHER;
			return false;
		}
		if (!strcmp(name, "post")) {
			ro->what = RO_RELEASE;
			return true;
		}
		if (!op_is(name, sem_takes))
			return false;
		ro->what = RO_TAKE;
		ro->write = 1;
		return true;
	default:
		return false;
	}
}

/*
 * The ops in id order, from the writer's capture when it holds them all (a
 * plain scan of the file was 1.5 s of a 4 M-op run's finish), else from
 * the file. The capture keeps the end an unreturned call was written with;
 * pass 0 moved it in the file, where it is read. Only the capture holds
 * the summarized ops (collector/sync/summary.h), whose ids are past the
 * file's last, or between its rows.
 */
struct op_reader {
	struct tl_capture *capture;
	sqlite3_stmt *scan, *end;
	int64_t next_id, last_id;
};

static int op_reader_open(struct op_reader *r, sqlite3 *db, struct tl_capture *capture, char **err)
{
	*r = (struct op_reader){ .next_id = 1, .last_id = db_query_int(db, "SELECT COALESCE(MAX(id), 0) FROM sync_ops", 0) };
	const size_t captured = timeline_capture_nr_ops(capture);
	if (captured == (size_t)r->last_id || (timeline_capture_nr_summarized(capture) && captured > (size_t)r->last_id)) {
		r->capture = capture;
		r->last_id = (int64_t)captured;
		if (sqlite3_prepare_v2(db, "SELECT end_ns FROM sync_ops WHERE id = ?", -1, &r->end, NULL) != SQLITE_OK)
			return sql_fail(db, "sync_ops", err);
		return 0;
	}
	/* ORDER BY the rowid: the plain scan */
	if (sqlite3_prepare_v2(db, "SELECT id, tid, object_id, op, start_ns, end_ns, result, arg, hold_ns "
			       "FROM sync_ops ORDER BY id", -1, &r->scan, NULL) != SQLITE_OK)
		return sql_fail(db, "sync_ops", err);
	return 0;
}

/* The next row into *@op: 1, or 0 at the end, or -errno. */
static int op_reader_next(struct op_reader *r, sqlite3 *db, struct op_row *op, char **err)
{
	if (r->capture) {
		int64_t id = r->next_id++, tid;
		const char *name;
		const struct tl_op *o;
		if (id > r->last_id)
			return 0;
		if (!(o = timeline_capture_op_row(r->capture, id, &tid, &name)))
			return -ENOMEM; /* cannot be: the capture held them all */
		*op = (struct op_row){ .id = id, .tid = tid, .name = name, .object = o->object_id,
				       .start_ns = o->start_ns, .end_ns = o->end_ns, .result = o->result,
				       .returned = (o->flags & TL_HAS_RESULT) != 0, .arg = o->arg, .has_arg = true,
				       .hold_ns = o->hold_ns ? o->hold_ns : -1 };
		if (!op->returned) {
			sqlite3_bind_int64(r->end, 1, op->id);
			if (sqlite3_step(r->end) == SQLITE_ROW)
				op->end_ns = sqlite3_column_int64(r->end, 0);
			sqlite3_reset(r->end);
		}
		return 1;
	}
	int step = sqlite3_step(r->scan);
	if (step == SQLITE_DONE)
		return 0;
	if (step != SQLITE_ROW)
		return sql_fail(db, "sync_ops", err);
	*op = (struct op_row){
		.id = sqlite3_column_int64(r->scan, 0), .tid = sqlite3_column_int64(r->scan, 1),
		.object = sqlite3_column_int64(r->scan, 2), .name = (const char *)sqlite3_column_text(r->scan, 3),
		.start_ns = sqlite3_column_int64(r->scan, 4), .end_ns = sqlite3_column_int64(r->scan, 5),
		.returned = sqlite3_column_type(r->scan, 6) != SQLITE_NULL, .result = sqlite3_column_int64(r->scan, 6),
		.has_arg = sqlite3_column_type(r->scan, 7) != SQLITE_NULL, .arg = sqlite3_column_int64(r->scan, 7),
		.hold_ns = sqlite3_column_type(r->scan, 8) != SQLITE_NULL ? sqlite3_column_int64(r->scan, 8) : -1,
	};
	return 1;
}

static void op_reader_close(struct op_reader *r)
{
	sqlite3_finalize(r->scan);
	sqlite3_finalize(r->end);
}

/*
 * A thread's ops that do something to a lock, in time order, and the
 * events they make, handed out in the replay's order: an op's events are
 * made once every event before them is out (its acquisition may come after
 * later ops' starts: an op of a signal handler nested in it).
 */
struct replay_thread {
	int32_t tid;
	struct replay_op *ops;
	size_t len, cap, next;       /* next: the first op whose events are not made */
	struct lock_event *pending;  /* made, not handed out */
	size_t nr_pending, cap_pending;
};

static int pending_event(struct replay_thread *t, struct replay_op *op, int type, int64_t ts, int write)
{
	struct lock_event *v = grow_array(t->pending, &t->cap_pending, t->nr_pending, sizeof(*v), 4);
	if (!v)
		return -ENOMEM;
	t->pending = v;
	v[t->nr_pending++] = (struct lock_event){ ts, op->id, op, op->object, t->tid, (uint8_t)type, (uint8_t)write };
	return 0;
}

/* The events of the thread's next op. */
static int make_events(struct replay_thread *t)
{
	struct replay_op *op = &t->ops[t->next++];
	int rc = pending_event(t, op, op->what == RO_TAKE ? EV_REQUEST : EV_RELEASE, op->start_ns,
			       op->what == RO_TAKE && op->write);
	if (!rc && op->what != RO_RELEASE && op->acquired)
		rc = pending_event(t, op, EV_ACQUIRE, op->end_ns, op->what == RO_COND || op->write);
	return rc;
}

/* The thread's next event, into *@e: 1, or 0 when it has none left, or
 * -ENOMEM. */
static int next_event(struct replay_thread *t, struct lock_event *e)
{
	size_t first = 0;
	int rc;
	for (;;) {
		for (size_t i = 1; i < t->nr_pending; i++)
			if (event_cmp(&t->pending[i], &t->pending[first]) < 0)
				first = i;
		/* a later op's events can come first only from where it starts */
		if (t->next == t->len || (t->nr_pending && t->pending[first].ts_ns < t->ops[t->next].start_ns))
			break;
		if ((rc = make_events(t)))
			return rc;
		first = 0;
	}
	if (!t->nr_pending)
		return 0;
	*e = t->pending[first];
	t->pending[first] = t->pending[--t->nr_pending];
	return 1;
}

/* The threads' ops by (start, id): in id order but for the rows written
 * late (a lock's, when its thread released it), which sit a few places
 * on; insertion puts them back, a sort when there are too many. */
static int op_start_cmp(const void *a, const void *b)
{
	const struct replay_op *x = a, *y = b;
	return cmp_pairs(x->start_ns, x->id, y->start_ns, y->id);
}

static void sort_thread_ops(struct replay_thread *t)
{
	size_t moved = 0;
	for (size_t i = 1; i < t->len && moved <= 8 * t->len; i++) {
		struct replay_op x = t->ops[i];
		size_t j = i;
		while (j > 0 && op_start_cmp(&t->ops[j - 1], &x) > 0) {
			t->ops[j] = t->ops[j - 1];
			j--;
		}
		t->ops[j] = x;
		moved += i - j;
	}
	if (moved > 8 * t->len)
		qsort(t->ops, t->len, sizeof(*t->ops), op_start_cmp);
}

/* Every thread's lock ops, by thread. */
struct replay_threads {
	struct replay_thread *v;
	size_t len, cap;
	struct keyhash by_tid;
	size_t last; /* the index of the thread added to last: ops come in runs of one thread's */
};

static int replay_threads_add(struct replay_threads *ts, int64_t tid, const struct replay_op *op)
{
	const struct replay_thread init = { .tid = (int32_t)tid };
	ptrdiff_t i = ts->last < ts->len && ts->v[ts->last].tid == tid
			      ? (ptrdiff_t)ts->last
			      : keyhash_row(&ts->by_tid, tid, 0, 0, &ts->v, &ts->len, &ts->cap, sizeof(*ts->v), &init);
	struct replay_thread *t;
	struct replay_op *v;
	if (i < 0)
		return -ENOMEM;
	ts->last = (size_t)i;
	t = &ts->v[i];
	if (!(v = spill_grow(t->ops, &t->cap, t->len, sizeof(*v), 64)))
		return -ENOMEM;
	t->ops = v;
	t->ops[t->len++] = *op;
	return 0;
}

static void replay_threads_free(struct replay_threads *ts)
{
	for (size_t i = 0; i < ts->len; i++) {
		spill_free(ts->v[i].ops);
		free(ts->v[i].pending);
	}
	free(ts->v);
	free(ts->by_tid.slots);
}

struct holder {
	int64_t tid, since_ns, op_id; /* op_id -1: held since before an attach */
	struct replay_op *op;
	int write; /* exclusive: mutex, spinlock, rwlock write */
	int depth; /* recursive acquisitions by the same thread */
};

/* A lock as the replay goes: its holders. A semaphore: whether it was used
 * as a lock (taken, and never posted by a thread that did not hold it nor
 * taken by one while held, by it or another: a binary semaphore), and the
 * requests its replay found contended, counted only if it was. */
struct lock_state {
	struct holder *h;
	size_t len, cap;
	bool started, sem, taken, lock_like;
	uint64_t contended;
};

/* What the replay of a semaphore gives its ops: kept if it was used as a
 * lock. */
struct sem_result {
	int64_t row, value;
	struct replay_op *op; /* a hold's op; NULL: a holder */
	int32_t object;
};

struct replay {
	const struct object_classes *classes;
	struct lock_state *locks; /* by object id */
	struct lock_event *ev;    /* the events from front on, in order, as many as the slack needs */
	size_t front, len, cap;
	struct pending_list *holders, *holds; /* holds: only those the rows lack */
	struct sem_result *sem;
	size_t nr_sem, cap_sem;
	struct sync_resolve_stats *stats;
};

static int sem_add(struct replay *r, int64_t row, int64_t value, struct replay_op *op, int32_t object)
{
	struct sem_result *v = grow_array(r->sem, &r->cap_sem, r->nr_sem, sizeof(*v), 64);
	if (!v)
		return -ENOMEM;
	r->sem = v;
	v[r->nr_sem++] = (struct sem_result){ row, value, op, object };
	return 0;
}

/* @op held its lock @hold_ns: a change when its row says otherwise. */
static int give_hold(struct replay *r, struct replay_op *op, int64_t hold_ns)
{
	op->hold_given = true;
	return op->written_hold == hold_ns ? 0 : pending_add(r->holds, op->id, hold_ns);
}

static int hold(struct replay *r, const struct lock_state *l, struct replay_op *op, int64_t hold_ns)
{
	return l->sem ? sem_add(r, op->id, hold_ns, op, op->object) : give_hold(r, op, hold_ns);
}

static struct holder *holder_of(struct lock_state *l, int64_t tid)
{
	for (size_t i = l->len; i-- > 0;)
		if (l->h[i].tid == tid)
			return &l->h[i];
	return NULL;
}

static int add_holder(struct lock_state *l, struct holder h)
{
	struct holder *v = grow_array(l->h, &l->cap, l->len, sizeof(*v), 8);
	if (!v)
		return -ENOMEM;
	l->h = v;
	l->h[l->len++] = h;
	return 0;
}

/* @e releases @l: the hold of its thread's outermost acquisition ends. */
static int release(struct replay *r, struct lock_state *l, const struct lock_event *e)
{
	struct holder *h = holder_of(l, e->tid);
	int rc;
	l->lock_like &= h != NULL || !l->sem; /* a post by a thread that did not take it */
	if (!h || --h->depth > 0)
		return 0; /* unlock of a lock this thread did not take, or recursion */
	/* held since before the attach: no op of it took it, no hold row */
	rc = h->op ? hold(r, l, h->op, e->ts_ns - h->since_ns) : 0;
	*h = l->h[--l->len];
	return rc;
}

/* The first holder of @l, other than @e's thread, that excludes @e (a
 * request or an acquisition), or NULL. */
static const struct holder *held_against(const struct lock_state *l, const struct lock_event *e)
{
	for (size_t i = 0; i < l->len; i++)
		if (l->h[i].tid != e->tid && (e->write || l->h[i].write))
			return &l->h[i];
	return NULL;
}

/* The events after @k of its lock stamped at most REPLAY_SLACK_NS after
 * it, in order: for (j = k; (j = slack_next(r, k, j)) < r->len;). */
static size_t slack_next(const struct replay *r, size_t k, size_t j)
{
	while (++j < r->len && r->ev[j].ts_ns - r->ev[k].ts_ns <= REPLAY_SLACK_NS)
		if (r->ev[j].object == r->ev[k].object)
			return j;
	return r->len;
}

/* The acquisition ev[@k] finds its lock held by another thread: the
 * holders' releases stamped up to REPLAY_SLACK_NS after it came first
 * (they let it happen); each is taken now and marked EV_TAKEN. */
static int take_releases_ahead(struct replay *r, size_t k, struct lock_state *l)
{
	const struct lock_event *e = &r->ev[k];
	int rc = 0;
	for (size_t j = k; !rc && (j = slack_next(r, k, j)) < r->len && held_against(l, e);) {
		struct lock_event *rel = &r->ev[j];
		if (rel->type != EV_RELEASE || rel->tid == e->tid || !holder_of(l, rel->tid))
			continue;
		rc = release(r, l, rel);
		rel->type = EV_TAKEN;
	}
	return rc;
}

/* The acquisition ev[@k] finds its lock taken by others stamped up to
 * REPLAY_SLACK_NS before it, and its own thread releases it within that
 * too: it came and went first (their acquisitions were stamped early).
 * Its hold is counted and its release marked EV_TAKEN; true if so. */
static bool came_and_went_first(struct replay *r, size_t k, const struct lock_state *l, int *rc)
{
	const struct lock_event *e = &r->ev[k];
	for (size_t i = 0; i < l->len; i++)
		if (l->h[i].tid == e->tid || e->ts_ns - l->h[i].since_ns > REPLAY_SLACK_NS)
			return false; /* recursion, or a holder from well before */
	for (size_t j = k; (j = slack_next(r, k, j)) < r->len;) {
		struct lock_event *rel = &r->ev[j];
		if (rel->type == EV_RELEASE && rel->tid == e->tid) {
			*rc = hold(r, l, e->op, rel->ts_ns - e->ts_ns);
			rel->type = EV_TAKEN;
			return true;
		}
	}
	return false;
}

/* Event ev[@k] of the replay. */
static int replay_event(struct replay *r, size_t k)
{
	const struct lock_event *e = &r->ev[k];
	struct lock_state *l = &r->locks[e->object];
	struct holder *h;
	int rc = 0;

	if (class_of(r->classes, e->object) == OBJ_OTHER)
		return 0; /* a semaphore given another value than 1 */
	switch (e->type) {
	case EV_RELEASE:
		return release(r, l, e);
	case EV_TAKEN:
		return 0;
	case EV_REQUEST: {
		const struct holder *by = held_against(l, e);
		if (!by)
			return 0;
		if (l->sem) {
			l->contended++;
			return sem_add(r, e->op_id, by->tid, NULL, e->object);
		}
		r->stats->contended_ops++;
		return pending_add(r->holders, e->op_id, by->tid);
	}
	case EV_ACQUIRE:
		l->taken = true;
		if (held_against(l, e)) { /* or stamped a little out of order */
			if ((rc = take_releases_ahead(r, k, l)))
				return rc;
			if (held_against(l, e) && came_and_went_first(r, k, l, &rc))
				return rc;
		}
		l->lock_like &= l->len == 0 || !l->sem; /* held already: a counting semaphore */
		if ((h = holder_of(l, e->tid))) {
			h->depth++;
			return 0;
		}
		return add_holder(l, (struct holder){ e->tid, e->ts_ns, e->op_id, e->op, e->write, 1 });
	}
	return 0;
}

/*
 * Attached (mtx collect -p): a lock whose first event of a thread is its
 * release was held by that thread since before the attach. It holds it
 * from the start of the replay, with no op that took it, so that the
 * requests it made wait have their holder. Each thread's first event of
 * each lock, by a walk of its events alone; those holders join their
 * locks in the order of those events.
 */
static int held_at_attach(struct replay *r, struct replay_threads *ts)
{
	size_t nr_objects = (size_t)r->classes->len, n = 0, cap = 0;
	uint32_t *seen = calloc(nr_objects ? nr_objects : 1, sizeof(*seen)); /* thread index + 1 */
	struct lock_event *first = NULL, e;
	int rc = seen ? 0 : -ENOMEM;
	for (size_t i = 0; i < ts->len && !rc; i++) {
		struct replay_thread *t = &ts->v[i];
		while (!rc && (rc = next_event(t, &e)) > 0) {
			rc = 0;
			if (e.object < 0 || (size_t)e.object >= nr_objects || seen[e.object] == i + 1)
				continue;
			seen[e.object] = (uint32_t)i + 1;
			if (e.type != EV_RELEASE || class_of(r->classes, e.object) != OBJ_LOCK)
				continue;
			struct lock_event *v = grow_array(first, &cap, n, sizeof(*v), 16);
			if (!v) {
				rc = -ENOMEM;
				break;
			}
			first = v;
			first[n++] = e;
		}
		t->next = 0; /* the replay makes them again */
		t->nr_pending = 0;
	}
	if (n) /* by lock, in the events' order */
		qsort(first, n, sizeof(*first), lock_event_cmp);
	for (size_t i = 0; i < n && !rc; i++)
		rc = add_holder(&r->locks[first[i].object], (struct holder){ first[i].tid, 0, -1, NULL, 1, 1 });
	free(seen);
	free(first);
	return rc;
}

/* The threads by their next event: a heap. */
struct event_heap {
	struct replay_thread **t;
	struct lock_event *head; /* each thread's next event, by heap slot */
	size_t len;
};

static bool heap_less(const struct event_heap *h, size_t a, size_t b)
{
	return event_cmp(&h->head[a], &h->head[b]) < 0;
}

static void heap_down(struct event_heap *h, size_t i)
{
	for (;;) {
		size_t m = i, l = 2 * i + 1;
		if (l < h->len && heap_less(h, l, m))
			m = l;
		if (l + 1 < h->len && heap_less(h, l + 1, m))
			m = l + 1;
		if (m == i)
			return;
		struct replay_thread *t = h->t[i];
		struct lock_event e = h->head[i];
		h->t[i] = h->t[m], h->head[i] = h->head[m];
		h->t[m] = t, h->head[m] = e;
		i = m;
	}
}

/* The next event of all the threads into *@e: 1, 0 at the end, or -errno. */
static int heap_pop(struct event_heap *h, struct lock_event *e)
{
	int rc;
	if (!h->len)
		return 0;
	*e = h->head[0];
	if ((rc = next_event(h->t[0], &h->head[0])) < 0)
		return rc;
	if (rc == 0) {
		h->t[0] = h->t[--h->len];
		h->head[0] = h->head[h->len];
	}
	heap_down(h, 0);
	return 1;
}

/*
 * Replay each lock's events: who held it at each request (@holders), and
 * each acquisition's hold time where its row lacks it (@holds: -1 to make
 * it NULL). Semaphores too: those that prove to be used as locks
 * (@sem_locks) keep theirs. @attached: the run began at an attach, with
 * locks held already. The threads' events are merged in the order above,
 * each processed once those up to REPLAY_SLACK_NS after it are at hand:
 * the memory is the threads' ops and each lock's state, not the events.
 */
static int replay_locks(struct replay_threads *ts, const struct object_classes *c, bool attached,
			struct pending_list *holders, struct pending_list *holds, struct pending_list *sem_locks,
			struct sync_resolve_stats *stats)
{
	struct replay r = { .classes = c, .holders = holders, .holds = holds, .stats = stats };
	struct event_heap heap = { 0 };
	struct lock_event e;
	bool *kept = NULL;
	int rc = 0, more = 1;

	for (size_t i = 0; i < ts->len; i++)
		sort_thread_ops(&ts->v[i]);
	r.locks = calloc((size_t)c->len, sizeof(*r.locks));
	heap.t = calloc(ts->len ? ts->len : 1, sizeof(*heap.t));
	heap.head = calloc(ts->len ? ts->len : 1, sizeof(*heap.head));
	if (!r.locks || !heap.t || !heap.head)
		rc = -ENOMEM;
	if (!rc && attached)
		rc = held_at_attach(&r, ts);
	for (size_t i = 0; i < ts->len && !rc; i++)
		if ((rc = next_event(&ts->v[i], &heap.head[heap.len])) > 0)
			heap.t[heap.len++] = &ts->v[i], rc = 0;
	for (size_t i = heap.len / 2; i-- > 0;)
		heap_down(&heap, i);
	while (!rc) {
		/* at hand: every event up to the slack after the first */
		while (more > 0 && (r.front == r.len || heap.len == 0 ||
				    heap.head[0].ts_ns - r.ev[r.front].ts_ns <= REPLAY_SLACK_NS)) {
			if ((more = heap_pop(&heap, &e)) <= 0)
				break;
			if (r.front > 4096 && r.front * 2 > r.len) { /* the processed ones go */
				memmove(r.ev, r.ev + r.front, (r.len - r.front) * sizeof(*r.ev));
				r.len -= r.front;
				r.front = 0;
			}
			struct lock_event *v = grow_array(r.ev, &r.cap, r.len, sizeof(*v), 1024);
			if (!v) {
				more = -ENOMEM;
				break;
			}
			r.ev = v;
			r.ev[r.len++] = e;
		}
		if (more < 0) {
			rc = more;
			break;
		}
		if (r.front == r.len)
			break;
		struct lock_state *l = &r.locks[r.ev[r.front].object];
		if (!l->started) {
			l->started = true;
			l->sem = class_of(c, r.ev[r.front].object) == OBJ_SEM;
			l->lock_like = true;
		}
		rc = replay_event(&r, r.front++);
	}
	/* the semaphores used as locks keep what their replay gave */
	if (!rc && r.nr_sem && !(kept = calloc((size_t)c->len, sizeof(*kept))))
		rc = -ENOMEM;
	for (int64_t id = 0; id < c->len && !rc; id++) {
		const struct lock_state *l = &r.locks[id];
		if (!l->sem || !l->taken || !l->lock_like)
			continue;
		if (kept)
			kept[id] = true;
		stats->contended_ops += l->contended;
		rc = pending_add(sem_locks, id, 0);
	}
	for (size_t i = 0; i < r.nr_sem && !rc; i++) {
		const struct sem_result *s = &r.sem[i];
		if (kept[s->object])
			rc = s->op ? give_hold(&r, s->op, s->value) : pending_add(holders, s->row, s->value);
	}
	/* a row that holds a hold the replay did not give it: NULL */
	for (size_t i = 0; i < ts->len && !rc; i++)
		for (size_t j = 0; j < ts->v[i].len && !rc; j++)
			if (ts->v[i].ops[j].written_hold >= 0 && !ts->v[i].ops[j].hold_given)
				rc = pending_add(holds, ts->v[i].ops[j].id, -1);
	for (int64_t id = 0; r.locks && id < c->len; id++)
		free(r.locks[id].h);
	free(r.locks);
	free(r.ev);
	free(r.sem);
	free(kept);
	free(heap.t);
	free(heap.head);
	return rc;
}

/* Mark the semaphores used as locks (sync_objects.used_as). */
static int mark_sem_locks(sqlite3 *db, const struct pending_list *sem_locks, struct sync_resolve_stats *stats,
			  char **err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "UPDATE sync_objects SET used_as = 'lock' WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
		return sql_fail(db, "used_as", err);
	for (size_t i = 0; i < sem_locks->len; i++) {
		sqlite3_bind_int64(st, 1, sem_locks->v[i].row);
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_finalize(st);
			return sql_fail(db, "used_as", err);
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	stats->sem_locks = sem_locks->len;
	return 0;
}

static int join_and_replay(sqlite3 *db, struct tl_capture *capture, struct sync_resolve_stats *stats, char **err)
{
	struct object_classes classes = { 0 };
	struct blocked_list blocked = { 0 };
	struct replay_threads threads = { 0 };
	struct pending_list relabel = { 0 }, waits = { 0 }, holders = { 0 }, holds = { 0 }, sem_locks = { 0 };
	struct op_reader reader = { 0 };
	struct op_row op;
	struct replay_op ro;
	int rc, more = 0;

	rc = load_object_classes(db, &classes, err);
	if (!rc)
		rc = load_blocked(db, &blocked, err);
	if (!rc)
		rc = op_reader_open(&reader, db, capture, err);
	while (!rc && (more = op_reader_next(&reader, db, &op, err)) > 0) {
		/* ops by id, from 1: how far the pass is, for the progress line */
		progress_count((uint64_t)op.id, (uint64_t)reader.last_id);
		if (blocked.len)
			claim_blocked(&blocked, op.tid, op.id, op.object, op.start_ns, op.end_ns);
		if (replay_op_of(&classes, &op, &ro))
			rc = replay_threads_add(&threads, op.tid, &ro);
		else if (op.hold_ns >= 0) /* a hold the replay cannot give it */
			rc = pending_add(&holds, op.id, -1);
	}
	if (!rc && more < 0)
		rc = more;
	op_reader_close(&reader);

	for (size_t i = 0; i < blocked.len && !rc; i++) {
		const struct blocked *b = &blocked.v[i];
		if (!b->op_id)
			continue;
		rc = pending_add(&relabel, b->row, b->op_object);
		if (!rc)
			rc = pending_add(&waits, b->op_id,
					 (b->end_ns < b->op_end_ns ? b->end_ns : b->op_end_ns) - b->start_ns);
	}
	spill_free(blocked.v);
	if (!rc)
		rc = replay_locks(&threads, &classes,
				  db_query_int(db, "SELECT COUNT(*) FROM meta WHERE key = 'attach_ns'", 0), &holders, &holds,
				  &sem_locks, stats);
	replay_threads_free(&threads);
	free(classes.of);
	if (!rc)
		rc = mark_sem_locks(db, &sem_locks, stats, err);

	progress_part("writing waits and holders");
	if (!rc)
		rc = apply(db, capture, TL_AMEND_BLOCKED_SYNC,
			   "UPDATE thread_states SET state = 'blocked_sync', object_id = ? WHERE rowid = ?", &relabel, err);
	if (!rc)
		rc = apply_ops(db, capture, &waits, &holders, &holds, err);
	if (!rc) {
		stats->blocked_states = relabel.len;
		stats->blocked_ops = count_rows(&waits);
	}
	spill_free(relabel.v);
	spill_free(waits.v);
	spill_free(holders.v);
	spill_free(holds.v);
	spill_free(sem_locks.v);
	return rc;
}

/* ---- pass 0: calls that did not return ------------------------------ */

/* Their thread died inside them (unfinished 'thread_exit', written with
 * end_ns = start_ns): they end where the thread ended. A call a handler
 * jumped out of ('siglongjmp') already ends at the jump. */
static int end_unreturned(sqlite3 *db, char **err)
{
	if (sqlite3_exec(db, "UPDATE sync_ops SET end_ns = COALESCE((SELECT MAX(t.end_ns) FROM threads t "
			     "WHERE t.tid = sync_ops.tid AND t.start_ns <= sync_ops.start_ns "
			     "AND t.end_ns >= sync_ops.start_ns), end_ns) WHERE unfinished = 'thread_exit'",
			 NULL, NULL, NULL) != SQLITE_OK)
		return sql_fail(db, "calls that did not return", err);
	return 0;
}

/* The wrappers measure their overhead on the wall clock (but for a wait
 * for a full lane, which the library counts on the thread's CPU clock);
 * the part their thread spent off a CPU before the call (preempted) is no
 * instrumentation CPU time (seed 004 charges a thread's clock
 * only for its own execution), so it is taken out where the thread's
 * states show it. Only ops whose own overhead is past a few microseconds
 * are looked at: the others cannot have been off a CPU for long. */
static int overhead_on_cpu(sqlite3 *db, char **err)
{
	char sql[1024];

	if (!db_has_column(db, "sync_ops", "overhead_ns"))
		return 0;
	snprintf(sql, sizeof(sql),
		 "UPDATE sync_ops SET overhead_ns = MAX(COALESCE(injected_ns, 0), overhead_ns - ("
		 "SELECT TOTAL(MIN(s.end_ns, sync_ops.start_ns) - MAX(s.start_ns, sync_ops.start_ns - sync_ops.overhead_ns)) "
		 "FROM thread_states s WHERE s.tid = sync_ops.tid AND s.state != 'running' "
		 "AND s.start_ns < sync_ops.start_ns AND s.end_ns > sync_ops.start_ns - sync_ops.overhead_ns "
		 /* states tile the thread's life: none before the one the wrapper
		  * began in overlaps it, and the index finds that one at once */
		 "AND s.start_ns >= COALESCE((SELECT MAX(p.start_ns) FROM thread_states p WHERE p.tid = sync_ops.tid "
		 "AND p.start_ns <= sync_ops.start_ns - sync_ops.overhead_ns), 0))) "
		 /* overhead_ns > bound: the partial index sync_ops_slow_wrapper */
		 "WHERE overhead_ns > %d AND overhead_ns - COALESCE(injected_ns, 0) > %d",
		 SYNC_SLOW_WRAPPER_NS, SYNC_SLOW_WRAPPER_NS);
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return sql_fail(db, "the wrappers' time off the CPU", err);
	return 0;
}

int sync_resolve(sqlite3 *db, struct tl_capture *capture, const int64_t *lifetime_ids, size_t n,
		 struct sync_resolve_stats *stats, char **err)
{
	int rc;
	memset(stats, 0, sizeof(*stats));
	*err = NULL;
	uint64_t t0 = clock_now_ns();
	progress_part("lifetimes");
	rc = end_unreturned(db, err);
	if (!rc)
		rc = overhead_on_cpu(db, err);
	if (!rc) /* the summarized ops a split could move are rows first */
		rc = sync_summary_lifetimes(db, capture, lifetime_ids, n, err);
	if (!rc)
		rc = split_lifetimes(db, capture, lifetime_ids, n, stats, err);
	log_debug("sync tables: lifetimes in %lld ms", (long long)((clock_now_ns() - t0) / 1000000));
	progress_part("waits and holders");
	if (!rc)
		rc = join_and_replay(db, capture, stats, err);
	log_debug("sync tables: blocked ops and holders at %lld ms", (long long)((clock_now_ns() - t0) / 1000000));
	if (rc == -ENOMEM && !*err)
		error_set(err, "finishing the sync tables: out of memory");
	return rc;
}
