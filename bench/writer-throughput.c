/*
 * bench/writer-throughput.c - how many events per second one core decodes
 * and loads into SQLite: the collector's path from perf record bytes to
 * run.db, without the kernel.
 *
 * It synthesizes the records a perf ring would hold for a ~50-thread
 * process on 2 CPUs (switch out/in pairs, syscall pairs, wakeups, some of
 * them of other processes, a few thread exits and forks), laid out exactly
 * as the kernel writes them for mtx's attrs: PERF_RECORD_SAMPLE with
 * sample_type IDENTIFIER|TID|TIME|CPU|RAW, tracepoint payloads at the field
 * offsets this kernel's tracefs gives, and SWITCH/FORK/EXIT/COMM records
 * with the 32-byte sample_id trailer. Generation is not timed. Then, per
 * run, on a fresh run.db:
 *   load   session_decode_record for every record, order_flush every 50 ms
 *          of trace time (as collect does after each drain, 2 ms behind),
 *          model_emit -> writer, a commit every 0.5 s of wall time, and the
 *          final flush + model_finish;
 *   close  writer_close(w, 1): the index build and the last commit.
 * and, to split the cost, the decode + ordering stages alone (emitting to a
 * counter). It reports medians of the runs; it asserts nothing.
 *
 * Usage: bench/writer-throughput [-n EVENTS] [-r RUNS] [-d DIR] [-t THREADS]
 *   EVENTS   decoded events to synthesize (default 6000000)
 *   RUNS     repetitions (default 3)
 *   DIR      where the temporary run.db goes (default /tmp)
 *   THREADS  live threads of the synthetic process (default 50)
 *   -k       keep the last run's database (its path is printed)
 *   -c       capture the rows as they are written, as mtx collect does for
 *            its derived tables (writer_capture; dropped at the close)
 * Needs tracefs (root, as mtx collect does) for the payload layouts.
 */
#include "config.h"
#include "collector/model.h"
#include "collector/order.h"
#include "collector/perf.h"
#include "collector/session.h"
#include "collector/source.h"
#include "collector/writer.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NR_CPUS 2
#define MAX_THREADS 256
#define ROUND_NS 50000000ull       /* trace time between two flushes */
#define FLUSH_MARGIN_NS 2000000ull /* as collector/collect.c */
#define COMMIT_EVERY_NS 500000000ull

/* x86-64 syscall numbers the synthetic threads use. */
enum { NR_READ = 0, NR_WRITE = 1, NR_POLL = 7, NR_NANOSLEEP = 35, NR_GETPID = 39, NR_CLONE = 56,
       NR_EXIT = 60, NR_PRCTL = 157, NR_FUTEX = 202, NR_CLOCK_NANOSLEEP = 230 };

#define TASK_S 0x1
#define TASK_D 0x2
#define TASK_DEAD 0x10
#define TASK_REPORT_MAX 0x100 /* how the kernel reports a preempted task */

/* ---- the payload layouts, from tracefs ---- */

struct tp_layout {
	long id;           /* common_type */
	int raw_size;      /* what perf puts in the sample's u32 size */
	int f[4];          /* field offsets (event-specific order) */
};

static struct tp_layout tp_switch, tp_waking, tp_enter, tp_exit;

/* Offset of @name, and grow *@end to cover it. Exits if absent. */
static int field_at(const char *sys, const char *ev, const char *name, int *end)
{
	int off, size;
	if (tracepoint_field(sys, ev, name, &off, &size)) {
		fprintf(stderr, "writer-throughput: no field %s in %s:%s\n", name, sys, ev);
		exit(1);
	}
	if (off + size > *end)
		*end = off + size;
	return off;
}

