/* tests/unit/test-db.c - opening run databases: every bad file gets a clear error. */
#include "config.h"
#include "schema/schema.h"
#include "src/db.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[64];

static void setup(void)
{
	snprintf(path, sizeof(path), "/tmp/mtx-test-db-%d.db", getpid());
	unlink(path);
}

static void teardown(void)
{
	char side[80];
	unlink(path);
	/* A database opened in WAL mode leaves these beside it. */
	snprintf(side, sizeof(side), "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", path);
	unlink(side);
}

TestSuite(db, .init = setup, .fini = teardown);

static void expect_error(const char *fragment)
{
	sqlite3 *db = NULL;
	char *err = NULL;
	cr_assert_neq(db_open_readonly(path, &db, &err), 0);
	cr_assert_null(db);
	cr_assert_not_null(err);
	cr_assert(strstr(err, fragment) != NULL, "message '%s' lacks '%s'", err, fragment);
	cr_assert(strstr(err, path) != NULL, "message '%s' does not name the file", err);
	free(err);
}

static void write_file(const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

Test(db, created_database_opens_and_has_the_schema)
{
	sqlite3 *db;
	char *err = NULL;
	cr_assert_eq(db_create(path, &db, &err), 0);
	cr_assert_eq(db_meta_set(db, "k", "v"), 0);
	sqlite3_close(db);
	cr_assert_eq(db_open_readonly(path, &db, &err), 0, "%s", err ? err : "");
	cr_assert_eq(db_query_int(db, "PRAGMA user_version", -1), MTX_SCHEMA_VERSION);
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM thread_summary", -1), 0);
	{
		char *v = db_meta_get(db, "k");
		cr_assert_str_eq(v, "v");
		free(v);
	}
	sqlite3_close(db);
}

Test(db, missing_file)
{
	expect_error("No such file");
}

Test(db, text_file_is_not_a_database)
{
	write_file("this is not sqlite, just some text that is long enough to look like a header....\n");
	expect_error("not an mtx database");
}

Test(db, sqlite_file_of_another_program)
{
	sqlite3 *db;
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL, NULL);
	sqlite3_close(db);
	expect_error("not an mtx database");
}

Test(db, newer_schema_is_refused)
{
	sqlite3 *db;
	char *err = NULL, sql[64];
	cr_assert_eq(db_create(path, &db, &err), 0);
	snprintf(sql, sizeof(sql), "PRAGMA user_version=%d", MTX_SCHEMA_VERSION + 1);
	sqlite3_exec(db, sql, NULL, NULL, NULL);
	sqlite3_close(db);
	expect_error("newer mtx");
}

Test(db, corrupt_file_is_detected)
{
	sqlite3 *db;
	char *err = NULL;
	FILE *f;
	cr_assert_eq(db_create(path, &db, &err), 0);
	db_exec(db, "PRAGMA journal_mode=DELETE", NULL);
	for (int i = 0; i < 2000; i++)
		db_meta_set_int(db, "filler", i), db_exec(db, "INSERT INTO switches (ts_ns, cpu, prev_tid, prev_state, preempt, next_tid) VALUES (1,2,3,'S',0,4)", NULL);
	sqlite3_close(db);
	/* Overwrite the middle of the file with garbage, keeping the header. */
	f = fopen(path, "r+");
	fseek(f, 4096 * 2, SEEK_SET);
	for (int i = 0; i < 8192; i++)
		fputc(0xA5, f);
	fclose(f);
	/* Opening reads only the header; reading every page finds the damage. */
	cr_assert_eq(db_open_readonly(path, &db, &err), 0, "%s", err ? err : "");
	cr_assert_neq(db_check_pages(db, path, &err), 0);
	cr_assert(err && strstr(err, "corrupt") && strstr(err, path), "message '%s'", err ? err : "");
	free(err);
	sqlite3_close(db);
}

Test(db, truncated_file_is_detected)
{
	sqlite3 *db;
	char *err = NULL;
	cr_assert_eq(db_create(path, &db, &err), 0);
	db_exec(db, "PRAGMA journal_mode=DELETE", NULL);
	for (int i = 0; i < 2000; i++)
		db_exec(db, "INSERT INTO switches (ts_ns, cpu, prev_tid, prev_state, preempt, next_tid) VALUES (1,2,3,'S',0,4)", NULL);
	sqlite3_close(db);
	cr_assert_eq(truncate(path, 4096 * 3), 0);
	expect_error("corrupt");
}
