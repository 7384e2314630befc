/*
 * bench/gen-rundb.c - a synthetic but realistic run.db of any size, written
 * through the collector's writer, to time what reads run databases (the
 * derived tables of src/derived/analysis.c, the reports) without tracing anything.
 *
 * It simulates, event by event in time order, one process on 4 CPUs: a
 * small server whose main thread starts 64 threads and then ticks every
 * 10 ms (clock_nanosleep, a stats lock):
 *   8 acceptors  read() (blocking I/O, woken by an interrupt), push an item
 *                on one of 8 bounded queues (mutex + not_empty/not_full
 *                condvars), signal;
 *   48 workers   pop an item (waiting on not_empty), then lock and unlock a
 *                few of 256 data mutexes (skewed: a few are hot), compute
 *                (sometimes for milliseconds: preemptions), and at times
 *                take one of 4 connection-pool semaphores around a write();
 *   8 flushers   sleep, hold the stats lock or a hot data mutex a while,
 *                write().
 * Every thread cycles through running -> (syscall or sync op) -> blocked,
 * blocked_io or sleeping -> woken by another thread (or by an interrupt or
 * timer, waker 0) -> runnable -> running, and a thread that uses up its
 * 3 ms slice while others wait is preempted (switch with preempt = 1). A
 * global FIFO run queue hands freed CPUs to runnable threads; a woken thread
 * takes an idle CPU after a few microseconds of wakeup latency.
 *
 * Rows are what mtx collect writes for such a run: thread_states tile each
 * thread's lifetime (a blocked interval ends at its wakeup's ts), switches
 * when a thread leaves a CPU, wakeups, syscalls (futex, read, write,
 * clock_nanosleep, clone, exit), sync ops (lock/unlock, sem wait/post, cond
 * wait/signal/broadcast, thread create/join) and their objects. Lock
 * ownership changes exactly where collector/sync/resolve.c's replay puts it (acquired
 * at a lock's end, released at an unlock's or cond wait's start). Waits on
 * futexes are written as 'blocked', and then, as at the end of a
 * collection, the indexes are built and sync_resolve() relabels them
 * blocked_sync with their object and fills blocked, wait_ns, holder_tid and
 * hold_ns; writer_close(w, 1) finishes the file.
 *
 * Deterministic: a fixed seed, and commits every COMMIT_ROWS rows. While
 * rows are written, memory is bounded by the number of threads and objects
 * (rows are streamed; ~72 MB, nearly all SQLite's page cache); the finishing
 * passes, the collector's own, take more (a 340 MB peak at 10 M events).
 * "Events" are the rows of switches, wakeups, syscalls, sync_ops and
 * thread_states; the main thread starts the shutdown at its first tick
 * after EVENTS of them.
 *
 * Usage: bench/gen-rundb [--capture] OUT.db [EVENTS]
 *                                          (default 10000000; OUT.db must not
 *                                          exist); --capture: as mtx collect,
 *                                          keep the run as it is written and
 *                                          build the derived tables from it
 *                                          once the file is closed (timed)
 *        bench/gen-rundb --derive FILE     build FILE's derived tables
 *                                          (analysis_build) and print the time
 *        bench/gen-rundb --resolve FILE    put FILE's sync tables back as they
 *                                          were before sync_resolve, run it
 *                                          again and print its time
 */
#include "config.h"
#include "collector/event.h"
#include "collector/sync/resolve.h"
#include "collector/syscall-names.h"
#include "collector/writer.h"
#include "schema/schema.h"
#include "src/derived/analysis.h"
#include "src/clock.h"
#include "src/db.h"
#include "src/log.h"
#include "src/grow.h"
#include "src/derived/timeline.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

enum {
	NR_CPUS = 4,
	NR_ACCEPTORS = 8,
	NR_WORKERS = 48,
	NR_FLUSHERS = 8,
	NR_CHILDREN = NR_ACCEPTORS + NR_WORKERS + NR_FLUSHERS,
	NR_THREADS = 1 + NR_CHILDREN,
	NR_QUEUES = 8,
	QUEUE_CAP = 16,
	NR_DATA = 256,
	NR_POOLS = 4,
	POOL_TOKENS = 3,
};

#define PID 4242
#define PPID 4100
#define RUN_START_NS 1000000000000ull /* CLOCK_MONOTONIC of a machine up 1000 s */
#define SLICE_NS 3000000ull
#define TICK_NS 10000000ull
#define COMMIT_ROWS 500000
#define SEED 0x6d7478u

/* Objects, by index (sync_objects.id = index + 1). */
#define OBJ_QUEUE(q, part) ((q) * 3 + (part)) /* part: 0 mutex, 1 not_empty, 2 not_full */
#define OBJ_DATA(i) (NR_QUEUES * 3 + (i))
#define OBJ_POOL(i) (OBJ_DATA(NR_DATA) + (i))
#define OBJ_STATS OBJ_POOL(NR_POOLS)
#define OBJ_THREAD(k) (OBJ_STATS + 1 + (k)) /* the pthread_t of child k */
#define NR_OBJECTS OBJ_THREAD(NR_CHILDREN)

/* Thread states, as the collector's model names them. */
#define GEN_STATES(X)               \
	X(RUNNING, "running")       \
	X(RUNNABLE, "runnable")     \
	X(BLOCKED, "blocked")       \
	X(BLOCKED_IO, "blocked_io") \
	X(SLEEPING, "sleeping")     \
	X(DEAD, "dead")

enum gen_state {
#define X(e, n) ST_##e,
	GEN_STATES(X)
#undef X
};

static const char *const state_names[] = {
#define X(e, n) n,
	GEN_STATES(X)
#undef X
};

/* Tables whose rows count as events, and the others, for the summary. */
#define GEN_TABLES(X)                                                                        \
	X(STATES, "thread_states") X(SWITCHES, "switches") X(WAKEUPS, "wakeups")          \
	X(SYSCALLS, "syscalls") X(SYNC_OPS, "sync_ops") X(THREADS, "threads")             \
	X(PROCESSES, "processes") X(OBJECTS, "sync_objects")

enum gen_table {
#define X(e, n) T_##e,
	GEN_TABLES(X)
#undef X
	T__COUNT
};
#define T__EVENTS (T_SYNC_OPS + 1) /* the first five are events */

static const char *const table_names[] = {
#define X(e, n) n,
	GEN_TABLES(X)
#undef X
};

