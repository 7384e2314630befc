/* src/db.c - see db.h. */
#include "config.h"
#include "src/db.h"
#include "schema/schema.h"
#include "src/error.h"
#include "src/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int db_exec(sqlite3 *db, const char *sql, char **err)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK) {
		error_set(err, "%s", msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		return rc == SQLITE_FULL ? -ENOSPC : -EIO;
	}
	return 0;
}

/* A wait for a lock is said once it has lasted this many steps (1 s); a
 * bounded one gives up after the last (10 s). */
#define LOCK_WAIT_STEP_US 20000
#define LOCK_WAIT_SAID_AFTER 50
#define LOCK_WAIT_BOUNDED_STEPS 500

static int wait_for_lock(sqlite3 *db, int nr_waits, bool bounded)
{
	if (bounded && nr_waits >= LOCK_WAIT_BOUNDED_STEPS)
		return 0;
	if (nr_waits == LOCK_WAIT_SAID_AFTER)
		log_info("waiting for %s: another program holds a lock on it", sqlite3_db_filename(db, "main"));
	usleep(LOCK_WAIT_STEP_US);
	return 1;
}

/* Only a live process holds a lock on a file (the kernel drops a dead
 * one's), so this wait ends with the holder's work, however long. */
static int wait_as_long_as_locked(void *db, int nr_waits)
{
	return wait_for_lock(db, nr_waits, false);
}

static int wait_bounded(void *db, int nr_waits)
{
	return wait_for_lock(db, nr_waits, true);
}

void db_wait_when_locked(sqlite3 *db, bool bounded)
{
	sqlite3_busy_handler(db, bounded ? wait_bounded : wait_as_long_as_locked, db);
}

int db_create(const char *path, sqlite3 **out, char **err)
{
	sqlite3 *db = NULL;
	char pragmas[256];
	int rc;

	*out = NULL;
	/* One thread writes: no need for SQLite's own mutexes (4% of load time). */
	rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		int e = errno ? errno : EIO;
		error_set(err, "cannot create %s: %s", path, strerror(e));
		sqlite3_close(db);
		return -e;
	}
	/* A reader's statement under way is waited for, a while. */
	db_wait_when_locked(db, true);
	/* Bulk loading: WAL keeps every committed batch safe if the collector is
	 * killed; synchronous=OFF skips fsync (a crash of the OS, not of mtx,
	 * may lose the tail). */
	snprintf(pragmas, sizeof(pragmas),
		 "PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF; PRAGMA cache_size=-65536;"
		 "PRAGMA application_id=%d; PRAGMA user_version=%d;",
		 MTX_APPLICATION_ID, MTX_SCHEMA_VERSION);
	if (db_exec(db, pragmas, err) || db_exec(db, schema_mtx_sql, err) ||
	    db_exec(db, schema_views_sql, err)) {
		error_set(err, "cannot create %s: %s", path, err && *err ? *err : "schema failed");
		sqlite3_close(db);
		return -EIO;
	}
	*out = db;
	return 0;
}

/* The columns added to recorded tables since schema version 1 was first
 * written, grouped by table: what a run.db of an older mtx lacks. */
static const struct {
	const char *table, *column;
} added_columns[] = {
	{ "calls", "retroactive" },
	{ "summarized_states", "cpu" },
	{ "syscalls", "path" },
	{ "sync_objects", "name" },
	{ "sync_objects", "used_as" },
	{ "threads", "attached" },
};

/* The recorded tables added since: a run.db of an older mtx has none, so
 * an empty one stands in (their rows were not recorded then). */
static const char *const added_tables[] = { "interrupts", "instrumentation", "instrumentation_functions",
					    "summarized_states", "summarized_switches", "summarized_syscalls",
					    "summarized_sync_ops", "pc_nodes", "pc_edges", "phases" };

/* An empty copy of recorded table @table, from the schema's text: TEMP
 * with @temp, else in the file. */
static int copy_table(sqlite3 *db, const char *table, bool temp)
{
	char *head = sqlite3_mprintf("CREATE TABLE %s (", table), *sql;
	/* its last line: comments inside may hold ");" */
	const char *from = head ? strstr(schema_mtx_sql, head) : NULL, *to = from ? strstr(from, "\n);") : NULL;
	int rc;

	sqlite3_free(head);
	if (!to)
		return -EIO;
	sql = sqlite3_mprintf("CREATE %s%.*s", temp ? "TEMP " : "", (int)(to + 3 - (from + strlen("CREATE "))),
			      from + strlen("CREATE "));
	rc = !sql || sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK ? -EIO : 0;
	sqlite3_free(sql);
	return rc;
}

