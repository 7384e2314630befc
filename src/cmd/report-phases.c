/*
 * src/cmd/report-phases.c - 'mtx report FILE phases': the run's phases
 * (src/phases.h), each with the share of its threads' time in each state,
 * as the threads report gives it over the phase's window, added up over
 * the threads. Phase 0, the whole run, is the threads report's own.
 */
#include "config.h"
#include "src/cmd/cmd.h"
#include "src/db.h"
#include "src/derived/analysis.h"
#include "src/log.h"
#include "src/phases.h"
#include "src/report-format.h"
#include "src/reports.h"
#include "src/run-state.h"
#include "src/thread-states.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The table the report prints, one row per phase. */
static const char create_sql[] =
	"CREATE TEMP TABLE phase_report (id INTEGER, name TEXT, source TEXT, start_ns INTEGER, end_ns INTEGER, "
	"length_ns INTEGER, threads INTEGER"
#define X(e, name, total, pct, label, waiting) ", " pct " REAL"
	THREAD_STATES(X)
#undef X
	")";

/* Add phase @p's row to phase_report: @threads (the threads query) run
 * over its window, its shares weighted by each thread's time in it. */
static int add_phase(sqlite3_stmt *threads, sqlite3_stmt *insert, const struct phase_row *p)
{
	struct mtx_query_params window = { 0 };
	double ns[NR_THREAD_STATES] = { 0 }, life = 0;
	int64_t nr_threads = 0;
	int rc;

	if (p->id > 0) { /* phase 0: the whole run, from the summaries */
		window.from = p->start_ns, window.has_from = true;
		window.to = p->end_ns, window.has_to = true;
	}
	sqlite3_reset(threads);
	query_bind(threads, &window);
	/* tid, name, lifetime_ns, then a share per state */
	while (p->end_ns > p->start_ns && (rc = sqlite3_step(threads)) == SQLITE_ROW) {
		double t = (double)sqlite3_column_int64(threads, 2);
		if (sqlite3_column_type(threads, 3) == SQLITE_NULL) /* no states known */
			continue;
		nr_threads++;
		life += t;
		for (int s = 0; s < NR_THREAD_STATES; s++)
			ns[s] += t * sqlite3_column_double(threads, 3 + s) / 100.0;
	}
	sqlite3_reset(insert);
	sqlite3_bind_int64(insert, 1, p->id);
	sqlite3_bind_text(insert, 2, p->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(insert, 3, p->source, -1, SQLITE_STATIC);
	sqlite3_bind_int64(insert, 4, p->start_ns);
	sqlite3_bind_int64(insert, 5, p->end_ns);
	sqlite3_bind_int64(insert, 6, p->end_ns - p->start_ns);
	sqlite3_bind_int64(insert, 7, nr_threads);
	for (int s = 0; s < NR_THREAD_STATES; s++)
		if (life > 0)
			sqlite3_bind_double(insert, 8 + s, (double)(int64_t)(1000.0 * ns[s] / life + 0.5) / 10.0);
		else
			sqlite3_bind_null(insert, 8 + s);
	rc = sqlite3_step(insert);
	return rc == SQLITE_DONE ? 0 : -1;
}

int cmd_report_phases(const char *path, const char *phases_at, enum report_format format)
{
	struct report_printer printer = { .out = stdout, .format = format,
					  .width = format == REPORT_TEXT ? cmd_text_width() : 0 };
	struct run_phases phases = { 0 };
	sqlite3_stmt *threads = NULL, *insert = NULL, *rows = NULL;
	const struct mtx_query *q = query_find("threads");
	struct run_state rs;
	sqlite3 *db = NULL;
	char *err = NULL, *sql = NULL, insert_sql[128] = "INSERT INTO phase_report VALUES (?,?,?,?,?,?,?";
	int status = EXIT_FAILURE_MTX;

	if (analysis_open(path, false, &db, &rs, &err) || run_phases_load(db, phases_at, &phases, &err)) {
		log_error("%s", err ? err : "cannot open");
		status = err && phases_at ? EXIT_USAGE : EXIT_FAILURE_MTX;
		goto out;
	}
	for (int s = 0; s < NR_THREAD_STATES; s++)
		strcat(insert_sql, ",?");
	strcat(insert_sql, ")");
	if (!(sql = query_sql(db, q, rs.missing)) || db_exec(db, create_sql, NULL) ||
	    sqlite3_prepare_v2(db, sql, -1, &threads, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, insert_sql, -1, &insert, NULL) != SQLITE_OK) {
		log_error("%s: %s", path, sqlite3_errmsg(db));
		goto out;
	}
	for (size_t i = 0; i < phases.n; i++)
		if (add_phase(threads, insert, &phases.v[i])) {
			log_error("%s: %s", path, sqlite3_errmsg(db));
			goto out;
		}
	if (sqlite3_prepare_v2(db, "SELECT * FROM phase_report ORDER BY id", -1, &rows, NULL) != SQLITE_OK) {
		log_error("%s: %s", path, sqlite3_errmsg(db));
		goto out;
	}
	printer.origin_ns = db_run_start_ns(db);
	report_begin(&printer);
	if (report_print(&printer, "phases", "Phases: the share of the threads' time in each state", rows, &err) < 0) {
		log_error("%s: %s", path, err);
		goto out;
	}
	report_end(&printer);
	status = fflush(stdout) == 0 ? 0 : EXIT_FAILURE_MTX;
out:
	sqlite3_finalize(threads);
	sqlite3_finalize(insert);
	sqlite3_finalize(rows);
	free(sql);
	free(err);
	run_phases_free(&phases);
	sqlite3_close(db);
	return status;
}