/*
 * What a running thread does once its current CPU work is done. The A_*
 * steps are shared (a lock, an unlock, ...) and continue at the thread's
 * ret step; the others are the roles' programs.
 */
enum gen_step {
	A_LOCK, A_LOCK_TRY, A_UNLOCK, A_SEM_WAIT, A_SEM_TRY, A_SEM_POST,
	A_COND_WAIT, A_COND_REACQUIRE, A_SIGNAL, A_BROADCAST, A_EXIT,
	P_READ, P_READ_DONE, P_LOCKED, P_PUSHED,
	W_TAKE, W_LOCKED, W_POPPED, W_STEP, W_STEP_LOCKED, W_STEP_UNLOCK, W_STEP_DONE, W_WRITE, W_WRITE_DONE,
	F_SLEEP, F_WOKEN, F_LOCKED, F_WRITE,
	M_CREATE, M_TICK, M_TICKED, M_STATS, M_SHUT, M_SHUT_LOCKED, M_SHUT_EMPTY, M_SHUT_FULL,
	M_JOIN, M_JOINED,
};

enum gen_role { ROLE_MAIN, ROLE_ACCEPTOR, ROLE_WORKER, ROLE_FLUSHER };

struct gen_object {
	const char *kind;
	int owner;      /* mutex: thread index + 1 of the holder, 0 when free */
	int count;      /* sem: tokens; queue mutex: items queued */
	int head, tail; /* waiters, thread index + 1, linked by next_waiter */
};

struct gen_thread {
	int32_t tid;
	enum gen_role role;
	int nr;                      /* number within its role */
	char name[16];
	enum gen_state state;
	int alive, cpu, last_cpu;
	uint64_t start_ns, since_ns; /* lifetime start; start of the current interval */
	int sys_nr;                  /* syscall under way, -1 none */
	uint64_t sys_start_ns;
	int64_t sys_ret;
	enum gen_step step, ret;     /* next step; where a shared step returns */
	uint64_t work_ns, run_from_ns, slice_end_ns;
	uint64_t gen;                /* heap entries of an older generation are stale */
	int next_waiter;
	int obj, obj2;               /* the shared step's object (cond wait: obj2 its mutex) */
	int data, steps;             /* role state: the data mutex, steps left, ... */
	const char *op;              /* the sync op under way */
	int op_obj;
	uint64_t op_start_ns;
	int64_t op_arg;
};

struct gen_event {
	uint64_t ts_ns, seq, gen;
	int thread;
};

struct gen {
	struct mtx_writer *w;
	uint64_t rng, now, seq, budget;
	uint64_t rows[T__COUNT], events, last_commit_rows, clamped;
	struct gen_thread t[NR_THREADS];
	struct gen_object o[NR_OBJECTS];
	struct { int cur; uint64_t free_ns; } cpu[NR_CPUS];
	int runq[NR_THREADS + 1], runq_head, runq_len;
	struct gen_event *heap;
	size_t heap_len, heap_cap;
	int quit;
	uint64_t end_ns;
};

/* ---- randomness: xorshift64*, fixed seed ------------------------------ */

static uint64_t rnd(struct gen *g)
{
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return g->rng * 0x2545f4914f6cdd1dull;
}

static double rnd_unit(struct gen *g) /* [0, 1) */
{
	return (double)(rnd(g) >> 11) / 9007199254740992.0;
}

static int chance(struct gen *g, double p)
{
	return rnd_unit(g) < p;
}

static uint64_t rnd_exp(struct gen *g, double mean_ns)
{
	return (uint64_t)(-mean_ns * log(1.0 - rnd_unit(g))) + 1;
}

static uint64_t rnd_between(struct gen *g, uint64_t lo, uint64_t hi)
{
	return lo + rnd(g) % (hi - lo + 1);
}

/* ---- the event heap (by time, then order of insertion) ----------------- */

static int ev_before(const struct gen_event *a, const struct gen_event *b)
{
	return a->ts_ns < b->ts_ns || (a->ts_ns == b->ts_ns && a->seq < b->seq);
}

static void heap_push(struct gen *g, int thread, uint64_t ts_ns)
{
	struct gen_event *h = grow_array(g->heap, &g->heap_cap, g->heap_len, sizeof(*h), 256);
	size_t i;
	if (!h) {
		fprintf(stderr, "gen-rundb: out of memory\n");
		exit(1);
	}
	g->heap = h;
	i = g->heap_len++;
	h[i] = (struct gen_event){ ts_ns, g->seq++, ++g->t[thread].gen, thread };
	while (i > 0 && ev_before(&h[i], &h[(i - 1) / 2])) {
		struct gen_event tmp = h[i];
		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = tmp;
		i = (i - 1) / 2;
	}
}

static struct gen_event heap_pop(struct gen *g)
{
	struct gen_event *h = g->heap, top = h[0];
	size_t i = 0;
	h[0] = h[--g->heap_len];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < g->heap_len && ev_before(&h[l], &h[m]))
			m = l;
		if (r < g->heap_len && ev_before(&h[r], &h[m]))
			m = r;
		if (m == i)
			break;
		struct gen_event tmp = h[i];
		h[i] = h[m];
		h[m] = tmp;
		i = m;
	}
	return top;
}

/* ---- rows -------------------------------------------------------------- */

static int idx(const struct gen *g, const struct gen_thread *t)
{
	return (int)(t - g->t);
}

static int64_t obj_id(int obj)
{
	return obj + 1;
}

/* A return address in the program for each step, as the preload records. */
static uint64_t callsite(const struct gen_thread *t)
{
	return 0x55d0c0a01000ull + (uint64_t)t->role * 0x1000 + (uint64_t)t->ret * 0x40 + 0x1b;
}

static void row_syscall(struct gen *g, const struct gen_thread *t, uint64_t start_ns, int64_t end_ns,
			int nr, int64_t ret, int has_ret)
{
	struct mtx_syscall_row r = {
		.start_ns = start_ns, .end_ns = end_ns, .nr = nr, .name = syscall_name(nr),
		.ret = ret, .tid = t->tid, .has_ret = (uint8_t)(has_ret != 0),
	};
	writer_syscall_row(g->w, &r, NULL, NULL);
	g->rows[T_SYSCALLS]++;
	g->events++;
}

static void op_begin(struct gen *g, struct gen_thread *t, const char *op, int obj, int64_t arg)
{
	t->op = op;
	t->op_obj = obj;
	t->op_start_ns = g->now;
	t->op_arg = arg;
}