static void layout(struct tp_layout *l, const char *sys, const char *ev, const char *const names[4])
{
	int end = 8; /* the common fields */
	l->id = tracepoint_id(sys, ev);
	for (int i = 0; i < 4; i++)
		l->f[i] = names[i] ? field_at(sys, ev, names[i], &end) : -1;
	/* perf pads the raw data so that u32 size + data fill whole u64s. */
	l->raw_size = ((end + 4 + 7) & ~7) - 4;
}

static void learn_layouts(void)
{
	static const char *const sw[4] = { "prev_pid", "prev_state", "next_pid", "next_prio" };
	static const char *const wk[4] = { "pid", "prio", "target_cpu", NULL };
	static const char *const en[4] = { "id", "args", NULL, NULL };
	static const char *const ex[4] = { "id", "ret", NULL, NULL };
	layout(&tp_switch, "sched", "sched_switch", sw);
	layout(&tp_waking, "sched", "sched_waking", wk);
	layout(&tp_enter, "raw_syscalls", "sys_enter", en);
	layout(&tp_exit, "raw_syscalls", "sys_exit", ex);
}

/* ---- the record streams ---- */

struct stream {
	uint8_t *buf;
	size_t len, cap;
};

struct round {
	size_t end[NR_CPUS]; /* stream offsets reached at the end of the round */
	uint64_t upto_ns;    /* flush everything before this afterwards */
};

struct gen {
	struct stream cpu[NR_CPUS];
	struct round *rounds;
	size_t nr_rounds, cap_rounds;
	uint64_t next_round_ns;
	uint64_t now_ns;
	uint64_t rng;
	uint64_t nr_records, nr_events; /* records; those that decode into an event */
	uint64_t bytes;
	int32_t pid;
};

static uint64_t rnd(struct gen *g)
{
	g->rng ^= g->rng << 13;
	g->rng ^= g->rng >> 7;
	g->rng ^= g->rng << 17;
	return g->rng;
}

static unsigned pick(struct gen *g, unsigned n)
{
	return (unsigned)(rnd(g) % n);
}

static void *die_nomem(void)
{
	fprintf(stderr, "writer-throughput: out of memory\n");
	exit(1);
}

static uint8_t *put(struct gen *g, int cpu, size_t size)
{
	struct stream *st = &g->cpu[cpu];
	uint8_t *p;
	if (st->len + size > st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 1 << 24;
		while (cap < st->len + size)
			cap *= 2;
		st->buf = realloc(st->buf, cap);
		if (!st->buf)
			die_nomem();
		st->cap = cap;
	}
	p = st->buf + st->len;
	memset(p, 0, size);
	st->len += size;
	g->nr_records++;
	g->bytes += size;
	return p;
}

/* Advance trace time; close the round when it crosses a boundary. */
static void tick(struct gen *g, uint64_t min_ns, uint64_t spread_ns)
{
	g->now_ns += min_ns + rnd(g) % spread_ns;
	if (g->now_ns >= g->next_round_ns) {
		struct round *r;
		if (g->nr_rounds == g->cap_rounds) {
			g->cap_rounds = g->cap_rounds ? g->cap_rounds * 2 : 1024;
			g->rounds = realloc(g->rounds, g->cap_rounds * sizeof(*g->rounds));
			if (!g->rounds)
				die_nomem();
		}
		r = &g->rounds[g->nr_rounds++];
		for (int c = 0; c < NR_CPUS; c++)
			r->end[c] = g->cpu[c].len;
		r->upto_ns = g->now_ns - FLUSH_MARGIN_NS;
		g->next_round_ns += ROUND_NS;
	}
}

static void put_sample_id(uint8_t *p, int32_t pid, int32_t tid, uint64_t ts, int cpu, uint64_t id)
{
	uint32_t c = (uint32_t)cpu;
	memcpy(p, &pid, 4);
	memcpy(p + 4, &tid, 4);
	memcpy(p + 8, &ts, 8);
	memcpy(p + 16, &c, 4);
	memcpy(p + 24, &id, 8);
}

