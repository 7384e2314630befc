/*
 * src/probe/run.h - a run's synchronization events, read once from run.db
 * into memory, in the form the probe-effect analysis (seed 004) needs:
 * per thread, its completed sync events (tid, k) and, between them, the
 * segments of its own execution measured on its own CPU clock (running
 * time from thread_states), as observed, or each less the overhead of the
 * op that ends it (sync_ops.overhead_ns) once probe_run_remove_overhead
 * has run. The happened-before graph (hb.h), the
 * simulator (simulate.h) and the verdict (verdict.h) all read this.
 */
#ifndef MTX_PROBE_RUN_H
#define MTX_PROBE_RUN_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What an event does to its object, as the model sees it (004 Fig. 6). */
enum probe_action {
	PA_OTHER,        /* init, destroy, detach, exit, open, close, ...: no resource */
	PA_LOCK,         /* mutex or spinlock lock, rwlock wrlock: exclusive acquisition */
	PA_RDLOCK,       /* rwlock rdlock: shared acquisition */
	PA_UNLOCK,
	PA_COND_WAIT,    /* releases arg's mutex on entry, takes it back when woken */
	PA_COND_SIGNAL,
	PA_COND_BROADCAST,
	PA_SEM_WAIT,
	PA_SEM_POST,
	PA_SEM_INIT,     /* also sem open: arg is the initial value */
	PA_BARRIER_WAIT,
	PA_BARRIER_INIT, /* arg is the count */
	PA_CREATE,
	PA_JOIN,
	PA_KILL,         /* tgkill, pthread_kill, raise: arg is the target tid */
};

/* The system thread T_0 (seed 004 §3.2: interrupts, timers, other
 * processes) as the source of an edge (hb.h rules 9 and 11): not an
 * event of the run, so no index into probe_run.events. */
#define PROBE_T0 (-2)

/* Ways an event can end: the outcome is part of a vertex's identity. */
enum probe_outcome { PO_FAIL = 0, PO_OK = 1 };

struct probe_event {
	int64_t op_id;
	int64_t start_ns, end_ns; /* observed: "T enters f" and "e happens" */
	int64_t overhead_ns;      /* removed from the segment before it */
	int64_t arg;
	int32_t thread;           /* index in probe_run.threads */
	int32_t k;                /* 1 for the thread's first event */
	int32_t object;           /* index in probe_run.objects */
	int32_t peer;             /* create/join: the thread; cond wait: the mutex
	                           * object; kill: the target thread; else -1 */
	int32_t waker;            /* observed: the thread that woke it when it
	                           * blocked (wakeups), else -1 */
	const char *op;           /* sync_ops.op (static storage) */
	uint8_t action;           /* enum probe_action */
	uint8_t try_op;           /* cannot block: trylock, trywait, ... */
	uint8_t timed;            /* timed form: may time out */
	uint8_t blocked;          /* sync_ops.blocked */
	uint8_t outcome;          /* observed: enum probe_outcome */
	uint8_t serial;           /* barrier wait that returned PTHREAD_BARRIER_SERIAL_THREAD */
	uint8_t woken_by_t0;      /* observed: it blocked, and the wakeup that ended
	                           * the wait came from outside the traced threads
	                           * (an interrupt, a timer, another process) */
};

struct probe_thread {
	int64_t tid;
	char *name;
	int64_t start_ns, end_ns;
	int32_t first;           /* its first event's index in probe_run.events */
	int32_t nr_events;
	int32_t creator;         /* the create event that made it, or -1 */
	int32_t first_segment;   /* nr_events + 1 segments: before each event, then the rest */
};

/* An interrupt handler (or softirq, or timer expiry: T_0, seed 004 §3.2)
 * that took a CPU from a traced thread while it ran: its time is not the
 * thread's (it is out of the segments), and the simulation gives the CPU
 * to T_0 for it at its observed time. Nested handlers are one interval. */
struct probe_irq {
	int64_t start_ns, end_ns;
	int32_t cpu;
};

struct probe_object {
	int64_t id, addr;
	const char *kind;        /* sync_objects.kind (static storage) */
	int64_t initial;         /* sem: units at the start; barrier: count (0 unknown) */
};

