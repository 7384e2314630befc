/*
 * tests/unit/test-sync-region.c - the sync region: the collector side
 * (collector/sync/region.c) against the writer code the preload library runs
 * (collector/preload/lane.h), in one process.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector/preload/lane.h"
#include "collector/sync/region.h"
#include "collector/sync/pump.h"
#include "collector/sync/tsc-map.h"

#include <time.h>
#include <x86intrin.h>

/* These tests write made-up stamps: keep the region's stamps in ns. */
static void keep_ns_stamps(void)
{
	setenv("MTX_SYNC_CLOCK", "monotonic", 1);
}

TestSuite(sync_region, .init = keep_ns_stamps);

/* What the emit callback saw. */
struct seen {
	size_t count;
	size_t cap;
	struct mtx_event *ev;
	pthread_mutex_t lock; /* drained from a thread in some tests */
};

static void seen_emit(void *ctx, const struct mtx_event *ev)
{
	struct seen *s = ctx;

	if (s->count == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->ev = realloc(s->ev, s->cap * sizeof(*s->ev));
		cr_assert_not_null(s->ev);
	}
	s->ev[s->count++] = *ev;
}

static void open_view(struct sync_region *r, struct mtx_lane_region *view)
{
	size_t size;
	void *base = sync_region_map(r, &size);

	cr_assert_eq(lane_region_open(view, base, size), 0);
}

static void write_n(struct mtx_lane_region *view, struct mtx_lane_writer *w, uint64_t from,
		    uint64_t n)
{
	for (uint64_t i = from; i < from + n; i++)
		lane_write(view, w, MTX_SYNC_KIND_MUTEX, MTX_SYNC_OP_LOCK, 0x1000, i, i, i + 1, 0,
			   0xc0de);
}

Test(sync_region, names_come_from_the_tables)
{
	cr_assert_str_eq(sync_kind_name(MTX_SYNC_KIND_MUTEX), "mutex");
	cr_assert_str_eq(sync_kind_name(MTX_SYNC_KIND_THREAD), "thread");
	cr_assert_null(sync_kind_name(MTX_SYNC_KIND__COUNT));
	cr_assert_str_eq(sync_op_name(MTX_SYNC_OP_TIMEDRDLOCK), "timedrdlock");
	cr_assert_str_eq(sync_op_name(MTX_SYNC_OP_PTHREAD_KILL), "pthread_kill");
	cr_assert_str_eq(sync_op_name(MTX_SYNC_OP_SIGQUEUE), "sigqueue");
	cr_assert_null(sync_op_name(MTX_SYNC_OP__COUNT));
	cr_assert_null(sync_op_name(65535));
}

Test(sync_region, create_gives_env_and_empty_drain)
{
	struct sync_region *r;
	struct seen s = { 0 };

	cr_assert_eq(sync_region_create(&r), 0);
	cr_assert_eq(strncmp(sync_region_env(r), MTX_SHM_ENV "=/mtx-sync-",
			     strlen(MTX_SHM_ENV "=/mtx-sync-")), 0);
	cr_assert_eq(sync_region_drain(r, seen_emit, &s), 0);
	cr_assert_eq(sync_region_lost(r), 0);
	sync_region_destroy(r);
	cr_assert_eq(sync_region_create_sized(&r, 4, 48), -EINVAL);
	cr_assert_eq(sync_region_create_sized(&r, 0, 64), -EINVAL);
	free(s.ev);
}

Test(sync_region, drain_keeps_lane_order_and_fields)
{
	struct sync_region *r;
	struct mtx_lane_region view;
	struct mtx_lane_writer w = { 0 };
	struct seen s = { 0 };

	cr_assert_eq(sync_region_create_sized(&r, 4, 256), 0);
	open_view(r, &view);
	/* a real thread: the drain frees lanes whose owner does not exist */
	cr_assert_eq(lane_claim(&view, &w, getpid(), gettid(), 0), 0);
	write_n(&view, &w, 0, 200);
	cr_assert_eq(sync_region_drain(r, seen_emit, &s), 200);
	for (size_t i = 0; i < 200; i++) {
		const struct mtx_event *ev = &s.ev[i];

		cr_assert_eq(ev->type, MTX_EV_SYNC);
		cr_assert_eq(ev->cpu, -1);
		cr_assert_eq(ev->pid, getpid());
		cr_assert_eq(ev->tid, gettid());
		cr_assert_eq(ev->ts_ns, i);
		cr_assert_eq(ev->u.sync.start_ns, i);
		cr_assert_eq(ev->u.sync.end_ns, i + 1);
		cr_assert_eq(ev->u.sync.arg, i);
		cr_assert_eq(ev->u.sync.addr, 0x1000);
		cr_assert_eq(ev->u.sync.callsite, 0xc0de);
		cr_assert_eq(ev->u.sync.kind, MTX_SYNC_KIND_MUTEX);
		cr_assert_eq(ev->u.sync.op, MTX_SYNC_OP_LOCK);
	}
	/* wraps around the ring several times */
	s.count = 0;
	for (int round = 0; round < 10; round++) {
		write_n(&view, &w, 1000 + 200 * round, 200);
		sync_region_drain(r, seen_emit, &s);
	}
	cr_assert_eq(s.count, 2000);
	for (size_t i = 0; i < 2000; i++)
		cr_assert_eq(s.ev[i].u.sync.arg, 1000 + i);
	cr_assert_eq(sync_region_lost(r), 0);
	sync_region_destroy(r);
	free(s.ev);
}

Test(sync_region, exited_lanes_are_reused_after_drain)
{
	struct sync_region *r;
	struct mtx_lane_region view;
	struct seen s = { 0 };

	cr_assert_eq(sync_region_create_sized(&r, 4, 64), 0);
	open_view(r, &view);
	/* 1000 short "threads", far more than lanes */
	for (int t = 0; t < 1000; t++) {
		struct mtx_lane_writer w = { 0 };

		cr_assert_eq(lane_claim(&view, &w, getpid(), gettid(), 0), 0, "thread %d got no lane", t);
		write_n(&view, &w, 0, 3);
		lane_release(&w);
		if (t % 3 == 2)
			sync_region_drain(r, seen_emit, &s);
	}
	sync_region_drain(r, seen_emit, &s);
	cr_assert_eq(s.count, 3000);
	cr_assert_leq(view.hdr->lanes_used, 3);
	cr_assert_eq(sync_region_lost(r), 0);

	/* without a drain in between, the fifth live thread finds no lane */
	struct mtx_lane_writer ws[5];

	memset(ws, 0, sizeof(ws));
	for (int t = 0; t < 4; t++)
		cr_assert_eq(lane_claim(&view, &ws[t], getpid(), gettid(), 0), 0);
	cr_assert_eq(lane_claim(&view, &ws[4], getpid(), gettid(), 0), -EAGAIN);
	sync_region_destroy(r);
	free(s.ev);
}

