/*
 * tests/fuzz/fuzz-db-rows.c - libFuzzer target for the readers of run.db, as
 * fuzz-db-readers, on files SQLite finds sound but whose rows are whatever:
 * what a damaged, hand-edited or generated run.db holds in mtx's own schema
 * (times out of order, negative or near INT64_MAX, ids that point nowhere,
 * huge counts), which reaches the analyses and reports that a byte-flipped
 * file, refused by SQLite at once, does not.
 *
 * What it feeds: the input is SQL, run on a run.db made by db_create as the
 * test fixtures are (tests/fixture-load.c), allowed only to change rows:
 * INSERT, UPDATE, DELETE and temporary tables, no schema, PRAGMA or ATTACH.
 * Then the file is finished as mtx collect finishes it (db_finalize),
 * loses its write permission bits, and is read as fuzz-db-readers reads
 * its input (tests/fuzz/read-run.c). Its seeds are the .sql files of
 * tests/fixtures (run.sh passes them). SQLite's steps are budgeted for the
 * load and for the reading (read-run.h).
 *
 * What must hold: as for fuzz-db-readers, no read or write out of bounds,
 * nothing undefined, no leak (ASan, UBSan), whatever the rows.
 */
#include "config.h"
#include "tests/fuzz/read-run.h"
#include "src/db.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* In thousands: the fixtures take a few; a load must leave a run small
 * enough to read many times a second. */
#define LOAD_STEPS 2000
#define READ_STEPS 20000
/* The longest string or blob a row may hold. */
#define MAX_VALUE_BYTES 65536

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	path = read_run_setup();
	return 0;
}

static int rows_only(void *unused, int action, const char *a, const char *b, const char *c, const char *d)
{
	switch (action) {
	case SQLITE_INSERT:
	case SQLITE_UPDATE:
	case SQLITE_DELETE:
	case SQLITE_READ:
	case SQLITE_SELECT:
	case SQLITE_FUNCTION:
	case SQLITE_RECURSIVE:
	case SQLITE_TRANSACTION:
	case SQLITE_SAVEPOINT:
	case SQLITE_CREATE_TEMP_TABLE:
	case SQLITE_DROP_TEMP_TABLE:
		return SQLITE_OK;
	default:
		return SQLITE_DENY;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *sql = malloc(size + 1);
	sqlite3 *db;
	int made;

	if (!sql)
		abort();
	memcpy(sql, data, size);
	sql[size] = 0;
	read_run_remove();
	read_run_budget(LOAD_STEPS);
	if (db_create(path, &db, NULL))
		abort();
	/* ATTACH, and VACUUM INTO, which attaches, would write other files */
	sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES);
	sqlite3_set_authorizer(db, rows_only, NULL);
	db_exec(db, sql, NULL);
	sqlite3_set_authorizer(db, NULL, NULL);
	if (!sqlite3_get_autocommit(db)) /* a BEGIN without its COMMIT */
		db_exec(db, "COMMIT", NULL);
	free(sql);
	read_run_budget(READ_STEPS);
	made = db_finalize(db, NULL) == 0;
	sqlite3_close(db);
	if (made && chmod(path, 0444) == 0)
		read_run(path);
	return 0;
}
