/* src/probe/simulate.c - see simulate.h. The loop of 004 Fig. 7: take the
 * earliest pending happening (a CPU stint's end, an off-CPU piece's end,
 * a thread's start, a timeout), advance the clock to it, let the thread
 * go on to its next function call (enter_func and execute_event, Fig. 6:
 * sim-objects.c) and hand free CPUs to ready threads. */
#include "config.h"
#include "src/probe/sim-state.h"
#include "src/probe/hb.h"
#include "src/clock.h"
#include "src/grow.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

const char *probe_model_name(enum probe_model model)
{
	return model == PROBE_MODEL_UP_PRIO ? "up-prio" : "smp";
}

int probe_model_parse(const char *text)
{
	if (!strcmp(text, "smp"))
		return PROBE_MODEL_SMP;
	if (!strcmp(text, "up-prio"))
		return PROBE_MODEL_UP_PRIO;
	return -1;
}

/* ---- the wake heap: earliest first, then in the order scheduled ---- */

static bool wake_before(const struct wake_entry *a, const struct wake_entry *b)
{
	return a->ns < b->ns || (a->ns == b->ns && a->seq < b->seq);
}

void sim_wake_at(struct sim *s, int32_t thread, int64_t ns, int type)
{
	struct wake_entry *v = grow_array(s->heap, &s->heap_cap, s->heap_len, sizeof(*v), 256);
	size_t i;
	if (!v) {
		s->rc = -ENOMEM;
		return;
	}
	s->heap = v;
	i = s->heap_len++;
	s->heap[i] = (struct wake_entry){ ns, s->seq++, thread, thread >= 0 ? s->t[thread].gen : 0, (uint8_t)type };
	while (i > 0 && wake_before(&s->heap[i], &s->heap[(i - 1) / 2])) {
		struct wake_entry x = s->heap[i];
		s->heap[i] = s->heap[(i - 1) / 2];
		s->heap[(i - 1) / 2] = x;
		i = (i - 1) / 2;
	}
}

static struct wake_entry wake_pop(struct sim *s)
{
	struct wake_entry top = s->heap[0];
	size_t i = 0;
	s->heap[0] = s->heap[--s->heap_len];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < s->heap_len && wake_before(&s->heap[l], &s->heap[m]))
			m = l;
		if (r < s->heap_len && wake_before(&s->heap[r], &s->heap[m]))
			m = r;
		if (m == i)
			break;
		struct wake_entry x = s->heap[i];
		s->heap[i] = s->heap[m];
		s->heap[m] = x;
		i = m;
	}
	return top;
}

/* ---- the order being recorded ---- */

void sim_record(struct sim *s, int32_t action)
{
	int32_t *v = grow_array(s->out->actions, &s->actions_cap, (size_t)s->out->nr_actions, sizeof(*v), 1024);
	if (!v) {
		s->rc = -ENOMEM;
		return;
	}
	s->out->actions = v;
	s->out->actions[s->out->nr_actions++] = action;
}

/* ---- threads and CPUs ---- */

static const struct probe_event *next_event(const struct sim *s, int32_t thread)
{
	const struct probe_thread *t = &s->run->threads[thread];
	return s->t[thread].done < t->nr_events ? &s->run->events[t->first + s->t[thread].done] : NULL;
}

/* Position @thread at the start of the segment after its done events. */
static void to_segment(struct sim *s, int32_t thread)
{
	struct sim_thread *t = &s->t[thread];
	int32_t seg = s->run->threads[thread].first_segment + t->done;
	t->piece = s->run->segment_pieces[seg];
	t->left = t->piece < s->run->segment_pieces[seg + 1] ? llabs(s->run->pieces[t->piece]) : 0;
}

static int32_t segment_end(const struct sim *s, int32_t thread)
{
	return s->run->segment_pieces[s->run->threads[thread].first_segment + s->t[thread].done + 1];
}

