/*
 * src/cmd/cmd-calibrate.c - 'mtx calibrate': measure on this machine the
 * costs mtx's models take as given, and print them: the scheduler's cost
 * at a context switch (seed 004 §4.2, collector/calibrate-sched.c), what
 * one kernel record or probed call costs the thread it is recorded for
 * (collector/calibrate.c), and what the preload library adds to a sync
 * op and a hooked call (collector/calibrate-library.c). mtx collect
 * measures all but the library's at each run's start, with fewer rounds,
 * into the run's meta; this command keeps its figures with the machine's
 * identity (collector/cal-store.h).
 */
#include "config.h"
#include "src/cmd/cmd.h"
#include "collector/calibrate.h"
#include "collector/calibrate-sched.h"
#include "collector/calibrate-library.h"
#include "collector/cal-store.h"
#include "collector/function-uprobes.h"
#include "collector/perf.h"
#include "src/log.h"
#include "src/timefmt.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_ROUNDS 20000u
#define MAX_ROUNDS 10000000u
#define LABEL_WIDTH 24

const char cmd_calibrate_usage[] =
	"usage: mtx calibrate [--only sched|records|probes|library] [--rounds N]\n"
	"\n"
	"Measure on this machine the costs mtx takes as given, and print them:\n"
	"  sched    what a wakeup and a context switch cost (seed 004 4.2): two threads\n"
	"           pinned to one CPU, a high-priority one blocked on a semaphore and a\n"
	"           low-priority one posting it; the time of that post minus the time\n"
	"           of a post without a waiter. SCHED_FIFO 99/98 when permitted, else\n"
	"           SCHED_OTHER at nice -20/19; the line says which it had.\n"
	"  records  what one kernel record (a syscall's, a CPU sample, a switch's, a\n"
	"           wakeup's) costs the thread it is recorded for.\n"
	"  probes   what one call of a function traced with uprobes (entry and\n"
	"           return) costs its thread: what mtx ctl's replies and mtx\n"
	"           collect's overhead budget weigh calls by.\n"
	"  library  what libmtx-preload.so adds to an uncontended lock + unlock pair\n"
	"           (two sync ops recorded), and to a call through the -pg /\n"
	"           -finstrument-functions hooks (entry and exit recorded).\n"
	"mtx collect measures them at each run's start, with fewer rounds, into the\n"
	"run's meta (cal_sched_switch_ns, cal_<source>_ns, cal_uprobes_ns; not library's).\n"
	"This command\n"
	"keeps its figures with this machine's identity (/var/lib/mtx/calibration for\n"
	"root, ~/.local/state/mtx/calibration, or $MTX_CALIBRATION), where a run whose\n"
	"own calibration is not clear takes the cost of a probe's call from.\n"
	"\n"
	"options:\n"
	"      --only WHAT   measure only sched, records, probes or library\n"
	"  -n, --rounds N    rounds of the sched calibration (default 20000)\n"
	"  -h, --help        show this text\n"
	"\n"
	"Exit status: 0 when every figure asked for was measured, 1 when one was\n"
	"not (its line says why), 2 for a bad command line.\n";

enum {
	ONLY_SCHED = 1,
	ONLY_RECORDS = 2,
	ONLY_PROBES = 4,
	ONLY_LIBRARY = 8,
	ALL = ONLY_SCHED | ONLY_RECORDS | ONLY_PROBES | ONLY_LIBRARY
};

/* Keep figure @key for this machine (collector/cal-store.h): a run whose
 * own calibration is not clear falls back on it. Not kept is said. */
static void keep(const char *key, uint64_t ns)
{
	char path[4096];
	int rc = cal_store_save(key, ns);
	if (rc) {
		cal_store_path(path, sizeof(path));
		log_warn("%s is not kept in %s: %s", key, path, strerror(-rc));
	}
}

/* The sched line; 0 when measured, else 1. */
static int print_sched(unsigned rounds)
{
	struct mtx_sched_cost c;
	char figure[32], *how;
	int rc = calibrate_sched_cost(&c, rounds);

	if (rc && rc != -EAGAIN) {
		log_error("cannot calibrate the scheduler: %s", strerror(-rc));
		return 1;
	}
	how = calibrate_sched_how(&c);
	if (rc)
		printf("%-*s no clear figure  (%s: fewer than half the rounds counted, or no difference)\n",
		       LABEL_WIDTH, "context switch + wakeup", how ? how : "");
	else
		printf("%-*s %s  (%s)\n", LABEL_WIDTH, "context switch + wakeup",
		       timefmt_duration(c.switch_ns, figure, sizeof(figure)), how ? how : "");
	if (!rc)
		keep("cal_sched_switch_ns", c.switch_ns);
	free(how);
	fflush(stdout);
	return rc ? 1 : 0;
}

/* The record lines, as a run would calibrate them with every source and
 * samples (frame-pointer call chains); 0 when all were measured, else 1. */
