/* src/probe/sim-objects.c - what each call does to its object in the
 * simulation (seed 004 Fig. 6): enter_func decides whether the resource is
 * there (a blocking call waits, a try call fails), execute_event releases
 * and hands over; see simulate.h for the semantics. */
#include "config.h"
#include "src/probe/hb.h"
#include "src/probe/sim-state.h"
#include "src/grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void sim_enqueue(struct sim *s, struct queue *q, int32_t e)
{
	int32_t *v = grow_array(q->v, &q->cap, q->len, sizeof(*v), 4);
	int prio = sim_priority(s, s->run->events[e].thread);
	size_t i;
	if (!v) {
		s->rc = -ENOMEM;
		return;
	}
	q->v = v;
	for (i = q->len; i > 0 && sim_priority(s, s->run->events[q->v[i - 1]].thread) < prio; i--)
		q->v[i] = q->v[i - 1];
	q->v[i] = e;
	q->len++;
}

int32_t sim_dequeue(struct queue *q)
{
	int32_t e = q->v[0];
	memmove(q->v, q->v + 1, (--q->len) * sizeof(*q->v));
	return e;
}

static struct holder *holder_of(struct object_state *o, int32_t thread)
{
	for (size_t i = 0; i < o->nr_h; i++)
		if (o->h[i].thread == thread)
			return &o->h[i];
	return NULL;
}

static bool lock_free_for(struct object_state *o, int32_t thread, bool write)
{
	if (holder_of(o, thread))
		return true; /* taken again by its holder (recursive, or a read lock held twice) */
	for (size_t i = 0; i < o->nr_h; i++)
		if (write || o->h[i].write)
			return false;
	return true;
}

static void take_lock(struct sim *s, struct object_state *o, int32_t thread, bool write)
{
	struct holder *h = holder_of(o, thread);
	if (h) {
		h->depth++;
		return;
	}
	if (!(h = grow_array(o->h, &o->cap_h, o->nr_h, sizeof(*h), 2))) {
		s->rc = -ENOMEM;
		return;
	}
	o->h = h;
	o->h[o->nr_h++] = (struct holder){ thread, 1, write };
}

/* The mode event @e asks a lock in: a cond wait takes its mutex back. */
static bool wants_write(const struct probe_event *ev)
{
	return ev->action != PA_RDLOCK;
}

/* A lock became free, or freer: hand it to its first waiters (004 Fig. 6,
 * execute_event of a release). */
static void grant_lock(struct sim *s, int32_t object)
{
	struct object_state *o = &s->obj[object];
	while (o->waiters.len && !s->rc) {
		int32_t w = o->waiters.v[0];
		const struct probe_event *ev = &s->run->events[w];
		if (!lock_free_for(o, ev->thread, wants_write(ev)))
			break;
		sim_dequeue(&o->waiters);
		take_lock(s, o, ev->thread, wants_write(ev));
		sim_happen(s, w);
	}
}

static void release_lock(struct sim *s, int32_t object, int32_t thread)
{
	struct object_state *o = &s->obj[object];
	struct holder *h = holder_of(o, thread);
	if (h && --h->depth <= 0)
		*h = o->h[--o->nr_h];
	grant_lock(s, object);
}

/* A woken cond wait takes its mutex back: now, or when it is its turn. */
void sim_reacquire(struct sim *s, int32_t e)
{
	const struct probe_event *ev = &s->run->events[e];
	struct object_state *m;
	if (ev->peer < 0) {
		sim_happen(s, e);
		return;
	}
	m = &s->obj[ev->peer];
	if (lock_free_for(m, ev->thread, true) && !m->waiters.len) {
		take_lock(s, m, ev->thread, true);
		sim_happen(s, e);
	} else {
		sim_enqueue(s, &m->waiters, e);
	}
}

static bool sem_has_unit(const struct object_state *o)
{
	return o->units_head < o->units_len;
}

static void sem_push(struct sim *s, struct object_state *o, int32_t source)
{
	int32_t *v = grow_array(o->units, &o->units_cap, o->units_len, sizeof(*v), 4);
	if (!v) {
		s->rc = -ENOMEM;
		return;
	}
	o->units = v;
	o->units[o->units_len++] = source;
}

void sim_sem_reset(struct sim *s, struct object_state *o, int64_t units)
{
	o->units_head = o->units_len = 0;
	for (int64_t i = 0; i < units && i < (1 << 20); i++)
		sem_push(s, o, -1);
}

/* A wait that timed out in the run: it times out after as long here,
 * unless what it waited for is there at once (a different outcome). */
static bool timed_out_in_run(const struct probe_event *ev)
{
	return ev->timed && ev->outcome == PO_FAIL;
}

static void wait_until_timeout(struct sim *s, int32_t thread, int32_t e)
{
	const struct probe_event *ev = &s->run->events[e];
	sim_block(s, thread, e);
	sim_wake_at(s, thread, s->now + (ev->end_ns - ev->start_ns), H_DEADLINE);
}

