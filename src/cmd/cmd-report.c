/*
 * src/cmd/cmd-report.c - 'mtx report FILE NAME': print one of the named
 * reports of src/reports.c, as text, CSV or JSON, with filters. The derived
 * tables are built first if the run.db lacks them (analysis_open: kept in
 * the file when the run is complete and the file can take them, as TEMP
 * tables otherwise). An incomplete run says so in one line, first in text
 * and on stderr for CSV and JSON, and what it lacks is shown as unknown.
 */
#include "config.h"
#include "src/derived/analysis.h"
#include "src/clock.h"
#include "src/cmd/cmd.h"
#include "src/db.h"
#include "src/derived/consultant-data.h"
#include "src/derived/histogram.h"
#include "src/log.h"
#include "src/match.h"
#include "src/phases.h"
#include "src/report-format.h"
#include "src/reports.h"
#include "src/run-state.h"
#include "src/timefmt.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* Rows per section that text shows unless --limit says otherwise. */
#define DEFAULT_TEXT_LIMIT 1000
#define STR_(x) #x
#define STR(x) STR_(x)

const char cmd_report_usage[] =
	"usage: mtx report [FILE] NAME [ARG] [options]\n"
	"       mtx report --list\n"
	"\n"
	"Print the report NAME of the run database FILE (default run.db; mtx report\n"
	"--list names the reports).\n"
	"\n"
	"  -t, --thread TID|NAME  only this thread (a tid, or a thread name)\n"
	"  -O, --object OBJECT    only this sync object: its address (0x...), its id, or its\n"
	"                         name (log_mutex, 'init at bank.cc:41 in Bank::Bank()')\n"
	"  -F, --function REGEX   only functions matching this PCRE2 pattern\n"
	"      --from TIME        only what happened after TIME since the run's start\n"
	"      --to TIME          only what happened before TIME (TIME: 1.5s, 200ms, 30us, 10ns)\n"
	"      --phase PHASE      only what happened in this phase of the run: its id or name\n"
	"                         (report phases lists them)\n"
	"      --phases-at T,...  the run's phases cut at these times instead of those marked\n"
	"  -f, --format FMT       text (default; fits the terminal, never cut in a pipe),\n"
	"                         csv or json\n"
	"  -n, --limit N          at most N rows per section (0: all; default " STR(DEFAULT_TEXT_LIMIT) "\n"
	"                         for text, all for csv and json)\n"
	"      --cycles           report overhead: durations in TSC cycles (Song and Lee's unit)\n"
	"      --compare BASE     threads, sync, locks, syscalls, flat: BASE's figures beside\n"
	"                         these, with the change (rows matched by thread name, ...)\n"
	"      --focus FOCUS      report metric: where (/Code/MODULE/FUNCTION, /Process/PID/TID,\n"
	"                         /SyncObject/KIND/ADDRESS; repeat it for their conjunction)\n"
	"      --metric NAME      report histogram: that metric at --focus over time;\n"
	"                         report phases: in each phase\n"
	"      --buckets N        ...in N buckets (even; default 32), each --bucket-width\n"
	"      --bucket-width W   wide (default 1ms), doubled until the run fits\n"
	"  -l, --list             list the reports (after metric: the metrics)\n"
	"  -v, --verbose          say how long building the derived tables took, step by step,\n"
	"                         and how long each section of the report took\n"
	"  -h, --help             this help\n";


/* The filters, as given; each becomes a named query parameter. */
struct filters {
	const char *thread, *object, *function, *from, *to;
	const char *phase, *phases_at;
};

/* How many rows @sql (one ? parameter: @text, or @v when @text is NULL)
 * gives, the last one's first column in *@first; -1 on error. */
static int count_rows(sqlite3 *db, const char *sql, const char *text, int64_t v, int64_t *first)
{
	sqlite3_stmt *st;
	int n = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (text)
		sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
	else
		sqlite3_bind_int64(st, 1, v);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (first)
			*first = sqlite3_column_int64(st, 0);
		n++;
	}
	sqlite3_finalize(st);
	return n;
}