int db_add_missing_table(sqlite3 *db, const char *table)
{
	return db_has_table(db, table) ? 0 : copy_table(db, table, false);
}

int db_shadow_missing_columns(sqlite3 *db)
{
	const size_t n = sizeof(added_columns) / sizeof(added_columns[0]);
	for (size_t i = 0; i < sizeof(added_tables) / sizeof(added_tables[0]); i++)
		if (!db_has_table(db, added_tables[i]) && copy_table(db, added_tables[i], true))
			return -EIO;
	for (size_t i = 0; i < n;) {
		const char *table = added_columns[i].table;
		char *sql = sqlite3_mprintf("CREATE TEMP VIEW \"%w\" AS SELECT *", table), *more;
		int missing = 0, rc = 0;
		for (; i < n && !strcmp(added_columns[i].table, table); i++) {
			if (!sql || db_has_column(db, table, added_columns[i].column))
				continue;
			more = sqlite3_mprintf("%s, NULL AS \"%w\"", sql, added_columns[i].column);
			sqlite3_free(sql);
			sql = more;
			missing++;
		}
		if (sql && missing) {
			more = sqlite3_mprintf("%s FROM main.\"%w\"", sql, table);
			sqlite3_free(sql);
			sql = more;
			rc = !sql || sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK;
		}
		if (!sql)
			rc = 1;
		sqlite3_free(sql);
		if (rc)
			return -EIO;
	}
	return 0;
}

int db_error_is_corrupt(int rc)
{
	rc &= 0xff;
	return rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB;
}

int db_open_readonly(const char *path, sqlite3 **out, char **err)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	struct stat sb;
	int64_t app_id, version;
	int rc;

	*out = NULL;
	if (stat(path, &sb) < 0) {
		int e = errno;
		error_set(err, "%s: %s", path, strerror(e));
		return -e;
	}
	if (!S_ISREG(sb.st_mode)) {
		error_set(err, "%s: not a regular file", path);
		return -EINVAL;
	}
	rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		error_set(err, "%s: cannot open: %s", path, sqlite3_errstr(rc));
		sqlite3_close(db);
		return -EIO;
	}
	/* The collector locks the file while it creates it, switches its
	 * journal and writes the derived tables, a reader that stores them
	 * while it does: this reader waits rather than fail. */
	db_wait_when_locked(db, false);
	/* Reading the header and the schema touches the first pages: a file that
	 * is not SQLite fails here with SQLITE_NOTADB. */
	rc = sqlite3_prepare_v2(db, "PRAGMA application_id", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	app_id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW) {
		if ((rc & 0xff) == SQLITE_NOTADB)
			error_set(err, "%s: not an mtx database (not an SQLite file)", path);
		else if (db_error_is_corrupt(rc))
			error_set(err, "%s: the database is corrupt", path);
		else
			error_set(err, "%s: cannot read: %s", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return -EINVAL;
	}
	if (app_id != MTX_APPLICATION_ID) {
		error_set(err, "%s: not an mtx database (an SQLite file of another program)", path);
		sqlite3_close(db);
		return -EINVAL;
	}
	version = db_query_int(db, "PRAGMA user_version", -1);
	if (version > MTX_SCHEMA_VERSION) {
		error_set(err, "%s: written by a newer mtx (schema %lld; this mtx reads up to %d): upgrade mtx",
			path, (long long)version, MTX_SCHEMA_VERSION);
		sqlite3_close(db);
		return -EINVAL;
	}
	if (version < 1) {
		error_set(err, "%s: not an mtx database (no schema version)", path);
		sqlite3_close(db);
		return -EINVAL;
	}
	/* A truncated file is shorter than its header says (unless pages are
	 * still in the WAL of a killed collector). The size is taken after the
	 * pages are counted: a live collector's checkpoint moves them from the
	 * WAL into the file meanwhile, and then removes the WAL. */
	char wal[4096];
	struct stat wb;
	int64_t header_bytes = db_query_int(db, "PRAGMA page_count", 0) * db_query_int(db, "PRAGMA page_size", 0);
	snprintf(wal, sizeof(wal), "%s-wal", path);
	if (stat(wal, &wb) < 0 && stat(path, &sb) == 0 && (int64_t)sb.st_size < header_bytes) {
		error_set(err, "%s: the database is corrupt (truncated)", path);
		sqlite3_close(db);
		return -EINVAL;
	}
	if (db_shadow_missing_columns(db)) {
		error_set(err, "%s: cannot read: %s", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return -EIO;
	}
	*out = db;
	return 0;
}

int db_check_pages(sqlite3 *db, const char *path, char **err)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	int ok = rc == SQLITE_ROW && strcmp((const char *)sqlite3_column_text(st, 0), "ok") == 0;
	sqlite3_finalize(st);
	if (!ok) {
		error_set(err, "%s: the database is corrupt", path);
		return -EINVAL;
	}
	return 0;
}

