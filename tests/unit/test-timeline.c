/*
 * tests/unit/test-timeline.c - the function each switch was in
 * (struct tl_switch.function_id, src/derived/timeline.c) on the run of
 * tests/fixtures/switch-callsites.sql, whose header works out each answer.
 */
#include "config.h"
#include "tests/unit/fixture.h"

#include <errno.h>
#include <string.h>

static char path[64];
static sqlite3 *db;

static void setup(void)
{
	db = fixture_open("switch-callsites", path);
}

static void teardown(void)
{
	fixture_close(db, path);
}

TestSuite(timeline, .init = setup, .fini = teardown);

/* The switches' function ids in @tl (freed), "tid: id id ...\n" a thread,
 * oldest first. */
static char *functions_of_switches_in(struct mtx_timeline *tl)
{
	static char buf[512];
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < tl->nr_threads; i++) {
		const struct tl_thread *t = &tl->threads[i];
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%lld:", (long long)t->tid);
		for (size_t j = 0; j < t->nr_switches; j++) {
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, " %lld", (long long)t->switches[j].function_id);
		}
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "\n");
		cr_assert_lt(n, sizeof(buf));
	}
	timeline_free(tl);
	return buf;
}

/* The same of the fixture's timeline as read. */
static char *functions_of_switches(void)
{
	struct mtx_timeline *tl = NULL;
	char *err = NULL;
	cr_assert_eq(timeline_load(db, &tl, &err), 0, "%s", err ? err : "");
	return functions_of_switches_in(tl);
}

#define EXPECTED "300: 4 2\n301: 6 2 4 7 7 4 4 0 6 4 0\n"

Test(timeline, switch_in_a_sync_op_is_at_its_call_site)
{
	cr_assert_str_eq(functions_of_switches(), EXPECTED);
}

Test(timeline, switch_positions_equal_the_query_over_the_indexes)
{
	/* What the load computed in SQL before, through the sync_ops_tid and
	 * callsites_addr indexes (the tie at 400 us: the index order, last id
	 * first), from the same program and leaf functions. */
	sqlite3_stmt *st;
	char buf[512];
	size_t n = 0;
	long long tid = -1;
	const char *sql =
		"WITH pos(stack_id, program, leaf) AS (VALUES (2, NULL, 4), (3, 2, 2), (4, 2, 3), (99, NULL, NULL)) "
		"SELECT w.prev_tid, COALESCE(CASE WHEN w.stack_id IS NOT NULL THEN COALESCE(pos.program, "
		"  (SELECT c.function_id FROM (SELECT object_id, callsite, end_ns FROM sync_ops "
		"    WHERE tid = w.prev_tid AND start_ns <= w.ts_ns ORDER BY start_ns DESC LIMIT 1) op "
		"   JOIN sync_objects o ON o.id = op.object_id "
		"   JOIN callsites c ON c.pid = o.pid AND c.addr = op.callsite "
		"   WHERE op.end_ns >= w.ts_ns), pos.leaf) END, 0) "
		"FROM switches w LEFT JOIN pos ON pos.stack_id = w.stack_id ORDER BY w.prev_tid, w.ts_ns";
	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (sqlite3_column_int64(st, 0) != tid) {
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%lld:", tid < 0 ? "" : "\n",
					      (long long)sqlite3_column_int64(st, 0));
			tid = sqlite3_column_int64(st, 0);
		}
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " %lld", (long long)sqlite3_column_int64(st, 1));
		cr_assert_lt(n, sizeof(buf));
	}
	sqlite3_finalize(st);
	snprintf(buf + n, sizeof(buf) - n, "\n");
	cr_assert_str_eq(buf, EXPECTED);
}

/*
 * The run's read on two threads (src/derived/timeline.c: split_read) gives the
 * derived tables that one thread reading everything gives: the file's
 * database is read on two connections, an in-memory copy (no file for a
 * second connection) on one. In busy.sql the ops are few, so the second
 * thread reads all of them and the syscalls; with 20 000 more ops they are
 * split between the two and the syscalls stay on the first.
 */
/* @run's tables (all but meta, whose derived_ms differs) hold the rows of
 * those of the database file @other; at least @min_tables compared. */
