/*
 * src/phases.h - the phases of a run (schema/mtx.sql, phases): where each
 * one came from, declared once for the collector that writes them
 * (collector/phases.h), and the readers' view of them: the stored ones, or
 * those --phases-at cuts after the fact, and the window --phase names.
 */
#ifndef MTX_PHASES_H
#define MTX_PHASES_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* X(enum suffix, phases.source): what began the phase. */
#define PHASE_SOURCES(X)                                                                     \
	X(RUN, "run")       /* phase 0, the whole run */                                     \
	X(CALL, "call")     /* the program called mtx_phase(name) */                         \
	X(SIGNAL, "signal") /* mtx collect --phase-signal's signal was sent to the program */ \
	X(CTL, "ctl")       /* mtx ctl SOCK phase NAME */                                    \
	X(AT, "at")         /* --phases-at, after the fact (never stored) */

enum phase_source {
#define X(e, n) PHASE_##e,
	PHASE_SOURCES(X)
#undef X
	PHASE__COUNT
};

static inline const char *phase_source_name(enum phase_source s)
{
	static const char *const names[] = {
#define X(e, n) n,
		PHASE_SOURCES(X)
#undef X
	};
	return names[s];
}

/* The name of phase 0, the whole run. */
#define PHASE_GLOBAL "global"

/* phase_default_name - the name of phase @id when its mark gave none
 * (a signal, --phases-at): "phase-ID". */
static inline void phase_default_name(int64_t id, char *out, size_t size)
{
	snprintf(out, size, "phase-%lld", (long long)id);
}

struct phase_row {
	int64_t id;
	char *name;
	int64_t start_ns, end_ns;
	char *source;
	int64_t tid; /* 0: none */
};

struct run_phases {
	struct phase_row *v; /* v[0] is phase 0 */
	size_t n;
};

/*
 * run_phases_load - @db's phases or, given @at (--phases-at: instants since
 * the run's start, comma-separated, increasing, inside the run), the run
 * cut there instead: phase 1 from its start to the first, the last from
 * the last to its end. A run.db older than the phases table has phase 0
 * only. 0, or -EINVAL (a bad @at) or -EIO with @err.
 */
int run_phases_load(sqlite3 *db, const char *at, struct run_phases *out, char **err);

/* run_phases_find - the phase @text names: an id, or the name of one phase.
 * NULL with @err when none or several do. */
const struct phase_row *run_phases_find(const struct run_phases *p, const char *text, char **err);

void run_phases_free(struct run_phases *p);

/*
 * run_phases_table - TEMP table phase_report (replaced), a row per phase of
 * @p: id, name, source, start_ns, length_ns and the share of its threads'
 * time in each state (the threads report's columns), the threads report's
 * figures over the phase's window added up over the threads, on a run
 * that lacks the steps @missing (run-state.h). 0 or -EIO with @err.
 */
int run_phases_table(sqlite3 *db, const struct run_phases *p, unsigned missing, char **err);

/* The part of the run a --phase names. */
struct phase_window {
	int64_t id, start_ns, end_ns;
	char name[64];
};

/* run_phase_window - the phase @text names in @db (@at as run_phases_load
 * takes it) into @w: 0, or -EINVAL with @err when the run has no such
 * phase or it is empty (-ENOMEM, -EIO). */
int run_phase_window(sqlite3 *db, const char *text, const char *at, struct phase_window *w, char **err);

#endif
