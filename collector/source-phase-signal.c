/*
 * collector/source-phase-signal.c - mtx collect --phase-signal SIG: the
 * kernel's signal:signal_generate for every task, kept when its signal is
 * SIG. Every task's, because whoever sends it may be outside the run (kill
 * -USR2 from a shell); collect.c keeps the ones sent to a thread of the run,
 * each of which begins a phase (collector/phases.h). Sent, not delivered:
 * a program that ignores SIG (SIG_IGN) never runs a handler, and still
 * marks its phases.
 */
#include "config.h"
#include "collector/session.h"
#include "collector/source.h"
#include "collector/tracepoint.h"

#include <errno.h>
#include <stdlib.h>

struct phase_signal_layout {
	struct tp_field sig, pid, group;
};

static int phase_signal_layout(struct mtx_session *s)
{
	struct phase_signal_layout *l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	s->source_state[MTX_SRC_PHASE_SIGNAL] = l;
	if (tp_lookup("signal", "signal_generate", "sig", &l->sig) ||
	    tp_lookup("signal", "signal_generate", "pid", &l->pid) ||
	    tp_lookup("signal", "signal_generate", "group", &l->group))
		return session_set_error(s, -EINVAL, "signal:signal_generate is missing from tracefs or has an unknown format");
	return 0;
}

static int phase_signal_open(struct mtx_session *s)
{
	struct perf_event_attr attr;
	long id = tracepoint_id("signal", "signal_generate");
	if (id < 0)
		return session_set_error(s, (int)id, "no signal:signal_generate tracepoint in tracefs");
	tp_attr(&attr, id);
	return session_add_event(s, &attr, &source_phase_signal, 0, 1);
}

static int phase_signal_decode(struct mtx_session *s, int tag, const struct perf_sample *sample,
			       struct mtx_event *ev)
{
	const struct phase_signal_layout *l = s->source_state[MTX_SRC_PHASE_SIGNAL];
	(void)tag;
	if (tp_read(sample, &l->sig, 0) != s->phase_signal)
		return 0;
	ev->type = MTX_EV_PHASE_SIGNAL;
	ev->u.phase_signal.target = (int32_t)tp_read(sample, &l->pid, 0);
	ev->u.phase_signal.group = tp_read(sample, &l->group, 0) != 0;
	return 1;
}

const struct mtx_source source_phase_signal = {
	.id = MTX_SRC_PHASE_SIGNAL,
	.name = "phase_signal",
	.summary = "a signal sent to the program, each one the start of a phase (--phase-signal)",
	.optional = 1,
	.layout = phase_signal_layout,
	.open = phase_signal_open,
	.nr_tags = 1,
	.decode = phase_signal_decode,
};