static int print_records(void)
{
	uint64_t ns[CAL_NR_RECORDS];
	char figure[32];
	int missing = 0;

	calibrate_record_costs(ns, ~0u, 1, 0);
	for (int i = 0; i < CAL_NR_RECORDS; i++) {
		const struct mtx_record_cal *r = &calibrate_records[i];

		if (ns[i]) {
			printf("%-*s %s  (%s; meta %s)\n", LABEL_WIDTH, r->label,
			       timefmt_duration(ns[i], figure, sizeof(figure)), r->what, r->meta_key);
			keep(r->meta_key, ns[i]);
		}
		else
			printf("%-*s not calibrated  (%s: the rounds disagreed, or perf refused the events)\n",
			       LABEL_WIDTH, r->label, r->what);
		missing |= !ns[i];
	}
	return missing;
}

/* The probes line: a traced call of calibrate_uprobe_target in this
 * process, probed as mtx collect --functions probes; 0 when measured. */
static int print_probes(void)
{
	struct function_uprobes *fu = NULL;
	char *err = NULL, figure[32];
	uint64_t ns = 0;
	int fds[2] = { -1, -1 };
	int rc = tracefs_ensure(&err);
	if (!rc)
		rc = function_uprobes_find(&fu, "/proc/self/exe", "^calibrate_uprobe_target$", NULL, &err);
	if (!rc)
		rc = function_uprobes_define(fu, &err);
	if (!rc && function_uprobes_calibration(fu))
		ns = calibrate_uprobes(NULL, function_uprobes_calibration(fu), fds);
	for (int i = 0; i < 2; i++) /* before the definitions go (function_uprobes_free) */
		if (fds[i] >= 0)
			close(fds[i]);
	function_uprobes_free(fu);
	if (ns) {
		printf("%-*s %s  (a call traced with an entry and a return uprobe; meta cal_uprobes_ns)\n",
		       LABEL_WIDTH, "function probe call", timefmt_duration(ns, figure, sizeof(figure)));
		keep("cal_uprobes_ns", ns);
	}
	else
		printf("%-*s not calibrated  (%s)\n", LABEL_WIDTH, "function probe call",
		       err ? err : "the rounds disagreed, or perf refused the uprobes");
	free(err);
	return ns ? 0 : 1;
}

/* The library's lines; 0 when both were measured, else 1. */
static int print_library(void)
{
	struct mtx_library_cost c;
	char *err = NULL, figure[32];
	int missing = 0;
	if (calibrate_library(&c, &err)) {
		log_error("cannot calibrate the library: %s", err ? err : "out of memory");
		free(err);
		return 1;
	}
	const struct {
		const char *label, *what, *key, *why;
		uint64_t ns;
	} lines[] = {
		{ "sync op pair", "an uncontended lock + unlock recorded by libmtx-preload.so", "cal_sync_pair_ns",
		  c.sync_why, c.sync_pair_ns },
		{ "hooked call", "a call's entry and exit recorded by the -pg / -finstrument-functions hooks",
		  "cal_hook_call_ns", c.hook_why, c.hook_call_ns },
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		if (lines[i].ns) {
			printf("%-*s %s  (%s; kept as %s)\n", LABEL_WIDTH, lines[i].label,
			       timefmt_duration(lines[i].ns, figure, sizeof(figure)), lines[i].what, lines[i].key);
			keep(lines[i].key, lines[i].ns);
		} else {
			printf("%-*s not calibrated  (%s: %s)\n", LABEL_WIDTH, lines[i].label, lines[i].what, lines[i].why);
		}
		missing |= !lines[i].ns;
	}
	return missing;
}

int cmd_calibrate(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "only", required_argument, NULL, 'o' },
		{ "rounds", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned what = ALL, rounds = DEFAULT_ROUNDS;
	unsigned long long v;
	char *end;
	int c, failed = 0;

	/* the child calibrate_library runs (not for people) */
	if (argc == 3 && !strcmp(argv[1], "--child"))
		return calibrate_library_child(argv[2]);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!strcmp(optarg, "sched"))
				what = ONLY_SCHED;
			else if (!strcmp(optarg, "records"))
				what = ONLY_RECORDS;
			else if (!strcmp(optarg, "probes"))
				what = ONLY_PROBES;
			else if (!strcmp(optarg, "library"))
				what = ONLY_LIBRARY;
			else
				return cmd_usage_error("calibrate",
						       "unknown calibration '%s' (sched, records, probes or library)", optarg);
			break;
		case 'n':
			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' || v == 0 || v > MAX_ROUNDS)
				return cmd_usage_error("calibrate", "--rounds takes a count from 1 to %u, not '%s'",
						       MAX_ROUNDS, optarg);
			rounds = (unsigned)v;
			break;
		case 'h': fputs(cmd_calibrate_usage, stdout); return 0;
		case ':': return cmd_usage_error("calibrate", "option '%s' needs a value", argv[optind - 1]);
		default: return cmd_unknown_option("calibrate", argv[optind - 1], longopts);
		}
	}
	if (optind < argc)
		return cmd_usage_error("calibrate", "unexpected argument '%s'", argv[optind]);
	if (what & ONLY_SCHED)
		failed |= print_sched(rounds);
	if (what & ONLY_RECORDS)
		failed |= print_records();
	if (what & ONLY_PROBES)
		failed |= print_probes();
	if (what & ONLY_LIBRARY)
		failed |= print_library();
	return failed ? EXIT_FAILURE_MTX : 0;
}