/* A PERF_RECORD_SAMPLE of tracepoint @l; returns its payload to fill. */
static uint8_t *sample(struct gen *g, int cpu, const struct tp_layout *l, uint64_t id, int32_t pid, int32_t tid)
{
	size_t size = sizeof(struct perf_event_header) + 32 + 4 + (size_t)l->raw_size;
	uint8_t *p = put(g, cpu, size);
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER, .size = (uint16_t)size };
	uint32_t raw = (uint32_t)l->raw_size;
	uint16_t type = (uint16_t)l->id;
	uint8_t *payload;
	memcpy(p, &h, sizeof(h));
	/* identifier, {pid, tid}, time, {cpu, res}: the sample_id fields in sample order */
	memcpy(p + 8, &id, 8);
	memcpy(p + 16, &pid, 4);
	memcpy(p + 20, &tid, 4);
	memcpy(p + 24, &g->now_ns, 8);
	memcpy(p + 32, &(uint32_t){ (uint32_t)cpu }, 4);
	memcpy(p + 40, &raw, 4);
	payload = p + 44;
	memcpy(payload, &type, 2);
	memcpy(payload + 4, &tid, 4); /* common_pid */
	g->nr_events++;
	return payload;
}

static void put_i32(uint8_t *payload, int off, int32_t v) { memcpy(payload + off, &v, 4); }
static void put_i64(uint8_t *payload, int off, int64_t v) { memcpy(payload + off, &v, 8); }

/* A non-sample record with @body_size bytes of body and the sample_id trailer. */
static uint8_t *other(struct gen *g, int cpu, uint32_t type, uint16_t misc, size_t body_size, int32_t pid, int32_t tid,
		      int counts)
{
	size_t size = sizeof(struct perf_event_header) + body_size + 32;
	uint8_t *p = put(g, cpu, size);
	struct perf_event_header h = { .type = type, .misc = misc, .size = (uint16_t)size };
	memcpy(p, &h, sizeof(h));
	put_sample_id(p + 8 + body_size, pid, tid, g->now_ns, cpu, session_offline_id(NULL, 0));
	if (counts)
		g->nr_events++;
	return p + 8;
}

/* ---- the synthetic process ---- */

enum { T_FREE, T_RUNNING, T_RUNNABLE, T_BLOCKED };

struct sim_thread {
	int32_t tid;
	int state;
	int64_t in_syscall; /* the syscall it blocked in, -1 none */
	int needs_comm;     /* names itself when it first runs */
};

struct sim {
	struct gen g;
	struct sim_thread th[MAX_THREADS];
	int nr_threads;       /* slots in use (live threads) */
	int cur[NR_CPUS];     /* slot running there, -1 idle */
	int32_t next_tid;
};

static int32_t tid_of(struct sim *s, int slot) { return slot < 0 ? 0 : s->th[slot].tid; }

static void sys_enter(struct sim *s, int cpu, int slot, int64_t nr)
{
	uint8_t *p = sample(&s->g, cpu, &tp_enter, session_offline_id(&source_syscalls, 0), s->g.pid, s->th[slot].tid);
	put_i64(p, tp_enter.f[0], nr);
	put_i64(p, tp_enter.f[1], (int64_t)(rnd(&s->g) & 0xffff)); /* args[0] */
	put_i64(p, tp_enter.f[1] + 8, 4096);                       /* args[1] */
}

static void sys_exit(struct sim *s, int cpu, int slot, int64_t nr, int64_t ret)
{
	uint8_t *p = sample(&s->g, cpu, &tp_exit, session_offline_id(&source_syscalls, 1), s->g.pid, s->th[slot].tid);
	put_i64(p, tp_exit.f[0], nr);
	put_i64(p, tp_exit.f[1], ret);
}

