/*
 * tests/unit/test-insert-batch.c - many rows per INSERT (src/insert-batch.c):
 * every row arrives once, in the order bound, whether the last batch is
 * full, partial or empty; a bad row fails its batch. Through an insert
 * pipe, the rows of two tables that a producer thread adds arrive the same
 * way, and a failed insert stops the producer and fails the run.
 */
#include "config.h"
#include "src/insert-batch.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdbool.h>

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

/* ---- the pipe ---- */

struct row {
	int i;
	bool bad; /* NULL for the NOT NULL column */
};

static void bind_t(sqlite3_stmt *st, int c, const void *row)
{
	const struct row *r = row;
	if (r->bad)
		sqlite3_bind_null(st, c + 1);
	else
		sqlite3_bind_int(st, c + 1, r->i);
	if (r->i % 2)
		sqlite3_bind_text(st, c + 2, "odd", -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, c + 2);
}

static void bind_u(sqlite3_stmt *st, int c, const void *row)
{
	sqlite3_bind_int(st, c + 1, ((const struct row *)row)->i);
}

static const struct insert_pipe_table pipe_tables[] = {
	{ "t (i, name)", 2, sizeof(struct row), bind_t },
	{ "u (i)", 1, sizeof(struct row), bind_u },
};

struct producer {
	int n, bad_at; /* rows of t (u gets one for every third), the bad one or -1 */
	struct insert_pipe *pipe;
	int nulls;     /* NULL rows it got */
};

static int produce(void *arg)
{
	struct producer *p = arg;
	for (int i = 0; i < p->n; i++) {
		struct row *r = insert_pipe_row(p->pipe, 0);
		if (!r) {
			p->nulls++;
			return -ECANCELED;
		}
		*r = (struct row){ i, i == p->bad_at };
		if (i % 3 == 0) {
			if (!(r = insert_pipe_row(p->pipe, 1))) {
				p->nulls++;
				return -ECANCELED;
			}
			*r = (struct row){ i / 3, false };
		}
	}
	return 0;
}

static int run_pipe(struct producer *p)
{
	cr_assert_eq(insert_pipe_open(db, pipe_tables, 2, &p->pipe), 0, "%s", sqlite3_errmsg(db));
	int rc = insert_pipe_run(p->pipe, produce, p);
	insert_pipe_close(p->pipe);
	return rc;
}

Test(insert_batch, a_pipe_inserts_every_row_once_in_order)
{
	/* none, one, a block and more (2048 rows a block), several blocks */
	static const int counts[] = { 0, 1, 2049, 20000 };
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		int n = counts[k];
		struct producer p = { .n = n, .bad_at = -1 };
		cr_assert_eq(sqlite3_exec(db, "DELETE FROM t; DELETE FROM u", NULL, NULL, NULL), SQLITE_OK);
		cr_assert_eq(run_pipe(&p), 0, "%d rows: %s", n, sqlite3_errmsg(db));
		cr_assert_eq(query("SELECT COUNT(*) FROM t"), n, "%d rows", n);
		cr_assert_eq(query("SELECT COUNT(*) FROM u"), (n + 2) / 3, "%d rows", n);
		cr_assert_eq(query("SELECT COUNT(*) FROM t WHERE i <> (SELECT COUNT(*) FROM t v WHERE v.rowid < t.rowid)"), 0);
		cr_assert_eq(query("SELECT COUNT(*) FROM u WHERE i <> (SELECT COUNT(*) FROM u v WHERE v.rowid < u.rowid)"), 0);
		cr_assert_eq(query("SELECT COUNT(*) FROM t WHERE name = 'odd'"), n / 2, "%d rows", n);
	}
}

Test(insert_batch, a_failed_insert_stops_the_pipe)
{
	struct producer p = { .n = 1000000, .bad_at = 10 };
	cr_assert_eq(run_pipe(&p), -EIO);
	cr_assert_eq(p.nulls, 1, "the producer was told once and stopped");
}