int cmd_resolve_thread(sqlite3 *db, const char *text, int64_t *tid)
{
	char *end;
	long long v = strtoll(text, &end, 10);
	int n;

	if (*text && !*end) {
		*tid = v;
		n = count_rows(db, "SELECT 1 FROM threads WHERE tid = ? LIMIT 1", NULL, v, NULL);
	} else {
		n = count_rows(db, "SELECT DISTINCT tid FROM threads WHERE name = ?", text, 0, tid);
	}
	return n == 1 ? 0 : n > 1 ? -EEXIST : -ENOENT;
}

/* Whether the sync object given by its address (@hex) or id @v is in @db. */
static bool object_exists(sqlite3 *db, bool hex, int64_t v)
{
	return count_rows(db, hex ? "SELECT 1 FROM sync_objects WHERE addr = ? LIMIT 1"
				  : "SELECT 1 FROM sync_objects WHERE id = ?", NULL, v, NULL) > 0;
}

/* The address of the object called @name (sync_objects.name): 0, -ENOENT
 * when none is, -EEXIST when objects at several addresses are (their
 * addresses then in @others, malloc'd), -EIO. */
static int resolve_object_name(sqlite3 *db, const char *name, int64_t *addr, char **others)
{
	sqlite3_stmt *st;
	char *list = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&list, &size);
	int n = 0;

	if (!f)
		return -ENOMEM;
	if (sqlite3_prepare_v2(db, "SELECT DISTINCT addr FROM sync_objects WHERE name = ? ORDER BY addr", -1, &st,
			       NULL) != SQLITE_OK) {
		fclose(f);
		free(list);
		return -EIO;
	}
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		*addr = sqlite3_column_int64(st, 0);
		fprintf(f, "%s0x%" PRIx64, n++ ? ", " : "", (uint64_t)*addr);
	}
	sqlite3_finalize(st);
	fclose(f);
	if (n > 1)
		*others = list;
	else
		free(list);
	return n == 1 ? 0 : n == 0 ? -ENOENT : -EEXIST;
}

/* Text fits the terminal it is read on; in a pipe or a file, where no one
 * knows how wide it will be shown, no cell is cut (0: no width). */
