/*
 * collector/instrument.h - instrumentation that changes while the program
 * runs (seed 003 §1-2, SEEDS-MAP S2): what is on when, and the commands
 * of mtx ctl that change it (mtx collect --control SOCK).
 *
 *   probe add [LIB:]REGEX   uprobes on the functions REGEX matches (as
 *                           --functions), on at once; numbered from 1
 *   probe del N             off at once; its open calls end there
 *                           (calls.unfinished = 'probe_removed')
 *   probe list              the probes on, their hits so far
 *   source on|off NAME      a source of the run (syscalls, wakeups,
 *                           interrupts, samples, sync: its uprobes' events,
 *                           or the library's region word)
 *   phase NAME              a phase of the run called NAME begins now
 *                           (not instrumentation: it says when, for the
 *                           reports' --phase)
 *
 * Each window in which a source or a probe was on becomes a row of the
 * instrumentation table (mtx-db(5)). A probe's events are opened for
 * every task and filtered to the run's processes
 * (session_add_set_tracepoint), so that they reach every thread, those
 * that exist and those started later, attached or not.
 */
#ifndef MTX_COLLECTOR_INSTRUMENT_H
#define MTX_COLLECTOR_INSTRUMENT_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct mtx_session;
struct mtx_writer;
struct mtx_instrument;
struct function_uprobes;

/*
 * instrument_new - the instrumentation of a run recording the program at
 * @prog (its file, where probes go) into @w through @s, from @start_ns,
 * with the sources in @sources (bit i: mtx_sources[i]) and sync
 * operations (@sync) on. NULL when out of memory.
 */
struct mtx_instrument *instrument_new(struct mtx_session *s, struct mtx_writer *w, const char *prog,
				      unsigned sources, int sync, uint64_t start_ns);

/* instrument_functions - --functions @pattern put probes on the functions
 * of @fu from the start (both kept by the caller until instrument_finish),
 * each call costing @cost_ns (0: not calibrated). */
void instrument_functions(struct mtx_instrument *in, const char *pattern, struct function_uprobes *fu,
			  uint64_t cost_ns);
/*
 * instrument_catch_up - mtx collect -p stopped the process in @cu before
 * its probes went on at @t0: the calls of probed functions its threads
 * are in become calls begun at @t0 (collector/catch-up.h). The caller
 * resumes the process after.
 */
struct catch_up;
void instrument_catch_up(struct mtx_instrument *in, struct catch_up *cu, uint64_t t0);
/* instrument_running - the program (process @pid) runs, after a stop of
 * @stopped_ns to catch up (0: none): from now on a probe added stops it
 * to catch up on the calls it is in. */
void instrument_running(struct mtx_instrument *in, pid_t pid, uint64_t stopped_ns);

/*
 * instrument_start_functions - --functions @pattern with --overhead-budget:
 * each of the functions of @fu (found, not defined) a probe set of its
 * own, on from now (before the program starts), so that the budget can
 * take the most expensive away one by one; a call costs @cost_ns (0: it
 * is calibrated here). With @rates_from (a run.db, NULL: none), the
 * functions whose rates there predict the budget's excess are refused
 * first, the most expensive first (a row with an empty window). Call
 * instrument_budget before. Returns 0, or -errno with @err.
 */
int instrument_start_functions(struct mtx_instrument *in, const char *pattern, const struct function_uprobes *fu,
			       uint64_t cost_ns, const char *rates_from, char **err);

/*
 * instrument_source - switch source @name (as 'source on|off NAME') on
 * (@on) or off now, for @reason (user, consultant, budget: static text,
 * instrumentation.reason or off_reason): 0 and the instant in *@at_ns, or
 * -1 and why not in *@why.
 */
int instrument_source(struct mtx_instrument *in, const char *name, int on, const char *reason, uint64_t *at_ns,
		      const char **why);

/* instrument_phases - where 'phase NAME' marks the start of a phase of the
 * run: @mark(@ctx, ns, name), 0 when done (collector/phases.h). */
void instrument_phases(struct mtx_instrument *in, int (*mark)(void *ctx, uint64_t ns, const char *name), void *ctx);

/* instrument_live - who answers 'live', what the run did so far: @answer
 * writes the reply line (collector/live.h). Unset: the run keeps no
 * totals, and says so. */
void instrument_live(struct mtx_instrument *in, void (*answer)(void *ctx, FILE *out), void *ctx);

/* instrument_sync_switch - how 'source on|off sync' switches the library's
 * records: @pause(@ctx, paused) (collect_sync_pause), 0 when done. */
void instrument_sync_switch(struct mtx_instrument *in, int (*pause)(void *ctx, int paused), void *ctx);

/* instrument_budget - --overhead-budget @pct: the probes may cost at most
 * @pct% of one CPU; past it, instrument_tick takes the most expensive off. */
void instrument_budget(struct mtx_instrument *in, double pct);

/* instrument_tick - every round of the loop: at most every 100 ms, weigh
 * each probe's calls since the last time by the calibrated cost of one,
 * and take the most expensive off (reason budget) until the rest fit. */
void instrument_tick(struct mtx_instrument *in, uint64_t now);

/*
 * instrument_command - carry out one mtx ctl command @line (without its
 * newline) and write the reply to @reply: one JSON object on one line,
 * {"ok": true|false, "text": "what a person reads", ...}.
 */
void instrument_command(struct mtx_instrument *in, const char *line, FILE *reply);

/*
 * instrument_finish - at the end of the run (@end_ns, once the rings are
 * drained): every probe still on goes off, and every window becomes a row.
 */
void instrument_finish(struct mtx_instrument *in, uint64_t end_ns);

void instrument_free(struct mtx_instrument *in);

#endif
