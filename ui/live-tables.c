/*
 * ui/live-tables.c - see live-tables.h.
 */
#include "config.h"
#include "ui/live-tables.h"
#include "src/db.h"
#include "src/derived/consultant.h"
#include "src/error.h"
#include "src/thread-states.h"

#include <errno.h>
#include <stdio.h>

/* The states a collector follows a thread through (blocked_sync is the
 * analysis's, after the run: live, lock waits are their own figure). */
#define LIVE_STATES(X) X("running_ns") X("runnable_ns") X("blocked_io_ns") X("sleeping_ns") X("blocked_ns")
#define COLUMN(c) c ", "
#define FROM_VALUE(c) "value ->> '" c "', "
#define FROM_ALL(c) ":json ->> '$.all." c "', "

static const char create_sql[] =
	"CREATE TABLE live_snapshot(seq INTEGER PRIMARY KEY, start_ns INTEGER, now_ns INTEGER, threads INTEGER, "
	"ended INTEGER, " LIVE_STATES(COLUMN) "lock_wait_ns INTEGER, lock_ops INTEGER);"
	"CREATE TABLE live_threads(seq INTEGER, tid INTEGER, pid INTEGER, name TEXT, state TEXT, since_ns INTEGER, "
	LIVE_STATES(COLUMN) "lock_wait_ns INTEGER, lock_ops INTEGER, PRIMARY KEY (seq, tid));"
	"CREATE TABLE live_objects(seq INTEGER, id INTEGER, pid INTEGER, kind TEXT, address TEXT, ops INTEGER, "
	"op_ns INTEGER, lock_wait_ns INTEGER, PRIMARY KEY (seq, id));"
	"CREATE TABLE live_thresholds(ord INTEGER PRIMARY KEY, why TEXT, hypothesis TEXT, threshold REAL);"
	"CREATE TABLE live_search(seq INTEGER, pos INTEGER, depth INTEGER, hypothesis TEXT, focus TEXT, status TEXT, "
	"value REAL, threshold REAL, PRIMARY KEY (seq, pos));";

#define NEWEST "(SELECT MAX(seq) FROM live_snapshot)"

static const char *const add_sql[] = {
	"INSERT INTO live_snapshot SELECT COALESCE(" NEWEST ", 0) + 1, :json ->> '$.start_ns', "
	":json ->> '$.now_ns', " FROM_ALL("threads") FROM_ALL("ended") LIVE_STATES(FROM_ALL)
	FROM_ALL("lock_wait_ns") ":json ->> '$.all.lock_ops' WHERE :json ->> '$.ok' AND "
	":json ->> '$.now_ns' IS NOT NULL",
	"INSERT INTO live_threads SELECT " NEWEST ", value ->> 'tid', value ->> 'pid', value ->> 'name', "
	"value ->> 'state', value ->> 'since_ns', " LIVE_STATES(FROM_VALUE) "value ->> 'lock_wait_ns', "
	"value ->> 'lock_ops' FROM json_each(:json, '$.threads')",
	"INSERT INTO live_objects SELECT " NEWEST ", value ->> 'id', value ->> 'pid', value ->> 'kind', "
	"value ->> 'address', value ->> 'ops', value ->> 'op_ns', value ->> 'lock_wait_ns' "
	"FROM json_each(:json, '$.objects')",
	"INSERT INTO live_search SELECT " NEWEST ", key, value ->> 'depth', value ->> 'hypothesis', "
	"value ->> 'focus', value ->> 'status', value ->> 'value', value ->> 'threshold' "
	"FROM json_each(:json, '$.search')",
	"DELETE FROM live_snapshot WHERE seq < " NEWEST " - 1",
	"DELETE FROM live_search WHERE seq < " NEWEST,
	"DELETE FROM live_threads WHERE seq < " NEWEST " - 1",
	"DELETE FROM live_objects WHERE seq < " NEWEST " - 1",
};

/* Run @sql, its :json (if it has one) bound to @json. */
static int run(sqlite3 *db, const char *sql, const char *json, char **err)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL), at;
	if (rc == SQLITE_OK && (at = sqlite3_bind_parameter_index(st, ":json")))
		sqlite3_bind_text(st, at, json, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_DONE) {
		error_set(err, "the live tables: %s", sqlite3_errmsg(db));
		sqlite3_finalize(st);
		return -EIO;
	}
	sqlite3_finalize(st);
	return 0;
}

int live_tables_create(sqlite3 *db, char **err)
{
	static const enum pc_why whys[] = { PC_WHY_CPU, PC_WHY_SYNC, PC_WHY_IO, PC_WHY_CPU_WAIT };
	struct pc_tunables t;
	if (db_exec(db, create_sql, err))
		return -EIO;
	pc_tunables_default(&t);
	/* each why's first hypothesis is the top-level one (consultant.c) */
	for (size_t i = 0; i < sizeof(whys) / sizeof(whys[0]); i++) {
		const double thresholds[] = { t.cpu, t.sync, t.io, t.cpu_wait }; /* as whys */
		char sql[256];
		int h = 1;
		while (pc_hypothesis_why(h) != whys[i])
			h++;
		snprintf(sql, sizeof(sql), "INSERT INTO live_thresholds VALUES (%zu, '%s', '%s', %g)", i,
			 pc_why_name(whys[i]), pc_hypothesis_name(h), thresholds[i]);
		if (db_exec(db, sql, err))
			return -EIO;
	}
	return 0;
}

int live_tables_add(sqlite3 *db, const char *json, char **err)
{
	int rc = 0;
	sqlite3_exec(db, "SAVEPOINT live", NULL, NULL, NULL);
	if (run(db, add_sql[0], json, err))
		rc = -EIO;
	else if (!sqlite3_changes(db)) {
		error_set(err, "the collector's answer is not a run's totals");
		rc = -EIO;
	}
	for (size_t i = 1; !rc && i < sizeof(add_sql) / sizeof(add_sql[0]); i++)
		rc = run(db, add_sql[i], json, err);
	sqlite3_exec(db, rc ? "ROLLBACK TO live; RELEASE live" : "RELEASE live", NULL, NULL, NULL);
	return rc;
}
