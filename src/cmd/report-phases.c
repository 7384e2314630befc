/*
 * src/cmd/report-phases.c - 'mtx report FILE phases': the run's phases
 * (src/phases.h), each with the share of its threads' time in each state:
 * the threads report's figures over the phase's window, added up over the
 * threads; with --metric, that metric at --focus in each phase (the
 * phase table of seed 002). Phase 0, the whole run, is the reports' own.
 */
#include "config.h"
#include "src/cmd/cmd.h"
#include "src/db.h"
#include "src/derived/analysis.h"
#include "src/derived/consultant-data.h"
#include "src/log.h"
#include "src/phases.h"
#include "src/report-format.h"
#include "src/reports.h"
#include "src/run-state.h"
#include "src/thread-states.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The table the report prints, one row per phase; @metric's two columns
 * (NULL: none) are its total and its share of the focus's threads' time
 * (a time) or its rate a second (a count). */
static int create_table(sqlite3 *db, int metric, sqlite3_stmt **insert)
{
	char sql[1024], values[128] = "?,?,?,?,?";
	int n = snprintf(sql, sizeof(sql),
			 "CREATE TEMP TABLE phase_report (id INTEGER, name TEXT, source TEXT, start_ns INTEGER, "
			 "length_ns INTEGER");
	for (int s = 0; s < NR_THREAD_STATES; s++) {
		static const char *const pct[] = {
#define X(e, name, total, pct, label, waiting) pct,
			THREAD_STATES(X)
#undef X
		};
		n += snprintf(sql + n, sizeof(sql) - (size_t)n, ", %s REAL", pct[s]);
		strcat(values, ",?");
	}
	if (metric >= 0) {
		const char *name = pc_metric_name((enum pc_metric)metric);
		bool time = pc_metric_is_time((enum pc_metric)metric);
		n += snprintf(sql + n, sizeof(sql) - (size_t)n, ", %s%s INTEGER, %s_%s REAL", name, time ? "_ns" : "",
			      name, time ? "pct" : "per_s");
		strcat(values, ",?,?");
	}
	snprintf(sql + n, sizeof(sql) - (size_t)n, ")");
	if (db_exec(db, sql, NULL))
		return -1;
	snprintf(sql, sizeof(sql), "INSERT INTO phase_report VALUES (%s)", values);
	return sqlite3_prepare_v2(db, sql, -1, insert, NULL) == SQLITE_OK ? 0 : -1;
}

/* Bind phase @p's states to @insert: @threads (the threads report's
 * figures, unrounded) run over its window, added up over the threads. */