static void waking(struct sim *s, int cpu, int32_t pid, int32_t waker, int32_t wakee)
{
	uint8_t *p = sample(&s->g, cpu, &tp_waking, session_offline_id(&source_wakeups, 0), pid, waker);
	put_i32(p, tp_waking.f[0], wakee);
	put_i32(p, tp_waking.f[1], 120);
	put_i32(p, tp_waking.f[2], (int32_t)pick(&s->g, NR_CPUS));
}

static int runnable_slot(struct sim *s)
{
	int n = 0, chosen = -1;
	for (int i = 0; i < MAX_THREADS; i++)
		if (s->th[i].state == T_RUNNABLE && pick(&s->g, (unsigned)++n) == 0)
			chosen = i; /* reservoir: a uniform pick */
	return chosen;
}

static int blocked_slot(struct sim *s)
{
	unsigned start = pick(&s->g, MAX_THREADS);
	for (int k = 0; k < MAX_THREADS; k++) {
		int i = (int)((start + (unsigned)k) % MAX_THREADS);
		if (s->th[i].state == T_BLOCKED)
			return i;
	}
	return -1;
}

/* @slot leaves @cpu in @prev_state; whoever is runnable comes in. */
static void switch_out(struct sim *s, int cpu, int slot, int64_t prev_state)
{
	int next = runnable_slot(s);
	struct sim_thread *t = &s->th[slot];
	uint8_t *p;
	uint16_t misc = PERF_RECORD_MISC_SWITCH_OUT;

	tick(&s->g, 300, 700);
	p = sample(&s->g, cpu, &tp_switch, session_offline_id(&source_sched, 0), s->g.pid, t->tid);
	put_i32(p, tp_switch.f[0], t->tid);
	put_i64(p, tp_switch.f[1], prev_state);
	put_i32(p, tp_switch.f[2], tid_of(s, next));
	put_i32(p, tp_switch.f[3], 120);
	if (prev_state == TASK_REPORT_MAX)
		misc |= PERF_RECORD_MISC_SWITCH_OUT_PREEMPT;
	other(&s->g, cpu, PERF_RECORD_SWITCH, misc, 0, s->g.pid, t->tid, 0);
	if (prev_state == TASK_REPORT_MAX)
		t->state = T_RUNNABLE;
	else if (prev_state == TASK_DEAD)
		t->state = T_FREE;
	else
		t->state = T_BLOCKED;
	s->cur[cpu] = -1;
	if (next >= 0) {
		tick(&s->g, 200, 300);
		other(&s->g, cpu, PERF_RECORD_SWITCH, PERF_RECORD_MISC_USER, 0, s->g.pid, s->th[next].tid, 1);
		s->th[next].state = T_RUNNING;
		s->cur[cpu] = next;
	}
}

/* A thread that just got the CPU finishes what it blocked in. */
static void resume(struct sim *s, int cpu, int slot)
{
	struct sim_thread *t = &s->th[slot];
	if (t->needs_comm) {
		uint8_t *b;
		sys_enter(s, cpu, slot, NR_PRCTL);
		tick(&s->g, 300, 500);
		b = other(&s->g, cpu, PERF_RECORD_COMM, 0, 8 + 16, s->g.pid, t->tid, 1);
		memcpy(b, &s->g.pid, 4);
		memcpy(b + 4, &t->tid, 4);
		snprintf((char *)b + 8, 16, "worker-%d", (int)(t->tid % 10000));
		tick(&s->g, 300, 500);
		sys_exit(s, cpu, slot, NR_PRCTL, 0);
		t->needs_comm = 0;
	} else if (t->in_syscall >= 0) {
		tick(&s->g, 300, 500);
		sys_exit(s, cpu, slot, t->in_syscall, 0);
	}
	t->in_syscall = -1;
}

static int free_slot(struct sim *s)
{
	for (int i = 0; i < MAX_THREADS; i++)
		if (s->th[i].state == T_FREE)
			return i;
	return -1;
}

