/*
 * collector/source-samples.c - CPU samples with user call chains
 * (--sample HZ): the cpu-clock software event, one per CPU, inherited by
 * every thread of the program and redirected into that CPU's ring like
 * every other event.
 *
 * Kernel facts relied on:
 *  - cpu-clock counts nanoseconds of CPU time of the task it follows, so a
 *    fixed sample_period of 1e9/HZ is one sample per 1/HZ s of running,
 *    per thread, with no hardware counter (none here);
 *  - PERF_SAMPLE_CALLCHAIN walks the user stack by frame pointers; with
 *    exclude_callchain_kernel the chain is PERF_CONTEXT_USER then the user
 *    addresses, leaf first, even for a sample taken in the kernel (then the
 *    leaf is where the thread entered it), and the record's cpumode says
 *    which it was;
 *  - the walk stops at a zero or unreadable frame pointer, or at
 *    kernel.perf_event_max_stack frames (127 by default);
 *  - PERF_SAMPLE_REGS_USER gives the user registers the thread had when it
 *    last left user mode (abi NONE, no registers, for a kernel thread), and
 *    PERF_SAMPLE_STACK_USER a copy of sample_stack_user bytes of its stack
 *    from the user sp up, of which dyn_size were readable; the kernel
 *    shrinks the copy so that the record fits in its u16 size.
 * With --call-graph dwarf (s->sample_stack_bytes > 0) both are taken as
 * well as the frame-pointer chain; collector/profile.c unwinds the copy
 * with DWARF CFI (collector/unwind.c) and keeps the chain as a fallback.
 */
#include "config.h"
#include "collector/session.h"
#include "collector/source.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int samples_layout(struct mtx_session *s)
{
	return 0;
}

static int samples_open(struct mtx_session *s)
{
	struct perf_event_attr attr;
	perf_attr_init(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	attr.sample_period = 1000000000ull / (s->sample_hz ? s->sample_hz : 1);
	attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
	attr.exclude_callchain_kernel = 1;
	if (s->sample_stack_bytes) {
		attr.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		attr.sample_regs_user = MTX_REGS_USER_MASK;
		attr.sample_stack_user = s->sample_stack_bytes;
	}
	attr.inherit = 1;
	attr.disabled = 1;
	attr.enable_on_exec = 1;
	return session_add_event(s, &attr, &source_samples, 0, 0);
}

/* perf's register order (MTX_REGS_USER_MASK) to DWARF numbers. */
static const uint8_t dwarf_of_perf_reg[MTX_NR_REGS_USER] = {
	0, 3, 2, 1, 4, 5, 6, 7, 16, /* ax bx cx dx si di bp sp ip */
	8, 9, 10, 11, 12, 13, 14, 15, /* r8 .. r15 */
};

/* The user stack copy and registers of @sample in one malloc'd block,
 * registers by DWARF number; NULL if it has none (or out of memory). */
static struct mtx_user_stack *user_stack(const struct perf_sample *sample)
{
	struct mtx_user_stack *st;
	if (!sample->regs_user || !sample->stack_user || !sample->stack_user_size)
		return NULL;
	st = malloc(sizeof(*st) + sample->stack_user_size);
	if (!st)
		return NULL;
	for (int i = 0; i < MTX_NR_REGS_USER; i++)
		memcpy(&st->regs[dwarf_of_perf_reg[i]], sample->regs_user + 8 * i, 8);
	st->size = sample->stack_user_size;
	memcpy(st->data, sample->stack_user, st->size);
	return st;
}

static int samples_decode(struct mtx_session *s, int tag, const struct perf_sample *sample, struct mtx_event *ev)
{
	ev->type = MTX_EV_SAMPLE;
	ev->u.sample.pcs = perf_user_chain(sample, &ev->u.sample.nr);
	ev->u.sample.kernel = sample->kernel_mode;
	ev->u.sample.stack = user_stack(sample);
	return 1;
}

const struct mtx_source source_samples = {
	.id = MTX_SRC_SAMPLES,
	.name = "samples",
	.summary = "CPU samples (cpu-clock) with user call chains, by frame pointers or DWARF CFI",
	.layout = samples_layout,
	.open = samples_open,
	.nr_tags = 1,
	.decode = samples_decode,
};
