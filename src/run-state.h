/*
 * src/run-state.h - whether a run database holds a whole run, and what a
 * run whose collector stopped early (killed, a full disk, still running)
 * lacks. mtx collect marks each step of its work after the program's exit
 * in meta as it finishes it, and sets complete to 1 last (mtx-db(5));
 * every reader (info, report, browse) reads them here once, says in one
 * line what is missing, and leaves unknown the figures a missing step
 * would have made right (the queries' needs, src/reports.h).
 */
#ifndef MTX_RUN_STATE_H
#define MTX_RUN_STATE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

/* The steps a run may lack, each marked by its own meta key when done. */
enum run_phase {
	RUN_ENDS = 1u << 0,   /* threads_ended_ns: every thread's end, the process rows, the exit status */
	RUN_SYNC = 1u << 1,   /* sync_resolved_ns: blocked, wait_ns, holders, hold_ns, lifetimes */
	RUN_CALLS = 1u << 2,  /* calls_closed_ns: the calls still open at the end */
	RUN_NAMES = 1u << 3,  /* names_written_ns: functions, stacks, maps, call sites */
	RUN_TOTALS = 1u << 4, /* events_total: loss counts, event totals, duration, exit_status */
};

struct run_state {
	bool complete;      /* meta complete is 1: nothing is missing */
	unsigned missing;   /* the run_phase steps it lacks that its data needs */
	bool recorded;      /* it holds at least one recorded event */
	int64_t start_ns;   /* the run's start (db_run_start_ns) */
	int64_t stopped_ns; /* about the last time recorded */
	bool disk_full;     /* the file system holding the file has no room left now */
	int nr_unended;     /* threads alive when recording stopped (no threads row in the file) */
	char stopped_before[64]; /* a signal stopped mtx collect after the program's exit,
	                          * before this step (meta stopped_after_exit); "" if not */
	int recording;      /* the pid of the mtx collect still writing the file, or 0 */
};

/*
 * run_state_open - read what @db (the run database at @path, opened by
 * db_open_readonly) holds into @rs. A run whose collector still runs
 * (meta collector_pid, on this host) is read as incomplete even once meta
 * says complete (its derived tables are being written), so that nothing
 * is stored in it. When the threads' ends were not written, the threads
 * alive when recording stopped are added, as they were recorded (from
 * their first state to the last that ended, or from the first to the last
 * thing seen of one without states; named "?"), to a TEMP table threads
 * that stands in front of the file's for this connection: every reader
 * then sees them, and the file is not written. Returns 0, or -errno with
 * a message in @err (caller frees).
 */
int run_state_open(sqlite3 *db, const char *path, struct run_state *rs, char **err);

/* run_state_recorded_ns - how long was recorded: from the run's start to
 * about where recording stopped (0 when that is not after the start). */
uint64_t run_state_recorded_ns(const struct run_state *rs);

/*
 * run_state_line - the one line that says a run is incomplete and what it
 * lacks ("INCOMPLETE: recording stopped at 1.403 s, before the program's
 * end; missing: thread ends, ... (what may have stopped it)"), or that
 * it is still being recorded ("STILL RECORDING: ..."), malloc'd (caller
 * frees); NULL for a complete run (or out of memory).
 */
char *run_state_line(const struct run_state *rs);
/*
 * run_state_detail_note - for a run whose mtx collect --detail budget ran
 * out, the sentence that says what its rows and windows hold and what its
 * totals do (malloc'd); NULL for a run that kept every event.
 */
char *run_state_detail_note(sqlite3 *db, const struct run_state *rs);

/* run_phase_unknown - why a figure that needs the first step of @phases
 * is unknown ("the sync waits and holders were not resolved"). */
const char *run_phase_unknown(unsigned phases);

#endif
