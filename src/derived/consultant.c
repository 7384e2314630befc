/* src/derived/consultant.c - see consultant.h: the hypotheses and the search. */
#include "config.h"
#include "src/derived/consultant-data.h"
#include "src/db.h"
#include "src/error.h"
#include "src/grow.h"
#include "src/keyhash.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- tunables ------------------------------------------------------------ */

static const struct tunable {
	const char *name, *what;
	double value;
	size_t offset;
} tunables[] = {
#define X(field, name, value, what) { name, what, value, offsetof(struct pc_tunables, field) },
	PC_TUNABLES(X)
#undef X
};
#define NR_TUNABLES (sizeof(tunables) / sizeof(tunables[0]))

void pc_tunables_default(struct pc_tunables *t)
{
	for (size_t i = 0; i < NR_TUNABLES; i++)
		*(double *)(void *)((char *)t + tunables[i].offset) = tunables[i].value;
}

int pc_tunable_set(struct pc_tunables *t, const char *assignment)
{
	const char *eq = strchr(assignment, '=');
	char *end;
	double v;
	if (!eq)
		return -EINVAL;
	v = strtod(eq + 1, &end);
	if (end == eq + 1 || *end || !isfinite(v) || v < 0)
		return -EINVAL;
	for (size_t i = 0; i < NR_TUNABLES; i++)
		if (strlen(tunables[i].name) == (size_t)(eq - assignment) &&
		    !strncmp(tunables[i].name, assignment, (size_t)(eq - assignment))) {
			*(double *)(void *)((char *)t + tunables[i].offset) = v;
			return 0;
		}
	return -EINVAL;
}

size_t pc_tunable_count(void)
{
	return NR_TUNABLES;
}

void pc_tunable(const struct pc_tunables *t, size_t i, const char **name, double *value, const char **what)
{
	*name = tunables[i].name;
	*what = tunables[i].what;
	*value = *(const double *)(const void *)((const char *)t + tunables[i].offset);
}

/* ---- the why axis ---------------------------------------------------------- */

/* Paradyn's hypotheses (PCrules.C initPChypos) and mtx's ExcessiveCPUWait.
 * value: the metric over the focus's thread-time, or for a per-op one the
 * bytes over the ops; true above the threshold (below, for below). Each is
 * refined along the hierarchies its metric is kept along. */
static const struct hypothesis {
	const char *name;
	int parent; /* -1: the root */
	enum pc_why why;
	enum pc_metric metric, per;  /* per: PC_METRICS but for a per-op value */
	bool below;
	size_t threshold;            /* offset in struct pc_tunables */
} hypotheses[] = {
	{ "TopLevelHypothesis", -1, PC_WHY_CPU, PC_METRICS, PC_METRICS, false, 0 },
	{ "CPUbound", 0, PC_WHY_CPU, PC_M_CPU, PC_METRICS, false, offsetof(struct pc_tunables, cpu) },
	{ "ExcessiveSyncWaitingTime", 0, PC_WHY_SYNC, PC_M_SYNC_WAIT, PC_METRICS, false,
	  offsetof(struct pc_tunables, sync) },
	{ "ExcessiveIOBlockingTime", 0, PC_WHY_IO, PC_M_IO_WAIT, PC_METRICS, false, offsetof(struct pc_tunables, io) },
	{ "TooManySmallIOOps", 3, PC_WHY_IO, PC_M_IO_BYTES, PC_M_IO_OPS, true,
	  offsetof(struct pc_tunables, io_op_bytes) },
	{ "ExcessiveCPUWait", 0, PC_WHY_CPU_WAIT, PC_M_CPU_WAIT, PC_METRICS, false,
	  offsetof(struct pc_tunables, cpu_wait) },
};
#define NR_HYPOTHESES ((int)(sizeof(hypotheses) / sizeof(hypotheses[0])))

const char *pc_hypothesis_name(int h)
{
	return h >= 0 && h < NR_HYPOTHESES ? hypotheses[h].name : "?";
}

enum pc_why pc_hypothesis_why(int h)
{
	return hypotheses[h].why;
}

const char *pc_why_name(enum pc_why why)
{
	static const char *const names[] = { "cpu", "sync", "io", "cpu_wait" };
	return names[why];
}

/* ---- the search -------------------------------------------------------- */

struct pc_search {
	struct pc_data *data;
	struct pc_tunables t;
	struct pc_node *nodes;
	char **names; /* each node's focus, for ties and output */
	size_t nr_nodes, cap_nodes;
	struct pc_edge *edges;
	size_t nr_edges, cap_edges;
	int *findings;
	size_t nr_findings;
	struct keyhash keys; /* (node_hash, probe) -> node id + 1 */
	struct keyhash edge_keys; /* (parent, child) -> made */
	double *priority;    /* per node: its creator's value over threshold */
	int nr_tested;
	bool stopped;
	struct pc_live *live; /* pc_live_new's; NULL offline */
};

