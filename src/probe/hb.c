/* src/probe/hb.c - see hb.h. One pass over an order, with each object's
 * state in memory: the holders of a lock, the units of a semaphore, the
 * waiters of a cond, the arrivals of a barrier. */
#include "config.h"
#include "src/probe/hb.h"
#include "src/grow.h"
#include "src/radix-sort.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *hb_edge_name(int kind)
{
	static const char *const names[] = {
		[PE_PROGRAM] = "program", [PE_LOCK] = "lock",       [PE_TRYLOCK] = "held", [PE_SEM] = "post",
		[PE_COND] = "signal",     [PE_BARRIER] = "barrier", [PE_CREATE] = "create", [PE_JOIN] = "exit",
		[PE_KILL] = "kill",       [PE_T0_WAKE] = "woke",    [PE_TIMEOUT] = "timer",
	};
	return kind >= 0 && kind < (int)(sizeof(names) / sizeof(names[0])) ? names[kind] : "?";
}

struct stamped {
	int64_t ts_ns, op_id;
	int32_t action;
	int8_t class; /* 0 entry, 1 a release's event, 2 another event */
};

static bool releases(const struct probe_event *e)
{
	return e->action == PA_UNLOCK || e->action == PA_SEM_POST || e->action == PA_COND_SIGNAL ||
	       e->action == PA_COND_BROADCAST || e->action == PA_CREATE || e->action == PA_KILL;
}

