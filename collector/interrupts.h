/*
 * collector/interrupts.h - seed 004's system thread T_0 on the machine's
 * CPUs: hard interrupt handlers, softirqs and hrtimer expiries
 * (collector/source-interrupts.c decodes them), each entry paired with its
 * exit on the same CPU into one interrupts row (schema/mtx.sql).
 */
#ifndef MTX_COLLECTOR_INTERRUPTS_H
#define MTX_COLLECTOR_INTERRUPTS_H

#include "collector/event.h"
#include "collector/writer.h"

/* What ran: X(enum suffix, interrupts.kind). */
#define MTX_INTERRUPT_KINDS(X) \
	X(IRQ, "irq")          \
	X(SOFTIRQ, "softirq")  \
	X(TIMER, "timer")

enum mtx_interrupt_kind {
#define X(e, n) MTX_INTR_##e,
	MTX_INTERRUPT_KINDS(X)
#undef X
	MTX_INTR__COUNT
};

struct mtx_interrupts;

/* interrupts_new - a pairing stage writing into @w. NULL when out of memory. */
struct mtx_interrupts *interrupts_new(struct mtx_writer *w);

/*
 * interrupts_start - the instant the program was let go: interrupts
 * before it (the events are on from session_open) are not the run's. Until
 * it is set, every interrupt is dropped.
 */
void interrupts_start(struct mtx_interrupts *irqs, uint64_t ns);

/*
 * interrupts_event - an MTX_EV_INTERRUPT entry or exit, in time order per
 * CPU. An exit writes the row of the entry it closes.
 */
void interrupts_event(struct mtx_interrupts *irqs, const struct mtx_event *ev);

/* interrupts_finish - write the counts of unpaired entries and exits into
 * meta (interrupts_unpaired). */
void interrupts_finish(struct mtx_interrupts *irqs);

void interrupts_free(struct mtx_interrupts *irqs);

/* interrupts_name_timers - the hrtimer rows of @db named by their
 * functions' /proc/kallsyms names, in one pass over it, where they were
 * written with the address (0x...). 0, or -EIO. */
int interrupts_name_timers(sqlite3 *db);

/* interrupts_softirq_name - the name of softirq vector @vec ("NET_RX"),
 * or NULL past the known ones. */
const char *interrupts_softirq_name(unsigned vec);

#endif
