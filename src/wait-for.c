/*
 * src/wait-for.c - for whom each wait on a sync object waited (wait_for).
 *
 * A thread blocked on a lock waits for the lock's holder (sync_ops.holder_tid,
 * found when the run was finalized); one blocked on a semaphore, condvar,
 * barrier or join waits for whoever wakes it (state_causes.waker_tid). For
 * that other thread we add up what it did during the wait, from its own
 * states, and which object it was itself blocked on longest: the next link
 * of the wait-for chain that `mtx report waits` follows. The other thread's
 * states and ops come from the timeline (src/timeline.h), not from queries.
 */
#include "config.h"
#include "src/analysis.h"
#include "src/db.h"
#include "src/timeline.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct wait_pass {
	const struct mtx_timeline *tl;
	sqlite3_stmt *waits, *insert;
	uint16_t running, runnable;
	int64_t **max_end; /* per thread of tl, made when first needed: the
			    * latest end_ns of its ops up to each one */
};

/* What @tid did within [s, e): time running, runnable and waiting, and the
 * object it was blocked on longest (-1 if none). Its states tile its
 * lifetime, so walking back from e stops at the first that ends by s. */
static void activity(const struct wait_pass *p, const struct tl_thread *t, int64_t s, int64_t e, int64_t out[3],
		     int64_t *object_id)
{
	int64_t best = 0;
	*object_id = -1;
	out[0] = out[1] = out[2] = 0;
	for (size_t k = t ? timeline_states_from(t, e) : 0; k-- > 0;) {
		const struct tl_state *st = &t->states[k];
		if (st->end_ns <= s)
			break;
		int64_t len = (st->end_ns < e ? st->end_ns : e) - (st->start_ns > s ? st->start_ns : s);
		if (st->state == p->running)
			out[0] += len;
		else if (st->state == p->runnable)
			out[1] += len;
		else {
			out[2] += len;
			if ((st->flags & TL_HAS_OBJECT) && len > best) {
				best = len;
				*object_id = st->object_id;
			}
		}
	}
}

/* @t's last op on @object_id begun by @ns, or NULL. */
static const struct tl_op *last_op_on(const struct tl_thread *t, int64_t object_id, int64_t ns)
{
	for (size_t k = t ? timeline_ops_after(t, ns) : 0; k-- > 0;)
		if (t->ops[k].object_id == object_id)
			return &t->ops[k];
	return NULL;
}

/* @t's op under way at @ns (the latest begun by then that had not ended
 * before it), or NULL; -ENOMEM in *@rc when memory ran out. */
static const struct tl_op *op_at(struct wait_pass *p, const struct tl_thread *t, int64_t ns, int *rc)
{
	if (!t)
		return NULL;
	size_t i = (size_t)(t - p->tl->threads);
	int64_t *max_end = p->max_end[i];
	if (!max_end) {
		if (!(max_end = p->max_end[i] = malloc(sizeof(*max_end) * (t->nr_ops ? t->nr_ops : 1)))) {
			*rc = -ENOMEM;
			return NULL;
		}
		for (size_t k = 0; k < t->nr_ops; k++)
			max_end[k] = k && max_end[k - 1] > t->ops[k].end_ns ? max_end[k - 1] : t->ops[k].end_ns;
	}
	for (size_t k = timeline_ops_after(t, ns); k-- > 0 && max_end[k] >= ns;)
		if (t->ops[k].end_ns >= ns)
			return &t->ops[k];
	return NULL;
}

static bool is_lock(const char *kind)
{
	return kind && (!strcmp(kind, "mutex") || !strcmp(kind, "rwlock") || !strcmp(kind, "spinlock"));
}

/* The op @id of @t that is under way at @ns (the innermost of its ops open
 * then, usually the last begun), or NULL. */
static const struct tl_op *op_by_id(const struct tl_thread *t, int64_t id, int64_t ns)
{
	for (size_t k = t ? timeline_ops_after(t, ns) : 0; k-- > 0;)
		if (t->ops[k].id == id)
			return &t->ops[k];
	return NULL;
}

