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
 *    kernel.perf_event_max_stack frames (127 by default).
 * Unwinding a copy of the user stack with DWARF CFI (for code built
 * without frame pointers) is not done: samples.unwind says 'fp'.
 */
#include "config.h"
#include "collector/session.h"
#include "collector/source.h"

#include <errno.h>

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
	attr.inherit = 1;
	attr.disabled = 1;
	attr.enable_on_exec = 1;
	return session_add_event(s, &attr, &source_samples, 0, 0);
}

static int samples_decode(struct mtx_session *s, int tag, const struct perf_sample *sample, struct mtx_event *ev)
{
	ev->type = MTX_EV_SAMPLE;
	ev->u.sample.pcs = perf_user_chain(sample, &ev->u.sample.nr);
	ev->u.sample.kernel = sample->kernel_mode;
	return 1;
}

const struct mtx_source source_samples = {
	.id = MTX_SRC_SAMPLES,
	.name = "samples",
	.summary = "CPU samples (cpu-clock) with user call chains, by frame pointers",
	.layout = samples_layout,
	.open = samples_open,
	.nr_tags = 1,
	.decode = samples_decode,
};
