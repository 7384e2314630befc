/*
 * collector/model.c - see model.h.
 *
 * State transitions (all at the event's time, closing the previous
 * interval, which is why the tiling has no gap or overlap):
 *   FORK (new thread)          -> runnable (it waits for its first CPU)
 *   COMM exec, thread unknown  -> running (the exec'ing thread is on a CPU)
 *   SWITCH_IN                  -> running on that CPU
 *   SWITCH_OUT preempted / R   -> runnable
 *   SWITCH_OUT D               -> blocked_io
 *   SWITCH_OUT S in a syscall  -> sleeping / blocked_io / blocked by the
 *                                 syscall's class (syscall_class below)
 *   WAKEUP of a waiting thread -> runnable
 *   EXIT                       -> lifetime ends
 * Syscall rows are written through collector/fd-kind.c, which adds the
 * descriptor a syscall worked on and what it was.
 */
#include "config.h"
#include "collector/model.h"
#include "collector/detail.h"
#include "collector/fd-kind.h"
#include "collector/interrupts.h"
#include "collector/other-tasks.h"
#include "collector/syscall-names.h"
#include "src/io-ops.h"
#include "src/keyhash.h"
#include "src/thread-states.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How a thread waiting inside a syscall is classified. Syscalls not listed
 * are "blocked" (futex, wait4, ...); issue-level refinement of blocked into
 * blocked_sync happens when sync ops are joined at finalize. */
static const char *const sleeping_syscalls[] = {
	"nanosleep", "clock_nanosleep", "pause", NULL,
};
static const char *const io_syscalls[] = {
	"read", "write", "pread64", "pwrite64", "readv", "writev", "preadv", "pwritev", "preadv2",
	"pwritev2", "recvfrom", "sendto", "recvmsg", "sendmsg", "recvmmsg", "sendmmsg", "accept",
	"accept4", "connect", "poll", "ppoll", "select", "pselect6", "epoll_wait", "epoll_pwait",
	"epoll_pwait2", "io_getevents", "io_pgetevents", "io_uring_enter", "fsync", "fdatasync", "sync",
	"syncfs", "sync_file_range", "sendfile", "splice", "tee", "open", "openat", "openat2", "msync",
	"fallocate", "ftruncate", "truncate", "copy_file_range", "getdents64", "close", "unlink",
	"unlinkat", "rename", "renameat", "renameat2", "mkdir", "mkdirat", "rmdir", NULL,
};

#define NR_EXIT 60
#define NR_EXIT_GROUP 231
#define TASK_REPORT_D 0x2

struct model_thread {
	int32_t tid, pid;
	uint8_t used;
	uint8_t state;
	uint8_t sys_blocked; /* it waited inside its current syscall */
	uint8_t attached; /* alive when mtx attached: began before start_ns */
	char name[16];
	int32_t cpu;
	uint64_t start_ns, since_ns;
	uint64_t state_ns[NR_THREAD_STATES]; /* its closed intervals, added up (mtx ctl SOCK live) */
	int64_t sys_nr; /* -1: not in a syscall */
	uint64_t sys_start_ns;
	uint64_t sys_io_wait_ns; /* blocked on I/O inside the current syscall */
	uint32_t out_stack;      /* the user stack of its last switch-out, 0: none */
	uint32_t sys_io_stack;   /* the one it blocked on I/O with in the current syscall */
	int64_t state_sys_nr;    /* the syscall its current state began in, -1: none */
	uint64_t io_ops, io_bytes; /* read and write family returned (src/io-ops.h) */
	struct mtx_fd_call sys_fd;
};

struct model_process {
	int32_t pid, ppid;
	char exe[16];
	uint64_t start_ns, end_ns;
	int nr_live;
	int64_t exit_status; /* -1 unknown */
	uint8_t ended;
};