static void next_piece(struct sim *s, int32_t thread)
{
	struct sim_thread *t = &s->t[thread];
	t->piece++;
	t->left = t->piece < segment_end(s, thread) ? llabs(s->run->pieces[t->piece]) : 0;
}

/* Whether ready thread @a should run before ready thread @b. */
static bool runs_before(const struct sim *s, int32_t a, int32_t b)
{
	if (sim_priority(s, a) != sim_priority(s, b))
		return sim_priority(s, a) > sim_priority(s, b);
	if (s->model == PROBE_MODEL_SMP && s->t[a].vruntime != s->t[b].vruntime)
		return s->t[a].vruntime < s->t[b].vruntime;
	return s->t[a].ready_seq < s->t[b].ready_seq;
}

/* Charge @thread the CPU time it has run since its stint began (none
 * while its CPU is still switching to it, or busy with T_0). */
static void charge(struct sim *s, int32_t thread)
{
	struct sim_thread *t = &s->t[thread];
	int64_t ran = s->now > t->since ? s->now - t->since : 0;
	t->left -= ran;
	t->cpu_ns += ran;
	t->vruntime += ran;
	if (t->since < s->now)
		t->since = s->now;
}

static void stop_running(struct sim *s, int32_t thread)
{
	struct sim_thread *t = &s->t[thread];
	charge(s, thread);
	s->cpu_thread[t->cpu] = -1;
	t->cpu = -1;
	t->gen++;
}

/* How the SMP model places a thread that starts (@sleeper false) or wakes
 * in CFS's order: at the least vruntime of the others, a sleeper up to a
 * slice before it, so that neither a new thread nor a long sleeper takes
 * the CPUs for long. */
static void place(struct sim *s, int32_t thread, bool sleeper)
{
	struct sim_thread *t = &s->t[thread];
	int64_t floor = s->min_vruntime - (sleeper ? PROBE_SMP_SLICE_NS : 0);
	if (t->vruntime < floor)
		t->vruntime = floor;
}

static void update_min_vruntime(struct sim *s)
{
	int64_t least = INT64_MAX;
	for (int c = 0; c < s->out->nr_cpus; c++)
		if (s->cpu_thread[c] >= 0 && s->t[s->cpu_thread[c]].vruntime < least)
			least = s->t[s->cpu_thread[c]].vruntime;
	for (int32_t i = 0; i < s->nr_ready; i++)
		if (s->t[s->ready[i]].vruntime < least)
			least = s->t[s->ready[i]].vruntime;
	if (least != INT64_MAX && least > s->min_vruntime)
		s->min_vruntime = least;
}

/* A running thread's vruntime as of now. */
static int64_t vruntime_now(const struct sim *s, int32_t thread)
{
	const struct sim_thread *t = &s->t[thread];
	return t->vruntime + (s->now > t->since ? s->now - t->since : 0);
}

/* SMP: a thread that wakes with a key a granularity below a running
 * one's takes its CPU, as CFS's wakeup preemption does. */
static void wakeup_preempt(struct sim *s, int32_t thread)
{
	int victim = -1;
	for (int c = 0; c < s->out->nr_cpus; c++) {
		int32_t r = s->cpu_thread[c];
		if (r < 0)
			return; /* a CPU is free: dispatch will use it */
		if (sim_priority(s, r) > sim_priority(s, thread) || r == s->in_func)
			continue;
		if (victim < 0 || sim_priority(s, r) < sim_priority(s, s->cpu_thread[victim]) ||
		    (sim_priority(s, r) == sim_priority(s, s->cpu_thread[victim]) &&
		     vruntime_now(s, r) > vruntime_now(s, s->cpu_thread[victim])))
			victim = c;
	}
	if (victim < 0)
		return;
	int32_t r = s->cpu_thread[victim];
	if (sim_priority(s, r) < sim_priority(s, thread) ||
	    vruntime_now(s, r) - s->t[thread].vruntime > PROBE_SMP_WAKEUP_GRANULARITY_NS) {
		stop_running(s, r);
		s->t[r].state = T_READY;
		s->t[r].ready_seq = ++s->ready_next;
		s->ready[s->nr_ready++] = r;
	}
}