int db_build_indexes(sqlite3 *db, const char *sql, char **err)
{
	/* Indexes are built once the program is gone: SQLite may sort on a
	 * second core (~20% faster for the derived tables; sysbench's 1.8 M
	 * recorded rows 1.27 -> 1.13 s on a loaded machine). */
	int rc = db_exec(db, "PRAGMA threads = 2", err);
	return rc ? rc : db_exec(db, sql, err);
}

int db_create_indexes(sqlite3 *db, char **err)
{
	return db_build_indexes(db, schema_indexes_sql, err);
}

int db_finalize(sqlite3 *db, char **err)
{
	int rc = db_create_indexes(db, err);
	return rc ? rc : db_leave_wal(db, 0, err);
}

int db_leave_wal(sqlite3 *db, int wait_ms, char **err)
{
	int rc;
	/* Back to a rollback journal: a WAL database needs its -shm beside it
	 * and write access to open, which a read-only copy would not have. It
	 * cannot while another connection has the file open (SQLite asks no
	 * busy handler): a reader's, which may close soon. */
	for (int waited_ms = 0;; waited_ms += LOCK_WAIT_STEP_US / 1000) {
		rc = sqlite3_exec(db, "PRAGMA journal_mode=DELETE", NULL, NULL, NULL);
		if (rc != SQLITE_BUSY || waited_ms >= wait_ms)
			break;
		usleep(LOCK_WAIT_STEP_US);
	}
	if (rc == SQLITE_BUSY) {
		/* As much in the main file as the readers let be, for a copy
		 * of it alone, without waiting for them. */
		sqlite3_exec(db, "PRAGMA wal_checkpoint(PASSIVE)", NULL, NULL, NULL);
		return 1;
	}
	if (rc != SQLITE_OK) {
		error_set(err, "%s", sqlite3_errmsg(db));
		return rc == SQLITE_FULL ? -ENOSPC : -EIO;
	}
	return 0;
}

int db_meta_set(sqlite3 *db, const char *key, const char *value)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_FULL)
		return -ENOSPC;
	return rc == SQLITE_DONE ? 0 : -EIO;
}

int db_meta_set_int(sqlite3 *db, const char *key, int64_t value)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%lld", (long long)value);
	return db_meta_set(db, key, buf);
}

char *db_meta_get(sqlite3 *db, const char *key)
{
	sqlite3_stmt *st;
	char *value = NULL;
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		value = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return value;
}

int64_t db_query_int(sqlite3 *db, const char *sql, int64_t fallback)
{
	sqlite3_stmt *st;
	int64_t v = fallback;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return fallback;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

int db_has_table(sqlite3 *db, const char *table)
{
	sqlite3_stmt *st;
	int found = 0;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?)", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

int db_has_column(sqlite3 *db, const char *table, const char *column)
{
	sqlite3_stmt *st;
	int found = 0;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?) WHERE name = ?", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

void db_bind_int_or_null(sqlite3_stmt *st, int col, int64_t v, int present)
{
	if (present)
		sqlite3_bind_int64(st, col, v);
	else
		sqlite3_bind_null(st, col);
}

void db_bind_text_or_null(sqlite3_stmt *st, int col, const char *text)
{
	if (text)
		sqlite3_bind_text(st, col, text, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, col);
}

int64_t db_run_start_ns(sqlite3 *db)
{
	return db_query_int(db, "SELECT COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'start_ns'), "
				"(SELECT MIN(start_ns) FROM threads), 0)", 0);
}

int64_t db_run_end_ns(sqlite3 *db)
{
	return db_query_int(db, "SELECT COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'end_ns'), "
				"(SELECT MAX(end_ns) FROM threads), 0)", 0);
}
