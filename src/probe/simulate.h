/*
 * src/probe/simulate.h - replaying a run without its instrumentation
 * overhead (seed 004 §3.3, §4.3, Figs. 6-7; SEEDS-MAP P4): an
 * event-driven simulation in which each thread executes its observed
 * sequence of sync events, separated by its own CPU time less the
 * overhead (run.h), on a model of the machine, with the semantics of
 * each kind of object deciding who waits and who goes first.
 *
 * Models:
 *  - PROBE_MODEL_UP_PRIO: 004 exactly: one CPU, the highest-priority
 *    ready thread runs and is preempted only by a higher one, FIFO among
 *    equals; wait queues by priority, FIFO among equals.
 *  - PROBE_MODEL_SMP: the run's CPUs; each free CPU takes the ready
 *    thread of highest priority that may run there (its affinity) and,
 *    among equals, of least simulated CPU
 *    time (vruntime: a thread that starts is placed at the least of the
 *    others', one that wakes up to a 3 ms slice below it), for at most a
 *    3 ms slice while others wait; a thread that wakes 1 ms below a
 *    running one takes its CPU: an approximation of Linux's CFS, not CFS.
 * Both: a thread's priority and affinity are its segment's (run.h); a
 * CPU given to a thread costs run->sched_switch_ns first; T_0's
 * interrupts take their CPU at their observed times (the thread there
 * makes no progress); sleeps, blocking I/O and waits outside the model
 * keep their observed durations, or end at T_0's instant when T_0 ended
 * them; a wait that timed out in the run times out after its observed
 * duration; the run's outcome is followed past a trylock
 * or timed wait whose simulated outcome differs (that event is the
 * divergence; nothing after it is a prediction).
 */
#ifndef MTX_PROBE_SIMULATE_H
#define MTX_PROBE_SIMULATE_H

#include "src/probe/run.h"

#include <stdint.h>

enum probe_model { PROBE_MODEL_SMP, PROBE_MODEL_UP_PRIO };

#define PROBE_SMP_SLICE_NS 3000000
#define PROBE_SMP_WAKEUP_GRANULARITY_NS 1000000

struct probe_sim {
	enum probe_model model;
	int nr_cpus;
	int32_t *actions;    /* the simulated total order of entries and events (hb.h) */
	int32_t nr_actions;
	int64_t *enter_ns;   /* per event: simulated "T enters f", -1 never */
	int64_t *happen_ns;  /* per event: simulated "e happens", -1 never */
	uint8_t *outcome;    /* per event: simulated outcome */
	int32_t *woken_by;   /* per sem or cond wait: the post or signal that let it pass, -1 */
	int32_t *stuck;      /* events that could not execute: each blocked thread's next */
	int32_t nr_stuck;
	int64_t end_ns;      /* when the last thread ended */
	uint64_t elapsed_ns; /* the simulation's own wall time (mtx probe-effect -v) */
};

/*
 * probe_simulate - simulate @run under @model into @sim (free it with
 * probe_sim_free). The same input gives the same output. Returns 0 or
 * -ENOMEM.
 */
int probe_simulate(const struct probe_run *run, enum probe_model model, struct probe_sim *sim);

void probe_sim_free(struct probe_sim *sim);

/* probe_model_name - "smp" or "up-prio"; probe_model_parse the reverse (-1). */
const char *probe_model_name(enum probe_model model);
int probe_model_parse(const char *text);

#endif
