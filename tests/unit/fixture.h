/*
 * tests/unit/fixture.h - a run database loaded from a fixture SQL file
 * (tests/fixtures/NAME.sql: INSERTs into the recorded tables, small enough
 * to compute every answer by hand), for the analysis and report tests.
 */
#ifndef MTX_TEST_FIXTURE_H
#define MTX_TEST_FIXTURE_H

#include "schema/schema.h"
#include "src/derived/analysis.h"
#include "src/db.h"
#include "src/derived/timeline.h"
#include "tests/fixture-load.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* fixture_open - a fresh run.db at a temporary path (written into @path,
 * 64 bytes) holding the schema, tests/fixtures/@name.sql and the secondary
 * indexes. Fails the test on any error. */
static inline sqlite3 *fixture_open(const char *name, char *path)
{
	char file[512], *err = NULL;
	sqlite3 *db = NULL;
	snprintf(path, 64, "/tmp/mtx-fixture-%s-%d.db", name, getpid());
	snprintf(file, sizeof(file), "%s/%s.sql", FIXTURES_DIR, name);
	cr_assert_eq(fixture_load(file, path, &db, &err), 0, "%s", err ? err : "");
	return db;
}

/* fixture_analyse - run @analysis on @db with the timeline of @db, as
 * analysis_build does. Fails the test on any error. */
static inline void fixture_analyse(sqlite3 *db, int (*analysis)(sqlite3 *, const struct mtx_timeline *, char **))
{
	struct mtx_timeline *tl = NULL;
	char *err = NULL;
	cr_assert_eq(timeline_load(db, &tl, &err), 0, "%s", err ? err : "");
	cr_assert_eq(analysis(db, tl, &err), 0, "%s", err ? err : "");
	timeline_free(tl);
}

/* fixture_rows - all rows of @sql on @db, one line each with '|' between
 * columns ("-" for NULL), in a buffer the next call reuses. */
static inline char *fixture_rows(sqlite3 *db, const char *sql)
{
	static char buf[1024];
	sqlite3_stmt *st;
	size_t n = 0;
	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
	buf[0] = '\0';
	while (sqlite3_step(st) == SQLITE_ROW)
		for (int c = 0; c < sqlite3_column_count(st); c++) {
			const char *v = (const char *)sqlite3_column_text(st, c);
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", v ? v : "-",
					      c + 1 < sqlite3_column_count(st) ? "|" : "\n");
			cr_assert_lt(n, sizeof(buf));
		}
	sqlite3_finalize(st);
	return buf;
}

/* fixture_close - close and remove the database. */
static inline void fixture_close(sqlite3 *db, const char *path)
{
	sqlite3_close(db);
	unlink(path);
}

#endif
