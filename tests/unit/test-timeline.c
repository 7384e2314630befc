/*
 * tests/unit/test-timeline.c - the function each switch was in
 * (struct tl_switch.function_id, src/timeline.c) on the run of
 * tests/fixtures/switch-callsites.sql, whose header works out each answer.
 */
#include "config.h"
#include "tests/unit/fixture.h"

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

/* The switches' function ids, "tid: id id ...\n" a thread, oldest first. */
static char *functions_of_switches(void)
{
	static char buf[512];
	struct mtx_timeline *tl = NULL;
	char *err = NULL;
	size_t n = 0;
	cr_assert_eq(timeline_load(db, &tl, &err), 0, "%s", err ? err : "");
	buf[0] = '\0';
	for (size_t i = 0; i < tl->nr_threads; i++) {
		const struct tl_thread *t = &tl->threads[i];
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%lld:", (long long)t->tid);
		for (size_t j = 0; j < t->nr_switches; j++) {
			cr_assert_eq(t->switches[j].at_leaf, 0);
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, " %lld", (long long)t->switches[j].function_id);
		}
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "\n");
		cr_assert_lt(n, sizeof(buf));
	}
	timeline_free(tl);
	return buf;
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
 * The run's read on two threads (src/timeline.c: split_read) gives the
 * derived tables that one thread reading everything gives: the file's
 * database is read on two connections, an in-memory copy (no file for a
 * second connection) on one. In busy.sql the ops are few, so the second
 * thread reads all of them and the syscalls; with 20 000 more ops they are
 * split between the two and the syscalls stay on the first.
 */
static void expect_same_derived_tables(const char *extra_sql)
{
	char file[64], seq[80], *err = NULL;
	sqlite3 *run = fixture_open("busy", file), *mem = NULL, *out = NULL;
	sqlite3_backup *b;

	cr_assert_eq(db_exec(run, extra_sql, &err), 0, "%s", err ? err : "");
	cr_assert_eq(sqlite3_open(":memory:", &mem), SQLITE_OK);
	cr_assert_not_null(b = sqlite3_backup_init(mem, "main", run, "main"));
	cr_assert_eq(sqlite3_backup_step(b, -1), SQLITE_DONE);
	sqlite3_backup_finish(b);
	cr_assert_eq(analysis_build(run, 0, &err), 0, "%s", err ? err : "");
	cr_assert_eq(analysis_build(mem, 0, &err), 0, "%s", err ? err : "");

	/* The one-thread result into a file beside, to compare with SQL (all
	 * but meta, whose derived_ms differs). */
	snprintf(seq, sizeof(seq), "%s-seq", file);
	cr_assert_eq(sqlite3_open(seq, &out), SQLITE_OK);
	cr_assert_not_null(b = sqlite3_backup_init(out, "main", mem, "main"));
	cr_assert_eq(sqlite3_backup_step(b, -1), SQLITE_DONE);
	sqlite3_backup_finish(b);
	sqlite3_close(out);
	sqlite3_close(mem);
	char sql[512];
	snprintf(sql, sizeof(sql), "ATTACH '%s' AS seq", seq);
	cr_assert_eq(db_exec(run, sql, &err), 0, "%s", err ? err : "");

	sqlite3_stmt *tables;
	int nr_tables = 0;
	cr_assert_eq(sqlite3_prepare_v2(run, "SELECT name FROM seq.sqlite_schema WHERE type = 'table' AND name != 'meta'", -1,
					&tables, NULL),
		     SQLITE_OK);
	while (sqlite3_step(tables) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(tables, 0);
		snprintf(sql, sizeof(sql),
			 "SELECT (SELECT COUNT(*) FROM (SELECT * FROM main.%s EXCEPT SELECT * FROM seq.%s)) + "
			 "(SELECT COUNT(*) FROM (SELECT * FROM seq.%s EXCEPT SELECT * FROM main.%s)) + "
			 "ABS((SELECT COUNT(*) FROM main.%s) - (SELECT COUNT(*) FROM seq.%s))",
			 t, t, t, t, t, t);
		cr_expect_eq(db_query_int(run, sql, -1), 0, "table %s differs", t);
		nr_tables++;
	}
	sqlite3_finalize(tables);
	cr_assert_gt(nr_tables, 30);
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
