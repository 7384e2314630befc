/*
 * src/thread-states.h - the states a thread's life is cut into
 * (thread_states.state, mtx-db(5)), declared once for the collector that
 * writes them, the analyses and reports that add them up and the browser
 * that draws them:
 *
 *   X(enum suffix, name in thread_states.state, column of thread_totals,
 *     share column of the threads report, short label, waiting)
 *
 * "waiting": neither on a CPU nor ready for one. The order is the order of
 * every report's and view's columns, and (plus one) the byte codes of
 * timeline_levels (src/derived/timeline-levels.h): append, never reorder.
 * The collector writes "blocked" for a wait in a syscall it cannot name;
 * the sync tables' completion turns the waits inside sync calls into
 * "blocked_sync".
 */
#ifndef MTX_THREAD_STATES_H
#define MTX_THREAD_STATES_H

#define THREAD_STATES(X)                                                               \
	X(RUNNING, "running", "running_ns", "running_pct", "running", 0)                 \
	X(RUNNABLE, "runnable", "runnable_ns", "runnable_pct", "runnable", 0)            \
	X(BLOCKED_SYNC, "blocked_sync", "blocked_sync_ns", "sync_pct", "sync", 1)        \
	X(BLOCKED_IO, "blocked_io", "blocked_io_ns", "io_pct", "io", 1)                  \
	X(SLEEPING, "sleeping", "sleeping_ns", "sleep_pct", "sleep", 1)                  \
	X(BLOCKED, "blocked", "blocked_other_ns", "other_pct", "other", 1)

enum thread_state {
#define X(e, name, total, pct, label, waiting) TS_##e,
	THREAD_STATES(X)
#undef X
	NR_THREAD_STATES
};

/* thread_state_name - the state's name in thread_states.state. */
static inline const char *thread_state_name(enum thread_state s)
{
	static const char *const names[] = {
#define X(e, name, total, pct, label, waiting) name,
		THREAD_STATES(X)
#undef X
	};
	return names[s];
}

/* thread_state_waiting - 1 for a state in which the thread waits. */
static inline int thread_state_waiting(enum thread_state s)
{
	static const unsigned char waiting[] = {
#define X(e, name, total, pct, label, w) w,
		THREAD_STATES(X)
#undef X
	};
	return waiting[s];
}

#endif
