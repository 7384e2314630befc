/*
 * src/derived/summaries.c - the summary tables of schema/derived.sql: per thread
 * lifetime its time in each state (thread_totals), per thread, object and
 * op the calls, waits and holds (sync_totals), and per lock the holders
 * that made others wait (lock_holders). The threads, sync and locks reports
 * read them instead of adding up millions of rows on every run; with a
 * --from/--to window they add up the recorded rows instead.
 *
 * The sync figures were added up while the timeline was loaded
 * (src/derived/timeline.c); the state and syscall totals are added up here from it.
 * Per thread and syscall name, syscall_totals holds what the browser's
 * syscalls view showed by grouping 1.3 M syscalls rows on a 10 M-event run
 * (~3 s): NULL where SQL's SUM or MAX over no value gives NULL.
 */
#include "config.h"
#include "src/derived/analysis.h"
#include "src/db.h"
#include "src/grow.h"
#include "src/keyhash.h"
#include "src/derived/timeline.h"
#include "src/thread-states.h"
#include "src/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The state of each thread_totals column (src/thread-states.h). */
#define NR_STATE_COLUMNS NR_THREAD_STATES

/* A lifetime's time in each state within one bucket, inserted into
 * thread_buckets when its states move past the bucket. */
struct state_buckets {
	sqlite3_stmt *ins;
	int64_t tid, life_ns, bucket_ns, ns[NR_STATE_COLUMNS];
};

static int flush_states(struct state_buckets *b)
{
	int rc = 0;
	for (size_t k = 0; k < NR_STATE_COLUMNS; k++) {
		if (!b->ns[k])
			continue;
		sqlite3_reset(b->ins);
		sqlite3_bind_int64(b->ins, 1, b->tid);
		sqlite3_bind_int64(b->ins, 2, b->life_ns);
		sqlite3_bind_int64(b->ins, 3, b->bucket_ns);
		sqlite3_bind_text(b->ins, 4, thread_state_name((enum thread_state)k), -1, SQLITE_STATIC);
		sqlite3_bind_int64(b->ins, 5, b->ns[k]);
		if (!rc && sqlite3_step(b->ins) != SQLITE_DONE)
			rc = -EIO;
		b->ns[k] = 0;
	}
	return rc;
}

/* Add [@from, @to) in state column @k, split at the buckets' edges. */
static int add_state(struct state_buckets *b, const struct tl_buckets *g, size_t k, int64_t from, int64_t to)
{
	int rc = 0;
	for (int64_t at = timeline_bucket_ns(g, timeline_bucket_of(g, from)); !rc && from < to; at += g->width_ns) {
		if (at != b->bucket_ns)
			rc = flush_states(b);
		b->bucket_ns = at;
		int64_t until = to < at + g->width_ns ? to : at + g->width_ns;
		b->ns[k] += until - from;
		from = until;
	}
	return rc;
}

/* Bind the @n values @v from column @col on, and run @ins (reset before
 * by the caller, who may have bound the columns before @col). */
static int insert_ints(sqlite3_stmt *ins, int col, const int64_t *v, int n)
{
	for (int c = 0; c < n; c++)
		sqlite3_bind_int64(ins, col + c, v[c]);
	return sqlite3_step(ins) == SQLITE_DONE ? 0 : -EIO;
}

/* A lifetime's running and runnable time on each CPU (cpu_totals). */
struct cpu_sums {
	sqlite3_stmt *ins;
	struct cpu_sum {
		int32_t cpu;
		int64_t ns[2]; /* running, runnable */
	} *v;
	size_t len, cap;
};

static int add_cpu_sum(struct cpu_sums *c, int32_t cpu, int runnable, int64_t ns)
{
	size_t i = 0;
	while (i < c->len && c->v[i].cpu != cpu)
		i++;
	if (i == c->len) {
		struct cpu_sum *more = grow_array(c->v, &c->cap, c->len, sizeof(*more), 8);
		if (!more)
			return -ENOMEM;
		c->v = more;
		c->v[c->len++] = (struct cpu_sum){ .cpu = cpu };
	}
	c->v[i].ns[runnable] += ns;
	return 0;
}

