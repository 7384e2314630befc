/*
 * src/cmd/report-metric.c - 'mtx report FILE metric [NAME] --focus F...':
 * a metric of the Performance Consultant (src/derived/consultant-data.h)
 * at one focus, the conjunction of one node per hierarchy, as its total,
 * its rate over the run and its value normalized by the focus's threads'
 * time (the form mtx diagnose tests against its thresholds).
 */
#include "config.h"
#include "src/cmd/cmd.h"
#include "src/db.h"
#include "src/derived/analysis.h"
#include "src/derived/consultant-data.h"
#include "src/derived/histogram.h"
#include "src/log.h"
#include "src/phases.h"
#include "src/report-format.h"
#include "src/run-state.h"
#include "src/timefmt.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const hierarchy_paths[PC_HIERARCHIES] = { [PC_CODE] = "/Code", [PC_PROCESS] = "/Process",
							      [PC_SYNC_OBJECT] = "/SyncObject", [PC_MACHINE] = "/Machine",
							      [PC_FILE] = "/File" };

/* The hierarchies @along holds, as "/Code, /Process". */
static void along_text(unsigned along, char *out, size_t size)
{
	size_t n = 0;
	out[0] = 0;
	for (int h = 0; h < PC_HIERARCHIES; h++)
		if (along & PC_ALONG(h))
			n += (size_t)snprintf(out + n, n < size ? size - n : 0, "%s%s", n ? ", " : "", hierarchy_paths[h]);
}

void report_metric_list(FILE *out)
{
	fprintf(out, "%-10s %-5s %s\n", "name", "unit", "kept along (and what it is)");
	for (int m = 0; m < PC_METRICS; m++) {
		char along[64];
		along_text(pc_metric_along((enum pc_metric)m), along, sizeof(along));
		fprintf(out, "%-10s %-5s %s\n%17s%s\n", pc_metric_name((enum pc_metric)m),
			pc_metric_unit((enum pc_metric)m), along, "", pc_metric_what((enum pc_metric)m));
	}
}

/* The hierarchies @f names a node of, as PC_ALONG bits. */
static unsigned focus_hierarchies(const struct pc_focus *f)
{
	unsigned named = 0;
	for (int h = 0; h < PC_HIERARCHIES; h++)
		if (f->r[h].level)
			named |= PC_ALONG(h);
	return named;
}

/* The conjunction of @foci (@n) into @f, for @metric (-1: any): 0, or
 * the exit status of a usage error, said. */
static int parse_foci(const struct pc_data *d, const char *const *foci, size_t n, int metric, struct pc_focus *f)
{
	char *err = NULL;
	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < n; i++) {
		struct pc_focus g = { 0 };
		if (pc_data_parse_focus(d, foci[i], &g, &err)) {
			int status = cmd_usage_error("report", "%s", err);
			free(err);
			return status;
		}
		if (focus_hierarchies(f) & focus_hierarchies(&g))
			return cmd_usage_error("report", "focus '%s': one node of each hierarchy at most", foci[i]);
		for (int h = 0; h < PC_HIERARCHIES; h++)
			if (g.r[h].level)
				f->r[h] = g.r[h];
	}
	if (metric >= 0 && (focus_hierarchies(f) & ~pc_metric_along((enum pc_metric)metric))) {
		char along[64];
		along_text(pc_metric_along((enum pc_metric)metric), along, sizeof(along));
		return cmd_usage_error("report", "metric %s is kept along %s only: not at this focus",
				       pc_metric_name((enum pc_metric)metric), along[0] ? along : "no hierarchy (its root)");
	}
	return 0;
}

int report_metric_focus(const struct pc_data *d, const char *name, const char *const *foci, size_t n, int *metric,
			struct pc_focus *f)
{
	if ((*metric = pc_metric_find(name)) < 0)
		return cmd_usage_error("report", "no metric called '%s' (mtx report metric --list)", name);
	return parse_foci(d, foci, n, *metric, f);
}

