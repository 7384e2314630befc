/*
 * src/cmd/cmd-diagnose.c - 'mtx diagnose [FILE]': the Performance
 * Consultant's search on a finished run (src/derived/consultant.h): the
 * search history graph and the findings, in text or JSON, kept in run.db's
 * pc_nodes and pc_edges when the file can be written.
 */
#include "config.h"
#include "src/cmd/cmd.h"
#include "src/db.h"
#include "src/derived/analysis.h"
#include "src/derived/consultant.h"
#include "src/log.h"
#include "src/phases.h"
#include "src/report-format.h"
#include "src/run-state.h"
#include "src/timefmt.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char cmd_diagnose_usage[] =
	"usage: mtx diagnose [FILE] [--format text|json] [--set NAME=VALUE]... [--phase PHASE]\n"
	"                    [--offline] [--list-tunables]\n"
	"\n"
	"Search the run in FILE (default run.db) for why its threads lost time, as a\n"
	"performance consultant would: hypotheses (running, waiting for a lock,\n"
	"blocked on I/O, too many small I/O ops, waiting for a CPU) tested at ever finer\n"
	"foci (process and thread, sync object, module and function), refined while\n"
	"true. Prints the search history graph and the findings, ranked by their share\n"
	"of the threads' time, each with the report that shows its evidence.\n"
	"\n"
	"  -f, --format FMT      text (default) or json (one object: findings, nodes,\n"
	"                        edges)\n"
	"  -s, --set NAME=VALUE  a tunable threshold (--list-tunables names them)\n"
	"  -p, --phase PHASE     search this phase of the run only: its id or name\n"
	"                        (mtx report FILE phases lists them)\n"
	"      --phases-at T,... the run's phases cut at these times instead\n"
	"      --offline         search the finished run, even where mtx collect kept\n"
	"                        the search its consultant made live (shown without\n"
	"                        this, --set or --phase)\n"
	"  -l, --list-tunables   the tunables, their values and what they are\n"
	"  -h, --help            this help\n";

static void print_tunables(FILE *out, const struct pc_tunables *t)
{
	for (size_t i = 0; i < pc_tunable_count(); i++) {
		const char *name, *what;
		double v;
		pc_tunable(t, i, &name, &v, &what);
		fprintf(out, "%-20s %8g  %s\n", name, v, what);
	}
}

/* @name as a PCRE2 pattern that matches it alone (mtx report -F). */
static char *literal_pattern(const char *name)
{
	char *out = malloc(2 * strlen(name) + 3), *o = out;
	if (!out)
		return NULL;
	*o++ = '^';
	for (; *name; name++) {
		if (strchr("\\^$.|?*+()[]{}", *name))
			*o++ = '\\';
		*o++ = *name;
	}
	*o++ = '$';
	*o = '\0';
	return out;
}

/* The report for @n's hypothesis at the thread, object or function of
 * its focus (@thread: " -t TID" or ""), into *@out: asprintf's result. */
static int report_for_why(const struct pc_node *n, const struct pc_where *w, const char *path, const char *thread,
			  char **out)
{
	switch (pc_hypothesis_why(n->hypothesis)) {
	case PC_WHY_SYNC:
		if (w->object_addr)
			return asprintf(out, "mtx report %s object %#" PRIx64, path, (uint64_t)w->object_addr);
		return asprintf(out, "mtx report %s %s%s", path, w->tid ? "waits" : "locks", thread);
	case PC_WHY_CPU:
		if (w->function) {
			char *pattern = literal_pattern(w->function);
			int rc = pattern ? asprintf(out, "mtx report %s flat%s -F '%s'", path, thread, pattern) : -1;
			free(pattern);
			return rc;
		}
		return asprintf(out, "mtx report %s threads%s", path, thread);
	case PC_WHY_IO:
		return asprintf(out, "mtx report %s syscalls%s", path, thread);
	case PC_WHY_CPU_WAIT:
		return asprintf(out, "mtx report %s waits%s", path, thread);
	}
	return -1;
}

