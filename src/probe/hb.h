/*
 * src/probe/hb.h - the happened-before graph of a run's sync events (seed
 * 004 §3.2, SEEDS-MAP P3): vertices are the events (tid, k) with their
 * outcome, edges their logical dependencies. The same rules build G^I
 * from the observed order and G^S from the simulated one (simulate.h),
 * so that the two can only differ where the orders do.
 *
 * Edges (P3's numbering): 1 program order; 2 an unlock -> the next
 * acquisition of the lock; 3 rwlock: a write unlock -> the reads taken
 * before the next write lock, the last unlock -> a write lock; 4 the post
 * that supplied a unit -> the wait that took it; 5 a cond signal or
 * broadcast -> each wait it woke (and rule 2 for the mutex taken back);
 * 6 every arrival of a barrier's generation -> every other departure of
 * it; 7 create -> the child's first event, the child's last -> the join;
 * 8 tgkill/pthread_kill -> the target's next event; 9 T_0 (PROBE_T0: an
 * interrupt, a timer, another process) -> a sem or cond wait it woke that
 * no traced post or signal let pass; 10 the acquisition that held a lock
 * -> a failed trylock (or a timed lock that timed out); 11 T_0's timer
 * expiry -> a timed wait or lock that timed out. T_0's events keep their
 * observed times in a simulation (P4), so rules 9 and 11 differ between
 * two orders only where the event's outcome or its traced waker does.
 */
#ifndef MTX_PROBE_HB_H
#define MTX_PROBE_HB_H

#include "src/probe/run.h"

#include <stdbool.h>
#include <stdint.h>

enum probe_edge {
	PE_PROGRAM, PE_LOCK, PE_TRYLOCK, PE_SEM, PE_COND, PE_BARRIER, PE_CREATE, PE_JOIN, PE_KILL, PE_T0_WAKE,
	PE_TIMEOUT
};

/* An order of the run is a sequence of actions: event e entering its
 * function (PROBE_ENTER(e)) or happening (PROBE_HAPPEN(e)). */
#define PROBE_ENTER(e) ((e) * 2)
#define PROBE_HAPPEN(e) ((e) * 2 + 1)
#define PROBE_ACTION_EVENT(a) ((a) / 2)
#define PROBE_ACTION_IS_HAPPEN(a) ((a) & 1)

struct probe_graph {
	int32_t nr_events;
	int32_t *in_first;   /* event e's sources are in_src[in_first[e] .. in_first[e + 1]) */
	int32_t *in_src;     /* sorted, each once */
	uint8_t *in_kind;    /* enum probe_edge, per source */
	uint8_t *outcome;    /* enum probe_outcome per event */
	uint8_t *happened;   /* the event is in the order */
	int32_t *woken_by;   /* sem or cond wait: the post or signal that let it pass, or -1 */
	int64_t nr_edges;
};

/*
 * hb_observed_order - the run's actions in observed time order (an op's
 * entry at start_ns, its event at end_ns; at one instant entries first,
 * then releases, then the rest, each by op id), 2 * nr_events of them in
 * a new array (caller frees). Returns 0 or -ENOMEM.
 */
int hb_observed_order(const struct probe_run *run, int32_t **actions);

/*
 * hb_build - the graph of the order @actions (@nr_actions of them; events
 * missing from it are vertices without edges, happened[] 0) into @g.
 * @outcome: each event's outcome in that order. @woken_by: which post or
 * signal let each sem or cond wait pass, as the simulator decided it; NULL
 * for the observed run, where it is matched here: a wait that blocked
 * takes a unit of the thread that woke it (wakeups), else the oldest unit
 * (FIFO); a signal wakes the waiter its thread woke, else the waiter that
 * returned first. Returns 0 or -ENOMEM (free @g with hb_free either way).
 */
int hb_build(const struct probe_run *run, const int32_t *actions, int32_t nr_actions, const uint8_t *outcome,
	     const int32_t *woken_by, struct probe_graph *g);

void hb_free(struct probe_graph *g);

/*
 * hb_build_observed - the observed order (hb_observed_order) into a new
 * *@actions (caller frees) and G^I, its graph with the recorded outcomes,
 * into @gi (free with hb_free either way). Returns 0 or -ENOMEM.
 */
int hb_build_observed(const struct probe_run *run, int32_t **actions, struct probe_graph *gi);

/* hb_same_vertex - whether event @e has the same outcome and the same
 * sources of incoming edges in @a and @b. */
bool hb_same_vertex(const struct probe_graph *a, const struct probe_graph *b, int32_t e);

/* hb_has_edge - whether @g has the edge @src -> @dst. */
bool hb_has_edge(const struct probe_graph *g, int32_t src, int32_t dst);

/* hb_edge_name - "program", "lock", "post", ... for enum probe_edge @kind. */
const char *hb_edge_name(int kind);

#endif