/* The stack an op carries into the lane (--sync-stacks). */
static void write_stack(struct mtx_lane_region *view, struct mtx_lane_writer *w, uint16_t op,
			uint64_t arg, uint64_t t, const uint64_t *pcs, uint32_t nr)
{
	struct mtx_sync_record *rec = lane_begin_op(view, w, MTX_SYNC_KIND_MUTEX, op, 0x1000, arg, t,
						    nr ? pcs[0] : 0, __builtin_frame_address(0));

	cr_assert_not_null(rec);
	cr_assert_eq(lane_end_op_stack(view, w, rec, 0, t + 1, 0, (struct lane_cost){ 0, 0 }, pcs, nr), 1);
}

/* --sync-stacks: frames records precede their op in the lane, hold the
 * pcs in order, and an op without a stack has none. */
Test(sync_region, frames_records_precede_their_op)
{
	struct sync_region *r;
	struct mtx_lane_region view;
	struct mtx_lane_writer w = { 0 };
	struct seen s = { 0 };
	uint64_t pcs[MTX_SYNC_STACK_MAX + 5];
	const struct mtx_sync_frames *f;

	for (size_t i = 0; i < sizeof(pcs) / sizeof(pcs[0]); i++)
		pcs[i] = 0x400000 + 16 * i;
	cr_assert_eq(sync_region_create_sized(&r, 2, 256), 0);
	sync_region_set_stack_frames(r, 13);
	open_view(r, &view);
	cr_assert_eq(view.hdr->stack_frames, 13);
	cr_assert_eq(lane_claim(&view, &w, getpid(), gettid(), 0), 0);
	/* 13 pcs: three frames records (6 + 6 + 1), then the op */
	write_stack(&view, &w, MTX_SYNC_OP_LOCK, 1, 10, pcs, 13);
	/* too many pcs: cut at MTX_SYNC_STACK_MAX */
	write_stack(&view, &w, MTX_SYNC_OP_UNLOCK, 2, 12, pcs, MTX_SYNC_STACK_MAX + 5);
	/* no stack: no frames */
	write_stack(&view, &w, MTX_SYNC_OP_TRYLOCK, 3, 13, pcs, 0);
	cr_assert_eq(sync_region_drain(r, seen_emit, &s), 3 + 1 + MTX_SYNC_FRAMES_MAX_RECORDS + 1 + 1);
	cr_assert_eq(sync_region_lost(r), 0);
	for (unsigned i = 0; i < 3; i++) {
		f = (const void *)&s.ev[i].u.sync;
		cr_assert_eq(f->kind, MTX_SYNC_KIND_FRAMES);
		cr_assert_eq(f->index, i);
		cr_assert_eq(f->count, 3);
		cr_assert_eq(f->nr, i < 2 ? 6 : 1);
		for (unsigned k = 0; k < f->nr; k++)
			cr_assert_eq(f->pcs[k], pcs[6 * i + k]);
	}
	cr_assert_eq(s.ev[3].u.sync.op, MTX_SYNC_OP_LOCK);
	cr_assert_eq(s.ev[3].u.sync.arg, 1);
	f = (const void *)&s.ev[4 + MTX_SYNC_FRAMES_MAX_RECORDS - 1].u.sync;
	cr_assert_eq(f->kind, MTX_SYNC_KIND_FRAMES);
	cr_assert_eq(f->pcs[f->nr - 1], pcs[MTX_SYNC_STACK_MAX - 1]);
	cr_assert_eq(s.ev[4 + MTX_SYNC_FRAMES_MAX_RECORDS].u.sync.op, MTX_SYNC_OP_UNLOCK);
	cr_assert_eq(s.ev[5 + MTX_SYNC_FRAMES_MAX_RECORDS].u.sync.op, MTX_SYNC_OP_TRYLOCK);
	/* a frames record that cannot be right is rejected and counted */
	write_stack(&view, &w, MTX_SYNC_OP_LOCK, 4, 14, pcs, 2);
	((struct mtx_sync_frames *)&w.recs[(mtx_lane_head(w.lane->head) - 2) & w.mask])->nr = 7;
	s.count = 0;
	cr_assert_eq(sync_region_drain(r, seen_emit, &s), 1);
	cr_assert_eq(sync_region_lost(r), 1);
	sync_region_destroy(r);
	free(s.ev);
}

Test(sync_region, full_lane_counts_losses_then_recovers)
{
	struct sync_region *r;
	struct mtx_lane_region view;
	struct mtx_lane_writer w = { 0 };
	struct seen s = { 0 };
	uint64_t lost;

	cr_assert_eq(sync_region_create_sized(&r, 2, 64), 0);
	open_view(r, &view);
	cr_assert_eq(lane_claim(&view, &w, getpid(), gettid(), 0), 0);
	/* nobody drains, and the collector (this process) lives: the library
	 * would wait for ever; with a budget the first overflow waits it out,
	 * the rest don't */
	view.wait_budget_ns = 100000000ull;
	write_n(&view, &w, 0, 200);
	lost = sync_region_lost(r);
	cr_assert_eq(sync_region_drain(r, seen_emit, &s) + lost, 200);
	cr_assert_eq(s.count, 64);
	cr_assert_eq(view.hdr->lost_full, lost);
	/* drained: writing works again, nothing more is lost */
	write_n(&view, &w, 1000, 10);
	cr_assert_eq(sync_region_drain(r, seen_emit, &s), 10);
	cr_assert_eq(sync_region_lost(r), lost);
	cr_assert_eq(s.ev[s.count - 1].u.sync.arg, 1009);
	sync_region_destroy(r);
	free(s.ev);
}

/* ---- concurrency: writer threads + a draining thread -------------------- */

#define WRITERS 6
#define PER_WRITER 300000
#define WRITER_BASE 1000000000ull /* writer i's records carry arg i*BASE + seq */

struct conc {
	struct sync_region *r;
	struct mtx_lane_region view;
	int stop;
	size_t per_tid_next[WRITERS];
	size_t total;
	int order_ok;
};

struct writer_arg {
	struct conc *c;
	int idx;
};

static void *writer_main(void *p)
{
	struct writer_arg *a = p;
	struct mtx_lane_writer w = { 0 };

	cr_assert_eq(lane_claim(&a->c->view, &w, getpid(), gettid(), 1), 0);
	write_n(&a->c->view, &w, (uint64_t)a->idx * WRITER_BASE, PER_WRITER);
	lane_release(&w);
	return NULL;
}