/* Open @path's run and its consultant data over --phase @phase (@at:
 * --phases-at; NULL or phase 0: the whole run, and *@window NULL, else
 * the phase's window in *@w and *@window), and parse @foci (@n) into @f
 * for @metric: 0, or the exit status (said). */
static int open_focus(const char *path, const char *const *foci, size_t n, int metric, const char *phase,
		      const char *at, sqlite3 **db, struct run_state *rs, struct pc_window *w,
		      const struct pc_window **window, struct pc_data **d, struct pc_focus *f)
{
	struct phase_window p = { 0 };
	char *err = NULL;
	int rc;
	*window = NULL;
	if (analysis_open(path, false, db, rs, &err)) {
		log_error("%s", err ? err : "cannot open");
		free(err);
		return EXIT_FAILURE_MTX;
	}
	if (phase && (rc = cmd_phase_window(*db, phase, at, &p)))
		return rc;
	if (p.id > 0) {
		*w = (struct pc_window){ p.start_ns, p.end_ns };
		*window = w;
	}
	if (pc_data_load(*db, *window, d, &err)) {
		log_error("%s", err ? err : "cannot read the run");
		free(err);
		return EXIT_FAILURE_MTX;
	}
	return parse_foci(*d, foci, n, metric, f);
}

struct metric_value {
	enum pc_metric m;
	int64_t total;
	double rate, normalized;
};

/* Metric @m's value @v as text shows it: a time, or a count. */
static void value_text(enum pc_metric m, int64_t v, char *out, size_t size)
{
	if (pc_metric_is_time(m))
		timefmt_duration((uint64_t)v, out, size);
	else
		snprintf(out, size, "%" PRId64, v);
}

static void print_value(FILE *out, enum report_format format, const struct metric_value *v, const char *focus,
			bool first)
{
	char total[32];
	value_text(v->m, v->total, total, sizeof(total));
	switch (format) {
	case REPORT_JSON:
		fprintf(out, "%s\n    {\"metric\": \"%s\", \"unit\": \"%s\", \"total\": %" PRId64 ", \"rate\": %.6g, "
			     "\"normalized\": %.6g}",
			first ? "" : ",", pc_metric_name(v->m), pc_metric_unit(v->m), v->total, v->rate, v->normalized);
		break;
	case REPORT_CSV:
		fprintf(out, "%s,", pc_metric_name(v->m));
		report_csv_string(out, focus);
		fprintf(out, ",%s,%" PRId64 ",%.6g,%.6g\n", pc_metric_unit(v->m), v->total, v->rate, v->normalized);
		break;
	default:
		fprintf(out, pc_metric_is_time(v->m) ? "%-10s %5s %12s %10.4f %10.4f\n" : "%-10s %5s %12s %10.1f %10.1f\n",
			pc_metric_name(v->m), pc_metric_unit(v->m), total, v->rate, v->normalized);
	}
}

