/*
 * tests/fuzz/fuzz-db-readers.c - libFuzzer target for the readers of run.db:
 * db_open_readonly (src/db.c), 'mtx info' (src/cmd/cmd-info.c), and what
 * 'mtx report' does with a file (src/derived/analysis.c builds the derived
 * tables from the recorded ones, then every named query of src/reports.c
 * is printed by src/report-format.c): tests/fuzz/read-run.c.
 *
 * What it feeds: the input is the database file, written to a scratch file
 * without write permission bits, so that every reader opens it read-only
 * and builds the derived tables as TEMP tables, as for a read-only run.db;
 * the seeds in corpus/db-readers are small runs made from tests/fixtures.
 * SQLite's steps are budgeted (read-run.h).
 *
 * What must hold: no read or write out of bounds, nothing undefined, no
 * leak (ASan, UBSan), whatever the file holds: a foreign, corrupt, truncated
 * or hostile database is refused with a message or read as far as it goes.
 */
#include "config.h"
#include "tests/fuzz/read-run.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

/* In thousands: the seeds need well under a tenth. */
#define READ_STEPS 20000

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *path;
static int fd = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	path = read_run_setup();
	/* no write bits: the readers must leave the file as it is */
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
	if (fd < 0)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	read_run_budget(READ_STEPS);
	read_run(path);
	return 0;
}
