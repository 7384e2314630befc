/*
 * tests/unit/test-row-queue.c - rows for prepared INSERTs through a row
 * queue (src/row-queue.c): the rows of two tables arrive once each, in the
 * order handed over, NULLs and strings as given, whether the last batch is
 * full, partial or empty, written on the caller's thread or on the queue's
 * own (at normal priority or SCHED_IDLE); a failed insert makes
 * row_queue_row refuse the rows after it and is reported by
 * row_queue_finish; an idle queue whose thread is stalled spills what
 * it cannot hold to a file and reads it back in order, strings included.
 * (collector/writer.c's test covers the writer on top.)
 */
#include "config.h"
#include "src/row-queue.h"

#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static sqlite3 *db;

static void setup(void)
{
	cr_assert_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, "CREATE TABLE t (i INTEGER NOT NULL, name TEXT); CREATE TABLE u (i INTEGER NOT NULL)",
				  NULL, NULL, NULL), SQLITE_OK);
}

static void teardown(void)
{
	sqlite3_close(db);
}

TestSuite(row_queue, .init = setup, .fini = teardown);

static long long query(const char *sql)
{
	sqlite3_stmt *st;
	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	long long v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static const char *const inserts[] = {
	"INSERT INTO t (i, name) VALUES (?, ?)",
	"INSERT INTO u (i) VALUES (?)",
};

enum mode { CALLER, BUSY_THREAD, IDLE_THREAD };

/* Rows 0 .. @n - 1 of t (i, and 'odd' for odd i, NULL for even; a NULL i
 * at @bad_at), and one of u for every third; returns the rows refused. */
static int put_rows(int n, int bad_at, enum mode mode, int *finished)
{
	struct row_queue *q;
	int refused = 0;
	cr_assert_eq(row_queue_open(db, inserts, 2, &q), 0, "%s", sqlite3_errmsg(db));
	if (mode != CALLER)
		cr_assert_eq(row_queue_start(q, mode == IDLE_THREAD), 0);
	for (int i = 0; i < n && !refused; i++) {
		struct queued_row *r = row_queue_row(q, 0);
		if (!r) {
			refused++;
			break;
		}
		row_put_int_or_null(r, i, i != bad_at);
		row_put_text(r, i % 2 ? "odd" : NULL);
		row_queue_put(q, r);
		if (i % 3 == 0) {
			if (!(r = row_queue_row(q, 1))) {
				refused++;
				break;
			}
			row_put_int(r, i / 3);
			row_queue_put(q, r);
		}
	}
	*finished = row_queue_finish(q);
	row_queue_close(q);
	return refused;
}

Test(row_queue, every_row_once_in_order)
{
	/* none, one, a batch less one, one, one and one more, several and a
	 * part, several blocks (~10 000 rows of t a block) */
	static const int counts[] = { 0, 1, 63, 64, 65, 200, 40000 };
	for (enum mode mode = CALLER; mode <= IDLE_THREAD; mode++)
		for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
			int n = counts[k], finished;
			cr_assert_eq(sqlite3_exec(db, "DELETE FROM t; DELETE FROM u", NULL, NULL, NULL), SQLITE_OK);
			cr_assert_eq(put_rows(n, -1, mode, &finished), 0);
			cr_assert_eq(finished, 0, "%d rows: %s", n, sqlite3_errmsg(db));
			cr_assert_eq(query("SELECT COUNT(*) FROM t"), n, "%d rows", n);
			cr_assert_eq(query("SELECT COUNT(*) FROM u"), (n + 2) / 3, "%d rows", n);
			/* rowid order is the order handed over; the NULLs stay NULL */
			cr_assert_eq(query("SELECT COUNT(*) FROM (SELECT i, ROW_NUMBER() OVER (ORDER BY rowid) - 1 AS k "
					   "FROM t) WHERE i <> k"), 0);
			cr_assert_eq(query("SELECT COUNT(*) FROM (SELECT i, ROW_NUMBER() OVER (ORDER BY rowid) - 1 AS k "
					   "FROM u) WHERE i <> k"), 0);
			cr_assert_eq(query("SELECT COUNT(*) FROM t WHERE name IS NULL"), (n + 1) / 2, "%d rows", n);
			cr_assert_eq(query("SELECT COUNT(*) FROM t WHERE name = 'odd'"), n / 2, "%d rows", n);
		}
}

