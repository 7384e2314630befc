/*
 * src/run-state.c - see run-state.h.
 */
#include "config.h"
#include "src/run-state.h"
#include "src/db.h"
#include "src/timefmt.h"
#include "src/error.h"
#include "src/small-file.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* Less room than this where the file is: a collection could not go on. */
#define DISK_FULL_BYTES (1024 * 1024)

/* The steps, in the order mtx collect does them (collector/collect.c). */
static const struct {
	unsigned phase;
	const char *key;     /* meta key written once it is done (NULL: complete = 1) */
	const char *matters; /* SQL: 1 when the run's data needs it */
	const char *missing; /* what the run lacks without it, for the INCOMPLETE line */
	const char *unknown; /* why a figure that needs it is unknown */
} phases[] = {
	{ RUN_ENDS, "threads_ended_ns", "SELECT 1", "thread ends, exit status",
	  "the program's end was not recorded" },
	{ RUN_SYNC, "sync_resolved_ns", "SELECT EXISTS (SELECT 1 FROM sync_ops)", "sync waits and holders",
	  "the sync waits and holders were not resolved" },
	{ RUN_CALLS, "calls_closed_ns",
	  "SELECT EXISTS (SELECT 1 FROM calls) OR EXISTS (SELECT 1 FROM meta WHERE key = 'functions_pattern')",
	  "open calls", "the calls still open were not written" },
	{ RUN_NAMES, "names_written_ns",
	  "SELECT EXISTS (SELECT 1 FROM sync_ops) OR EXISTS (SELECT 1 FROM samples) OR EXISTS (SELECT 1 FROM calls) "
	  "OR EXISTS (SELECT 1 FROM meta WHERE key IN ('functions_pattern', 'sample_hz'))",
	  "function names", "the functions were not named" },
	/* last: written with the exit status, once the steps are done or skipped */
	{ RUN_TOTALS, "events_total", "SELECT 1", "loss counts", "the run's totals were not written" },
};
#define NR_PHASES (sizeof(phases) / sizeof(phases[0]))

/*
 * The threads alive when recording stopped have no threads row (it is
 * written at a thread's end): one per tid seen after its last row, in
 * its states, syscalls, sync calls, switches or samples. A thread with
 * states lives from the first such state to the last recorded (the one
 * it was in then never ended: the states stay without a gap); one
 * without (it never left the state it was first seen in: an idle
 * server's thread) from the first to the last thing it was seen doing.
 * It is named "?" (the kernel's comm comes with the end). Its process is
 * that of the sync objects it used, or of the thread that created it;
 * else its tid is taken (a process's first thread). Joins, not a lookup
 * per row: a killed run has no index yet.
 */
static const char unended_sql[] =
	"CREATE TEMP TABLE threads AS SELECT * FROM main.threads;"
	"INSERT INTO temp.threads (tid, pid, name, start_ns, end_ns) "
	"SELECT s.tid, COALESCE(p.pid, s.tid), '?', s.start_ns, s.end_ns FROM ("
	"SELECT x.tid, COALESCE(MIN(CASE WHEN x.state THEN x.start_ns END), MIN(x.start_ns)) AS start_ns, "
	"COALESCE(MAX(CASE WHEN x.state THEN x.end_ns END), MAX(x.end_ns)) AS end_ns FROM ("
	"SELECT tid, start_ns, end_ns, 1 AS state FROM main.thread_states "
	"UNION ALL SELECT tid, start_ns, COALESCE(end_ns, start_ns), 0 FROM main.syscalls "
	"UNION ALL SELECT tid, start_ns, COALESCE(end_ns, start_ns), 0 FROM main.sync_ops "
	"UNION ALL SELECT prev_tid, ts_ns, ts_ns, 0 FROM main.switches "
	"UNION ALL SELECT tid, ts_ns, ts_ns, 0 FROM main.samples) x "
	"LEFT JOIN (SELECT tid, MAX(end_ns) AS end_ns FROM main.threads GROUP BY tid) t ON t.tid = x.tid "
	"WHERE t.end_ns IS NULL OR x.start_ns >= t.end_ns GROUP BY x.tid) s "
	"LEFT JOIN (SELECT who, MIN(pid) AS pid FROM ("
	"SELECT op.tid AS who, o.pid FROM main.sync_ops op JOIN main.sync_objects o ON o.id = op.object_id "
	"UNION ALL SELECT op.arg, o.pid FROM main.sync_ops op JOIN main.sync_objects o ON o.id = op.object_id "
	"WHERE op.op = 'create' AND o.kind = 'thread') WHERE pid IS NOT NULL GROUP BY who) p ON p.who = s.tid;"
	"CREATE INDEX temp.threads_tid ON threads(tid, start_ns);";