/* The report that shows node @n's evidence, for the run at @path. */
static char *see(const struct pc_search *s, const struct pc_node *n, const char *path, const char *scope)
{
	struct pc_where w;
	char *out = NULL, *scoped = NULL, thread[24] = "";
	int rc;
	pc_where(s, n, &w);
	if (w.tid)
		snprintf(thread, sizeof(thread), " -t %d", (int)w.tid);
	if (w.has_cpu || w.file) { /* only the metrics split time by CPU or file */
		char *focus = pc_focus_name(s, &n->focus);
		rc = focus ? asprintf(&out, "mtx report %s metric --focus '%s'", path, focus) : -1;
		free(focus);
	} else
		rc = report_for_why(n, &w, path, thread, &out);
	if (rc < 0)
		return NULL;
	if (!*scope)
		return out;
	rc = asprintf(&scoped, "%s%s", out, scope);
	free(out);
	return rc < 0 ? NULL : scoped;
}

/* What was searched: the whole run, or one phase of it (@scope: the
 * reports' options that show the same part). */
struct searched {
	const struct phase_window *phase; /* NULL: the whole run */
	int64_t origin_ns;
	const char *scope;
	bool live; /* the search mtx collect --consultant made while the program ran */
};

static int print_text(FILE *out, const struct pc_search *s, const struct pc_tunables *t, const char *path,
		      const struct searched *what)
{
	const size_t nr = pc_nr_nodes(s);
	int *order = calloc(nr ? nr : 1, sizeof(*order)), *depths = calloc(nr ? nr : 1, sizeof(*depths));
	char when[32];
	size_t n;
	if (!order || !depths || pc_graph_order(s, order, depths, &n)) {
		free(order);
		free(depths);
		return -ENOMEM;
	}
	if (what->phase)
		fprintf(out, "Search of phase %" PRId64 " '%s' (%.6f s to %.6f s): ", what->phase->id, what->phase->name,
			(double)(what->phase->start_ns - what->origin_ns) / 1e9,
			(double)(what->phase->end_ns - what->origin_ns) / 1e9);
	else if (what->live)
		fputs("Search made live, while the program ran (mtx collect --consultant): ", out);
	else
		fputs("Search of the whole run: ", out);
	fprintf(out, "%s of thread time, %d node%s tested%s\n",
		timefmt_duration((uint64_t)pc_thread_time_ns(s), when, sizeof(when)), pc_nr_tested(s),
		pc_nr_tested(s) == 1 ? "" : "s", pc_stopped_at_max(s) ? " (stopped at max_tests)" : "");
	fprintf(out, "Thresholds: cpu %.2f, sync %.2f, io %.2f, small I/O %.0f B, cpu_wait %.2f\n", t->cpu, t->sync,
		t->io, t->io_op_bytes, t->cpu_wait);
	fprintf(out, "Code: %s\n", pc_code_from(s));
	fprintf(out, "%5s  %-8s  %6s  %9s  %s\n", "node", "status", "value", "threshold", "hypothesis, focus");
	for (size_t i = 0; i < n; i++) {
		const struct pc_node *node = pc_node(s, (size_t)order[i]);
		char *focus = pc_focus_name(s, &node->focus), v[32], th[32] = "-";
		if (node->id)
			snprintf(th, sizeof(th), "%g", node->threshold);
		fprintf(out, "%5d  %-8s  %6s  %9s  %*s%s %s\n", node->id, pc_status_name(node->status),
			pc_value_text(node, v, sizeof(v)), th, 2 * depths[i], "", pc_hypothesis_name(node->hypothesis),
			focus ? focus : "?");
		free(focus);
	}
	free(order);
	free(depths);
	fprintf(out, "\nFindings: the true nodes no true child refines, by share of the threads' time\n");
	if (!pc_nr_findings(s))
		fprintf(out, "  none: no hypothesis held at any focus\n");
	else
		fprintf(out, "%5s  %6s  %-8s  %s\n", "rank", "share", "why", "hypothesis, focus");
	for (size_t r = 0; r < pc_nr_findings(s); r++) {
		const struct pc_node *node = pc_node(s, (size_t)pc_finding(s, r));
		char *focus = pc_focus_name(s, &node->focus), *cmd = see(s, node, path, what->scope);
		struct pc_where w;
		pc_where(s, node, &w);
		fprintf(out, "%5zu  %5.1f%%  %-8s  %s %s", r + 1, 100 * node->share,
			pc_why_name(pc_hypothesis_why(node->hypothesis)), pc_hypothesis_name(node->hypothesis),
			focus ? focus : "?");
		if (w.syscall)
			fprintf(out, " (in %s)", w.syscall);
		fprintf(out, "\n%25ssee: %s\n", "", cmd ? cmd : "?");
		if (!pc_finding_refined(s, r)) /* its children were still observing */
			fprintf(out, "%25sunfinished: mtx diagnose %s --offline refines it\n", "", path);
		free(focus);
		free(cmd);
	}
	return 0;
}

