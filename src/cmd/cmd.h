/*
 * src/cmd/cmd.h - the subcommand table. Each cmd-<name>.c defines one
 * cmd_<name>() and its usage text; src/cmd/mtx.c dispatches from the table.
 */
#ifndef MTX_CMD_H
#define MTX_CMD_H

#include "src/report-format.h"

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
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
int cmd_diagnose(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_ctl(int argc, char **argv);
/* cmd_report_hb - 'mtx report FILE hb': the happened-before graph of the
 * run (src/cmd/cmd-probe-effect.c), of one thread (@thread: tid or name,
 * or NULL), in @format (text, csv, json, dot; NULL: text). */
int cmd_report_hb(const char *path, const char *thread, const char *format);
/* cmd_report_phases - 'mtx report FILE phases [--phases-at T,...] [--metric
 * M [--focus F]...]': the run's phases with the threads' time in each state,
 * and metric @metric (NULL: none) at the focus the @foci name together
 * (src/cmd/report-phases.c). Returns the exit status. */
int cmd_report_phases(const char *path, const char *phases_at, const char *metric, const char *const *foci,
		      size_t nr_foci, enum report_format format);
/* report_metric_focus - the metric @name and the focus @foci (@n) name
 * together, in @d's run, into *@metric and *@f: 0, or the exit status of
 * a usage error, said (src/cmd/report-metric.c). */
struct pc_data;
struct pc_focus;
int report_metric_focus(const struct pc_data *d, const char *name, const char *const *foci, size_t n, int *metric,
			struct pc_focus *f);
/* cmd_text_width - the columns text may fill: the terminal's, 0 in a pipe
 * or a file (no cell cut). */
int cmd_text_width(void);
/* cmd_report_metric - 'mtx report FILE metric [NAME] --focus F...': the
 * metric @name (NULL: each one kept at the focus) at the focus that the
 * @foci name together, over the whole run or phase @phase (--phases-at:
 * @phases_at) (src/cmd/report-metric.c); report_metric_list -
 * 'mtx report metric --list'. */
int cmd_report_metric(const char *path, const char *name, const char *const *foci, size_t nr_foci,
		      const char *phase, const char *phases_at, enum report_format format);

/* cmd_report_histogram - 'mtx report FILE histogram --metric NAME [--focus
 * F...] [--buckets N] [--bucket-width W]': the metric at the focus over
 * time, @buckets buckets @width_ns wide at first, doubled until the run
 * fits (src/cmd/report-metric.c). Returns the exit status. */
int cmd_report_histogram(const char *path, const char *name, const char *const *foci, size_t nr_foci, int buckets,
			 int64_t width_ns, const char *phase, const char *phases_at, enum report_format format);
void report_metric_list(FILE *out);
/* cmd_report_compare - 'mtx report FILE NAME --compare BASE': report @r of
 * both runs, side by side (src/cmd/report-compare.c), its tables @width
 * columns wide at most (<= 0: not cut); report_compare_keys - the columns
 * that match the rows of report or section @name, NULL when it is not
 * compared. */
struct mtx_report;
struct sqlite3;
/* cmd_resolve_thread - the tid a --thread value names: a tid of the run,
 * or the one thread of that name (src/cmd/cmd-report.c). 0, or -ENOENT
 * (none), -EEXIST (several of that name). */
int cmd_resolve_thread(struct sqlite3 *db, const char *text, int64_t *tid);
int cmd_report_compare(const char *path, const char *base, const struct mtx_report *r, enum report_format format,
		       long limit_rows, int width);
const char *report_compare_keys(const char *name);

extern const char cmd_collect_usage[];
void cmd_collect_print_usage(FILE *out);
extern const char cmd_info_usage[];
extern const char cmd_report_usage[];
extern const char cmd_browse_usage[];
extern const char cmd_probe_effect_usage[];
extern const char cmd_diagnose_usage[];
extern const char cmd_export_usage[];
extern const char cmd_calibrate_usage[];
extern const char cmd_ctl_usage[];

/* cmd_find - the command called @name, or NULL. */
const struct mtx_command *cmd_find(const char *name);

/* cmd_usage_error - print "mtx: <msg>" and the command's usage line to
 * stderr; returns EXIT_USAGE. */
int cmd_usage_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* cmd_phase_window - the part of the run @db that --phase @phase names
 * (@at: --phases-at, or NULL) into @w: 0, or the exit status once said
 * (EXIT_USAGE for a phase the run does not have). */
struct phase_window;
int cmd_phase_window(sqlite3 *db, const char *phase, const char *at, struct phase_window *w);

/* The run database a command reads when none is given, as mtx collect
 * writes it. */
#define CMD_DEFAULT_DB "run.db"

/* cmd_default_db_missing - when @path is CMD_DEFAULT_DB, taken because no
 * file was given, and there is none: say so and how to give one, and
 * return 1 (the command exits EXIT_FAILURE_MTX); else 0. */
int cmd_default_db_missing(const char *command, const char *path);

/* cmd_suggest - the one of @names (@nr of them) that @word most likely
 * misspells ("did you mean"), or NULL when none is close. */
const char *cmd_suggest(const char *word, const char *const *names, size_t nr);

/* cmd_unknown_option - the usage error for the unknown option @arg of
 * @command, with the long option of @longopts (NULL: none) it most likely
 * misspells; returns EXIT_USAGE. */
struct option;
int cmd_unknown_option(const char *command, const char *arg, const struct option *longopts);

#endif