void sim_make_ready(struct sim *s, int32_t thread, bool at_head)
{
	struct sim_thread *t = &s->t[thread];
	int was = t->state;
	t->state = T_READY;
	t->gen++;
	t->ready_seq = at_head ? --s->ready_first : ++s->ready_next;
	s->ready[s->nr_ready++] = thread;
	if (s->in_func >= 0)
		s->woke_in_func = true;
	if (s->model == PROBE_MODEL_SMP) {
		if (was == T_NEW || was == T_OFF || was == T_PENDING) {
			place(s, thread, was != T_NEW);
			wakeup_preempt(s, thread);
		}
		return;
	}
	/* 004: a higher priority that becomes ready preempts at once */
	{
		int32_t r = s->cpu_thread[0];
		if (r >= 0 && r != s->in_func && sim_priority(s, r) < sim_priority(s, thread)) {
			stop_running(s, r);
			sim_make_ready(s, r, true);
		}
	}
}

static void proceed(struct sim *s, int32_t thread);

/* Whether @thread may run on CPU @cpu now (SMP: its segment's affinity,
 * when recorded and naming one of the model's CPUs). */
static bool allowed_on(const struct sim *s, int32_t thread, int cpu)
{
	uint64_t cpus, mine;
	if (!s->any_affinity || s->model != PROBE_MODEL_SMP || cpu >= 64)
		return true;
	cpus = s->run->segment_cpus[s->run->threads[thread].first_segment + s->t[thread].done];
	mine = s->out->nr_cpus >= 64 ? ~0ULL : (1ULL << s->out->nr_cpus) - 1;
	return !(cpus & mine) || (cpus >> cpu & 1);
}

/* Hand each free CPU to the ready thread that comes first and may run
 * there. Its stint starts once T_0 has left the CPU and the switch to it
 * is made (the calibrated cost of a context switch, P8). */
static void dispatch(struct sim *s)
{
	if (s->model == PROBE_MODEL_SMP)
		update_min_vruntime(s);
	for (int c = 0; c < s->out->nr_cpus && s->nr_ready && !s->rc; c++) {
		int32_t best = -1;
		if (s->cpu_thread[c] >= 0)
			continue;
		for (int32_t i = 0; i < s->nr_ready; i++)
			if (allowed_on(s, s->ready[i], c) && (best < 0 || runs_before(s, s->ready[i], s->ready[best])))
				best = i;
		if (best < 0)
			continue;
		int32_t thread = s->ready[best];
		int64_t start = (s->cpu_free_at[c] > s->now ? s->cpu_free_at[c] : s->now) + s->run->sched_switch_ns;
		s->ready[best] = s->ready[--s->nr_ready];
		s->cpu_thread[c] = thread;
		s->t[thread].cpu = c;
		s->t[thread].state = T_RUNNING;
		s->t[thread].since = start;
		s->t[thread].slice_end = start + PROBE_SMP_SLICE_NS;
		proceed(s, thread);
		c = -1; /* proceeding may have freed a CPU: look again from the first */
	}
}

/* ---- events ---- */

/* Event @e of @thread happens now: it joins the order, and its thread
 * moves on to the next segment (a pending thread becomes ready). */
void sim_happen(struct sim *s, int32_t e)
{
	int32_t thread = s->run->events[e].thread;
	struct sim_thread *t = &s->t[thread];
	sim_record(s, PROBE_HAPPEN(e));
	s->out->happen_ns[e] = s->now;
	t->done++;
	to_segment(s, thread);
	if (t->state == T_PENDING) {
		t->waiting = -1;
		sim_make_ready(s, thread, false);
	}
}

/* The thread blocks in event @e (enter_func: "set T to pending"). */
void sim_block(struct sim *s, int32_t thread, int32_t e)
{
	struct sim_thread *t = &s->t[thread];
	if (t->cpu >= 0)
		stop_running(s, thread);
	t->state = T_PENDING;
	t->waiting = e;
	t->gen++;
}