/* enter_func and, when it does not block, execute_event (004 Fig. 6). */
void sim_enter_func(struct sim *s, int32_t thread, int32_t e)
{
	const struct probe_event *ev = &s->run->events[e];
	struct object_state *o = &s->obj[ev->object];
	uint8_t *outcome = &s->out->outcome[e];
	bool observed_ok = ev->outcome == PO_OK;

	sim_record(s, PROBE_ENTER(e));
	s->out->enter_ns[e] = s->now;
	switch (ev->action) {
	case PA_LOCK:
	case PA_RDLOCK: {
		bool write = ev->action == PA_LOCK;
		bool free_now = holder_of(o, thread) || (lock_free_for(o, thread, write) && !o->waiters.len);
		if (ev->try_op || timed_out_in_run(ev)) {
			*outcome = free_now ? PO_OK : PO_FAIL;
			if (free_now) { /* taken if the run took it: the run's path goes on */
				if (observed_ok)
					take_lock(s, o, thread, write);
				sim_happen(s, e);
				return;
			}
			if (!observed_ok) {
				if (timed_out_in_run(ev))
					wait_until_timeout(s, thread, e);
				else
					sim_happen(s, e);
				return;
			}
			/* busy here, taken in the run: it waits for it (past the divergence) */
		} else if (free_now) {
			take_lock(s, o, thread, write);
			sim_happen(s, e);
			return;
		}
		sim_enqueue(s, &o->waiters, e);
		sim_block(s, thread, e);
		return;
	}
	case PA_UNLOCK:
		sim_happen(s, e);
		release_lock(s, ev->object, thread);
		return;
	case PA_COND_WAIT:
		if (ev->peer >= 0)
			release_lock(s, ev->peer, thread);
		if (timed_out_in_run(ev)) {
			wait_until_timeout(s, thread, e);
			return;
		}
		sim_enqueue(s, &o->waiters, e);
		sim_block(s, thread, e);
		return;
	case PA_COND_SIGNAL:
	case PA_COND_BROADCAST:
		sim_happen(s, e);
		while (o->waiters.len && !s->rc) {
			int32_t w = sim_dequeue(&o->waiters);
			s->out->woken_by[w] = e;
			sim_reacquire(s, w);
			if (ev->action == PA_COND_SIGNAL)
				break;
		}
		return;
	case PA_SEM_WAIT: {
		bool unit = sem_has_unit(o) && !o->waiters.len;
		if (ev->try_op || timed_out_in_run(ev)) {
			*outcome = unit ? PO_OK : PO_FAIL;
			if (unit && observed_ok)
				s->out->woken_by[e] = o->units[o->units_head++];
			if (unit || !observed_ok) {
				if (!unit && timed_out_in_run(ev)) {
					wait_until_timeout(s, thread, e);
					return;
				}
				sim_happen(s, e);
				return;
			}
		} else if (unit) {
			s->out->woken_by[e] = o->units[o->units_head++];
			sim_happen(s, e);
			return;
		}
		sim_enqueue(s, &o->waiters, e);
		sim_block(s, thread, e);
		return;
	}
	case PA_SEM_POST:
		sim_happen(s, e);
		if (o->waiters.len) {
			int32_t w = sim_dequeue(&o->waiters);
			s->out->woken_by[w] = e;
			sim_happen(s, w);
		} else {
			sem_push(s, o, e);
		}
		return;
	case PA_SEM_INIT:
		sim_sem_reset(s, o, ev->arg);
		sim_happen(s, e);
		return;
	case PA_BARRIER_INIT:
		o->arrived.len = 0;
		sim_happen(s, e);
		return;
	case PA_BARRIER_WAIT: {
		int64_t count = s->run->objects[ev->object].initial;
		sim_enqueue(s, &o->arrived, e);
		if (count <= 0 || (int64_t)o->arrived.len < count) {
			sim_block(s, thread, e);
			return;
		}
		/* everyone departs: the last to come first (it never slept),
		 * then the others in the order they came */
		sim_happen(s, e);
		for (size_t i = 0; i < o->arrived.len; i++)
			if (o->arrived.v[i] != e)
				sim_happen(s, o->arrived.v[i]);
		o->arrived.len = 0;
		return;
	}
	case PA_CREATE:
		sim_happen(s, e);
		if (ev->peer >= 0 && s->t[ev->peer].state == T_NEW && s->run->threads[ev->peer].creator == e)
			sim_make_ready(s, ev->peer, false);
		return;
	case PA_JOIN:
		if (ev->peer >= 0 && s->t[ev->peer].state != T_DONE) {
			sim_enqueue(s, &s->joiners[ev->peer], e);
			sim_block(s, thread, e);
			return;
		}
		sim_happen(s, e);
		return;
	default:
		sim_happen(s, e);
		return;
	}
}
