/* src/probe/verdict.c - see verdict.h. */
#include "config.h"
#include "src/probe/verdict.h"
#include "schema/schema.h"
#include "src/db.h"
#include "src/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void probe_verdict_free(struct probe_verdict *v)
{
	free(v->by_obs), free(v->by_sim), free(v->obs_rank), free(v->sim_rank);
	memset(v, 0, sizeof(*v));
}

/* The earliest and latest time of the trustworthy prefix's events in
 * each run; -1 when it has none. */
static void prefix_span(const struct probe_run *run, const struct probe_sim *sim, struct probe_verdict *v)
{
	v->trust_sim_from_ns = v->trust_sim_to_ns = v->trust_obs_from_ns = v->trust_obs_to_ns = -1;
	for (int32_t i = 0; i < v->trustworthy; i++) {
		int32_t e = v->by_sim[i];
		int64_t s = sim->happen_ns[e], o = run->events[e].end_ns;
		if (!i || s < v->trust_sim_from_ns)
			v->trust_sim_from_ns = s;
		if (!i || s > v->trust_sim_to_ns)
			v->trust_sim_to_ns = s;
		if (!i || o < v->trust_obs_from_ns)
			v->trust_obs_from_ns = o;
		if (!i || o > v->trust_obs_to_ns)
			v->trust_obs_to_ns = o;
	}
}

int probe_verdict_make(const struct probe_run *run, const int32_t *obs_actions, const struct probe_graph *gi,
		       const struct probe_graph *gs, const struct probe_sim *sim, struct probe_verdict *v)
{
	size_t n = (size_t)run->nr_events + 1;
	int32_t nr_obs = 0;
	memset(v, 0, sizeof(*v));
	v->first = -1;
	v->by_obs = malloc(n * sizeof(int32_t));
	v->by_sim = malloc(n * sizeof(int32_t));
	v->obs_rank = calloc(n, sizeof(int32_t));
	v->sim_rank = calloc(n, sizeof(int32_t));
	if (!v->by_obs || !v->by_sim || !v->obs_rank || !v->sim_rank) {
		probe_verdict_free(v);
		return -ENOMEM;
	}
	for (int32_t i = 0; i < 2 * run->nr_events; i++)
		if (PROBE_ACTION_IS_HAPPEN(obs_actions[i])) {
			int32_t e = PROBE_ACTION_EVENT(obs_actions[i]);
			v->by_obs[nr_obs++] = e;
			v->obs_rank[e] = nr_obs;
		}
	for (int32_t i = 0; i < sim->nr_actions; i++)
		if (PROBE_ACTION_IS_HAPPEN(sim->actions[i])) {
			int32_t e = PROBE_ACTION_EVENT(sim->actions[i]);
			v->by_sim[v->nr_sim++] = e;
			v->sim_rank[e] = v->nr_sim;
		}
	/* Theorem 1's comparison, in the simulated total order. */
	for (int32_t i = 0; i < v->nr_sim && v->first < 0; i++)
		if (!hb_same_vertex(gi, gs, v->by_sim[i]))
			v->first = v->by_sim[i];
	if (v->first < 0 && sim->nr_stuck) { /* the first, as observed, that could not go on */
		v->first = sim->stuck[0];
		for (int32_t i = 1; i < sim->nr_stuck; i++)
			if (v->obs_rank[sim->stuck[i]] < v->obs_rank[v->first])
				v->first = sim->stuck[i];
		v->cannot_execute = true;
	}
	v->divergent = v->first >= 0;
	v->trustworthy = !v->divergent ? v->nr_sim : v->cannot_execute ? v->nr_sim : v->sim_rank[v->first] - 1;
	prefix_span(run, sim, v);
	int64_t count = probe_inversions(run, v, NULL, 0, NULL);
	if (count < 0) {
		probe_verdict_free(v);
		return -ENOMEM;
	}
	v->inversions = count;
	return 0;
}