static void expect_same_tables(sqlite3 *run, const char *other, int min_tables)
{
	char sql[512], *err = NULL;
	snprintf(sql, sizeof(sql), "ATTACH '%s' AS other", other);
	cr_assert_eq(db_exec(run, sql, &err), 0, "%s", err ? err : "");
	sqlite3_stmt *tables;
	int nr_tables = 0;
	cr_assert_eq(sqlite3_prepare_v2(run, "SELECT name FROM other.sqlite_schema WHERE type = 'table' AND name != 'meta'",
					-1, &tables, NULL),
		     SQLITE_OK);
	while (sqlite3_step(tables) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(tables, 0);
		snprintf(sql, sizeof(sql),
			 "SELECT (SELECT COUNT(*) FROM (SELECT * FROM main.%s EXCEPT SELECT * FROM other.%s)) + "
			 "(SELECT COUNT(*) FROM (SELECT * FROM other.%s EXCEPT SELECT * FROM main.%s)) + "
			 "ABS((SELECT COUNT(*) FROM main.%s) - (SELECT COUNT(*) FROM other.%s))",
			 t, t, t, t, t, t);
		cr_expect_eq(db_query_int(run, sql, -1), 0, "table %s differs", t);
		nr_tables++;
	}
	sqlite3_finalize(tables);
	cr_assert_gt(nr_tables, min_tables);
	cr_assert_eq(db_exec(run, "DETACH other", &err), 0, "%s", err ? err : "");
}

/* A copy of @from in the file @path. */
static void copy_to_file(sqlite3 *from, const char *file)
{
	sqlite3 *out = NULL;
	sqlite3_backup *b;
	cr_assert_eq(sqlite3_open(file, &out), SQLITE_OK);
	cr_assert_not_null(b = sqlite3_backup_init(out, "main", from, "main"));
	cr_assert_eq(sqlite3_backup_step(b, -1), SQLITE_DONE);
	sqlite3_backup_finish(b);
	sqlite3_close(out);
}

static void expect_same_derived_tables(const char *extra_sql)
{
	char file[64], seq[80], *err = NULL;
	sqlite3 *run = fixture_open("busy", file), *mem = NULL;
	sqlite3_backup *b;

	cr_assert_eq(db_exec(run, extra_sql, &err), 0, "%s", err ? err : "");
	cr_assert_eq(sqlite3_open(":memory:", &mem), SQLITE_OK);
	cr_assert_not_null(b = sqlite3_backup_init(mem, "main", run, "main"));
	cr_assert_eq(sqlite3_backup_step(b, -1), SQLITE_DONE);
	sqlite3_backup_finish(b);
	cr_assert_eq(analysis_build(run, 0, &err), 0, "%s", err ? err : "");
	cr_assert_eq(analysis_build(mem, 0, &err), 0, "%s", err ? err : "");

	/* The one-thread result into a file beside, to compare with SQL. */
	snprintf(seq, sizeof(seq), "%s-seq", file);
	copy_to_file(mem, seq);
	sqlite3_close(mem);
	expect_same_tables(run, seq, 30);
	/* The run did have what the split is about. */
	cr_assert_gt(db_query_int(run, "SELECT COUNT(*) FROM syscall_totals", 0), 0);
	cr_assert_gt(db_query_int(run, "SELECT COUNT(*) FROM sync_totals", 0), 0);
	fixture_close(run, file);
	unlink(seq);
}

Test(read_split, few_ops_the_second_thread_reads_them_and_the_syscalls)
{
	expect_same_derived_tables("SELECT 1");
}

Test(read_split, many_ops_split_between_the_threads)
{
	expect_same_derived_tables(
		"INSERT INTO sync_ops (tid, object_id, op, start_ns, end_ns, blocked, wait_ns, result, callsite) "
		"WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 19999) "
		"SELECT 300, 1, 'trylock', 1073741824 + i * 200, 1073741824 + i * 200 + 50, 0, 0, 16, 4096 FROM n");
}

/*
 * A capture (src/derived/timeline.h) fed a run's rows as the writer hands them over
 * (in each table's order, the sync ops as written: not blocked, no holder
 * or hold, 'blocked' states), with what sync_resolve changed handed over as
 * amendments, gives the derived tables that reading the file gives.
 */
