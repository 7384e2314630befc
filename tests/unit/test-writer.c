/*
 * tests/unit/test-writer.c - collector/writer.c: rows handed over in any
 * mix of tables come out with each table's rows in their order, NULLs and
 * strings as given (copied strings survive their caller's buffer), in and
 * out of the many-row INSERTs, whether written on the caller's thread or
 * by the background writer, with commits in between; an error is sticky
 * and reaches the caller from the background thread too.
 */
#include "config.h"
#include "collector/writer.h"
#include "src/db.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char path[64];

static void setup(void)
{
	snprintf(path, sizeof(path), "/tmp/mtx-test-writer-%d.db", getpid());
	unlink(path);
}

static void teardown(void)
{
	unlink(path);
}

TestSuite(writer, .init = setup, .fini = teardown);

/* More rows than a block holds, three tables interleaved unevenly, a meta
 * value from a reused buffer every 1000 rows, a commit every 3000. */
#define NR_ROWS 10007
static void write_rows(struct mtx_writer *w)
{
	static const char *const states[] = { "running", "runnable", "blocked" };
	char buf[32];
	for (int i = 0; i < NR_ROWS; i++) {
		cr_assert_eq(writer_thread_state(w, i % 7, (uint64_t)i * 10, (uint64_t)i * 10 + 5, states[i % 3],
						 i % 5 ? i % 2 : -1, i % 11 ? NULL : "futex"), 0);
		if (i % 3 == 0)
			cr_assert_eq(writer_wakeup(w, (uint64_t)i, 1, i, i + 1, i % 2 ? -1 : 0), 0);
		if (i % 1000 == 0) {
			snprintf(buf, sizeof(buf), "value %d", i);
			cr_assert_eq(writer_meta(w, i % 2000 ? "odd_thousand" : "even_thousand", buf), 0);
			memset(buf, 'x', sizeof(buf) - 1);
		}
		if (i % 3000 == 2999)
			cr_assert_eq(writer_commit(w), 0);
	}
}

static void check_rows(sqlite3 *db)
{
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM thread_states", -1), NR_ROWS);
	/* In order: row k (by rowid) is the k-th handed over. */
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM thread_states WHERE start_ns != (rowid - 1) * 10 "
				      "OR end_ns != start_ns + 5 OR tid != (rowid - 1) % 7",
				  -1),
		     0);
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM thread_states WHERE state != CASE (rowid - 1) % 3 "
				      "WHEN 0 THEN 'running' WHEN 1 THEN 'runnable' ELSE 'blocked' END",
				  -1),
		     0);
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM thread_states WHERE (cpu IS NULL) != ((rowid - 1) % 5 = 0) "
				      "OR (syscall IS NULL) != ((rowid - 1) % 11 != 0)",
				  -1),
		     0);
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM wakeups", -1), (NR_ROWS + 2) / 3);
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM wakeups WHERE ts_ns != (rowid - 1) * 3 "
				      "OR wakee_tid != ts_ns + 1 OR (target_cpu IS NULL) != (ts_ns % 2 = 1)",
				  -1),
		     0);
	/* INSERT OR REPLACE in order: the last value of each key stays. */
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM meta WHERE key = 'odd_thousand' AND value = 'value 9000'", -1), 1);
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM meta WHERE key = 'even_thousand' AND value = 'value 10000'", -1),
		     1);
}

Test(writer, rows_in_order_on_the_callers_thread)
{
	struct mtx_writer *w;
	char *err = NULL;
	cr_assert_eq(writer_open(&w, path, &err), 0, "%s", err ? err : "");
	write_rows(w);
	cr_assert_eq(writer_rows(w), NR_ROWS + (NR_ROWS + 2) / 3 + 11);
	check_rows(writer_db(w));
	cr_assert_eq(writer_close(w, 1), 0);
}

Test(writer, rows_in_order_from_the_background_writer)
{
	struct mtx_writer *w;
	char *err = NULL;
	cr_assert_eq(writer_open(&w, path, &err), 0, "%s", err ? err : "");
	cr_assert_eq(writer_background(w), 0);
	write_rows(w);
	check_rows(writer_db(w));
	/* Rows after writer_db are written too (without the thread now). */
	cr_assert_eq(writer_meta_int(w, "after", 42), 0);
	cr_assert_eq(db_query_int(writer_db(w), "SELECT value FROM meta WHERE key = 'after'", -1), 42);
	cr_assert_eq(writer_close(w, 1), 0);
	/* And the closed file holds them. */
	sqlite3 *db;
	cr_assert_eq(db_open_readonly(path, &db, &err), 0, "%s", err ? err : "");
	check_rows(db);
	sqlite3_close(db);
}

/* A second functions row with the same id fails: from then on every call
 * returns the error, and writer_error says what it was. */
static void sticky_error(int background)
{
	struct mtx_writer *w;
	char *err = NULL;
	cr_assert_eq(writer_open(&w, path, &err), 0, "%s", err ? err : "");
	if (background)
		cr_assert_eq(writer_background(w), 0);
	cr_assert_eq(writer_function(w, 1, "f", NULL, NULL, 0), 0);
	writer_function(w, 1, "g", NULL, NULL, 0);
	writer_db(w); /* everything handed over is written by now */
	cr_assert_not_null(writer_error(w));
	cr_assert_neq(writer_thread_state(w, 1, 0, 1, "running", 0, NULL), 0);
	cr_assert_neq(writer_commit(w), 0);
	cr_assert_neq(writer_close(w, 0), 0);
}

Test(writer, an_error_is_sticky)
{
	sticky_error(0);
}

Test(writer, an_error_of_the_background_writer_is_sticky)
{
	sticky_error(1);
}