int cmd_report_metric(const char *path, const char *name, const char *const *foci, size_t nr_foci,
		      const char *phase, const char *phases_at, enum report_format format)
{
	struct pc_window w;
	const struct pc_window *window;
	struct pc_data *d = NULL;
	struct pc_focus f;
	struct run_state rs;
	sqlite3 *db = NULL;
	char *err = NULL, *focus = NULL;
	int metric = -1, status = EXIT_FAILURE_MTX;
	int64_t first_ns, last_ns, threads_ns, window_ns;
	bool any = false;

	if (name && (metric = pc_metric_find(name)) < 0)
		return cmd_usage_error("report", "no metric called '%s' (mtx report metric --list)", name);
	if ((status = open_focus(path, foci, nr_foci, metric, phase, phases_at, &db, &rs, &w, &window, &d, &f)))
		goto out;
	status = EXIT_FAILURE_MTX;
	if (!(focus = pc_data_focus_name(d, &f))) {
		log_error("out of memory");
		goto out;
	}
	pc_data_span(d, &first_ns, &last_ns);
	window_ns = last_ns > first_ns ? last_ns - first_ns : 0;
	threads_ns = pc_data_thread_time(d, &f);
	if (format == REPORT_TEXT) {
		char *line = run_state_line(&rs);
		if (line)
			log_warn("%s: %s", path, line);
		free(line);
		printf("focus: %s\n", focus);
		if (f.r[PC_CODE].level) /* inclusive, and known from what */
			printf("code: %s\nat a function: the time with it on the stack\n", pc_data_code_from(d));
		printf("over %.6f s of the run and %.6f s of its threads' lifetimes\n\n", (double)window_ns / 1e9,
		       (double)threads_ns / 1e9);
		printf("%-10s %5s %12s %10s %10s\n", "metric", "unit", "total", "rate", "normalized");
	} else if (format == REPORT_CSV) {
		printf("metric,focus,unit,total,rate,normalized\n");
	} else {
		printf("{\n  \"focus\": ");
		report_json_string(stdout, focus);
		printf(",\n  \"window_ns\": %" PRId64 ",\n  \"thread_time_ns\": %" PRId64 ",\n  \"code_from\": ", window_ns,
		       threads_ns);
		report_json_string(stdout, pc_data_code_from(d));
		printf(",\n  \"metrics\": [");
	}
	for (int m = 0; m < PC_METRICS; m++) {
		struct metric_value v = { (enum pc_metric)m, 0, 0, 0 };
		if ((metric >= 0 && m != metric) || (focus_hierarchies(&f) & ~pc_metric_along(v.m)))
			continue;
		v.total = pc_data_sum(d, &f, v.m);
		/* a time over the run is how many threads did it at once on
		 * average; a count's rate is per second */
		v.rate = window_ns ? (double)v.total / (double)window_ns * (pc_metric_is_time(v.m) ? 1 : 1e9) : 0;
		v.normalized = threads_ns ? (double)v.total / (double)threads_ns * (pc_metric_is_time(v.m) ? 1 : 1e9) : 0;
		print_value(stdout, format, &v, focus, !any);
		any = true;
	}
	if (format == REPORT_JSON)
		printf("\n  ]\n}\n");
	status = fflush(stdout) == 0 ? 0 : EXIT_FAILURE_MTX;
out:
	free(err);
	free(focus);
	pc_data_free(d);
	sqlite3_close(db);
	return status;
}

/* ---- the metric over time: mtx report FILE histogram --metric M ---------- */


