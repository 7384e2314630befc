/*
 * src/cmd/report-phases.c - 'mtx report FILE phases': the run's phases
 * with the share of their threads' time in each state (src/phases.h's
 * table); with --metric, that metric at --focus in each phase, from the
 * consultant's data over the phase (a phase table). Phase 0, the whole
 * run, is the reports' own.
 */
#include "config.h"
#include "src/cmd/cmd.h"
#include "src/db.h"
#include "src/derived/analysis.h"
#include "src/derived/consultant-data.h"
#include "src/log.h"
#include "src/phases.h"
#include "src/report-format.h"
#include "src/run-state.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* Metric @m at focus @f in each phase of @p, as two more columns of the
 * phases' table: its total (NAME_ns for a time) and its share of the
 * focus's threads' time (NAME_pct) or, a count, its rate a second
 * (NAME_per_s); @whole holds the whole run's data (phase 0's). */
static int add_metric(sqlite3 *db, const struct run_phases *p, const struct pc_data *whole, enum pc_metric m,
		      const struct pc_focus *f, char **err)
{
	const char *name = pc_metric_name(m);
	const bool time = pc_metric_is_time(m);
	sqlite3_stmt *update = NULL;
	char sql[256];
	int rc;

	snprintf(sql, sizeof(sql),
		 "ALTER TABLE temp.phase_report ADD COLUMN %s%s INTEGER; ALTER TABLE temp.phase_report ADD COLUMN "
		 "%s_%s REAL",
		 name, time ? "_ns" : "", name, time ? "pct" : "per_s");
	if ((rc = db_exec(db, sql, err)))
		return rc;
	snprintf(sql, sizeof(sql), "UPDATE temp.phase_report SET %s%s = ?1, %s_%s = ?2 WHERE id = ?3", name,
		 time ? "_ns" : "", name, time ? "pct" : "per_s");
	if (sqlite3_prepare_v2(db, sql, -1, &update, NULL) != SQLITE_OK)
		return -EIO;
	for (size_t i = 0; !rc && i < p->n; i++) {
		const struct phase_row *ph = &p->v[i];
		const struct pc_window window = { ph->start_ns, ph->end_ns };
		struct pc_data *d = NULL;
		int64_t total, threads_ns;
		if (ph->end_ns <= ph->start_ns) /* empty: nothing to say */
			continue;
		if (ph->id > 0 && (rc = pc_data_load(db, &window, &d, err)))
			break;
		total = pc_data_sum(d ? d : whole, f, m);
		threads_ns = pc_data_thread_time(d ? d : whole, f);
		sqlite3_reset(update);
		sqlite3_bind_int64(update, 1, total);
		if (time && threads_ns > 0)
			sqlite3_bind_double(update, 2, (double)(int64_t)(1000.0 * (double)total / (double)threads_ns + 0.5) /
								10.0);
		else if (!time)
			sqlite3_bind_double(update, 2, (double)total * 1e9 / (double)(ph->end_ns - ph->start_ns));
		else
			sqlite3_bind_null(update, 2);
		sqlite3_bind_int64(update, 3, ph->id);
		if (sqlite3_step(update) != SQLITE_DONE)
			rc = -EIO;
		pc_data_free(d);
	}
	sqlite3_finalize(update);
	return rc;
}

int cmd_report_phases(const char *path, const char *phases_at, const char *metric_name, const char *const *foci,
		      size_t nr_foci, enum report_format format)
{
	struct report_printer printer = { .out = stdout, .format = format,
					  .width = format == REPORT_TEXT ? cmd_text_width() : 0 };
	struct run_phases phases = { 0 };
	sqlite3_stmt *rows = NULL;
	struct pc_data *whole = NULL;
	struct pc_focus focus;
	struct run_state rs;
	sqlite3 *db = NULL;
	char *err = NULL;
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
	if (run_phases_table(db, &phases, rs.missing, &err) ||
	    (metric >= 0 && add_metric(db, &phases, whole, (enum pc_metric)metric, &focus, &err)) ||
	    sqlite3_prepare_v2(db, "SELECT * FROM temp.phase_report ORDER BY id", -1, &rows, NULL) != SQLITE_OK) {
		log_error("%s: %s", path, err ? err : sqlite3_errmsg(db));
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
	sqlite3_finalize(rows);
	pc_data_free(whole);
	free(err);
	run_phases_free(&phases);
	sqlite3_close(db);
	return status;
}
