/* tests/fuzz/read-run.c - see read-run.h. */
#include "config.h"
#include "tests/fuzz/read-run.h"
#include "src/derived/analysis.h"
#include "src/cmd/cmd.h"
#include "src/db.h"
#include "src/derived/histogram.h"
#include "src/log.h"
#include "src/match.h"
#include "src/report-format.h"
#include "src/reports.h"
#include "src/run-state.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Rows printed per report section: enough to format every kind of value. */
#define ROWS_PER_SECTION 20

static char dir[] = "/tmp/mtx-fuzz-run-XXXXXX";
static char path[64];
static FILE *devnull;
static int thousands_left;

/* cmd_info's, in src/cmd/mtx.c: its command line here is always right. */
int cmd_usage_error(const char *command, const char *fmt, ...)
{
	abort();
}

/* cmd_info's too, in src/cmd/mtx.c: the run here is always named. */
int cmd_default_db_missing(const char *command, const char *db_path)
{
	return 0;
}

static int spend_budget(void *unused)
{
	return __atomic_sub_fetch(&thousands_left, 1, __ATOMIC_RELAXED) < 0;
}

static int set_budget(sqlite3 *db, char **err, const void *api)
{
	sqlite3_progress_handler(db, 1000, spend_budget, NULL);
	return SQLITE_OK;
}

void read_run_remove(void)
{
	static const char *const suffixes[] = { "", "-journal", "-wal", "-shm" };
	char name[80];

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		snprintf(name, sizeof(name), "%s%s", path, suffixes[i]);
		unlink(name);
	}
}

static void remove_scratch(void)
{
	read_run_remove();
	rmdir(dir);
}

const char *read_run_setup(void)
{
	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "%s/run.db", dir);
	atexit(remove_scratch);
	devnull = fopen("/dev/null", "w");
	if (!devnull || !freopen("/dev/null", "w", stdout))
		abort();
	log_set_level(LOG_QUIET);
	sqlite3_auto_extension((void (*)(void))set_budget);
	return path;
}

void read_run_budget(int thousand_steps)
{
	__atomic_store_n(&thousands_left, thousand_steps, __ATOMIC_RELAXED);
}

/* One section as mtx report prints it (src/cmd/cmd-report.c): on an
 * incomplete run, with what the run lacks left unknown. */
static void print_section(sqlite3 *db, const struct run_state *rs, const struct mtx_query *q,
			  struct report_printer *printer)
{
	const struct mtx_query_params none = { 0 };
	char *sql, *note, *err = NULL;
	sqlite3_stmt *st = NULL;

	report_begin(printer);
	if (query_unknown(q, rs->missing)) {
		report_print_unknown(printer, q->name, q->title, run_phase_unknown(query_unknown(q, rs->missing)));
		report_end(printer);
		return;
	}
	sql = query_sql(db, q, rs->missing);
	note = query_note(q, rs->missing, printer->format == REPORT_TEXT);
	if (sqlite3_prepare_v2(db, sql ? sql : q->sql, -1, &st, NULL) == SQLITE_OK) {
		query_bind(st, &none);
		printer->note = note;
		report_print(printer, q->name, q->title, st, &err);
		printer->note = NULL;
	}
	report_end(printer);
	sqlite3_finalize(st);
	free(sql);
	free(note);
	free(err);
}

static void print_reports(sqlite3 *db, const struct run_state *rs)
{
	struct report_printer printer = { .out = devnull, .width = 80, .limit_rows = ROWS_PER_SECTION };
	const struct mtx_report *reports;
	int nr, section = 0;

	if (match_register_sql(db) || histogram_register_sql(db))
		abort();
	printer.origin_ns = db_run_start_ns(db);
	free(run_state_line(rs));
	reports = report_table(&nr);
	for (int i = 0; i < nr; i++) {
		for (const struct mtx_query *q = reports[i].queries; q->name; q++) {
			printer.format = (enum report_format)(section++ % 3);
			print_section(db, rs, q, &printer);
		}
	}
}

void read_run(const char *run)
{
	char info[] = "info", *run_copy = (char *)run;
	char *info_argv[] = { info, run_copy, NULL };
	struct run_state rs;
	sqlite3 *db = NULL;
	char *err = NULL;

	cmd_info(2, info_argv);
	if (analysis_open(run, false, &db, &rs, &err) == 0)
		print_reports(db, &rs);
	else if (!err)
		abort();
	free(err);
	sqlite3_close(db);
}