/* @slot clones a new thread: clone pair around the FORK record. */
static void spawn(struct sim *s, int cpu, int slot)
{
	int n = free_slot(s);
	uint8_t *b;
	uint32_t v[4];
	uint64_t ts;
	if (n < 0)
		return;
	sys_enter(s, cpu, slot, NR_CLONE);
	tick(&s->g, 2000, 3000);
	s->th[n] = (struct sim_thread){ .tid = s->next_tid++, .state = T_RUNNABLE, .in_syscall = -1, .needs_comm = 1 };
	b = other(&s->g, cpu, PERF_RECORD_FORK, 0, 16 + 8, s->g.pid, s->th[slot].tid, 1);
	v[0] = (uint32_t)s->g.pid;
	v[1] = (uint32_t)s->g.pid;
	v[2] = (uint32_t)s->th[n].tid;
	v[3] = (uint32_t)s->th[slot].tid;
	ts = s->g.now_ns;
	memcpy(b, v, 16);
	memcpy(b + 16, &ts, 8);
	s->nr_threads++;
	tick(&s->g, 1000, 2000);
	sys_exit(s, cpu, slot, NR_CLONE, s->th[n].tid);
}

/* @slot returns from its start routine: exit, EXIT record, last switch. */
static void finish(struct sim *s, int cpu, int slot)
{
	struct sim_thread *t = &s->th[slot];
	uint8_t *b;
	uint32_t v[4] = { (uint32_t)s->g.pid, (uint32_t)s->g.pid, (uint32_t)t->tid, (uint32_t)t->tid };
	sys_enter(s, cpu, slot, NR_EXIT);
	tick(&s->g, 3000, 5000);
	b = other(&s->g, cpu, PERF_RECORD_EXIT, 0, 16 + 8, s->g.pid, t->tid, 1);
	memcpy(b, v, 16);
	memcpy(b + 16, &s->g.now_ns, 8);
	s->nr_threads--;
	switch_out(s, cpu, slot, TASK_DEAD);
}

/* One step of @cpu's life. */
static void step(struct sim *s, int cpu)
{
	static const int64_t quick[] = { NR_READ, NR_WRITE, NR_GETPID, NR_FUTEX, NR_POLL };
	static const int64_t waits[] = { NR_FUTEX, NR_FUTEX, NR_FUTEX, NR_NANOSLEEP, NR_CLOCK_NANOSLEEP, NR_READ };
	int slot = s->cur[cpu];
	unsigned dice;

	tick(&s->g, 200, 1800);
	if (slot < 0) { /* idle: the idle task's switch is not traced, the switch-in is */
		int next = runnable_slot(s);
		if (next < 0) {
			/* everybody waits: a timer interrupt wakes one */
			int b = blocked_slot(s);
			uint8_t *p;
			if (b < 0)
				return;
			p = sample(&s->g, cpu, &tp_waking, session_offline_id(&source_wakeups, 0), 0, 0);
			put_i32(p, tp_waking.f[0], s->th[b].tid);
			put_i32(p, tp_waking.f[1], 120);
			put_i32(p, tp_waking.f[2], cpu);
			p[2] = 0x08; /* common_flags: hardirq */
			s->th[b].state = T_RUNNABLE;
			return;
		}
		other(&s->g, cpu, PERF_RECORD_SWITCH, PERF_RECORD_MISC_USER, 0, s->g.pid, s->th[next].tid, 1);
		s->th[next].state = T_RUNNING;
		s->cur[cpu] = next;
		resume(s, cpu, next);
		return;
	}
	dice = pick(&s->g, 10000);
	if (dice < 5500) { /* a syscall that returns at once */
		int64_t nr = quick[pick(&s->g, sizeof(quick) / sizeof(quick[0]))];
		sys_enter(s, cpu, slot, nr);
		tick(&s->g, 300, 3000);
		sys_exit(s, cpu, slot, nr, nr == NR_GETPID ? s->g.pid : 0);
	} else if (dice < 6800) { /* wake a blocked thread (futex wake) */
		int b = blocked_slot(s);
		if (b < 0)
			return;
		sys_enter(s, cpu, slot, NR_FUTEX);
		tick(&s->g, 300, 700);
		waking(s, cpu, s->g.pid, s->th[slot].tid, s->th[b].tid);
		s->th[b].state = T_RUNNABLE;
		tick(&s->g, 300, 700);
		sys_exit(s, cpu, slot, NR_FUTEX, 1);
	} else if (dice < 7200) { /* another process's wakeup, seen system-wide */
		waking(s, cpu, 1000 + (int32_t)pick(&s->g, 50), 1000 + (int32_t)pick(&s->g, 50),
		       2000 + (int32_t)pick(&s->g, 500));
	} else if (dice < 8800) { /* block in a syscall */
		int64_t nr = waits[pick(&s->g, sizeof(waits) / sizeof(waits[0]))];
		sys_enter(s, cpu, slot, nr);
		s->th[slot].in_syscall = nr;
		switch_out(s, cpu, slot, nr == NR_READ && pick(&s->g, 2) ? TASK_D : TASK_S);
		if (s->cur[cpu] >= 0)
			resume(s, cpu, s->cur[cpu]);
	} else if (dice < 9998) { /* preempted, when someone waits for the CPU */
		if (runnable_slot(s) < 0)
			return;
		switch_out(s, cpu, slot, TASK_REPORT_MAX);
		if (s->cur[cpu] >= 0)
			resume(s, cpu, s->cur[cpu]);
	} else if (s->th[slot].tid != s->g.pid) { /* a worker ends, and a new one starts */
		spawn(s, cpu, slot);
		finish(s, cpu, slot);
		if (s->cur[cpu] >= 0)
			resume(s, cpu, s->cur[cpu]);
	}
}