int cmd_report_histogram(const char *path, const char *name, const char *const *foci, size_t nr_foci, int buckets,
			 int64_t width_ns, const char *phase, const char *phases_at, enum report_format format)
{
	struct pc_window w;
	const struct pc_window *window;
	struct pc_histogram *h = NULL;
	struct pc_data *d = NULL;
	struct pc_focus f;
	struct run_state rs;
	sqlite3 *db = NULL;
	char *err = NULL, *focus = NULL;
	int metric = pc_metric_find(name), status = EXIT_FAILURE_MTX;
	int64_t first_ns, last_ns, run_ns, peak = 0;
	enum pc_metric m = (enum pc_metric)metric;

	if (metric < 0)
		return cmd_usage_error("report", "no metric called '%s' (mtx report metric --list)", name);
	if ((status = open_focus(path, foci, nr_foci, metric, phase, phases_at, &db, &rs, &w, &window, &d, &f)))
		goto out;
	status = EXIT_FAILURE_MTX;
	if (f.r[PC_CODE].level) {
		status = cmd_usage_error("report", "a histogram is kept at /Code's root only: a function's share of "
						   "a metric has no times (report metric gives its total)");
		goto out;
	}
	if (!(focus = pc_data_focus_name(d, &f)) || !(h = calloc(1, sizeof(*h)))) {
		log_error("out of memory");
		goto out;
	}
	pc_data_span(d, &first_ns, &last_ns);
	run_ns = db_run_start_ns(db); /* times are shown from it */
	h->origin_ns = first_ns;
	h->width_ns = width_ns;
	h->nr_buckets = buckets;
	pc_histogram_fit(h, last_ns);
	if (pc_data_histogram(db, d, &f, m, window, h, &err)) {
		log_error("%s", err ? err : "cannot read the run");
		goto out;
	}
	for (int i = 0; i < h->nr_buckets; i++)
		if (h->value[i] > peak)
			peak = h->value[i];
	if (format == REPORT_TEXT) {
		char width[32], text[32];
		char *line = run_state_line(&rs);
		if (line)
			log_warn("%s: %s", path, line);
		free(line);
		timefmt_duration((uint64_t)h->width_ns, width, sizeof(width));
		printf("Time histogram: %s of %s (%s: %s)\n", pc_metric_name(m), focus, pc_metric_unit(m),
		       pc_metric_what(m));
		printf("%7s %10s %10s %6s\n%7d %10s %10.6f %6d\n", "buckets", "width", "start", "folds", h->nr_buckets,
		       width, (double)(h->origin_ns - run_ns) / 1e9, h->folds);
		printf("over_time  ");
		for (int i = 0; i < h->nr_buckets; i++) /* '?': --detail's budget added some of it up */
			putchar(h->origin_ns + (i + 1) * h->width_ns > h->summarized_from_ns ? '?'
											: histogram_ramp(h->value[i], peak));
		value_text(m, peak, text, sizeof(text));
		printf("\npeak       %s a bucket\n\n%6s %12s %12s %10s\n", text, "bucket", "start_s", pc_metric_name(m),
		       "rate");
	} else if (format == REPORT_CSV) {
		printf("bucket,start_ns,width_ns,value,rate\n");
	} else {
		printf("{\n  \"metric\": \"%s\",\n  \"unit\": \"%s\",\n  \"focus\": ", pc_metric_name(m), pc_metric_unit(m));
		report_json_string(stdout, focus);
		printf(",\n  \"origin_ns\": %" PRId64 ",\n  \"width_ns\": %" PRId64 ",\n  \"folds\": %d,\n  "
		       "\"summarized_from_ns\": ", h->origin_ns, h->width_ns, h->folds);
		if (h->summarized_from_ns == INT64_MAX)
			printf("null");
		else
			printf("%" PRId64, h->summarized_from_ns);
		printf(",\n  \"buckets\": [");
	}
	for (int i = 0; i < h->nr_buckets; i++) {
		int64_t start = h->origin_ns + i * h->width_ns;
		bool known = start + h->width_ns <= h->summarized_from_ns;
		/* a time's rate is how many threads did it at once on average;
		 * a count's is per second */
		double rate = (double)h->value[i] / (double)h->width_ns * (pc_metric_is_time(m) ? 1 : 1e9);
		char text[32];
		switch (format) {
		case REPORT_CSV:
			if (known)
				printf("%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",%.6g\n", i, start, h->width_ns, h->value[i], rate);
			else
				printf("%d,%" PRId64 ",%" PRId64 ",,\n", i, start, h->width_ns);
			break;
		case REPORT_JSON:
			printf("%s\n    {\"bucket\": %d, \"start_ns\": %" PRId64 ", ", i ? "," : "", i, start);
			if (known)
				printf("\"value\": %" PRId64 ", \"rate\": %.6g}", h->value[i], rate);
			else
				printf("\"value\": null, \"rate\": null}");
			break;
		default:
			value_text(m, h->value[i], text, sizeof(text));
			if (known)
				printf("%6d %12.6f %12s %10.4f\n", i, (double)(start - run_ns) / 1e9, text, rate);
			else
				printf("%6d %12.6f %12s %10s\n", i, (double)(start - run_ns) / 1e9, "?", "?");
		}
	}
	if (format == REPORT_JSON)
		printf("\n  ]\n}\n");
	else if (format == REPORT_TEXT && h->summarized_from_ns != INT64_MAX)
		printf("\n?: past %.6f s, mtx collect --detail's budget added up some of these rows rather than "
		       "keeping them (--detail all keeps every one)\n",
		       (double)(h->summarized_from_ns - run_ns) / 1e9);
	status = fflush(stdout) == 0 ? 0 : EXIT_FAILURE_MTX;
out:
	free(err);
	free(focus);
	free(h);
	pc_data_free(d);
	sqlite3_close(db);
	return status;
}
