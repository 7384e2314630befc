/*
 * src/probe/verdict.h - G^S against G^I (seed 004 §3.4, Theorem 1;
 * SEEDS-MAP P5): walk the simulated total order; the first event whose
 * outcome or incoming edges differ from the same (tid, k) in G^I, or that
 * the simulation could not execute, is the first divergent event e_d;
 * the events before it are the trustworthy prefix. Also the timestamp
 * inversions of 004 Fig. 8, and the results stored in run.db.
 */
#ifndef MTX_PROBE_VERDICT_H
#define MTX_PROBE_VERDICT_H

#include "src/probe/hb.h"
#include "src/probe/run.h"
#include "src/probe/simulate.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

/* Events each side of e_d (in each total order) that the views show as
 * its window (mtx probe-effect's text, the browser's probe-effect view). */
#define PROBE_WINDOW_HALF 6

struct probe_verdict {
	bool divergent;
	int32_t first;          /* e_d, or -1 */
	bool cannot_execute;    /* e_d never executed in the simulation */
	int32_t trustworthy;    /* events before e_d in the simulated order (all when equal) */
	/* the trustworthy prefix's span: its events' earliest and latest
	 * times in the simulation and as observed; -1 when it is empty */
	int64_t trust_sim_from_ns, trust_sim_to_ns;
	int64_t trust_obs_from_ns, trust_obs_to_ns;
	int64_t inversions;     /* see probe_inversions */
	int32_t *by_obs;        /* the events in observed order of happening */
	int32_t *by_sim;        /* the events in simulated order (nr_sim of them) */
	int32_t nr_sim;
	int32_t *obs_rank;      /* per event: 1-based place in by_obs */
	int32_t *sim_rank;      /* per event: 1-based place in by_sim, 0 never happened */
};

/*
 * probe_verdict_make - compare @gi (the observed graph, of the order
 * @obs_actions) with @gs (the graph of @sim's order) into @v (free with
 * probe_verdict_free), and count the inversions. Returns 0 or -ENOMEM.
 */
int probe_verdict_make(const struct probe_run *run, const int32_t *obs_actions, const struct probe_graph *gi,
		       const struct probe_graph *gs, const struct probe_sim *sim, struct probe_verdict *v);

void probe_verdict_free(struct probe_verdict *v);

/*
 * probe_verdict_simulate - the steps of mtx probe-effect after G^I:
 * simulate @run under @model into @sim, build G^S into @gs and compare it
 * with @gi, the graph of the observed order @obs (hb_build_observed),
 * into @v. Free the three either way. Returns 0 or -ENOMEM.
 */
int probe_verdict_simulate(const struct probe_run *run, enum probe_model model, const int32_t *obs,
			   const struct probe_graph *gi, struct probe_sim *sim, struct probe_graph *gs,
			   struct probe_verdict *v);

/*
 * probe_inversions - the timestamp inversions of the trustworthy prefix
 * (every executed event when the graphs are equal): pairs of events on
 * different threads, both in the prefix, whose order of happening differs
 * between the observed and the simulated run. Their incoming edges are the
 * same in both graphs, so none of them changed the partial order (004
 * Fig. 8). Counted by a merge sort, O(n log n). Up to @max of the pairs
 * (each: the event first in the observed run, then the other) go to
 * @pairs when not NULL, how many in *@nr_listed. Returns the count, or
 * -ENOMEM.
 */
int64_t probe_inversions(const struct probe_run *run, const struct probe_verdict *v, int32_t (*pairs)[2],
			 int64_t max, int64_t *nr_listed);

/*
 * probe_store - keep the results in run.db: the tables probe_effect (one
 * row per model, with the model's parameters), sim_events (one row per
 * event and model) and sim_edges (G^S, @gs, one row per edge and model,
 * each marked with whether @gi, G^I, has it), created if missing
 * (schema/probe.sql; an older file's probe_effect gets the columns added
 * since), the model's earlier rows replaced, in one transaction. Recorded
 * tables are never touched. Returns 0, or -errno with a message in @err
 * (caller frees).
 */
int probe_store(sqlite3 *db, const struct probe_run *run, const struct probe_sim *sim, const struct probe_graph *gi,
		const struct probe_graph *gs, const struct probe_verdict *v, char **err);

#endif
