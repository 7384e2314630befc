/* src/cmd/cmd-collect.c - 'mtx collect': parse the command line, run the collector. */
#include "config.h"
#include "collector/collect.h"
#include "collector/detail.h"
#include "collector/function-uprobes.h"
#include "collector/preload/shm.h"
#include "collector/sync/collect-sync.h"
#include "collector/source.h"
#include "collector/target.h"
#include "src/derived/analysis.h"
#include "src/derived/consultant.h"
#include "src/cmd/cmd.h"
#include "src/db.h"
#include "src/log.h"
#include "src/match.h"
#include "src/progress.h"
#include "src/derived/timeline.h"
#include "src/timefmt.h"

#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Where the list of --events sources goes (cmd_collect_print_usage). */
#define EVENTS_MARK "@events\n"

const char cmd_collect_usage[] =
	"usage: mtx collect [-o FILE] [-e EVENTS] [--sample HZ [--call-graph fp|dwarf[,BYTES]]]\n"
	"                   [--sync-stacks[=N]] [--functions [LIB:]REGEX [--functions-in LIB]]\n"
	"                   [--inject-overhead DURATION[:SCOPE...]]\n"
	"                   [--detail ROWS|all] [--defer-writes] [-m MIB] [-q|-v]\n"
	"                   [--] PROGRAM [ARGS...]\n"
	"       mtx collect -p PID [--duration TIME] [OPTIONS]\n"
	"       mtx collect --list-functions [LIB:]REGEX [--functions-in LIB] [--] PROGRAM\n"
	"\n"
	"Run PROGRAM and record what each of its threads (and child processes) does,\n"
	"or attach to the running process PID and record it until it exits, Ctrl-C\n"
	"(SIGINT, SIGTERM, SIGHUP) detaches, or --duration passes.\n"
	"\n"
	"  -o, --output FILE       write the run here (default run.db; an existing file\n"
	"                          is kept as FILE.old)\n"
	"  -e, --events LIST       event sources, comma-separated (default: all but\n"
	"                          interrupts; all: every one):\n"
	EVENTS_MARK
	"      --sample HZ         also take HZ CPU samples per second of each thread's\n"
	"                          CPU time, with their call stacks, for\n"
	"                          'mtx report FILE flat' and 'calls' (1 to 10000)\n"
	"      --call-graph HOW    how sampled stacks are walked: fp (default: frame\n"
	"                          pointers, cheapest) or dwarf[,BYTES] (a BYTES copy of\n"
	"                          the user stack, default 8192, unwound with DWARF CFI:\n"
	"                          code built without frame pointers keeps its callers)\n"
	"      --functions [LIB:]REGEX\n"
	"                          record every call of the functions of PROGRAM whose\n"
	"                          names REGEX (PCRE2) matches, with uprobes; LIB:REGEX:\n"
	"                          of the libraries it loads whose file names begin\n"
	"                          with LIB instead (lib: all of them)\n"
	"      --functions-in LIB  a plain REGEX applies to these libraries too\n"
	"      --list-functions [LIB:]REGEX\n"
	"                          list the functions --functions would trace, and exit\n"
	"      --sync-stacks[=N]   record the user call stack of every sync operation\n"
	"                          (frame pointers, up to N frames, default and most 48)\n"
	"                          into sync_ops.stack_id\n"
	"      --inject-overhead DURATION[:sync][:op=OP[,OP...]][:tid=N|:thread=NAME]\n"
	"                          busy-wait DURATION (e.g. 20us) before every sync\n"
	"                          call of every thread, or only before the ops OP\n"
	"                          (lock, post, ...: sync_ops.op), or only of thread N\n"
	"                          or of the threads named NAME: how much overhead can\n"
	"                          the program's order take? (mtx report FILE overhead)\n"
	"      --detail ROWS|all   rows of running and runnable intervals, switches and\n"
	"                          syscalls that did not block kept one by one (default\n"
	"                          1M, 500k, 2M, ...); past them, each is only added\n"
	"                          up per thread (thread_summary and switch_graph stay\n"
	"                          exact); all: every event a row\n"
	"      --defer-writes      keep every row in memory while PROGRAM runs and\n"
	"                          write run.db after its exit: no I/O by mtx during\n"
	"                          the run (memory grows with the events)\n"
	"  -m, --buffer-size MIB   perf buffer per CPU in MiB (default 16)\n"
	"  -p, --pid PID           attach to the running process PID (its threads and\n"
	"                          those they start; sync operations through uprobes)\n"
	"      --duration TIME     attached: detach after TIME (10s, 500ms; default: at\n"
	"                          Ctrl-C or when the process exits)\n"
	"      --control SOCK      take 'mtx ctl SOCK ...' commands while recording:\n"
	"                          probes added and removed, sources on and off,\n"
	"                          phases marked, the run so far (for mtx browse)\n"
	"      --phase-signal SIG  each time signal SIG (USR2, 12) is sent to the\n"
	"                          program, a phase of the run begins (mtx report FILE\n"
	"                          phases; the program's mtx_phase(NAME) calls mark too)\n"
	"      --overhead-budget PCT\n"
	"                          the function probes may cost PCT% of a CPU: past\n"
	"                          it, the most expensive are taken off, and said\n"
	"                          (with --consultant: the instrumentation it adds)\n"
	"      --consultant        search for why the threads lose time while the\n"
	"                          program runs, switching on what each hypothesis\n"
	"                          needs (syscalls for I/O, CPU samples at 99 Hz for\n"
	"                          CPU by code) and off once answered; the search is\n"
	"                          kept for mtx diagnose FILE\n"
	"      --search-time TIME  with --consultant: end the search after TIME (30s;\n"
	"                          default: when the program ends)\n"
	"      --consultant-set NAME=VALUE\n"
	"                          with --consultant: a threshold or timing of its\n"
	"                          search (named as mtx diagnose lists its tunables)\n"
	"      --rates-from OLD.db with --overhead-budget: leave out before the start\n"
	"                          the functions whose call rates in OLD.db predict\n"
	"                          more than the budget, the most expensive first\n"
	"  -u, --user USER         run PROGRAM as USER (a name or uid), FILE theirs\n"
	"                          (under sudo: the user who ran sudo, unless -u root)\n"
	"  -q, --quiet             no status lines\n"
	"  -v, --verbose           more status lines\n"
	"  -h, --help              this text\n"
	"\n"
	"mtx collect exits with PROGRAM's exit status (128+N if a signal N killed it),\n"
	"127 if PROGRAM does not exist, 126 if it cannot be executed, 2 for a bad\n"
	"command line and 1 if mtx could not record; attached, 0 once detached.\n";