static void json_number(FILE *out, double v)
{
	fprintf(out, "%.6g", v);
}

static void json_where(FILE *out, const struct pc_where *w)
{
	bool any = false;
	fputc('{', out);
	if (w->pid) {
		fprintf(out, "\"pid\":%d", (int)w->pid);
		any = true;
	}
	if (w->tid) {
		fprintf(out, "%s\"thread\":{\"tid\":%d,\"name\":", any ? "," : "", (int)w->tid);
		report_json_string(out, w->thread_name ? w->thread_name : "");
		fputc('}', out);
		any = true;
	}
	if (w->object_kind) {
		fprintf(out, "%s\"object\":{\"kind\":", any ? "," : "");
		report_json_string(out, w->object_kind);
		if (w->object_id)
			fprintf(out, ",\"id\":%" PRId64 ",\"address\":\"%#" PRIx64 "\"", w->object_id,
				(uint64_t)w->object_addr);
		if (w->object_name) {
			fputs(",\"name\":", out);
			report_json_string(out, w->object_name);
		}
		fputc('}', out);
		any = true;
	}
	if (w->module) {
		fprintf(out, "%s\"module\":", any ? "," : "");
		report_json_string(out, w->module);
		any = true;
	}
	if (w->function) {
		fputs(",\"function\":", out);
		report_json_string(out, w->function);
	}
	if (w->syscall) {
		fprintf(out, "%s\"syscall\":", any ? "," : "");
		report_json_string(out, w->syscall);
		any = true;
	}
	if (w->has_cpu) {
		fprintf(out, "%s\"cpu\":%d", any ? "," : "", (int)w->cpu);
		any = true;
	}
	if (w->file) {
		fprintf(out, "%s\"file\":", any ? "," : "");
		report_json_string(out, w->file);
	}
	fputc('}', out);
}

static void json_node_common(FILE *out, const struct pc_search *s, const struct pc_node *n)
{
	char *focus = pc_focus_name(s, &n->focus);
	fputs("\"hypothesis\":", out);
	report_json_string(out, pc_hypothesis_name(n->hypothesis));
	if (n->id) {
		fputs(",\"why\":", out);
		report_json_string(out, pc_why_name(pc_hypothesis_why(n->hypothesis)));
	}
	fputs(",\"focus\":", out);
	report_json_string(out, focus ? focus : "?");
	fputs(",\"value\":", out);
	json_number(out, n->value);
	fputs(",\"threshold\":", out);
	json_number(out, n->threshold);
	fputs(",\"share\":", out);
	json_number(out, n->share);
	free(focus);
}

