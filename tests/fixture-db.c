/*
 * tests/fixture-db.c - 'fixture-db FIXTURE.sql OUT.db': make a run database
 * from a fixture, for the tests that run mtx on one (tests/e2e/test-report.sh).
 */
#include "config.h"
#include "tests/fixture-load.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	sqlite3 *db;
	char *err = NULL;
	if (argc != 3) {
		fprintf(stderr, "usage: fixture-db FIXTURE.sql OUT.db\n");
		return 2;
	}
	if (fixture_load(argv[1], argv[2], &db, &err)) {
		fprintf(stderr, "fixture-db: %s\n", err ? err : "failed");
		return 1;
	}
	return sqlite3_close(db) == SQLITE_OK ? 0 : 1;
}
