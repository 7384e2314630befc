/*
 * src/cmd/mtx.c - the entry point: the subcommand table, --help, --version and
 * 'mtx help CMD'. Only this file and cmd-*.c see both the collector and the
 * readers (ui, reports).
 */
#include "config.h"
#include "src/cmd/cmd.h"
#include "src/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct mtx_command commands[] = {
	{ "collect", cmd_collect, "run a program and record what its threads do into run.db", cmd_collect_usage,
	  cmd_collect_print_usage },
	{ "info", cmd_info, "say what a run database holds: command, duration, threads, events, losses",
	  cmd_info_usage, NULL },
	{ "browse", cmd_browse, "explore a run database: threads, objects, waits, timeline, ... (ncurses)",
	  cmd_browse_usage, NULL },
	{ "report", cmd_report, "print a report: threads, sync, locks, waits, critical path, ... (--list)",
	  cmd_report_usage, NULL },
	{ "probe-effect", cmd_probe_effect, "did recording change the run's synchronization order?",
	  cmd_probe_effect_usage, NULL },
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

int main(int argc, char **argv)
{
	const struct mtx_command *c;

	if (argc < 2)
		return cmd_usage_error(NULL, "no command given");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_help(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("mtx %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			print_help(stdout);
			return 0;
		}
		c = cmd_find(argv[2]);
		if (!c)
			return cmd_usage_error(NULL, "unknown command '%s'", argv[2]);
		if (c->print_usage)
			c->print_usage(stdout);
		else
			fputs(c->usage, stdout);
		return 0;
	}
	if (argv[1][0] == '-')
		return cmd_usage_error(NULL, "unknown option '%s'", argv[1]);
	c = cmd_find(argv[1]);
	if (!c)
		return cmd_usage_error(NULL, "unknown command '%s'", argv[1]);
	return c->run(argc - 1, argv + 1);
}
