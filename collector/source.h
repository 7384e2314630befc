/*
 * collector/source.h - the one interface every kernel event source
 * implements (source-sched.c, source-syscalls.c, source-wakeups.c,
 * source-interrupts.c), and the
 * table of sources that --events selects from.
 */
#ifndef MTX_COLLECTOR_SOURCE_H
#define MTX_COLLECTOR_SOURCE_H

#include "collector/event.h"
#include "collector/perf.h"

struct mtx_session;

struct mtx_source {
	enum mtx_source_id id;
	const char *name;     /* as given to --events */
	const char *summary;  /* one line for help and the man page */
	int mandatory;        /* cannot be turned off (threads and states need it) */
	int optional;         /* not in the default set: only -e NAME or -e all */
	/*
	 * layout - learn the payload layout of this source's tracepoints from
	 * tracefs into s->source_state[id]. Returns 0 or -errno (s->error set).
	 */
	int (*layout)(struct mtx_session *s);
	/*
	 * open - open this source's perf events through session_add_event()
	 * (layout has run).
	 * Returns 0 or -errno; on failure the session has a message.
	 */
	int (*open)(struct mtx_session *s);
	/* Number of distinct events (tags) the source opens. */
	int nr_tags;
	/*
	 * decode - turn one PERF_RECORD_SAMPLE of event @tag of this source
	 * into @out. Returns 1 if @out is an event to keep, 0 to drop it.
	 */
	int (*decode)(struct mtx_session *s, int tag, const struct perf_sample *sample, struct mtx_event *out);
};

extern const struct mtx_source source_sched;
extern const struct mtx_source source_syscalls;
extern const struct mtx_source source_wakeups;
extern const struct mtx_source source_interrupts;
/* CPU samples with call chains (--sample HZ): not in mtx_sources[], as
 * --events does not choose it. */
extern const struct mtx_source source_samples;
/* --phase-signal's signal, sent to the program: not in mtx_sources[] either. */
extern const struct mtx_source source_phase_signal;

/* All kernel sources, in the order they are opened. */
extern const struct mtx_source *const mtx_sources[];
extern const int mtx_nr_sources;

/* source_by_name - the source called @name, or NULL. */
const struct mtx_source *source_by_name(const char *name);
/* source_bit - @id's bit in a mask of mtx_sources (bit i: mtx_sources[i]),
 * 0 when it is not one of them. */
unsigned source_bit(enum mtx_source_id id);

#endif