static void thread_done(struct sim *s, int32_t thread)
{
	struct sim_thread *t = &s->t[thread];
	if (t->cpu >= 0)
		stop_running(s, thread);
	t->state = T_DONE;
	t->gen++;
	if (s->now > s->out->end_ns)
		s->out->end_ns = s->now;
	while (s->joiners[thread].len && !s->rc)
		sim_happen(s, sim_dequeue(&s->joiners[thread]));
}

/* SMP: whether a ready thread should have the CPU of @thread, whose
 * slice is over: one of higher priority, or of equal and less vruntime. */
static bool should_yield(const struct sim *s, int32_t thread)
{
	for (int32_t i = 0; i < s->nr_ready; i++) {
		int32_t r = s->ready[i];
		if (sim_priority(s, r) > sim_priority(s, thread) ||
		    (sim_priority(s, r) == sim_priority(s, thread) && s->t[r].vruntime < s->t[thread].vruntime))
			return true;
	}
	return false;
}

/* Whether a ready thread has a higher priority than @thread. */
static bool outranked(const struct sim *s, int32_t thread)
{
	for (int32_t i = 0; i < s->nr_ready; i++)
		if (sim_priority(s, s->ready[i]) > sim_priority(s, thread))
			return true;
	return false;
}

/* SMP: after @thread's function, whatever it made ready that could not
 * take its CPU then (wakeup_preempt spares a thread inside its function)
 * takes it now: the ready thread that comes first, if @thread is the one
 * wakeup_preempt would put aside for it (a lower priority, or a
 * vruntime a granularity higher). Returns whether @thread left its CPU. */
static bool preempt_deferred(struct sim *s, int32_t thread)
{
	int32_t best = -1;
	if (!s->woke_in_func)
		return false; /* nothing became ready in its function */
	for (int c = 0; c < s->out->nr_cpus; c++)
		if (s->cpu_thread[c] < 0)
			return false; /* a free CPU: dispatch will use it */
	for (int32_t i = 0; i < s->nr_ready; i++)
		if (allowed_on(s, s->ready[i], s->t[thread].cpu) &&
		    (best < 0 || runs_before(s, s->ready[i], s->ready[best])))
			best = i;
	if (best < 0)
		return false;
	int32_t r = s->ready[best];
	if (sim_priority(s, r) < sim_priority(s, thread) ||
	    (sim_priority(s, r) == sim_priority(s, thread) &&
	     vruntime_now(s, thread) - s->t[r].vruntime <= PROBE_SMP_WAKEUP_GRANULARITY_NS))
		return false;
	stop_running(s, thread);
	sim_make_ready(s, thread, false);
	return true;
}

/* The running @thread goes on from where it is: through its CPU pieces
 * (a stint, up to a slice under SMP), off the CPU for an off-CPU piece,
 * into its next function at a segment's end, or to its end. */