static void synthesize(struct sim *s, uint64_t nr_events, int nr_threads)
{
	uint8_t *b;
	memset(s, 0, sizeof(*s));
	s->g.rng = 0x9e3779b97f4a7c15ull;
	s->g.now_ns = 1000000000ull;
	s->g.next_round_ns = s->g.now_ns + ROUND_NS;
	s->g.pid = 4000;
	s->next_tid = 4001;
	for (int c = 0; c < NR_CPUS; c++)
		s->cur[c] = -1;

	/* The main thread execs on CPU 0 and creates the workers. */
	s->th[0] = (struct sim_thread){ .tid = s->g.pid, .state = T_RUNNING, .in_syscall = -1 };
	s->nr_threads = 1;
	s->cur[0] = 0;
	b = other(&s->g, 0, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, 8 + 16, s->g.pid, s->g.pid, 1);
	memcpy(b, &s->g.pid, 4);
	memcpy(b + 4, &s->g.pid, 4);
	snprintf((char *)b + 8, 16, "synthetic");
	for (int i = 1; i < nr_threads && i < MAX_THREADS; i++) {
		tick(&s->g, 5000, 10000);
		spawn(s, 0, 0);
	}
	while (s->g.nr_events < nr_events)
		step(s, (int)pick(&s->g, NR_CPUS));
	/* Close the last round. */
	s->g.next_round_ns = s->g.now_ns;
	tick(&s->g, 1, 1);
	s->g.rounds[s->g.nr_rounds - 1].upto_ns = UINT64_MAX;
}

/* ---- the timed part ---- */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void decode_round(struct mtx_session *ses, const struct gen *g, size_t r)
{
	for (int c = 0; c < NR_CPUS; c++) {
		size_t off = r ? g->rounds[r - 1].end[c] : 0;
		const uint8_t *buf = g->cpu[c].buf;
		while (off < g->rounds[r].end[c]) {
			const struct perf_event_header *h = (const struct perf_event_header *)(buf + off);
			session_decode_record(ses, c, h);
			off += h->size;
		}
	}
}