/* A live experiment: node's trial (pc_live_new). */
struct pc_trial {
	uint64_t started_ns;     /* 0: not launched */
	int base;                /* the run as it was at the launch: pc_live.bases */
	bool guess;              /* the last guess */
	uint64_t guess_since_ns; /* held since */
	bool refused;            /* its instrumentation was refused or withdrawn */
	uint64_t code_since_ns;  /* true, sampling before its refinement along /Code; 0: not */
};

struct pc_live {
	struct pc_instrumenter in;
	struct pc_trial *trials; /* by node id */
	struct { struct pc_data *d; int refs; } *bases;
	size_t nr_bases, cap_bases;
	int latest;              /* the base that is the search's data, -1: none yet */
	int need_refs[PC_NEEDS];
	int launched, active, refused;
};

static double threshold_of(const struct pc_search *s, int h)
{
	return *(const double *)(const void *)((const char *)&s->t + hypotheses[h].threshold);
}

/* The hierarchy along which @child refines @parent's focus, -1: none (a
 * why edge). */
static int along_of(const struct pc_focus *parent, const struct pc_focus *child)
{
	for (int k = 0; k < PC_HIERARCHIES; k++)
		if (parent->r[k].level != child->r[k].level || parent->r[k].id != child->r[k].id)
			return k;
	return -1;
}

/* (@h, @f) hashed (FNV-1a over the hypothesis and each component's level
 * and id): its node's key, with a probe count for the ones that collide. */
static uint64_t node_hash(int h, const struct pc_focus *f)
{
	int64_t v[1 + 2 * PC_HIERARCHIES] = { h };
	uint64_t x = 1469598103934665603ULL;
	for (int i = 0; i < PC_HIERARCHIES; i++) {
		v[1 + 2 * i] = f->r[i].level;
		v[2 + 2 * i] = f->r[i].id;
	}
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		for (int b = 0; b < 64; b += 8)
			x = (x ^ (uint8_t)((uint64_t)v[i] >> b)) * 1099511628211ULL;
	return x;
}

/* The node of (@h, @f), made (untested, queued at @priority) when new:
 * its id, or -ENOMEM. */
static int node_of(struct pc_search *s, int h, const struct pc_focus *f, double priority)
{
	const uint64_t key = node_hash(h, f);
	struct keyhash_slot *slot;
	for (int64_t probe = 0;; probe++) {
		if (!(slot = keyhash_slot(&s->keys, (int64_t)key, probe, 0)))
			return -ENOMEM;
		if (!slot->v)
			break;
		const struct pc_node *n = &s->nodes[slot->v - 1];
		if (n->hypothesis == h && along_of(&n->focus, f) < 0)
			return (int)slot->v - 1;
	}
	struct pc_node *nodes = grow_array(s->nodes, &s->cap_nodes, s->nr_nodes, sizeof(*nodes), 64);
	if (!nodes)
		return -ENOMEM;
	s->nodes = nodes;
	size_t cap = s->cap_nodes;
	char **names = realloc(s->names, cap * sizeof(*names));
	double *prio = names ? realloc(s->priority, cap * sizeof(*prio)) : NULL;
	if (names)
		s->names = names;
	if (!prio)
		return -ENOMEM;
	s->priority = prio;
	if (s->live) {
		struct pc_trial *trials = realloc(s->live->trials, cap * sizeof(*trials));
		if (!trials)
			return -ENOMEM;
		s->live->trials = trials;
		trials[s->nr_nodes] = (struct pc_trial){ .base = -1 };
	}
	int id = (int)s->nr_nodes;
	if (!(s->names[id] = pc_focus_name(s, f)))
		return -ENOMEM;
	s->nodes[id] = (struct pc_node){ .id = id, .hypothesis = h, .focus = *f, .status = PC_UNTESTED,
					 .threshold = h ? threshold_of(s, h) : 0 };
	s->priority[id] = priority;
	s->nr_nodes++;
	slot->v = (size_t)id + 1;
	s->keys.len++;
	return id;
}

static int add_edge(struct pc_search *s, int parent, int child, int along)
{
	struct keyhash_slot *made = keyhash_slot(&s->edge_keys, parent, child, 0);
	if (!made)
		return -ENOMEM;
	if (made->v)
		return 0;
	made->v = 1;
	s->edge_keys.len++;
	struct pc_edge *e = grow_array(s->edges, &s->cap_edges, s->nr_edges, sizeof(*e), 64);
	if (!e)
		return -ENOMEM;
	s->edges = e;
	s->edges[s->nr_edges++] = (struct pc_edge){ parent, child, along < 0 ? PC_WHY_EDGE : PC_WHERE_EDGE, along };
	return 0;
}

/* What @now holds of metric @m at @f more than @base (NULL: from the start). */
static int64_t sum_since(const struct pc_data *now, const struct pc_data *base, const struct pc_focus *f,
			 enum pc_metric m)
{
	return pc_data_sum(now, f, m) - (base ? pc_data_sum(base, f, m) : 0);
}

static int64_t time_since(const struct pc_data *now, const struct pc_data *base, const struct pc_focus *f)
{
	return pc_data_thread_time(now, f) - (base ? pc_data_thread_time(base, f) : 0);
}

/* Node @n's value and share over what the run did since @base (NULL: all
 * of it), and whether it holds against its threshold times @factor. */