static void op_end(struct gen *g, struct gen_thread *t, uint64_t end_ns)
{
	const struct writer_sync_op_row row = { .tid = t->tid, .object_id = obj_id(t->op_obj), .op = t->op,
						.start_ns = t->op_start_ns, .end_ns = end_ns, .arg = t->op_arg,
						.callsite = callsite(t), .hold_ns = -1 };
	writer_sync_op(g->w, &row);
	g->rows[T_SYNC_OPS]++;
	g->events++;
	t->op = NULL;
}

/* Close the thread's interval at @ts and enter @state (collector/model.c's
 * set_state: this is what makes the states tile the lifetime). */
static void set_state(struct gen *g, struct gen_thread *t, uint64_t ts, enum gen_state state)
{
	if (ts < t->since_ns) {
		g->clamped++;
		ts = t->since_ns;
	}
	if (ts > t->since_ns) {
		int waiting = t->state != ST_RUNNING && t->state != ST_RUNNABLE;
		writer_thread_state(g->w, t->tid, t->since_ns, ts, state_names[t->state],
				    t->state == ST_RUNNING ? t->cpu : -1,
				    waiting && t->sys_nr >= 0 ? syscall_name(t->sys_nr) : NULL);
		g->rows[T_STATES]++;
		g->events++;
		t->since_ns = ts;
	}
	t->state = state;
}

/* ---- scheduling -------------------------------------------------------- */

static void schedule(struct gen *g, struct gen_thread *t)
{
	uint64_t done = t->run_from_ns + t->work_ns;
	heap_push(g, idx(g, t), done < t->slice_end_ns ? done : t->slice_end_ns);
}

static void switch_in(struct gen *g, struct gen_thread *t, int cpu, uint64_t ts)
{
	if (ts <= t->since_ns)
		ts = t->since_ns + 50;
	g->cpu[cpu].cur = idx(g, t) + 1;
	t->cpu = t->last_cpu = cpu;
	set_state(g, t, ts, ST_RUNNING);
	t->run_from_ns = ts;
	t->slice_end_ns = ts + SLICE_NS;
	if (t->sys_nr >= 0) { /* back from the syscall it slept in */
		row_syscall(g, t, t->sys_start_ns, (int64_t)(ts + 250), t->sys_nr, t->sys_ret, 1);
		t->sys_nr = -1;
		t->work_ns += 250;
	}
	schedule(g, t);
}

/* @cpu is free from @ts: the next runnable thread gets it. Returns its tid,
 * or 0 (the idle task). */
static int32_t dispatch(struct gen *g, int cpu, uint64_t ts)
{
	struct gen_thread *next;
	g->cpu[cpu].cur = 0;
	g->cpu[cpu].free_ns = ts;
	if (!g->runq_len)
		return 0;
	next = &g->t[g->runq[g->runq_head]];
	g->runq_head = (g->runq_head + 1) % (NR_THREADS + 1);
	g->runq_len--;
	switch_in(g, next, cpu, ts);
	return next->tid;
}

static void switch_out(struct gen *g, struct gen_thread *t, uint64_t ts, const char *prev_state,
		       int preempt, enum gen_state state)
{
	int cpu = t->cpu;
	set_state(g, t, ts, state);
	t->cpu = -1;
	writer_switch(g->w, ts, cpu, t->tid, prev_state, preempt, dispatch(g, cpu, ts), 0);
	g->rows[T_SWITCHES]++;
	g->events++;
}

static void runq_push(struct gen *g, struct gen_thread *t)
{
	g->runq[(g->runq_head + g->runq_len) % (NR_THREADS + 1)] = idx(g, t);
	g->runq_len++;
}

/* @t became runnable at @ts: an idle CPU (its last one first) takes it after
 * a wakeup latency, or it queues. Returns the CPU it will run on. */
static int make_runnable(struct gen *g, struct gen_thread *t, uint64_t ts)
{
	int cpu = -1;
	if (t->last_cpu >= 0 && !g->cpu[t->last_cpu].cur)
		cpu = t->last_cpu;
	for (int c = 0; c < NR_CPUS && cpu < 0; c++)
		if (!g->cpu[c].cur)
			cpu = c;
	if (cpu < 0) {
		runq_push(g, t);
		return t->last_cpu >= 0 ? t->last_cpu : 0;
	}
	uint64_t at = ts + rnd_between(g, 2000, 9000);
	if (at < g->cpu[cpu].free_ns)
		at = g->cpu[cpu].free_ns + 500;
	switch_in(g, t, cpu, at);
	return cpu;
}

/* @waker (NULL: an interrupt or timer) wakes @t at @ts. */
static void wake(struct gen *g, struct gen_thread *waker, struct gen_thread *t, uint64_t ts)
{
	int target;
	if (ts <= t->since_ns)
		ts = t->since_ns + 100;
	t->gen++; /* a pending timer is void */
	set_state(g, t, ts, ST_RUNNABLE);
	target = make_runnable(g, t, ts);
	writer_wakeup(g->w, ts, waker ? waker->cpu : target, waker ? waker->tid : 0, t->tid, target);
	g->rows[T_WAKEUPS]++;
	g->events++;
}

static void preempt(struct gen *g, struct gen_thread *t)
{
	int cpu = t->cpu;
	struct gen_thread *next = &g->t[g->runq[g->runq_head]];
	g->runq_head = (g->runq_head + 1) % (NR_THREADS + 1);
	g->runq_len--;
	runq_push(g, t);
	set_state(g, t, g->now, ST_RUNNABLE);
	t->cpu = -1;
	writer_switch(g->w, g->now, cpu, t->tid, "R+", 1, next->tid, 0);
	g->rows[T_SWITCHES]++;
	g->events++;
	switch_in(g, next, cpu, g->now);
}

/* ---- waiting ----------------------------------------------------------- */

static void waiter_add(struct gen *g, int obj, struct gen_thread *t)
{
	struct gen_object *o = &g->o[obj];
	t->next_waiter = 0;
	if (o->tail)
		g->t[o->tail - 1].next_waiter = idx(g, t) + 1;
	else
		o->head = idx(g, t) + 1;
	o->tail = idx(g, t) + 1;
}

