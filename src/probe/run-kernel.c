/*
 * src/probe/run-kernel.c - the kernel's share of the overhead, per
 * segment (SEEDS-MAP P1: "each inter-event segment carries the overhead
 * that fell in it"): every record the kernel wrote for mtx in a thread's
 * context (a syscall's pair, a switch, a wakeup it made, a sample, a
 * function hook or uprobe) cost that thread the calibrated time of its
 * source (meta cal_<source>_ns, measured at the run's start; `mtx report
 * overhead` charges the same by thread). A source without calibration
 * adds nothing. One scan per source; a binary search per record.
 */
#include "config.h"
#include "src/probe/run.h"
#include "src/db.h"
#include "src/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* X(meta's name, table, the SQL rows (tid, ts) of each record), in the
 * table's order: each record is placed on its own (an index's order
 * would read the table at random). */
#define KERNEL_RECORDS(X)                                                                              \
	X("syscalls", "syscalls", "SELECT tid, start_ns FROM syscalls")                                 \
	X("switches", "switches", "SELECT prev_tid, ts_ns FROM switches")                               \
	X("wakeups", "wakeups", "SELECT waker_tid, ts_ns FROM wakeups")                                 \
	X("samples", "samples", "SELECT tid, ts_ns FROM samples")                                       \
	X("hooks", "calls",                                                                             \
	  "SELECT tid, start_ns FROM calls WHERE NOT EXISTS (SELECT 1 FROM meta "                       \
	  "WHERE key = 'functions_pattern')")                                                           \
	X("uprobes", "calls",                                                                           \
	  "SELECT tid, start_ns FROM calls WHERE EXISTS (SELECT 1 FROM meta "                           \
	  "WHERE key = 'functions_pattern')")

/* The segment of thread @t that @ts_ns falls in: the one before the
 * first of its events that starts after it. */
static int32_t segment_at(const struct probe_run *run, const struct probe_thread *t, int64_t ts_ns)
{
	int32_t lo = 0, hi = t->nr_events;
	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;
		if (run->events[t->first + mid].start_ns <= ts_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return t->first_segment + lo;
}

static int add_source(sqlite3 *db, struct probe_run *run, const char *source, const char *table,
		      const char *sql, char **err)
{
	char key[64], *value;
	int64_t cost;
	sqlite3_stmt *st;
	int step;

	snprintf(key, sizeof(key), "cal_%s_ns", source);
	value = db_meta_get(db, key);
	cost = value ? atoll(value) : 0;
	free(value);
	if (cost <= 0 || !db_has_table(db, table))
		return 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		error_set(err, "reading %s: %s", table, sqlite3_errmsg(db));
		return -EINVAL;
	}
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t tid = sqlite3_column_int64(st, 0), ts = sqlite3_column_int64(st, 1);
		int32_t t = probe_run_thread_at(run, tid, ts);
		if (t < 0)
			continue; /* a task outside the run's threads */
		run->segment_kernel_ns[segment_at(run, &run->threads[t], ts)] += cost;
		run->kernel_ns += cost;
	}
	sqlite3_finalize(st);
	if (step != SQLITE_DONE) {
		error_set(err, "reading %s: %s", table, sqlite3_errmsg(db));
		return db_error_is_corrupt(sqlite3_errcode(db)) ? -EIO : -EINVAL;
	}
	return 0;
}

int probe_run_load_kernel_costs(sqlite3 *db, struct probe_run *run, char **err)
{
	int rc = 0;
	if (!(run->segment_kernel_ns = calloc((size_t)run->nr_segments + 1, sizeof(*run->segment_kernel_ns))))
		return -ENOMEM;
#define ADD(source, table, sql) \
	if (!rc)                \
		rc = add_source(db, run, source, table, sql, err);
	KERNEL_RECORDS(ADD)
#undef ADD
	return rc;
}
