/* collector/sync-resolve.c - see sync-resolve.h. */
#include "config.h"
#include "collector/sync-resolve.h"
#include "src/db.h"
#include "src/grow.h"

#include <errno.h>
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
	if (asprintf(err, "finishing the sync tables (%s): %s", what, sqlite3_errmsg(db)) < 0)
		*err = NULL;
	return sqlite3_errcode(db) == SQLITE_FULL ? -ENOSPC : -EIO;
}

/* Run @sql once per pending entry, binding (value, row). */
static int apply(sqlite3 *db, const char *sql, const struct pending_list *l, char **err)
{
	sqlite3_stmt *st;
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
	}
	sqlite3_finalize(st);
	return 0;
}

static int op_is(const char *op, const char *const *names)
{
	for (; *names; names++)
		if (!strcmp(op, *names))
			return 1;
	return 0;
}

static const char *const lifetime_begins[] = { "init", "create", "open", NULL };
static const char *const lifetime_ends[] = { "destroy", "join", "close", NULL };

/* ---- pass 1: lifetimes ---------------------------------------------- */

struct split {
	int64_t key, new_id, from_ns;
};

static int split_lifetimes(sqlite3 *db, const int64_t *ids, size_t n,
			   struct sync_resolve_stats *stats, char **err)
{
	sqlite3_stmt *ops = NULL, *obj = NULL, *add = NULL, *end = NULL;
	struct pending_list moved = { 0 };
	struct split *splits = NULL;
	size_t nr_splits = 0, splits_cap = 0;
	int64_t next_id;
	int rc = 0;

	/* The first op in time, not the first drained, created the object. */
	if (sqlite3_exec(db, "UPDATE sync_objects SET created_ns = (SELECT MIN(start_ns) FROM sync_ops "
			     "WHERE object_id = sync_objects.id)", NULL, NULL, NULL) != SQLITE_OK)
		return sql_fail(db, "created_ns", err);
	if (n == 0)
		return 0;
	next_id = db_query_int(db, "SELECT COALESCE(MAX(id), 0) FROM sync_objects", -1) + 1;
	if (next_id <= 0)
		return sql_fail(db, "max id", err);
	if (sqlite3_prepare_v2(db, "SELECT id, op, start_ns, end_ns FROM sync_ops WHERE object_id = ? "
				   "ORDER BY start_ns, id", -1, &ops, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT kind, addr, pid FROM sync_objects WHERE id = ?", -1, &obj, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO sync_objects(id, kind, addr, pid, created_ns) VALUES (?,?,?,?,?)",
			       -1, &add, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "UPDATE sync_objects SET destroyed_ns = ? WHERE id = ?", -1, &end, NULL) != SQLITE_OK) {
		rc = sql_fail(db, "prepare", err);
		goto out;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		int64_t key = ids[i], cur = key;
		int seen = 0, ended = 0;
		char kind[16] = "";
		int64_t addr = 0, pid = 0;

		sqlite3_bind_int64(obj, 1, key);
		if (sqlite3_step(obj) == SQLITE_ROW) {
			snprintf(kind, sizeof(kind), "%s", (const char *)sqlite3_column_text(obj, 0));
			addr = sqlite3_column_int64(obj, 1);
			pid = sqlite3_column_int64(obj, 2);
		}
		sqlite3_reset(obj);
		sqlite3_bind_int64(ops, 1, key);
		while (!rc && sqlite3_step(ops) == SQLITE_ROW) {
			int64_t op_id = sqlite3_column_int64(ops, 0);
			const char *op = (const char *)sqlite3_column_text(ops, 1);
			int64_t start = sqlite3_column_int64(ops, 2), stop = sqlite3_column_int64(ops, 3);

			if (seen && (ended || op_is(op, lifetime_begins))) {
				struct split *s = grow_array(splits, &splits_cap, nr_splits, sizeof(*s), 16);
				if (!s) {
					rc = -ENOMEM;
					break;
				}
				splits = s;
				cur = next_id++;
				splits[nr_splits++] = (struct split){ key, cur, start };
				sqlite3_bind_int64(add, 1, cur);
				sqlite3_bind_text(add, 2, kind, -1, SQLITE_TRANSIENT);
				sqlite3_bind_int64(add, 3, addr);
				sqlite3_bind_int64(add, 4, pid);
				sqlite3_bind_int64(add, 5, start);
				if (sqlite3_step(add) != SQLITE_DONE)
					rc = sql_fail(db, "new lifetime", err);
				sqlite3_reset(add);
				stats->lifetimes_split++;
				ended = 0;
			}
			if (cur != key)
				rc = rc ? rc : pending_add(&moved, op_id, cur);
			if (op_is(op, lifetime_ends)) {
				sqlite3_bind_int64(end, 1, stop);
				sqlite3_bind_int64(end, 2, cur);
				if (sqlite3_step(end) != SQLITE_DONE)
					rc = sql_fail(db, "destroyed_ns", err);
				sqlite3_reset(end);
				ended = 1;
			}
			seen = 1;
		}
		sqlite3_reset(ops);
	}
	if (!rc)
		rc = apply(db, "UPDATE sync_ops SET object_id = ? WHERE id = ?", &moved, err);
	/* A cond wait names its mutex by id: move it to the mutex's lifetime.
	 * Latest split first, so that each wait ends up in the lifetime it
	 * fell into. */
	if (!rc && nr_splits) {
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(db, "UPDATE sync_ops SET arg = ?1 WHERE arg = ?2 AND start_ns >= ?3 "
					   "AND op IN ('wait', 'timedwait') AND object_id IN "
					   "(SELECT id FROM sync_objects WHERE kind = 'cond') "
					   "AND (SELECT kind FROM sync_objects WHERE id = ?2) = 'mutex'",
				       -1, &st, NULL) != SQLITE_OK) {
			rc = sql_fail(db, "cond mutex", err);
			goto out;
		}
		for (size_t i = nr_splits; i-- > 0 && !rc;) {
			sqlite3_bind_int64(st, 1, splits[i].new_id);
			sqlite3_bind_int64(st, 2, splits[i].key);
			sqlite3_bind_int64(st, 3, splits[i].from_ns);
			if (sqlite3_step(st) != SQLITE_DONE)
				rc = sql_fail(db, "cond mutex", err);
			sqlite3_reset(st);
		}
		sqlite3_finalize(st);
	}
