/*
 * collector/live-search.h - mtx collect --consultant: the Performance
 * Consultant's search while the program runs (SEEDS-MAP S8; the search
 * itself is src/derived/consultant.h's, live).
 *
 * It starts cheap: the scheduler and the library's sync records. Every
 * LIVE_SEARCH_EVERY_NS it hands the search the run so far, added up from
 * the thread model (each thread's states and I/O ops, the ended ones'
 * too), the live totals (each thread's lock waits on each object, by the
 * function that called the lock, collector/live.h) and the CPU samples
 * (each thread's, by the functions on their stacks). What an experiment
 * needs beyond that it switches through @in (reason consultant): the
 * syscalls source for the I/O hypotheses, the CPU samples to place CPU
 * time in the code (unless --sample keeps them on all along). Each is
 * costed from the calibrated cost of its records at their rate, predicted
 * before it goes on and observed each round; past --overhead-budget it is
 * refused, or switched off (reason budget) and its experiments withdrawn.
 */
#ifndef MTX_COLLECTOR_LIVE_SEARCH_H
#define MTX_COLLECTOR_LIVE_SEARCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "src/derived/consultant.h"

struct mtx_model;
struct mtx_live;
struct mtx_instrument;
struct pc_search;
struct live_search;

/* How often the search is handed the run so far. */
#define LIVE_SEARCH_EVERY_NS 250000000ull

/* What the search is told: its thresholds and timing, its budget (% of a
 * CPU, 0: none), how long it lasts (0: the whole run), and the samples'
 * rate and whether it switches them (not when --sample keeps them on). */
struct live_search_options {
	struct pc_tunables tunables;
	double budget_pct;
	uint64_t search_ns;
	unsigned sample_hz;
	bool samples_switched;
	int nr_cpus; /* the machine's (/Machine: whether CPUs are singled out) */
};

/*
 * live_search_new - a search under @o of the run that began at @start_ns,
 * as @m and @live add it up (@profile names the functions that called the
 * locks), switching @in's sources. NULL when out of memory. Call before
 * the program starts: it keeps the threads that end.
 */
struct mtx_profile;
struct live_search *live_search_new(struct mtx_model *m, struct mtx_profile *profile, struct mtx_live *live,
				    struct mtx_instrument *in, const struct live_search_options *o, uint64_t start_ns);

/* live_search_tick - every round: the stream has gone by every event
 * before @stream_ns. */
void live_search_tick(struct live_search *ls, uint64_t stream_ns);

/* live_search_end - the search ends (the run did, or its time is up):
 * what it switched on goes off, and it says what it found on stderr. */
void live_search_end(struct live_search *ls, uint64_t stream_ns);

/* live_search_reply - the search so far, for mtx ctl SOCK live (a
 * live_more_fn: @ctx is the search): ", \"search\": [nodes]", each node
 * {id, depth, hypothesis, focus, status (true, false, observing,
 * untested), value (once concluded), threshold}, in the graph's order. */
void live_search_reply(void *ctx, FILE *out);

/* live_search_take - the search, for run.db's pc_nodes (the caller frees
 * it: pc_search_free); NULL when it failed. */
struct pc_search *live_search_take(struct live_search *ls);

void live_search_free(struct live_search *ls);

#endif
