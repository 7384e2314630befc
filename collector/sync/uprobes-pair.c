/*
 * collector/sync/uprobes-pair.c - uprobe hits to sync records: each thread
 * keeps a small stack of calls entered and not yet returned; a return pops
 * its entry and the pair becomes one struct mtx_sync_record.
 *
 * Facts relied on: return probes fire in LIFO order per thread; the event
 * stream comes in time order (collector/order.c), so a thread's entry
 * precedes its return whatever CPU each was recorded on, and the kernel's
 * FORK of a new thread lies between its creator's pthread_create entry
 * and return.
 *
 * Calls the library would not see, glibc's own (uprobe_called_by_runtime),
 * are paired like the others and then dropped.
 */
#include "config.h"
#include "collector/sync/uprobes-impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 8

struct pending {
	uint64_t t_ns;
	uint64_t a[4];
	uint64_t callsite;
	uint64_t ip;        /* the function's address in the process */
	uint64_t sp;        /* the stack pointer at the entry */
	uint32_t probe;
	int32_t child_tid;  /* create: the thread the kernel forked meanwhile */
	uint8_t runtime;    /* glibc's own call: no record */
	uint16_t repeats;   /* the entry probe hit again before the return */
};

struct uprobe_thread {
	int32_t tid;          /* 0: empty slot */
	uint8_t has_parked;   /* a create record waits for this thread's handle */
	uint8_t exited;       /* its pthread_exit or thrd_exit is recorded */
	uint8_t depth;
	uint64_t pd;          /* the thread's handle (pthread_t), 0 unknown */
	struct pending stack[MAX_DEPTH];
	struct mtx_sync_record parked;
};

/* How many acquisitions of a spinlock are not yet released, in the order
 * records complete. A thread's unlock completes after its own lock, so an
 * unlock always finds at least its own there; an init finds none. */
struct uprobe_held {
	uint64_t addr;
	int32_t pid;
	int32_t count;
	uint8_t used;
};

static size_t held_slot(int32_t pid, uint64_t addr, size_t cap)
{
	return (size_t)((addr * 0x9e3779b97f4a7c15ull) ^ (uint32_t)pid) & (cap - 1);
}

static struct uprobe_held *held_of(struct sync_uprobes *u, int32_t pid, uint64_t addr)
{
	size_t i;
	if ((u->nr_held + 1) * 2 > u->held_cap) {
		size_t cap = u->held_cap ? u->held_cap * 2 : 64;
		struct uprobe_held *h = calloc(cap, sizeof(*h));
		if (!h)
			return NULL;
		for (size_t k = 0; k < u->held_cap; k++) {
			if (!u->held[k].used)
				continue;
			for (i = held_slot(u->held[k].pid, u->held[k].addr, cap); h[i].used; i = (i + 1) & (cap - 1))
				;
			h[i] = u->held[k];
		}
		free(u->held);
		u->held = h;
		u->held_cap = cap;
	}
	for (i = held_slot(pid, addr, u->held_cap); u->held[i].used; i = (i + 1) & (u->held_cap - 1))
		if (u->held[i].pid == pid && u->held[i].addr == addr)
			return &u->held[i];
	u->held[i] = (struct uprobe_held){ .addr = addr, .pid = pid, .used = 1 };
	u->nr_held++;
	return &u->held[i];
}

/* Tell glibc's pthread_spin_init from pthread_spin_unlock (one function). */
static void spin_track(struct sync_uprobes *u, const struct uprobe_probe *probe, struct mtx_sync_record *r)
{
	struct uprobe_held *h;
	if (r->kind != MTX_SYNC_KIND_SPINLOCK || !(h = held_of(u, r->pid, r->addr)))
		return;
	if ((r->op == MTX_SYNC_OP_LOCK || r->op == MTX_SYNC_OP_TRYLOCK) && r->result == 0)
		h->count++;
	else if (r->op == MTX_SYNC_OP_UNLOCK && probe->init_too && h->count <= 0)
		r->op = MTX_SYNC_OP_INIT;
	else if (r->op == MTX_SYNC_OP_UNLOCK)
		h->count--;
	else if (r->op == MTX_SYNC_OP_INIT || r->op == MTX_SYNC_OP_DESTROY)
		h->count = 0;
}

static size_t slot_of(int32_t tid, size_t cap)
{
	return ((uint32_t)tid * 2654435761u) & (cap - 1);
}

static int grow_threads(struct sync_uprobes *u)
{
	size_t cap = u->threads_cap ? u->threads_cap * 2 : 64;
	struct uprobe_thread *t = calloc(cap, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < u->threads_cap; i++) {
		size_t j;
		if (!u->threads[i].tid)
			continue;
		for (j = slot_of(u->threads[i].tid, cap); t[j].tid; j = (j + 1) & (cap - 1))
			;
		t[j] = u->threads[i];
	}
	free(u->threads);
	u->threads = t;
	u->threads_cap = cap;
	return 0;
}

