/* src/cmd-info.c - 'mtx info run.db': what a run database holds. */
#include "config.h"
#include "src/cmd.h"
#include "src/db.h"
#include "src/log.h"
#include "src/timefmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cmd_info_usage[] =
	"usage: mtx info [FILE]\n"
	"\n"
	"Say what the run database FILE (default run.db) holds: the command, when and\n"
	"where it ran, how long, its exit status, how many processes, threads and\n"
	"events of each kind were recorded, and how many records were lost per source.\n";

static void print_meta(sqlite3 *db, const char *label, const char *key)
{
	char *v = db_meta_get(db, key);
	printf("%-13s %s\n", label, v ? v : "(unknown)");
	free(v);
}

static int64_t meta_int(sqlite3 *db, const char *key)
{
	char *v = db_meta_get(db, key);
	int64_t n = v ? strtoll(v, NULL, 10) : 0;
	free(v);
	return n;
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

int cmd_info(int argc, char **argv)
{
	const char *path = "run.db";
	static const struct { const char *label, *table, *detail; } tables[] = {
		{ "processes", "processes", NULL }, { "threads", "threads", NULL },
		{ "states", "thread_states", NULL }, { "switches", "switches", NULL },
		{ "wakeups", "wakeups", NULL }, { "syscalls", "syscalls", NULL },
		{ "sync ops", "sync_ops",
		  "SELECT SUM(blocked) || ' blocked, ' || SUM(holder_tid IS NOT NULL) || ' found the lock held'"
		  " || IIF(SUM(result IS NULL) > 0, ', ' || SUM(result IS NULL) || ' never returned', '') "
		  "FROM sync_ops HAVING COUNT(*)" },
		{ "sync objects", "sync_objects",
		  "SELECT group_concat(n || ' ' || kind, ', ') FROM "
		  "(SELECT kind, COUNT(*) AS n FROM sync_objects GROUP BY kind ORDER BY n DESC, kind)" },
		{ "calls", "calls", NULL },
		{ "samples", "samples",
		  "SELECT group_concat(n || ' ' || unwind, ', ') FROM "
		  "(SELECT unwind, COUNT(*) AS n FROM samples WHERE unwind IS NOT NULL GROUP BY unwind ORDER BY n DESC, unwind)" },
	};
	sqlite3 *db;
	char *err = NULL, *complete, *sources;
	char buf[32], sql[128];
	int64_t lost_total = 0;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(cmd_info_usage, stdout);
		return 0;
	}
	if (argc > 1 && argv[1][0] == '-')
		return cmd_usage_error("info", "unknown option '%s'", argv[1]);
	if (argc > 2)
		return cmd_usage_error("info", "one database at a time");
	if (argc > 1)
		path = argv[1];
	if (db_open_readonly(path, &db, &err) || db_check_pages(db, path, &err)) {
		log_error("%s", err);
		free(err);
		sqlite3_close(db);
		return EXIT_FAILURE_MTX;
	}
	complete = db_meta_get(db, "complete");
	printf("%-13s %s%s\n", "file", path,
	       complete && !strcmp(complete, "1") ? "" : "  (INCOMPLETE: the collector did not finish)");
	free(complete);
	print_meta(db, "command", "command");
	print_meta(db, "kernel", "kernel");
	print_meta(db, "cpus", "nr_cpus");
	print_meta(db, "clock", "clock");
	print_meta(db, "mtx version", "mtx_version");
	printf("%-13s %s\n", "duration", timefmt_duration((uint64_t)meta_int(db, "duration_ns"), buf, sizeof(buf)));
	print_meta(db, "exit status", "exit_status");
	print_meta(db, "sources", "events");
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM %s", tables[i].table);
		printf("%-13s %lld", tables[i].label, (long long)db_query_int(db, sql, 0));
		if (tables[i].detail)
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
			}
			sqlite3_finalize(st);
		}
	}
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
