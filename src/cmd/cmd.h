/*
 * src/cmd/cmd.h - the subcommand table. Each cmd-<name>.c defines one
 * cmd_<name>() and its usage text; src/cmd/mtx.c dispatches from the table.
 */
#ifndef MTX_CMD_H
#define MTX_CMD_H

#include <stdio.h>

/* Exit statuses of mtx itself (the traced program's status otherwise). */
enum {
	EXIT_USAGE = 2,      /* bad command line */
	EXIT_FAILURE_MTX = 1 /* mtx could not do what was asked */
};

struct mtx_command {
	const char *name;
	int (*run)(int argc, char **argv); /* argv[0] is the command name */
	const char *summary;               /* one line for 'mtx --help' */
	const char *usage;                 /* full usage for 'mtx help NAME' */
	void (*print_usage)(FILE *out);    /* prints it, when it is generated in part */
};

int cmd_collect(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_browse(int argc, char **argv);
int cmd_probe_effect(int argc, char **argv);
/* cmd_report_hb - 'mtx report FILE hb': the happened-before graph of the
 * run (src/cmd/cmd-probe-effect.c), of one thread (@thread: tid or name,
 * or NULL), in @format (text, csv, json, dot; NULL: text). */
int cmd_report_hb(const char *path, const char *thread, const char *format);

extern const char cmd_collect_usage[];
void cmd_collect_print_usage(FILE *out);
extern const char cmd_info_usage[];
extern const char cmd_report_usage[];
extern const char cmd_browse_usage[];
extern const char cmd_probe_effect_usage[];

/* cmd_find - the command called @name, or NULL. */
const struct mtx_command *cmd_find(const char *name);

/* cmd_usage_error - print "mtx: <msg>" and the command's usage line to
 * stderr; returns EXIT_USAGE. */
int cmd_usage_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
