/*
 * collector/source-wakeups.c - who woke whom, from sched:sched_waking.
 *
 * sched_waking fires in the waker's context (sched_wakeup may fire later on
 * the wakee's CPU, in whatever task runs there), so the sample's tid is the
 * waker, or 0 when an interrupt or the idle task did it. Wakeups of traced
 * threads by interrupts or other processes are only visible system-wide, so
 * this event is opened on every CPU for every task and the model keeps only
 * those whose wakee is traced.
 */
#include "config.h"
#include "collector/session.h"
#include "collector/source.h"
#include "collector/tracepoint.h"

#include <errno.h>
#include <stdlib.h>

struct wakeups_layout {
	struct tp_field pid, target_cpu, common_flags;
};

/* trace_flag_type bits in common_flags: hardirq, softirq, NMI. */
#define TRACE_FLAGS_INTERRUPT (0x08 | 0x10 | 0x40)

static int wakeups_layout(struct mtx_session *s)
{
	struct wakeups_layout *l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	s->source_state[MTX_SRC_WAKEUPS] = l;
	if (tp_lookup("sched", "sched_waking", "pid", &l->pid))
		return session_set_error(s, -EINVAL, "sched:sched_waking is missing from tracefs or has an unknown format");
	tp_lookup("sched", "sched_waking", "target_cpu", &l->target_cpu);
	tp_lookup("sched", "sched_waking", "common_flags", &l->common_flags);
	return 0;
}

static int wakeups_open(struct mtx_session *s)
{
	struct perf_event_attr attr;
	long id = tracepoint_id("sched", "sched_waking");
	if (id < 0)
		return session_set_error(s, (int)id, "no sched:sched_waking tracepoint in tracefs");
	tp_attr(&attr, id);
	return session_add_event(s, &attr, &source_wakeups, 0, 1);
}

static int wakeups_decode(struct mtx_session *s, int tag, const struct perf_sample *sample, struct mtx_event *ev)
{
	const struct wakeups_layout *l = s->source_state[MTX_SRC_WAKEUPS];
	ev->type = MTX_EV_WAKEUP;
	ev->u.wakeup.wakee_tid = (int32_t)tp_read(sample, &l->pid, -1);
	ev->u.wakeup.target_cpu = (int32_t)tp_read(sample, &l->target_cpu, -1);
	/* In interrupt context the sample's tid is whatever was interrupted,
	 * not the waker: record the waker as 0, "an interrupt". */
	if (tp_read(sample, &l->common_flags, 0) & TRACE_FLAGS_INTERRUPT)
		ev->tid = 0;
	return 1;
}

const struct mtx_source source_wakeups = {
	.id = MTX_SRC_WAKEUPS,
	.name = "wakeups",
	.summary = "who woke each traced thread (threads, other processes, interrupts; system-wide)",
	.layout = wakeups_layout,
	.open = wakeups_open,
	.nr_tags = 1,
	.decode = wakeups_decode,
};