static struct gen_thread *waiter_take(struct gen *g, int obj)
{
	struct gen_object *o = &g->o[obj];
	struct gen_thread *t;
	if (!o->head)
		return NULL;
	t = &g->t[o->head - 1];
	o->head = t->next_waiter;
	if (!o->head)
		o->tail = 0;
	return t;
}

/*
 * block - @t enters syscall @nr at @at and leaves the CPU 300 ns later in
 * @state, to continue at @resume once it runs again. It waits in @obj's
 * queue (obj >= 0) or until a timer or interrupt @timer_ns later.
 */
static void block(struct gen *g, struct gen_thread *t, uint64_t at, int nr, enum gen_state state,
		  int obj, uint64_t timer_ns, int64_t ret, enum gen_step resume)
{
	uint64_t out = at + 300;
	t->sys_nr = nr;
	t->sys_start_ns = at;
	t->sys_ret = ret;
	t->step = resume;
	t->work_ns = 40;
	switch_out(g, t, out, "S", 0, state);
	if (obj >= 0)
		waiter_add(g, obj, t);
	else
		heap_push(g, idx(g, t), out + timer_ns);
}

/* A futex wake of the first waiter of @obj by @t at @at; returns when the
 * syscall is over (@at itself when nobody waited). */
static uint64_t wake_one(struct gen *g, struct gen_thread *t, int obj, uint64_t at)
{
	struct gen_thread *w = waiter_take(g, obj);
	if (!w)
		return at;
	wake(g, t, w, at + 450);
	row_syscall(g, t, at + 30, (int64_t)(at + 1200), SYS_futex, 1, 1);
	return at + 1250;
}

/* ---- steps ------------------------------------------------------------- */

static void then(struct gen_thread *t, enum gen_step step, uint64_t work_ns)
{
	t->step = step;
	t->work_ns = work_ns;
}

/* Run the shared step @step on @obj after @work_ns of CPU, then @ret. */
static void call(struct gen_thread *t, enum gen_step step, int obj, enum gen_step ret, uint64_t work_ns)
{
	t->obj = obj;
	t->ret = ret;
	then(t, step, work_ns);
}

static void cond_wait(struct gen_thread *t, int cond, int mutex, enum gen_step ret)
{
	t->obj2 = mutex;
	call(t, A_COND_WAIT, cond, ret, 60);
}

/*
 * io - syscall @nr (read or write) returning @ret, then @next: with
 * probability @p_block it waits for the device (blocked_io, ended by an
 * interrupt after ~@wait_mean_ns), else it takes @quick_ns on the CPU.
 */
static void io(struct gen *g, struct gen_thread *t, int nr, double p_block, double wait_mean_ns,
	       uint64_t quick_ns, int64_t ret, enum gen_step next)
{
	if (chance(g, p_block)) {
		block(g, t, g->now, nr, ST_BLOCKED_IO, -1, rnd_exp(g, wait_mean_ns), ret, next);
	} else {
		row_syscall(g, t, g->now, (int64_t)(g->now + quick_ns), nr, ret, 1);
		then(t, next, quick_ns + 100);
	}
}

/*
 * take_or_wait - the op under way gets @obj (a free mutex, or one of a
 * semaphore's tokens) and ends, or its thread sleeps on @obj's futex and
 * tries again at @retry once woken (no hand-off: another may take it first).
 */
static void take_or_wait(struct gen *g, struct gen_thread *t, int obj, enum gen_step retry)
{
	struct gen_object *o = &g->o[obj];
	int sem = obj >= OBJ_POOL(0) && obj < OBJ_POOL(NR_POOLS);

	if (sem ? o->count <= 0 : o->owner != 0) {
		block(g, t, g->now, SYS_futex, ST_BLOCKED, obj, 0, 0, retry);
		return;
	}
	if (sem)
		o->count--;
	else
		o->owner = idx(g, t) + 1;
	op_end(g, t, g->now);
	then(t, t->ret, 20);
}

/* release_end - an unlock or post has made its object available: wake its
 * first waiter, if any, end the op and return. */
static void release_end(struct gen *g, struct gen_thread *t)
{
	uint64_t at = wake_one(g, t, t->op_obj, g->now);
	op_end(g, t, at + 45);
	then(t, t->ret, at - g->now + 60);
}

static void thread_exit(struct gen *g, struct gen_thread *t)
{
	int main_thread = t->role == ROLE_MAIN;
	int nr = main_thread ? SYS_exit_group : SYS_exit;
	uint64_t end = g->now + 3000;
	struct gen_thread *joiner;

	row_syscall(g, t, g->now, -1, nr, 0, 0); /* never returns */
	if (!main_thread && (joiner = waiter_take(g, OBJ_THREAD(idx(g, t) - 1))))
		wake(g, t, joiner, end - 1000); /* CLONE_CHILD_CLEARTID's futex wake */
	switch_out(g, t, end, "X", 0, ST_DEAD);
	writer_thread(g->w, t->tid, PID, t->name, t->start_ns, end, 0);
	g->rows[T_THREADS]++;
	t->alive = 0;
	t->gen++;
	if (main_thread)
		g->end_ns = end;
}

static void shared_step(struct gen *g, struct gen_thread *t)
{
	struct gen_object *o = &g->o[t->obj];
	struct gen_thread *w;
	uint64_t at;

	switch (t->step) {
	case A_LOCK:
		op_begin(g, t, "lock", t->obj, 0);
		then(t, A_LOCK_TRY, 40);
		return;
	case A_LOCK_TRY:
		take_or_wait(g, t, t->obj, A_LOCK_TRY);
		return;
	case A_UNLOCK:
		op_begin(g, t, "unlock", t->obj, 0);
		o->owner = 0;
		release_end(g, t);
		return;
	case A_SEM_WAIT:
		op_begin(g, t, "wait", t->obj, 0);
		then(t, A_SEM_TRY, 40);
		return;
	case A_SEM_TRY:
		take_or_wait(g, t, t->obj, A_SEM_TRY);
		return;
	case A_SEM_POST:
		op_begin(g, t, "post", t->obj, 0);
		o->count++;
		release_end(g, t);
		return;
	case A_COND_WAIT: /* releases the mutex, sleeps, takes the mutex back */
		op_begin(g, t, "wait", t->obj, obj_id(t->obj2));
		g->o[t->obj2].owner = 0;
		at = wake_one(g, t, t->obj2, g->now + 60);
		block(g, t, at, SYS_futex, ST_BLOCKED, t->obj, 0, 0, A_COND_REACQUIRE);
		return;
	case A_COND_REACQUIRE:
		take_or_wait(g, t, t->obj2, A_COND_REACQUIRE);
		return;
	case A_SIGNAL:
	case A_BROADCAST:
		op_begin(g, t, t->step == A_SIGNAL ? "signal" : "broadcast", t->obj, 0);
		at = g->now;
		if (o->head) {
			int n = 0;
			while ((w = waiter_take(g, t->obj)) != NULL) {
				wake(g, t, w, g->now + 450 + (uint64_t)n * 300);
				n++;
				if (t->step == A_SIGNAL)
					break;
			}
			at = g->now + 1200 + (uint64_t)n * 300;
			row_syscall(g, t, g->now + 30, (int64_t)at, SYS_futex, n, 1);
		}
		op_end(g, t, at + 40);
		then(t, t->ret, at - g->now + 60);
		return;
	case A_EXIT:
		thread_exit(g, t);
		return;
	default:
		return;
	}
}

