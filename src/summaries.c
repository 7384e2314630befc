/*
 * src/summaries.c - the summary tables of schema/derived.sql: per thread
 * lifetime its time in each state (thread_totals), per thread, object and
 * op the calls, waits and holds (sync_totals), and per lock the holders
 * that made others wait (lock_holders). The threads, sync and locks reports
 * read them instead of adding up millions of rows on every run; with a
 * --from/--to window they add up the recorded rows instead.
 *
 * The sync figures were added up while the timeline was loaded
 * (src/timeline.c); the state and syscall totals are added up here from it.
 * Per thread and syscall name, syscall_totals holds what the browser's
 * syscalls view showed by grouping 1.3 M syscalls rows on a 10 M-event run
 * (~3 s): NULL where SQL's SUM or MAX over no value gives NULL.
 */
#include "config.h"
#include "src/analysis.h"
#include "src/db.h"
#include "src/grow.h"
#include "src/timeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The thread_totals columns, in the order of the states they add up. */
static const char *const state_columns[][2] = {
	{ "running", "running_ns" },           { "runnable", "runnable_ns" },
	{ "blocked", "blocked_other_ns" },     { "blocked_sync", "blocked_sync_ns" },
	{ "blocked_io", "blocked_io_ns" },     { "sleeping", "sleeping_ns" },
};
#define NR_STATE_COLUMNS (sizeof(state_columns) / sizeof(state_columns[0]))

/* One thread_totals row per threads row: the thread's states that lie
 * within the lifetime, added up by state. */
static int thread_totals(sqlite3 *db, const struct mtx_timeline *tl)
{
	uint16_t ids[NR_STATE_COLUMNS];
	sqlite3_stmt *lives = NULL, *ins = NULL;
	int rc = 0, step;

	for (size_t k = 0; k < NR_STATE_COLUMNS; k++)
		ids[k] = timeline_intern_find(tl, state_columns[k][0]);
	if (sqlite3_prepare_v2(db, "SELECT tid, pid, name, start_ns, end_ns FROM threads ORDER BY rowid", -1,
			       &lives, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db,
			       "INSERT INTO thread_totals (tid, pid, name, start_ns, end_ns, nr_states, running_ns, "
			       "runnable_ns, blocked_other_ns, blocked_sync_ns, blocked_io_ns, sleeping_ns) "
			       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			       -1, &ins, NULL) != SQLITE_OK)
		rc = -EIO;
	while (!rc && (step = sqlite3_step(lives)) == SQLITE_ROW) {
		int64_t tid = sqlite3_column_int64(lives, 0), start_ns = sqlite3_column_int64(lives, 3);
		int64_t end_ns = sqlite3_column_int64(lives, 4), sums[NR_STATE_COLUMNS] = { 0 }, n = 0;
		const struct tl_thread *t = timeline_thread(tl, tid);
		/* A lifetime without an end holds none (as in the threads report). */
		for (size_t i = t && sqlite3_column_type(lives, 4) != SQLITE_NULL ? timeline_states_from(t, start_ns)
										   : SIZE_MAX;
		     t && i < t->nr_states && t->states[i].start_ns <= end_ns; i++) {
			const struct tl_state *s = &t->states[i];
			if (s->end_ns > end_ns)
				continue;
			n++;
			for (size_t k = 0; k < NR_STATE_COLUMNS; k++)
				if (s->state == ids[k])
					sums[k] += s->end_ns - s->start_ns;
		}
		sqlite3_reset(ins);
		for (int c = 0; c < 5; c++)
			sqlite3_bind_value(ins, c + 1, sqlite3_column_value(lives, c));
		sqlite3_bind_int64(ins, 6, n);
		for (size_t k = 0; k < NR_STATE_COLUMNS; k++)
			sqlite3_bind_int64(ins, 7 + (int)k, sums[k]);
		if (sqlite3_step(ins) != SQLITE_DONE)
			rc = -EIO;
	}
	if (!rc && step != SQLITE_DONE)
		rc = -EIO;
	sqlite3_finalize(lives);
	sqlite3_finalize(ins);
	return rc;
}