static int print_json(FILE *out, const struct pc_search *s, const struct pc_tunables *t, const char *path,
		      const struct searched *what)
{
	fputs("{\"file\":", out);
	report_json_string(out, path);
	fprintf(out, ",\"search\":\"%s\"", what->live ? "live" : "offline");
	if (what->phase) {
		fprintf(out, ",\"phase\":{\"id\":%" PRId64 ",\"name\":", what->phase->id);
		report_json_string(out, what->phase->name);
		fprintf(out, ",\"start_ns\":%" PRId64 ",\"end_ns\":%" PRId64 "}", what->phase->start_ns,
			what->phase->end_ns);
	}
	fprintf(out, ",\"thread_time_ns\":%" PRId64 ",\"tested\":%d,\"stopped_at_max_tests\":%s,\"code\":",
		pc_thread_time_ns(s), pc_nr_tested(s), pc_stopped_at_max(s) ? "true" : "false");
	report_json_string(out, pc_code_from(s));
	fputs(",\"tunables\":{", out);
	for (size_t i = 0; i < pc_tunable_count(); i++) {
		const char *name, *meaning;
		double v;
		pc_tunable(t, i, &name, &v, &meaning);
		fprintf(out, "%s", i ? "," : "");
		report_json_string(out, name);
		fputc(':', out);
		json_number(out, v);
	}
	fputs("},\"findings\":[", out);
	for (size_t r = 0; r < pc_nr_findings(s); r++) {
		const struct pc_node *n = pc_node(s, (size_t)pc_finding(s, r));
		char *cmd = see(s, n, path, what->scope);
		struct pc_where w;
		pc_where(s, n, &w);
		fprintf(out, "%s{\"rank\":%zu,\"node\":%d,", r ? "," : "", r + 1, n->id);
		json_node_common(out, s, n);
		fputs(",\"where\":", out);
		json_where(out, &w);
		fputs(",\"see\":", out);
		report_json_string(out, cmd ? cmd : "");
		fprintf(out, ",\"refined\":%s}", pc_finding_refined(s, r) ? "true" : "false");
		free(cmd);
	}
	fputs("],\"nodes\":[", out);
	for (size_t i = 0; i < pc_nr_nodes(s); i++) {
		const struct pc_node *n = pc_node(s, i);
		fprintf(out, "%s{\"id\":%d,\"status\":\"%s\",", i ? "," : "", n->id, pc_status_name(n->status));
		json_node_common(out, s, n);
		fprintf(out, ",\"tested\":%d}", n->order);
	}
	fputs("],\"edges\":[", out);
	for (size_t i = 0; i < pc_nr_edges(s); i++) {
		const struct pc_edge *e = pc_edge(s, i);
		fprintf(out, "%s{\"parent\":%d,\"child\":%d,\"kind\":\"%s\"}", i ? "," : "", e->parent, e->child,
			e->kind == PC_WHY_EDGE ? "why" : "where");
	}
	fputs("]}\n", out);
	return 0;
}

/* Keep the search in run.db's pc_nodes and pc_edges (the last search
 * only), when the file can be written: else say why not on -v. */
static void store(const char *path, const struct run_state *rs, const struct pc_search *s)
{
	struct stat sb;
	sqlite3 *db = NULL;
	bool ok;
	if (!rs->complete || access(path, W_OK) || stat(path, &sb) || !(sb.st_mode & 0222)) {
		log_info("the search is not kept in %s: %s", path, rs->complete ? "it is read-only" : "the run is incomplete");
		return;
	}
	ok = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) == SQLITE_OK &&
	     sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK && pc_search_save(db, s, "offline") == SQLITE_OK;
	ok = ok && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK;
	if (!ok)
		log_info("the search is not kept in %s: %s", path, db ? sqlite3_errmsg(db) : "cannot open it");
	sqlite3_close(db);
}