static sqlite3_stmt *rows_of(sqlite3 *run, const char *sql)
{
	sqlite3_stmt *st;
	cr_assert_eq(sqlite3_prepare_v2(run, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(run));
	return st;
}

#define INT(st, i) sqlite3_column_int64(st, i)
#define TEXT(st, i) ((const char *)sqlite3_column_text(st, i))
#define HAS(st, i, flag) (sqlite3_column_type(st, i) == SQLITE_NULL ? 0 : (flag))

static struct tl_capture *capture_of(sqlite3 *run)
{
	struct tl_capture *c = timeline_capture_new();
	sqlite3_stmt *st;
	cr_assert_not_null(c);
	st = rows_of(run, "SELECT rowid, tid, start_ns, end_ns, state, COALESCE(cpu, -1), syscall, object_id "
			 "FROM thread_states ORDER BY rowid");
	while (sqlite3_step(st) == SQLITE_ROW) {
		bool sync = !strcmp(TEXT(st, 4), "blocked_sync");
		timeline_capture_state(c, INT(st, 1), INT(st, 2), INT(st, 3), sync ? "blocked" : TEXT(st, 4), INT(st, 5),
				       TEXT(st, 6));
		if (sync)
			timeline_capture_amend(c, TL_AMEND_BLOCKED_SYNC, INT(st, 0), INT(st, 7));
	}
	sqlite3_finalize(st);
	st = rows_of(run, "SELECT prev_tid, ts_ns, next_tid, preempt, COALESCE(stack_id, 0) FROM switches ORDER BY rowid");
	while (sqlite3_step(st) == SQLITE_ROW)
		timeline_capture_switch(c, INT(st, 0), INT(st, 1), INT(st, 2), (int)INT(st, 3), INT(st, 4));
	sqlite3_finalize(st);
	st = rows_of(run, "SELECT wakee_tid, ts_ns, waker_tid FROM wakeups ORDER BY rowid");
	while (sqlite3_step(st) == SQLITE_ROW)
		timeline_capture_wakeup(c, INT(st, 0), INT(st, 1), INT(st, 2));
	sqlite3_finalize(st);
	st = rows_of(run, "SELECT tid, start_ns, end_ns, fd, fd_kind, name, ret FROM syscalls ORDER BY rowid");
	while (sqlite3_step(st) == SQLITE_ROW)
		timeline_capture_syscall(c, INT(st, 0), INT(st, 1), INT(st, 2), INT(st, 3), TEXT(st, 4), TEXT(st, 5),
					 INT(st, 6), HAS(st, 2, TL_HAS_END) | HAS(st, 3, TL_HAS_FD) | HAS(st, 6, TL_HAS_RET));
	sqlite3_finalize(st);
	st = rows_of(run, "SELECT id, tid, object_id, op, start_ns, end_ns, result, arg, callsite, blocked, wait_ns, "
			 "holder_tid, hold_ns, stack_id FROM sync_ops ORDER BY id");
	while (sqlite3_step(st) == SQLITE_ROW) {
		timeline_capture_op(c, INT(st, 1), INT(st, 2), TEXT(st, 3), INT(st, 4), INT(st, 5), INT(st, 6), INT(st, 7),
				    INT(st, 8), INT(st, 13), INT(st, 12), 0, 0,
				    HAS(st, 6, TL_HAS_RESULT) | HAS(st, 8, TL_HAS_CALLSITE));
		if (INT(st, 9))
			timeline_capture_amend(c, TL_AMEND_WAIT, INT(st, 0), INT(st, 10));
		if (sqlite3_column_type(st, 11) != SQLITE_NULL)
			timeline_capture_amend(c, TL_AMEND_HOLDER, INT(st, 0), INT(st, 11));
	}
	sqlite3_finalize(st);
	return c;
}

static void expect_capture_reads_as_the_file(const char *fixture)
{
	char file[64], copy[80], *err = NULL;
	struct mtx_timeline *tl = NULL;
	sqlite3 *run = fixture_open(fixture, file);

	/* The capture matches the file: it is used, not read over. */
	cr_assert_eq(timeline_capture_finish(capture_of(run), run, &tl, &err), 0, "%s", err ? err : "");
	cr_assert_not_null(tl, "%s: the capture was dropped", fixture);
	timeline_free(tl);

	snprintf(copy, sizeof(copy), "%s-read", file);
	copy_to_file(run, copy);
	cr_assert_eq(analysis_build_captured(run, capture_of(run), &err), 0, "%s", err ? err : "");
	sqlite3 *read = NULL;
	cr_assert_eq(sqlite3_open(copy, &read), SQLITE_OK);
	cr_assert_eq(analysis_build(read, 0, &err), 0, "%s", err ? err : "");
	sqlite3_close(read);
	expect_same_tables(run, copy, 30);
	fixture_close(run, file);
	unlink(copy);
}

/* Switches with stacks and sync ops with call sites. */
Test(capture, switch_callsites_as_read)
{
	expect_capture_reads_as_the_file("switch-callsites");
}

Test(timeline, captured_switches_are_where_the_read_puts_them)
{
	struct mtx_timeline *tl = NULL;
	char *err = NULL;
	cr_assert_eq(timeline_capture_finish(capture_of(db), db, &tl, &err), 0, "%s", err ? err : "");
	cr_assert_not_null(tl);
	cr_assert_str_eq(functions_of_switches_in(tl), EXPECTED);
}

/* Blocked lock ops with holders, relabelled states, cond waits. */
Test(capture, waits_as_read)
{
	expect_capture_reads_as_the_file("waits");
}

Test(capture, critical_path_locks_as_read)
{
	expect_capture_reads_as_the_file("critical-path-locks");
}

Test(capture, busy_as_read)
{
	expect_capture_reads_as_the_file("busy");
}

/* A capture short of the file's rows (or past them) is not used. */
Test(capture, one_that_does_not_match_the_file_gives_no_timeline)
{
	char file[64], *err = NULL;
	struct mtx_timeline *tl = NULL;
	sqlite3 *run = fixture_open("waits", file);
	struct tl_capture *c = capture_of(run);
	timeline_capture_wakeup(c, 300, 1, 301);
	cr_assert_eq(timeline_capture_finish(c, run, &tl, &err), 0, "%s", err ? err : "");
	cr_assert_null(tl);
	c = timeline_capture_new();
	timeline_capture_wakeup(c, 300, 1, 301);
	cr_assert_eq(timeline_capture_finish(c, run, &tl, &err), 0, "%s", err ? err : "");
	cr_assert_null(tl);
	fixture_close(run, file);
}

/* An amendment of a row never captured drops the capture. */
Test(capture, amending_a_row_not_captured_drops_it)
{
	char file[64], *err = NULL;
	struct mtx_timeline *tl = NULL;
	sqlite3 *run = fixture_open("waits", file);
	struct tl_capture *c = capture_of(run);
	timeline_capture_amend(c, TL_AMEND_HOLD, 1000000, 5);
	cr_assert_eq(timeline_capture_finish(c, run, &tl, &err), 0, "%s", err ? err : "");
	cr_assert_null(tl);
	fixture_close(run, file);
}

/* A time that no clock gives, in any table the analyses read, is refused
 * as damage rather than overflowing their arithmetic (found by
 * tests/fuzz/fuzz-db-rows: the histograms indexed past their buckets). */
Test(timeline_load, refuses_a_time_out_of_range)
{
	static const char *const damage[] = {
		"UPDATE threads SET end_ns = 9223372036854775807 WHERE tid = 101",
		"UPDATE processes SET start_ns = -1",
		"UPDATE thread_states SET start_ns = -9223372036854775808 WHERE rowid = 1",
		"UPDATE switches SET ts_ns = 4611686018427387904 WHERE rowid = 1",
		"UPDATE wakeups SET ts_ns = -5 WHERE rowid = 1",
		"UPDATE syscalls SET end_ns = 9223372036854775807 WHERE rowid = 1",
		"UPDATE sync_ops SET wait_ns = 9223372036854775807 WHERE id = (SELECT MAX(id) FROM sync_ops)",
	};
	for (size_t i = 0; i < sizeof(damage) / sizeof(damage[0]); i++) {
		char file[64], *err = NULL;
		struct mtx_timeline *tl = NULL;
		sqlite3 *run = fixture_open("waits", file);
		cr_assert_eq(db_exec(run, damage[i], &err), 0, "%s", err ? err : "");
		cr_assert_eq(sqlite3_changes(run), 1, "%s", damage[i]);
		cr_assert_eq(timeline_load(run, &tl, &err), -ERANGE, "%s", damage[i]);
		cr_assert_null(tl);
		cr_assert_not_null(strstr(err, "out of range"), "%s", err);
		free(err);
		fixture_close(run, file);
	}
}