int probe_verdict_simulate(const struct probe_run *run, enum probe_model model, const int32_t *obs,
			   const struct probe_graph *gi, struct probe_sim *sim, struct probe_graph *gs,
			   struct probe_verdict *v)
{
	int rc = probe_simulate(run, model, sim);
	if (!rc)
		rc = hb_build(run, sim->actions, sim->nr_actions, sim->outcome, sim->woken_by, gs);
	if (!rc)
		rc = probe_verdict_make(run, obs, gi, gs, sim, v);
	return rc;
}

struct inversion_pass {
	const struct probe_run *run;
	int32_t (*pairs)[2];
	int64_t max, nr_pairs;
	int32_t *tmp;
	const int32_t *key; /* sim_rank */
};

/* Sort @a (@n events) by key, counting the pairs it puts the other way
 * round, and noting those on different threads up to max. */
static int64_t merge_count(struct inversion_pass *p, int32_t *a, int32_t n)
{
	int32_t half = n / 2, i = 0, j = half, out = 0;
	int64_t count;
	if (n < 2)
		return 0;
	count = merge_count(p, a, half) + merge_count(p, a + half, n - half);
	while (i < half && j < n) {
		if (p->key[a[i]] <= p->key[a[j]]) {
			p->tmp[out++] = a[i++];
			continue;
		}
		/* a[j] goes before every a[i..half) */
		count += half - i;
		for (int32_t x = i; p->pairs && x < half && p->nr_pairs < p->max; x++)
			if (p->run->events[a[x]].thread != p->run->events[a[j]].thread) {
				p->pairs[p->nr_pairs][0] = a[x];
				p->pairs[p->nr_pairs++][1] = a[j];
			}
		p->tmp[out++] = a[j++];
	}
	while (i < half)
		p->tmp[out++] = a[i++];
	while (j < n)
		p->tmp[out++] = a[j++];
	memcpy(a, p->tmp, (size_t)n * sizeof(*a));
	return count;
}

int64_t probe_inversions(const struct probe_run *run, const struct probe_verdict *v, int32_t (*pairs)[2], int64_t max,
			 int64_t *nr_listed)
{
	size_t n = (size_t)run->nr_events + 1;
	struct inversion_pass p = { .run = run, .pairs = pairs, .max = max, .key = v->sim_rank };
	int32_t *seq = malloc(n * sizeof(*seq)), *by_thread = malloc(n * sizeof(*by_thread));
	int32_t *start = calloc((size_t)run->nr_threads + 2, sizeof(*start));
	int32_t len = 0;
	int64_t count;

	p.tmp = malloc(n * sizeof(*p.tmp));
	if (!seq || !by_thread || !start || !p.tmp) {
		free(seq), free(by_thread), free(start), free(p.tmp);
		return -ENOMEM;
	}
	/* the prefix, in observed order */
	for (int32_t i = 0; i < run->nr_events; i++) {
		int32_t e = v->by_obs[i], r = v->sim_rank[e];
		if (r && r <= v->trustworthy)
			seq[len++] = e;
	}
	/* the same per thread, whose pairs are not counted (a thread's events
	 * keep their order but for ops nested by signal handlers) */
	for (int32_t i = 0; i < len; i++)
		start[run->events[seq[i]].thread + 2]++;
	for (int32_t t = 0; t < run->nr_threads; t++)
		start[t + 2] += start[t + 1];
	for (int32_t i = 0; i < len; i++)
		by_thread[start[run->events[seq[i]].thread + 1]++] = seq[i];
	count = merge_count(&p, seq, len);
	p.pairs = NULL;
	for (int32_t t = 0, at = 0; t < run->nr_threads; t++) {
		count -= merge_count(&p, by_thread + at, start[t + 1] - at);
		at = start[t + 1];
	}
	free(seq), free(by_thread), free(start), free(p.tmp);
	if (nr_listed)
		*nr_listed = pairs ? p.nr_pairs : 0;
	return count;
}

static int store_fail(sqlite3 *db, char **err)
{
	error_set(err, "storing the results: %s", sqlite3_errmsg(db));
	db_exec(db, "ROLLBACK", NULL);
	return sqlite3_errcode(db) == SQLITE_FULL ? -ENOSPC : -EIO;
}