int cmd_diagnose(int argc, char **argv)
{
	static const struct option options[] = { { "format", required_argument, NULL, 'f' },
						  { "set", required_argument, NULL, 's' },
						  { "list-tunables", no_argument, NULL, 'l' },
						  { "phase", required_argument, NULL, 'p' },
						  { "phases-at", required_argument, NULL, 'A' },
						  { "offline", no_argument, NULL, 'O' },
						  { "help", no_argument, NULL, 'h' },
						  { NULL, 0, NULL, 0 } };
	struct pc_tunables t;
	const char *path = CMD_DEFAULT_DB, *format = "text", *phase = NULL, *phases_at = NULL;
	struct phase_window searched_phase;
	struct searched what = { .scope = "" };
	struct pc_window window;
	char *scope = NULL;
	bool list = false, json, offline = false, tuned = false;
	struct pc_search *s = NULL;
	struct run_state rs;
	sqlite3 *db = NULL;
	char *err = NULL;
	int c, rc, status = EXIT_FAILURE_MTX;

	pc_tunables_default(&t);
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:s:p:lh", options, NULL)) != -1) {
		switch (c) {
		case 'p':
			phase = optarg;
			break;
		case 'A':
			phases_at = optarg;
			break;
		case 'O':
			offline = true;
			break;
		case 'f':
			format = optarg;
			break;
		case 's':
			tuned = true;
			if (pc_tunable_set(&t, optarg))
				return cmd_usage_error("diagnose", "--set %s: not NAME=VALUE with a tunable's name "
								   "(--list-tunables) and a number >= 0", optarg);
			break;
		case 'l':
			list = true;
			break;
		case 'h':
			fputs(cmd_diagnose_usage, stdout);
			return 0;
		default:
			return cmd_usage_error("diagnose", "unknown option (mtx diagnose --help lists them)");
		}
	}
	if (strcmp(format, "text") && strcmp(format, "json"))
		return cmd_usage_error("diagnose", "unknown format '%s' (text or json)", format);
	json = !strcmp(format, "json");
	if (list) {
		print_tunables(stdout, &t);
		return 0;
	}
	if (optind < argc)
		path = argv[optind++];
	if (optind < argc)
		return cmd_usage_error("diagnose", "one run database at most (got '%s' too)", argv[optind]);
	if (phases_at && !phase)
		return cmd_usage_error("diagnose", "--phases-at goes with --phase");
	if (cmd_default_db_missing("diagnose", path))
		return EXIT_FAILURE_MTX;
	if (analysis_open(path, false, &db, &rs, &err)) {
		log_error("%s", err ? err : "cannot open");
		goto out;
	}
	if (phase) {
		if ((rc = cmd_phase_window(db, phase, phases_at, &searched_phase))) {
			status = rc;
			goto out;
		}
		window = (struct pc_window){ searched_phase.start_ns, searched_phase.end_ns };
		what.origin_ns = db_run_start_ns(db);
		if (asprintf(&scope, "%s%s --phase %" PRId64, phases_at ? " --phases-at " : "", phases_at ? phases_at : "",
			     searched_phase.id) < 0)
			scope = NULL;
		what.scope = scope ? scope : "";
		if (searched_phase.id) /* phase 0: the whole run */
			what.phase = &searched_phase;
	}
	const bool kept_live = pc_search_kept_live(db);
	/* the live search is the record of what the consultant saw while the
	 * program ran: shown as it was, never searched over */
	what.live = kept_live && !offline && !tuned && !what.phase;
	if (what.live && pc_search_stored(db, &s, &err)) {
		/* (kept as it was: it is the record of the live search) */
		log_warn("%s: the search made live cannot be shown (%s): the finished run is searched instead", path,
			 err ? err : "out of memory");
		free(err);
		err = NULL;
		what.live = false;
	}
	if (!s && (rc = pc_search_run(db, &t, what.phase ? &window : NULL, &s, &err))) {
		log_error("%s", err ? err : "cannot open");
		goto out;
	}
	if (!json) {
		char *line = run_state_line(&rs), *note = run_state_detail_note(db, &rs);
		if (line)
			log_warn("%s: %s", path, line);
		if (note)
			printf("note: %s.\n\n", note);
		free(line);
		free(note);
	}
	rc = json ? print_json(stdout, s, &t, path, &what) : print_text(stdout, s, &t, path, &what);
	if (rc) {
		log_error("out of memory");
		goto out;
	}
	sqlite3_close(db);
	db = NULL;
	if (!what.phase && !kept_live) /* pc_nodes keep the whole run's search */
		store(path, &rs, s);
	status = fflush(stdout) == 0 ? 0 : EXIT_FAILURE_MTX;
out:
	free(err);
	free(scope);
	pc_search_free(s);
	sqlite3_close(db);
	return status;
}