/*
 * A segment of a thread's execution is a run of pieces: CPU time (> 0,
 * the thread's own running time, less the interrupts that took its CPU)
 * and off-CPU time outside the model (< 0: a sleep, blocking I/O, a wait
 * on something not traced), which the simulation keeps at its observed
 * duration, or, when T_0 ended it (piece_until: data from another
 * process, a device's interrupt), until its observed end. Runnable time
 * is not kept: the simulator decides when a thread waits for a CPU.
 * Each segment also has the priority and CPUs its thread had when the
 * segment's event began (thread_sched).
 */
struct probe_run {
	struct probe_thread *threads;
	int32_t nr_threads;
	struct probe_event *events; /* by thread, then k */
	int32_t nr_events;
	struct probe_object *objects;
	int32_t nr_objects;
	int64_t *pieces;
	int64_t *piece_until;       /* per piece: an off-CPU piece's observed end when T_0 ended it, else -1 */
	int32_t *segment_pieces;    /* segment s is pieces [segment_pieces[s], segment_pieces[s + 1]) */
	int32_t nr_segments;
	int32_t *segment_priority;  /* per segment: thread_sched's priority, else 0 */
	uint64_t *segment_cpus;     /* per segment: the CPUs allowed (bit n: CPU n), 0: any */
	struct probe_irq *irqs;     /* by start */
	int32_t nr_irqs;
	int64_t irq_ns;             /* their time, taken out of the threads' CPU time */
	bool irqs_recorded;         /* the run has the interrupts source */
	int32_t t0_instants;        /* off-CPU pieces that end at T_0's observed time */
	int64_t sched_switch_ns;    /* meta cal_sched_switch_ns: a context switch, 0 unknown */
	int64_t *segment_kernel_ns; /* per segment: the calibrated cost of the kernel's records
	                             * for mtx in it (run-kernel.c) */
	int64_t kernel_ns;          /* their sum */
	int64_t kernel_removed_ns;  /* of which removed (a segment cannot go below 0) */
	int nr_cpus;                /* meta nr_cpus, 1 if absent */
	int64_t origin_ns;          /* the run's start: times are shown from here */
	bool overhead_recorded;     /* sync_ops.overhead_ns exists and holds values */
	bool priorities_recorded;   /* thread_sched gave priorities */
	int64_t overhead_ns;        /* sum of overhead_ns over the events */
	bool overhead_removed;      /* probe_run_remove_overhead has run */
	int64_t overhead_removed_ns;/* of which removed (a segment cannot go below 0) */
	int64_t cpu_ns;             /* the threads' CPU time before removal */
	char *inject;               /* meta inject_overhead, or NULL */
};

/*
 * probe_run_load - read @db's sync events, threads, objects, running
 * intervals and wakeups into a new probe_run (caller frees with
 * probe_run_free). Unfinished ops (sync_ops.unfinished) are not events.
 * Returns 0, or -errno with a one-line message in @err (caller frees):
 * -ENODATA when the run holds no sync ops.
 */
int probe_run_load(sqlite3 *db, struct probe_run **out, char **err);

void probe_run_free(struct probe_run *run);

/* probe_run_remove_overhead - take each event's overhead_ns off the CPU
 * pieces of the segment before it, from its end (the wrapper ran just
 * before the call), then each segment's kernel records' cost, none below
 * 0; once. */
void probe_run_remove_overhead(struct probe_run *run);

/* probe_event_label - "name#k" of event @e, in a buffer of @size bytes;
 * "T_0" for PROBE_T0. */
const char *probe_event_label(const struct probe_run *run, int32_t e, char *buf, size_t size);

/* probe_event_tid, probe_event_k - event @e's (tid, k); (0, 0) for
 * PROBE_T0, the system thread. */
int64_t probe_event_tid(const struct probe_run *run, int32_t e);
int32_t probe_event_k(const struct probe_run *run, int32_t e);

/* probe_run_load_kernel_costs - fill @run's segment_kernel_ns and
 * kernel_ns from @db (run-kernel.c); once its segments are built. Returns
 * 0, or -errno with a message in @err. */
int probe_run_load_kernel_costs(sqlite3 *db, struct probe_run *run, char **err);

/* probe_run_thread_at - the index of @tid's thread row alive at @ts_ns
 * (the last that began by then, else its first), or -1 when @run has no
 * thread @tid. */
int32_t probe_run_thread_at(const struct probe_run *run, int64_t tid, int64_t ts_ns);

/* probe_action_name - the model's word for an action ("lock", "post", ...). */
const char *probe_action_name(enum probe_action a);

#endif