static void conc_emit(void *ctx, const struct mtx_event *ev)
{
	struct conc *c = ctx;
	uint64_t idx = ev->u.sync.arg / WRITER_BASE, seq = ev->u.sync.arg % WRITER_BASE;

	if (idx >= WRITERS || seq != c->per_tid_next[idx]) {
		if (c->order_ok)
			cr_log_error("writer %llu: record %llu where %llu was due",
				     (unsigned long long)idx, (unsigned long long)seq,
				     idx < WRITERS ? (unsigned long long)c->per_tid_next[idx] : 0ull);
		c->order_ok = 0;
	} else
		c->per_tid_next[idx]++;
	c->total++;
}

static void *drainer_main(void *p)
{
	struct conc *c = p;

	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE))
		sync_region_drain(c->r, conc_emit, c);
	sync_region_drain(c->r, conc_emit, c);
	return NULL;
}

Test(sync_region, concurrent_writers_exact_counts_and_order, .timeout = 60)
{
	struct conc c = { .order_ok = 1 };
	pthread_t wt[WRITERS], dt;
	struct writer_arg args[WRITERS];

	/* small lanes: writers hit the full-lane wait all the time */
	cr_assert_eq(sync_region_create_sized(&c.r, 8, 128), 0);
	open_view(c.r, &c.view);
	/* This is about order and counts, not the budget: under a loaded make
	 * check the drainer was once kept off the CPU past the 500 ms a writer
	 * waits, and the writer dropped what came after, as it should. */
	c.view.wait_budget_ns = 60ull * 1000000000ull;
	pthread_create(&dt, NULL, drainer_main, &c);
	for (int i = 0; i < WRITERS; i++) {
		args[i] = (struct writer_arg){ &c, i };
		pthread_create(&wt[i], NULL, writer_main, &args[i]);
	}
	for (int i = 0; i < WRITERS; i++)
		pthread_join(wt[i], NULL);
	__atomic_store_n(&c.stop, 1, __ATOMIC_RELEASE);
	pthread_join(dt, NULL);
	cr_assert(c.order_ok, "lost %llu, full %llu, nolane %llu, total %zu",
		  (unsigned long long)sync_region_lost(c.r), (unsigned long long)c.view.hdr->lost_full,
		  (unsigned long long)c.view.hdr->lost_nolane, c.total);
	cr_assert_eq(c.total, (size_t)WRITERS * PER_WRITER);
	for (int i = 0; i < WRITERS; i++)
		cr_assert_eq(c.per_tid_next[i], PER_WRITER);
	cr_assert_eq(sync_region_lost(c.r), 0);
	sync_region_destroy(c.r);
}

/* ---- signal handlers writing into the lane they interrupted -------------- */

/*
 * The writer is this test's thread; another thread sends it SIGUSR1 and
 * SIGUSR2 as fast as it can, and each handler writes a record (SIGUSR2's
 * may interrupt SIGUSR1's: nested handlers). A third thread drains, slowly,
 * so that with small lanes the writer and the handlers keep finding the lane
 * full and waiting. Every record must come out once, intact, the writer's in
 * order, and nothing may be counted lost.
 */
static struct mtx_lane_region sig_view;
static __thread struct mtx_lane_writer sig_w;
static uint64_t handler_writes; /* atomic: handlers nest */

static void on_signal_write(int sig)
{
	int saved = errno;

	/* spin a little first, so that the other signal lands in here too */
	for (volatile int i = 0; i < 100; i++)
		;
	lane_write(&sig_view, &sig_w, MTX_SYNC_KIND_SIGNAL,
		   sig == SIGUSR1 ? MTX_SYNC_OP_RAISE : MTX_SYNC_OP_KILL, (uint64_t)sig, 7, 5, 6, 0, 0);
	__atomic_fetch_add(&handler_writes, 1, __ATOMIC_RELAXED);
	errno = saved;
}

struct sig_arg {
	struct sync_region *r;
	pthread_t target;
	int stop, stop_drain; /* the pester's, the drainer's */
	unsigned drain_sleep_us;
};

static void *pester_main(void *p)
{
	struct sig_arg *a = p;

	for (unsigned n = 0; !__atomic_load_n(&a->stop, __ATOMIC_ACQUIRE); n++) {
		pthread_kill(a->target, n & 1 ? SIGUSR2 : SIGUSR1);
		for (volatile int i = 0; i < 200; i++)
			;
	}
	return NULL;
}

struct sig_seen {
	uint64_t main_next;
	uint64_t main_count, handler_count;
	int order_ok, fields_ok;
};

static void sig_emit(void *ctx, const struct mtx_event *ev)
{
	struct sig_seen *s = ctx;
	const struct mtx_sync_record *r = &ev->u.sync;

	if (r->kind == MTX_SYNC_KIND_SIGNAL) {
		s->handler_count++;
		if (r->addr != (r->op == MTX_SYNC_OP_RAISE ? SIGUSR1 : SIGUSR2) || r->arg != 7 ||
		    r->start_ns != 5 || r->end_ns != 6 || r->result != 0)
			s->fields_ok = 0;
		return;
	}
	if (r->arg != s->main_next)
		s->order_ok = 0;
	if (r->kind != MTX_SYNC_KIND_MUTEX || r->op != MTX_SYNC_OP_LOCK || r->addr != 0x1000 ||
	    r->start_ns != r->arg || r->end_ns != r->arg + 1 || r->callsite != 0xc0de || r->result != 0)
		s->fields_ok = 0;
	s->main_next = r->arg + 1;
	s->main_count++;
}

struct slow_drain {
	struct sig_arg *a;
	struct sig_seen *seen;
};