static void proceed(struct sim *s, int32_t thread)
{
	struct sim_thread *t = &s->t[thread];
	while (t->state == T_RUNNING && !s->rc) {
		if (t->since > s->now) { /* its CPU is not ready for it yet: go on then */
			t->gen++;
			sim_wake_at(s, thread, t->since, H_STOP);
			return;
		}
		if (t->piece < segment_end(s, thread)) {
			if (t->left <= 0) {
				next_piece(s, thread);
				continue;
			}
			if (s->run->pieces[t->piece] > 0) {
				int64_t stint = t->left;
				if (s->model == PROBE_MODEL_SMP) {
					if (s->now >= t->slice_end) { /* its slice is over */
						if (should_yield(s, thread)) {
							stop_running(s, thread);
							sim_make_ready(s, thread, false);
							return;
						}
						t->slice_end = s->now + PROBE_SMP_SLICE_NS;
					}
					if (stint > t->slice_end - s->now)
						stint = t->slice_end - s->now;
				}
				t->gen++;
				sim_wake_at(s, thread, s->now + stint, H_STOP);
				return;
			}
			stop_running(s, thread);
			t->state = T_OFF;
			/* T_0 ended it at its own instant: no sooner than that */
			int64_t until = s->run->piece_until[t->piece];
			sim_wake_at(s, thread, until < 0 ? s->now + t->left : until > s->now ? until : s->now,
				    H_OFF_END);
			return;
		}
		const struct probe_event *ev = next_event(s, thread);
		if (!ev) {
			thread_done(s, thread);
			return;
		}
		s->in_func = thread;
		s->woke_in_func = false;
		sim_enter_func(s, thread, (int32_t)(ev - s->run->events));
		s->in_func = -1;
		if (t->state != T_RUNNING)
			continue;
		/* the preemption its function deferred */
		if (s->model == PROBE_MODEL_UP_PRIO && outranked(s, thread)) {
			stop_running(s, thread);
			sim_make_ready(s, thread, true);
		} else if (s->model == PROBE_MODEL_SMP && preempt_deferred(s, thread)) {
			return;
		}
	}
}

/* T_0 takes CPU @cpu for an interrupt of @ns now (004 Fig. 7: an IRQ
 * arrival, then its ISR's completion): the thread running there makes no
 * progress meanwhile (it stays on the CPU), a free CPU takes no thread.
 * Event functions take no simulated time here, so no arrival falls
 * inside one to be deferred (004 §4.3). */
static void irq_arrives(struct sim *s, int cpu, int64_t ns)
{
	int32_t r = s->cpu_thread[cpu];
	int64_t from = s->cpu_free_at[cpu] > s->now ? s->cpu_free_at[cpu] : s->now;
	s->cpu_free_at[cpu] = from + ns;
	if (r < 0)
		return;
	charge(s, r);
	s->t[r].since += ns;
	s->t[r].slice_end += ns;
	s->t[r].gen++; /* its pending stop moves */
	sim_wake_at(s, r, s->t[r].since, H_STOP);
}

/* Schedule the run's next irq, if any (one at a time: the heap stays small). */
static void next_irq(struct sim *s)
{
	if (s->next_irq < s->run->nr_irqs)
		sim_wake_at(s, T0_THREAD, s->run->irqs[s->next_irq].start_ns, H_IRQ);
}

static void on_wake(struct sim *s, const struct wake_entry *w)
{
	if (w->type == H_IRQ) {
		const struct probe_irq *irq = &s->run->irqs[s->next_irq++];
		irq_arrives(s, irq->cpu % s->out->nr_cpus, irq->end_ns - irq->start_ns);
		next_irq(s);
		return;
	}
	struct sim_thread *t = &s->t[w->thread];
	switch (w->type) {
	case H_START:
		if (t->state == T_NEW)
			sim_make_ready(s, w->thread, false);
		break;
	case H_STOP:
		charge(s, w->thread);
		proceed(s, w->thread);
		break;
	case H_OFF_END:
		next_piece(s, w->thread);
		sim_make_ready(s, w->thread, false);
		break;
	case H_DEADLINE: {
		int32_t e = t->waiting;
		const struct probe_event *ev = &s->run->events[e];
		s->out->outcome[e] = PO_FAIL;
		if (ev->action == PA_COND_WAIT)
			sim_reacquire(s, e); /* it takes its mutex back even so */
		else
			sim_happen(s, e);
		break;
	}
	}
}

void probe_sim_free(struct probe_sim *sim)
{
	free(sim->actions), free(sim->enter_ns), free(sim->happen_ns), free(sim->outcome), free(sim->woken_by);
	free(sim->stuck);
	memset(sim, 0, sizeof(*sim));
}