struct mtx_model {
	struct mtx_writer *w;
	struct mtx_detail *detail;    /* the rows of the kernel's stream go through it */
	struct model_thread *threads; /* open addressing on tid, power-of-two size */
	size_t cap, count;
	struct model_process *procs;
	size_t nr_procs, cap_procs;
	uint8_t *syscall_class;       /* [syscall_names_count]: enum thread_state */
	uint8_t *syscall_io_op;       /* [syscall_names_count]: one of src/io-ops.h */
	uint64_t nr_syscalls;         /* returned so far */
	uint64_t nr_switches;         /* the traced threads' switches out so far */
	model_thread_fn on_end;       /* model_on_thread_end */
	void *on_end_ctx;
	struct mtx_fd_tracker *fds;   /* fd and fd_kind of syscall rows */
	struct mtx_interrupts *irqs;  /* interrupts rows */
	struct mtx_other_tasks *others; /* other_tasks rows: wakers not traced */
	uint64_t first_ns, last_ns;
	uint64_t nr_threads_seen;
	uint64_t nr_ended, ended_state_ns[NR_THREAD_STATES]; /* the threads gone, added up */
	/* model_keep_cpu_times: each thread's time running on each CPU and
	 * waiting for it, the ended threads' too, by (tid, cpu) */
	bool keep_cpu_times;
	struct model_cpu_time *cpu_times;
	size_t nr_cpu_times, cap_cpu_times;
	struct keyhash cpu_time_keys;
	/* model_keep_io_times: each thread's I/O, by (tid, path or NULL, stack) */
	bool keep_io_times;
	struct model_io_time *io_times;
	size_t nr_io_times, cap_io_times;
	struct keyhash io_time_keys;
	uint64_t nr_clamped, nr_unpaired_exits, nr_foreign_wakeups;
};

static uint8_t classify_syscall(const char *name)
{
	for (int i = 0; sleeping_syscalls[i]; i++)
		if (strcmp(sleeping_syscalls[i], name) == 0)
			return TS_SLEEPING;
	for (int i = 0; io_syscalls[i]; i++)
		if (strcmp(io_syscalls[i], name) == 0)
			return TS_BLOCKED_IO;
	return TS_BLOCKED;
}

struct mtx_model *model_new(struct mtx_writer *w)
{
	struct mtx_model *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->w = w;
	m->cap = 1024;
	m->threads = calloc(m->cap, sizeof(*m->threads));
	m->syscall_class = malloc((size_t)syscall_names_count);
	m->syscall_io_op = calloc((size_t)syscall_names_count, 1);
	m->detail = detail_new(w);
	m->fds = m->detail ? fd_tracker_new(m->detail) : NULL;
	m->irqs = interrupts_new(w);
	m->others = other_tasks_new(w);
	if (!m->threads || !m->syscall_class || !m->syscall_io_op || !m->fds || !m->irqs || !m->others) {
		model_free(m);
		return NULL;
	}
	for (int nr = 0; nr < syscall_names_count; nr++) {
		static const char *const io_ops[] = {
#define X(name) #name,
			IO_OP_SYSCALLS(X)
#undef X
		};
		m->syscall_class[nr] = classify_syscall(syscall_name(nr));
		for (size_t i = 0; i < sizeof(io_ops) / sizeof(io_ops[0]); i++)
			m->syscall_io_op[nr] |= !strcmp(io_ops[i], syscall_name(nr));
	}
	return m;
}

void model_set_fd_resolver(struct mtx_model *m, mtx_fd_resolve_fn fn, void *ctx)
{
	fd_tracker_set_resolver(m->fds, fn, ctx);
}

void model_set_detail(struct mtx_model *m, uint64_t rows)
{
	detail_budget(m->detail, rows);
}

struct mtx_detail *model_detail(struct mtx_model *m)
{
	return m->detail;
}

static size_t slot_of(const struct mtx_model *m, int32_t tid)
{
	return ((uint32_t)tid * 2654435761u) & (m->cap - 1);
}

static struct model_thread *find_thread(struct mtx_model *m, int32_t tid)
{
	for (size_t i = slot_of(m, tid);; i = (i + 1) & (m->cap - 1)) {
		if (!m->threads[i].used)
			return NULL;
		if (m->threads[i].tid == tid)
			return &m->threads[i];
	}
}

bool model_has_thread(struct mtx_model *m, int32_t tid)
{
	return find_thread(m, tid) != NULL;
}

