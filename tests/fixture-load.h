/*
 * tests/fixture-load.h - a run database made from a fixture SQL file
 * (tests/fixtures/NAME.sql: INSERTs into the recorded tables, small enough
 * to work out every answer by hand). Used by the unit tests
 * (tests/unit/fixture.h) and by tests/fixture-db for the report tests.
 */
#ifndef MTX_TEST_FIXTURE_LOAD_H
#define MTX_TEST_FIXTURE_LOAD_H

#include <sqlite3.h>

/* fixture_load - create @db_path (removed first if there) with the schema,
 * run the SQL file @sql_path, then build the secondary indexes. Returns 0
 * and the open database in @out, or -1 with a message in @err. */
int fixture_load(const char *sql_path, const char *db_path, sqlite3 **out, char **err);

#endif