static bool measure(const struct pc_search *s, struct pc_node *n, const struct pc_data *base, double factor)
{
	const struct hypothesis *h = &hypotheses[n->hypothesis];
	const int64_t total = time_since(s->data, base, NULL);
	const double num = (double)sum_since(s->data, base, &n->focus, h->metric);
	const double threshold = n->threshold * factor;
	if (h->per != PC_METRICS) {
		double ops = (double)sum_since(s->data, base, &n->focus, h->per);
		n->value = ops > 0 ? num / ops : 0;
		/* its share is the time of its parent's metric */
		n->share = total ? (double)sum_since(s->data, base, &n->focus, hypotheses[h->parent].metric) / (double)total
				 : 0;
		return ops > 0 && (h->below ? n->value < threshold : n->value > threshold);
	}
	const int64_t time = time_since(s->data, base, &n->focus);
	n->value = time > 0 ? num / (double)time : 0;
	n->share = total ? num / (double)total : 0;
	return n->value > threshold;
}

/* Test node @n on the whole run: its value at its focus, and so its status. */
static void test(struct pc_search *s, struct pc_node *n)
{
	n->status = measure(s, n, NULL, 1) ? PC_TRUE : PC_FALSE;
	n->order = ++s->nr_tested;
}

/* Refine true node @id along hierarchy @k: its hypothesis at each child
 * of that component that holds some of its metric. */
static int expand_along(struct pc_search *s, int id, enum pc_hierarchy k)
{
	const struct pc_node n = s->nodes[id];
	const struct hypothesis *h = &hypotheses[n.hypothesis];
	const double prio = n.value - n.threshold;
	int64_t *children;
	size_t nr;
	int rc;
	if (!(pc_metric_along(h->metric) & PC_ALONG(k)))
		return 0;
	/* Only the wait for a CPU is searched by CPU: running time on one CPU
	 * more than another is what a program that does not use them all at
	 * once shows (one thread busy, the others waiting), no cause; and one
	 * thread runs on one CPU at a time, where says nothing of it. */
	if (k == PC_MACHINE && (h->metric != PC_M_CPU_WAIT || pc_data_nr_threads(s->data, &n.focus) < 2))
		return 0;
	if ((rc = pc_data_children(s->data, &n.focus, k, h->metric, &children, &nr)) < 0)
		return rc;
	for (size_t i = 0; i < nr && rc >= 0; i++) {
		struct pc_focus f = n.focus;
		f.r[k] = (struct pc_resource){ pc_data_child_level(s->data, &n.focus, k), children[i] };
		if ((rc = node_of(s, n.hypothesis, &f, prio)) >= 0)
			rc = add_edge(s, id, rc, k);
	}
	free(children);
	return rc < 0 ? rc : 0;
}

/* Refine true node @id: its child hypotheses at its focus, and its
 * hypothesis at each child of each component it may be refined along
 * that holds some of its metric, but along the hierarchies in @later
 * (PC_ALONG bits: the live search's /Code for CPU, once sampled). */
static int expand(struct pc_search *s, int id, unsigned later)
{
	const struct pc_node n = s->nodes[id];
	const double prio = id ? n.value - n.threshold : 1;
	int rc = 0;
	for (int c = 1; c < NR_HYPOTHESES && rc >= 0; c++) {
		/* a per-op hypothesis where there is no op says nothing */
		if (hypotheses[c].parent != n.hypothesis ||
		    (hypotheses[c].per != PC_METRICS && !pc_data_sum(s->data, &n.focus, hypotheses[c].per)))
			continue;
		if ((rc = node_of(s, c, &n.focus, prio)) >= 0)
			rc = add_edge(s, id, rc, -1);
	}
	for (int k = 0; k < PC_HIERARCHIES && rc >= 0 && id; k++)
		if (!(later & PC_ALONG(k)))
			rc = expand_along(s, id, (enum pc_hierarchy)k);
	return rc < 0 ? rc : 0;
}

/* The untested node to test next: the highest priority, then the first
 * by hypothesis and focus name; -1 when none is left. */
static int next(const struct pc_search *s)
{
	int best = -1;
	for (size_t i = 1; i < s->nr_nodes; i++) {
		if (s->nodes[i].status != PC_UNTESTED ||
		    (s->live && (s->live->trials[i].started_ns || s->live->trials[i].refused)))
			continue;
		if (best < 0 || s->priority[i] > s->priority[best])
			best = (int)i;
		else if (s->priority[i] == s->priority[best]) {
			int c = strcmp(hypotheses[s->nodes[i].hypothesis].name, hypotheses[s->nodes[best].hypothesis].name);
			if (c < 0 || (c == 0 && strcmp(s->names[i], s->names[best]) < 0))
				best = (int)i;
		}
	}
	return best;
}

/* Whether node @id has a child of @status. */
static bool has_child(const struct pc_search *s, int id, enum pc_status status)
{
	for (size_t i = 0; i < s->nr_edges; i++)
		if (s->edges[i].parent == id && s->nodes[s->edges[i].child].status == status)
			return true;
	return false;
}

