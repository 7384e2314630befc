/*
 * src/cmd/cmd-browse.c - 'mtx browse FILE': the ncurses explorer (ui/). The
 * file is opened read-only and never changed: derived tables it lacks are
 * built as TEMP tables for this session.
 */
#include "config.h"
#include "src/derived/analysis.h"
#include "src/clock.h"
#include "src/cmd/cmd.h"
#include "src/db.h"
#include "src/derived/histogram.h"
#include "src/log.h"
#include "src/match.h"
#include "src/run-state.h"
#include "ui/browse.h"
#include "ui/live-tables.h"
#include "ui/display.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

const char cmd_browse_usage[] =
	"usage: mtx browse [--keys] [FILE]\n"
	"       mtx browse --live SOCK\n"
	"\n"
	"Explore the run database FILE (default run.db): threads, objects, waits, a\n"
	"timeline, switches, syscalls, call trees and the critical path (? inside\n"
	"lists the keys).\n"
	"\n"
	"  -l, --live SOCK  watch a run as mtx collect records it, through its control\n"
	"                   socket SOCK: the consultant's hypotheses, each thread's\n"
	"                   states and the busiest sync objects, over each second\n"
	"  -k, --keys       print the keys and what they do, and exit\n"
	"  -h, --help       this help\n";

/* --live SOCK: the browser on the answers of a collector, kept in a
 * database in memory. */
static int browse_live_run(const char *sock, uint64_t start_ns)
{
	sqlite3 *db = NULL;
	char *err = NULL;
	const char *why = NULL;
	int rc;
	if (display_usable(&why)) {
		log_error("browse: %s", why);
		return EXIT_FAILURE_MTX;
	}
	if (sqlite3_open(":memory:", &db) != SQLITE_OK || live_tables_create(db, &err) || match_register_sql(db)) {
		log_error("browse: %s", err ? err : "cannot make the live tables");
		free(err);
		sqlite3_close(db);
		return EXIT_FAILURE_MTX;
	}
	rc = browse_live(db, sock, start_ns, &why);
	if (rc)
		log_error("%s", why ? why : "browse: failed");
	sqlite3_close(db);
	return rc ? EXIT_FAILURE_MTX : 0;
}

int cmd_browse(int argc, char **argv)
{
	static const struct option options[] = {
		{ "live", required_argument, NULL, 'l' },
		{ "keys", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t start_ns = clock_now_ns();
	int opt;
	sqlite3 *db = NULL;
	char *err = NULL;
	const char *why = NULL;
	struct run_state rs;
	const char *live = NULL;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:l:kh", options, NULL)) != -1) {
		switch (opt) {
		case 'l':
			live = optarg;
			break;
		case ':':
			return cmd_usage_error("browse", "option '%s' needs a value", argv[optind - 1]);
		case 'k':
			browse_print_keys();
			return 0;
		case 'h':
			fputs(cmd_browse_usage, stdout);
			return 0;
		default:
			return cmd_unknown_option("browse", argv[optind - 1], options);
		}
	}
	if (live && argc > optind)
		return cmd_usage_error("browse", "--live watches a run being recorded: no run database with it");
	if (live)
		return browse_live_run(live, start_ns);
	if (argc - optind > 1)
		return cmd_usage_error("browse", "one run database only");
	const char *path = optind < argc ? argv[optind] : CMD_DEFAULT_DB;
	if (cmd_default_db_missing("browse", path))
		return EXIT_FAILURE_MTX;
	/* The file, then the terminal, before derived tables are built. */
	if (db_open_readonly(path, &db, &err)) {
		log_error("%s", err ? err : path);
		free(err);
		sqlite3_close(db);
		return EXIT_FAILURE_MTX;
	}
	sqlite3_close(db);
	db = NULL;
	if (display_usable(&why)) {
		log_error("browse: %s", why);
		return EXIT_FAILURE_MTX;
	}
	if (analysis_open(path, true, &db, &rs, &err)) {
		log_error("%s", err ? err : path);
		free(err);
		sqlite3_close(db);
		return EXIT_FAILURE_MTX;
	}
	if (match_register_sql(db) || histogram_register_sql(db)) {
		log_error("cannot register SQL functions");
		sqlite3_close(db);
		return EXIT_FAILURE_MTX;
	}
	int rc = browse_run(db, path, &rs, start_ns, &why);
	if (rc)
		log_error("browse: %s", why ? why : "failed");
	sqlite3_close(db);
	return rc ? EXIT_FAILURE_MTX : 0;
}