/* --detail ROWS|all: a count (k and M: thousands and millions) > 0, or
 * all (0). Returns 0 or -1. */
static int parse_detail(const char *text, uint64_t *rows)
{
	char *end;
	double n;
	if (!strcmp(text, "all")) {
		*rows = 0;
		return 0;
	}
	n = strtod(text, &end);
	if (end == text || !(n >= 1))
		return -1;
	if (*end == 'k' || *end == 'K')
		n *= 1e3, end++;
	else if (*end == 'M')
		n *= 1e6, end++;
	if (*end || n > 1e15 || n != (double)(uint64_t)n)
		return -1;
	*rows = (uint64_t)n;
	return 0;
}

#define DEFAULT_STACK_BYTES 8192
/* The kernel keeps a sample record within its u16 size. */
#define MAX_STACK_BYTES 65528

/* Parse --call-graph: "fp" (0 bytes), "dwarf" or "dwarf,BYTES" (rounded
 * up to 8). Returns 0 or -1 after the usage error. */
static int parse_call_graph(const char *text, unsigned *stack_bytes)
{
	char *end;
	long n;
	if (!strcmp(text, "fp")) {
		*stack_bytes = 0;
		return 0;
	}
	if (!strcmp(text, "dwarf")) {
		*stack_bytes = DEFAULT_STACK_BYTES;
		return 0;
	}
	if (strncmp(text, "dwarf,", 6) == 0) {
		n = strtol(text + 6, &end, 10);
		if (end != text + 6 && !*end && n >= 64 && n <= MAX_STACK_BYTES) {
			*stack_bytes = (unsigned)(n + 7) / 8 * 8;
			return 0;
		}
	}
	cmd_usage_error("collect", "--call-graph takes fp, dwarf or dwarf,BYTES (64 to %d), not '%s'",
			MAX_STACK_BYTES, text);
	return -1;
}