/* CPU work between two steps: mostly short, sometimes milliseconds. */
static uint64_t compute(struct gen *g, double mean_ns)
{
	return chance(g, 0.004) ? rnd_between(g, 1000000, 5000000) : rnd_exp(g, mean_ns);
}

/* A data mutex: a few hot ones shared by all, the rest mostly by neighbours. */
static int pick_data(struct gen *g, const struct gen_thread *t)
{
	double u = rnd_unit(g);
	if (chance(g, 0.3))
		return OBJ_DATA((int)(16 * u * u));
	return OBJ_DATA(16 + (t->nr * 5 + (int)(rnd(g) % 24)) % (NR_DATA - 16));
}

static void acceptor_step(struct gen *g, struct gen_thread *t)
{
	int q = t->nr % NR_QUEUES;
	switch (t->step) {
	case P_READ:
		io(g, t, SYS_read, 0.7, 300000, 1500, 512, P_READ_DONE);
		return;
	case P_READ_DONE:
		if (g->quit)
			then(t, A_EXIT, 500);
		else
			call(t, A_LOCK, OBJ_QUEUE(q, 0), P_LOCKED, rnd_exp(g, 8000));
		return;
	case P_LOCKED:
		if (g->quit)
			call(t, A_UNLOCK, OBJ_QUEUE(q, 0), A_EXIT, 50);
		else if (g->o[OBJ_QUEUE(q, 0)].count >= QUEUE_CAP)
			cond_wait(t, OBJ_QUEUE(q, 2), OBJ_QUEUE(q, 0), P_LOCKED);
		else {
			g->o[OBJ_QUEUE(q, 0)].count++;
			call(t, A_SIGNAL, OBJ_QUEUE(q, 1), P_PUSHED, 200);
		}
		return;
	case P_PUSHED:
		call(t, A_UNLOCK, OBJ_QUEUE(q, 0), P_READ, 50);
		return;
	default:
		return;
	}
}

static void worker_step(struct gen *g, struct gen_thread *t)
{
	int q = t->nr % NR_QUEUES, pool = OBJ_POOL(t->nr % NR_POOLS);
	switch (t->step) {
	case W_TAKE:
		if (g->quit)
			then(t, A_EXIT, 500);
		else
			call(t, A_LOCK, OBJ_QUEUE(q, 0), W_LOCKED, 100);
		return;
	case W_LOCKED:
		if (!g->o[OBJ_QUEUE(q, 0)].count) {
			if (g->quit)
				call(t, A_UNLOCK, OBJ_QUEUE(q, 0), A_EXIT, 50);
			else
				cond_wait(t, OBJ_QUEUE(q, 1), OBJ_QUEUE(q, 0), W_LOCKED);
		} else {
			t->steps = (int)rnd_between(g, 1, 6);
			if (g->o[OBJ_QUEUE(q, 0)].count-- == QUEUE_CAP) /* was full */
				call(t, A_SIGNAL, OBJ_QUEUE(q, 2), W_POPPED, 150);
			else
				then(t, W_POPPED, 150);
		}
		return;
	case W_POPPED:
		call(t, A_UNLOCK, OBJ_QUEUE(q, 0), W_STEP, 50);
		return;
	case W_STEP:
		t->data = pick_data(g, t);
		call(t, A_LOCK, t->data, W_STEP_LOCKED, compute(g, 15000));
		return;
	case W_STEP_LOCKED:
		if (chance(g, 0.03)) /* I/O with the lock held */
			block(g, t, g->now + rnd_exp(g, 1000), SYS_write, ST_BLOCKED_IO, -1, rnd_exp(g, 150000),
			      256, W_STEP_UNLOCK);
		else
			call(t, A_UNLOCK, t->data, W_STEP_DONE, rnd_exp(g, 2500));
		return;
	case W_STEP_UNLOCK:
		call(t, A_UNLOCK, t->data, W_STEP_DONE, 500);
		return;
	case W_STEP_DONE:
		if (--t->steps > 0)
			then(t, W_STEP, 20);
		else if (chance(g, 0.35))
			call(t, A_SEM_WAIT, pool, W_WRITE, rnd_exp(g, 5000));
		else
			then(t, W_TAKE, rnd_exp(g, 10000));
		return;
	case W_WRITE:
		io(g, t, SYS_write, 0.6, 120000, 3000, 4096, W_WRITE_DONE);
		return;
	case W_WRITE_DONE:
		call(t, A_SEM_POST, pool, W_TAKE, 500);
		return;
	default:
		return;
	}
}

static void flusher_step(struct gen *g, struct gen_thread *t)
{
	switch (t->step) {
	case F_SLEEP:
		if (g->quit)
			then(t, A_EXIT, 500);
		else
			block(g, t, g->now, SYS_clock_nanosleep, ST_SLEEPING, -1,
			      rnd_between(g, 500000, 2000000), 0, F_WOKEN);
		return;
	case F_WOKEN:
		t->data = chance(g, 0.5) ? OBJ_STATS : OBJ_DATA((int)(rnd(g) % 4));
		call(t, A_LOCK, t->data, F_LOCKED, rnd_exp(g, 3000));
		return;
	case F_LOCKED:
		call(t, A_UNLOCK, t->data, F_WRITE, rnd_exp(g, 20000));
		return;
	case F_WRITE:
		io(g, t, SYS_write, 0.5, 300000, 4000, 8192, F_SLEEP);
		return;
	default:
		return;
	}
}