/* Delete the rows of @model from @table (a name of schema/probe.sql's). */
static int delete_model(sqlite3 *db, const char *table, const char *model)
{
	char *sql = sqlite3_mprintf("DELETE FROM %s WHERE model = ?1", table);
	sqlite3_stmt *st = NULL;
	int ok = sql && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK;

	sqlite3_free(sql);
	if (ok) {
		sqlite3_bind_text(st, 1, model, -1, SQLITE_STATIC);
		ok = sqlite3_step(st) == SQLITE_DONE;
	}
	sqlite3_finalize(st);
	return ok ? 0 : -EIO;
}

/* The tables as schema/probe.sql has them now: created if missing, and
 * the columns added since given to an older file's (NULL in old rows). */
static int create_tables(sqlite3 *db)
{
	if (db_exec(db, schema_probe_sql, NULL))
		return -EIO;
	if (!db_has_column(db, "probe_effect", "params") &&
	    db_exec(db, "ALTER TABLE probe_effect ADD COLUMN params TEXT", NULL))
		return -EIO;
	return 0;
}

/*
 * What the model was given, as a JSON object for probe_effect.params: the
 * model, the CPUs, the overhead measured and removed (the wrappers', then
 * the kernel records'), the scheduler's cost per switch (0: none
 * calibrated), the smp model's slice and wake-up granularity, whether
 * priorities were recorded, --inject-overhead as the run had it, and
 * T_0's interrupts given back and waits ended at its instants.
 */
#define PARAMS_SQL                                                                                        \
	"json_object('model', ?1, 'cpus', ?4, 'overhead_ns', ?10, 'overhead_removed_ns', ?11, "            \
	"'kernel_ns', ?16, 'kernel_removed_ns', ?17, "                                                     \
	"'scheduler_ns', ?18, 'slice_ns', ?12, 'wakeup_granularity_ns', ?13, 'priorities', ?14, "           \
	"'inject_overhead', ?15, 'interrupts', ?19, 'interrupts_ns', ?20, 't0_instants', ?21)"