static int flush_cpu_sums(struct cpu_sums *c, int64_t tid, int64_t life_ns)
{
	int rc = 0;
	for (size_t i = 0; i < c->len && !rc; i++) {
		sqlite3_reset(c->ins);
		sqlite3_bind_int64(c->ins, 1, tid);
		sqlite3_bind_int64(c->ins, 2, life_ns);
		rc = insert_ints(c->ins, 3, (const int64_t[]){ c->v[i].cpu, c->v[i].ns[0], c->v[i].ns[1] }, 3);
	}
	c->len = 0;
	return rc;
}

/* One thread_totals row per threads row: the thread's states that lie
 * within the lifetime, added up by state; and per bucket (thread_buckets)
 * and per CPU (cpu_totals). */
static int thread_totals(sqlite3 *db, const struct mtx_timeline *tl)
{
	uint16_t ids[NR_STATE_COLUMNS];
	sqlite3_stmt *lives = NULL, *ins = NULL;
	struct state_buckets buckets = { 0 };
	struct cpu_sums cpus = { 0 };
	int rc = 0, step;

	for (size_t k = 0; k < NR_STATE_COLUMNS; k++)
		ids[k] = timeline_intern_find(tl, thread_state_name((enum thread_state)k));
	if (sqlite3_prepare_v2(db, "SELECT tid, pid, name, start_ns, end_ns FROM threads ORDER BY rowid", -1,
			       &lives, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db,
			       "INSERT INTO thread_totals (tid, pid, name, start_ns, end_ns, nr_states"
#define X(e, name, total, pct, label, waiting) ", " total
			       THREAD_STATES(X)
#undef X
			       ") VALUES (?, ?, ?, ?, ?, ?"
#define X(e, name, total, pct, label, waiting) ", ?"
			       THREAD_STATES(X)
#undef X
			       ")",
			       -1, &ins, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO thread_buckets (tid, life_ns, bucket_ns, state, ns) "
			       "VALUES (?, ?, ?, ?, ?)",
			       -1, &buckets.ins, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO cpu_totals (tid, life_ns, cpu, running_ns, runnable_ns) "
			       "VALUES (?, ?, ?, ?, ?)",
			       -1, &cpus.ins, NULL) != SQLITE_OK)
		rc = -EIO;
	while (!rc && (step = sqlite3_step(lives)) == SQLITE_ROW) {
		int64_t tid = sqlite3_column_int64(lives, 0), start_ns = sqlite3_column_int64(lives, 3);
		int64_t end_ns = sqlite3_column_int64(lives, 4), sums[NR_STATE_COLUMNS] = { 0 }, n = 0;
		const struct tl_thread *t = timeline_thread(tl, tid);
		buckets.tid = tid;
		buckets.life_ns = start_ns;
		buckets.bucket_ns = INT64_MIN;
		/* A lifetime without an end holds none (as in the threads report). */
		for (size_t i = t && sqlite3_column_type(lives, 4) != SQLITE_NULL ? timeline_states_from(t, start_ns)
										   : SIZE_MAX;
		     t && i < t->nr_states && t->states[i].start_ns <= end_ns; i++) {
			const struct tl_state *s = &t->states[i];
			if (s->end_ns > end_ns)
				continue;
			n++;
			for (size_t k = 0; k < NR_STATE_COLUMNS && !rc; k++)
				if (s->state == ids[k]) {
					sums[k] += s->end_ns - s->start_ns;
					rc = add_state(&buckets, &tl->buckets, k, s->start_ns, s->end_ns);
				}
			if (!rc && (s->flags & TL_HAS_CPU) && (s->state == ids[TS_RUNNING] || s->state == ids[TS_RUNNABLE]))
				rc = add_cpu_sum(&cpus, s->cpu, s->state == ids[TS_RUNNABLE], s->end_ns - s->start_ns);
		}
		if (!rc)
			rc = flush_states(&buckets);
		if (!rc)
			rc = flush_cpu_sums(&cpus, tid, start_ns);
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
	sqlite3_finalize(buckets.ins);
	sqlite3_finalize(cpus.ins);
	free(cpus.v);
	return rc;
}

/* Insert @t's (tid, object_id, op) and then the @n values @v with @ins. */
static int insert_op_total(sqlite3_stmt *ins, const struct mtx_timeline *tl, const struct tl_op_total *t,
			   const int64_t *v, int n)
{
	sqlite3_reset(ins);
	sqlite3_bind_int64(ins, 1, t->tid);
	sqlite3_bind_int64(ins, 2, t->object_id);
	sqlite3_bind_text(ins, 3, timeline_string(tl, t->op), -1, SQLITE_STATIC);
	db_bind_int_or_null(ins, 4, t->callsite, t->callsite != 0);
	db_bind_int_or_null(ins, 5, t->stack_id, t->stack_id != 0);
	return insert_ints(ins, 6, v, n);
}

/* sync_buckets from the timeline's totals per bucket, and sync_totals from
 * the same folded per (tid, object, op, call site). */
static int sync_totals(sqlite3 *db, const struct mtx_timeline *tl)
{
	struct keyhash keys = { 0 };
	struct tl_op_total *run = NULL;
	size_t nr_run = 0, cap_run = 0;
	sqlite3_stmt *ins = NULL, *ins_run = NULL;
	int rc = 0;

	if (sqlite3_prepare_v2(db,
			       "INSERT INTO sync_buckets (tid, object_id, op, callsite, stack_id, bucket_ns, calls, "
			       "blocked, contended, wait_ns, max_wait_ns, hold_ns) "
			       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			       -1, &ins, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db,
			       "INSERT INTO sync_totals (tid, object_id, op, callsite, stack_id, calls, blocked, "
			       "contended, wait_ns, max_wait_ns, hold_ns, max_hold_ns, max_ns, total_ns) "
			       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			       -1, &ins_run, NULL) != SQLITE_OK)
		rc = -EIO;
	for (size_t i = 0; i < tl->nr_op_totals && !rc; i++) {
		const struct tl_op_total *t = &tl->op_totals[i];
		const int64_t v[] = { t->bucket_ns, t->calls, t->blocked, t->contended, t->wait_ns, t->max_wait_ns,
				      t->hold_ns };
		rc = insert_op_total(ins, tl, t, v, (int)(sizeof(v) / sizeof(v[0])));
		const struct tl_op_total init = { .tid = t->tid, .object_id = t->object_id, .callsite = t->callsite,
						  .stack_id = t->stack_id, .site = t->site, .op = t->op };
		ptrdiff_t k = rc ? 0 : keyhash_row(&keys, t->tid, t->object_id, (t->site << 16) + t->op, &run,
						    &nr_run, &cap_run, sizeof(*run), &init);
		if (k < 0)
			rc = (int)k;
		else if (!rc)
			timeline_add_op_total(&run[k], t);
	}
	for (size_t i = 0; i < nr_run && !rc; i++) {
		const struct tl_op_total *t = &run[i];
		const int64_t v[] = { t->calls,	      t->blocked, t->contended,	  t->wait_ns,
				      t->max_wait_ns, t->hold_ns, t->max_hold_ns, t->max_ns, t->total_ns };
		rc = insert_op_total(ins_run, tl, t, v, (int)(sizeof(v) / sizeof(v[0])));
	}
	sqlite3_finalize(ins);
	sqlite3_finalize(ins_run);
	keyhash_free(&keys);
	free(run);
	return rc;
}

/* lock_holder_buckets from the timeline's holders per bucket, and
 * lock_holders from the same folded per (object, holder). */
static int lock_holders(sqlite3 *db, const struct mtx_timeline *tl)
{
	struct keyhash keys = { 0 };
	struct tl_holder_total *run = NULL;
	size_t nr_run = 0, cap_run = 0;
	sqlite3_stmt *ins = NULL;
	int rc = 0;

	if (sqlite3_prepare_v2(db, "INSERT INTO lock_holder_buckets (object_id, holder_tid, bucket_ns, ops, wait_ns) "
			       "VALUES (?, ?, ?, ?, ?)", -1, &ins, NULL) != SQLITE_OK)
		rc = -EIO;
	for (size_t i = 0; i < tl->nr_holder_totals && !rc; i++) {
		const struct tl_holder_total *h = &tl->holder_totals[i];
		const int64_t v[] = { h->object_id, h->holder_tid, h->bucket_ns, h->ops, h->wait_ns };
		sqlite3_reset(ins);
		rc = insert_ints(ins, 1, v, (int)(sizeof(v) / sizeof(v[0])));
		const struct tl_holder_total init = { h->object_id, h->holder_tid, 0, 0, 0 };
		ptrdiff_t k = rc ? 0 : keyhash_row(&keys, h->object_id, h->holder_tid, 0, &run, &nr_run, &cap_run,
						    sizeof(*run), &init);
		if (k < 0)
			rc = (int)k;
		else if (!rc) {
			run[k].ops += h->ops;
			run[k].wait_ns += h->wait_ns;
		}
	}
	sqlite3_finalize(ins);
	if (!rc && sqlite3_prepare_v2(db, "INSERT INTO lock_holders (object_id, holder_tid, ops, wait_ns) "
				      "VALUES (?, ?, ?, ?)", -1, &ins, NULL) != SQLITE_OK)
		rc = -EIO;
	for (size_t i = 0; i < nr_run && !rc; i++) {
		const int64_t v[] = { run[i].object_id, run[i].holder_tid, run[i].ops, run[i].wait_ns };
		sqlite3_reset(ins);
		rc = insert_ints(ins, 1, v, (int)(sizeof(v) / sizeof(v[0])));
	}
	sqlite3_finalize(ins);
	keyhash_free(&keys);
	free(run);
	return rc;
}

/* One thread's syscalls of one name, added up: the sums count only the
 * rows that have the value (a ret, an end). */
struct syscall_total {
	uint16_t name;
	int64_t calls, errors, with_ret, total_ns, max_ns, with_end;
};

/* A thread's totals by name (over the run, or over a bucket): a list, and
 * per name (an interned string) the index + 1 of its total in it. */
struct syscall_list {
	struct syscall_total *totals;
	size_t nr, cap, *slot;
	sqlite3_stmt *ins; /* syscall_totals' or syscall_buckets' insert */
	bool per_bucket;   /* syscall_buckets' */
};

static int add_syscall(struct syscall_list *l, const struct tl_syscall *s)
{
	if (!l->slot[s->name]) {
		struct syscall_total *more = grow_array(l->totals, &l->cap, l->nr, sizeof(*more), 64);
		if (!more)
			return -ENOMEM;
		l->totals = more;
		l->totals[l->nr] = (struct syscall_total){ .name = s->name };
		l->slot[s->name] = ++l->nr;
	}
	struct syscall_total *x = &l->totals[l->slot[s->name] - 1];
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
	return 0;
}

/* Insert @l's totals as thread @tid's (of bucket @bucket_ns, for
 * syscall_buckets' insert) and empty it. */
static int flush_syscalls(struct syscall_list *l, const struct mtx_timeline *tl, int64_t tid, int64_t bucket_ns)
{
	int rc = 0;
	for (size_t k = 0; k < l->nr; k++) {
		const struct syscall_total *x = &l->totals[k];
		sqlite3_reset(l->ins);
		sqlite3_bind_int64(l->ins, 1, tid);
		sqlite3_bind_text(l->ins, 2, timeline_string(tl, x->name), -1, SQLITE_STATIC);
		sqlite3_bind_int64(l->ins, 3, x->calls);
		db_bind_int_or_null(l->ins, 4, x->errors, x->with_ret > 0);
		db_bind_int_or_null(l->ins, 5, x->total_ns, x->with_end > 0);
		db_bind_int_or_null(l->ins, 6, x->max_ns, x->with_end > 0);
		if (l->per_bucket)
			sqlite3_bind_int64(l->ins, 7, bucket_ns);
		if (!rc && sqlite3_step(l->ins) != SQLITE_DONE)
			rc = -EIO;
		l->slot[x->name] = 0;
	}
	l->nr = 0;
	return rc;
}

/* syscall_totals and syscall_buckets: each thread's calls (in time order)
 * added up over the run and over each bucket they begin in. */
static int syscall_totals(sqlite3 *db, const struct mtx_timeline *tl)
{
	size_t nr_slots = tl->nr_strings ? tl->nr_strings : 1;
	struct syscall_list run = { .slot = calloc(nr_slots, sizeof(size_t)) };
	struct syscall_list bucket = { .slot = calloc(nr_slots, sizeof(size_t)), .per_bucket = true };
	int rc = run.slot && bucket.slot ? 0 : -ENOMEM;

	if (!rc && (sqlite3_prepare_v2(db,
				       "INSERT INTO syscall_totals (tid, syscall, calls, errors, total_ns, max_ns) "
				       "VALUES (?, ?, ?, ?, ?, ?)", -1, &run.ins, NULL) != SQLITE_OK ||
		    sqlite3_prepare_v2(db,
				       "INSERT INTO syscall_buckets (tid, syscall, calls, errors, total_ns, max_ns, "
				       "bucket_ns) VALUES (?, ?, ?, ?, ?, ?, ?)", -1, &bucket.ins, NULL) != SQLITE_OK))
		rc = -EIO;
	for (size_t i = 0; i < tl->nr_threads && !rc; i++) {
		const struct tl_thread *t = &tl->threads[i];
		int64_t at = INT64_MIN; /* the bucket's number; none yet */
		for (size_t k = 0; k < t->nr_syscalls && !rc; k++) {
			const struct tl_syscall *s = &t->syscalls[k];
			if (s->name >= tl->nr_strings)
				continue;
			int64_t b = timeline_bucket_of(&tl->buckets, s->start_ns);
			if (b != at && at != INT64_MIN)
				rc = flush_syscalls(&bucket, tl, t->tid, timeline_bucket_ns(&tl->buckets, at));
			at = b;
			if (!rc)
				rc = add_syscall(&run, s);
			if (!rc)
				rc = add_syscall(&bucket, s);
		}
		if (!rc && at != INT64_MIN)
			rc = flush_syscalls(&bucket, tl, t->tid, timeline_bucket_ns(&tl->buckets, at));
		if (!rc)
			rc = flush_syscalls(&run, tl, t->tid, 0);
	}
	sqlite3_finalize(run.ins);
	sqlite3_finalize(bucket.ins);
	free(run.totals);
	free(bucket.totals);
	free(run.slot);
	free(bucket.slot);
	return rc;
}

/* What mtx collect --detail added up instead of writing rows
 * (collector/detail.h, collector/sync/summary.h) joins the totals of the
 * rows, so that the threads, syscalls, sync and locks reports show the
 * whole run; the buckets, made of rows, hold the detail only. */
static int add_summarized(sqlite3 *db)
{
	static const char sql[] =
		"UPDATE thread_totals SET "
		" running_ns = running_ns + COALESCE((SELECT SUM(ns) FROM summarized_states x"
		"  WHERE x.tid = thread_totals.tid AND x.life_ns = thread_totals.start_ns AND x.state = 'running'), 0),"
		" runnable_ns = runnable_ns + COALESCE((SELECT SUM(ns) FROM summarized_states x"
		"  WHERE x.tid = thread_totals.tid AND x.life_ns = thread_totals.start_ns AND x.state = 'runnable'), 0),"
		" nr_states = nr_states + COALESCE((SELECT SUM(intervals) FROM summarized_states x"
		"  WHERE x.tid = thread_totals.tid AND x.life_ns = thread_totals.start_ns), 0)"
		" WHERE end_ns IS NOT NULL AND EXISTS (SELECT 1 FROM summarized_states x"
		"  WHERE x.tid = thread_totals.tid AND x.life_ns = thread_totals.start_ns);"
		"INSERT INTO cpu_totals (tid, life_ns, cpu, running_ns, runnable_ns)"
		" SELECT x.tid, x.life_ns, x.cpu, SUM(IIF(x.state = 'running', x.ns, 0)), SUM(IIF(x.state = 'runnable', x.ns, 0))"
		" FROM summarized_states x JOIN thread_totals t ON t.tid = x.tid AND t.start_ns = x.life_ns"
		" WHERE x.cpu IS NOT NULL AND t.end_ns IS NOT NULL GROUP BY x.tid, x.life_ns, x.cpu;"
		"CREATE TEMP TABLE merged_syscall_totals AS"
		" SELECT tid, syscall, SUM(calls) AS calls, SUM(errors) AS errors, SUM(total_ns) AS total_ns,"
		" MAX(max_ns) AS max_ns FROM (SELECT * FROM syscall_totals UNION ALL"
		"  SELECT tid, name, SUM(calls), IIF(SUM(returned) > 0, SUM(errors), NULL),"
		"  IIF(SUM(returned) > 0, SUM(total_ns), NULL), IIF(SUM(returned) > 0, MAX(max_ns), NULL)"
		"  FROM summarized_syscalls GROUP BY tid, name)"
		" GROUP BY tid, syscall;"
		"DELETE FROM syscall_totals;"
		"INSERT INTO syscall_totals (tid, syscall, calls, errors, total_ns, max_ns)"
		" SELECT tid, syscall, calls, errors, total_ns, max_ns FROM merged_syscall_totals;"
		"DROP TABLE merged_syscall_totals;";
	/* none was contended or blocked (collector/sync/summary.h) */
	static const char sync_sql[] =
		"CREATE TEMP TABLE merged_sync_totals AS"
		" SELECT tid, object_id, op, callsite, stack_id, SUM(calls) AS calls, SUM(blocked) AS blocked,"
		" SUM(contended) AS contended, SUM(wait_ns) AS wait_ns, MAX(max_wait_ns) AS max_wait_ns,"
		" SUM(hold_ns) AS hold_ns, MAX(max_hold_ns) AS max_hold_ns, MAX(max_ns) AS max_ns,"
		" SUM(total_ns) AS total_ns"
		" FROM (SELECT tid, object_id, op, callsite, stack_id, calls, blocked, contended, wait_ns, max_wait_ns,"
		"  hold_ns, max_hold_ns, max_ns, total_ns FROM sync_totals UNION ALL"
		"  SELECT tid, object_id, op, callsite, stack_id, calls, 0, 0, 0, 0, hold_ns, max_hold_ns, max_ns,"
		"  total_ns FROM summarized_sync_ops)"
		" GROUP BY tid, object_id, op, callsite, stack_id;"
		"DELETE FROM sync_totals;"
		"INSERT INTO sync_totals (tid, object_id, op, callsite, stack_id, calls, blocked, contended, wait_ns,"
		" max_wait_ns, hold_ns, max_hold_ns, max_ns, total_ns)"
		" SELECT tid, object_id, op, callsite, stack_id, calls, blocked, contended, wait_ns, max_wait_ns,"
		" hold_ns, max_hold_ns, max_ns, total_ns FROM merged_sync_totals;"
		"DROP TABLE merged_sync_totals;";
	if (!db_has_table(db, "summarized_states"))
		return 0;
	if (db_query_int(db, "SELECT EXISTS (SELECT 1 FROM summarized_states) OR EXISTS (SELECT 1 FROM summarized_syscalls)",
			 0) &&
	    sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return -EIO;
	if (db_has_table(db, "summarized_sync_ops") &&
	    db_query_int(db, "SELECT EXISTS (SELECT 1 FROM summarized_sync_ops)", 0) &&
	    sqlite3_exec(db, sync_sql, NULL, NULL, NULL) != SQLITE_OK)
		return -EIO;
	return 0;
}

int analysis_summaries(sqlite3 *db, const struct mtx_timeline *tl, char **err)
{
	int rc = thread_totals(db, tl);
	if (!rc)
		rc = sync_totals(db, tl);
	if (!rc)
		rc = lock_holders(db, tl);
	if (!rc)
		rc = syscall_totals(db, tl);
	if (!rc)
		rc = add_summarized(db);
	if (rc)
		error_set(err, "summaries: %s", sqlite3_errmsg(db));
	return rc;
}
