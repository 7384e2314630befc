/*
 * tests/fuzz/fuzz-db-readers.c - libFuzzer target for the readers of run.db:
 * db_open_readonly (src/db.c), 'mtx info' (src/cmd/cmd-info.c), and what
 * 'mtx report' does with a file (src/derived/analysis.c builds the derived
 * tables from the recorded ones, then every named query of src/reports.c
 * is printed by src/report-format.c).
 *
 * What it feeds: the input is the database file, written to a temporary
 * file without write permission bits, so that every reader opens it
 * read-only and builds the derived tables as TEMP tables, as for a
 * read-only run.db; the seeds in corpus/db-readers are small runs made from
 * tests/fixtures. Each SQLite connection gets a budget of virtual machine
 * steps, after which its statement is interrupted, so that a file whose
 * schema makes a query run for ever costs one slow input, not a hang; the
 * readers see that as an SQLite error like any other.
 *
 * What must hold: no read or write out of bounds, nothing undefined, no
 * leak (ASan, UBSan), whatever the file holds: a foreign, corrupt, truncated
 * or hostile database is refused with a message or read as far as it goes.
 */
#include "config.h"
#include "src/derived/analysis.h"
#include "src/cmd/cmd.h"
#include "src/db.h"
#include "src/derived/histogram.h"
#include "src/log.h"
#include "src/match.h"
#include "src/report-format.h"
#include "src/reports.h"
#include "src/run-state.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Steps of SQLite's virtual machine between two progress calls, and the
 * calls an input may take in all (the seeds need well under a tenth). */
#define STEPS_PER_CALL 1000
#define CALLS_PER_INPUT 20000
/* Rows printed per report section: enough to format every kind of value. */
#define ROWS_PER_SECTION 20

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[] = "/tmp/fuzz-db-readers-XXXXXX";
static char path[64];
static int fd = -1;
static FILE *devnull;
static int calls_left;

/* cmd_info's, in src/cmd/mtx.c: its command line here is always right. */
int cmd_usage_error(const char *command, const char *fmt, ...)
{
	abort();
}

static int spend_budget(void *unused)
{
	return __atomic_sub_fetch(&calls_left, 1, __ATOMIC_RELAXED) < 0;
}

static int set_budget(sqlite3 *db, char **err, const void *api)
{
	sqlite3_progress_handler(db, STEPS_PER_CALL, spend_budget, NULL);
	return SQLITE_OK;
}

static void remove_file(void)
{
	unlink(path);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "%s/run.db", dir);
	/* no write bits: the readers must leave the file as it is */
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
	devnull = fopen("/dev/null", "w");
	if (fd < 0 || !devnull || !freopen("/dev/null", "w", stdout))
		abort();
	atexit(remove_file);
	log_set_level(LOG_QUIET);
	sqlite3_auto_extension((void (*)(void))set_budget);
	return 0;
}

/* Every named report, as mtx report prints it without filters, each
 * section in one of the three formats. */
static void print_reports(sqlite3 *db)
{
	const struct mtx_query_params none = { 0 };
	struct report_printer printer = { .out = devnull, .width = 80, .limit_rows = ROWS_PER_SECTION };
	const struct mtx_report *reports;
	int nr, section = 0;

	if (match_register_sql(db) || histogram_register_sql(db))
		abort();
	printer.origin_ns = db_run_start_ns(db);
	reports = report_table(&nr);
	for (int i = 0; i < nr; i++) {
		for (const struct mtx_query *q = reports[i].queries; q->name; q++) {
			sqlite3_stmt *st = NULL;
			char *err = NULL;

			if (sqlite3_prepare_v2(db, q->sql, -1, &st, NULL) == SQLITE_OK) {
				query_bind(st, &none);
				printer.format = (enum report_format)(section++ % 3);
				report_begin(&printer);
				report_print(&printer, q->name, q->title, st, &err);
				report_end(&printer);
			}
			sqlite3_finalize(st);
			free(err);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char info[] = "info";
	char *info_argv[] = { info, path, NULL };
	struct run_state rs;
	sqlite3 *db = NULL;
	char *err = NULL;

	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	__atomic_store_n(&calls_left, CALLS_PER_INPUT, __ATOMIC_RELAXED);
	cmd_info(2, info_argv);
	if (analysis_open(path, false, &db, &rs, &err) == 0)
		print_reports(db);
	else if (!err)
		abort(); /* a refusal always says why */
	free(err);
	sqlite3_close(db);
	return 0;
}