static void main_step(struct gen *g, struct gen_thread *t)
{
	struct gen_thread *child;
	int q = t->steps;

	switch (t->step) {
	case M_CREATE: /* pthread_create of child t->steps */
		child = &g->t[1 + t->steps];
		t->ret = M_CREATE; /* names the call site */
		op_begin(g, t, "create", OBJ_THREAD(t->steps), child->tid);
		child->alive = 1;
		child->start_ns = child->since_ns = g->now + 15000;
		child->state = ST_RUNNABLE;
		make_runnable(g, child, child->start_ns);
		row_syscall(g, t, g->now + 200, (int64_t)(g->now + 20000), SYS_clone, child->tid, 1);
		op_end(g, t, g->now + 21000);
		if (++t->steps < NR_CHILDREN)
			then(t, M_CREATE, 21000 + rnd_exp(g, 3000));
		else
			then(t, M_TICK, 21000 + rnd_exp(g, 3000));
		return;
	case M_TICK:
		block(g, t, g->now, SYS_clock_nanosleep, ST_SLEEPING, -1, TICK_NS, 0, M_TICKED);
		return;
	case M_TICKED:
		if (g->events >= g->budget) {
			g->quit = 1;
			t->steps = 0;
			then(t, M_SHUT, 1000);
		} else {
			call(t, A_LOCK, OBJ_STATS, M_STATS, 2000);
		}
		return;
	case M_STATS:
		call(t, A_UNLOCK, OBJ_STATS, M_TICK, rnd_exp(g, 30000));
		return;
	case M_SHUT: /* wake every thread waiting on a queue, queue by queue */
		call(t, A_LOCK, OBJ_QUEUE(q, 0), M_SHUT_LOCKED, 500);
		return;
	case M_SHUT_LOCKED:
		call(t, A_BROADCAST, OBJ_QUEUE(q, 1), M_SHUT_EMPTY, 100);
		return;
	case M_SHUT_EMPTY:
		call(t, A_BROADCAST, OBJ_QUEUE(q, 2), M_SHUT_FULL, 100);
		return;
	case M_SHUT_FULL:
		if (++t->steps < NR_QUEUES) {
			call(t, A_UNLOCK, OBJ_QUEUE(q, 0), M_SHUT, 100);
		} else {
			t->steps = 0;
			call(t, A_UNLOCK, OBJ_QUEUE(q, 0), M_JOIN, 100);
		}
		return;
	case M_JOIN: /* pthread_join of child t->steps */
		child = &g->t[1 + t->steps];
		t->ret = M_JOIN;
		op_begin(g, t, "join", OBJ_THREAD(t->steps), child->tid);
		if (child->alive) {
			block(g, t, g->now + 200, SYS_futex, ST_BLOCKED, OBJ_THREAD(t->steps), 0, 0, M_JOINED);
			return;
		}
		op_end(g, t, g->now + 300); /* it had exited: no wait */
		if (++t->steps < NR_CHILDREN)
			then(t, M_JOIN, 300 + rnd_exp(g, 2000));
		else
			then(t, A_EXIT, 20000);
		return;
	case M_JOINED:
		op_end(g, t, g->now);
		if (++t->steps < NR_CHILDREN)
			then(t, M_JOIN, rnd_exp(g, 2000));
		else
			then(t, A_EXIT, 20000);
		return;
	default:
		return;
	}
}

static void step(struct gen *g, struct gen_thread *t)
{
	if (t->step <= A_EXIT) {
		shared_step(g, t);
		return;
	}
	switch (t->role) {
	case ROLE_MAIN:
		main_step(g, t);
		break;
	case ROLE_ACCEPTOR:
		acceptor_step(g, t);
		break;
	case ROLE_WORKER:
		worker_step(g, t);
		break;
	case ROLE_FLUSHER:
		flusher_step(g, t);
		break;
	}
}

/* ---- the run ----------------------------------------------------------- */

static void setup(struct gen *g, uint64_t budget)
{
	static const char *const role_names[] = { "server", "acceptor", "worker", "flush" };
	memset(g, 0, sizeof(*g));
	g->rng = SEED;
	g->budget = budget;
	g->now = RUN_START_NS;
	for (int i = 0; i < NR_THREADS; i++) {
		struct gen_thread *t = &g->t[i];
		t->tid = PID + i;
		t->role = i == 0 ? ROLE_MAIN : i <= NR_ACCEPTORS ? ROLE_ACCEPTOR
			 : i <= NR_ACCEPTORS + NR_WORKERS ? ROLE_WORKER : ROLE_FLUSHER;
		t->nr = i == 0 ? 0 : t->role == ROLE_ACCEPTOR ? i - 1
			: t->role == ROLE_WORKER ? i - 1 - NR_ACCEPTORS : i - 1 - NR_ACCEPTORS - NR_WORKERS;
		if (i == 0)
			snprintf(t->name, sizeof(t->name), "%s", role_names[0]);
		else
			snprintf(t->name, sizeof(t->name), "%s-%d", role_names[t->role], t->nr);
		t->cpu = t->last_cpu = -1;
		t->sys_nr = -1;
		t->step = t->role == ROLE_MAIN ? M_CREATE : t->role == ROLE_ACCEPTOR ? P_READ
			: t->role == ROLE_WORKER ? W_TAKE : F_SLEEP;
		t->work_ns = rnd_exp(g, 50000); /* start-up before the first step */
	}
	for (int i = 0; i < NR_OBJECTS; i++) {
		g->o[i].kind = i >= OBJ_THREAD(0) ? "thread" : i == OBJ_STATS ? "mutex"
			       : i >= OBJ_POOL(0) ? "sem" : i >= OBJ_DATA(0) ? "mutex"
			       : i % 3 ? "cond" : "mutex";
	}
	for (int i = 0; i < NR_POOLS; i++)
		g->o[OBJ_POOL(i)].count = POOL_TOKENS;
}

static void write_objects(struct gen *g)
{
	for (int i = 0; i < NR_OBJECTS; i++) {
		/* Addresses as a program would have them: in .bss, in heap
		 * structures, and the pthread_t of each thread's stack. */
		uint64_t addr = i >= OBJ_THREAD(0) ? 0x7f3a5c000640ull + (uint64_t)(i - OBJ_THREAD(0)) * 0x801000
			      : 0x55d0c0c04000ull + (uint64_t)i * 0x40;
		writer_sync_object(g->w, obj_id(i), g->o[i].kind, addr, PID, RUN_START_NS);
		g->rows[T_OBJECTS]++;
	}
}