out:
	sqlite3_finalize(ops);
	sqlite3_finalize(obj);
	sqlite3_finalize(add);
	sqlite3_finalize(end);
	free(moved.v);
	free(splits);
	return rc;
}

/* ---- pass 2: join with the kernel's blocked intervals ---------------- */

static int join_blocked(sqlite3 *db, struct sync_resolve_stats *stats, char **err)
{
	sqlite3_stmt *states = NULL, *op = NULL;
	struct pending_list relabel = { 0 }, waits = { 0 };
	int rc = 0, step;

	if (sqlite3_prepare_v2(db, "SELECT rowid, tid, start_ns, end_ns FROM thread_states "
				   "WHERE state = 'blocked'", -1, &states, NULL) != SQLITE_OK ||
	    /* The innermost op under way when the thread blocked: the latest
	     * one started that has not ended. Ops nest only in signal handlers
	     * (at most LANE_MAX_DEPTH deep), so the few latest suffice and a
	     * thread blocked outside any op costs one short index walk. */
	    sqlite3_prepare_v2(db, "SELECT id, object_id, end_ns FROM (SELECT id, object_id, end_ns "
				   "FROM sync_ops WHERE tid = ?1 AND start_ns <= ?2 "
				   "ORDER BY start_ns DESC, id DESC LIMIT 16) WHERE end_ns > ?2 LIMIT 1",
			       -1, &op, NULL) != SQLITE_OK) {
		rc = sql_fail(db, "prepare", err);
		goto out;
	}
	while (!rc && (step = sqlite3_step(states)) == SQLITE_ROW) {
		int64_t row = sqlite3_column_int64(states, 0);
		int64_t start = sqlite3_column_int64(states, 2), stop = sqlite3_column_int64(states, 3);
		sqlite3_bind_int64(op, 1, sqlite3_column_int64(states, 1));
		sqlite3_bind_int64(op, 2, start);
		if (sqlite3_step(op) == SQLITE_ROW) {
			int64_t op_end = sqlite3_column_int64(op, 2);
			int64_t overlap = (stop < op_end ? stop : op_end) - start;
			rc = pending_add(&relabel, row, sqlite3_column_int64(op, 1));
			if (!rc)
				rc = pending_add(&waits, sqlite3_column_int64(op, 0), overlap);
		}
		sqlite3_reset(op);
	}
	if (!rc && step != SQLITE_DONE && step != SQLITE_ROW)
		rc = sql_fail(db, "thread_states", err);
	sqlite3_finalize(states);
	states = NULL;
	if (!rc)
		rc = apply(db, "UPDATE thread_states SET state = 'blocked_sync', object_id = ? WHERE rowid = ?",
			   &relabel, err);
	if (!rc)
		rc = apply(db, "UPDATE sync_ops SET blocked = 1, wait_ns = wait_ns + ? WHERE id = ?", &waits, err);
	if (!rc) {
		stats->blocked_states = relabel.len;
		stats->blocked_ops = (uint64_t)db_query_int(db, "SELECT COUNT(*) FROM sync_ops WHERE blocked", 0);
	}
out:
	sqlite3_finalize(states);
	sqlite3_finalize(op);
	free(relabel.v);
	free(waits.v);
	return rc;
}

/* ---- pass 3: who held each lock, and for how long -------------------- */

enum lock_event { EV_RELEASE = 0, EV_REQUEST = 1, EV_ACQUIRE = 2 };

struct holder {
	int64_t tid, since_ns, op_id;
	int write; /* exclusive: mutex, spinlock, rwlock write */
	int depth; /* recursive acquisitions by the same thread */
};