int hb_observed_order(const struct probe_run *run, int32_t **actions)
{
	size_t n = (size_t)run->nr_events * 2;
	struct stamped *v = malloc((n + 1) * sizeof(*v));
	int32_t *out = malloc((n + 1) * sizeof(*out));
	const struct radix_key keys[] = { RADIX_KEY(struct stamped, ts_ns), RADIX_KEY(struct stamped, class),
					  RADIX_KEY(struct stamped, op_id), RADIX_KEY(struct stamped, action) };
	if (!v || !out) {
		free(v), free(out);
		return -ENOMEM;
	}
	for (int32_t e = 0; e < run->nr_events; e++) {
		const struct probe_event *ev = &run->events[e];
		v[2 * e] = (struct stamped){ ev->start_ns, ev->op_id, PROBE_ENTER(e), 0 };
		v[2 * e + 1] = (struct stamped){ ev->end_ns, ev->op_id, PROBE_HAPPEN(e), releases(ev) ? 1 : 2 };
	}
	if (radix_sort(v, n, sizeof(*v), keys, sizeof(keys) / sizeof(keys[0]))) {
		free(v), free(out);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = v[i].action;
	free(v);
	*actions = out;
	return 0;
}

/* A growable list of int32 (event indexes), with a head for FIFO use. */
struct list {
	int32_t *v;
	size_t head, len, cap;
};

static int list_push(struct list *l, int32_t x)
{
	int32_t *v = grow_array(l->v, &l->cap, l->len, sizeof(*v), 4);
	if (!v)
		return -ENOMEM;
	l->v = v;
	l->v[l->len++] = x;
	return 0;
}

static void list_remove_at(struct list *l, size_t i)
{
	memmove(&l->v[i], &l->v[i + 1], (l->len - i - 1) * sizeof(*l->v));
	l->len--;
}

struct holder {
	int32_t thread, event, depth;
	bool write;
};

struct lock_state {
	struct holder *h;
	size_t len, cap;
	int32_t last_release, last_write_release;
};

struct edge {
	int32_t dst, src;
	uint8_t kind;
};

struct builder {
	const struct probe_run *run;
	const uint8_t *outcome;
	struct probe_graph *g;
	struct edge *edges;
	size_t nr_edges, cap_edges;
	struct lock_state *locks;   /* per object */
	struct list *lists;         /* per object: sem units, cond waiters, barrier arrivals */
	struct list *kills;         /* per thread: kills not yet followed by its next entry */
	int32_t *generation;        /* barrier wait: index in gens of its generation's first member, or -1 */
	struct list gens;           /* barrier generations, members one after another */
	int32_t *gen_len;           /* per event: its generation's size */
};

static int edge_add(struct builder *b, int32_t src, int32_t dst, int kind)
{
	struct edge *v;
	if ((src < 0 && src != PROBE_T0) || src == dst)
		return 0;
	if (!(v = grow_array(b->edges, &b->cap_edges, b->nr_edges, sizeof(*v), 4096)))
		return -ENOMEM;
	b->edges = v;
	b->edges[b->nr_edges++] = (struct edge){ dst, src, (uint8_t)kind };
	return 0;
}

static struct holder *holder_of(struct lock_state *l, int32_t thread)
{
	for (size_t i = 0; i < l->len; i++)
		if (l->h[i].thread == thread)
			return &l->h[i];
	return NULL;
}

static void release(struct lock_state *l, int32_t thread, int32_t e, bool is_rwlock)
{
	struct holder *h = holder_of(l, thread);
	bool write = h ? h->write : !is_rwlock;
	if (h && --h->depth > 0)
		return;
	if (h)
		*h = l->h[--l->len];
	l->last_release = e;
	if (write)
		l->last_write_release = e;
}

/* An acquisition (@ok) or a failed attempt at lock @o by event @e. */
static int acquire(struct builder *b, int32_t o, int32_t e, bool write, bool ok)
{
	struct lock_state *l = &b->locks[o];
	const struct probe_event *ev = &b->run->events[e];
	struct holder *h = holder_of(l, ev->thread);
	if (!ok) { /* rule 10: the acquisition that made it fail */
		for (size_t i = 0; i < l->len; i++)
			if (l->h[i].thread != ev->thread && (write || l->h[i].write))
				return edge_add(b, l->h[i].event, e, PE_TRYLOCK);
		return 0;
	}
	if (h) {
		h->depth++;
		return 0;
	}
	if (!(h = grow_array(l->h, &l->cap, l->len, sizeof(*h), 2)))
		return -ENOMEM;
	l->h = h;
	l->h[l->len++] = (struct holder){ ev->thread, e, 1, write };
	/* rules 2 and 3: a write waits for every release, a read for writes */
	return edge_add(b, write ? l->last_release : l->last_write_release, e, PE_LOCK);
}

/* Observed: the unit a sem wait took (rule 4): of its waker's posts when
 * it blocked and one is there, else the oldest. -1: an initial unit. */
static int32_t take_unit(struct builder *b, struct list *units, const struct probe_event *ev)
{
	size_t pick = units->head;
	int32_t src;
	if (units->head >= units->len)
		return -1; /* more waits than units seen: an initial unit */
	if (ev->blocked && ev->waker >= 0)
		for (size_t i = units->head; i < units->len; i++)
			if (units->v[i] >= 0 && b->run->events[units->v[i]].thread == ev->waker) {
				pick = i;
				break;
			}
	src = units->v[pick];
	if (pick == units->head)
		units->head++;
	else
		list_remove_at(units, pick);
	return src;
}

/* Observed: the waiters signal @s wakes (rule 5): for a broadcast all
 * that returned woken, for a signal the one its thread woke, else the
 * first to return. */
static void wake_waiters(struct builder *b, struct list *waiters, int32_t s)
{
	const struct probe_event *sig = &b->run->events[s];
	size_t pick = waiters->len;
	for (size_t i = 0; i < waiters->len; i++) {
		const struct probe_event *w = &b->run->events[waiters->v[i]];
		if (b->outcome[waiters->v[i]] != PO_OK)
			continue; /* it timed out */
		if (sig->action == PA_COND_BROADCAST) {
			b->g->woken_by[waiters->v[i]] = s;
			list_remove_at(waiters, i--);
			continue;
		}
		if (pick == waiters->len || (w->waker == sig->thread && b->run->events[waiters->v[pick]].waker != sig->thread) ||
		    ((w->waker == sig->thread) == (b->run->events[waiters->v[pick]].waker == sig->thread) &&
		     w->end_ns < b->run->events[waiters->v[pick]].end_ns))
			pick = i;
	}
	if (sig->action == PA_COND_SIGNAL && pick < waiters->len) {
		b->g->woken_by[waiters->v[pick]] = s;
		list_remove_at(waiters, pick);
	}
}

static void list_drop(struct list *l, int32_t x)
{
	for (size_t i = l->head; i < l->len; i++)
		if (l->v[i] == x) {
			list_remove_at(l, i);
			return;
		}
}

static int enter(struct builder *b, int32_t e, bool observed)
{
	const struct probe_run *run = b->run;
	const struct probe_event *ev = &run->events[e];
	struct list *kills = &b->kills[ev->thread];
	int rc = 0;

	/* rule 8: a kill before this entry, not followed by another yet */
	for (size_t i = 0; i < kills->len && !rc; i++)
		rc = edge_add(b, kills->v[i], e, PE_KILL);
	kills->len = 0;
	switch (ev->action) {
	case PA_COND_WAIT:
		if (ev->peer >= 0)
			release(&b->locks[ev->peer], ev->thread, e, false);
		if (observed && !rc)
			rc = list_push(&b->lists[ev->object], e);
		break;
	case PA_BARRIER_WAIT: {
		struct list *arrived = &b->lists[ev->object];
		int64_t count = run->objects[ev->object].initial;
		if ((rc = list_push(arrived, e)))
			break;
		if (count > 0 && (int64_t)arrived->len >= count) { /* a generation is complete */
			int32_t first = (int32_t)b->gens.len;
			for (size_t i = 0; i < arrived->len && !rc; i++) {
				b->generation[arrived->v[i]] = first;
				b->gen_len[arrived->v[i]] = (int32_t)arrived->len;
				rc = list_push(&b->gens, arrived->v[i]);
			}
			arrived->len = 0;
		}
		break;
	}
	default: break;
	}
	return rc;
}

/* Rule 9: a wait that passed, that no traced post or signal let pass,
 * and that T_0 woke when it was observed. */
static int woken_by_t0(struct builder *b, int32_t e, bool ok)
{
	return ok && b->g->woken_by[e] < 0 && b->run->events[e].woken_by_t0 ? edge_add(b, PROBE_T0, e, PE_T0_WAKE) : 0;
}

static int happen(struct builder *b, int32_t e, bool observed)
{
	const struct probe_run *run = b->run;
	const struct probe_event *ev = &run->events[e];
	const struct probe_thread *t = &run->threads[ev->thread];
	bool ok = b->outcome[e] == PO_OK;
	bool rwlock = !strcmp(run->objects[ev->object].kind, "rwlock");
	int rc = 0;

	b->g->happened[e] = 1;
	if (ev->k > 1)
		rc = edge_add(b, e - 1, e, PE_PROGRAM);
	else if (t->creator >= 0)
		rc = edge_add(b, t->creator, e, PE_CREATE); /* rule 7 */
	if (rc)
		return rc;
	/* rule 11: a timed form that failed waited its time out */
	if (ev->timed && !ev->try_op && !ok && (rc = edge_add(b, PROBE_T0, e, PE_TIMEOUT)))
		return rc;
	switch (ev->action) {
	case PA_LOCK:
	case PA_RDLOCK:
		return acquire(b, ev->object, e, ev->action == PA_LOCK, ok);
	case PA_UNLOCK:
		release(&b->locks[ev->object], ev->thread, e, rwlock);
		return 0;
	case PA_COND_WAIT:
		if (observed)
			list_drop(&b->lists[ev->object], e);
		if ((rc = edge_add(b, b->g->woken_by[e], e, PE_COND)) || (rc = woken_by_t0(b, e, ok)))
			return rc;
		return ev->peer >= 0 ? acquire(b, ev->peer, e, true, true) : 0;
	case PA_COND_SIGNAL:
	case PA_COND_BROADCAST:
		if (observed)
			wake_waiters(b, &b->lists[ev->object], e);
		return 0;
	case PA_SEM_INIT:
		if (observed) {
			b->lists[ev->object].head = b->lists[ev->object].len = 0;
			for (int64_t i = 0; i < ev->arg && i < (1 << 20) && !rc; i++)
				rc = list_push(&b->lists[ev->object], -1);
		}
		return rc;
	case PA_SEM_POST:
		return observed ? list_push(&b->lists[ev->object], e) : 0;
	case PA_SEM_WAIT:
		if (observed && ok)
			b->g->woken_by[e] = take_unit(b, &b->lists[ev->object], ev);
		if (ok && (rc = edge_add(b, b->g->woken_by[e], e, PE_SEM)))
			return rc;
		return woken_by_t0(b, e, ok);
	case PA_BARRIER_WAIT:
		if (b->generation[e] >= 0) {
			for (int32_t i = 0; i < b->gen_len[e] && !rc; i++)
				rc = edge_add(b, b->gens.v[b->generation[e] + i], e, PE_BARRIER);
		} else { /* its generation never completed: those that came */
			struct list *arrived = &b->lists[ev->object];
			for (size_t i = 0; i < arrived->len && !rc; i++)
				rc = edge_add(b, arrived->v[i], e, PE_BARRIER);
		}
		return rc;
	case PA_JOIN:
		if (ev->peer >= 0 && run->threads[ev->peer].nr_events)
			return edge_add(b, run->threads[ev->peer].first + run->threads[ev->peer].nr_events - 1, e,
					PE_JOIN);
		return 0;
	case PA_KILL:
		return ev->peer >= 0 ? list_push(&b->kills[ev->peer], e) : 0;
	default:
		return 0;
	}
}

/* The edges, grouped by destination (counting sort), sources sorted and
 * each kept once (the first kind given wins, program order first). */
static int finish(struct builder *b)
{
	struct probe_graph *g = b->g;
	int32_t n = g->nr_events;
	int32_t *fill;
	if (!(g->in_src = malloc((b->nr_edges + 1) * sizeof(*g->in_src))) ||
	    !(g->in_kind = malloc(b->nr_edges + 1)) || !(fill = calloc((size_t)n + 1, sizeof(*fill))))
		return -ENOMEM;
	for (size_t i = 0; i < b->nr_edges; i++)
		g->in_first[b->edges[i].dst + 1]++;
	for (int32_t e = 0; e < n; e++)
		g->in_first[e + 1] += g->in_first[e];
	for (size_t i = 0; i < b->nr_edges; i++) {
		const struct edge *x = &b->edges[i];
		int32_t at = g->in_first[x->dst] + fill[x->dst]++;
		g->in_src[at] = x->src;
		g->in_kind[at] = x->kind;
	}
	free(fill);
	int32_t out = 0;
	for (int32_t e = 0; e < n; e++) {
		int32_t lo = g->in_first[e], hi = g->in_first[e + 1];
		/* insertion sort: a vertex has few sources */
		for (int32_t i = lo + 1; i < hi; i++) {
			int32_t s = g->in_src[i];
			uint8_t k = g->in_kind[i];
			int32_t j = i;
			while (j > lo && (g->in_src[j - 1] > s || (g->in_src[j - 1] == s && g->in_kind[j - 1] > k))) {
				g->in_src[j] = g->in_src[j - 1];
				g->in_kind[j] = g->in_kind[j - 1];
				j--;
			}
			g->in_src[j] = s;
			g->in_kind[j] = k;
		}
		g->in_first[e] = out;
		for (int32_t i = lo; i < hi; i++) {
			if (i > lo && g->in_src[i] == g->in_src[i - 1])
				continue;
			g->in_src[out] = g->in_src[i];
			g->in_kind[out++] = g->in_kind[i];
		}
	}
	g->in_first[n] = out;
	g->nr_edges = out;
	return 0;
}

int hb_build(const struct probe_run *run, const int32_t *actions, int32_t nr_actions, const uint8_t *outcome,
	     const int32_t *woken_by, struct probe_graph *g)
{
	size_t n = (size_t)run->nr_events;
	struct builder b = { .run = run, .outcome = outcome, .g = g };
	bool observed = woken_by == NULL;
	int rc = -ENOMEM;

	memset(g, 0, sizeof(*g));
	g->nr_events = run->nr_events;
	g->in_first = calloc(n + 1, sizeof(*g->in_first));
	g->outcome = malloc(n + 1);
	g->happened = calloc(n + 1, 1);
	g->woken_by = malloc((n + 1) * sizeof(*g->woken_by));
	b.locks = calloc((size_t)run->nr_objects + 1, sizeof(*b.locks));
	b.lists = calloc((size_t)run->nr_objects + 1, sizeof(*b.lists));
	b.kills = calloc((size_t)run->nr_threads + 1, sizeof(*b.kills));
	b.generation = malloc((n + 1) * sizeof(*b.generation));
	b.gen_len = calloc(n + 1, sizeof(*b.gen_len));
	if (!g->in_first || !g->outcome || !g->happened || !g->woken_by || !b.locks || !b.lists || !b.kills ||
	    !b.generation || !b.gen_len)
		goto out;
	memcpy(g->outcome, outcome, n);
	for (size_t e = 0; e < n; e++) {
		g->woken_by[e] = woken_by ? woken_by[e] : -1;
		b.generation[e] = -1;
	}
	for (int32_t o = 0; o < run->nr_objects; o++) {
		b.locks[o].last_release = b.locks[o].last_write_release = -1;
		if (observed && !strcmp(run->objects[o].kind, "sem"))
			for (int64_t i = 0; i < run->objects[o].initial && i < (1 << 20); i++)
				if (list_push(&b.lists[o], -1))
					goto out;
	}
	rc = 0;
	for (int32_t i = 0; i < nr_actions && !rc; i++) {
		int32_t e = PROBE_ACTION_EVENT(actions[i]);
		rc = PROBE_ACTION_IS_HAPPEN(actions[i]) ? happen(&b, e, observed) : enter(&b, e, observed);
	}
	if (!rc)
		rc = finish(&b);
out:
	for (int32_t o = 0; b.locks && o < run->nr_objects; o++)
		free(b.locks[o].h);
	for (int32_t o = 0; b.lists && o < run->nr_objects; o++)
		free(b.lists[o].v);
	for (int32_t t = 0; b.kills && t < run->nr_threads; t++)
		free(b.kills[t].v);
	free(b.locks), free(b.lists), free(b.kills), free(b.generation), free(b.gen_len), free(b.gens.v);
	free(b.edges);
	return rc;
}

void hb_free(struct probe_graph *g)
{
	free(g->in_first), free(g->in_src), free(g->in_kind), free(g->outcome), free(g->happened), free(g->woken_by);
	memset(g, 0, sizeof(*g));
}

bool hb_same_vertex(const struct probe_graph *a, const struct probe_graph *b, int32_t e)
{
	int32_t na = a->in_first[e + 1] - a->in_first[e], nb = b->in_first[e + 1] - b->in_first[e];
	if (a->outcome[e] != b->outcome[e] || na != nb)
		return false;
	return !memcmp(&a->in_src[a->in_first[e]], &b->in_src[b->in_first[e]], (size_t)na * sizeof(int32_t));
}

bool hb_has_edge(const struct probe_graph *g, int32_t src, int32_t dst)
{
	for (int32_t i = g->in_first[dst]; i < g->in_first[dst + 1]; i++)
		if (g->in_src[i] == src)
			return true;
	return false;
}

int hb_build_observed(const struct probe_run *run, int32_t **actions, struct probe_graph *gi)
{
	uint8_t *outcome = malloc((size_t)run->nr_events + 1);
	int rc = -ENOMEM;
	*actions = NULL;
	if (outcome && !hb_observed_order(run, actions)) {
		for (int32_t e = 0; e < run->nr_events; e++)
			outcome[e] = run->events[e].outcome;
		rc = hb_build(run, *actions, 2 * run->nr_events, outcome, NULL, gi);
	}
	free(outcome);
	return rc;
}