/* What the true children of a refinement along /Process must hold of
 * their parent's time, two or more of them, for the refinement to single
 * no thread out (a main thread that waits a little does not count); what
 * those along /Machine, fewer than the machine's CPUs, must hold to single
 * their CPUs out (threads pinned to them, the others idle). */
#define SPREAD_SHARE 0.9

/* The hierarchies whose refinement may only spread a node's time over
 * its threads or CPUs, which then says nothing the node does not. */
static bool may_spread(int along)
{
	return along == PC_PROCESS || along == PC_MACHINE;
}

/* Whether true node @id's refinement along @along is spread over its
 * threads (processes, CPUs) rather than singling some out. */
static bool spread(const struct pc_search *s, int id, int along)
{
	int true_ones = 0;
	double held = 0;
	for (size_t i = 0; i < s->nr_edges; i++) {
		const struct pc_node *c = &s->nodes[s->edges[i].child];
		/* (one with none of the time, true by its few small writes, is no share) */
		if (s->edges[i].parent == id && s->edges[i].along == along && c->status == PC_TRUE && c->share > 0) {
			true_ones++;
			held += c->share;
		}
	}
	if (along == PC_MACHINE)
		return held < SPREAD_SHARE * s->nodes[id].share || true_ones >= pc_data_nr_cpus(s->data);
	return true_ones >= 2 && held >= SPREAD_SHARE * s->nodes[id].share;
}

/* Whether node @id's CPU was singled out: the same hypothesis at its
 * focus on every CPU is true and its refinement along /Machine is not
 * spread. */
static bool cpu_singled_out(const struct pc_search *s, int id)
{
	struct pc_focus all = s->nodes[id].focus;
	all.r[PC_MACHINE] = (struct pc_resource){ 0, 0 };
	for (size_t i = 1; i < s->nr_nodes; i++)
		if (s->nodes[i].hypothesis == s->nodes[id].hypothesis && along_of(&s->nodes[i].focus, &all) < 0)
			return s->nodes[i].status == PC_TRUE && !spread(s, (int)i, PC_MACHINE);
	return false;
}

/* Whether true node @id is a finding: no true child refines it (but
 * spread ones along /Process or /Machine), it is not one of those
 * children, and its CPU, if it names one, was singled out (not only
 * reached through a spread refinement). */
static bool is_finding(const struct pc_search *s, int id)
{
	if (s->nodes[id].focus.r[PC_MACHINE].level && !cpu_singled_out(s, id))
		return false;
	bool spreads[PC_HIERARCHIES];
	for (int k = 0; k < PC_HIERARCHIES; k++)
		spreads[k] = may_spread(k) && spread(s, id, k);
	for (size_t i = 0; i < s->nr_edges; i++) {
		const struct pc_edge *e = &s->edges[i];
		if (e->parent == id && s->nodes[e->child].status == PC_TRUE && !(e->along >= 0 && spreads[e->along]))
			return false;
		if (e->child == id && may_spread(e->along) && s->nodes[e->parent].status == PC_TRUE &&
		    spread(s, e->parent, e->along))
			return false;
	}
	return true;
}

static const struct pc_search *sorting; /* qsort's context */

static int finding_cmp(const void *a, const void *b)
{
	const struct pc_node *x = &sorting->nodes[*(const int *)a], *y = &sorting->nodes[*(const int *)b];
	int c;
	if (x->share != y->share)
		return x->share > y->share ? -1 : 1;
	if ((c = strcmp(hypotheses[x->hypothesis].name, hypotheses[y->hypothesis].name)))
		return c;
	return strcmp(sorting->names[x->id], sorting->names[y->id]);
}

static int find(struct pc_search *s)
{
	if (!(s->findings = calloc(s->nr_nodes ? s->nr_nodes : 1, sizeof(*s->findings))))
		return -ENOMEM;
	for (size_t i = 1; i < s->nr_nodes; i++)
		if (s->nodes[i].status == PC_TRUE && is_finding(s, (int)i))
			s->findings[s->nr_findings++] = (int)i;
	sorting = s;
	qsort(s->findings, s->nr_findings, sizeof(*s->findings), finding_cmp);
	sorting = NULL;
	return 0;
}