struct lock_state {
	int64_t object;
	struct holder *h;
	size_t len, cap;
};

static const char *const read_ops[] = { "rdlock", "tryrdlock", "timedrdlock", NULL };

/*
 * The events of every lock, in order: a release at an unlock's start (or a
 * cond wait's start, for its mutex), a request at an acquiring op's start,
 * an acquisition at its end when it succeeded (a cond wait always takes its
 * mutex back). Ties: release, then request, then acquisition.
 */
static const char lock_events_sql[] =
	"WITH lk AS (SELECT op.id, op.tid, op.object_id, op.op, op.start_ns, op.end_ns, op.result "
	"            FROM sync_ops op JOIN sync_objects o ON o.id = op.object_id "
	"            WHERE o.kind IN ('mutex', 'rwlock', 'spinlock')), "
	"cw AS (SELECT op.id, op.tid, op.arg, op.start_ns, op.end_ns FROM sync_ops op "
	"       JOIN sync_objects o ON o.id = op.object_id "
	"       WHERE o.kind = 'cond' AND op.op IN ('wait', 'timedwait')) "
	"SELECT object_id, start_ns, 0, tid, id, op FROM lk WHERE op = 'unlock' "
	"UNION ALL SELECT object_id, start_ns, 1, tid, id, op FROM lk WHERE op NOT IN ('unlock', 'init', 'destroy') "
	"UNION ALL SELECT object_id, end_ns, 2, tid, id, op FROM lk "
	"          WHERE op NOT IN ('unlock', 'init', 'destroy') AND result = 0 "
	"UNION ALL SELECT arg, start_ns, 0, tid, id, 'wait' FROM cw "
	"UNION ALL SELECT arg, end_ns, 2, tid, id, 'wait' FROM cw "
	"ORDER BY 1, 2, 3";

static struct holder *holder_of(struct lock_state *l, int64_t tid)
{
	for (size_t i = l->len; i-- > 0;)
		if (l->h[i].tid == tid)
			return &l->h[i];
	return NULL;
}

static int find_holders(sqlite3 *db, struct sync_resolve_stats *stats, char **err)
{
	sqlite3_stmt *ev = NULL;
	struct pending_list holders = { 0 }, holds = { 0 };
	struct lock_state l = { .object = -1 };
	int rc = 0, step;

	if (sqlite3_prepare_v2(db, lock_events_sql, -1, &ev, NULL) != SQLITE_OK)
		return sql_fail(db, "lock events", err);
	while (!rc && (step = sqlite3_step(ev)) == SQLITE_ROW) {
		int64_t object = sqlite3_column_int64(ev, 0), ts = sqlite3_column_int64(ev, 1);
		int type = sqlite3_column_int(ev, 2);
		int64_t tid = sqlite3_column_int64(ev, 3), op_id = sqlite3_column_int64(ev, 4);
		int write = !op_is((const char *)sqlite3_column_text(ev, 5), read_ops);
		struct holder *h;

		if (object != l.object) {
			l.object = object;
			l.len = 0;
		}
		switch (type) {
		case EV_RELEASE:
			h = holder_of(&l, tid);
			if (!h)
				break; /* unlock of a lock this thread did not take */
			if (--h->depth > 0)
				break;
			rc = pending_add(&holds, h->op_id, ts - h->since_ns);
			*h = l.h[--l.len];
			break;
		case EV_REQUEST:
			for (size_t i = 0; i < l.len; i++) {
				if (l.h[i].tid != tid && (write || l.h[i].write)) {
					rc = pending_add(&holders, op_id, l.h[i].tid);
					stats->contended_ops++;
					break;
				}
			}
			break;
		case EV_ACQUIRE:
			h = holder_of(&l, tid);
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
			l.h[l.len++] = (struct holder){ tid, ts, op_id, write, 1 };
			break;
		}
	}
	if (!rc && step != SQLITE_DONE && step != SQLITE_ROW)
		rc = sql_fail(db, "lock events", err);
	sqlite3_finalize(ev);
	if (!rc)
		rc = apply(db, "UPDATE sync_ops SET holder_tid = ? WHERE id = ?", &holders, err);
	if (!rc)
		rc = apply(db, "UPDATE sync_ops SET hold_ns = ? WHERE id = ?", &holds, err);
	free(l.h);
	free(holders.v);
	free(holds.v);
	return rc;
}

int sync_resolve(sqlite3 *db, const int64_t *lifetime_ids, size_t n,
		 struct sync_resolve_stats *stats, char **err)
{
	int rc;
	memset(stats, 0, sizeof(*stats));
	*err = NULL;
	rc = split_lifetimes(db, lifetime_ids, n, stats, err);
	if (!rc)
		rc = join_blocked(db, stats, err);
	if (!rc)
		rc = find_holders(db, stats, err);
	if (rc == -ENOMEM && !*err && asprintf(err, "finishing the sync tables: out of memory") < 0)
		*err = NULL;
	return rc;
}