/* Bytes of a dwarf sample's record beyond its stack copy (header, ids,
 * registers, the callchain's first frames), roughly. */
#define SAMPLE_RECORD_EXTRA 400
/* The collector drains every 100 ms, and is woken at a quarter full. */
#define RING_FILL_MIN_MS 250

/* Stack copies make sample records large: say so when one thread running
 * on a CPU fills that CPU's ring faster than the collector is sure to
 * drain it. */
static void warn_ring_fill(const struct collect_options *o)
{
	double ring = (double)o->ring_pages * (double)sysconf(_SC_PAGESIZE);
	double per_s = (double)o->sample_hz * (o->sample_stack_bytes + SAMPLE_RECORD_EXTRA);
	if (!o->sample_stack_bytes || ring * 1000 >= per_s * RING_FILL_MIN_MS)
		return;
	log_warn("--call-graph dwarf,%u at %u Hz fills a %.0f MiB buffer in %.0f ms per busy CPU: samples may "
		 "be lost (meta lost_samples); a larger --buffer-size or a smaller copy helps",
		 o->sample_stack_bytes, o->sample_hz, ring / 1048576, 1000 * ring / per_s);
}

/* Parse "sched,syscalls,sync" into a kernel source mask and the sync flag;
 * the sched source is always in. */
/* Print @text at column 39 of lines at most 80 wide (a word too long for one
 * has one to itself). */
static void print_wrapped(FILE *out, const char *text)
{
	const int indent = 39, width = 80;
	int col = indent;

	while (*text) {
		int len = (int)strcspn(text, " ");
		if (col > indent && col + 1 + len > width) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', out);
			col++;
		}
		fprintf(out, "%.*s", len, text);
		col += len;
		text += len;
		text += strspn(text, " ");
	}
	fputc('\n', out);
}

void cmd_collect_print_usage(FILE *out)
{
	const char *mark = strstr(cmd_collect_usage, EVENTS_MARK);

	fprintf(out, "%.*s", (int)(mark - cmd_collect_usage), cmd_collect_usage);
	for (int i = 0; i < mtx_nr_sources; i++) {
		char line[256];
		snprintf(line, sizeof(line), "%s%s", mtx_sources[i]->summary,
			 mtx_sources[i]->mandatory ? " (always on)" : mtx_sources[i]->optional ? " (not by default)" : "");
		fprintf(out, "%28s%-11s", "", mtx_sources[i]->name);
		print_wrapped(out, line);
	}
	fprintf(out, "%28s%-11s", "", COLLECT_SYNC_NAME);
	print_wrapped(out, COLLECT_SYNC_SUMMARY);
	fputs(mark + strlen(EVENTS_MARK), out);
}

/* "sched, wakeups, syscalls, sync": the names --events takes. */
static void known_sources(char *out, size_t size)
{
	size_t len = 0;
	for (int i = 0; i < mtx_nr_sources && len < size; i++)
		len += (size_t)snprintf(out + len, size - len, "%s, ", mtx_sources[i]->name);
	if (len < size)
		snprintf(out + len, size - len, "%s", COLLECT_SYNC_NAME);
}

/* The sources mtx collect records without --events: all but the optional. */
static unsigned default_sources(void)
{
	unsigned mask = 0;
	for (int i = 0; i < mtx_nr_sources; i++)
		if (!mtx_sources[i]->optional)
			mask |= 1u << i;
	return mask;
}

static int parse_events(const char *list, unsigned *mask, int *sync)
{
	char *copy = strdup(list), *save = NULL;
	*mask = 0;
	*sync = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct mtx_source *s = source_by_name(tok);
		if (!strcmp(tok, "all")) {
			*mask = (1u << mtx_nr_sources) - 1;
			*sync = 1;
		} else if (!strcmp(tok, COLLECT_SYNC_NAME)) {
			*sync = 1;
		} else if (s) {
			*mask |= source_bit(s->id);
		} else {
			char known[128];
			known_sources(known, sizeof(known));
			cmd_usage_error("collect", "unknown event source '%s' (known: %s)", tok, known);
			free(copy);
			return -1;
		}
	}
	for (int i = 0; i < mtx_nr_sources; i++)
		if (mtx_sources[i]->mandatory)
			*mask |= 1u << i;
	free(copy);
	return 0;
}