/* The state of @tid, created empty when new; NULL when memory ran out. */
static struct uprobe_thread *thread_of(struct sync_uprobes *u, int32_t tid)
{
	size_t i;
	if ((u->nr_threads + 1) * 2 > u->threads_cap && grow_threads(u))
		return NULL;
	for (i = slot_of(tid, u->threads_cap); u->threads[i].tid; i = (i + 1) & (u->threads_cap - 1))
		if (u->threads[i].tid == tid)
			return &u->threads[i];
	memset(&u->threads[i], 0, sizeof(u->threads[i]));
	u->threads[i].tid = tid;
	u->nr_threads++;
	return &u->threads[i];
}

/* The tid of the thread whose handle is @pd, 0 if none seen. */
static int32_t tid_of_pd(const struct sync_uprobes *u, uint64_t pd)
{
	for (size_t i = 0; pd && i < u->threads_cap; i++)
		if (u->threads[i].tid && u->threads[i].pd == pd)
			return u->threads[i].tid;
	return 0;
}

static uint64_t value_of(struct sync_uprobes *u, uint8_t from, const struct pending *p, uint64_t rv,
			 const struct uprobe_thread *t)
{
	switch (from) {
	case FROM_A0: return p->a[0];
	case FROM_A1: return p->a[1];
	case FROM_A2: return (uint32_t)p->a[2]; /* counts and values are unsigned int */
	case FROM_A0_U32: return (uint32_t)p->a[0];
	case FROM_RETVAL: return rv;
	case FROM_SEM_VALUE: return (p->a[1] & O_CREAT) ? (uint32_t)p->a[3] : 0;
	case FROM_SELF_PD: return t->pd;
	case FROM_SELF_TID: return (uint32_t)t->tid;
	case FROM_CHILD_TID: return (uint32_t)p->child_tid;
	case FROM_TID_OF_A0: return (uint32_t)tid_of_pd(u, p->a[0]);
	default: return 0; /* FROM_NONE; FROM_CHILD_PD is filled by the caller */
	}
}

static int32_t result_of(uint8_t how, uint64_t rv)
{
	switch (how) {
	case RESULT_RETURNED: return (int32_t)rv;
	case RESULT_ERRNO: return (int32_t)rv == 0 ? 0 : -1;
	case RESULT_POINTER: return rv ? 0 : -1;
	default: return 0;
	}
}

/* The record of call @p of @t, which returned @rv at @end_ns. */
static void make_record(struct sync_uprobes *u, const struct uprobe_thread *t, int32_t pid,
			const struct pending *p, uint64_t end_ns, uint64_t rv, struct mtx_sync_record *r)
{
	const struct uprobe_spec *spec = u->probes[p->probe].spec;
	memset(r, 0, sizeof(*r));
	r->tid = t->tid;
	r->pid = pid;
	r->kind = spec->kind;
	r->op = spec->op;
	r->start_ns = spec->stamp == STAMP_AFTER ? end_ns : p->t_ns;
	r->end_ns = spec->stamp == STAMP_AROUND || spec->stamp == STAMP_AFTER ? end_ns : p->t_ns;
	r->addr = value_of(u, spec->obj, p, rv, t);
	r->arg = value_of(u, spec->arg, p, rv, t);
	r->result = result_of(spec->result, rv);
	r->callsite = p->callsite;
}

/* A create returned: its record needs the new thread's handle, which that
 * thread's start_thread entry gives, before or after this. */
static void created(struct sync_uprobes *u, struct mtx_sync_record *r, int32_t child_tid,
		    sync_record_fn emit, void *ctx)
{
	struct uprobe_thread *c;
	if (r->result != 0 || !child_tid || !u->has_start_thread ||
	    !(c = thread_of(u, child_tid))) {
		emit(ctx, r);
		return;
	}
	if (c->pd) {
		r->addr = c->pd;
		emit(ctx, r);
		return;
	}
	c->parked = *r;
	c->has_parked = 1;
}

