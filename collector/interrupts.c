/*
 * collector/interrupts.c - see interrupts.h.
 *
 * Handlers nest on a CPU (a hard irq interrupts a softirq; an hrtimer in
 * hard-irq mode interrupts the HRTIMER softirq's), so each CPU keeps a
 * small stack of open entries and an exit closes the innermost open entry
 * of its kind and key; entries above it never saw their exit (a lost
 * record) and are dropped and counted, as are exits without an entry (the
 * handler began before recording did).
 *
 * An hrtimer is named by its function (hrtimer_wakeup: a sleep or a
 * timeout ending; tick_sched_timer: the scheduler tick): by its address
 * while recording, by its /proc/kallsyms name at the end (one pass over
 * the file for all of them, interrupts_name_timers).
 */
#include "config.h"
#include "collector/interrupts.h"
#include "src/db.h"

#include <errno.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NESTED 8

struct open_entry {
	uint64_t start_ns, key;
	int32_t irq;
	uint8_t kind;
	char name[64];
};

struct cpu_stack {
	struct open_entry open[MAX_NESTED];
	int depth;
};

struct mtx_interrupts {
	struct mtx_writer *w;
	struct cpu_stack *cpus;
	int nr_cpus;
	uint64_t start_ns; /* interrupts_start */
	uint64_t nr_unpaired;
};

static const char *const kind_names[] = {
#define X(e, n) n,
	MTX_INTERRUPT_KINDS(X)
#undef X
};

/* include/linux/interrupt.h: the softirq vectors, in order. */
static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
};

const char *interrupts_softirq_name(unsigned vec)
{
	return vec < sizeof(softirq_names) / sizeof(softirq_names[0]) ? softirq_names[vec] : NULL;
}

struct mtx_interrupts *interrupts_new(struct mtx_writer *w)
{
	struct mtx_interrupts *irqs = calloc(1, sizeof(*irqs));
	if (irqs)
		irqs->w = w;
	return irqs;
}

static struct cpu_stack *stack_of(struct mtx_interrupts *irqs, int cpu)
{
	if (cpu < 0 || cpu > 4096)
		return NULL;
	if (cpu >= irqs->nr_cpus) {
		int n = cpu + 1;
		struct cpu_stack *c = realloc(irqs->cpus, (size_t)n * sizeof(*c));
		if (!c)
			return NULL;
		memset(c + irqs->nr_cpus, 0, (size_t)(n - irqs->nr_cpus) * sizeof(*c));
		irqs->cpus = c;
		irqs->nr_cpus = n;
	}
	return &irqs->cpus[cpu];
}

/* An hrtimer's function by its address, until interrupts_name_timers
 * names it: reading /proc/kallsyms takes ~60 ms, which the drain must not
 * spend while the program runs. */
static void timer_name(uint64_t fn, char *out, size_t size)
{
	snprintf(out, size, "0x%" PRIx64, fn);
}

/* At most this many distinct timer functions are named (a run has tens). */
#define MAX_TIMER_NAMES 256

int interrupts_name_timers(sqlite3 *db)
{
	uint64_t addrs[MAX_TIMER_NAMES];
	sqlite3_stmt *st = NULL;
	char line[512];
	int n = 0, left, rc = 0;
	FILE *f;

	if (sqlite3_prepare_v2(db, "SELECT DISTINCT name FROM interrupts WHERE kind = 'timer' AND name LIKE '0x%'", -1,
			       &st, NULL) != SQLITE_OK)
		return -EIO;
	while (n < MAX_TIMER_NAMES && sqlite3_step(st) == SQLITE_ROW)
		addrs[n++] = strtoull((const char *)sqlite3_column_text(st, 0), NULL, 16);
	sqlite3_finalize(st);
	/* 0 for every symbol: kallsyms hides addresses from the unprivileged */
	if (!n || !(f = fopen("/proc/kallsyms", "re")))
		return 0;
	if (sqlite3_prepare_v2(db, "UPDATE interrupts SET name = ?1 WHERE kind = 'timer' AND name = ?2", -1, &st,
			       NULL) != SQLITE_OK)
		rc = -EIO;
	for (left = n; !rc && left > 0 && fgets(line, sizeof(line), f);) {
		char *end, *name, addr[24];
		uint64_t a = strtoull(line, &end, 16);
		int i = 0;
		while (i < n && addrs[i] != a)
			i++;
		if (!a || i == n || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		addrs[i] = 0; /* named */
		left--;
		snprintf(addr, sizeof(addr), "0x%" PRIx64, a);
		name = end + 3;
		name[strcspn(name, " \t\n")] = 0;
		sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 2, addr, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = -EIO;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	fclose(f);
	return rc;
}

static void enter(struct mtx_interrupts *irqs, struct cpu_stack *c, const struct mtx_event *ev)
{
	struct open_entry *e;
	if (c->depth == MAX_NESTED) { /* exits lost: start again */
		irqs->nr_unpaired += (uint64_t)c->depth;
		c->depth = 0;
	}
	e = &c->open[c->depth++];
	e->start_ns = ev->ts_ns;
	e->key = ev->u.intr.key;
	e->irq = ev->u.intr.irq;
	e->kind = ev->u.intr.kind;
	switch (e->kind) {
	case MTX_INTR_IRQ:
		snprintf(e->name, sizeof(e->name), "%.*s", (int)sizeof(ev->u.intr.name), ev->u.intr.name);
		break;
	case MTX_INTR_SOFTIRQ: {
		const char *n = interrupts_softirq_name((unsigned)e->irq);
		snprintf(e->name, sizeof(e->name), "%s", n ? n : "?");
		break;
	}
	default:
		timer_name(ev->u.intr.function, e->name, sizeof(e->name));
	}
}

static void leave(struct mtx_interrupts *irqs, struct cpu_stack *c, const struct mtx_event *ev)
{
	for (int i = c->depth - 1; i >= 0; i--) {
		struct open_entry *e = &c->open[i];
		if (e->kind != ev->u.intr.kind || e->key != ev->u.intr.key)
			continue;
		writer_interrupt(irqs->w, ev->cpu, e->start_ns, ev->ts_ns, kind_names[e->kind],
				 e->kind == MTX_INTR_TIMER ? -1 : e->irq, e->name);
		irqs->nr_unpaired += (uint64_t)(c->depth - 1 - i);
		c->depth = i;
		return;
	}
	irqs->nr_unpaired++;
}

void interrupts_start(struct mtx_interrupts *irqs, uint64_t ns)
{
	irqs->start_ns = ns;
}

void interrupts_event(struct mtx_interrupts *irqs, const struct mtx_event *ev)
{
	struct cpu_stack *c = stack_of(irqs, ev->cpu);
	if (!c || ev->u.intr.kind >= MTX_INTR__COUNT || !irqs->start_ns || ev->ts_ns < irqs->start_ns)
		return;
	if (ev->u.intr.exit)
		leave(irqs, c, ev);
	else
		enter(irqs, c, ev);
}

void interrupts_finish(struct mtx_interrupts *irqs)
{
	for (int cpu = 0; cpu < irqs->nr_cpus; cpu++)
		irqs->nr_unpaired += (uint64_t)irqs->cpus[cpu].depth;
	writer_meta_int(irqs->w, "interrupts_unpaired", (int64_t)irqs->nr_unpaired);
}

void interrupts_free(struct mtx_interrupts *irqs)
{
	if (!irqs)
		return;
	free(irqs->cpus);
	free(irqs);
}