static int one_wait(struct wait_pass *p)
{
	sqlite3_stmt *w = p->waits, *ins = p->insert;
	int64_t tid = sqlite3_column_int64(w, 0), s = sqlite3_column_int64(w, 1), e = sqlite3_column_int64(w, 2);
	const struct tl_object *object =
		sqlite3_column_type(w, 3) == SQLITE_NULL ? NULL : timeline_object(p->tl, sqlite3_column_int64(w, 3));
	const struct tl_op *op = sqlite3_column_type(w, 4) == SQLITE_NULL
					 ? NULL
					 : op_by_id(timeline_thread(p->tl, tid), sqlite3_column_int64(w, 4), s);
	bool has_waker = sqlite3_column_type(w, 5) != SQLITE_NULL;
	const char *relation = "unknown";
	const struct tl_op *other_op = NULL;
	int64_t other = -1, did[3], other_object = -1;
	int rc = 0;

	if (object && is_lock(timeline_string(p->tl, object->kind)) && op && (op->flags & TL_HAS_HOLDER)) {
		relation = "holder";
		other = op->holder_tid;
		/* Where the holder took the lock: its last op on it before we asked. */
		other_op = last_op_on(timeline_thread(p->tl, other), sqlite3_column_int64(w, 3), s);
	} else if (has_waker) {
		relation = "waker";
		other = sqlite3_column_int64(w, 5);
		/* Where the waker woke us: the op it was in at the wakeup. */
		if (!(other_op = op_at(p, timeline_thread(p->tl, other), e, &rc)) && rc)
			return rc;
	}
	sqlite3_reset(ins);
	for (int i = 0; i < 5; i++)
		sqlite3_bind_value(ins, i + 1, sqlite3_column_value(w, i));
	db_bind_int_or_null(ins, 6, other, other >= 0);
	sqlite3_bind_text(ins, 7, relation, -1, SQLITE_STATIC);
	if (other > 0 && other != tid) {
		activity(p, timeline_thread(p->tl, other), s, e, did, &other_object);
		for (int i = 0; i < 3; i++)
			sqlite3_bind_int64(ins, 8 + i, did[i]);
	} else {
		for (int i = 0; i < 3; i++)
			sqlite3_bind_null(ins, 8 + i);
	}
	db_bind_int_or_null(ins, 11, other_object, other_object >= 0);
	db_bind_int_or_null(ins, 12, other_op ? other_op->callsite : 0,
			    other_op && (other_op->flags & TL_HAS_CALLSITE) && other_op->callsite >= 0);
	return sqlite3_step(ins) == SQLITE_DONE ? 0 : -EIO;
}

int analysis_wait_for(sqlite3 *db, const struct mtx_timeline *tl, char **err)
{
	static const char *const sql[] = {
		/* In the order state_causes was written: by tid, then time. */
		"SELECT tid, start_ns, end_ns, object_id, op_id, waker_tid FROM state_causes "
		"WHERE cause = 'sync' AND state NOT IN ('running', 'runnable')",
		"INSERT INTO wait_for (tid, start_ns, end_ns, object_id, op_id, waited_for_tid, relation, "
		"other_running_ns, other_runnable_ns, other_blocked_ns, other_object_id, other_callsite) "
		"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	};
	struct wait_pass p = { .tl = tl };
	sqlite3_stmt **stmts[] = { &p.waits, &p.insert };
	int rc = 0, step = SQLITE_DONE;

	p.running = timeline_intern_find(tl, "running");
	p.runnable = timeline_intern_find(tl, "runnable");
	if (!(p.max_end = calloc(tl->nr_threads ? tl->nr_threads : 1, sizeof(*p.max_end))))
		rc = -ENOMEM;
	for (size_t i = 0; i < sizeof(stmts) / sizeof(stmts[0]) && !rc; i++)
		if (sqlite3_prepare_v2(db, sql[i], -1, stmts[i], NULL) != SQLITE_OK)
			rc = -EIO;
	while (!rc && (step = sqlite3_step(p.waits)) == SQLITE_ROW)
		rc = one_wait(&p);
	if (!rc && step != SQLITE_DONE)
		rc = -EIO;
	if (rc && asprintf(err, "wait-for: %s", rc == -ENOMEM ? "out of memory" : sqlite3_errmsg(db)) < 0)
		*err = NULL;
	for (size_t i = 0; i < sizeof(stmts) / sizeof(stmts[0]); i++)
		sqlite3_finalize(*stmts[i]);
	for (size_t i = 0; p.max_end && i < tl->nr_threads; i++)
		free(p.max_end[i]);
	free(p.max_end);
	return rc;
}