static void write_meta_start(struct gen *g, uint64_t budget)
{
	char command[128];
	snprintf(command, sizeof(command), "./server --acceptors %d --workers %d --flushers %d",
		 NR_ACCEPTORS, NR_WORKERS, NR_FLUSHERS);
	writer_meta(g->w, "command", command);
	writer_meta(g->w, "complete", "0");
	writer_meta(g->w, "mtx_version", PACKAGE_VERSION);
	writer_meta_int(g->w, "schema_version", MTX_SCHEMA_VERSION);
	writer_meta(g->w, "clock", "CLOCK_MONOTONIC");
	writer_meta_int(g->w, "nr_cpus", NR_CPUS);
	writer_meta(g->w, "events", "sched,syscalls,wakeups,sync");
	writer_meta(g->w, "synthetic", "bench/gen-rundb");
	writer_meta_int(g->w, "synthetic_events_asked", (int64_t)budget);
}

static void write_meta_end(struct gen *g)
{
	char key[64];
	for (int i = 0; i < MTX_SRC__COUNT; i++) {
		snprintf(key, sizeof(key), "lost_%s", source_name((uint32_t)i));
		writer_meta_int(g->w, key, 0);
	}
	writer_meta_int(g->w, "events_total", (int64_t)g->events);
	writer_meta_int(g->w, "undecodable_records", 0);
	writer_meta_int(g->w, "late_events", 0);
	writer_meta_int(g->w, "model_clamped_events", (int64_t)g->clamped);
	writer_meta_int(g->w, "start_ns", (int64_t)RUN_START_NS);
	writer_meta_int(g->w, "end_ns", (int64_t)g->end_ns);
	writer_meta_int(g->w, "duration_ns", (int64_t)(g->end_ns - RUN_START_NS));
	writer_meta_int(g->w, "exit_status", 0);
	writer_meta(g->w, "complete", "1");
}

static void simulate(struct gen *g)
{
	struct gen_thread *main_thread = &g->t[0];

	/* The main thread starts running on CPU 0 at exec. */
	main_thread->alive = 1;
	main_thread->start_ns = main_thread->since_ns = RUN_START_NS;
	main_thread->state = ST_RUNNING;
	main_thread->cpu = main_thread->last_cpu = 0;
	g->cpu[0].cur = 1;
	main_thread->run_from_ns = RUN_START_NS;
	main_thread->slice_end_ns = RUN_START_NS + SLICE_NS;
	schedule(g, main_thread);
	while (g->heap_len) {
		struct gen_event e = heap_pop(g);
		struct gen_thread *t = &g->t[e.thread];
		if (e.gen != t->gen || !t->alive)
			continue;
		g->now = e.ts_ns;
		if (t->state != ST_RUNNING) { /* a timer or an I/O completion */
			wake(g, NULL, t, g->now);
			continue;
		}
		uint64_t ran = g->now - t->run_from_ns;
		t->work_ns -= ran < t->work_ns ? ran : t->work_ns;
		t->run_from_ns = g->now;
		if (t->work_ns) { /* its slice is over */
			if (g->runq_len) {
				preempt(g, t);
			} else {
				t->slice_end_ns = g->now + SLICE_NS;
				schedule(g, t);
			}
			continue;
		}
		step(g, t);
		if (t->state == ST_RUNNING && t->alive)
			schedule(g, t);
		if (writer_rows(g->w) - g->last_commit_rows >= COMMIT_ROWS) {
			g->last_commit_rows = writer_rows(g->w);
			if (writer_commit(g->w))
				return;
		}
	}
}

static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

/* The objects with lifetime ops (the children's thread objects: create,
 * join), as collect_sync_finish hands sync_resolve its own. */
static void set_lifetime_ids(int64_t ids[NR_CHILDREN])
{
	for (int k = 0; k < NR_CHILDREN; k++)
		ids[k] = obj_id(OBJ_THREAD(k));
}

static int64_t derive(const char *path, struct tl_capture *capture);

