/* src/derived/consultant.c - see consultant.h: the hypotheses and the search. */
#include "config.h"
#include "src/derived/consultant-data.h"
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
	struct keyhash keys; /* (hypothesis, focus) -> node id + 1 */
	struct keyhash edge_keys; /* (parent, child) -> made */
	double *priority;    /* per node: its creator's value over threshold */
	int nr_tested;
	bool stopped;
};

static double threshold_of(const struct pc_search *s, int h)
{
	return *(const double *)(const void *)((const char *)&s->t + hypotheses[h].threshold);
}

/* The focus packed in three keys with the hypothesis (ids fit 40 bits). */
static void focus_keys(int h, const struct pc_focus *f, int64_t k[3])
{
	for (int i = 0; i < PC_HIERARCHIES; i++)
		k[i] = (int64_t)f->r[i].level << 56 | (f->r[i].id & ((INT64_C(1) << 48) - 1));
	k[0] |= (int64_t)h << 50;
}

/* The node of (@h, @f), made (untested, queued at @priority) when new:
 * its id, or -ENOMEM. */
static int node_of(struct pc_search *s, int h, const struct pc_focus *f, double priority)
{
	int64_t k[3];
	struct keyhash_slot *slot;
	focus_keys(h, f, k);
	if (!(slot = keyhash_slot(&s->keys, k[0], k[1], k[2])))
		return -ENOMEM;
	if (slot->v)
		return (int)slot->v - 1;
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

/* Test node @n: its value at its focus, and so its status. */
static void test(struct pc_search *s, struct pc_node *n)
{
	const struct hypothesis *h = &hypotheses[n->hypothesis];
	const int64_t total = pc_data_thread_time(s->data, NULL);
	const double num = (double)pc_data_sum(s->data, &n->focus, h->metric);
	if (h->per != PC_METRICS) {
		double ops = (double)pc_data_sum(s->data, &n->focus, h->per);
		n->value = ops > 0 ? num / ops : 0;
		n->status = ops > 0 && (h->below ? n->value < n->threshold : n->value > n->threshold) ? PC_TRUE : PC_FALSE;
		/* its share is the time of its parent's metric */
		n->share = total ? (double)pc_data_sum(s->data, &n->focus, hypotheses[h->parent].metric) / (double)total : 0;
	} else {
		const int64_t time = pc_data_thread_time(s->data, &n->focus);
		n->value = time > 0 ? num / (double)time : 0;
		n->status = n->value > n->threshold ? PC_TRUE : PC_FALSE;
		n->share = total ? num / (double)total : 0;
	}
	n->order = ++s->nr_tested;
}

/* Refine true node @id: its child hypotheses at its focus, and its
 * hypothesis at each child of each component it may be refined along
 * that holds some of its metric. */
static int expand(struct pc_search *s, int id)
{
	const struct pc_node n = s->nodes[id];
	const struct hypothesis *h = &hypotheses[n.hypothesis];
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
	for (int k = 0; k < PC_HIERARCHIES && rc >= 0 && id; k++) {
		int64_t *children;
		size_t nr;
		if (!(pc_metric_along(h->metric) & PC_ALONG(k)))
			continue;
		if ((rc = pc_data_children(s->data, &n.focus, (enum pc_hierarchy)k, h->metric, &children, &nr)) < 0)
			break;
		for (size_t i = 0; i < nr && rc >= 0; i++) {
			struct pc_focus f = n.focus;
			f.r[k] = (struct pc_resource){ n.focus.r[k].level + 1, children[i] };
			if ((rc = node_of(s, n.hypothesis, &f, prio)) >= 0)
				rc = add_edge(s, id, rc, k);
		}
		free(children);
	}
	return rc < 0 ? rc : 0;
}

/* The untested node to test next: the highest priority, then the first
 * by hypothesis and focus name; -1 when none is left. */
static int next(const struct pc_search *s)
{
	int best = -1;
	for (size_t i = 1; i < s->nr_nodes; i++) {
		if (s->nodes[i].status != PC_UNTESTED)
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

static bool has_true_child(const struct pc_search *s, int id)
{
	for (size_t i = 0; i < s->nr_edges; i++)
		if (s->edges[i].parent == id && s->nodes[s->edges[i].child].status == PC_TRUE)
			return true;
	return false;
}

/* What the true children of a refinement along /Process must hold of
 * their parent's time, two or more of them, for the refinement to single
 * no thread out (a main thread that waits a little does not count). */
#define SPREAD_SHARE 0.9

/* Whether true node @id's refinement along /Process is spread over its
 * threads (or processes) rather than singling some out. */
static bool spread(const struct pc_search *s, int id)
{
	int true_ones = 0;
	double held = 0;
	for (size_t i = 0; i < s->nr_edges; i++) {
		const struct pc_node *c = &s->nodes[s->edges[i].child];
		/* (one with none of the time, true by its few small writes, is no share) */
		if (s->edges[i].parent == id && s->edges[i].along == PC_PROCESS && c->status == PC_TRUE && c->share > 0) {
			true_ones++;
			held += c->share;
		}
	}
	return true_ones >= 2 && held >= SPREAD_SHARE * s->nodes[id].share;
}

/* Whether true node @id is a finding: no true child refines it (but
 * spread ones along /Process), and it is not one of those children. */
static bool is_finding(const struct pc_search *s, int id)
{
	const bool spreads = spread(s, id);
	for (size_t i = 0; i < s->nr_edges; i++) {
		const struct pc_edge *e = &s->edges[i];
		if (e->parent == id && s->nodes[e->child].status == PC_TRUE && !(spreads && e->along == PC_PROCESS))
			return false;
		if (e->child == id && e->along == PC_PROCESS && s->nodes[e->parent].status == PC_TRUE &&
		    spread(s, e->parent))
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
	/* the root is virtual: true when a child is */
	rc = node_of(s, 0, &whole, 0);
	if (rc >= 0)
		rc = expand(s, 0);
	while (rc >= 0 && (id = next(s)) >= 0) {
		if (s->nr_tested >= (int)t->max_tests) {
			s->stopped = true;
			break;
		}
		test(s, &s->nodes[id]);
		if (s->nodes[id].status == PC_TRUE)
			rc = expand(s, id);
	}
	if (rc >= 0) {
		s->nodes[0].status = has_true_child(s, 0) ? PC_TRUE : PC_FALSE;
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
	pc_data_free(s->data);
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
	return pc_data_thread_time(s->data, NULL);
}

const char *pc_code_from(const struct pc_search *s)
{
	return pc_data_code_from(s->data);
}

char *pc_focus_name(const struct pc_search *s, const struct pc_focus *f)
{
	return pc_data_focus_name(s->data, f);
}

void pc_where(const struct pc_search *s, const struct pc_node *n, struct pc_where *w)
{
	pc_data_where(s->data, &n->focus, hypotheses[n->hypothesis].why == PC_WHY_IO, w);
}