/* About the last time recorded: each table's last row (rows are appended
 * about in time order), not a scan of millions. */
static const char stopped_sql[] =
	"SELECT MAX(t) FROM ("
	"SELECT (SELECT end_ns FROM thread_states ORDER BY rowid DESC LIMIT 1) AS t "
	"UNION ALL SELECT (SELECT ts_ns FROM switches ORDER BY rowid DESC LIMIT 1) "
	"UNION ALL SELECT (SELECT ts_ns FROM wakeups ORDER BY rowid DESC LIMIT 1) "
	"UNION ALL SELECT (SELECT start_ns FROM syscalls ORDER BY rowid DESC LIMIT 1) "
	"UNION ALL SELECT (SELECT end_ns FROM sync_ops ORDER BY rowid DESC LIMIT 1) "
	"UNION ALL SELECT (SELECT ts_ns FROM samples ORDER BY rowid DESC LIMIT 1) "
	"UNION ALL SELECT MAX(end_ns) FROM threads)";

/* When process @pid started, in seconds since the Epoch: its start in
 * clock ticks since boot (/proc/PID/stat), set against the clocks now; -1
 * if unknown. */
static int64_t process_start_s(int pid)
{
	char path[64], buf[1024];
	const char *fields;
	long long ticks;
	long hz = sysconf(_SC_CLK_TCK);
	struct timespec since_boot, now;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	/* starttime, field 22: clock ticks after boot */
	if (!(fields = proc_stat_read(path, buf, sizeof(buf))) || proc_stat_field(fields, 22, &ticks) || hz <= 0 ||
	    ticks < 0 || clock_gettime(CLOCK_BOOTTIME, &since_boot) || clock_gettime(CLOCK_REALTIME, &now))
		return -1;
	return (int64_t)now.tv_sec - (int64_t)since_boot.tv_sec + (int64_t)(ticks / hz);
}

/*
 * The pid of the mtx collect writing @db now, or 0: meta collector_pid,
 * on this host, a process that lives and started by the run's start (not
 * one that took the pid of a collector that was killed: it started after
 * the kill). Both starts are known to a second or so.
 */
static int live_collector(sqlite3 *db)
{
	char *pid_text = db_meta_get(db, "collector_pid"), *host = db_meta_get(db, "hostname");
	char *start_text = db_meta_get(db, "start_realtime_s");
	int pid = pid_text ? atoi(pid_text) : 0;
	int64_t started = pid > 0 ? process_start_s(pid) : -1;
	struct utsname u;

	if (pid <= 0 || pid == getpid() || started < 0 || (host && (uname(&u) || strcmp(host, u.nodename))) ||
	    (start_text && started > strtoll(start_text, NULL, 10) + 2))
		pid = 0;
	free(pid_text);
	free(host);
	free(start_text);
	return pid;
}

static bool disk_full(const char *path)
{
	char *copy = strdup(path);
	struct statvfs sv;
	bool full = copy && statvfs(dirname(copy), &sv) == 0 &&
		    (double)sv.f_bavail * (double)sv.f_frsize < DISK_FULL_BYTES;
	free(copy);
	return full;
}

int run_state_open(sqlite3 *db, const char *path, struct run_state *rs, char **err)
{
	char *complete = db_meta_get(db, "complete"), *stopped = db_meta_get(db, "stopped_after_exit");
	*rs = (struct run_state){ .complete = complete && !strcmp(complete, "1") };
	if (stopped)
		snprintf(rs->stopped_before, sizeof(rs->stopped_before), "%s", stopped);
	free(complete);
	free(stopped);
	/* Its derived tables may be being written: read as incomplete, the
	 * reader stores nothing in it. */
	if ((rs->recording = live_collector(db)))
		rs->complete = false;
	for (size_t i = 0; i < NR_PHASES && !rs->complete; i++) {
		char *done = phases[i].key ? db_meta_get(db, phases[i].key) : NULL;
		if (!done && db_query_int(db, phases[i].matters, 0))
			rs->missing |= phases[i].phase;
		free(done);
	}
	if (rs->missing & RUN_ENDS) {
		int rc = db_exec(db, unended_sql, err);
		if (rc && db_error_is_corrupt(sqlite3_errcode(db)))
			error_set(err, "%s: the database is corrupt", path);
		else if (rc)
			error_set(err, "%s: cannot read the threads: %s", path, err && *err ? *err : "failed");
		if (rc)
			return rc;
		rs->nr_unended = (int)(db_query_int(db, "SELECT COUNT(*) FROM temp.threads", 0) -
				       db_query_int(db, "SELECT COUNT(*) FROM main.threads", 0));
	}
	rs->start_ns = db_run_start_ns(db);
	rs->stopped_ns = db_query_int(db, stopped_sql, 0);
	rs->recorded = rs->stopped_ns > 0;
	rs->disk_full = !rs->complete && disk_full(path);
	return 0;
}

