/*
 * src/db.h - opening, creating and checking run databases. Every reader
 * (info, report, browse) and the collector's writer go through here, so the
 * checks for "not an mtx database", "corrupt" and "newer schema" live once.
 */
#ifndef MTX_DB_H
#define MTX_DB_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * db_create - create a new, empty run database at @path (which must not
 * exist) with the embedded schema, tuned for bulk loading (WAL, no fsync).
 * Returns 0 and the handle in @out, or -errno with a message in @err
 * (caller frees).
 */
int db_create(const char *path, sqlite3 **out, char **err);

/*
 * db_open_readonly - open an existing run database for reading and check it
 * is one: an SQLite file, marked as mtx, of a schema this build understands,
 * as long as its header says (not truncated). Returns 0, or -errno with a
 * one-line message in @err (caller frees) naming the file and what to do.
 * Damage deeper in the file shows up later as an SQLite error for which
 * db_error_is_corrupt() is true.
 */
int db_open_readonly(const char *path, sqlite3 **out, char **err);

/*
 * db_wait_when_locked - make a statement on @db that finds the file locked
 * by another connection wait for the lock instead of failing with
 * "database is locked", saying so once after a second: as long as the lock
 * is held, for a reader (db_open_readonly: only a writer's work holds it
 * up), or, if @bounded, up to 10 s, for a writer, which a reader that
 * leaves a statement open must not hold up for ever.
 */
void db_wait_when_locked(sqlite3 *db, bool bounded);

/* db_check_pages - read every page of @db (PRAGMA quick_check): seconds on
 * a large run, so only 'mtx info' does it. Returns 0, or -EINVAL with "PATH:
 * the database is corrupt" in @err. */
int db_check_pages(sqlite3 *db, const char *path, char **err);

/* db_build_indexes - run @sql, CREATE INDEX statements, sorting on two
 * threads. Returns 0 or -EIO. */
int db_build_indexes(sqlite3 *db, const char *sql, char **err);

/* db_create_indexes - build the recorded tables' secondary indexes
 * (schema/indexes.sql) where they are missing. Returns 0 or -EIO. */
int db_create_indexes(sqlite3 *db, char **err);

/* db_finalize - build the secondary indexes and switch the journal back to a
 * single file so the database opens read-only anywhere (db_leave_wal, at
 * once). Returns 0, 1 when it stays in WAL mode, or -EIO. */
int db_finalize(sqlite3 *db, char **err);

/*
 * db_leave_wal - switch @db's journal from WAL back to a single file. It
 * cannot while another connection has the file open (a reader): tried
 * again for up to @wait_ms, then left in WAL mode, checkpointed as far as
 * the readers let it be. Returns 0, 1 when it stays in WAL mode, or
 * -errno with @err.
 */
int db_leave_wal(sqlite3 *db, int wait_ms, char **err);

/* db_exec - run @sql (one or more statements). Returns 0 or -EIO with @err. */
int db_exec(sqlite3 *db, const char *sql, char **err);

/* db_meta_set - insert or replace one meta fact. Returns 0 or -EIO. */
int db_meta_set(sqlite3 *db, const char *key, const char *value);
/* db_meta_set_int - the same for an integer value. */
int db_meta_set_int(sqlite3 *db, const char *key, int64_t value);

/* db_meta_get - the value of a meta key, malloc'd (caller frees), or NULL. */
char *db_meta_get(sqlite3 *db, const char *key);

/* db_query_int - the first column of the first row of @sql as an integer;
 * @fallback when there is no row or on error. */
int64_t db_query_int(sqlite3 *db, const char *sql, int64_t fallback);

/* db_bind_int_or_null / db_bind_text_or_null - bind @v (or @text) to
 * column @col of @st when @present (text: when not NULL), else NULL. Text is
 * bound SQLITE_STATIC: it must live until the statement is stepped. */
void db_bind_int_or_null(sqlite3_stmt *st, int col, int64_t v, int present);
void db_bind_text_or_null(sqlite3_stmt *st, int col, const char *text);

/* db_has_column - whether @table (in any attached schema) has @column; runs
 * recorded by older versions may lack columns added since. */
int db_has_column(sqlite3 *db, const char *table, const char *column);

/* db_has_table - whether table (or view) @table exists, in any schema. */
int db_has_table(sqlite3 *db, const char *table);

/*
 * db_shadow_missing_columns - for a run.db written before some columns of
 * the recorded tables were added (sync_objects.name, .used_as), put a TEMP
 * VIEW of each such table in front of it, with the missing columns as NULL,
 * and an empty TEMP table for each recorded table added since (interrupts):
 * every query on this connection then reads it like a new one, and the
 * file is not changed. db_open_readonly does it; a reader that opens a run
 * otherwise calls it. Returns 0 or -EIO.
 */
int db_shadow_missing_columns(sqlite3 *db);
/* db_add_missing_table - add recorded table @table to @db's file, empty,
 * when a run.db of an older mtx lacks it. 0 or -EIO. */
int db_add_missing_table(sqlite3 *db, const char *table);

/* db_run_start_ns / db_run_end_ns - when the run began and ended (meta
 * start_ns/end_ns, else the threads' extent): the origin of shown times. */
int64_t db_run_start_ns(sqlite3 *db);
int64_t db_run_end_ns(sqlite3 *db);

/* db_error_is_corrupt - whether an SQLite result code means a damaged file. */
int db_error_is_corrupt(int rc);

#endif