int pc_search_run(sqlite3 *db, const struct pc_tunables *t, const struct pc_window *window, struct pc_search **out,
		  char **err)
{
	struct pc_search *s = calloc(1, sizeof(*s));
	const struct pc_focus whole = { 0 };
	int rc, id;
	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->t = *t;
	if ((rc = pc_data_load(db, window, &s->data, err))) {
		pc_search_free(s);
		return rc;
	}
	pc_data_use_call_graph(s->data, t->callgraph != 0);
	/* the root is virtual: true when a child is */
	rc = node_of(s, 0, &whole, 0);
	if (rc >= 0)
		rc = expand(s, 0, 0);
	while (rc >= 0 && (id = next(s)) >= 0) {
		if (s->nr_tested >= (int)t->max_tests) {
			s->stopped = true;
			break;
		}
		test(s, &s->nodes[id]);
		if (s->nodes[id].status == PC_TRUE)
			rc = expand(s, id, 0);
	}
	if (rc >= 0) {
		s->nodes[0].status = has_child(s, 0, PC_TRUE) ? PC_TRUE : PC_FALSE;
		rc = find(s);
	}
	if (rc < 0) {
		if (!*err)
			error_set(err, "the search: out of memory");
		pc_search_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

/* ---- the search live ------------------------------------------------------ */

const char *pc_need_name(enum pc_need need)
{
	static const char *const names[] = { "syscalls", "samples" };
	return names[need];
}

/* Whether node @n's CPU is known by code only from CPU samples: CPUbound
 * at a focus with a /Code component, or refined along /Code. */
static bool cpu_by_code(const struct pc_node *n)
{
	return hypotheses[n->hypothesis].metric == PC_M_CPU;
}

/* What node @n's experiment needs: I/O waits and ops are told apart only
 * with the syscalls a thread waits in; CPU in a function, only with
 * samples. */
static unsigned needs_of(const struct pc_node *n)
{
	if (hypotheses[n->hypothesis].why == PC_WHY_IO)
		return 1u << PC_NEED_SYSCALLS;
	return cpu_by_code(n) && n->focus.r[PC_CODE].level ? 1u << PC_NEED_SAMPLES : 0;
}

/* Take @needs for one more experiment: 0, or -1 when one is refused
 * (those taken for it are given back). */
static int take_needs(struct pc_live *l, unsigned needs)
{
	for (int k = 0; k < PC_NEEDS; k++) {
		if (!(needs & (1u << k)))
			continue;
		if (!l->need_refs[k] && l->in.on(l->in.ctx, (enum pc_need)k)) {
			for (int j = 0; j < k; j++)
				if ((needs & (1u << j)) && !--l->need_refs[j])
					l->in.off(l->in.ctx, (enum pc_need)j);
			return -1;
		}
		l->need_refs[k]++;
	}
	return 0;
}

static void give_needs(struct pc_live *l, unsigned needs)
{
	for (int k = 0; k < PC_NEEDS; k++)
		if ((needs & (1u << k)) && l->need_refs[k] > 0 && !--l->need_refs[k])
			l->in.off(l->in.ctx, (enum pc_need)k);
}

int pc_live_new(const struct pc_tunables *t, const struct pc_instrumenter *in, struct pc_search **out)
{
	struct pc_search *s = calloc(1, sizeof(*s));
	*out = NULL;
	if (!s || !(s->live = calloc(1, sizeof(*s->live)))) {
		free(s);
		return -ENOMEM;
	}
	s->t = *t;
	s->live->in = *in;
	s->live->latest = -1;
	*out = s;
	return 0;
}

/* Make @d the search's data, a base that launches may take. */
static int set_latest(struct pc_live *l, struct pc_search *s, struct pc_data *d)
{
	size_t free_slot = l->nr_bases;
	if (l->latest >= 0 && !l->bases[l->latest].refs) {
		pc_data_free(l->bases[l->latest].d);
		l->bases[l->latest].d = NULL;
	}
	for (size_t i = 0; i < l->nr_bases && free_slot == l->nr_bases; i++)
		if (!l->bases[i].d)
			free_slot = i;
	if (free_slot == l->nr_bases) {
		void *more = grow_array(l->bases, &l->cap_bases, l->nr_bases, sizeof(*l->bases), 16);
		if (!more) {
			pc_data_free(d);
			return -ENOMEM;
		}
		l->bases = more;
		l->nr_bases++;
	}
	l->bases[free_slot].d = d;
	l->bases[free_slot].refs = 0;
	l->latest = (int)free_slot;
	s->data = d;
	return 0;
}

/* Experiment @id ends: its base and instrumentation are given back. */
static void end_trial(struct pc_live *l, int id)
{
	struct pc_trial *tr = &l->trials[id];
	if (tr->base >= 0 && !--l->bases[tr->base].refs && tr->base != l->latest) {
		pc_data_free(l->bases[tr->base].d);
		l->bases[tr->base].d = NULL;
	}
	tr->base = -1;
	l->active--;
}

int pc_live_step(struct pc_search *s, struct pc_data *now, uint64_t now_ns)
{
	struct pc_live *l = s->live;
	const double min_ns = s->t.min_observation * 1e9, enough_ns = s->t.sufficient_time * 1e9;
	unsigned *ended = NULL;
	int rc = set_latest(l, s, now), id;
	if (rc)
		return rc;
	if (s->nr_nodes == 0) { /* the root, made true by a true child */
		const struct pc_focus whole = { 0 };
		if ((rc = node_of(s, 0, &whole, 0)) < 0 || (rc = expand(s, 0, 0)) < 0)
			return rc;
	}
	/* what the experiments that conclude used, given back after the
	 * launches: a child needing the same keeps it on */
	if (!(ended = calloc(s->nr_nodes + 1, sizeof(*ended))))
		return -ENOMEM;
	const size_t tested_before = s->nr_nodes;
	for (size_t i = 1; i < tested_before && rc >= 0; i++) {
		struct pc_trial *tr = &l->trials[i];
		struct pc_node *n = &s->nodes[i];
		bool guess;
		if (!tr->started_ns || n->status != PC_UNTESTED || (double)(now_ns - tr->started_ns) < min_ns)
			continue;
		/* above a higher bar to turn true, below a lower one to turn back */
		const double h = s->t.hysteresis * (hypotheses[n->hypothesis].below ? -1 : 1);
		guess = measure(s, n, l->bases[tr->base].d, tr->guess ? 1 - h : 1 + h);
		if (guess != tr->guess) {
			tr->guess = guess;
			tr->guess_since_ns = now_ns;
		}
		if (!guess && (double)(now_ns - tr->guess_since_ns) < enough_ns)
			continue;
		n->status = guess ? PC_TRUE : PC_FALSE;
		n->order = ++s->nr_tested;
		ended[i] = needs_of(n) | 1u << PC_NEEDS; /* (marks it ended) */
		end_trial(l, (int)i);
		if (!guess)
			continue;
		/* CPU by code: sampled for minObservationTime first, unless
		 * it is by code already (samples on) */
		const bool sample_first = cpu_by_code(n) && !n->focus.r[PC_CODE].level;
		rc = expand(s, (int)i, sample_first ? PC_ALONG(PC_CODE) : 0);
		if (rc >= 0 && sample_first && !take_needs(l, 1u << PC_NEED_SAMPLES))
			l->trials[i].code_since_ns = now_ns; /* (expand may have moved the trials) */
	}
	/* the true CPU nodes sampled long enough: refined along /Code */
	for (size_t i = 1; i < tested_before && rc >= 0; i++) {
		struct pc_trial *tr = &l->trials[i];
		if (!tr->code_since_ns || (double)(now_ns - tr->code_since_ns) < min_ns)
			continue;
		tr->code_since_ns = 0;
		ended[i] |= 1u << PC_NEED_SAMPLES | 1u << PC_NEEDS;
		rc = expand_along(s, (int)i, PC_CODE);
	}
	while (rc >= 0 && l->active < (int)s->t.max_active && (id = next(s)) >= 0) {
		struct pc_trial *tr = &l->trials[id];
		if (l->launched >= (int)s->t.max_tests) {
			s->stopped = true;
			break;
		}
		if (take_needs(l, needs_of(&s->nodes[id]))) {
			tr->refused = true;
			l->refused++;
			continue;
		}
		*tr = (struct pc_trial){ .started_ns = now_ns, .base = l->latest, .guess_since_ns = now_ns };
		l->bases[l->latest].refs++;
		l->launched++;
		l->active++;
	}
	for (size_t i = 1; i < tested_before; i++)
		if (ended[i])
			give_needs(l, ended[i] & ~(1u << PC_NEEDS));
	free(ended);
	if (has_child(s, 0, PC_TRUE)) /* the root, as it will end */
		s->nodes[0].status = PC_TRUE;
	return rc < 0 ? rc : 0;
}

void pc_live_withdraw(struct pc_search *s, enum pc_need need)
{
	struct pc_live *l = s->live;
	for (size_t i = 1; i < s->nr_nodes; i++) {
		struct pc_trial *tr = &l->trials[i];
		if (need == PC_NEED_SAMPLES)
			tr->code_since_ns = 0; /* no refinement along /Code */
		if (!tr->started_ns || s->nodes[i].status != PC_UNTESTED || !(needs_of(&s->nodes[i]) & (1u << need)))
			continue;
		end_trial(l, (int)i);
		tr->started_ns = 0;
		tr->refused = true;
		l->refused++;
	}
	l->need_refs[need] = 0; /* already off */
}

int pc_live_finish(struct pc_search *s)
{
	struct pc_live *l = s->live;
	for (int k = 0; k < PC_NEEDS; k++)
		if (l->need_refs[k]) {
			l->need_refs[k] = 0;
			l->in.off(l->in.ctx, (enum pc_need)k);
		}
	if (!s->nr_nodes)
		return 0;
	/* Each value is its experiment's own window's; the shares that rank
	 * the findings and tell a spread refinement are the whole search's,
	 * so that they compare. */
	for (size_t i = 1; i < s->nr_nodes; i++) {
		const double value = s->nodes[i].value;
		measure(s, &s->nodes[i], NULL, 1);
		s->nodes[i].value = value;
	}
	s->nodes[0].status = has_child(s, 0, PC_TRUE) ? PC_TRUE : PC_FALSE;
	free(s->findings);
	s->findings = NULL;
	s->nr_findings = 0;
	return find(s);
}

bool pc_live_observing(const struct pc_search *s, size_t id)
{
	return s->live && id < s->nr_nodes && s->live->trials[id].started_ns && s->nodes[id].status == PC_UNTESTED;
}

void pc_live_counts(const struct pc_search *s, int *launched, int *active, int *refused)
{
	*launched = s->live->launched;
	*active = s->live->active;
	*refused = s->live->refused;
}

/* ---- kept in run.db -------------------------------------------------------- */

int pc_search_save(sqlite3 *db, const struct pc_search *s, const char *how)
{
	sqlite3_stmt *node = NULL, *edge = NULL;
	int rc = db_add_missing_table(db, "pc_nodes") || db_add_missing_table(db, "pc_edges") ? SQLITE_ERROR : SQLITE_OK;
	if (!rc)
		rc = sqlite3_exec(db, "DELETE FROM pc_nodes; DELETE FROM pc_edges", NULL, NULL, NULL);
	if (!rc)
		rc = sqlite3_prepare_v2(db, "INSERT INTO pc_nodes(id, hypothesis, why, focus, status, value, threshold, "
					"share, tested) VALUES (?,?,?,?,?,?,?,?,?)", -1, &node, NULL);
	if (!rc)
		rc = sqlite3_prepare_v2(db, "INSERT INTO pc_edges(parent, child, kind) VALUES (?,?,?)", -1, &edge, NULL);
	for (size_t i = 0; !rc && i < s->nr_nodes; i++) {
		const struct pc_node *n = &s->nodes[i];
		sqlite3_bind_int(node, 1, n->id);
		sqlite3_bind_text(node, 2, pc_hypothesis_name(n->hypothesis), -1, SQLITE_STATIC);
		db_bind_text_or_null(node, 3, n->id ? pc_why_name(pc_hypothesis_why(n->hypothesis)) : NULL);
		sqlite3_bind_text(node, 4, s->names[i], -1, SQLITE_STATIC);
		sqlite3_bind_text(node, 5, pc_status_name(n->status), -1, SQLITE_STATIC);
		sqlite3_bind_double(node, 6, n->value);
		sqlite3_bind_double(node, 7, n->threshold);
		sqlite3_bind_double(node, 8, n->share);
		db_bind_int_or_null(node, 9, n->order, n->order > 0);
		rc = sqlite3_step(node) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
		sqlite3_reset(node);
	}
	for (size_t i = 0; !rc && i < s->nr_edges; i++) {
		const struct pc_edge *e = &s->edges[i];
		sqlite3_bind_int(edge, 1, e->parent);
		sqlite3_bind_int(edge, 2, e->child);
		sqlite3_bind_text(edge, 3, e->kind == PC_WHY_EDGE ? "why" : "where", -1, SQLITE_STATIC);
		rc = sqlite3_step(edge) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
		sqlite3_reset(edge);
	}
	sqlite3_finalize(node);
	sqlite3_finalize(edge);
	if (!rc && (db_meta_set(db, "pc_search", how) ||
		    (s->data && db_meta_set(db, "pc_code_from", pc_code_from(s)))))
		rc = SQLITE_ERROR;
	return rc;
}

static int hypothesis_named(const char *name)
{
	for (int h = 0; name && h < NR_HYPOTHESES; h++)
		if (!strcmp(hypotheses[h].name, name))
			return h;
	return -1;
}

static int stored_fail(sqlite3 *db, char **err)
{
	error_set(err, "reading the kept search: %s", sqlite3_errmsg(db));
	return -EIO;
}

bool pc_search_kept_live(sqlite3 *db)
{
	char *kept = db_meta_get(db, "pc_search");
	const bool live = kept && !strcmp(kept, "live");
	free(kept);
	return live;
}

int pc_search_stored(sqlite3 *db, struct pc_search **out, char **err)
{
	struct pc_search *s = calloc(1, sizeof(*s));
	sqlite3_stmt *st = NULL;
	int rc, step;
	*out = NULL;
	if (!s)
		return -ENOMEM;
	pc_tunables_default(&s->t);
	if ((rc = pc_data_load(db, NULL, &s->data, err)))
		goto fail;
	char *code_from = db_meta_get(db, "pc_code_from");
	if (code_from) { /* what the search that made it knew code from */
		int64_t first_ns, last_ns;
		pc_data_span(s->data, &first_ns, &last_ns);
		pc_data_set_span(s->data, first_ns, last_ns, code_from);
		free(code_from);
	}
	if (sqlite3_prepare_v2(db, "SELECT id, hypothesis, focus, status, value, threshold, share, tested FROM pc_nodes "
			       "ORDER BY id", -1, &st, NULL) != SQLITE_OK) {
		rc = stored_fail(db, err);
		goto fail;
	}
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *focus = (const char *)sqlite3_column_text(st, 2), *status = (const char *)sqlite3_column_text(st, 3);
		int h = hypothesis_named((const char *)sqlite3_column_text(st, 1)), id;
		struct pc_focus f = { 0 };
		if (h < 0 || sqlite3_column_int64(st, 0) != (int64_t)s->nr_nodes) {
			error_set(err, "the kept search's node %lld is not one this mtx makes", sqlite3_column_int64(st, 0));
			rc = -EINVAL;
			goto fail;
		}
		if (strcmp(focus ? focus : "/", "/") && (rc = pc_data_parse_focus(s->data, focus, &f, err)))
			goto fail;
		if ((rc = node_of(s, h, &f, 0)) < 0)
			goto fail;
		id = rc;
		s->nodes[id].status = !strcmp(status, "true") ? PC_TRUE : !strcmp(status, "false") ? PC_FALSE : PC_UNTESTED;
		s->nodes[id].value = sqlite3_column_double(st, 4);
		s->nodes[id].threshold = sqlite3_column_double(st, 5);
		s->nodes[id].share = sqlite3_column_double(st, 6);
		s->nodes[id].order = sqlite3_column_int(st, 7);
		s->nr_tested += s->nodes[id].order > 0;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (step != SQLITE_DONE || sqlite3_prepare_v2(db, "SELECT parent, child FROM pc_edges ORDER BY rowid", -1, &st,
						      NULL) != SQLITE_OK) {
		rc = stored_fail(db, err);
		goto fail;
	}
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t parent = sqlite3_column_int64(st, 0), child = sqlite3_column_int64(st, 1);
		if (parent < 0 || child < 0 || (size_t)parent >= s->nr_nodes || (size_t)child >= s->nr_nodes) {
			error_set(err, "the kept search's edge %lld -> %lld joins no nodes", (long long)parent,
				  (long long)child);
			rc = -EINVAL;
			goto fail;
		}
		if ((rc = add_edge(s, (int)parent, (int)child,
				   along_of(&s->nodes[parent].focus, &s->nodes[child].focus))) < 0)
			goto fail;
	}
	if (step != SQLITE_DONE) {
		rc = stored_fail(db, err);
		goto fail;
	}
	sqlite3_finalize(st);
	if ((rc = find(s)) < 0)
		goto fail;
	*out = s;
	return 0;
fail:
	sqlite3_finalize(st);
	if (!*err)
		error_set(err, "the kept search: out of memory");
	pc_search_free(s);
	return rc < 0 ? rc : -EIO;
}

void pc_search_free(struct pc_search *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nr_nodes; i++)
		free(s->names[i]);
	free(s->names);
	free(s->nodes);
	free(s->priority);
	free(s->edges);
	free(s->findings);
	keyhash_free(&s->keys);
	keyhash_free(&s->edge_keys);
	if (s->live) { /* the data is one of its bases */
		for (size_t i = 0; i < s->live->nr_bases; i++)
			pc_data_free(s->live->bases[i].d);
		free(s->live->bases);
		free(s->live->trials);
		free(s->live);
	} else {
		pc_data_free(s->data);
	}
	free(s);
}

