/* collector/sync/resolve.c - see sync-resolve.h. */
#include "config.h"
#include "collector/sync/resolve.h"
#include "collector/sync/summary.h"
#include "src/clock.h"
#include "src/db.h"
#include "src/grow.h"
#include "src/log.h"
#include "src/progress.h"
#include "src/radix-sort.h"
#include "src/sorted.h"
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
	struct pending *v = grow_array(l->v, &l->cap, l->len, sizeof(*v), 1024);
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
 * Of the replay's @holds, keep only those the rows do not hold already
 * (@written: the rows' hold_ns, in row order, as the scan read them), and
 * add a NULL (-1) for each row that holds one the replay did not give it.
 * Most rows were written with the replay's value (collector/sync/objects.c).
 */
static int holds_to_change(struct pending_list *holds, const struct pending_list *written)
{
	struct pending_list change = { 0 };
	size_t i = 0, j = 0;
	int rc = 0;

	if (sort_pending(holds))
		return -ENOMEM;
	while (!rc && (i < holds->len || j < written->len)) {
		const struct pending *h = i < holds->len ? &holds->v[i] : NULL;
		const struct pending *wr = j < written->len ? &written->v[j] : NULL;
		if (h && wr && h->row == wr->row) {
			if (h->value != wr->value)
				rc = pending_add(&change, h->row, h->value);
			i++, j++;
		} else if (h && (!wr || h->row < wr->row)) {
			rc = pending_add(&change, h->row, h->value);
			i++;
		} else {
			rc = pending_add(&change, wr->row, -1);
			j++;
		}
	}
	free(holds->v);
	*holds = rc ? (struct pending_list){ 0 } : change;
	if (rc)
		free(change.v);
	return rc;
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
	free(moved.v);
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
	free(moved.v);
	free(splits);
	free(ops);
	free(cuts);
	return rc;
}

/* ---- passes 2 and 3: one scan of sync_ops ------------------------------ */

/*
 * Both passes read every op once, in the order the table is stored (a plain
 * scan: reading through an index costs a table lookup per row), and keep in
 * memory only what they must sort: the blocked intervals (pass 2) and the
 * lock events (pass 3, ~1.5 per lock op, 32 bytes each).
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
		struct blocked *v = grow_array(l->v, &l->cap, l->len, sizeof(*v), 1024);
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
 * The events of every lock: a release at an unlock's start (or a cond
 * wait's start, for its mutex), a request at an acquiring op's start, an
 * acquisition at its end when it succeeded (a cond wait always takes its
 * mutex back). Sorted by lock, time, then release < request < acquisition,
 * then op id (sort_lock_events).
 */
struct lock_event {
	int64_t ts_ns, op_id;
	int32_t object, tid;
	uint8_t type, write;
};

struct lock_events {
	struct lock_event *v;
	size_t len, cap;
};

static int lock_event_add(struct lock_events *l, int64_t object, int64_t ts, enum lock_event_type type,
			  int64_t tid, int64_t op_id, int write)
{
	struct lock_event *v = grow_array(l->v, &l->cap, l->len, sizeof(*v), 4096);
	if (!v)
		return -ENOMEM;
	l->v = v;
	l->v[l->len++] = (struct lock_event){ ts, op_id, (int32_t)object, (int32_t)tid, (uint8_t)type,
					      (uint8_t)write };
	return 0;
}

/* The events come in op id order (the scan's ORDER BY id), which the
 * stable sort keeps among ties. qsort took 3-4 s of a 10 M-event run's
 * 18 s here. */
static int sort_lock_events(struct lock_events *l)
{
	const struct radix_key keys[] = {
		RADIX_KEY(struct lock_event, object),
		RADIX_KEY(struct lock_event, ts_ns),
		RADIX_KEY(struct lock_event, type),
	};
	return radix_sort(l->v, l->len, sizeof(*l->v), keys, sizeof(keys) / sizeof(keys[0]));
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

/* Pass 3's events of one op. A semaphore's are a lock's: its wait
 * (trywait, timedwait) requests and, when it succeeds, acquires; its post
 * releases. Replayed, they tell whether it was used as a lock. */
static int add_lock_events(struct lock_events *l, struct object_classes *c, const struct op_row *op)
{
	const char *name = op->name;
	int64_t object = op->object;
	int rc = 0;

	if (!name)
		return 0;
	switch (class_of(c, object)) {
	case OBJ_LOCK:
		if (!strcmp(name, "unlock"))
			return lock_event_add(l, object, op->start_ns, EV_RELEASE, op->tid, op->id, 0);
		if (op_is(name, not_acquiring))
			return 0;
		rc = lock_event_add(l, object, op->start_ns, EV_REQUEST, op->tid, op->id, !op_is(name, read_ops));
		if (!rc && op->returned && op->result == 0)
			rc = lock_event_add(l, object, op->end_ns, EV_ACQUIRE, op->tid, op->id, !op_is(name, read_ops));
		return rc;
	case OBJ_COND:
		if ((strcmp(name, "wait") && strcmp(name, "timedwait")) || !op->has_arg)
			return 0;
		object = op->arg; /* the mutex */
		rc = lock_event_add(l, object, op->start_ns, EV_RELEASE, op->tid, op->id, 0);
		/* it takes the mutex back, unless its thread died waiting */
		if (rc || !op->returned)
			return rc;
		return lock_event_add(l, object, op->end_ns, EV_ACQUIRE, op->tid, op->id, 1);
	case OBJ_SEM:
		if (op_is(name, sem_inits)) {
			/* arg: the value it was given (sem_open: 0 without O_CREAT) */
			if (!op->has_arg || op->arg != 1)
				c->of[object] = OBJ_OTHER;
			return 0;
		}
		if (!strcmp(name, "post"))
			return lock_event_add(l, object, op->start_ns, EV_RELEASE, op->tid, op->id, 0);
		if (!op_is(name, sem_takes))
			return 0;
		rc = lock_event_add(l, object, op->start_ns, EV_REQUEST, op->tid, op->id, 1);
		if (!rc && op->returned && op->result == 0)
			rc = lock_event_add(l, object, op->end_ns, EV_ACQUIRE, op->tid, op->id, 1);
		return rc;
	default:
		return 0;
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
	/* ORDER BY the rowid: the plain scan, and the order sort_lock_events
	 * counts on. */
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

struct holder {
	int64_t tid, since_ns, op_id;
	int write; /* exclusive: mutex, spinlock, rwlock write */
	int depth; /* recursive acquisitions by the same thread */
};

struct lock_state {
	int64_t object;
	struct holder *h;
	size_t len, cap;
	/* A semaphore: what its replay added (dropped unless it was used as
	 * a lock), and whether it was: taken, and never posted by a thread
	 * that did not hold it nor taken by one while held (by it or
	 * another: a binary semaphore). */
	bool sem, taken, lock_like;
	size_t holders_from, holds_from;
	uint64_t contended_from;
};

static struct holder *holder_of(struct lock_state *l, int64_t tid)
{
	for (size_t i = l->len; i-- > 0;)
		if (l->h[i].tid == tid)
			return &l->h[i];
	return NULL;
}

/* The replay of @l's semaphore is over: keep what it added if it was used
 * as a lock (and note it in @sem_locks), else take it back. */
static int end_sem(const struct lock_state *l, struct pending_list *holders, struct pending_list *holds,
		   struct pending_list *sem_locks, struct sync_resolve_stats *stats)
{
	if (!l->sem)
		return 0;
	if (l->taken && l->lock_like)
		return pending_add(sem_locks, l->object, 0);
	holders->len = l->holders_from;
	holds->len = l->holds_from;
	stats->contended_ops = l->contended_from;
	return 0;
}

/* @e releases @l: the hold of its thread's outermost acquisition ends. */
static int release(struct lock_state *l, const struct lock_event *e, struct pending_list *holds)
{
	struct holder *h = holder_of(l, e->tid);
	l->lock_like &= h != NULL || !l->sem; /* a post by a thread that did not take it */
	if (!h || --h->depth > 0)
		return 0; /* unlock of a lock this thread did not take, or recursion */
	/* held since before the attach: no op of it took it, no hold row */
	int rc = h->op_id < 0 ? 0 : pending_add(holds, h->op_id, e->ts_ns - h->since_ns);
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

/* Whether ev[@j] is of ev[@k]'s lock and stamped at most REPLAY_SLACK_NS
 * after it. */
static bool within_slack(const struct lock_events *ev, size_t k, size_t j)
{
	return j < ev->len && ev->v[j].object == ev->v[k].object && ev->v[j].ts_ns - ev->v[k].ts_ns <= REPLAY_SLACK_NS;
}

/* The acquisition ev[@k] finds its lock held by another thread: the
 * holders' releases stamped up to REPLAY_SLACK_NS after it came first
 * (they let it happen); each is taken now and marked EV_TAKEN. */
static int take_releases_ahead(struct lock_events *ev, size_t k, struct lock_state *l, struct pending_list *holds)
{
	const struct lock_event *e = &ev->v[k];
	int rc = 0;
	for (size_t j = k + 1; !rc && within_slack(ev, k, j) && held_against(l, e); j++) {
		struct lock_event *r = &ev->v[j];
		if (r->type != EV_RELEASE || r->tid == e->tid || !holder_of(l, r->tid))
			continue;
		rc = release(l, r, holds);
		r->type = EV_TAKEN;
	}
	return rc;
}

/* The acquisition ev[@k] finds its lock taken by others stamped up to
 * REPLAY_SLACK_NS before it, and its own thread releases it within that
 * too: it came and went first (their acquisitions were stamped early).
 * Its hold is counted and its release marked EV_TAKEN; true if so. */
static bool came_and_went_first(struct lock_events *ev, size_t k, const struct lock_state *l,
				struct pending_list *holds, int *rc)
{
	const struct lock_event *e = &ev->v[k];
	for (size_t i = 0; i < l->len; i++)
		if (l->h[i].tid == e->tid || e->ts_ns - l->h[i].since_ns > REPLAY_SLACK_NS)
			return false; /* recursion, or a holder from well before */
	for (size_t j = k + 1; within_slack(ev, k, j); j++) {
		struct lock_event *r = &ev->v[j];
		if (r->type == EV_RELEASE && r->tid == e->tid) {
			*rc = pending_add(holds, e->op_id, r->ts_ns - e->ts_ns);
			r->type = EV_TAKEN;
			return true;
		}
	}
	return false;
}

/*
 * Attached (mtx collect -p): a lock whose first event of a thread, from
 * ev[@k] on, is its release was held by that thread since before the
 * attach. It holds it from the start of the replay, with no op that took
 * it, so that the requests it made wait have their holder.
 */
static int held_at_attach(struct lock_state *l, const struct lock_events *ev, size_t k)
{
	int32_t *seen = NULL; /* the threads whose first event went by */
	size_t nr_seen = 0, cap_seen = 0;
	int rc = 0;
	for (size_t j = k; j < ev->len && ev->v[j].object == ev->v[k].object && !rc; j++) {
		const struct lock_event *e = &ev->v[j];
		struct holder *h;
		int32_t *more;
		size_t i = 0;
		while (i < nr_seen && seen[i] != e->tid)
			i++;
		if (i < nr_seen)
			continue;
		if (!(more = grow_array(seen, &cap_seen, nr_seen, sizeof(*seen), 16))) {
			rc = -ENOMEM;
			break;
		}
		seen = more;
		seen[nr_seen++] = e->tid;
		if (e->type != EV_RELEASE)
			continue;
		if (!(h = grow_array(l->h, &l->cap, l->len, sizeof(*h), 8))) {
			rc = -ENOMEM;
			break;
		}
		l->h = h;
		l->h[l->len++] = (struct holder){ e->tid, 0, -1, 1, 1 };
	}
	free(seen);
	return rc;
}

/* Replay each lock's events: who held it at each request (@holders), and
 * each acquisition's hold time (@holds). Semaphores too: those that prove
 * to be used as locks (@sem_locks) keep theirs. @attached: the run began
 * at an attach, with locks held already. */
static int replay_locks(struct lock_events *ev, const struct object_classes *c, bool attached,
			struct pending_list *holders, struct pending_list *holds, struct pending_list *sem_locks,
			struct sync_resolve_stats *stats)
{
	struct lock_state l = { .object = -1 };
	int rc = 0;

	for (size_t k = 0; k < ev->len && !rc; k++) {
		const struct lock_event *e = &ev->v[k];
		struct holder *h;

		if (e->object != l.object) {
			if ((rc = end_sem(&l, holders, holds, sem_locks, stats)))
				break;
			l.object = e->object;
			l.len = 0;
			l.sem = class_of(c, e->object) == OBJ_SEM;
			l.taken = false;
			l.lock_like = true;
			l.holders_from = holders->len;
			l.holds_from = holds->len;
			l.contended_from = stats->contended_ops;
			if (attached && !l.sem && (rc = held_at_attach(&l, ev, k)))
				break;
		}
		if (class_of(c, e->object) == OBJ_OTHER)
			continue; /* a semaphore given another value than 1 */
		switch (e->type) {
		case EV_RELEASE:
			rc = release(&l, e, holds);
			break;
		case EV_TAKEN:
			break;
		case EV_REQUEST: {
			const struct holder *by = held_against(&l, e);
			if (by) {
				rc = pending_add(holders, e->op_id, by->tid);
				stats->contended_ops++;
			}
			break;
		}
		case EV_ACQUIRE:
			l.taken = true;
			if (held_against(&l, e)) { /* or stamped a little out of order */
				if ((rc = take_releases_ahead(ev, k, &l, holds)))
					break;
				if (held_against(&l, e) && came_and_went_first(ev, k, &l, holds, &rc))
					break;
			}
			l.lock_like &= l.len == 0 || !l.sem; /* held already: a counting semaphore */
			h = holder_of(&l, e->tid);
			if (h) {
				h->depth++;
				break;
			}
			h = grow_array(l.h, &l.cap, l.len, sizeof(*h), 8);
			if (!h) {
				rc = -ENOMEM;
				break;
			}
			l.h = h;
			l.h[l.len++] = (struct holder){ e->tid, e->ts_ns, e->op_id, e->write, 1 };
			break;
		}
	}
	if (!rc)
		rc = end_sem(&l, holders, holds, sem_locks, stats);
	free(l.h);
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
	struct lock_events events = { 0 };
	struct pending_list relabel = { 0 }, waits = { 0 }, holders = { 0 }, holds = { 0 }, sem_locks = { 0 };
	struct pending_list written_holds = { 0 };
	struct op_reader reader = { 0 };
	struct op_row op;
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
		rc = add_lock_events(&events, &classes, &op);
		if (!rc && op.hold_ns >= 0)
			rc = pending_add(&written_holds, op.id, op.hold_ns);
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
	free(blocked.v);
	if (!rc)
		rc = sort_lock_events(&events);
	if (!rc)
		rc = replay_locks(&events, &classes, db_query_int(db, "SELECT COUNT(*) FROM meta WHERE key = 'attach_ns'", 0),
				  &holders, &holds, &sem_locks, stats);
	free(events.v);
	free(classes.of);
	if (!rc)
		rc = mark_sem_locks(db, &sem_locks, stats, err);
	if (!rc)
		rc = holds_to_change(&holds, &written_holds);
	free(written_holds.v);

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
	free(relabel.v);
	free(waits.v);
	free(holders.v);
	free(holds.v);
	free(sem_locks.v);
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
