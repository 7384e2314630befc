/*
 * collector/source-sched.c - switch-out of traced threads from the
 * sched:sched_switch tracepoint (state left in, next task). The switch-in,
 * fork, exit and comm records come from the session's leader events.
 *
 * prev_state: the kernel reports a preempted task as TASK_REPORT_MAX (shown
 * "R+" by ftrace) since 4.14, and otherwise the TASK_REPORT bits
 * (1 S, 2 D, 4 T, 8 t, 0x10 X, 0x20 Z, 0x40 P, 0x80 I); 0 is R (yield).
 *
 * With --sample HZ the switch-out also carries the user call chain
 * (PERF_SAMPLE_CALLCHAIN, exclude_callchain_kernel): the tracepoint fires in
 * the context of the task leaving the CPU, so the chain is where that thread
 * was in its own code - leaf first, the leaf being where it entered the
 * kernel - walked by frame pointers like the CPU samples' chains.
 */
#include "config.h"
#include "collector/session.h"
#include "collector/source.h"
#include "collector/tracepoint.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

struct sched_layout {
	struct tp_field prev_pid, prev_state, prev_prio, next_pid;
};

static int sched_layout(struct mtx_session *s)
{
	struct sched_layout *l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	s->source_state[MTX_SRC_SCHED] = l;
	if (tp_lookup("sched", "sched_switch", "prev_pid", &l->prev_pid) ||
	    tp_lookup("sched", "sched_switch", "prev_state", &l->prev_state) ||
	    tp_lookup("sched", "sched_switch", "next_pid", &l->next_pid))
		return session_set_error(s, -EINVAL, "sched:sched_switch is missing from tracefs or has an unknown format");
	tp_lookup("sched", "sched_switch", "prev_prio", &l->prev_prio);
	return 0;
}

static int sched_open(struct mtx_session *s)
{
	struct perf_event_attr attr;
	long id = tracepoint_id("sched", "sched_switch");
	if (id < 0)
		return session_set_error(s, (int)id, "no sched:sched_switch tracepoint in tracefs");
	tp_attr(&attr, id);
	attr.inherit = 1;
	attr.disabled = 1;
	attr.enable_on_exec = 1;
	if (s->sample_hz) {
		attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
		attr.exclude_callchain_kernel = 1;
	}
	return session_add_event(s, &attr, &source_sched, 0, 0);
}

static int sched_decode(struct mtx_session *s, int tag, const struct perf_sample *sample, struct mtx_event *ev)
{
	const struct sched_layout *l = s->source_state[MTX_SRC_SCHED];
	int64_t state = tp_read(sample, &l->prev_state, 0);
	ev->type = MTX_EV_SWITCH_OUT;
	ev->u.sw.prev_state = state;
	ev->u.sw.next_tid = (int32_t)tp_read(sample, &l->next_pid, 0);
	ev->u.sw.prev_prio = (int32_t)tp_read(sample, &l->prev_prio, INT32_MIN);
	/* Bits above the TASK_REPORT mask mean "preempted" (TASK_REPORT_MAX). */
	ev->u.sw.preempt = (state & ~(int64_t)0xff) != 0;
	ev->u.sw.pcs = perf_user_chain(sample, &ev->u.sw.nr);
	return 1;
}

const struct mtx_source source_sched = {
	.id = MTX_SRC_SCHED,
	.name = "sched",
	.summary = "context switches (in and out, state left in, preemption), forks, exits, names",
	.mandatory = 1,
	.layout = sched_layout,
	.open = sched_open,
	.nr_tags = 1,
	.decode = sched_decode,
};