static size_t walk(const struct pc_search *s, int id, int depth, int *order, int *depths, bool *seen, size_t n)
{
	if (seen[id])
		return n;
	seen[id] = true;
	order[n] = id;
	depths[n++] = depth;
	for (size_t i = 0; i < s->nr_edges; i++)
		if (s->edges[i].parent == id)
			n = walk(s, s->edges[i].child, depth + 1, order, depths, seen, n);
	return n;
}

int pc_graph_order(const struct pc_search *s, int *order, int *depths, size_t *n)
{
	bool *seen = calloc(s->nr_nodes ? s->nr_nodes : 1, sizeof(*seen));
	*n = 0;
	if (!seen)
		return -ENOMEM;
	if (s->nr_nodes)
		*n = walk(s, 0, 0, order, depths, seen, 0);
	free(seen);
	return 0;
}

const char *pc_status_name(enum pc_status status)
{
	return status == PC_TRUE ? "true" : status == PC_FALSE ? "false" : "untested";
}

const char *pc_value_text(const struct pc_node *n, char *buf, size_t size)
{
	if (n->id == 0 || n->status == PC_UNTESTED)
		return "-";
	snprintf(buf, size, n->value >= 100 ? "%.0f" : "%.2f", n->value);
	return buf;
}

size_t pc_nr_nodes(const struct pc_search *s)
{
	return s->nr_nodes;
}