static int insert_verdict(sqlite3 *db, const struct probe_run *run, const struct probe_sim *sim,
			  const struct probe_verdict *v)
{
	const struct probe_event *d = v->first >= 0 ? &run->events[v->first] : NULL;
	bool smp = sim->model == PROBE_MODEL_SMP;
	sqlite3_stmt *st = NULL;
	int ok;

	if (sqlite3_prepare_v2(db,
			       "INSERT INTO probe_effect (model, verdict, events, nr_cpus, e_d_tid, e_d_k, e_d_op_id, "
			       "prefix_events, inversions, overhead_ns, overhead_removed_ns, params) "
			       "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, " PARAMS_SQL ")",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(st, 1, probe_model_name(sim->model), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, v->divergent ? "divergent" : "equal", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, run->nr_events);
	sqlite3_bind_int(st, 4, sim->nr_cpus);
	db_bind_int_or_null(st, 5, d ? run->threads[d->thread].tid : 0, d != NULL);
	db_bind_int_or_null(st, 6, d ? d->k : 0, d != NULL);
	db_bind_int_or_null(st, 7, d ? d->op_id : 0, d != NULL);
	sqlite3_bind_int64(st, 8, v->trustworthy);
	sqlite3_bind_int64(st, 9, v->inversions);
	db_bind_int_or_null(st, 10, run->overhead_ns, run->overhead_recorded);
	sqlite3_bind_int64(st, 11, run->overhead_removed_ns);
	db_bind_int_or_null(st, 12, PROBE_SMP_SLICE_NS, smp);
	db_bind_int_or_null(st, 13, PROBE_SMP_WAKEUP_GRANULARITY_NS, smp);
	sqlite3_bind_text(st, 14, run->priorities_recorded ? "recorded" : "none recorded", -1, SQLITE_STATIC);
	db_bind_text_or_null(st, 15, run->inject);
	sqlite3_bind_int64(st, 16, run->kernel_ns);
	sqlite3_bind_int64(st, 17, run->kernel_removed_ns);
	sqlite3_bind_int64(st, 18, run->sched_switch_ns);
	db_bind_int_or_null(st, 19, run->nr_irqs, run->irqs_recorded);
	db_bind_int_or_null(st, 20, run->irq_ns, run->irqs_recorded);
	sqlite3_bind_int(st, 21, run->t0_instants);
	ok = sqlite3_step(st) == SQLITE_DONE;
	sqlite3_finalize(st);
	return ok ? 0 : -EIO;
}

static int insert_events(sqlite3 *db, const struct probe_run *run, const struct probe_sim *sim,
			 const struct probe_verdict *v)
{
	sqlite3_stmt *st = NULL;
	int ok = 1;

	if (sqlite3_prepare_v2(db,
			       "INSERT INTO sim_events (model, op_id, tid, k, ht_obs_ns, ht_sim_ns, order_obs, "
			       "order_sim, outcome_sim) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(st, 1, probe_model_name(sim->model), -1, SQLITE_STATIC);
	for (int32_t e = 0; ok && e < run->nr_events; e++) {
		const struct probe_event *ev = &run->events[e];
		sqlite3_bind_int64(st, 2, ev->op_id);
		sqlite3_bind_int64(st, 3, run->threads[ev->thread].tid);
		sqlite3_bind_int(st, 4, ev->k);
		sqlite3_bind_int64(st, 5, ev->end_ns);
		db_bind_int_or_null(st, 6, sim->happen_ns[e], sim->happen_ns[e] >= 0);
		sqlite3_bind_int(st, 7, v->obs_rank[e]);
		db_bind_int_or_null(st, 8, v->sim_rank[e], v->sim_rank[e] > 0);
		db_bind_int_or_null(st, 9, sim->outcome[e] == PO_OK, v->sim_rank[e] > 0);
		ok = sqlite3_step(st) == SQLITE_DONE;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return ok ? 0 : -EIO;
}

/* G^S's edges, each marked with whether G^I has it too. */
static int insert_edges(sqlite3 *db, const struct probe_run *run, const struct probe_sim *sim,
			const struct probe_graph *gi, const struct probe_graph *gs)
{
	sqlite3_stmt *st = NULL;
	int ok = 1;

	if (sqlite3_prepare_v2(db,
			       "INSERT INTO sim_edges (model, from_tid, from_k, to_tid, to_k, kind, observed) "
			       "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(st, 1, probe_model_name(sim->model), -1, SQLITE_STATIC);
	for (int32_t e = 0; ok && e < run->nr_events; e++) {
		sqlite3_bind_int64(st, 4, probe_event_tid(run, e));
		sqlite3_bind_int(st, 5, probe_event_k(run, e));
		for (int32_t i = gs->in_first[e]; ok && i < gs->in_first[e + 1]; i++) {
			sqlite3_bind_int64(st, 2, probe_event_tid(run, gs->in_src[i]));
			sqlite3_bind_int(st, 3, probe_event_k(run, gs->in_src[i]));
			sqlite3_bind_text(st, 6, hb_edge_name(gs->in_kind[i]), -1, SQLITE_STATIC);
			sqlite3_bind_int(st, 7, hb_has_edge(gi, gs->in_src[i], e));
			ok = sqlite3_step(st) == SQLITE_DONE;
			sqlite3_reset(st);
		}
	}
	sqlite3_finalize(st);
	return ok ? 0 : -EIO;
}

int probe_store(sqlite3 *db, const struct probe_run *run, const struct probe_sim *sim, const struct probe_graph *gi,
		const struct probe_graph *gs, const struct probe_verdict *v, char **err)
{
	const char *model = probe_model_name(sim->model);

	if (db_exec(db, "BEGIN", err))
		return -EIO;
	if (create_tables(db) || delete_model(db, "probe_effect", model) || delete_model(db, "sim_events", model) ||
	    delete_model(db, "sim_edges", model) || insert_verdict(db, run, sim, v) ||
	    insert_events(db, run, sim, v) || insert_edges(db, run, sim, gi, gs) || db_exec(db, "COMMIT", NULL))
		return store_fail(db, err);
	return 0;
}
