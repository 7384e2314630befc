/*
 * samples/selfcheck-order.h - the order of a sample's events as the
 * program itself saw it: the oracle of the probe-effect tests (did mtx
 * change which thread got the lock first, who was served, ...).
 *
 * selfcheck_order(what) numbers an event from one process-wide atomic
 * sequence and stamps it with CLOCK_MONOTONIC (the clock mtx records on).
 * A sample calls it right after the synchronization call that decided the
 * event, inside the critical section when there is one, so the numbers
 * follow the order the program's own synchronization imposed, and the
 * stamp is at or after the end of that call.  @what is one word without
 * spaces that names the event without tids or addresses ("race-a:lock:M",
 * "customer-3:leave"), so that the orders of two runs compare line by line.
 *
 * The events are kept in memory (no syscall in the middle of the run);
 * selfcheck_order_write(), called by main after joining its threads,
 * appends them to the MTX_SELFCHECK file (samples/selfcheck.h), in order:
 *
 *   order seq=<n> ts=<ns> tid=<tid> what=<word>
 *   order_lost count=<n>                  (only when more than fit)
 *
 * selfcheck_object(name, addr) appends at once one line naming an object,
 * so a test finds its address in the trace without the program printing it:
 *
 *   object name=<name> addr=<address as a decimal integer>
 *
 * Without MTX_SELFCHECK the events are still numbered (cheap) and nothing
 * is written.  Nothing here calls a pthread synchronization function.
 */
#ifndef MTX_SAMPLES_SELFCHECK_ORDER_H
#define MTX_SAMPLES_SELFCHECK_ORDER_H

#include <stdint.h>

#include "samples/selfcheck.h"

#define SELFCHECK_ORDER_MAX 16384
#define SELFCHECK_ORDER_WHAT 48

struct selfcheck_event {
	unsigned long long ts_ns;
	int tid;
	char what[SELFCHECK_ORDER_WHAT];
};

static struct selfcheck_event selfcheck_events[SELFCHECK_ORDER_MAX];
static unsigned long selfcheck_next_seq;
static __thread int selfcheck_tid;

/* selfcheck_order - record event @what of the calling thread (see the top). */
static inline __attribute__((unused)) void selfcheck_order(const char *what)
{
	unsigned long seq = __atomic_fetch_add(&selfcheck_next_seq, 1, __ATOMIC_SEQ_CST);
	struct selfcheck_event *e;

	if (seq >= SELFCHECK_ORDER_MAX)
		return;
	if (!selfcheck_tid)
		selfcheck_tid = (int)syscall(SYS_gettid);
	e = &selfcheck_events[seq];
	e->ts_ns = selfcheck_now_ns();
	e->tid = selfcheck_tid;
	snprintf(e->what, sizeof(e->what), "%s", what);
}

/* selfcheck_object - name object @addr in the MTX_SELFCHECK file. */
static inline __attribute__((unused)) void selfcheck_object(const char *name, const void *addr)
{
	char line[128];
	int fd = selfcheck_open(), n;

	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "object name=%s addr=%llu\n", name,
		     (unsigned long long)(uintptr_t)addr);
	selfcheck_write_line(fd, line, n);
	close(fd);
}

/* selfcheck_order_write - append the events recorded so far, in order.
 * Call it once every thread that records events has been joined. */
static inline __attribute__((unused)) void selfcheck_order_write(void)
{
	unsigned long nr = __atomic_load_n(&selfcheck_next_seq, __ATOMIC_SEQ_CST), i;
	char line[160];
	int fd = selfcheck_open(), n;

	if (fd < 0)
		return;
	for (i = 0; i < nr && i < SELFCHECK_ORDER_MAX; i++) {
		const struct selfcheck_event *e = &selfcheck_events[i];

		n = snprintf(line, sizeof(line), "order seq=%lu ts=%llu tid=%d what=%s\n",
			     i, e->ts_ns, e->tid, e->what);
		selfcheck_write_line(fd, line, n);
	}
	if (nr > SELFCHECK_ORDER_MAX) {
		n = snprintf(line, sizeof(line), "order_lost count=%lu\n", nr - SELFCHECK_ORDER_MAX);
		selfcheck_write_line(fd, line, n);
	}
	close(fd);
}

#endif /* MTX_SAMPLES_SELFCHECK_ORDER_H */
