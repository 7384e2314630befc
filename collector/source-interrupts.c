/*
 * collector/source-interrupts.c - seed 004's T_0: hard interrupt handlers
 * (irq:irq_handler_entry/exit), softirqs (irq:softirq_entry/exit) and
 * hrtimer expiries (timer:hrtimer_expire_entry/exit), on every CPU for
 * every task: an interrupt belongs to no task, and the program may run on
 * any CPU. collector/interrupts.c pairs entries with exits into rows.
 *
 * The tracepoints fire in interrupt context: the sample's tid is whatever
 * was interrupted and means nothing here. irq_handler_entry carries the
 * action's name as a __data_loc string (offset in the low 16 bits, length
 * in the high 16, from the start of the payload).
 */
#include "config.h"
#include "collector/interrupts.h"
#include "collector/session.h"
#include "collector/source.h"
#include "collector/tracepoint.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The six tracepoints, by tag: entry then exit of each kind. */
static const struct {
	const char *system, *event, *key; /* key: the field that pairs exit with entry */
	uint8_t kind, exit;
} events[] = {
	{ "irq", "irq_handler_entry", "irq", MTX_INTR_IRQ, 0 },
	{ "irq", "irq_handler_exit", "irq", MTX_INTR_IRQ, 1 },
	{ "irq", "softirq_entry", "vec", MTX_INTR_SOFTIRQ, 0 },
	{ "irq", "softirq_exit", "vec", MTX_INTR_SOFTIRQ, 1 },
	{ "timer", "hrtimer_expire_entry", "hrtimer", MTX_INTR_TIMER, 0 },
	{ "timer", "hrtimer_expire_exit", "hrtimer", MTX_INTR_TIMER, 1 },
};
#define NR_EVENTS ((int)(sizeof(events) / sizeof(events[0])))

struct interrupts_layout {
	struct tp_field key[NR_EVENTS];
	struct tp_field irq_name, function;
};

static int interrupts_layout(struct mtx_session *s)
{
	struct interrupts_layout *l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	s->source_state[MTX_SRC_INTERRUPTS] = l;
	for (int i = 0; i < NR_EVENTS; i++)
		if (tp_lookup(events[i].system, events[i].event, events[i].key, &l->key[i]))
			return session_set_error(s, -EINVAL, "%s:%s is missing from tracefs or has an unknown format",
						 events[i].system, events[i].event);
	tp_lookup("irq", "irq_handler_entry", "name", &l->irq_name);
	tp_lookup("timer", "hrtimer_expire_entry", "function", &l->function);
	return 0;
}

static int interrupts_open(struct mtx_session *s)
{
	for (int i = 0; i < NR_EVENTS; i++) {
		struct perf_event_attr attr;
		long id = tracepoint_id(events[i].system, events[i].event);
		int rc;
		if (id < 0)
			return session_set_error(s, (int)id, "no %s:%s tracepoint in tracefs", events[i].system,
						 events[i].event);
		tp_attr(&attr, id);
		rc = session_add_event(s, &attr, &source_interrupts, i, 1);
		if (rc)
			return rc;
	}
	return 0;
}

/* The __data_loc string @f of @sample into @out ("" if absent). */
static void read_data_loc(const struct perf_sample *sample, const struct tp_field *f, char *out, size_t size)
{
	uint32_t loc = (uint32_t)tp_read(sample, f, 0), off = loc & 0xffff, len = loc >> 16;
	out[0] = 0;
	if (!loc || off + len > sample->raw_size)
		return;
	if (len >= size)
		len = (uint32_t)size - 1;
	memcpy(out, sample->raw + off, len);
	out[len] = 0;
	out[strnlen(out, len)] = 0;
}

static int interrupts_decode(struct mtx_session *s, int tag, const struct perf_sample *sample, struct mtx_event *ev)
{
	const struct interrupts_layout *l = s->source_state[MTX_SRC_INTERRUPTS];
	if (tag < 0 || tag >= NR_EVENTS)
		return 0;
	ev->type = MTX_EV_INTERRUPT;
	memset(&ev->u.intr, 0, sizeof(ev->u.intr));
	ev->u.intr.kind = events[tag].kind;
	ev->u.intr.exit = events[tag].exit;
	ev->u.intr.key = (uint64_t)tp_read(sample, &l->key[tag], 0);
	if (events[tag].kind != MTX_INTR_TIMER)
		ev->u.intr.irq = (int32_t)ev->u.intr.key;
	if (tag == 0)
		read_data_loc(sample, &l->irq_name, ev->u.intr.name, sizeof(ev->u.intr.name));
	else if (tag == 4)
		ev->u.intr.function = (uint64_t)tp_read(sample, &l->function, 0);
	return 1;
}

const struct mtx_source source_interrupts = {
	.id = MTX_SRC_INTERRUPTS,
	.name = "interrupts",
	.summary = "interrupt handlers, softirqs and hrtimer expiries on every CPU, for what woke threads from outside (system-wide)",
	/* Its six tracepoints have no other user: each run registers them,
	 * and their last close waits for an RCU grace period each (~40 ms
	 * here), which held up the next run's start by ~250 ms. */
	.optional = 1,
	.layout = interrupts_layout,
	.open = interrupts_open,
	.nr_tags = NR_EVENTS,
	.decode = interrupts_decode,
};
