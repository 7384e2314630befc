/*
 * tests/unit/test-insert-batch.c - many rows per INSERT (src/insert-batch.c):
 * every row arrives once, in the order bound, whether the last batch is
 * full, partial or empty; a bad row fails its batch.
 */
#include "config.h"
#include "src/insert-batch.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <sqlite3.h>

static sqlite3 *db;

static void setup(void)
{
	cr_assert_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, "CREATE TABLE t (i INTEGER NOT NULL, name TEXT)", NULL, NULL, NULL), SQLITE_OK);
}

static void teardown(void)
{
	sqlite3_close(db);
}

TestSuite(insert_batch, .init = setup, .fini = teardown);

static long long query(const char *sql)
{
	sqlite3_stmt *st;
	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	long long v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* Insert rows 0 .. @n - 1 (i, and 'odd' for odd i, NULL for even). */
static void insert(int n)
{
	struct insert_batch b;
	cr_assert_eq(insert_batch_prepare(db, &b, "t (i, name)", 2), 0, "%s", sqlite3_errmsg(db));
	for (int i = 0; i < n; i++) {
		int c = insert_batch_row(&b);
		sqlite3_bind_int(b.st, c + 1, i);
		if (i % 2)
			sqlite3_bind_text(b.st, c + 2, "odd", -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(b.st, c + 2);
		cr_assert_eq(insert_batch_add(&b), 0, "row %d: %s", i, sqlite3_errmsg(db));
	}
	cr_assert_eq(insert_batch_flush(&b), 0, "%s", sqlite3_errmsg(db));
	insert_batch_finalize(&b);
}

Test(insert_batch, every_row_once_in_order)
{
	/* none, one, a batch less one, one, one and one more, several and a part */
	static const int counts[] = { 0, 1, 63, 64, 65, 200 };
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		int n = counts[k];
		cr_assert_eq(sqlite3_exec(db, "DELETE FROM t", NULL, NULL, NULL), SQLITE_OK);
		insert(n);
		cr_assert_eq(query("SELECT COUNT(*) FROM t"), n, "%d rows", n);
		/* rowid order is the order bound; the NULLs stay NULL */
		cr_assert_eq(query("SELECT COUNT(*) FROM t WHERE i <> (SELECT COUNT(*) FROM t u WHERE u.rowid < t.rowid)"), 0);
		cr_assert_eq(query("SELECT COUNT(*) FROM t WHERE name IS NULL"), (n + 1) / 2, "%d rows", n);
		cr_assert_eq(query("SELECT COUNT(*) FROM t WHERE name = 'odd'"), n / 2, "%d rows", n);
	}
}

Test(insert_batch, a_bad_row_fails)
{
	struct insert_batch b;
	cr_assert_eq(insert_batch_prepare(db, &b, "t (i, name)", 2), 0);
	int c = insert_batch_row(&b);
	sqlite3_bind_null(b.st, c + 1); /* i is NOT NULL */
	sqlite3_bind_null(b.st, c + 2);
	cr_assert_eq(insert_batch_add(&b), 0); /* not inserted yet */
	cr_assert_eq(insert_batch_flush(&b), -EIO);
	insert_batch_finalize(&b);
	cr_assert_eq(query("SELECT COUNT(*) FROM t"), 0);
}