/* --list-functions: what --functions @pattern would trace in @prog. Exits
 * 0 when something matches, 1 when nothing does. */
static int list_functions(const char *prog, const char *pattern, const char *also_in)
{
	struct function_uprobes *fu = NULL;
	char path[4096], *err = NULL;
	size_t n;
	int rc = target_locate(prog, path, sizeof(path), &err);
	if (rc) {
		log_error("%s", err ? err : strerror(-rc));
		free(err);
		return EXIT_FAILURE_MTX;
	}
	rc = function_uprobes_find(&fu, path, pattern, also_in, &err);
	if (rc) {
		log_error("%s", err ? err : strerror(-rc));
		free(err);
		return EXIT_FAILURE_MTX;
	}
	n = function_uprobes_count(fu);
	if (function_uprobes_skipped(fu))
		log_warn("not traced: %s (never called, only jumped to: a return probe would overwrite its stack)",
			 function_uprobes_skipped(fu));
	for (size_t i = 0; i < n; i++) {
		const char *name, *module;
		function_uprobes_get(fu, i, &name, &module);
		printf("%-32s %s\n", name, module);
	}
	printf("%zu function%s match%s '%s'\n", n, n == 1 ? "" : "s", n == 1 ? "es" : "", pattern);
	function_uprobes_free(fu);
	return n ? 0 : EXIT_FAILURE_MTX;
}

/* A bad REGEX is a bad command line: say so before anything starts. */
static int check_pattern(const char *option, const char *pattern)
{
	char *err = NULL;
	struct mtx_match *m = match_compile(function_uprobes_regex(pattern), &err);
	if (m) {
		match_free(m);
		return 0;
	}
	log_error("%s: %s", option, err ? err : "bad pattern");
	free(err);
	return -1;
}