static void bind_states(sqlite3_stmt *threads, sqlite3_stmt *insert, const struct phase_row *p)
{
	struct mtx_query_params window = { 0 };
	double ns[NR_THREAD_STATES] = { 0 }, life = 0;

	if (p->id > 0) { /* phase 0: the whole run, from the summaries */
		window.from = p->start_ns, window.has_from = true;
		window.to = p->end_ns, window.has_to = true;
	}
	sqlite3_reset(threads);
	query_bind(threads, &window);
	/* tid, name, lifetime_ns, then the ns of each state */
	while (p->end_ns > p->start_ns && sqlite3_step(threads) == SQLITE_ROW) {
		if (sqlite3_column_type(threads, 3) == SQLITE_NULL) /* no states known */
			continue;
		life += (double)sqlite3_column_int64(threads, 2);
		for (int s = 0; s < NR_THREAD_STATES; s++)
			ns[s] += sqlite3_column_double(threads, 3 + s);
	}
	sqlite3_bind_int64(insert, 1, p->id);
	sqlite3_bind_text(insert, 2, p->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(insert, 3, p->source, -1, SQLITE_STATIC);
	sqlite3_bind_int64(insert, 4, p->start_ns);
	sqlite3_bind_int64(insert, 5, p->end_ns - p->start_ns);
	for (int s = 0; s < NR_THREAD_STATES; s++)
		if (life > 0)
			sqlite3_bind_double(insert, 6 + s, (double)(int64_t)(1000.0 * ns[s] / life + 0.5) / 10.0);
		else
			sqlite3_bind_null(insert, 6 + s);
}

/* Bind metric @m at focus @f in phase @p to @insert's last two columns:
 * the consultant's data over the phase (@whole's for phase 0). 0 or -errno
 * with @err. */
static int bind_metric(sqlite3 *db, const struct pc_data *whole, enum pc_metric m, const struct pc_focus *f,
		       sqlite3_stmt *insert, const struct phase_row *p, char **err)
{
	const struct pc_window window = { p->start_ns, p->end_ns };
	struct pc_data *d = NULL;
	const int col = 6 + NR_THREAD_STATES;
	int64_t total, threads_ns;
	int rc = p->id > 0 && p->end_ns > p->start_ns ? pc_data_load(db, &window, &d, err) : 0;
	if (rc)
		return rc;
	if (p->end_ns <= p->start_ns) {
		sqlite3_bind_null(insert, col);
		sqlite3_bind_null(insert, col + 1);
		return 0;
	}
	total = pc_data_sum(d ? d : whole, f, m);
	threads_ns = pc_data_thread_time(d ? d : whole, f);
	sqlite3_bind_int64(insert, col, total);
	if (pc_metric_is_time(m) && threads_ns > 0)
		sqlite3_bind_double(insert, col + 1, (double)(int64_t)(1000.0 * (double)total / (double)threads_ns + 0.5) /
							     10.0);
	else if (!pc_metric_is_time(m))
		sqlite3_bind_double(insert, col + 1, (double)total * 1e9 / (double)(p->end_ns - p->start_ns));
	else
		sqlite3_bind_null(insert, col + 1);
	pc_data_free(d);
	return 0;
}

int cmd_report_phases(const char *path, const char *phases_at, const char *metric_name, const char *const *foci,
		      size_t nr_foci, enum report_format format)
{
	struct report_printer printer = { .out = stdout, .format = format,
					  .width = format == REPORT_TEXT ? cmd_text_width() : 0 };
	struct run_phases phases = { 0 };
	sqlite3_stmt *threads = NULL, *insert = NULL, *rows = NULL;
	const struct mtx_query *q = query_find("threads.ns");
	struct pc_data *whole = NULL;
	struct pc_focus focus;
	struct run_state rs;
	sqlite3 *db = NULL;
	char *err = NULL, *sql = NULL;
	int status = EXIT_FAILURE_MTX, metric = -1;

	if (analysis_open(path, false, &db, &rs, &err) || run_phases_load(db, phases_at, &phases, &err)) {
		log_error("%s", err ? err : "cannot open");
		status = err && phases_at ? EXIT_USAGE : EXIT_FAILURE_MTX;
		goto out;
	}
	if (metric_name) {
		if (pc_data_load(db, NULL, &whole, &err)) {
			log_error("%s", err ? err : "cannot read the run");
			goto out;
		}
		if ((status = report_metric_focus(whole, metric_name, foci, nr_foci, &metric, &focus)))
			goto out;
		status = EXIT_FAILURE_MTX;
	}
	if (!(sql = query_sql(db, q, rs.missing)) || sqlite3_prepare_v2(db, sql, -1, &threads, NULL) != SQLITE_OK ||
	    create_table(db, metric, &insert)) {
		log_error("%s: %s", path, sqlite3_errmsg(db));
		goto out;
	}
	for (size_t i = 0; i < phases.n; i++) {
		sqlite3_reset(insert);
		bind_states(threads, insert, &phases.v[i]);
		if (metric >= 0 && bind_metric(db, whole, (enum pc_metric)metric, &focus, insert, &phases.v[i], &err)) {
			log_error("%s", err ? err : "cannot read the run");
			goto out;
		}
		if (sqlite3_step(insert) != SQLITE_DONE) {
			log_error("%s: %s", path, sqlite3_errmsg(db));
			goto out;
		}
	}
	if (sqlite3_prepare_v2(db, "SELECT * FROM phase_report ORDER BY id", -1, &rows, NULL) != SQLITE_OK) {
		log_error("%s: %s", path, sqlite3_errmsg(db));
		goto out;
	}
	printer.origin_ns = db_run_start_ns(db);
	report_begin(&printer);
	if (metric >= 0 && format == REPORT_TEXT) {
		char *name = pc_data_focus_name(whole, &focus);
		printf("%s at %s: %s\n\n", pc_metric_name((enum pc_metric)metric), name ? name : "?",
		       pc_metric_what((enum pc_metric)metric));
		free(name);
	}
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
	pc_data_free(whole);
	free(sql);
	free(err);
	run_phases_free(&phases);
	sqlite3_close(db);
	return status;
}