static void on_entry(struct sync_uprobes *u, struct uprobe_thread *t, const struct mtx_event *ev,
		     sync_record_fn emit, void *ctx)
{
	const struct uprobe_spec *spec = u->probes[ev->u.uprobe.probe].spec;
	const uint64_t *arg = ev->u.uprobe.arg;
	struct pending p = { .t_ns = ev->ts_ns, .probe = ev->u.uprobe.probe,
			     .callsite = arg[UPROBE_ARG_CALLSITE], .ip = arg[UPROBE_ARG_IP] };
	struct mtx_sync_record r;

	if (spec->kind == MTX_SYNC_KIND__COUNT) { /* start_thread */
		t->pd = arg[0];
		if (t->has_parked) {
			t->parked.addr = t->pd;
			t->has_parked = 0;
			emit(ctx, &t->parked);
		}
		return;
	}
	memcpy(p.a, arg, sizeof(p.a));
	p.sp = arg[UPROBE_ARG_SP];
	p.runtime = uprobe_called_by_runtime(u, &u->probes[p.probe], p.ip, p.callsite);
	/* Same stack pointer as the call the thread is in: no new frame, so
	 * not a new call. Either a retry loop jumping back over the probe
	 * (pthread_spin_lock, probed past its first instruction), or glibc
	 * tail-calling another probed function (cnd_destroy jumps to
	 * pthread_cond_destroy). Each hit also arms the return probe once
	 * more (the kernel chains them), so each gets its return. */
	if (t->depth && t->stack[t->depth - 1].sp == p.sp) {
		struct pending *top = &t->stack[t->depth - 1];
		if (top->probe == p.probe && top->a[0] == p.a[0]) {
			top->repeats++;
			return;
		}
		p.runtime = 1;
	}
	if (spec->stamp == STAMP_ENTRY_ONLY) {
		/* A thread exits once: thrd_exit tail-calls pthread_exit. */
		if (!p.runtime && !t->exited) {
			make_record(u, t, ev->pid, &p, ev->ts_ns, 0, &r);
			emit(ctx, &r);
			t->exited = 1;
		}
		return;
	}
	if (t->depth == MAX_DEPTH) {
		u->unpaired++;
		return;
	}
	t->stack[t->depth++] = p;
}

static void on_return(struct sync_uprobes *u, struct uprobe_thread *t, const struct mtx_event *ev,
		      sync_record_fn emit, void *ctx)
{
	struct mtx_sync_record r;
	struct pending p;
	int at = t->depth - 1;

	/* Its entry is the innermost with the same probe; anything above it
	 * lost its return (a longjmp out, or a record lost). */
	while (at >= 0 && t->stack[at].probe != ev->u.uprobe.probe)
		at--;
	if (at < 0) {
		u->unpaired++;
		return;
	}
	u->unpaired += (uint64_t)(t->depth - 1 - at);
	if (t->stack[at].repeats) {
		t->stack[at].repeats--;
		t->depth = (uint8_t)(at + 1);
		return;
	}
	p = t->stack[at];
	t->depth = (uint8_t)at;
	if (p.runtime)
		return;
	make_record(u, t, ev->pid, &p, ev->ts_ns, ev->u.uprobe.arg[0], &r);
	spin_track(u, &u->probes[p.probe], &r);
	if (u->probes[p.probe].spec->obj == FROM_CHILD_PD)
		created(u, &r, p.child_tid, emit, ctx);
	else
		emit(ctx, &r);
}

/* A new thread: tell the outermost create its creator is in, and forget
 * what an earlier thread of the same tid left. */
static void on_fork(struct sync_uprobes *u, const struct mtx_event *ev)
{
	struct uprobe_thread *t = thread_of(u, ev->tid), *creator;
	if (!t)
		return;
	if (t->depth || t->pd || t->exited) {
		int32_t tid = t->tid;
		struct mtx_sync_record parked = t->parked;
		uint8_t has_parked = t->has_parked;
		memset(t, 0, sizeof(*t));
		t->tid = tid;
		t->parked = parked;
		t->has_parked = has_parked;
	}
	if (ev->pid == ev->tid)
		return; /* a process: fork() is not a thread create */
	creator = thread_of(u, ev->u.fork.ptid);
	for (int i = 0; creator && i < creator->depth; i++) {
		struct pending *p = &creator->stack[i];
		if (u->probes[p->probe].spec->obj == FROM_CHILD_PD && !p->runtime) {
			if (!p->child_tid)
				p->child_tid = ev->tid;
			break;
		}
	}
}

int sync_uprobes_event(struct sync_uprobes *u, const struct mtx_event *ev, sync_record_fn emit,
		       void *ctx)
{
	struct uprobe_thread *t;
	if (ev->type == MTX_EV_FORK) {
		on_fork(u, ev);
		return 0;
	}
	if (ev->type != MTX_EV_UPROBE)
		return 0;
	if (ev->u.uprobe.probe >= u->nr_probes || !(t = thread_of(u, ev->tid))) {
		u->unpaired++;
		return 1;
	}
	if (ev->u.uprobe.at_return)
		on_return(u, t, ev, emit, ctx);
	else
		on_entry(u, t, ev, emit, ctx);
	return 1;
}

uint64_t sync_uprobes_finish(struct sync_uprobes *u, sync_record_fn emit, void *ctx)
{
	for (size_t i = 0; i < u->threads_cap; i++) {
		struct uprobe_thread *t = &u->threads[i];
		if (!t->tid)
			continue;
		if (t->has_parked) {
			t->has_parked = 0;
			emit(ctx, &t->parked);
		}
		for (int d = 0; d < t->depth; d++)
			u->unpaired += !t->stack[d].runtime;
		t->depth = 0;
	}
	return u->unpaired;
}

void sync_uprobes_pair_free(struct sync_uprobes *u)
{
	free(u->threads);
	free(u->held);
	u->threads = NULL;
	u->held = NULL;
	u->threads_cap = u->nr_threads = u->held_cap = u->nr_held = 0;
}
