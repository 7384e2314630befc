/* src/cmd/cmd-info.c - 'mtx info run.db': what a run database holds. */
#include "config.h"
#include "src/cmd/cmd.h"
#include "src/db.h"
#include "src/log.h"
#include "src/run-state.h"
#include "src/timefmt.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char cmd_info_usage[] =
	"usage: mtx info [FILE]\n"
	"\n"
	"Say what the run database FILE (default run.db) holds: whether the run is\n"
	"complete (if not, what it lacks), the command, when and where it ran, how\n"
	"long, its exit status, how many processes, threads and events of each kind\n"
	"were recorded, and how many records were lost per source.\n";

static void print_meta(sqlite3 *db, const char *label, const char *key)
{
	char *v = db_meta_get(db, key);
	printf("%-13s %s\n", label, v ? v : "(unknown)");
	free(v);
}

/* When the run began, in local time with its offset (meta start_realtime_s). */
static void print_started(sqlite3 *db)
{
	char *v = db_meta_get(db, "start_realtime_s"), when[64] = "(unknown)";
	time_t t = v ? (time_t)strtoll(v, NULL, 10) : 0;
	struct tm tm;

	if (v && localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %z", &tm);
	printf("%-13s %s\n", "started", when);
	free(v);
}

static int64_t meta_int(sqlite3 *db, const char *key)
{
	char *v = db_meta_get(db, key);
	int64_t n = v ? strtoll(v, NULL, 10) : 0;
	free(v);
	return n;
}

/* The program's exit status as mtx knew it: in meta once the run is
 * complete, else in the launched process's row once the ends are written. */
static void print_exit_status(sqlite3 *db, const struct run_state *rs)
{
	char *v = db_meta_get(db, "exit_status"), *attached = db_meta_get(db, "attach_pid");
	sqlite3_stmt *st;
	if (attached) { /* mtx collect -p: not a child of mtx */
		char age[32], span[32];
		int64_t attach_ns = meta_int(db, "attach_ns"), detach_ns = meta_int(db, "detach_ns");
		printf("%-13s not known (attached to process %s)\n", "exit status", attached);
		printf("%-13s pid %s, %s after it started, for %s\n", "attached", attached,
		       timefmt_duration((uint64_t)meta_int(db, "attach_process_age_ns"), age, sizeof(age)),
		       detach_ns > attach_ns ? timefmt_duration((uint64_t)(detach_ns - attach_ns), span, sizeof(span))
					     : "(not detached: recording stopped)");
		free(attached);
		free(v);
		return;
	}
	if (!v && sqlite3_prepare_v2(db, "SELECT exit_status FROM main.processes WHERE ppid IS NULL OR ppid NOT IN "
				     "(SELECT pid FROM main.processes) ORDER BY start_ns LIMIT 1", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
			v = strdup((const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
	printf("%-13s %s\n", "exit status",
	       v ? v : rs->missing & RUN_ENDS ? "unknown (recording stopped before the program's end)" : "unknown");
	free(v);
}

/* Print the text of a one-row, one-column query in parentheses, unless it
 * is NULL or there is no row. */
static void print_detail(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		printf("  (%s)", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

/* mtx collect --detail: until when every event of the kernel's stream
 * became a row, and how many rows it kept at most. */
static void print_detail_window(sqlite3 *db, const struct run_state *rs)
{
	char *until = db_meta_get(db, "detail_until_ns"), *rows = db_meta_get(db, "detail_rows");
	char *sync_until = db_meta_get(db, "sync_detail_until_ns");
	char buf[32];
	int64_t start = rs->start_ns;
	if (until)
		printf("%-13s every event a row for the first %s (%s rows); after it, running and runnable\n"
		       "%-13s intervals, switches and syscalls that did not block only added up (--detail)\n",
		       "detail", timefmt_duration((uint64_t)(atoll(until) - start), buf, sizeof(buf)), rows, "");
	else if (rows)
		printf("%-13s every event a row%s\n", "detail", strcmp(rows, "0") ? " (within --detail's rows)" : "");
	if (sync_until)
		printf("%-13s sync ops after %s that neither blocked nor found their lock held only added up\n", "",
		       timefmt_duration((uint64_t)(atoll(sync_until) - start), buf, sizeof(buf)));
	free(until);
	free(sync_until);
	free(rows);
}

int cmd_info(int argc, char **argv)
{
	static const struct option options[] = { { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 } };
	const char *path = CMD_DEFAULT_DB;
	static const struct { const char *label, *table, *detail; } tables[] = {
		{ "processes", "processes", NULL },
		{ "threads", "threads", /* mtx collect -p */
		  "SELECT SUM(attached) || ' alive at attach, ' || SUM(NOT attached) || ' created after' FROM threads "
		  "HAVING SUM(attached) > 0" },
		/* mtx collect --detail: what was added up rather than written */
		{ "states", "thread_states",
		  "SELECT SUM(intervals) || ' more running or runnable, added up' FROM summarized_states HAVING COUNT(*)" },
		{ "switches", "switches",
		  "SELECT SUM(count) || ' more that did not block, added up' FROM summarized_switches HAVING COUNT(*)" },
		{ "wakeups", "wakeups", NULL },
		{ "syscalls", "syscalls",
		  "SELECT SUM(calls) || ' more that did not block, added up' FROM summarized_syscalls HAVING COUNT(*)" },
		{ "sync ops", "sync_ops",
		  /* contended as in the locks report: a lock's op that found it held or blocked */
		  "SELECT SUM(blocked) || ' blocked, ' || SUM((holder_tid IS NOT NULL OR blocked) AND object_id IN "
		  "(SELECT id FROM sync_objects WHERE kind IN ('mutex', 'rwlock', 'spinlock'))) || ' contended'"
		  " || IIF(SUM(result IS NULL) > 0, ', ' || SUM(result IS NULL) || ' never returned', '') "
		  " || COALESCE(', ' || (SELECT SUM(calls) FROM summarized_sync_ops) || ' more added up', '') "
		  "FROM sync_ops HAVING COUNT(*)" },
		{ "sync objects", "sync_objects",
		  "SELECT group_concat(n || ' ' || kind, ', ') FROM "
		  "(SELECT kind, COUNT(*) AS n FROM sync_objects GROUP BY kind ORDER BY n DESC, kind)" },
		{ "calls", "calls", NULL },
		{ "samples", "samples",
		  "SELECT group_concat(n || ' ' || unwind, ', ') FROM "
		  "(SELECT unwind, COUNT(*) AS n FROM samples WHERE unwind IS NOT NULL GROUP BY unwind ORDER BY n DESC, unwind)" },
		{ "interrupts", "interrupts",
		  "SELECT group_concat(n || ' ' || kind, ', ') FROM "
		  "(SELECT kind, COUNT(*) AS n FROM main.interrupts GROUP BY kind ORDER BY n DESC, kind)" },
	};
	sqlite3 *db;
	char *err = NULL, *status, *sources;
	char buf[32], sql[128];
	int64_t lost_total = 0;
	int nr_lost = 0;
	struct run_state rs;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(cmd_info_usage, stdout);
		return 0;
	}
	if (argc > 1 && argv[1][0] == '-')
		return cmd_unknown_option("info", argv[1], options);
	if (argc > 2)
		return cmd_usage_error("info", "one database at a time");
	if (argc > 1)
		path = argv[1];
	if (cmd_default_db_missing("info", path))
		return EXIT_FAILURE_MTX;
	if (db_open_readonly(path, &db, &err) || db_check_pages(db, path, &err) || run_state_open(db, path, &rs, &err)) {
		log_error("%s", err);
		free(err);
		sqlite3_close(db);
		return EXIT_FAILURE_MTX;
	}
	printf("%-13s %s\n", "file", path);
	status = run_state_line(&rs);
	printf("%-13s %s\n", "status", status ? status : "complete");
	free(status);
	print_meta(db, "command", "command");
	print_started(db);
	print_meta(db, "host", "hostname");
	print_meta(db, "kernel", "kernel");
	print_meta(db, "cpus", "nr_cpus");
	print_meta(db, "clock", "clock");
	print_meta(db, "mtx version", "mtx_version");
	if (rs.complete)
		printf("%-13s %s\n", "duration", timefmt_duration((uint64_t)meta_int(db, "duration_ns"), buf, sizeof(buf)));
	else /* until recording stopped */
		printf("%-13s %s recorded\n", "duration", timefmt_duration(run_state_recorded_ns(&rs), buf, sizeof(buf)));
	print_exit_status(db, &rs);
	print_meta(db, "sources", "events");
	print_detail_window(db, &rs);
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		/* main: the file's rows, not those run_state_open added */
		snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM main.%s", tables[i].table);
		printf("%-13s %lld", tables[i].label, (long long)db_query_int(db, sql, 0));
		if (!strcmp(tables[i].table, "threads") && rs.nr_unended)
			printf("  (and %d still running when recording stopped, without a row)", rs.nr_unended);
		else if (!strcmp(tables[i].table, "sync_ops") && (rs.missing & RUN_SYNC))
			printf("  (blocking and lock holders not resolved)");
		else if (tables[i].detail)
			print_detail(db, tables[i].detail);
		putchar('\n');
	}
	sources = db_meta_get(db, "events");
	printf("%-13s", "lost");
	{
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(db, "SELECT substr(key, 6), value FROM meta WHERE key LIKE 'lost\\_%' ESCAPE '\\' ORDER BY key",
				       -1, &st, NULL) == SQLITE_OK) {
			while (sqlite3_step(st) == SQLITE_ROW) {
				printf(" %s %s", sqlite3_column_text(st, 0), sqlite3_column_text(st, 1));
				lost_total += sqlite3_column_int64(st, 1);
				nr_lost++;
			}
			sqlite3_finalize(st);
		}
	}
	if (!nr_lost && (rs.missing & RUN_TOTALS))
		printf(" unknown (counted when the collector finishes)");
	printf("%s\n", lost_total ? "  (some records were lost)" : "");
	free(sources);
	if (sqlite3_errcode(db) != SQLITE_OK && db_error_is_corrupt(sqlite3_errcode(db))) {
		log_error("%s: the database is corrupt", path);
		sqlite3_close(db);
		return EXIT_FAILURE_MTX;
	}
	sqlite3_close(db);
	return 0;
}