int probe_simulate(const struct probe_run *run, enum probe_model model, struct probe_sim *out)
{
	size_t n = (size_t)run->nr_events + 1;
	struct sim s = { .run = run, .out = out, .model = model, .in_func = -1 };
	uint64_t began = clock_now_ns();
	memset(out, 0, sizeof(*out));
	out->model = model;
	out->nr_cpus = model == PROBE_MODEL_UP_PRIO ? 1 : run->nr_cpus;
	out->enter_ns = malloc(n * sizeof(int64_t));
	out->happen_ns = malloc(n * sizeof(int64_t));
	out->outcome = malloc(n);
	out->woken_by = malloc(n * sizeof(int32_t));
	out->stuck = malloc(((size_t)run->nr_threads + 1) * sizeof(int32_t));
	s.t = calloc((size_t)run->nr_threads + 1, sizeof(*s.t));
	s.obj = calloc((size_t)run->nr_objects + 1, sizeof(*s.obj));
	s.joiners = calloc((size_t)run->nr_threads + 1, sizeof(*s.joiners));
	s.ready = malloc(((size_t)run->nr_threads + 1) * sizeof(*s.ready));
	s.cpu_thread = malloc((size_t)out->nr_cpus * sizeof(*s.cpu_thread));
	s.cpu_free_at = calloc((size_t)out->nr_cpus, sizeof(*s.cpu_free_at));
	if (!out->enter_ns || !out->happen_ns || !out->outcome || !out->woken_by || !out->stuck || !s.t || !s.obj ||
	    !s.joiners || !s.ready || !s.cpu_thread || !s.cpu_free_at) {
		s.rc = -ENOMEM;
		goto out;
	}
	for (int32_t e = 0; e < run->nr_events; e++) {
		out->enter_ns[e] = out->happen_ns[e] = -1;
		out->outcome[e] = run->events[e].outcome;
		out->woken_by[e] = -1;
	}
	for (int c = 0; c < out->nr_cpus; c++)
		s.cpu_thread[c] = -1;
	for (int32_t o = 0; o < run->nr_objects; o++)
		if (!strcmp(run->objects[o].kind, "sem"))
			sim_sem_reset(&s, &s.obj[o], run->objects[o].initial);
	/* Threads nobody traced creating start when they started. */
	for (int32_t i = 0; i < run->nr_segments && !s.any_affinity; i++)
		s.any_affinity = run->segment_cpus[i] != 0;
	for (int32_t i = 0; i < run->nr_threads; i++) {
		s.t[i] = (struct sim_thread){ .state = T_NEW, .cpu = -1, .waiting = -1 };
		to_segment(&s, i);
		if (run->threads[i].creator < 0)
			sim_wake_at(&s, i, run->threads[i].start_ns, H_START);
	}
	out->end_ns = run->origin_ns;
	next_irq(&s);
	while (s.heap_len && !s.rc) {
		struct wake_entry w = wake_pop(&s);
		if (w.thread >= 0 && w.gen != s.t[w.thread].gen)
			continue; /* the thread has moved on since */
		s.now = w.ns;
		on_wake(&s, &w);
		dispatch(&s);
	}
	/* What is left blocked could not execute: each thread's next event. */
	for (int32_t i = 0; i < run->nr_threads && !s.rc; i++) {
		const struct probe_event *ev = next_event(&s, i);
		if (s.t[i].state != T_DONE && ev)
			out->stuck[out->nr_stuck++] = (int32_t)(ev - run->events);
	}
out:
	for (int32_t o = 0; s.obj && o < run->nr_objects; o++) {
		free(s.obj[o].h), free(s.obj[o].waiters.v), free(s.obj[o].units), free(s.obj[o].arrived.v);
	}
	for (int32_t i = 0; s.joiners && i < run->nr_threads; i++)
		free(s.joiners[i].v);
	free(s.t), free(s.obj), free(s.joiners), free(s.ready), free(s.cpu_thread), free(s.cpu_free_at), free(s.heap);
	if (s.rc)
		probe_sim_free(out);
	else
		out->elapsed_ns = clock_now_ns() - began;
	return s.rc;
}