static int generate(const char *path, uint64_t budget, bool capture)
{
	static struct gen g; /* ~20 KB of threads and objects: not on the stack */
	struct sync_resolve_stats st;
	int64_t lifetime_ids[NR_CHILDREN];
	char *err = NULL;
	uint64_t t0, t1, t2, t3;
	int rc;

	setup(&g, budget);
	log_set_level(LOG_VERBOSE); /* sync_resolve's phase times */
	t0 = clock_now_ns();
	if (writer_open(&g.w, path, &err)) {
		fprintf(stderr, "gen-rundb: %s\n", err ? err : path);
		free(err);
		return 1;
	}
	if (capture && writer_capture(g.w)) {
		fprintf(stderr, "gen-rundb: no memory to capture the run\n");
		writer_close(g.w, 0);
		return 1;
	}
	write_meta_start(&g, budget);
	write_objects(&g);
	simulate(&g);
	writer_process(g.w, PID, PPID, "server", RUN_START_NS, (int64_t)g.end_ns, 0);
	g.rows[T_PROCESSES]++;
	writer_commit(g.w);
	t1 = clock_now_ns();
	if (writer_error(g.w)) {
		fprintf(stderr, "gen-rundb: %s\n", writer_error(g.w));
		writer_close(g.w, 0);
		return 1;
	}

	/* As collect_sync_finish: indexes first, then the passes. */
	set_lifetime_ids(lifetime_ids);
	rc = db_create_indexes(writer_db(g.w), &err);
	printf("  indexes: %.2f s\n", secs(clock_now_ns() - t1));
	if (!rc)
		rc = sync_resolve(writer_db(g.w), writer_captured(g.w), lifetime_ids, NR_CHILDREN, &st, &err);
	if (rc) {
		fprintf(stderr, "gen-rundb: %s\n", err ? err : "finishing the sync tables failed");
		free(err);
		writer_close(g.w, 0);
		return 1;
	}
	t2 = clock_now_ns();
	writer_meta_int(g.w, "sync_objects", NR_OBJECTS + (int64_t)st.lifetimes_split);
	writer_meta_int(g.w, "sync_blocked_ops", (int64_t)st.blocked_ops);
	writer_meta_int(g.w, "sync_contended_ops", (int64_t)st.contended_ops);
	writer_meta_int(g.w, "sync_resolve_ms", (int64_t)((t2 - t1) / 1000000));
	write_meta_end(&g);
	struct tl_capture *captured = capture ? writer_take_capture(g.w) : NULL;
	rc = writer_close(g.w, 1);
	t3 = clock_now_ns();
	if (rc) {
		fprintf(stderr, "gen-rundb: writing %s failed (%d)\n", path, rc);
		timeline_capture_free(captured);
		return 1;
	}
	int64_t derived_ms = capture ? derive(path, captured) : 0;
	if (derived_ms < 0)
		return 1;

	printf("gen-rundb: %s: %d threads in 1 process on %d CPUs, %.3f s of run, %d sync objects\n",
	       path, NR_THREADS, NR_CPUS, secs(g.end_ns - RUN_START_NS), NR_OBJECTS);
	for (int i = 0; i < T__COUNT; i++)
		printf("  %-14s %10llu%s\n", table_names[i], (unsigned long long)g.rows[i],
		       i < T__EVENTS ? "  (event)" : "");
	printf("  %-14s %10llu  (asked for %llu)\n", "events", (unsigned long long)g.events,
	       (unsigned long long)budget);
	printf("  sync_resolve: %llu blocked states -> blocked_sync, %llu ops blocked, %llu contended\n",
	       (unsigned long long)st.blocked_states, (unsigned long long)st.blocked_ops,
	       (unsigned long long)st.contended_ops);
	if (g.clamped)
		printf("  WARNING: %llu intervals clamped (a bug in the simulation)\n",
		       (unsigned long long)g.clamped);
	printf("write %.2f s (%.2f M events/s), sync resolve + indexes %.2f s, close %.2f s; "
	       "total %.2f s (%.2f M events/s)\n",
	       secs(t1 - t0), (double)g.events / 1e6 / secs(t1 - t0), secs(t2 - t1), secs(t3 - t2),
	       secs(t3 - t0), (double)g.events / 1e6 / secs(t3 - t0));
	printf("times_ms write=%llu resolve=%llu close=%llu total=%llu events=%llu%s",
	       (unsigned long long)((t1 - t0) / 1000000), (unsigned long long)((t2 - t1) / 1000000),
	       (unsigned long long)((t3 - t2) / 1000000), (unsigned long long)((t3 - t0) / 1000000),
	       (unsigned long long)g.events, capture ? "" : "\n");
	if (capture)
		printf(" derived_captured=%lld\n", (long long)derived_ms);
	free(g.heap);
	return 0;
}

/*
 * The derived tables of @path: from @capture, as mtx collect builds them
 * (generate --capture, once the file is closed), or, without one, read from
 * the file as the first reader would (--derive FILE). Prints and returns the
 * wall time in ms (open to close), or -1. Frees @capture.
 */
static int64_t derive(const char *path, struct tl_capture *capture)
{
	sqlite3 *db = NULL;
	char *err = NULL;
	uint64_t t0 = clock_now_ns();
	int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK)
		timeline_capture_free(capture);
	if (rc != SQLITE_OK || analysis_build_captured(db, capture, &err)) {
		fprintf(stderr, "gen-rundb: building the derived tables of %s: %s\n", path, err ? err : sqlite3_errmsg(db));
		free(err);
		sqlite3_close(db);
		return -1;
	}
	int64_t meta_ms = db_query_int(db, "SELECT value FROM meta WHERE key = 'derived_ms'", -1);
	sqlite3_close(db);
	int64_t ms = (int64_t)((clock_now_ns() - t0) / 1000000);
	printf("derived_ms=%lld (meta derived_ms=%lld)\n", (long long)ms, (long long)meta_ms);
	return ms;
}

/*
 * --resolve FILE: sync_resolve alone, on a file of this generator (the
 * collector's state before it: waits on futexes 'blocked', no holders,
 * hold or wait times; a run of it gives back the same tables, checked at
 * 10 M events), with the writer's settings, in one transaction.
 */
static int resolve_again(const char *path)
{
	static const char undo[] =
		"PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF; PRAGMA cache_size=-65536; BEGIN; "
		"UPDATE thread_states SET state = 'blocked', object_id = NULL WHERE state = 'blocked_sync'; "
		"UPDATE sync_ops SET blocked = 0, wait_ns = 0, holder_tid = NULL, hold_ns = NULL; COMMIT";
	int64_t lifetime_ids[NR_CHILDREN];
	struct sync_resolve_stats stats;
	sqlite3 *db = NULL;
	char *err = NULL;
	int rc = 1;

	set_lifetime_ids(lifetime_ids);
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK ||
	    db_exec(db, undo, &err)) {
		fprintf(stderr, "gen-rundb: %s: %s\n", path, err ? err : sqlite3_errmsg(db));
		goto out;
	}
	uint64_t t0 = clock_now_ns();
	if (db_exec(db, "BEGIN", &err) || sync_resolve(db, NULL, lifetime_ids, NR_CHILDREN, &stats, &err) ||
	    db_exec(db, "COMMIT", &err)) {
		fprintf(stderr, "gen-rundb: resolving %s: %s\n", path, err ? err : "failed");
		goto out;
	}
	printf("resolve_ms=%llu\n", (unsigned long long)((clock_now_ns() - t0) / 1000000));
	rc = 0;
out:
	free(err);
	sqlite3_close(db);
	return rc;
}

int main(int argc, char **argv)
{
	char *end;
	unsigned long long events = 10000000;
	bool capture = argc > 1 && !strcmp(argv[1], "--capture");

	if (argc == 3 && !strcmp(argv[1], "--derive"))
		return derive(argv[2], NULL) < 0;
	if (argc == 3 && !strcmp(argv[1], "--resolve"))
		return resolve_again(argv[2]);
	argc -= capture;
	argv += capture;
	if (argc < 2 || argc > 3 || argv[1][0] == '-') {
		fprintf(stderr, "usage: gen-rundb [--capture] OUT.db [EVENTS]   (default 10000000)\n"
				"       gen-rundb --derive FILE\n"
				"       gen-rundb --resolve FILE\n");
		return 2;
	}
	if (argc == 3) {
		events = strtoull(argv[2], &end, 10);
		if (*end || !events) {
			fprintf(stderr, "gen-rundb: EVENTS must be a positive number, not '%s'\n", argv[2]);
			return 2;
		}
	}
	return generate(argv[1], events, capture);
}