static int sync_totals(sqlite3 *db, const struct mtx_timeline *tl)
{
	sqlite3_stmt *ins;
	int rc = 0;

	if (sqlite3_prepare_v2(db,
			       "INSERT INTO sync_totals (tid, object_id, op, calls, blocked, contended, wait_ns, "
			       "max_wait_ns, hold_ns, max_hold_ns, max_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			       -1, &ins, NULL) != SQLITE_OK)
		return -EIO;
	for (size_t i = 0; i < tl->nr_op_totals && !rc; i++) {
		const struct tl_op_total *t = &tl->op_totals[i];
		const int64_t v[] = { t->calls,   t->blocked,     t->contended, t->wait_ns,
				      t->max_wait_ns, t->hold_ns, t->max_hold_ns, t->max_ns };
		sqlite3_reset(ins);
		sqlite3_bind_int64(ins, 1, t->tid);
		sqlite3_bind_int64(ins, 2, t->object_id);
		sqlite3_bind_text(ins, 3, timeline_string(tl, t->op), -1, SQLITE_STATIC);
		for (int c = 0; c < (int)(sizeof(v) / sizeof(v[0])); c++)
			sqlite3_bind_int64(ins, 4 + c, v[c]);
		rc = sqlite3_step(ins) == SQLITE_DONE ? 0 : -EIO;
	}
	sqlite3_finalize(ins);
	if (rc || sqlite3_prepare_v2(db, "INSERT INTO lock_holders (object_id, holder_tid, ops, wait_ns) "
				     "VALUES (?, ?, ?, ?)", -1, &ins, NULL) != SQLITE_OK)
		return -EIO;
	for (size_t i = 0; i < tl->nr_holder_totals && !rc; i++) {
		const struct tl_holder_total *h = &tl->holder_totals[i];
		sqlite3_reset(ins);
		sqlite3_bind_int64(ins, 1, h->object_id);
		sqlite3_bind_int64(ins, 2, h->holder_tid);
		sqlite3_bind_int64(ins, 3, h->ops);
		sqlite3_bind_int64(ins, 4, h->wait_ns);
		rc = sqlite3_step(ins) == SQLITE_DONE ? 0 : -EIO;
	}
	sqlite3_finalize(ins);
	return rc;
}

/* One thread's syscalls of one name, added up: the sums count only the
 * rows that have the value (a ret, an end). */
struct syscall_total {
	uint16_t name;
	int64_t calls, errors, with_ret, total_ns, max_ns, with_end;
};

static int insert_syscall_total(sqlite3_stmt *ins, const struct mtx_timeline *tl, int64_t tid,
				const struct syscall_total *x)
{
	sqlite3_reset(ins);
	sqlite3_bind_int64(ins, 1, tid);
	sqlite3_bind_text(ins, 2, timeline_string(tl, x->name), -1, SQLITE_STATIC);
	sqlite3_bind_int64(ins, 3, x->calls);
	db_bind_int_or_null(ins, 4, x->errors, x->with_ret > 0);
	db_bind_int_or_null(ins, 5, x->total_ns, x->with_end > 0);
	db_bind_int_or_null(ins, 6, x->max_ns, x->with_end > 0);
	return sqlite3_step(ins) == SQLITE_DONE ? 0 : -EIO;
}

static int syscall_totals(sqlite3 *db, const struct mtx_timeline *tl)
{
	/* Per name, the index + 1 of its total in this thread's list. */
	size_t *slot = calloc(tl->nr_strings ? tl->nr_strings : 1, sizeof(*slot));
	struct syscall_total *totals = NULL;
	size_t nr = 0, cap = 0;
	sqlite3_stmt *ins = NULL;
	int rc = slot ? 0 : -ENOMEM;

	if (!rc && sqlite3_prepare_v2(db,
				      "INSERT INTO syscall_totals (tid, syscall, calls, errors, total_ns, max_ns) "
				      "VALUES (?, ?, ?, ?, ?, ?)",
				      -1, &ins, NULL) != SQLITE_OK)
		rc = -EIO;
	for (size_t i = 0; i < tl->nr_threads && !rc; i++) {
		const struct tl_thread *t = &tl->threads[i];
		nr = 0;
		for (size_t k = 0; k < t->nr_syscalls && !rc; k++) {
			const struct tl_syscall *s = &t->syscalls[k];
			if (s->name >= tl->nr_strings)
				continue;
			if (!slot[s->name]) {
				struct syscall_total *more = grow_array(totals, &cap, nr, sizeof(*more), 64);
				if (!more) {
					rc = -ENOMEM;
					break;
				}
				totals = more;
				totals[nr] = (struct syscall_total){ .name = s->name };
				slot[s->name] = ++nr;
			}
			struct syscall_total *x = &totals[slot[s->name] - 1];
			x->calls++;
			if (s->flags & TL_HAS_RET) {
				x->with_ret++;
				x->errors += (s->flags & TL_RET_FAILED) != 0;
			}
			if (s->flags & TL_HAS_END) {
				int64_t ns = s->end_ns - s->start_ns;
				if (!x->with_end++ || ns > x->max_ns)
					x->max_ns = ns;
				x->total_ns += ns;
			}
		}
		for (size_t k = 0; k < nr; k++) {
			if (!rc)
				rc = insert_syscall_total(ins, tl, t->tid, &totals[k]);
			slot[totals[k].name] = 0;
		}
	}
	sqlite3_finalize(ins);
	free(totals);
	free(slot);
	return rc;
}

int analysis_summaries(sqlite3 *db, const struct mtx_timeline *tl, char **err)
{
	int rc = thread_totals(db, tl);
	if (!rc)
		rc = sync_totals(db, tl);
	if (!rc)
		rc = syscall_totals(db, tl);
	if (rc && asprintf(err, "summaries: %s", sqlite3_errmsg(db)) < 0)
		*err = NULL;
	return rc;
}