Test(row_queue, a_failed_insert_refuses_the_rows_after_it)
{
	for (enum mode mode = CALLER; mode <= IDLE_THREAD; mode++) {
		int finished;
		/* ~30 blocks: without an idle CPU the SCHED_IDLE thread may not
		 * have met the bad row before the last one is handed over. */
		int refused = put_rows(200000, 10, mode, &finished);
		cr_assert(refused == 1 || (mode == IDLE_THREAD && refused == 0), "%d rows refused", refused);
		cr_assert_eq(finished, SQLITE_CONSTRAINT, "finish reports the failure (%d)", finished);
		cr_assert_eq(query("SELECT COUNT(*) FROM t WHERE i > 100"), 0, "rows after the failure were written");
	}
}

/* The queue's thread waits in SQLite's progress handler while set. */
static volatile int stalled;

static int stall(void *arg)
{
	(void)arg;
	while (__atomic_load_n(&stalled, __ATOMIC_ACQUIRE))
		usleep(1000);
	return 0;
}

Test(row_queue, a_stalled_idle_thread_spills_and_reads_back_in_order)
{
	char dir[] = "/tmp/mtx-row-queue-XXXXXX", path[64];
	const char *const wide[] = { "INSERT INTO w VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)" };
	struct row_queue *q;
	sqlite3 *fdb;
	char name[32];
	/* 16 values a row, ~1 800 rows a block: several times the 128
	 * blocks the queue keeps in memory */
	const int n = 600000;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/run.db", dir);
	cr_assert_eq(sqlite3_open(path, &fdb), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(fdb, "CREATE TABLE w (i, name, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, "
				       "c14, c15); BEGIN", NULL, NULL, NULL), SQLITE_OK);
	cr_assert_eq(row_queue_open(fdb, wide, 1, &q), 0);
	stalled = 1;
	sqlite3_progress_handler(fdb, 1000, stall, NULL);
	cr_assert_eq(row_queue_start(q, true), 0);
	for (int i = 0; i < n; i++) {
		struct queued_row *r = row_queue_row(q, 0);
		cr_assert_not_null(r, "row %d refused: %s", i, row_queue_errmsg(q));
		row_put_int(r, i);
		snprintf(name, sizeof(name), "row %d", i);
		row_put_text_copy(r, i % 1000 ? NULL : name); /* a copy the file's block owns */
		for (int c = 2; c < 16; c++)
			row_put_int(r, c);
		row_queue_put(q, r);
	}
	/* the caller never waited for the stalled thread: most rows are in the file */
	cr_assert_gt(row_queue_rows_spilled(q), (uint64_t)n / 2, "%llu of %d rows spilled",
		     (unsigned long long)row_queue_rows_spilled(q), n);
	__atomic_store_n(&stalled, 0, __ATOMIC_RELEASE);
	cr_assert_eq(row_queue_finish(q), 0, "%s", row_queue_errmsg(q));
	sqlite3_progress_handler(fdb, 0, NULL, NULL);
	row_queue_close(q);
	cr_assert_eq(sqlite3_exec(fdb, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	db = fdb; /* for query() and teardown */
	cr_assert_eq(query("SELECT COUNT(*) FROM w"), n);
	cr_assert_eq(query("SELECT COUNT(*) FROM w WHERE i <> rowid - 1"), 0, "rows out of order");
	cr_assert_eq(query("SELECT COUNT(*) FROM w WHERE name IS NOT NULL"), n / 1000);
	cr_assert_eq(query("SELECT COUNT(*) FROM w WHERE name IS NOT NULL AND name <> 'row ' || i"), 0);
	cr_assert_eq(query("SELECT SUM(c15) FROM w"), 15LL * n);
	unlink(path);
	rmdir(dir);
}