static char *join_command(int argc, char **argv)
{
	size_t len = 1;
	char *s;
	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	for (int i = 0; s && i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

/* How long a reader that keeps the file in WAL mode is waited for. */
#define LEAVE_WAL_WAIT_MS 2000

/* Build the analyses' tables now, from the run as it was written, so that
 * reports and the browser open at once. A failure loses nothing recorded:
 * the first report builds them again. Frees @capture. */
static void build_derived(const char *path, struct tl_capture *capture)
{
	sqlite3 *db = NULL;
	char *err = NULL;
	int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK)
		timeline_capture_free(capture);
	else
		db_wait_when_locked(db, true); /* for a reader's statement under way */
	if (rc != SQLITE_OK || analysis_build_captured(db, capture, &err))
		log_warn("%s: could not build the derived tables (%s); 'mtx report' will try again", path,
			 err ? err : sqlite3_errmsg(db));
	free(err);
	err = NULL;
	/* A reader that had the file open kept it in WAL mode at the end of
	 * the recording; one that looks once is gone by now. */
	if (rc == SQLITE_OK && db_leave_wal(db, LEAVE_WAL_WAIT_MS, &err) == 1)
		log_warn("%s stays in WAL mode: another program has it open; when it is closed, "
			 "sqlite3 %s 'PRAGMA journal_mode=DELETE' ends it", path, path);
	free(err);
	sqlite3_close(db);
}

/*
 * Whom the program runs as: --user USER (a name or a uid), else, when mtx
 * runs as root under sudo, the user who ran sudo (SUDO_UID, SUDO_GID), as
 * the program would run without mtx; root itself only when asked
 * (--user root). The collector stays root: perf and tracefs need it.
 * Returns 0, or -1 after saying why.
 */
static int choose_user(const char *user, struct collect_options *o)
{
	const char *sudo_uid = getenv("SUDO_UID"), *sudo_gid = getenv("SUDO_GID");
	struct passwd *pw = NULL;
	char *end;

	if (user) {
		unsigned long uid = strtoul(user, &end, 10);
		pw = *user && !*end ? getpwuid((uid_t)uid) : getpwnam(user);
		if (!pw) {
			cmd_usage_error("collect", "--user: no user '%s' on this system", user);
			return -1;
		}
	} else if (geteuid() == 0 && sudo_uid && sudo_gid && strcmp(sudo_uid, "0") != 0) {
		pw = getpwuid((uid_t)strtoul(sudo_uid, NULL, 10));
		if (!pw)
			return 0;
		pw->pw_gid = (gid_t)strtoul(sudo_gid, NULL, 10);
		log_info("running %s as %s, who ran sudo (--user root runs it as root)", o->argv[0], pw->pw_name);
	}
	if (!pw || (pw->pw_uid == geteuid() && pw->pw_gid == getegid()))
		return 0;
	if (geteuid() != 0) {
		cmd_usage_error("collect", "--user %s: only root can run the program as another user", user);
		return -1;
	}
	o->user = strdup(pw->pw_name);
	o->uid = (unsigned)pw->pw_uid;
	o->gid = (unsigned)pw->pw_gid;
	return o->user ? 0 : -1;
}

/* The derived build is the last step after the program's exit, and a
 * short one: a signal that asks mtx to stop meanwhile ends it when it is
 * done, with the program's exit status all the same. */
static void build_derived_unstoppable(const char *path, struct tl_capture *capture)
{
	static const int stops[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct timespec now = { 0, 0 };
	sigset_t mask, old;

	sigemptyset(&mask);
	for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
		sigaddset(&mask, stops[i]);
	sigprocmask(SIG_BLOCK, &mask, &old);
	build_derived(path, capture);
	while (sigtimedwait(&mask, NULL, &now) > 0)
		;
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* The signal @text names (USR2, SIGUSR2, 12), or -1; KILL and STOP,
 * which no program can catch or ignore, are not for marking phases. */
static int signal_number(const char *text)
{
	char *end;
	long n = strtol(text, &end, 10);
	if (!strncmp(text, "SIG", 3))
		text += 3;
	if (*end || end == text)
		for (n = 1; n < NSIG && !(sigabbrev_np((int)n) && !strcmp(sigabbrev_np((int)n), text)); n++)
			;
	return n >= 1 && n < NSIG && n != SIGKILL && n != SIGSTOP ? (int)n : -1;
}

/* A time option's @text into *@ns: 0, or the usage error said. */
static int parse_time(const char *option, const char *text, uint64_t *ns)
{
	int64_t v;
	if (timefmt_parse_offset(text, &v) || v <= 0)
		return cmd_usage_error("collect", "%s takes a time such as 10s or 500ms, not '%s'", option, text);
	*ns = (uint64_t)v;
	return 0;
}

/* --consultant's CPU samples a second, without --sample, while its
 * experiments place CPU time in the code. */
#define CONSULTANT_SAMPLE_HZ 99

/* Keep --consultant's search @s in run.db's pc_nodes, for mtx diagnose
 * (frees it). */
static void keep_search(const char *path, struct pc_search *s)
{
	sqlite3 *db = NULL;
	if (!s)
		return;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK || pc_search_save(db, s, "live") != SQLITE_OK ||
	    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		log_warn("the consultant's search is not kept in %s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
	sqlite3_close(db);
	pc_search_free(s);
}

int cmd_collect(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "events", required_argument, NULL, 'e' },
		{ "buffer-size", required_argument, NULL, 'm' },
		{ "sample", required_argument, NULL, 'S' },
		{ "sync-stacks", optional_argument, NULL, 'K' },
		{ "inject-overhead", required_argument, NULL, 'J' },
		{ "defer-writes", no_argument, NULL, 'D' },
		{ "call-graph", required_argument, NULL, 'G' },
		{ "functions", required_argument, NULL, 'F' },
		{ "functions-in", required_argument, NULL, 'I' },
		{ "list-functions", required_argument, NULL, 'L' },
		{ "user", required_argument, NULL, 'u' },
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'T' },
		{ "control", required_argument, NULL, 'C' },
		{ "overhead-budget", required_argument, NULL, 'B' },
		{ "rates-from", required_argument, NULL, 'R' },
		{ "consultant", no_argument, NULL, 'c' },
		{ "search-time", required_argument, NULL, 'Z' },
		{ "consultant-set", required_argument, NULL, 'Y' },
		{ "detail", required_argument, NULL, 'W' },
		{ "phase-signal", required_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct collect_options o = { .output = "run.db", .sources = default_sources(), .sync = 1,
				     .detail_rows = DETAIL_DEFAULT_ROWS };
	long mib = 16;
	const char *list = NULL, *user = NULL, *duration = NULL, *search_time = NULL, *tuned = NULL;
	struct collect_result r;
	int opt, rc, call_graph_given = 0;
	char *err = NULL, *command;
	size_t pages;

	pc_tunables_default(&o.tunables);
	/* '+': stop at the program name, its options are its own. */
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+o:e:m:u:p:qvh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			o.output = optarg;
			break;
		case 'e':
			if (parse_events(optarg, &o.sources, &o.sync))
				return EXIT_USAGE;
			break;
		case 'm': {
			char *end;
			mib = strtol(optarg, &end, 10);
			if (*end || mib < 1 || mib > 4096)
				return cmd_usage_error("collect", "--buffer-size takes MiB from 1 to 4096, not '%s'", optarg);
			break;
		}
		case 'S': {
			char *end;
			long hz = strtol(optarg, &end, 10);
			if (*end || end == optarg || hz < 1 || hz > 10000)
				return cmd_usage_error("collect", "--sample takes a rate in Hz from 1 to 10000, not '%s'",
						       optarg);
			o.sample_hz = (unsigned)hz;
			o.sample_hz_given = 1;
			break;
		}
		case 'P':
			if ((o.phase_signal = signal_number(optarg)) <= 0)
				return cmd_usage_error("collect", "--phase-signal: '%s' is not a signal that can be sent to "
								  "mark phases (USR2, SIGUSR2, 12; not KILL or STOP)", optarg);
			break;
		case 'F':
			if (check_pattern("--functions", optarg))
				return EXIT_USAGE;
			o.functions = optarg;
			break;
		case 'I':
			o.functions_in = optarg;
			break;
		case 'L':
			if (check_pattern("--list-functions", optarg))
				return EXIT_USAGE;
			list = optarg;
			break;
		case 'K': {
			char *end;
			long n = optarg ? strtol(optarg, &end, 10) : (long)MTX_SYNC_STACK_MAX;
			if (optarg && (*end || end == optarg || n < 1 || n > (long)MTX_SYNC_STACK_MAX))
				return cmd_usage_error("collect", "--sync-stacks takes a depth from 1 to %u frames, not '%s'",
						       MTX_SYNC_STACK_MAX, optarg);
			o.sync_stack_frames = (unsigned)n;
			break;
		}
		case 'D':
			o.defer_writes = 1;
			break;
		case 'J': {
			char *why = NULL;

			if (sync_inject_parse(optarg, &o.inject, &why)) {
				cmd_usage_error("collect", "%s", why ? why : "bad --inject-overhead");
				free(why);
				return EXIT_USAGE;
			}
			break;
		}
		case 'G':
			if (parse_call_graph(optarg, &o.sample_stack_bytes))
				return EXIT_USAGE;
			call_graph_given = 1;
			break;
		case 'u':
			user = optarg;
			break;
		case 'p': {
			char *end;
			long pid = strtol(optarg, &end, 10);
			if (*end || end == optarg || pid < 1 || pid > INT32_MAX)
				return cmd_usage_error("collect", "-p takes a process id, not '%s'", optarg);
			o.attach_pid = (pid_t)pid;
			break;
		}
		case 'T':
			if (parse_time("--duration", optarg, &o.duration_ns))
				return EXIT_USAGE;
			duration = optarg;
			break;
		case 'C':
			o.control = optarg;
			break;
		case 'c':
			o.consultant = 1;
			break;
		case 'Z':
			if (parse_time("--search-time", optarg, &o.search_ns))
				return EXIT_USAGE;
			search_time = optarg;
			break;
		case 'Y':
			if (pc_tunable_set(&o.tunables, optarg))
				return cmd_usage_error("collect", "--consultant-set %s: not NAME=VALUE with a tunable's name "
						   "(mtx diagnose --list-tunables) and a number >= 0", optarg);
			tuned = optarg;
			break;
		case 'R':
			o.rates_from = optarg;
			break;
		case 'W':
			if (parse_detail(optarg, &o.detail_rows))
				return cmd_usage_error("collect", "--detail takes a number of rows (500k, 2M, 10000) "
						       "or all, not '%s'", optarg);
			break;
		case 'B': {
			char *end;
			o.overhead_budget = strtod(optarg, &end);
			if (*end == '%')
				end++;
			if (*end || end == optarg || !(o.overhead_budget > 0) || o.overhead_budget > 100)
				return cmd_usage_error("collect", "--overhead-budget takes a share of a CPU in %%, "
						       "above 0 and at most 100 (5, 2.5), not '%s'", optarg);
			break;
		}
		case 'q':
			log_set_level(LOG_QUIET);
			break;
		case 'v':
			log_set_level(LOG_VERBOSE);
			break;
		case 'h':
			cmd_collect_print_usage(stdout);
			return 0;
		default:
			if (optopt)
				return cmd_usage_error("collect", "unknown or incomplete option '-%c'", optopt);
			return cmd_unknown_option("collect", argv[optind - 1], longopts);
		}
	}
	if (o.attach_pid && optind < argc)
		return cmd_usage_error("collect", "-p attaches to a running process: no program to run ('%s') with it",
				       argv[optind]);
	if (tuned && !o.consultant)
		return cmd_usage_error("collect", "--consultant-set %s tunes --consultant's search: it needs it", tuned);
	if (search_time && !o.consultant)
		return cmd_usage_error("collect", "--search-time %s is how long --consultant searches: it needs it",
				       search_time);
	if (o.consultant && !o.sync)
		return cmd_usage_error("collect", "--consultant needs the sync source in --events (its lock waits)");
	if (duration && !o.attach_pid)
		return cmd_usage_error("collect", "--duration %s is for -p PID: a program run ends when it exits",
				       duration);
	if (o.attach_pid && (list || user))
		return cmd_usage_error("collect", "%s runs a program: not with -p", list ? "--list-functions" : "--user");
	if (o.rates_from && !(o.overhead_budget && o.functions))
		return cmd_usage_error("collect", "--rates-from predicts the cost of --functions for --overhead-budget: "
				       "it needs both");
	if (o.control && o.defer_writes)
		return cmd_usage_error("collect", "--control changes what is recorded as it happens: not with "
				       "--defer-writes");
	if (o.attach_pid && (o.inject.delay_ns || o.defer_writes))
		return cmd_usage_error("collect", "%s needs a program mtx starts: not with -p",
				       o.inject.delay_ns ? "--inject-overhead" : "--defer-writes");
	if (!o.attach_pid && optind >= argc)
		return cmd_usage_error("collect", "no program to run");
	if (o.sync_stack_frames && !o.sync)
		return cmd_usage_error("collect", "--sync-stacks needs the sync source in --events");
	if (o.inject.delay_ns && !o.sync)
		return cmd_usage_error("collect", "--inject-overhead needs the sync source in --events");
	if (o.consultant && !o.sample_hz_given) /* CPU by code, while an experiment needs it */
		o.sample_hz = CONSULTANT_SAMPLE_HZ;
	if (call_graph_given && !o.sample_hz)
		return cmd_usage_error("collect", "--call-graph says how samples are walked: it needs --sample HZ");
	if (list)
		return list_functions(argv[optind], list, o.functions_in);
	if (o.functions_in && !o.functions)
		return cmd_usage_error("collect", "--functions-in LIB needs --functions REGEX");
	if (!o.attach_pid) {
		o.argv = argv + optind;
		if (choose_user(user, &o))
			return EXIT_USAGE;
	}
	/* Ring sizes must be a power of two pages. */
	pages = (size_t)mib * 1024 * 1024 / (size_t)sysconf(_SC_PAGESIZE);
	while (pages & (pages - 1))
		pages &= pages - 1;
	o.ring_pages = pages;
	warn_ring_fill(&o);
	command = join_command(o.attach_pid ? argc : argc - optind, o.attach_pid ? argv : argv + optind);
	o.command = command;

	rc = collect_run(&o, &r, &err);
	free(command);
	free((char *)o.user);
	if (rc) {
		log_error("%s", err ? err : "collection failed");
		free(err);
		pc_search_free(r.consultant);
		return r.program_failed ? r.program_failed : EXIT_FAILURE_MTX;
	}
	if (r.record_failed && r.status == 0) {
		progress_end();
		timeline_capture_free(r.capture);
		pc_search_free(r.consultant);
		return EXIT_FAILURE_MTX;
	}
	if (!r.record_failed && !r.stopped) {
		collect_step_begin(COLLECT_DERIVED);
		build_derived_unstoppable(o.output, r.capture);
	} else {
		timeline_capture_free(r.capture);
	}
	keep_search(o.output, r.consultant);
	progress_end();
	return r.status;
}
