/*
 * src/cmd/mtx.c - the entry point: the subcommand table, --help, --version and
 * 'mtx help CMD'. Only this file and cmd-*.c see both the collector and the
 * readers (ui, reports).
 */
#include "config.h"
#include "src/cmd/cmd.h"
#include "collector/sync/inject.h"
#include "src/log.h"
#include "src/phases.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <curses.h>
#include <errno.h>
#include <elfutils/libdwfl.h>
#include <limits.h>
#include <pcre2.h>
#include <sqlite3.h>

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const struct mtx_command commands[] = {
	{ "collect", cmd_collect, "run a program and record what its threads do into run.db", cmd_collect_usage,
	  cmd_collect_print_usage },
	{ "info", cmd_info, "say what a run database holds: command, duration, threads, events, losses",
	  cmd_info_usage, NULL },
	{ "browse", cmd_browse, "explore a run database: threads, objects, waits, timeline, ... (ncurses)",
	  cmd_browse_usage, NULL },
	{ "report", cmd_report, "print a report: threads, sync, locks, waits, critical path, ... (--list)",
	  cmd_report_usage, NULL },
	{ "diagnose", cmd_diagnose, "search the run for why its threads lost time, where and how much",
	  cmd_diagnose_usage, NULL },
	{ "export", cmd_export, "write the run for Perfetto, flame graphs, CSV or JSON lines", cmd_export_usage,
	  NULL },
	{ "probe-effect", cmd_probe_effect, "did recording change the run's synchronization order?",
	  cmd_probe_effect_usage, NULL },
	{ "calibrate", cmd_calibrate, "measure what a context switch and a kernel record cost on this machine",
	  cmd_calibrate_usage, NULL },
	{ "ctl", cmd_ctl, "switch probes and sources of a running mtx collect --control on or off", cmd_ctl_usage,
	  NULL },
};

static const int nr_commands = sizeof(commands) / sizeof(commands[0]);

const struct mtx_command *cmd_find(const char *name)
{
	for (int i = 0; i < nr_commands; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static void print_help(FILE *out)
{
	fprintf(out, "usage: mtx COMMAND [options] [args]\n"
		     "       mtx --help | --version | help COMMAND\n\n"
		     "mtx profiles and traces multithreaded programs: what each thread did, when it\n"
		     "waited, on what, and for whom.\n\ncommands:\n");
	for (int i = 0; i < nr_commands; i++)
		fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nSee mtx(1), mtx-COMMAND(1) and mtx-db(5).\n");
}

int cmd_phase_window(sqlite3 *db, const char *phase, const char *at, struct phase_window *w)
{
	char *err = NULL;
	int rc = run_phase_window(db, phase, at, w, &err);
	if (!rc)
		return 0;
	log_error("%s", err ? err : "out of memory");
	free(err);
	return rc == -EINVAL ? EXIT_USAGE : EXIT_FAILURE_MTX;
}

int cmd_usage_error(const char *command, const char *fmt, ...)
{
	const struct mtx_command *c = command ? cmd_find(command) : NULL;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_error("%s", msg);
	if (c) {
		/* The first line of the usage text is the synopsis. */
		const char *nl = strchr(c->usage, '\n');
		fprintf(stderr, "%.*s\n", nl ? (int)(nl - c->usage) : (int)strlen(c->usage), c->usage);
	} else {
		fprintf(stderr, "usage: mtx COMMAND [options] [args]   (mtx --help lists the commands)\n");
	}
	return EXIT_USAGE;
}

int cmd_default_db_missing(const char *command, const char *path)
{
	struct stat sb;

	if (strcmp(path, CMD_DEFAULT_DB) || stat(path, &sb) == 0)
		return 0;
	log_error("no %s here: name the run database (mtx %s FILE ...), or record one with mtx collect", path,
		  command);
	return 1;
}

/* The usage error for @name, which is no command. */
static int unknown_command(const char *name)
{
	const char *names[sizeof(commands) / sizeof(commands[0]) + 1];
	const char *near;

	for (int i = 0; i < nr_commands; i++)
		names[i] = commands[i].name;
	names[nr_commands] = "help";
	if ((near = cmd_suggest(name, names, (size_t)nr_commands + 1)))
		return cmd_usage_error(NULL, "unknown command '%s' (did you mean %s?)", name, near);
	return cmd_usage_error(NULL, "unknown command '%s'", name);
}

/* The version, then what it was built with and where its preload library
 * is: what a bug report needs. */
static void print_version(FILE *out)
{
	char pcre2[64] = "?", lib[PATH_MAX];
	pcre2_config(PCRE2_CONFIG_VERSION, pcre2);
	fprintf(out, "mtx %s\nbuilt with SQLite %s, PCRE2 %s, %s, elfutils %s, libunwind\n", PACKAGE_VERSION,
		sqlite3_libversion(), pcre2, curses_version(), dwfl_version(NULL));
	fprintf(out, "preload library: %s\n", inject_find_library(lib, sizeof(lib)) ? "not found" : lib);
}

int main(int argc, char **argv)
{
	static const struct option top_options[] = {
		{ "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, 'V' }, { NULL, 0, NULL, 0 },
	};
	const struct mtx_command *c;

	if (argc < 2)
		return cmd_usage_error(NULL, "no command given");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_help(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		print_version(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			print_help(stdout);
			return 0;
		}
		c = cmd_find(argv[2]);
		if (!c)
			return unknown_command(argv[2]);
		if (c->print_usage)
			c->print_usage(stdout);
		else
			fputs(c->usage, stdout);
		return 0;
	}
	if (argv[1][0] == '-')
		return cmd_unknown_option(NULL, argv[1], top_options);
	c = cmd_find(argv[1]);
	if (!c)
		return unknown_command(argv[1]);
	return c->run(argc - 1, argv + 1);
}