static void *slow_drainer_main(void *p)
{
	struct slow_drain *d = p;

	while (!__atomic_load_n(&d->a->stop_drain, __ATOMIC_ACQUIRE)) {
		struct timespec ts = { 0, (long)d->a->drain_sleep_us * 1000 };

		sync_region_drain(d->a->r, sig_emit, d->seen);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* Write at least @n records under a hail of signals into lanes of
 * @lane_records, drained every @drain_sleep_us, and go on until the
 * handlers wrote @n too (however busy the machine, and however many signals
 * the kernel merged); @no_rseq: as without an rseq area. */
static void signals_into_full_lanes(uint32_t lane_records, unsigned drain_sleep_us, uint64_t n,
				    int no_rseq)
{
	struct sig_arg a = { .drain_sleep_us = drain_sleep_us };
	uint64_t written = 0;
	struct sig_seen s = { .order_ok = 1, .fields_ok = 1 };
	struct slow_drain d = { &a, &s };
	struct sigaction sa;
	pthread_t pt, dt;

	handler_writes = 0;
	cr_assert_eq(sync_region_create_sized(&a.r, 2, lane_records), 0);
	open_view(a.r, &sig_view);
	sig_view.wait_budget_ns = 60ull * 1000000000ull; /* about order, not the budget */
	memset(&sig_w, 0, sizeof(sig_w));
	cr_assert_eq(lane_claim(&sig_view, &sig_w, getpid(), gettid(), 0), 0);
	if (no_rseq) {
		sig_w.no_rseq = 1;
		sig_w.rseq_cs = &sig_w.rseq_none;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal_write;
	sigemptyset(&sa.sa_mask); /* SIGUSR2 may interrupt SIGUSR1's handler */
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	a.target = pthread_self();
	pthread_create(&dt, NULL, slow_drainer_main, &d);
	pthread_create(&pt, NULL, pester_main, &a);
	while (written < n || __atomic_load_n(&handler_writes, __ATOMIC_RELAXED) < n) {
		write_n(&sig_view, &sig_w, written, 100);
		written += 100;
	}
	/* No signal comes once the pester is gone, and one still pending is
	 * dropped (SIG_IGN), before the drainer stops: a handler that ran
	 * after that would wait for a drain that does not come. */
	__atomic_store_n(&a.stop, 1, __ATOMIC_RELEASE);
	pthread_join(pt, NULL);
	signal(SIGUSR1, SIG_IGN);
	signal(SIGUSR2, SIG_IGN);
	__atomic_store_n(&a.stop_drain, 1, __ATOMIC_RELEASE);
	pthread_join(dt, NULL);
	sync_region_drain(a.r, sig_emit, &s);
	cr_assert(s.order_ok, "the writer's records out of order");
	cr_assert(s.fields_ok, "a record was not intact");
	cr_assert_eq(s.main_count, written);
	cr_assert_eq(s.handler_count, handler_writes, "%llu handler records for %llu writes",
		     (unsigned long long)s.handler_count, (unsigned long long)handler_writes);
	cr_assert_eq(sync_region_lost(a.r), 0);
	sync_region_destroy(a.r);
}

Test(sync_region, signal_handlers_nest_without_losing_records, .timeout = 120)
{
	if (!lane_rseq_cs_field())
		cr_skip_test("this thread has no rseq area (glibc < 2.35, or registration refused)");
	signals_into_full_lanes(1u << 22, 100, 20000, 0);
}

Test(sync_region, signal_handlers_wait_for_a_full_lane_like_anyone, .timeout = 120)
{
	if (!lane_rseq_cs_field())
		cr_skip_test("this thread has no rseq area (glibc < 2.35, or registration refused)");
	signals_into_full_lanes(64, 200, 5000, 0);
}

Test(sync_region, without_rseq_signals_are_blocked_and_nothing_is_lost, .timeout = 120)
{
	signals_into_full_lanes(64, 200, 5000, 1);
}

/* ---- ops in progress --------------------------------------------------- */

/* The ops of an owner that is gone are emitted once: returned ones as they
 * returned, the others as calls that did not return, unstamped ones not. */
Test(sync_region, ops_of_a_gone_owner_are_the_calls_it_died_in)
{
	struct sync_region *r;
	struct mtx_lane_region view;
	struct mtx_lane_writer w = { 0 };
	struct seen s = { 0 };
	struct mtx_sync_record *wait, *post, *lock;

	cr_assert_eq(sync_region_create_sized(&r, 2, 64), 0);
	open_view(r, &view);
	cr_assert_eq(lane_claim(&view, &w, getpid(), gettid(), 0), 0);
	write_n(&view, &w, 0, 2);
	wait = lane_begin_op(&view, &w, MTX_SYNC_KIND_SEM, MTX_SYNC_OP_WAIT, 0x2000, 0, 100, 0xa, &s);
	post = lane_begin_op(&view, &w, MTX_SYNC_KIND_SEM, MTX_SYNC_OP_POST, 0x3000, 0, 110, 0xb, &s);
	lock = lane_begin_op(&view, &w, MTX_SYNC_KIND_MUTEX, MTX_SYNC_OP_LOCK, 0x4000, 0, 0, 0xc, &s);
	cr_assert(wait && post && lock);
	cr_assert_eq(mtx_lane_nr_ops(w.lane->head), 3);
	post->result = 0;
	post->end_ns = 110; /* returned; only its record was still to come */
	lane_release(&w);
	cr_assert_eq(sync_region_drain(r, seen_emit, &s), 4);
	cr_assert_eq(s.ev[2].u.sync.op, MTX_SYNC_OP_WAIT);
	cr_assert_eq(s.ev[2].u.sync.result, MTX_SYNC_RESULT_UNRETURNED);
	cr_assert_eq(s.ev[2].u.sync.start_ns, 100);
	cr_assert_eq(s.ev[2].u.sync.end_ns, 100);
	cr_assert_eq(s.ev[2].u.sync.addr, 0x2000);
	cr_assert_eq(s.ev[2].u.sync.tid, gettid());
	cr_assert_eq(s.ev[3].u.sync.op, MTX_SYNC_OP_POST);
	cr_assert_eq(s.ev[3].u.sync.result, 0);
	cr_assert_eq(s.ev[3].u.sync.end_ns, 110);
	/* taken once, and the next owner starts with none */
	cr_assert_eq(sync_region_drain(r, seen_emit, &s), 0);
	cr_assert_eq(lane_claim(&view, &w, getpid(), gettid(), 0), 0);
	cr_assert_eq(mtx_lane_nr_ops(w.lane->head), 0);
	cr_assert_eq(sync_region_lost(r), 0);
	sync_region_destroy(r);
	free(s.ev);
}

/* Nested deeper than a lane holds: the op is counted lost, not written
 * over another. */
Test(sync_region, ops_nested_past_the_slots_are_counted)
{
	struct sync_region *r;
	struct mtx_lane_region view;
	struct mtx_lane_writer w = { 0 };
	struct seen s = { 0 };
	struct mtx_sync_record *recs[MTX_LANE_MAX_OPS];

	cr_assert_eq(sync_region_create_sized(&r, 2, 128), 0);
	open_view(r, &view);
	cr_assert_eq(lane_claim(&view, &w, getpid(), gettid(), 0), 0);
	for (uint32_t i = 0; i < MTX_LANE_MAX_OPS; i++) {
		recs[i] = lane_begin_op(&view, &w, MTX_SYNC_KIND_MUTEX, MTX_SYNC_OP_LOCK, 0x1000, i,
					1000 + i, 0, &s);
		cr_assert_not_null(recs[i]);
	}
	cr_assert_null(lane_begin_op(&view, &w, MTX_SYNC_KIND_MUTEX, MTX_SYNC_OP_LOCK, 0x1000, 99,
				     2000, 0, &s));
	cr_assert_eq(view.hdr->lost_full, 1);
	for (uint32_t i = MTX_LANE_MAX_OPS; i-- > 0;)
		cr_assert_eq(lane_end_op(&view, &w, recs[i], 0, 3000 + i, 0), 1);
	cr_assert_eq(mtx_lane_nr_ops(w.lane->head), 0);
	cr_assert_eq(sync_region_drain(r, seen_emit, &s), MTX_LANE_MAX_OPS);
	/* innermost first: completion order */
	cr_assert_eq(s.ev[0].u.sync.arg, MTX_LANE_MAX_OPS - 1);
	cr_assert_eq(s.ev[MTX_LANE_MAX_OPS - 1].u.sync.arg, 0);
	sync_region_destroy(r);
	free(s.ev);
}

/* ---- robustness ------------------------------------------------------------ */

Test(sync_region, scribbled_indices_are_counted_not_followed)
{
	struct sync_region *r;
	struct mtx_lane_region view;
	struct mtx_lane_writer w = { 0 };
	struct seen s = { 0 };

	cr_assert_eq(sync_region_create_sized(&r, 2, 64), 0);
	open_view(r, &view);
	cr_assert_eq(lane_claim(&view, &w, getpid(), gettid(), 0), 0);
	write_n(&view, &w, 0, 5);
	w.lane->head = 1ull << 40; /* the target scribbles */
	cr_assert_eq(sync_region_drain(r, seen_emit, &s), 0);
	cr_assert_gt(sync_region_lost(r), 0);
	/* a bad kind in one record: that record is skipped and counted */
	w.limit = w.lane->head + 64;
	write_n(&view, &w, 0, 3);
	w.recs[(mtx_lane_head(w.lane->head) - 2) & w.mask].kind = 999;
	uint64_t before = sync_region_lost(r);
	cr_assert_eq(sync_region_drain(r, seen_emit, &s), 2);
	cr_assert_eq(sync_region_lost(r), before + 1);
	sync_region_destroy(r);
	free(s.ev);
}

Test(sync_region, lanes_of_dead_threads_are_reclaimed)
{
	struct sync_region *r;
	struct mtx_lane_region view;
	struct mtx_lane_writer w1 = { 0 }, w2 = { 0 }, w3 = { 0 };
	struct seen s = { 0 };
	pid_t dead = fork();

	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	cr_assert_eq(sync_region_create_sized(&r, 2, 64), 0);
	open_view(r, &view);
	/* both lanes owned by a process that is gone without releasing them */
	cr_assert_eq(lane_claim(&view, &w1, dead, dead, 0), 0);
	cr_assert_eq(lane_claim(&view, &w2, dead, dead, 0), 0);
	write_n(&view, &w1, 0, 4);
	cr_assert_eq(lane_claim(&view, &w3, getpid(), gettid(), 0), -EAGAIN);
	cr_assert_eq(sync_region_drain(r, seen_emit, &s), 4);
	cr_assert_eq(lane_claim(&view, &w3, getpid(), gettid(), 0), 0);
	cr_assert_eq(lane_claim(&view, &w1, getpid(), gettid(), 0), 0);
	cr_assert_eq(lane_claim(&view, &w2, getpid(), gettid(), 0), -EAGAIN);
	/* exec: a fresh image reaps the lanes its pid still holds */
	lane_reap_pid(&view, getpid());
	sync_region_drain(r, seen_emit, &s);
	cr_assert_eq(lane_claim(&view, &w2, getpid(), gettid(), 0), 0);
	cr_assert_eq(sync_region_lost(r), 0);
	sync_region_destroy(r);
	free(s.ev);
}

/* ---- a collector that is gone, waits for it, counters it cannot believe -- */

static int gone_told;

static void note_gone(void)
{
	gone_told++;
}

/* A region whose collector has closed it, or died: a full lane is not
 * waited for (with no budget at all), the library is told once, and
 * nothing waits any more. */
static void full_lane_of_a_gone_collector(int closed)
{
	struct sync_region *r;
	struct mtx_lane_region view;
	struct mtx_lane_writer w = { 0 };
	struct seen s = { 0 };
	pid_t dead = 0;

	cr_assert_eq(sync_region_create_sized(&r, 2, 64), 0);
	open_view(r, &view);
	view.on_gone = note_gone;
	gone_told = 0;
	cr_assert_eq(view.wait_budget_ns, LANE_WAIT_FOREVER);
	cr_assert_eq(lane_claim(&view, &w, getpid(), gettid(), 0), 0);
	write_n(&view, &w, 0, 64);
	if (closed) {
		sync_region_close(r);
	} else {
		if ((dead = fork()) == 0)
			_exit(0);
		waitpid(dead, NULL, 0);
		view.hdr->creator_pid = dead;
	}
	write_n(&view, &w, 64, 10);
	cr_assert(view.gone);
	cr_assert_eq(gone_told, 1);
	cr_assert_eq(view.hdr->lost_full, 10);
	cr_assert_eq(sync_region_drain(r, seen_emit, &s), 64);
	sync_region_destroy(r);
	free(s.ev);
}

Test(sync_region, a_closed_region_is_not_waited_for)
{
	full_lane_of_a_gone_collector(1);
}

Test(sync_region, a_dead_collector_is_not_waited_for)
{
	full_lane_of_a_gone_collector(0);
}

/* A writer's wait for a full lane is measured, and reported under its tid
 * once the lane is freed (and while it is held). */
Test(sync_region, waits_for_the_collector_are_accounted)
{
	struct sync_region *r;
	struct mtx_lane_region view;
	struct mtx_lane_writer w = { 0 };
	struct seen s = { 0 };
	const struct sync_stall *st;
	size_t n;

	cr_assert_eq(sync_region_create_sized(&r, 2, 64), 0);
	open_view(r, &view);
	view.wait_budget_ns = 20000000ull; /* nobody drains: each wait gives up after 20 ms */
	cr_assert_eq(lane_claim(&view, &w, getpid(), gettid(), 0), 0);
	write_n(&view, &w, 0, 70);
	st = sync_region_stalls(r, &n);
	cr_assert_eq(n, 1, "held lane: %zu entries", n);
	cr_assert_eq(st[0].tid, gettid());
	cr_assert_geq(st[0].waits, 1);
	cr_assert_geq(st[0].wait_ns, 20000000ull);
	lane_release(&w);
	sync_region_drain(r, seen_emit, &s);
	st = sync_region_stalls(r, &n);
	cr_assert_eq(n, 1, "freed lane: %zu entries", n);
	cr_assert_eq(st[0].tid, gettid());
	sync_region_destroy(r);
	free(s.ev);
}

/* The records' clock, as the library's preload_now: TSC or ns as the
 * region says. */
static int stamps_tsc;

static uint64_t test_stamp(void)
{
	return stamps_tsc ? __rdtsc() : lane_now_ns();
}

struct late_drain {
	struct sync_region *r;
	struct seen *s;
};

static void *drain_late(void *p)
{
	struct late_drain *d = p;
	struct timespec ts = { 0, 30000000 };

	nanosleep(&ts, NULL);
	sync_region_drain(d->r, seen_emit, d->s);
	return NULL;
}

/* A wait for a full lane is the overhead of the op that waited
 * (sync_ops.overhead_ns) as far as it took the thread's CPU time (its own
 * clock says how much: the wait spins, yields, then sleeps): it goes into
 * that record, converted to ns as its stamps are, and the whole wait into
 * the lane's stalls; the ops that found room carry no wait. */
Test(sync_region, a_wait_for_a_full_lane_is_its_ops_overhead, .timeout = 60)
{
	struct sync_region *r;
	struct mtx_lane_region view;
	struct mtx_lane_writer w = { 0 };
	struct seen s = { 0 };
	struct late_drain d = { 0 };
	struct timespec cpu0, cpu1;
	const struct sync_stall *st;
	uint64_t cpu_ns;
	pthread_t drainer;
	size_t n;

	cr_assert_eq(sync_region_create_sized(&r, 2, 64), 0);
	open_view(r, &view);
	stamps_tsc = sync_region_uses_tsc(r);
	view.stamp = test_stamp;
	cr_assert_eq(lane_claim(&view, &w, getpid(), gettid(), 0), 0);
	write_n(&view, &w, 0, 64); /* the lane is full */
	d.r = r;
	d.s = &s;
	cr_assert_eq(pthread_create(&drainer, NULL, drain_late, &d), 0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu0);
	write_n(&view, &w, 64, 1); /* waits for the drain, ~30 ms */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu1);
	cpu_ns = (uint64_t)(cpu1.tv_sec - cpu0.tv_sec) * 1000000000ull + (uint64_t)cpu1.tv_nsec - (uint64_t)cpu0.tv_nsec;
	pthread_join(drainer, NULL);
	sync_region_drain(r, seen_emit, &s);
	cr_assert_eq(s.count, 65);
	/* record 32 woke the drain (half full): a system call, no wait */
	for (size_t i = 0; i < 64; i++)
		cr_assert_lt(s.ev[i].u.sync.overhead, 1000000u, "record %zu: %u ns", i, s.ev[i].u.sync.overhead);
	cr_assert_eq(s.ev[64].u.sync.arg, 64);
	st = sync_region_stalls(r, &n);
	cr_assert_eq(n, 1);
	cr_assert_geq(st[0].wait_ns, 20000000ull, "the lane's stalls: %llu ns", (unsigned long long)st[0].wait_ns);
	cr_assert_gt(s.ev[64].u.sync.overhead, 0u);
	/* a few us of slack: the stamps around the wait, in other units */
	cr_assert_leq(s.ev[64].u.sync.overhead, cpu_ns + 20000u, "overhead %u ns, %llu ns of CPU in the call",
		      s.ev[64].u.sync.overhead, (unsigned long long)cpu_ns);
	cr_assert_lt(cpu_ns, st[0].wait_ns, "the wait slept");
	cr_assert_eq(s.ev[64].u.sync.injected, 0);
	sync_region_destroy(r);
	free(s.ev);
}

/* The program can write anything over the loss counters: what went back
 * or jumped is not believed, and said. */
Test(sync_region, scribbled_loss_counters_are_not_believed)
{
	struct sync_region *r;
	struct mtx_lane_region view;
	struct seen s = { 0 };

	cr_assert_eq(sync_region_create_sized(&r, 2, 64), 0);
	open_view(r, &view);
	view.hdr->lost_full = 3; /* a real loss looks like this */
	sync_region_drain(r, seen_emit, &s);
	cr_assert_eq(sync_region_lost(r), 3);
	cr_assert_not(sync_region_scribbled(r));
	view.hdr->lost_full = (uint64_t)-1695106541960987496ll;
	sync_region_drain(r, seen_emit, &s);
	view.hdr->lost_full -= 10; /* and back */
	sync_region_drain(r, seen_emit, &s);
	cr_assert_eq(sync_region_lost(r), 3);
	cr_assert(sync_region_scribbled(r));
	view.hdr->lost_nolane = 2;
	cr_assert_eq(sync_region_lost(r), 5);
	cr_assert_eq(sync_region_lost_nolane(r), 2);
	sync_region_destroy(r);
	free(s.ev);
}

/* ---- TSC stamps -------------------------------------------------------- */

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

Test(tsc_map, a_steady_rate_keeps_two_knots_and_converts_exactly)
{
	struct tsc_map m = { 0 };
	/* 2.5 ticks per ns, from tsc 1000 at 5000 ns; samples every 1 ms */
	for (uint64_t i = 0; i <= 1000; i++)
		cr_assert_eq(tsc_map_add(&m, (struct tsc_point){ 1000 + i * 2500000, 5000 + i * 1000000 }), 0);
	cr_assert_eq(m.len, 1, "a steady rate needs no knot but the first");
	cr_assert_eq(tsc_map_ns(&m, 1000 + 2500), 5000 + 1000);
	cr_assert_eq(tsc_map_ns(&m, 1000 + 2500ull * 123456789), 5000 + 1000ull * 123456789);
	/* past the newest sample: extrapolated with the same rate */
	cr_assert_eq(tsc_map_ns(&m, 1000 + 2500ull * 1000002000), 5000 + 1000ull * 1000002000);
	tsc_map_free(&m);
}

Test(tsc_map, a_rate_change_adds_a_knot_and_both_segments_stay_exact)
{
	struct tsc_map m = { 0 };
	uint64_t tsc = 0, ns = 0;
	/* 1 tick/ns for 100 ms, then 1.001 ticks/ns (slewed by 1000 ppm) */
	for (int i = 0; i <= 100; i++)
		cr_assert_eq(tsc_map_add(&m, (struct tsc_point){ (uint64_t)i * 1000000, (uint64_t)i * 1000000 }), 0);
	tsc = 100000000;
	ns = 100000000;
	for (int i = 1; i <= 100; i++)
		cr_assert_eq(tsc_map_add(&m, (struct tsc_point){ tsc + (uint64_t)i * 1001000, ns + (uint64_t)i * 1000000 }), 0);
	cr_assert_geq(m.len, 2);
	cr_assert_eq(tsc_map_ns(&m, 50000000), 50000000);
	/* in the second segment, within the tolerance */
	{
		uint64_t got = tsc_map_ns(&m, tsc + 50 * 1001000ull);
		uint64_t want = ns + 50 * 1000000ull;
		cr_assert(got + TSC_MAP_TOLERANCE_NS >= want && got <= want + TSC_MAP_TOLERANCE_NS,
			  "got %llu want %llu", (unsigned long long)got, (unsigned long long)want);
	}
	tsc_map_free(&m);
}

Test(tsc_map, real_samples_track_clock_gettime)
{
	struct tsc_map m = { 0 };
	if (!tsc_usable())
		cr_skip_test("this machine's kernel does not count time with an invariant TSC");
	for (int i = 0; i < 20; i++) {
		struct timespec ms = { 0, 1000000 };
		cr_assert_eq(tsc_map_add(&m, tsc_sample()), 0);
		nanosleep(&ms, NULL);
	}
	for (int i = 0; i < 1000; i++) {
		uint64_t before = mono_ns(), tsc = __rdtsc(), after = mono_ns();
		uint64_t got = tsc_map_ns(&m, tsc);
		/* a few microseconds of slack: the stamps are not taken atomically
		 * and this process may be preempted between them */
		cr_assert(got + 5000 >= before && got <= after + 5000,
			  "tsc %llu -> %llu, outside [%llu, %llu]", (unsigned long long)tsc,
			  (unsigned long long)got, (unsigned long long)before, (unsigned long long)after);
	}
	tsc_map_free(&m);
}

Test(tsc_map, a_region_in_tsc_mode_hands_out_monotonic_ns)
{
	struct sync_region *r;
	struct mtx_lane_region view;
	struct mtx_lane_writer w = { 0 };
	struct seen s = { 0 };
	uint64_t before, after;

	if (!tsc_usable())
		cr_skip_test("this machine's kernel does not count time with an invariant TSC");
	unsetenv("MTX_SYNC_CLOCK");
	cr_assert_eq(sync_region_create_sized(&r, 4, 256), 0);
	open_view(r, &view);
	cr_assert_eq(view.hdr->clock_id, MTX_SHM_CLOCK_TSC);
	cr_assert_eq(lane_claim(&view, &w, getpid(), gettid(), 0), 0);
	before = mono_ns();
	{
		uint64_t t0 = __rdtsc(), t1 = __rdtsc();
		lane_write(&view, &w, MTX_SYNC_KIND_MUTEX, MTX_SYNC_OP_LOCK, 0x1000, 0, t0, t1, 0, 0);
	}
	after = mono_ns();
	cr_assert_eq(sync_region_drain(r, seen_emit, &s), 1);
	cr_assert(s.ev[0].u.sync.start_ns + 5000 >= before && s.ev[0].u.sync.end_ns <= after + 5000,
		  "[%llu, %llu] not within [%llu, %llu]", (unsigned long long)s.ev[0].u.sync.start_ns,
		  (unsigned long long)s.ev[0].u.sync.end_ns, (unsigned long long)before, (unsigned long long)after);
	cr_assert_eq(s.ev[0].ts_ns, s.ev[0].u.sync.start_ns);
	sync_region_destroy(r);
	free(s.ev);
}

/* The call region: 16-byte records whose pid and tid are the lane owner's. */
Test(sync_region, call_region_records_become_call_events)
{
	struct sync_region *r, *sync;
	struct mtx_lane_region view;
	struct mtx_lane_writer w1 = { 0 }, w2 = { 0 };
	struct seen s = { 0 };
	size_t size;
	void *base;

	cr_assert_eq(call_region_create_sized(&r, 2, 64), 0);
	cr_assert(strncmp(sync_region_env(r), MTX_CALL_ENV "=/mtx-call-", strlen(MTX_CALL_ENV) + 11) == 0);
	base = sync_region_map(r, &size);
	/* neither kind of region passes for the other */
	cr_assert_eq(lane_region_open(&view, base, size), -EPROTO);
	cr_assert_eq(sync_region_create_sized(&sync, 2, 64), 0);
	{
		size_t ssize;
		void *sbase = sync_region_map(sync, &ssize);
		cr_assert_eq(lane_region_open_as(&view, sbase, ssize, MTX_CALL_MAGIC, MTX_CALL_RECORD_SIZE), -EPROTO);
	}
	sync_region_destroy(sync);
	cr_assert_eq(lane_region_open_as(&view, base, size, MTX_CALL_MAGIC, MTX_CALL_RECORD_SIZE), 0);

	cr_assert_eq(lane_claim(&view, &w1, 100, 101, 0), 0);
	cr_assert_eq(lane_claim(&view, &w2, 100, 102, 0), 0);
	lane_write_call(&view, &w1, 10, 0x4000, lane_write_call_slow);
	lane_write_call(&view, &w2, 11, 0x5000, lane_write_call_slow);
	lane_write_call(&view, &w1, 12, 0x4100, lane_write_call_slow);
	lane_write_call(&view, &w1, 13 | MTX_CALL_EXIT, 0x4100, lane_write_call_slow);
	lane_write_call(&view, &w1, 14 | MTX_CALL_EXIT, 0x4000, lane_write_call_slow);
	lane_write_call(&view, &w2, 15, 0, lane_write_call_slow); /* no function: rejected */
	cr_assert_eq(sync_region_drain(r, seen_emit, &s), 5);
	cr_assert_eq(sync_region_lost(r), 1);
	for (size_t i = 0; i < s.count; i++) {
		cr_assert_eq(s.ev[i].type, MTX_EV_CALL);
		cr_assert_eq(s.ev[i].pid, 100);
	}
	/* each lane in its own order, lane after lane */
	cr_assert_eq(s.ev[0].tid, 101);
	cr_assert_eq(s.ev[0].ts_ns, 10);
	cr_assert_eq(s.ev[0].u.call.fn, 0x4000);
	cr_assert_eq(s.ev[0].u.call.at_return, 0);
	cr_assert_eq(s.ev[2].ts_ns, 13);
	cr_assert_eq(s.ev[2].u.call.at_return, 1);
	cr_assert_eq(s.ev[3].u.call.fn, 0x4000);
	cr_assert_eq(s.ev[3].u.call.at_return, 1);
	cr_assert_eq(s.ev[4].tid, 102);
	cr_assert_eq(s.ev[4].u.call.fn, 0x5000);

	/* a lane given back and taken by another thread: its records carry
	 * the new owner once the old ones were drained */
	lane_release(&w1);
	cr_assert_eq(sync_region_drain(r, seen_emit, &s), 0);
	cr_assert_eq(lane_claim(&view, &w1, 100, 103, 0), 0);
	lane_write_call(&view, &w1, 20, 0x6000, lane_write_call_slow);
	cr_assert_eq(sync_region_drain(r, seen_emit, &s), 1);
	cr_assert_eq(s.ev[5].tid, 103);
	cr_assert_eq(s.ev[5].ts_ns, 20);
	sync_region_destroy(r);
	free(s.ev);
}

/* A writer of the pump test: @n call records on its own lane, stamped
 * with the region's clock as the library does. Its lane is claimed under
 * its real pid and tid: the drain's liveness check (sync_region_reap)
 * took a made-up owner for a dead thread and freed the lane under the
 * writer, whose records were then rejected (103 079 once, in make check). */
struct call_writer {
	struct mtx_lane_region *view;
	int32_t tid; /* set by the writer */
	uint64_t n;
};

static void *write_calls(void *arg)
{
	struct call_writer *cw = arg;
	struct mtx_lane_writer w = { 0 };

	cw->tid = (int32_t)gettid();
	cr_assert_eq(lane_claim(cw->view, &w, getpid(), cw->tid, 1), 0);
	for (uint64_t i = 0; i < cw->n; i++) {
		uint64_t stamp = cw->view->hdr->clock_id == MTX_SHM_CLOCK_TSC ? __rdtsc() : lane_now_ns();

		lane_write_call(cw->view, &w, stamp, 0x1000 + (i & 7), lane_write_call_slow);
	}
	lane_release(&w);
	return NULL;
}

/* The pump holds far more call records than one take hands out (the old
 * queue stopped draining at 256 K, and these writers would have waited
 * for a take that comes only after they finish), and the takes hand them
 * out in time order, below their watermarks. */
Test(sync_pump, holds_the_backlog_and_hands_it_out_in_time_order, .timeout = 60)
{
	struct sync_region *r;
	struct mtx_lane_region view;
	struct sync_pump *p;
	struct sync_batch b = { 0 };
	struct call_batch cb = { 0 };
	struct call_writer cw[2];
	pthread_t th[2];
	uint64_t per_thread = 600000, total = 0, last_ns = 0, dropped = 1, counts[2] = { 0, 0 };
	void *base;
	size_t size;
	int takes = 0;

	cr_assert_eq(call_region_create_sized(&r, 4, 8192), 0);
	/* Mapped first: arguments are evaluated in no set order, and size is
	 * read only once sync_region_map has set it. */
	base = sync_region_map(r, &size);
	cr_assert_eq(lane_region_open_as(&view, base, size, MTX_CALL_MAGIC, MTX_CALL_RECORD_SIZE), 0);
	/* Holding and ordering, not the budget (as concurrent_writers...). */
	view.wait_budget_ns = 60ull * 1000000000ull;
	cr_assert_eq(sync_pump_start(&p, NULL, r), 0);
	for (int i = 0; i < 2; i++) {
		cw[i] = (struct call_writer){ .view = &view, .n = per_thread };
		cr_assert_eq(pthread_create(&th[i], NULL, write_calls, &cw[i]), 0);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	cr_assert_eq(sync_region_lost(r), 0, "lost: %llu to a full lane, %llu for want of a lane, %llu rejected",
		     (unsigned long long)view.hdr->lost_full, (unsigned long long)view.hdr->lost_nolane,
		     (unsigned long long)(sync_region_lost(r) - view.hdr->lost_full - view.hdr->lost_nolane));
	for (;;) {
		sync_pump_take_calls(p, &cb);
		if (cb.len == 0 && takes > 0)
			break;
		takes++;
		cr_assert_leq(cb.len, CALL_PUMP_TAKE_MAX);
		for (size_t i = 0; i < cb.len; i++) {
			cr_assert_geq(cb.ev[i].ts_ns, last_ns);
			/* upto_ns promises the records stamped before it; one
			 * stamped at it may go out while another writer's of the
			 * same stamp is still held (the next take's first). */
			cr_assert_leq(cb.ev[i].ts_ns, cb.upto_ns);
			last_ns = cb.ev[i].ts_ns;
			counts[cb.ev[i].tid != cw[0].tid]++;
		}
		total += cb.len;
	}
	cr_assert_gt(takes, 2);
	sync_pump_stop(p, &b, &cb, &dropped);
	for (size_t i = 0; i < cb.len; i++) {
		cr_assert_geq(cb.ev[i].ts_ns, last_ns);
		last_ns = cb.ev[i].ts_ns;
		counts[cb.ev[i].tid != cw[0].tid]++;
	}
	total += cb.len;
	cr_assert_eq(dropped, 0);
	cr_assert_eq(total, 2 * per_thread);
	cr_assert_eq(counts[0], per_thread);
	cr_assert_eq(counts[1], per_thread);
	call_batch_free(&cb);
	sync_batch_free(&b);
	sync_region_destroy(r);
}

/* A writer of @n records into its own lane of a sync region. */
struct lane_writer_arg {
	struct mtx_lane_region *view;
	uint64_t n;
};

static void *write_lane(void *p)
{
	struct lane_writer_arg *a = p;
	struct mtx_lane_writer w = { 0 };
	cr_assert_eq(lane_claim(a->view, &w, getpid(), gettid(), 1), 0);
	write_n(a->view, &w, 0, a->n);
	lane_release(&w);
	return NULL;
}

/* The main loop takes sync records in batches of at most the bound, oldest
 * first, and is told how many are left: none lost, none repeated, in order,
 * across takes that leave part of the queue (and the compaction after). */
Test(sync_pump, takes_sync_records_in_bounded_batches_in_order, .timeout = 60)
{
	struct sync_region *r;
	struct mtx_lane_region view;
	struct sync_pump *p;
	struct sync_batch b = { 0 };
	struct call_batch cb = { 0 };
	struct lane_writer_arg a = { .view = &view, .n = 5 * SYNC_PUMP_TAKE_MAX + 123 };
	pthread_t th;
	uint64_t next = 0, dropped = 1;
	size_t left = 0;
	int partial = 0;

	cr_assert_eq(sync_region_create_sized(&r, 4, 1u << 16), 0);
	open_view(r, &view);
	/* order, not the budget: the test takes slowly at first */
	view.wait_budget_ns = 60ull * 1000000000ull;
	cr_assert_eq(sync_pump_start(&p, r, NULL), 0);
	cr_assert_eq(pthread_create(&th, NULL, write_lane, &a), 0);
	/* A backlog before the first take: the writer ends only when all but
	 * a lane's worth (1 << 16) of its records are in the pump's queue,
	 * over four takes' worth. (A fixed pause was too short for a
	 * sanitized build on a busy machine: the takes kept up with the
	 * writer and none left records queued.) */
	pthread_join(th, NULL);
	for (int idle = 0; next < a.n && idle < 3000;) {
		left = sync_pump_take(p, &b, SYNC_PUMP_TAKE_MAX);
		cr_assert_leq(b.len, SYNC_PUMP_TAKE_MAX);
		partial += b.len == SYNC_PUMP_TAKE_MAX && left > 0;
		for (size_t i = 0; i < b.len; i++, next++)
			cr_assert_eq(b.recs[i].arg, next, "record %llu came as %llu", (unsigned long long)next,
				     (unsigned long long)b.recs[i].arg);
		if (b.len == 0) {
			struct timespec ms = { 0, 1000000 };
			nanosleep(&ms, NULL);
			idle++;
		}
	}
	sync_pump_stop(p, &b, &cb, &dropped);
	for (size_t i = 0; i < b.len; i++, next++)
		cr_assert_eq(b.recs[i].arg, next);
	cr_assert_eq(next, a.n, "%llu of %llu records", (unsigned long long)next, (unsigned long long)a.n);
	cr_assert_eq(sync_region_lost(r), 0);
	cr_assert_gt(partial, 0, "no take left records queued: the bound was not exercised");
	sync_batch_free(&b);
	call_batch_free(&cb);
	sync_region_destroy(r);
}
