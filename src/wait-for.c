/*
 * src/wait-for.c - for whom each wait on a sync object waited (wait_for).
 *
 * A thread blocked on a lock waits for the lock's holder (sync_ops.holder_tid,
 * found when the run was finalized); one blocked on a semaphore, condvar,
 * barrier or join waits for whoever wakes it (state_causes.waker_tid). For
 * that other thread we add up what it did during the wait, from its own
 * states, and which object it was itself blocked on longest: the next link
 * of the wait-for chain that `mtx report waits` follows.
 */
#include "config.h"
#include "src/analysis.h"
#include "src/db.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct wait_pass {
	sqlite3_stmt *waits, *states_before, *holder_op, *waker_op, *insert;
};

/* What @tid did within [s, e): time running, runnable and waiting, and the
 * object it was blocked on longest (-1 if none). Its states tile its
 * lifetime, so walking back from e stops at the first that ends by s. */
static void activity(struct wait_pass *p, int64_t tid, int64_t s, int64_t e, int64_t out[3], int64_t *object_id)
{
	sqlite3_stmt *st = p->states_before;
	int64_t best = 0;
	*object_id = -1;
	out[0] = out[1] = out[2] = 0;
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, tid);
	sqlite3_bind_int64(st, 2, e);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t a = sqlite3_column_int64(st, 0), b = sqlite3_column_int64(st, 1);
		const char *state = (const char *)sqlite3_column_text(st, 2);
		if (b <= s)
			break;
		int64_t len = (b < e ? b : e) - (a > s ? a : s);
		if (!strcmp(state, "running"))
			out[0] += len;
		else if (!strcmp(state, "runnable"))
			out[1] += len;
		else {
			out[2] += len;
			if (sqlite3_column_type(st, 3) != SQLITE_NULL && len > best) {
				best = len;
				*object_id = sqlite3_column_int64(st, 3);
			}
		}
	}
}

/* The callsite of the first row of @st bound to (@a, @b, @c), or -1. */
static int64_t callsite_of(sqlite3_stmt *st, int64_t a, int64_t b, int64_t c)
{
	int64_t v = -1;
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, a);
	sqlite3_bind_int64(st, 2, b);
	sqlite3_bind_int64(st, 3, c);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	return v;
}

static bool is_lock(const char *kind)
{
	return kind && (!strcmp(kind, "mutex") || !strcmp(kind, "rwlock") || !strcmp(kind, "spinlock"));
}

static int one_wait(struct wait_pass *p)
{
	sqlite3_stmt *w = p->waits, *ins = p->insert;
	int64_t tid = sqlite3_column_int64(w, 0), s = sqlite3_column_int64(w, 1), e = sqlite3_column_int64(w, 2);
	const char *kind = (const char *)sqlite3_column_text(w, 5);
	bool has_holder = sqlite3_column_type(w, 6) != SQLITE_NULL, has_waker = sqlite3_column_type(w, 7) != SQLITE_NULL;
	const char *relation = "unknown";
	int64_t other = -1, callsite = -1, did[3], other_object = -1;

	if (is_lock(kind) && has_holder) {
		relation = "holder";
		other = sqlite3_column_int64(w, 6);
		/* Where the holder took the lock: its last op on it before we asked. */
		callsite = callsite_of(p->holder_op, other, sqlite3_column_int64(w, 3), s);
	} else if (has_waker) {
		relation = "waker";
		other = sqlite3_column_int64(w, 7);
		/* Where the waker woke us: the op it was in at the wakeup. */
		callsite = callsite_of(p->waker_op, other, e, e);
	}
	sqlite3_reset(ins);
	for (int i = 0; i < 5; i++)
		sqlite3_bind_value(ins, i + 1, sqlite3_column_value(w, i));
	db_bind_int_or_null(ins, 6, other, other >= 0);
	sqlite3_bind_text(ins, 7, relation, -1, SQLITE_STATIC);
	if (other > 0 && other != tid) {
		activity(p, other, s, e, did, &other_object);
		for (int i = 0; i < 3; i++)
			sqlite3_bind_int64(ins, 8 + i, did[i]);
	} else {
		for (int i = 0; i < 3; i++)
			sqlite3_bind_null(ins, 8 + i);
	}
	db_bind_int_or_null(ins, 11, other_object, other_object >= 0);
	db_bind_int_or_null(ins, 12, callsite, callsite >= 0);
	return sqlite3_step(ins) == SQLITE_DONE ? 0 : -EIO;
}

int analysis_wait_for(sqlite3 *db, char **err)
{
	static const char *const sql[] = {
		"SELECT c.tid, c.start_ns, c.end_ns, c.object_id, c.op_id, o.kind, op.holder_tid, c.waker_tid "
		"FROM state_causes c LEFT JOIN sync_objects o ON o.id = c.object_id "
		"LEFT JOIN sync_ops op ON op.id = c.op_id "
		"WHERE c.cause = 'sync' AND c.state NOT IN ('running', 'runnable') ORDER BY c.tid, c.start_ns",
		"SELECT start_ns, end_ns, state, object_id FROM thread_states "
		"WHERE tid = ? AND start_ns < ? ORDER BY start_ns DESC",
		"SELECT callsite FROM sync_ops WHERE tid = ? AND object_id = ? AND start_ns <= ? "
		"ORDER BY start_ns DESC LIMIT 1",
		"SELECT callsite FROM sync_ops WHERE tid = ? AND start_ns <= ? AND end_ns >= ? "
		"ORDER BY start_ns DESC LIMIT 1",
		"INSERT INTO wait_for (tid, start_ns, end_ns, object_id, op_id, waited_for_tid, relation, "
		"other_running_ns, other_runnable_ns, other_blocked_ns, other_object_id, other_callsite) "
		"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	};
	struct wait_pass p = { 0 };
	sqlite3_stmt **stmts[] = { &p.waits, &p.states_before, &p.holder_op, &p.waker_op, &p.insert };
	int rc = 0;

	for (size_t i = 0; i < sizeof(stmts) / sizeof(stmts[0]) && !rc; i++)
		if (sqlite3_prepare_v2(db, sql[i], -1, stmts[i], NULL) != SQLITE_OK)
			rc = -EIO;
	while (!rc && sqlite3_step(p.waits) == SQLITE_ROW)
		rc = one_wait(&p);
	if (rc && asprintf(err, "wait-for: %s", sqlite3_errmsg(db)) < 0)
		*err = NULL;
	for (size_t i = 0; i < sizeof(stmts) / sizeof(stmts[0]); i++)
		sqlite3_finalize(*stmts[i]);
	return rc;
}