static void grow_threads(struct mtx_model *m);

static struct model_thread *insert_thread(struct mtx_model *m, int32_t tid)
{
	size_t i;
	if ((m->count + 1) * 2 > m->cap)
		grow_threads(m);
	for (i = slot_of(m, tid); m->threads[i].used; i = (i + 1) & (m->cap - 1))
		;
	memset(&m->threads[i], 0, sizeof(m->threads[i]));
	m->threads[i].used = 1;
	m->threads[i].tid = tid;
	m->threads[i].sys_nr = m->threads[i].state_sys_nr = -1;
	m->threads[i].cpu = -1;
	m->count++;
	m->nr_threads_seen++;
	return &m->threads[i];
}

static void grow_threads(struct mtx_model *m)
{
	struct model_thread *old = m->threads;
	size_t old_cap = m->cap;
	struct model_thread *t = calloc(old_cap * 2, sizeof(*t));
	if (!t)
		return; /* keep probing the full-ish table; slower but correct */
	m->threads = t;
	m->cap = old_cap * 2;
	m->count = 0;
	for (size_t i = 0; i < old_cap; i++) {
		if (!old[i].used)
			continue;
		size_t j;
		for (j = slot_of(m, old[i].tid); m->threads[j].used; j = (j + 1) & (m->cap - 1))
			;
		m->threads[j] = old[i];
		m->count++;
	}
	free(old);
}

/* Backward-shift deletion keeps probe chains intact without tombstones. */
static void remove_thread(struct mtx_model *m, struct model_thread *t)
{
	size_t i = (size_t)(t - m->threads);
	size_t j = i;
	m->threads[i].used = 0;
	m->count--;
	for (;;) {
		size_t home;
		j = (j + 1) & (m->cap - 1);
		if (!m->threads[j].used)
			return;
		home = slot_of(m, m->threads[j].tid);
		/* Move j back to i if its home is not in (i, j]. */
		if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
			m->threads[i] = m->threads[j];
			m->threads[j].used = 0;
			i = j;
		}
	}
}

static struct model_process *find_process(struct mtx_model *m, int32_t pid)
{
	/* Few processes per run, and the newest is the likeliest: search back. */
	for (size_t i = m->nr_procs; i > 0; i--)
		if (m->procs[i - 1].pid == pid && !m->procs[i - 1].ended)
			return &m->procs[i - 1];
	return NULL;
}

/* Whether process @pid is or was one of the run's (ended ones included). */
static bool was_traced(const struct mtx_model *m, int32_t pid)
{
	for (size_t i = m->nr_procs; i > 0; i--)
		if (m->procs[i - 1].pid == pid)
			return true;
	return false;
}

