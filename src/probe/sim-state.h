/*
 * src/probe/sim-state.h - the simulator's state, shared by its two halves:
 * simulate.c (the clock, the CPUs and the scheduler: 004 Fig. 7) and
 * sim-objects.c (what each call does to its object: 004 Fig. 6). Private
 * to src/probe/.
 */
#ifndef MTX_PROBE_SIM_STATE_H
#define MTX_PROBE_SIM_STATE_H

#include "src/probe/run.h"
#include "src/probe/simulate.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum thread_state { T_NEW, T_READY, T_RUNNING, T_OFF, T_PENDING, T_DONE };
/* What a wake entry is: a thread's happening, or T_0's (H_IRQ, thread
 * T0_THREAD: the next of the run's irqs takes its CPU). */
enum wake { H_START, H_STOP, H_OFF_END, H_DEADLINE, H_IRQ };
#define T0_THREAD (-1)

struct sim_thread {
	int state;
	int cpu;
	int32_t done;      /* events executed */
	int32_t piece;     /* current piece (global index) */
	int64_t left;      /* ns left of it */
	int64_t since;     /* start of the current CPU stint: later than now while the CPU
	                    * is still switching to it or busy with an interrupt */
	int64_t slice_end; /* SMP: when its slice of CPU ends, if others wait */
	int64_t cpu_ns;    /* simulated CPU time */
	int64_t vruntime;  /* the SMP model's key: CPU time, placed as CFS places wakers */
	int64_t ready_seq; /* FIFO order among equals */
	uint32_t gen;      /* wakes scheduled before a change are stale */
	int32_t waiting;   /* the event it is pending in, or -1 */
};

struct wake_entry {
	int64_t ns;
	uint64_t seq;
	int32_t thread;
	uint32_t gen;
	uint8_t type;
};

struct queue { /* waiters by priority, FIFO among equals */
	int32_t *v;
	size_t len, cap;
};

struct holder {
	int32_t thread, depth;
	bool write;
};

struct object_state {
	struct holder *h;   /* lock holders */
	size_t nr_h, cap_h;
	struct queue waiters;
	int32_t *units;     /* sem: where each unit came from (a post, or -1) */
	size_t units_head, units_len, units_cap;
	struct queue arrived; /* barrier */
};

struct sim {
	const struct probe_run *run;
	struct probe_sim *out;
	enum probe_model model;
	int64_t now;
	struct sim_thread *t;
	struct object_state *obj;
	struct queue *joiners;   /* per thread */
	int32_t *cpu_thread;     /* per CPU: the running thread or -1 */
	int64_t *cpu_free_at;    /* per CPU: when T_0's handlers leave it */
	int32_t next_irq;        /* the run's next irq to arrive */
	struct wake_entry *heap;
	size_t heap_len, heap_cap;
	uint64_t seq;
	int64_t ready_next, ready_first; /* ready_seq at the tail, and at the head (preempted, up-prio) */
	int64_t min_vruntime;    /* the least vruntime of the threads on a CPU or ready, never decreasing */
	int32_t *ready;          /* the ready threads, unordered */
	int32_t nr_ready;
	int32_t in_func;         /* the thread whose event function runs now, or -1: it
	                          * is preempted only once the function is done (004 §4.3) */
	bool woke_in_func;       /* a thread became ready while in_func ran */
	bool any_affinity;       /* some segment names its CPUs (run.h segment_cpus) */
	size_t actions_cap;
	int rc;
};

/* A thread's priority now: its segment's (run.h). */
static inline int sim_priority(const struct sim *s, int32_t thread)
{
	return s->run->segment_priority[s->run->threads[thread].first_segment + s->t[thread].done];
}

/* simulate.c */
/* sim_record - @action (hb.h) joins the simulated order. */
void sim_record(struct sim *s, int32_t action);
/* sim_happen - event @e happens now; its thread moves on (a pending one
 * becomes ready). */
void sim_happen(struct sim *s, int32_t e);
/* sim_block - @thread leaves its CPU, pending in event @e. */
void sim_block(struct sim *s, int32_t thread, int32_t e);
/* sim_make_ready - @thread can run (at the head of its priority when
 * preempted under up-prio). */
void sim_make_ready(struct sim *s, int32_t thread, bool at_head);
/* sim_wake_at - wake @thread (a wake of @type) at @ns, unless it moves
 * on before. */
void sim_wake_at(struct sim *s, int32_t thread, int64_t ns, int type);

/* sim-objects.c */
/* sim_enter_func - @thread enters the function of event @e now:
 * enter_func and, unless it blocks, execute_event. */
void sim_enter_func(struct sim *s, int32_t thread, int32_t e);
/* sim_reacquire - a woken or timed-out cond wait @e takes its mutex back. */
void sim_reacquire(struct sim *s, int32_t e);
/* sim_sem_reset - semaphore @o holds @units initial units. */
void sim_sem_reset(struct sim *s, struct object_state *o, int64_t units);
/* sim_enqueue / sim_dequeue - a wait queue by priority, FIFO among equals. */
void sim_enqueue(struct sim *s, struct queue *q, int32_t e);
int32_t sim_dequeue(struct queue *q);

#endif