static void count_emit(void *ctx, const struct mtx_event *ev)
{
	(void)ev;
	(*(uint64_t *)ctx)++;
}

struct result {
	double load_s, close_s, decode_s;
	uint64_t events, rows, db_bytes, late, undecodable, clamped;
};

static int open_session(struct mtx_session *ses)
{
	int rc = session_open_offline(ses, NR_CPUS);
	if (rc) {
		fprintf(stderr, "writer-throughput: offline session: %s\n", ses->error ? ses->error : strerror(-rc));
		return rc;
	}
	return 0;
}

/* Decode + order only, emitting to a counter. */
static int run_decode(const struct gen *g, struct result *res)
{
	struct mtx_session ses;
	uint64_t emitted = 0;
	double t0;
	if (open_session(&ses))
		return -1;
	t0 = now_s();
	for (size_t r = 0; r < g->nr_rounds; r++) {
		decode_round(&ses, g, r);
		order_flush(&ses.order, g->rounds[r].upto_ns, count_emit, &emitted);
	}
	res->decode_s = now_s() - t0;
	session_close(&ses);
	return 0;
}

static int64_t meta_int(sqlite3 *db, const char *key)
{
	sqlite3_stmt *st;
	int64_t v = -1;
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* The whole path into a fresh database at @path. */
static int run_load(const struct gen *g, const char *path, int keep, int capture, struct result *res)
{
	struct mtx_session ses;
	struct mtx_writer *w;
	struct mtx_model *m;
	struct stat sb;
	char *err = NULL;
	double t0, t1, last_commit;

	unlink(path);
	if (open_session(&ses))
		return -1;
	if (writer_open(&w, path, &err)) {
		fprintf(stderr, "writer-throughput: %s\n", err ? err : "cannot create the database");
		free(err);
		session_close(&ses);
		return -1;
	}
	m = model_new(w);
	if (!m || (capture && writer_capture(w)))
		die_nomem();

	t0 = last_commit = now_s();
	for (size_t r = 0; r < g->nr_rounds; r++) {
		double t;
		decode_round(&ses, g, r);
		order_flush(&ses.order, g->rounds[r].upto_ns, model_emit, m);
		t = now_s();
		if (t - last_commit >= COMMIT_EVERY_NS * 1e-9) {
			writer_commit(w);
			last_commit = t;
		}
	}
	order_flush(&ses.order, UINT64_MAX, model_emit, m);
	model_finish(m, g->now_ns, g->pid, 0);
	t1 = now_s();

	res->events = 0;
	for (int i = 0; i < MTX_EV__COUNT; i++)
		res->events += ses.decoded[i];
	res->rows = writer_rows(w);
	res->late = ses.order.nr_late;
	res->undecodable = ses.undecodable;
	res->clamped = (uint64_t)meta_int(writer_db(w), "model_clamped_events");
	if (writer_error(w))
		fprintf(stderr, "writer-throughput: %s\n", writer_error(w));

	if (writer_close(w, 1))
		fprintf(stderr, "writer-throughput: closing %s failed\n", path);
	res->close_s = now_s() - t1;
	res->load_s = t1 - t0;
	res->db_bytes = stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
	model_free(m);
	session_close(&ses);
	if (!keep)
		unlink(path);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	uint64_t nr_events = 6000000;
	int runs = 3, nr_threads = 50, keep = 0, capture = 0, opt;
	const char *dir = "/tmp";
	char *err = NULL, path[4096];
	static struct sim s;
	struct result *res;
	double *load, *close_, *decode, *total;
	double t0;

	while ((opt = getopt(argc, argv, "n:r:d:t:kch")) != -1) {
		switch (opt) {
		case 'n': nr_events = strtoull(optarg, NULL, 10); break;
		case 'r': runs = atoi(optarg); break;
		case 'd': dir = optarg; break;
		case 't': nr_threads = atoi(optarg); break;
		case 'k': keep = 1; break;
		case 'c': capture = 1; break;
		default:
			fprintf(stderr, "usage: %s [-n EVENTS] [-r RUNS] [-d DIR] [-t THREADS] [-k] [-c]\n", argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (runs < 1 || nr_threads < 2 || nr_threads > MAX_THREADS / 2 || nr_events < 1000) {
		fprintf(stderr, "writer-throughput: bad arguments\n");
		return 2;
	}
	if (tracefs_ensure(&err)) {
		fprintf(stderr, "writer-throughput: %s\n", err ? err : "no tracefs");
		return 1;
	}
	learn_layouts();
	snprintf(path, sizeof(path), "%s/mtx-writer-bench-%d.db", dir, (int)getpid());

	t0 = now_s();
	synthesize(&s, nr_events, nr_threads);
	printf("synthesized %llu records (%llu events, %.1f MB) for %d threads on %d CPUs in %.2f s, %zu rounds of %llu ms\n",
	       (unsigned long long)s.g.nr_records, (unsigned long long)s.g.nr_events, (double)s.g.bytes / 1e6,
	       nr_threads, NR_CPUS, now_s() - t0, s.g.nr_rounds, ROUND_NS / 1000000);

	res = calloc((size_t)runs, sizeof(*res));
	load = calloc((size_t)runs, sizeof(*load));
	close_ = calloc((size_t)runs, sizeof(*close_));
	decode = calloc((size_t)runs, sizeof(*decode));
	total = calloc((size_t)runs, sizeof(*total));
	if (!res || !load || !close_ || !decode || !total)
		die_nomem();
	for (int i = 0; i < runs; i++) {
		if (run_decode(&s.g, &res[i]) || run_load(&s.g, path, keep && i == runs - 1, capture, &res[i]))
			return 1;
		printf("run %d: decode+order %.2f s, load %.2f s, close %.2f s, %llu events, %llu rows, %.1f MB"
		       " (late %llu, undecodable %llu, clamped %lld)\n",
		       i + 1, res[i].decode_s, res[i].load_s, res[i].close_s, (unsigned long long)res[i].events,
		       (unsigned long long)res[i].rows, (double)res[i].db_bytes / 1e6, (unsigned long long)res[i].late,
		       (unsigned long long)res[i].undecodable, (long long)res[i].clamped);
		decode[i] = (double)res[i].events / res[i].decode_s;
		load[i] = (double)res[i].events / res[i].load_s;
		close_[i] = res[i].close_s;
		total[i] = (double)res[i].events / (res[i].load_s + res[i].close_s);
	}
	printf("\nmedians of %d runs, %llu events (%llu rows, %.2f rows/event)%s:\n", runs,
	       (unsigned long long)res[0].events, (unsigned long long)res[0].rows,
	       (double)res[0].rows / (double)res[0].events, capture ? ", rows captured" : "");
	printf("  decode + order only                  %6.2f M events/s\n", median(decode, runs) / 1e6);
	printf("  decode + order + model + write       %6.2f M events/s\n", median(load, runs) / 1e6);
	printf("  writer close (index build)           %6.2f s (%.2f s per M rows)\n", median(close_, runs),
	       median(close_, runs) / ((double)res[0].rows / 1e6));
	printf("  end to end, close included           %6.2f M events/s\n", median(total, runs) / 1e6);
	printf("  run.db size                          %6.1f bytes/event, %.1f bytes/row\n",
	       (double)res[0].db_bytes / (double)res[0].events, (double)res[0].db_bytes / (double)res[0].rows);
	if (keep)
		printf("kept %s\n", path);
	free(res);
	free(load);
	free(close_);
	free(decode);
	free(total);
	for (int c = 0; c < NR_CPUS; c++)
		free(s.g.cpu[c].buf);
	free(s.g.rounds);
	return 0;
}