static struct model_process *add_process(struct mtx_model *m, int32_t pid, int32_t ppid, uint64_t ts)
{
	struct model_process *p;
	if (m->nr_procs == m->cap_procs) {
		size_t cap = m->cap_procs ? m->cap_procs * 2 : 16;
		p = realloc(m->procs, cap * sizeof(*p));
		if (!p)
			return NULL;
		m->procs = p;
		m->cap_procs = cap;
	}
	p = &m->procs[m->nr_procs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->ppid = ppid;
	p->start_ns = ts;
	p->exit_status = -1;
	return p;
}

/* Add @ns of state @state (running or runnable) of @t on @cpu. */
static void add_cpu_time(struct mtx_model *m, const struct model_thread *t, uint8_t state, int32_t cpu, uint64_t ns)
{
	const struct model_cpu_time init = { .tid = t->tid, .cpu = cpu };
	ptrdiff_t i;
	if (!m->keep_cpu_times || cpu < 0)
		return;
	i = keyhash_row(&m->cpu_time_keys, t->tid, cpu, 0, &m->cpu_times, &m->nr_cpu_times, &m->cap_cpu_times,
			sizeof(*m->cpu_times), &init);
	if (i >= 0)
		(state == TS_RUNNING ? &m->cpu_times[i].running_ns : &m->cpu_times[i].runnable_ns)[0] += ns;
}

/* @ns more of @t's I/O wait inside its current syscall, in the stack it
 * left the CPU with. */
static void sys_io_wait(struct model_thread *t, uint64_t ns)
{
	t->sys_io_wait_ns += ns;
	if (t->out_stack)
		t->sys_io_stack = t->out_stack;
}

/* Add to @tid's I/O on @path (NULL: any) in @stack: @wait_ns blocked on
 * it, and an op of @bytes when @bytes >= 0. */
static void add_io_time(struct mtx_model *m, int32_t tid, const char *path, uint32_t stack, uint64_t wait_ns,
			int64_t bytes)
{
	const struct model_io_time init = { .tid = tid, .stack = stack, .path = path };
	ptrdiff_t i;
	if (!m->keep_io_times)
		return;
	i = keyhash_row(&m->io_time_keys, tid, (int64_t)(uintptr_t)path, stack, &m->io_times, &m->nr_io_times,
			&m->cap_io_times, sizeof(*m->io_times), &init);
	if (i < 0)
		return;
	m->io_times[i].io_wait_ns += wait_ns;
	if (bytes >= 0) {
		m->io_times[i].io_ops++;
		m->io_times[i].io_bytes += (uint64_t)bytes;
	}
}

/* Close the thread's current interval at @ts and enter @state. */
static void set_state(struct mtx_model *m, struct model_thread *t, uint64_t ts, uint8_t state, int32_t cpu)
{
	if (ts < t->since_ns) {
		m->nr_clamped++;
		ts = t->since_ns;
	}
	if (ts > t->since_ns) {
		const char *sys = NULL;
		if (t->state != TS_RUNNING && t->state != TS_RUNNABLE && t->state_sys_nr >= 0)
			sys = syscall_name(t->state_sys_nr);
		/* a wait for a CPU is put on the CPU that then ran it */
		const int32_t on = t->state == TS_RUNNING			       ? t->cpu
				   : t->state == TS_RUNNABLE && state == TS_RUNNING ? cpu
										    : -1;
		detail_state(m->detail, t->start_ns, t->tid, t->since_ns, ts, thread_state_name(t->state), on, sys,
			     t->state == TS_RUNNING || t->state == TS_RUNNABLE);
		add_cpu_time(m, t, t->state, on, ts - t->since_ns);
		if (t->state == TS_BLOCKED_IO && t->sys_nr >= 0)
			sys_io_wait(t, ts - t->since_ns);
		if (t->state == TS_BLOCKED_IO && t->out_stack)
			add_io_time(m, t->tid, NULL, t->out_stack, ts - t->since_ns, -1);
		t->state_ns[t->state] += ts - t->since_ns;
		t->since_ns = ts;
	}
	t->state = state;
	t->state_sys_nr = t->sys_nr;
	if (state != TS_RUNNING && state != TS_RUNNABLE)
		t->sys_blocked = 1;
	if (cpu >= 0 || state != TS_RUNNING)
		t->cpu = cpu;
}

static struct model_thread *new_thread(struct mtx_model *m, int32_t tid, int32_t pid, uint64_t ts, uint8_t state)
{
	struct model_thread *t = insert_thread(m, tid);
	struct model_process *p;
	t->pid = pid;
	t->start_ns = t->since_ns = ts;
	t->state = state;
	p = find_process(m, pid);
	if (!p)
		p = add_process(m, pid, -1, ts);
	if (p) {
		p->nr_live++;
		if (!t->name[0])
			memcpy(t->name, p->exe, sizeof(t->name));
	}
	return t;
}

/* A thread's first event may not be its FORK (the first thread of the run
 * starts at exec); create it running, where the event shows it. */
static struct model_thread *thread_of(struct mtx_model *m, const struct mtx_event *ev)
{
	struct model_thread *t = find_thread(m, ev->tid);
	if (!t)
		t = new_thread(m, ev->tid, ev->pid, ev->ts_ns, TS_RUNNING);
	return t;
}

/* Write @t's current syscall, which returned @ret at @end_ns, or (@end_ns
 * -1) is seen at @ts never to return; the thread is then out of it. */
static void end_syscall(struct mtx_model *m, struct model_thread *t, int64_t end_ns, int64_t ret, uint64_t ts)
{
	struct mtx_syscall_row row = {
		.start_ns = t->sys_start_ns, .end_ns = end_ns, .nr = t->sys_nr, .name = syscall_name(t->sys_nr),
		.ret = ret, .tid = t->tid, .has_ret = end_ns >= 0, .blocked = t->sys_blocked, .life_ns = t->start_ns,
		.io_wait_ns = t->sys_io_wait_ns, .io_stack = t->sys_io_stack,
		.io_op = end_ns >= 0 && ret >= 0 && t->sys_nr < syscall_names_count && m->syscall_io_op[t->sys_nr],
	};
	fd_tracker_exit(m->fds, t->pid, &t->sys_fd, &row, ts);
	if (end_ns >= 0) {
		m->nr_syscalls++;
		if (ret >= 0 && t->sys_nr < syscall_names_count && m->syscall_io_op[t->sys_nr]) {
			t->io_ops++;
			t->io_bytes += (uint64_t)ret;
		}
	}
	t->sys_nr = -1;
}

/* @t as model_each_thread shows it, its current state counted to @now_ns. */
static struct model_thread_view view_of(const struct model_thread *t, uint64_t now_ns)
{
	struct model_thread_view v = { .tid = t->tid, .pid = t->pid, .name = t->name, .start_ns = t->start_ns,
				       .state = (enum thread_state)t->state, .since_ns = t->since_ns,
				       .io_ops = t->io_ops, .io_bytes = t->io_bytes };
	memcpy(v.state_ns, t->state_ns, sizeof(v.state_ns));
	if (now_ns > t->since_ns)
		v.state_ns[t->state] += now_ns - t->since_ns;
	return v;
}

static void end_thread(struct mtx_model *m, struct model_thread *t, uint64_t ts)
{
	struct model_process *p = find_process(m, t->pid);
	set_state(m, t, ts, t->state, -1);
	if (t->sys_nr >= 0)
		end_syscall(m, t, -1, 0, ts);
	writer_thread(m->w, t->tid, t->pid, t->name, t->start_ns, t->since_ns, t->attached);
	if (p && --p->nr_live <= 0) {
		p->end_ns = t->since_ns;
		p->ended = 1;
		fd_tracker_gone(m->fds, p->pid);
	}
	m->nr_ended++;
	for (int i = 0; i < NR_THREAD_STATES; i++)
		m->ended_state_ns[i] += t->state_ns[i];
	if (m->on_end) {
		struct model_thread_view v = view_of(t, t->since_ns);
		m->on_end(m->on_end_ctx, &v);
	}
	remove_thread(m, t);
}

static const char *state_letter(int64_t prev_state, int preempt)
{
	static const char *const letters[] = { "S", "D", "T", "t", "X", "Z", "P", "I" };
	if (preempt)
		return "R+";
	for (int bit = 0; bit < 8; bit++)
		if (prev_state & (1 << bit))
			return letters[bit];
	return "R";
}

static uint8_t waiting_state(const struct mtx_model *m, const struct model_thread *t, int64_t prev_state)
{
	if (prev_state & TASK_REPORT_D)
		return TS_BLOCKED_IO;
	if (t->sys_nr >= 0 && t->sys_nr < syscall_names_count)
		return m->syscall_class[t->sys_nr];
	return TS_BLOCKED;
}

/* The syscalls source went off at @ts: each thread's syscall under way
 * ends there unseen (a row that never returned, as when its exit is
 * missed), so that its I/O wait stops at the last it is known of. */
static void syscalls_off(struct mtx_model *m, uint64_t ts)
{
	for (size_t i = 0; i < m->cap; i++) {
		struct model_thread *t = &m->threads[i];
		if (!t->used || t->sys_nr < 0)
			continue;
		if (t->state == TS_BLOCKED_IO && ts > t->since_ns) /* the wait under way, so far */
			sys_io_wait(t, ts - t->since_ns);
		end_syscall(m, t, -1, 0, ts);
	}
}

void model_event(struct mtx_model *m, const struct mtx_event *ev)
{
	struct model_thread *t;
	struct model_process *p;

	if (ev->type == MTX_EV_SOURCE_OFF) {
		if (ev->u.source_off.source == MTX_SRC_SYSCALLS)
			syscalls_off(m, ev->ts_ns);
		return;
	}

	/* The run's span is that of its own threads' events: system-wide
	 * wakeups of other tasks and interrupts do not count. */
	if (ev->type == MTX_EV_INTERRUPT) {
		interrupts_event(m->irqs, ev);
		return;
	}
	if (ev->type != MTX_EV_WAKEUP || find_thread(m, ev->u.wakeup.wakee_tid)) {
		if (!m->first_ns)
			m->first_ns = ev->ts_ns;
		if (ev->ts_ns > m->last_ns)
			m->last_ns = ev->ts_ns;
	}

	fd_tracker_advance(m->fds, ev->ts_ns);
	detail_now(m->detail, ev->ts_ns);
	switch (ev->type) {
	case MTX_EV_FORK:
		t = find_thread(m, ev->tid);
		if (t) /* tid reused without a seen exit */
			end_thread(m, t, ev->ts_ns);
		if (ev->pid == ev->tid) { /* a new process */
			fd_tracker_gone(m->fds, ev->pid); /* a reused pid whose end was missed */
			p = add_process(m, ev->pid, ev->u.fork.ppid, ev->ts_ns);
			struct model_process *parent = find_process(m, ev->u.fork.ppid);
			if (p && parent)
				memcpy(p->exe, parent->exe, sizeof(p->exe));
		}
		t = new_thread(m, ev->tid, ev->pid, ev->ts_ns, TS_RUNNABLE);
		{
			struct model_thread *parent = find_thread(m, ev->u.fork.ptid);
			if (parent)
				memcpy(t->name, parent->name, sizeof(t->name));
		}
		return;
	case MTX_EV_COMM:
		t = find_thread(m, ev->tid);
		if (!t)
			t = new_thread(m, ev->tid, ev->pid, ev->ts_ns, TS_RUNNING);
		memcpy(t->name, ev->u.comm.comm, sizeof(t->name));
		t->name[sizeof(t->name) - 1] = 0;
		if (ev->u.comm.exec) {
			if ((p = find_process(m, ev->pid)) != NULL)
				memcpy(p->exe, t->name, sizeof(p->exe));
			fd_tracker_exec(m->fds, ev->pid, ev->ts_ns);
		}
		return;
	case MTX_EV_EXIT:
		t = find_thread(m, ev->tid);
		if (t)
			end_thread(m, t, ev->ts_ns);
		return;
	case MTX_EV_SWITCH_OUT: {
		/* preempt: left the CPU still runnable (involuntary, as the
		 * kernel counts nivcsw), whether flagged R+ or plain R. */
		bool runnable = ev->u.sw.preempt || (ev->u.sw.prev_state & 0xff) == 0;
		detail_switch(m->detail, ev->ts_ns, ev->cpu, ev->tid, state_letter(ev->u.sw.prev_state, ev->u.sw.preempt),
			      runnable, ev->u.sw.next_tid, ev->u.sw.stack_id);
		m->nr_switches++;
		t = find_thread(m, ev->tid);
		if (!t)
			return; /* its final switch after EXIT */
		if (t->state == TS_RUNNING) /* where it ran, also when its switch-in came before the recording */
			t->cpu = ev->cpu;
		t->out_stack = ev->u.sw.stack_id;
		set_state(m, t, ev->ts_ns, runnable ? TS_RUNNABLE : waiting_state(m, t, ev->u.sw.prev_state), -1);
		return;
	}
	case MTX_EV_SWITCH_IN:
		t = thread_of(m, ev);
		set_state(m, t, ev->ts_ns, TS_RUNNING, ev->cpu);
		return;
	case MTX_EV_WAKEUP:
		t = find_thread(m, ev->u.wakeup.wakee_tid);
		if (!t) {
			m->nr_foreign_wakeups++;
			return;
		}
		writer_wakeup(m->w, ev->ts_ns, ev->cpu, ev->tid, t->tid, ev->u.wakeup.target_cpu);
		/* not traced: an exiting child of the program wakes its
		 * parent after its own exit went by */
		if (ev->tid > 0 && !find_thread(m, ev->tid) && !was_traced(m, ev->pid))
			other_tasks_note(m->others, ev->tid, ev->pid);
		if (t->state != TS_RUNNING && t->state != TS_RUNNABLE)
			set_state(m, t, ev->ts_ns, TS_RUNNABLE, -1);
		return;
	case MTX_EV_SYS_ENTER:
		t = thread_of(m, ev);
		if (t->sys_nr >= 0) /* enter without exit: the previous never returned */
			end_syscall(m, t, -1, 0, ev->ts_ns);
		t->sys_nr = ev->u.sys_enter.nr;
		t->sys_io_wait_ns = 0;
		t->sys_io_stack = 0;
		t->sys_start_ns = ev->ts_ns;
		t->sys_blocked = 0;
		fd_tracker_enter(m->fds, t->pid, t->sys_nr, ev->u.sys_enter.arg0, ev->u.sys_enter.arg1, ev->ts_ns,
				 &t->sys_fd);
		p = find_process(m, t->pid);
		if (p && (t->sys_nr == NR_EXIT_GROUP || (t->sys_nr == NR_EXIT && p->nr_live == 1)))
			p->exit_status = (int64_t)(ev->u.sys_enter.arg0 & 0xff);
		return;
	case MTX_EV_SYS_EXIT:
		t = thread_of(m, ev);
		if (t->sys_nr < 0) {
			m->nr_unpaired_exits++;
			return;
		}
		end_syscall(m, t, (int64_t)ev->ts_ns, ev->u.sys_exit.ret, ev->ts_ns);
		return;
	default:
		return;
	}
}

void model_emit(void *ctx, const struct mtx_event *ev)
{
	model_event(ctx, ev);
}

int model_finish(struct mtx_model *m, uint64_t end_ns, pid_t root_pid, int root_status)
{
	if (end_ns < m->last_ns)
		end_ns = m->last_ns;
	for (size_t i = 0; i < m->cap; i++) {
		/* end_thread shifts entries back into slot i: revisit it. */
		while (m->threads[i].used)
			end_thread(m, &m->threads[i], end_ns);
	}
	fd_tracker_finish(m->fds);
	for (size_t i = 0; i < m->nr_procs; i++) {
		struct model_process *p = &m->procs[i];
		if (p->pid == root_pid && root_status >= 0)
			p->exit_status = root_status;
		writer_process(m->w, p->pid, p->ppid, p->exe[0] ? p->exe : NULL, p->start_ns,
			       p->ended ? (int64_t)p->end_ns : -1, p->exit_status);
	}
	interrupts_finish(m->irqs);
	detail_finish(m->detail);
	writer_meta_int(m->w, "model_clamped_events", (int64_t)m->nr_clamped);
	writer_meta_int(m->w, "model_unpaired_syscall_exits", (int64_t)m->nr_unpaired_exits);
	writer_meta_int(m->w, "syscall_paths", (int64_t)fd_tracker_nr_paths(m->fds));
	return writer_commit(m->w);
}

void model_attached_thread(struct mtx_model *m, int32_t tid, int32_t pid, const char *name, char proc_state,
			   int syscall_nr, uint64_t ns)
{
	/* 'R' is running or runnable: its first switch tells which. Asleep,
	 * the syscall says on what, as at a switch (its row would begin at
	 * the attach, an invented start: none is written). */
	uint8_t state = proc_state == 'R'  ? TS_RUNNABLE :
			proc_state == 'D'  ? TS_BLOCKED_IO :
			syscall_nr >= 0 && syscall_nr < (int)syscall_names_count ? m->syscall_class[syscall_nr] :
										      TS_BLOCKED;
	struct model_thread *t = find_thread(m, tid);
	struct model_process *p;
	if (t)
		return;
	t = new_thread(m, tid, pid, ns, state);
	t->attached = 1;
	if (!m->first_ns) /* the run spans the attach to the detach */
		m->first_ns = ns;
	snprintf(t->name, sizeof(t->name), "%s", name);
	p = find_process(m, pid);
	if (p && tid == pid)
		snprintf(p->exe, sizeof(p->exe), "%s", name);
}

void model_detached(struct mtx_model *m, uint64_t ns)
{
	if (ns > m->last_ns)
		m->last_ns = ns;
}

void model_program_released(struct mtx_model *m, uint64_t ns)
{
	interrupts_start(m->irqs, ns);
}

uint64_t model_first_ns(const struct mtx_model *m)
{
	return m->first_ns;
}

uint64_t model_last_ns(const struct mtx_model *m)
{
	return m->last_ns;
}

uint64_t model_nr_threads(const struct mtx_model *m)
{
	return m->nr_threads_seen;
}

void model_each_thread(const struct mtx_model *m, uint64_t now_ns, model_thread_fn fn, void *ctx)
{
	for (size_t i = 0; i < m->cap; i++) {
		if (m->threads[i].used) {
			struct model_thread_view v = view_of(&m->threads[i], now_ns);
			fn(ctx, &v);
		}
	}
}

void model_keep_cpu_times(struct mtx_model *m)
{
	m->keep_cpu_times = true;
}

void model_each_cpu_time(const struct mtx_model *m, uint64_t now_ns, model_cpu_time_fn fn, void *ctx)
{
	for (size_t i = 0; i < m->nr_cpu_times; i++) {
		struct model_cpu_time c = m->cpu_times[i];
		const struct model_thread *t = find_thread((struct mtx_model *)m, c.tid);
		/* its interval on a CPU under way, to @now_ns */
		if (t && t->state == TS_RUNNING && t->cpu == c.cpu && now_ns > t->since_ns)
			c.running_ns += now_ns - t->since_ns;
		fn(ctx, &c);
	}
}

/* A syscall row of a file (@path, the fd tracker's, kept while the model
 * is) to its thread's totals on that file. */
static void add_file_time(void *ctx, const struct mtx_syscall_row *row, const char *path)
{
	if (row->io_op || row->io_wait_ns)
		add_io_time(ctx, row->tid, path, row->io_stack, row->io_wait_ns, row->io_op ? row->ret : -1);
}

void model_keep_io_times(struct mtx_model *m)
{
	m->keep_io_times = true;
	fd_tracker_on_file_row(m->fds, add_file_time, m);
}

void model_each_io_time(const struct mtx_model *m, uint64_t now_ns, model_io_time_fn fn, void *ctx)
{
	for (size_t i = 0; i < m->nr_io_times; i++) {
		struct model_io_time f = m->io_times[i];
		const struct model_thread *t = f.path ? NULL : find_thread((struct mtx_model *)m, f.tid);
		/* its wait under way in that stack, to @now_ns */
		if (t && t->state == TS_BLOCKED_IO && t->out_stack == f.stack && now_ns > t->since_ns)
			f.io_wait_ns += now_ns - t->since_ns;
		fn(ctx, &f);
	}
}

void model_on_thread_end(struct mtx_model *m, model_thread_fn fn, void *ctx)
{
	m->on_end = fn;
	m->on_end_ctx = ctx;
}

uint64_t model_syscalls(const struct mtx_model *m)
{
	return m->nr_syscalls;
}

uint64_t model_switches(const struct mtx_model *m)
{
	return m->nr_switches;
}

uint64_t model_ended(const struct mtx_model *m, uint64_t state_ns[NR_THREAD_STATES])
{
	memcpy(state_ns, m->ended_state_ns, sizeof(m->ended_state_ns));
	return m->nr_ended;
}

void model_free(struct mtx_model *m)
{
	if (!m)
		return;
	free(m->threads);
	free(m->procs);
	free(m->syscall_class);
	free(m->syscall_io_op);
	fd_tracker_free(m->fds);
	free(m->cpu_times);
	keyhash_free(&m->cpu_time_keys);
	free(m->io_times);
	keyhash_free(&m->io_time_keys);
	detail_free(m->detail);
	interrupts_free(m->irqs);
	other_tasks_free(m->others);
	free(m);
}