const struct pc_node *pc_node(const struct pc_search *s, size_t id)
{
	return &s->nodes[id];
}

size_t pc_nr_edges(const struct pc_search *s)
{
	return s->nr_edges;
}

const struct pc_edge *pc_edge(const struct pc_search *s, size_t i)
{
	return &s->edges[i];
}

size_t pc_nr_findings(const struct pc_search *s)
{
	return s->nr_findings;
}

int pc_finding(const struct pc_search *s, size_t rank)
{
	return s->findings[rank];
}

bool pc_finding_refined(const struct pc_search *s, size_t rank)
{
	return !has_child(s, pc_finding(s, rank), PC_UNTESTED);
}

int pc_nr_tested(const struct pc_search *s)
{
	return s->nr_tested;
}

bool pc_stopped_at_max(const struct pc_search *s)
{
	return s->stopped;
}

int64_t pc_thread_time_ns(const struct pc_search *s)
{
	return s->data ? pc_data_thread_time(s->data, NULL) : 0;
}

const char *pc_code_from(const struct pc_search *s)
{
	return s->data ? pc_data_code_from(s->data) : "nothing: the search saw no data";
}

char *pc_focus_name(const struct pc_search *s, const struct pc_focus *f)
{
	return pc_data_focus_name(s->data, f);
}

void pc_where(const struct pc_search *s, const struct pc_node *n, struct pc_where *w)
{
	pc_data_where(s->data, &n->focus, hypotheses[n->hypothesis].why == PC_WHY_IO, w);
}