uint64_t run_state_recorded_ns(const struct run_state *rs)
{
	/* Unsigned: a damaged file's start can be any int64_t, and so the
	 * distance, which int64_t cannot always hold. */
	return rs->stopped_ns > rs->start_ns ? (uint64_t)rs->stopped_ns - (uint64_t)rs->start_ns : 0;
}

/* The steps in @missing, named after @lead, ", " between them. */
static void print_missing(FILE *f, unsigned missing, const char *lead)
{
	for (size_t i = 0, n = 0; i < NR_PHASES; i++)
		if (missing & phases[i].phase)
			fprintf(f, "%s%s", n++ ? ", " : lead, phases[i].missing);
}

char *run_state_line(const struct run_state *rs)
{
	char at[32], *line = NULL;
	size_t size = 0;
	FILE *f;

	if (rs->complete || !(f = open_memstream(&line, &size)))
		return NULL;
	timefmt_duration(run_state_recorded_ns(rs), at, sizeof(at));
	if (rs->recording) {
		fprintf(f, "STILL RECORDING: mtx collect (pid %d) ", rs->recording);
		if (!rs->recorded)
			fputs("has committed nothing yet", f);
		else if (rs->missing & RUN_ENDS)
			fprintf(f, "is recording this run; shown: its first %s, as committed so far", at);
		else
			fputs("is finishing this run (the program has ended)", f);
		print_missing(f, rs->missing, "; not yet: ");
	} else {
		fputs("INCOMPLETE: ", f);
		if (!rs->recorded)
			fputs("nothing was recorded", f);
		else if (rs->missing & RUN_ENDS)
			fprintf(f, "recording stopped at %s, before the program's end", at);
		else
			fprintf(f, "the collector stopped after the program's end (at %s)", at);
		print_missing(f, rs->missing, "; missing: ");
		/* What stopped it is not in the file; a full disk shows now.
		 * Last: a screen too narrow for the line cuts it first. */
		if (rs->stopped_before[0])
			fprintf(f, " (a signal stopped mtx collect before %s)", rs->stopped_before);
		else
			fputs(rs->disk_full ? " (its file system is full)" : " (mtx collect was killed or could not write)", f);
	}
	if (fclose(f)) {
		free(line);
		return NULL;
	}
	return line;
}

const char *run_phase_unknown(unsigned phases_missing)
{
	for (size_t i = 0; i < NR_PHASES; i++)
		if (phases_missing & phases[i].phase)
			return phases[i].unknown;
	return "it was not recorded";
}

char *run_state_detail_note(sqlite3 *db, const struct run_state *rs)
{
	char *until = db_meta_get(db, "detail_until_ns"), *sync_until = db_meta_get(db, "sync_detail_until_ns");
	char at[32], sync_at[32] = "", *note = NULL;
	if (!until) {
		free(sync_until);
		return NULL;
	}
	timefmt_duration((uint64_t)(atoll(until) - rs->start_ns), at, sizeof(at));
	if (sync_until)
		timefmt_duration((uint64_t)(atoll(sync_until) - rs->start_ns), sync_at, sizeof(sync_at));
	if (asprintf(&note,
		     "every event is a row for the first %s only (mtx collect --detail): later running and runnable "
		     "intervals, switches and syscalls that did not block%s%s%s are in the totals, not in the "
		     "timeline, time windows or causes",
		     at, sync_until ? ", and sync ops after " : "", sync_at,
		     sync_until ? " that neither blocked nor found their lock held," : "") < 0)
		note = NULL;
	free(until);
	free(sync_until);
	return note;
}