int cmd_text_width(void)
{
	struct winsize ws;

	if (!isatty(STDOUT_FILENO))
		return 0;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

static void list_reports(void)
{
	int nr;
	const struct mtx_report *r = report_table(&nr);
	for (int i = 0; i < nr; i++)
		printf("%-14s %s%s%s\n", r[i].name, r[i].argument ? r[i].argument : "", r[i].argument ? ": " : "",
		       r[i].summary);
	printf("%-14s %s\n", "hb", "the happened-before graph of the sync events (also --format dot)");
	printf("%-14s %s\n", "metric", "[NAME] --focus F: a metric of the threads' time at a focus (--list)");
	printf("%-14s %s\n", "phases", "the run's phases, with the share of the threads' time in each state");
}

/* Whether a filter asked for (@wanted) is a parameter @param of one of
 * @stmts (always, when it was not asked for). */
static bool applies(sqlite3_stmt *const *stmts, int nr, const char *param, bool wanted)
{
	for (int i = 0; i < nr && wanted; i++)
		if (sqlite3_bind_parameter_index(stmts[i], param) > 0)
			return true;
	return !wanted;
}

/* A window that holds nothing of the run (it ends before it begins, or
 * begins after the run's end) is an error, said in one line: -1. */
static int check_window(sqlite3 *db, const struct run_state *rs, const struct filters *f,
			const struct mtx_query_params *given, int64_t origin_ns)
{
	/* Until recording stopped, for a run whose collector did not finish. */
	int64_t end_ns = db_run_end_ns(db) > rs->stopped_ns ? db_run_end_ns(db) : rs->stopped_ns;
	char length[32];

	if (given->has_from && given->has_to && given->from >= given->to) {
		log_error("--from %s --to %s: the window %s", f->from, f->to,
			  given->from == given->to ? "is empty" : "ends before it begins");
		return -1;
	}
	if (given->has_from && given->from >= end_ns) {
		log_error("--from %s: the run ended at %s", f->from,
			  timefmt_duration((uint64_t)(end_ns > origin_ns ? end_ns - origin_ns : 0), length, sizeof(length)));
		return -1;
	}
	if (given->has_to && given->to <= origin_ns) {
		log_error("--to %s: the window ends where the run begins", f->to);
		return -1;
	}
	return 0;
}

/* A run recorded with mtx collect --detail whose budget ran out: what the
 * report's figures hold (in text first, else on stderr). */
static void print_detail_note(sqlite3 *db, const struct run_state *rs, enum report_format format)
{
	char *note = run_state_detail_note(db, rs);
	if (note && format == REPORT_TEXT)
		printf("note: %s.\n\n", note);
	else if (note)
		log_warn("%s", note);
	free(note);
}

static int run_report(const char *path, const struct mtx_report *r, const char *arg, const struct filters *f,
		      enum report_format format, long limit_rows)
{
	struct mtx_query_params given = { .function = f->function };
	struct report_printer printer = { .out = stdout, .format = format, .width = cmd_text_width(),
					  .limit_rows = limit_rows };
	sqlite3_stmt **stmts = NULL, **counts = NULL;
	sqlite3 *db = NULL;
	char *err = NULL, *incomplete = NULL;
	const char *object = arg ? arg : f->object;
	int nr = 0, nr_shown = 0, status = EXIT_FAILURE_MTX;
	struct run_state rs;
	struct mtx_match *check;
	const char *unfiltered = NULL, *unmeasured;

	if (f->function) { /* one clear line for a bad pattern, before any work */
		if (!(check = match_compile(f->function, &err))) {
			log_error("%s", err ? err : "out of memory");
			free(err);
			return EXIT_USAGE;
		}
		match_free(check);
	}
	if (analysis_open(path, false, &db, &rs, &err)) {
		log_error("%s", err ? err : "cannot open");
		goto out;
	}
	if ((unmeasured = report_unavailable(db, r))) {
		log_error("%s: %s", path, unmeasured);
		goto out;
	}
	if (match_register_sql(db) || histogram_register_sql(db)) {
		log_error("cannot register SQL functions");
		goto out;
	}
	/* A window's GROUP BY sorts the rows in it; a helper thread shares
	 * the sorting (sync --from 1s --to 5s on the 10 M-event bench run,
	 * 1.6 M ops: 6.7 -> 3.7 s, medians of 3 interleaved pairs). */
	db_exec(db, "PRAGMA threads = 2", NULL);
	printer.origin_ns = db_run_start_ns(db);
	if (r->recorded && !db_query_int(db, r->recorded, 1)) {
		log_error("%s: report %s needs %s, which this run did not record", path, r->name, r->needs);
		goto out;
	}
	if (f->thread) {
		int rc = cmd_resolve_thread(db, f->thread, &given.tid);
		if (rc) {
			log_error("--thread %s: %s (mtx report %s threads lists them)", f->thread,
				  rc == -EEXIST ? "several threads have that name: give a tid"
				  : isdigit((unsigned char)*f->thread) ? "the run has no thread of that tid"
				  : "the run has no thread of that name", path);
			status = EXIT_USAGE;
			goto out;
		}
		given.has_tid = true;
	}
	if (object) {
		char *end;
		int hex = !strncmp(object, "0x", 2) || !strncmp(object, "0X", 2);
		long long v = strtoll(object, &end, hex ? 16 : 10);
		if (end == object || *end) { /* a name */
			char *others = NULL;
			int rc = resolve_object_name(db, object, &given.addr, &others);
			if (rc == -ENOENT)
				log_error("object '%s': no object has that name; give its address (0x...), its id "
					  "or a name the reports show", object);
			else if (rc == -EEXIST)
				log_error("object '%s': objects at several addresses have that name (%s): give "
					  "the address or the id", object, others);
			else if (rc)
				log_error("object '%s': %s", object, sqlite3_errmsg(db));
			free(others);
			if (rc) {
				status = rc == -EIO ? EXIT_FAILURE_MTX : EXIT_USAGE;
				goto out;
			}
			given.has_addr = true;
		} else if (!object_exists(db, hex, v)) {
			log_error("object %s: the run has no sync object of that %s", object, hex ? "address" : "id");
			status = EXIT_USAGE;
			goto out;
		} else if (hex)
			given.addr = v, given.has_addr = true;
		else
			given.object_id = v, given.has_object_id = true;
	}
	if (f->phase) { /* a phase's window: --from and --to as the phase says */
		struct phase_window w;
		int rc = cmd_phase_window(db, f->phase, f->phases_at, &w);
		if (rc) {
			status = rc;
			goto out;
		}
		if (w.id > 0) { /* phase 0 is the whole run */
			given.from = w.start_ns, given.has_from = true;
			given.to = w.end_ns, given.has_to = true;
		}
	}
	for (int i = 0; i < 2; i++) {
		const char *text = i ? f->to : f->from;
		int64_t *ns = i ? &given.to : &given.from;
		if (!text)
			continue;
		if (timefmt_parse_offset(text, ns)) {
			log_error("%s '%s': give a time since the run's start, like 1.5s, 200ms or 30us",
				  i ? "--to" : "--from", text);
			status = EXIT_USAGE;
			goto out;
		}
		*ns += printer.origin_ns;
		*(i ? &given.has_to : &given.has_from) = true;
	}
	if (check_window(db, &rs, f, &given, printer.origin_ns)) {
		status = EXIT_USAGE;
		goto out;
	}

	for (nr = 0; r->queries[nr].name; nr++)
		;
	stmts = calloc((size_t)nr, sizeof(*stmts));
	counts = calloc((size_t)nr, sizeof(*counts));
	if (!stmts || !counts) {
		log_error("out of memory");
		goto out;
	}
	for (int i = 0; i < nr; i++) {
		/* On an incomplete run, with what it lacks left unknown. */
		char *sql = query_sql(db, &r->queries[i], rs.missing);
		int rc = sqlite3_prepare_v2(db, sql ? sql : r->queries[i].sql, -1, &stmts[i], NULL);
		free(sql);
		if (rc != SQLITE_OK || (query_count_sql(r->queries[i].name) &&
					sqlite3_prepare_v2(db, query_count_sql(r->queries[i].name), -1, &counts[i],
							   NULL) != SQLITE_OK)) {
			log_error("report %s: %s", r->queries[i].name, sqlite3_errmsg(db));
			goto out;
		}
	}
	/* A filter no query of the report can apply is an error, not ignored. */
#define X(field, param, option)                                                               \
	if (!unfiltered && !applies(stmts, nr, param, given.has_##field))                     \
		unfiltered = option;
	QUERY_INT_PARAMS(X)
#undef X
#define X(field, param, option)                                                               \
	if (!unfiltered && option && !applies(stmts, nr, param, given.field != NULL))         \
		unfiltered = option;
	QUERY_TEXT_PARAMS(X)
#undef X
	if (unfiltered) {
		log_error("report %s cannot be filtered by %s", r->name, unfiltered);
		status = EXIT_USAGE;
		goto out;
	}
	const struct mtx_query_params params_given = given;
	/* Text says it first, where it is read; CSV and JSON keep their form. */
	if ((incomplete = run_state_line(&rs)) && format == REPORT_TEXT)
		printf("%s\n\n", incomplete);
	else if (incomplete)
		log_warn("%s: %s", path, incomplete);
	print_detail_note(db, &rs, format);
	report_begin(&printer);
	for (int i = 0; i < nr; i++) {
		char *note = query_note(&r->queries[i], rs.missing, format == REPORT_TEXT);
		if (note && format != REPORT_TEXT)
			log_warn("report %s: %s", r->queries[i].name, note);
		if (query_unknown(&r->queries[i], rs.missing)) {
			report_print_unknown(&printer, r->queries[i].name, r->queries[i].title,
					     run_phase_unknown(query_unknown(&r->queries[i], rs.missing)));
			free(note);
			continue;
		}
		nr_shown++;
		printer.note = note;
		query_bind(stmts[i], &params_given);
		if (counts[i])
			query_bind(counts[i], &params_given);
		printer.count = counts[i];
		uint64_t t0 = clock_now_ns();
		long printed = report_print(&printer, r->queries[i].name, r->queries[i].title, stmts[i], &err);
		printer.note = NULL;
		free(note);
		if (printed < 0) {
			fflush(stdout);
			if (db_error_is_corrupt(sqlite3_errcode(db)))
				log_error("%s: the database is corrupt", path);
			else
				log_error("report %s: %s", r->queries[i].name, err ? err : "failed");
			goto out;
		}
		log_debug("report %s: %lld ms", r->queries[i].name, (long long)((clock_now_ns() - t0) / 1000000));
		if (printer.nr_more && format != REPORT_TEXT) /* text says so in the table */
			log_warn("report %s: %ld more row%s not printed (--limit 0 for all)", r->queries[i].name,
				 printer.nr_more, plural_s((unsigned long long)printer.nr_more));
	}
	report_end(&printer);
	status = fflush(stdout) == 0 ? 0 : EXIT_FAILURE_MTX;
	if (!nr_shown) {
		log_error("%s: report %s cannot be shown: %s", path, r->name,
			  run_phase_unknown(query_unknown(&r->queries[0], rs.missing)));
		status = EXIT_FAILURE_MTX;
	}
out:
	free(incomplete);
	for (int i = 0; stmts && counts && i < nr; i++) {
		sqlite3_finalize(stmts[i]);
		sqlite3_finalize(counts[i]);
	}
	free(stmts);
	free(counts);
	free(err);
	sqlite3_close(db);
	return status;
}

static bool is_file(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0;
}

/* The usage error for @name, which is no report. */
static int unknown_report(const char *name)
{
	const char *names[32], *near;
	int nr, n = 0;
	const struct mtx_report *all = report_table(&nr);

	for (int i = 0; i < nr && n < 30; i++)
		names[n++] = all[i].name;
	names[n++] = "hb"; /* cmd_report_hb's, not a named query */
	names[n++] = "metric"; /* cmd_report_metric's */
	if ((near = cmd_suggest(name, names, (size_t)n)))
		return cmd_usage_error("report", "no report called '%s' (did you mean %s?)", name, near);
	return cmd_usage_error("report", "no report called '%s' (mtx report --list)", name);
}

static int unknown_format(const char *name)
{
	static const char *const formats[] = { "text", "csv", "json" };
	const char *near = cmd_suggest(name, formats, 3);

	if (near)
		return cmd_usage_error("report", "unknown format '%s' (did you mean %s?)", name, near);
	return cmd_usage_error("report", "unknown format '%s' (text, csv or json)", name);
}

/* mtx report FILE histogram --metric NAME ...: the options checked. */
static int report_histogram(const char *path, const char *metric, const char *const *foci, size_t nr_foci,
			    const char *buckets, const char *bucket_width, const char *extra, const struct filters *f,
			    bool cycles, const char *format_name)
{
	int format = REPORT_TEXT;
	long n = 32;
	int64_t width_ns = 1000000;
	char *end;
	if (extra)
		return cmd_usage_error("report", "unexpected argument '%s'", extra);
	if (f->thread || f->object || f->function || f->from || f->to || cycles)
		return cmd_usage_error("report", "report histogram --metric takes --focus and --phase, not the other "
						 "filters");
	if (buckets && ((n = strtol(buckets, &end, 10)) < 2 || *end || n % 2 || n > PC_HISTOGRAM_MAX_BUCKETS))
		return cmd_usage_error("report", "--buckets '%s': an even number from 2 to %d", buckets,
				       PC_HISTOGRAM_MAX_BUCKETS);
	if (bucket_width && (timefmt_parse_offset(bucket_width, &width_ns) || width_ns <= 0))
		return cmd_usage_error("report", "--bucket-width '%s': not a time above 0 (1.5s, 200ms, 30us, 10ns)",
				       bucket_width);
	if (format_name && (format = report_format_parse(format_name)) < 0)
		return unknown_format(format_name);
	if (cmd_default_db_missing("report", path))
		return EXIT_FAILURE_MTX;
	return cmd_report_histogram(path, metric, foci, nr_foci, (int)n, width_ns, f->phase, f->phases_at,
				    (enum report_format)format);
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "thread", required_argument, NULL, 't' }, { "object", required_argument, NULL, 'O' },
		{ "function", required_argument, NULL, 'F' }, { "from", required_argument, NULL, 'a' },
		{ "to", required_argument, NULL, 'b' },       { "format", required_argument, NULL, 'f' },
		{ "limit", required_argument, NULL, 'n' },    { "list", no_argument, NULL, 'l' },
		{ "verbose", no_argument, NULL, 'v' }, { "help", no_argument, NULL, 'h' },
		{ "cycles", no_argument, NULL, 'c' }, { "focus", required_argument, NULL, 'o' },
		{ "compare", required_argument, NULL, 'C' }, { "metric", required_argument, NULL, 'm' },
		{ "buckets", required_argument, NULL, 'B' }, { "bucket-width", required_argument, NULL, 'W' },
		{ "phase", required_argument, NULL, 'P' }, { "phases-at", required_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 },
	};
	enum { MAX_FOCI = 8 };
	const char *foci[MAX_FOCI];
	size_t nr_foci = 0;
	bool list = false;
	const char *compare = NULL;
	struct filters f = { 0 };
	const char *path = CMD_DEFAULT_DB, *name;
	int format = REPORT_TEXT, c;
	const char *format_name = NULL;
	long limit_rows = -1; /* not given */
	char *end;
	const struct mtx_report *r;
	struct mtx_report in_cycles;
	bool cycles = false;
	const char *metric = NULL, *buckets = NULL, *bucket_width = NULL;

	optind = 1;
	opterr = 0;
	/* Options may come anywhere (mtx report run.db waits --thread 12). */
	while ((c = getopt_long(argc, argv, ":t:O:F:f:n:lvh", longopts, NULL)) != -1) {
		switch (c) {
		case 't': f.thread = optarg; break;
		case 'O': f.object = optarg; break;
		case 'F': f.function = optarg; break;
		case 'a': f.from = optarg; break;
		case 'b': f.to = optarg; break;
		case 'f': format_name = optarg; break;
		case 'n':
			limit_rows = strtol(optarg, &end, 10);
			if (end == optarg || *end || limit_rows < 0)
				return cmd_usage_error("report", "--limit '%s': give a number of rows (0: all)", optarg);
			break;
		case 'l': list = true; break;
		case 'C': compare = optarg; break;
		case 'm': metric = optarg; break;
		case 'B': buckets = optarg; break;
		case 'W': bucket_width = optarg; break;
		case 'P': f.phase = optarg; break;
		case 'A': f.phases_at = optarg; break;
		case 'o':
			if (nr_foci == MAX_FOCI)
				return cmd_usage_error("report", "--focus at most %d times", MAX_FOCI);
			foci[nr_foci++] = optarg;
			break;
		case 'v': log_set_level(LOG_VERBOSE); break;
		case 'c': cycles = true; break;
		case 'h': fputs(cmd_report_usage, stdout); return 0;
		case ':': return cmd_usage_error("report", "option '%s' needs a value", argv[optind - 1]);
		default: return cmd_unknown_option("report", argv[optind - 1], longopts);
		}
	}
	argc -= optind;
	argv += optind;
	if (list) {
		/* mtx report metric --list, [FILE] metric --list */
		if ((argc == 1 && !strcmp(argv[0], "metric")) || (argc == 2 && !strcmp(argv[1], "metric")))
			report_metric_list(stdout);
		else
			list_reports();
		return 0;
	}
	/* [FILE] NAME [ARG]: FILE is run.db unless given, before NAME or, for
	 * one who wrote them the other way round, right after it. */
	if (argc == 0)
		return cmd_usage_error("report", "which report? (mtx report --list)");
	if (!is_file(argv[0]) &&
	    (report_find(argv[0]) || !strcmp(argv[0], "metric") || argc == 1 || is_file(argv[1]))) {
		name = argv[0];
		argc--, argv++;
		/* a report without an argument takes only a file after it */
		if (argc && (is_file(argv[0]) || (argc == 1 && report_find(name) && !report_find(name)->argument)))
			path = argv[0], argc--, argv++;
	} else {
		path = argv[0];
		if (argc < 2)
			return cmd_usage_error("report", "which report? (mtx report --list)");
		name = argv[1];
		argc -= 2, argv += 2;
	}
	if (compare && (!strcmp(name, "metric") || !strcmp(name, "hb")))
		return cmd_usage_error("report", "--compare is for the whole-run reports threads, sync, locks, "
						 "syscalls and flat, not %s", name);
	if ((buckets || bucket_width) && !metric)
		return cmd_usage_error("report", "--buckets and --bucket-width go with report histogram --metric");
	if (metric && strcmp(name, "histogram") && strcmp(name, "phases"))
		return cmd_usage_error("report", "--metric is for report histogram and report phases (report metric "
						 "takes its name)");
	if (f.phase && (f.from || f.to))
		return cmd_usage_error("report", "--phase is a window: give it or --from/--to, not both");
	if (f.phases_at && !f.phase && strcmp(name, "phases"))
		return cmd_usage_error("report", "--phases-at goes with --phase or report phases");
	if (!strcmp(name, "phases")) { /* not a named query: a row per phase */
		if (argc)
			return cmd_usage_error("report", "unexpected argument '%s'", argv[0]);
		if (f.thread || f.object || f.function || f.from || f.to || f.phase || cycles)
			return cmd_usage_error("report", "report phases takes --phases-at, --metric and --focus, not the "
							 "other filters");
		if (nr_foci && !metric)
			return cmd_usage_error("report", "report phases --focus: which --metric at it?");
		if (format_name && (format = report_format_parse(format_name)) < 0)
			return unknown_format(format_name);
		if (cmd_default_db_missing("report", path))
			return EXIT_FAILURE_MTX;
		return cmd_report_phases(path, f.phases_at, metric, foci, nr_foci, (enum report_format)format);
	}
	if (metric) /* not a named query: a consultant's metric over time */
		return report_histogram(path, metric, foci, nr_foci, buckets, bucket_width, argc ? argv[0] : NULL, &f,
					cycles, format_name);
	if (nr_foci && strcmp(name, "metric"))
		return cmd_usage_error("report", "--focus is for report metric and report histogram --metric");
	if (!strcmp(name, "metric")) { /* not a named query: the consultant's metrics */
		if (argc > 1)
			return cmd_usage_error("report", "unexpected argument '%s'", argv[1]);
		if (f.thread || f.object || f.function || f.from || f.to || cycles)
			return cmd_usage_error("report", "report metric takes --focus and --phase, not the other filters");
		if (format_name && (format = report_format_parse(format_name)) < 0)
			return unknown_format(format_name);
		if (cmd_default_db_missing("report", path))
			return EXIT_FAILURE_MTX;
		return cmd_report_metric(path, argc ? argv[0] : NULL, foci, nr_foci, f.phase, f.phases_at,
					 (enum report_format)format);
	}
	if (!strcmp(name, "hb")) { /* not a named query: the probe-effect analysis's graph */
		if (argc)
			return cmd_usage_error("report", "unexpected argument '%s'", argv[0]);
		if (f.object || f.function || f.from || f.to || f.phase)
			return cmd_usage_error("report", "report hb can only be filtered by --thread");
		if (cycles)
			return cmd_usage_error("report", "--cycles is for report overhead");
		if (cmd_default_db_missing("report", path))
			return EXIT_FAILURE_MTX;
		return cmd_report_hb(path, f.thread, format_name);
	}
	if (format_name && (format = report_format_parse(format_name)) < 0)
		return unknown_format(format_name);
	if (!(r = report_find(name)))
		return unknown_report(name);
	if (r->argument && argc < 1)
		return cmd_usage_error("report", "report %s needs %s", r->name, r->argument);
	if (argc > (r->argument ? 1 : 0))
		return cmd_usage_error("report", "unexpected argument '%s'", argv[r->argument ? 1 : 0]);
	if (r->argument && f.object)
		return cmd_usage_error("report", "give the object once");
	if (cycles) {
		if (!report_in_cycles(r))
			return cmd_usage_error("report", "--cycles is for report overhead");
		in_cycles = *r;
		in_cycles.queries = report_in_cycles(r);
		r = &in_cycles;
	}
	if (cmd_default_db_missing("report", path))
		return EXIT_FAILURE_MTX;
	/* Text is for reading: a table of a million rows is not. */
	if (limit_rows < 0)
		limit_rows = format == REPORT_TEXT ? DEFAULT_TEXT_LIMIT : 0;
	if (compare) {
		if (!report_compare_keys(r->name))
			return cmd_usage_error("report", "--compare is for the whole-run reports threads, sync, locks, "
							 "syscalls and flat, not %s", r->name);
		if (f.thread || f.object || f.function || f.from || f.to || cycles || r->argument)
			return cmd_usage_error("report", "--compare compares two whole runs: no filters");
		if (!is_file(compare))
			return cmd_usage_error("report", "--compare %s: no such file", compare);
		return cmd_report_compare(path, compare, r, (enum report_format)format, limit_rows,
					  format == REPORT_TEXT ? cmd_text_width() : 0);
	}
	if (limit_rows < 0)
		limit_rows = format == REPORT_TEXT ? DEFAULT_TEXT_LIMIT : 0;
	return run_report(path, r, r->argument ? argv[0] : NULL, &f, (enum report_format)format, limit_rows);
}
