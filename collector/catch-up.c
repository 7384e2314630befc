/* collector/catch-up.c - see catch-up.h. */
#include "config.h"
#include "collector/catch-up.h"
#include "collector/target.h"
#include "collector/unwind.h"
#include "src/clock.h"
#include "src/grow.h"
#include "src/log.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* How much of a thread's stack is copied: deep enough for any call chain
 * but a runaway recursion's, in pages (process_vm_readv stops at the
 * first page that is not mapped, which is where a stack ends). */
#define STACK_PAGES 256
#define PAGE 4096u

/* How long a thread may take to stop (one in uninterruptible sleep does
 * not until it wakes). */
#define STOP_WAIT_NS 1000000000ull

struct stopped {
	pid_t tid;
	int stopped;  /* in a ptrace stop: its registers can be read */
	int signal;   /* a signal its stop held back, delivered at the detach */
	int nr;
	uint64_t pcs[UNWIND_MAX_FRAMES], sps[UNWIND_MAX_FRAMES];
};

struct catch_up {
	pid_t pid;
	uint64_t stopped_ns;
	struct stopped *threads;
	size_t nr, cap;
	struct catch_up_map *maps;
	size_t nr_maps, cap_maps;
};

pid_t catch_up_pid(const struct catch_up *cu)
{
	return cu->pid;
}

size_t catch_up_nr_stacks(const struct catch_up *cu)
{
	return cu->nr;
}

struct catch_up_stack catch_up_stack(const struct catch_up *cu, size_t i)
{
	const struct stopped *t = &cu->threads[i];
	return (struct catch_up_stack){ .tid = t->tid, .nr = t->nr, .pcs = t->pcs, .sps = t->sps };
}

const struct catch_up_map *catch_up_map_of(const struct catch_up *cu, uint64_t addr)
{
	for (size_t i = 0; i < cu->nr_maps; i++)
		if (addr >= cu->maps[i].start && addr < cu->maps[i].end)
			return &cu->maps[i];
	return NULL;
}

static int known(const struct catch_up *cu, pid_t tid)
{
	for (size_t i = 0; i < cu->nr; i++)
		if (cu->threads[i].tid == tid)
			return 1;
	return 0;
}

/* Seize and interrupt thread @tid unless it is known: 1 when it is. */
static int seize(void *ctx, pid_t tid)
{
	struct catch_up *cu = ctx;
	struct stopped *t;
	if (known(cu, tid))
		return 0;
	if (ptrace(PTRACE_SEIZE, tid, 0, 0) < 0)
		return errno == ESRCH ? 0 : -errno; /* ESRCH: it exited */
	t = grow_array(cu->threads, &cu->cap, cu->nr, sizeof(*t), 16);
	if (!t) {
		ptrace(PTRACE_DETACH, tid, 0, 0);
		return -ENOMEM;
	}
	cu->threads = t;
	t = &cu->threads[cu->nr++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	ptrace(PTRACE_INTERRUPT, tid, 0, 0);
	return 1;
}

/* Wait until @t is in a ptrace stop, at most until @deadline_ns. A stop
 * for a signal keeps it, to deliver at the detach. */
static void wait_stopped(struct stopped *t, uint64_t deadline_ns)
{
	while (!t->stopped) {
		int status;
		pid_t got = waitpid(t->tid, &status, __WALL | WNOHANG);
		if (got < 0) {
			t->tid = -1; /* gone */
			return;
		}
		if (got == 0) {
			if (deadline_ns && clock_now_ns() > deadline_ns)
				return;
			nanosleep(&(struct timespec){ 0, 200000 }, NULL);
			continue;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			t->tid = -1;
			return;
		}
		if (WIFSTOPPED(status)) {
			t->stopped = 1;
			if (status >> 16 != PTRACE_EVENT_STOP)
				t->signal = WSTOPSIG(status);
		}
	}
}

static int add_map(void *ctx, uint64_t start, uint64_t end, uint64_t pgoff, const char *path)
{
	struct catch_up *cu = ctx;
	struct catch_up_map *m = grow_array(cu->maps, &cu->cap_maps, cu->nr_maps, sizeof(*m), 32);
	char *copy = strdup(path);
	if (!m || !copy) {
		free(copy);
		return -ENOMEM;
	}
	cu->maps = m;
	cu->maps[cu->nr_maps++] = (struct catch_up_map){ start, end, pgoff, copy };
	return 0;
}

/* How often a thread whose stack cannot be unwound whole is stopped again. */
#define SETTLE_TRIES 20

/* Let stopped thread @t go for an instant and stop it again. */
static void restop(struct stopped *t, uint64_t deadline_ns)
{
	if (ptrace(PTRACE_CONT, t->tid, 0, (void *)(uintptr_t)t->signal) < 0)
		return;
	t->signal = 0;
	t->stopped = 0;
	ptrace(PTRACE_INTERRUPT, t->tid, 0, 0);
	wait_stopped(t, deadline_ns);
}

/* Copy @t's registers and stack into a sample-like block (unwind.h). */
static struct mtx_user_stack *copy_stack(const struct stopped *t)
{
	struct user_regs_struct r;
	struct iovec local, remote[STACK_PAGES];
	struct mtx_user_stack *st;
	ssize_t got;
	uint64_t at;
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &r) < 0)
		return NULL;
	st = malloc(sizeof(*st) + STACK_PAGES * (size_t)PAGE);
	if (!st)
		return NULL;
	/* DWARF numbering: rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip */
	const uint64_t regs[MTX_NR_DWARF_REGS] = { r.rax, r.rdx, r.rcx, r.rbx, r.rsi, r.rdi, r.rbp, r.rsp, r.r8,
						   r.r9,  r.r10, r.r11, r.r12, r.r13, r.r14, r.r15, r.rip };
	memcpy(st->regs, regs, sizeof(regs));
	/* page by page, so that the read stops where the stack's mapping ends */
	at = r.rsp;
	for (int i = 0; i < STACK_PAGES; i++) {
		uint64_t next = (at | (PAGE - 1)) + 1;
		remote[i] = (struct iovec){ (void *)(uintptr_t)at, (size_t)(next - at) };
		at = next;
	}
	local = (struct iovec){ st->data, (size_t)(at - r.rsp) };
	got = process_vm_readv(t->tid, &local, 1, remote, STACK_PAGES, 0);
	st->size = got > 0 ? (uint64_t)got : 0;
	return st;
}

/* Unwind stopped thread @t with @u into t->pcs and t->sps. One stopped
 * where its stack cannot be unwound whole is let go for an instant and
 * stopped again, until it can (at most SETTLE_TRIES times):
 *  - in code no file maps: a uprobe's out-of-line single-step slot (it
 *    holds one instruction, copied from the probed function's entry), the
 *    vDSO;
 *  - in a call whose return address is in code no file maps: a call begun
 *    under a return probe already on has the kernel's trampoline for it
 *    (the real one is kept in the kernel). */
static void unwind_thread(struct catch_up *cu, struct mtx_unwinder *u, struct stopped *t)
{
	const uint64_t deadline = clock_now_ns() + STOP_WAIT_NS;
	for (int try = 0; t->tid > 0 && t->stopped; try++) {
		struct mtx_user_stack *st = copy_stack(t);
		enum unwind_fail why;
		int truncated, whole;
		if (!st)
			return;
		t->nr = unwinder_walk(u, t->tid, st, t->pcs, t->sps, &why, &truncated);
		whole = t->nr > 0 && catch_up_map_of(cu, t->pcs[t->nr - 1]);
		log_debug("catch-up: thread %d stopped at %#llx: %d frames%s%s%s", (int)t->tid,
			  (unsigned long long)st->regs[16], t->nr, t->nr <= 1 ? ", " : "",
			  t->nr <= 1 ? unwind_fail_name(why) : "", whole ? "" : ", not whole");
		if (truncated)
			log_debug("catch-up: thread %d's stack is deeper than %u pages: its outer calls are missed",
				  (int)t->tid, STACK_PAGES);
		free(st);
		if (whole || try == SETTLE_TRIES)
			return;
		restop(t, deadline);
	}
}

static void unwind_all(struct catch_up *cu)
{
	struct mtx_unwinder *u = unwinder_new();
	if (!u)
		return;
	for (size_t i = 0; i < cu->nr_maps; i++)
		unwinder_add_file(u, cu->maps[i].path, cu->maps[i].start, cu->maps[i].pgoff, NULL, 0);
	for (size_t i = 0; i < cu->nr; i++)
		unwind_thread(cu, u, &cu->threads[i]);
	unwinder_free(u);
}

struct catch_up *catch_up_stop(pid_t pid)
{
	struct catch_up *cu = calloc(1, sizeof(*cu));
	uint64_t deadline;
	int added;
	if (!cu) {
		log_warn("out of memory: the calls already running are not recorded");
		return NULL;
	}
	cu->pid = pid;
	cu->stopped_ns = clock_now_ns();
	deadline = cu->stopped_ns + STOP_WAIT_NS;
	/* A stopped thread starts none: seize until a reading finds no new one. */
	do {
		size_t first = cu->nr;
		added = target_tasks_each(cu->pid, seize, cu);
		for (size_t i = first; added > 0 && i < cu->nr; i++)
			wait_stopped(&cu->threads[i], deadline);
	} while (added > 0);
	if (added < 0) {
		log_warn("cannot stop process %d to find the calls it is in (ptrace: %s): the calls already "
			 "running are not recorded", (int)pid, strerror(-added));
		catch_up_resume(cu);
		return NULL;
	}
	for (size_t i = 0; i < cu->nr; i++)
		if (cu->threads[i].tid > 0 && !cu->threads[i].stopped)
			log_warn("catch-up: thread %d did not stop within a second: the calls it is in are missed",
				 (int)cu->threads[i].tid);
	if (target_maps_each(pid, add_map, cu) < 0)
		log_warn("catch-up: the code process %d maps could not be read: no call is caught up", (int)pid);
	unwind_all(cu);
	return cu;
}

uint64_t catch_up_resume(struct catch_up *cu)
{
	uint64_t ns;
	if (!cu)
		return 0;
	for (size_t i = 0; i < cu->nr; i++) {
		struct stopped *t = &cu->threads[i];
		if (t->tid < 0)
			continue;
		/* a thread still on its way to the stop must reach it first */
		wait_stopped(t, 0);
		if (t->tid > 0)
			ptrace(PTRACE_DETACH, t->tid, 0, (void *)(uintptr_t)t->signal);
	}
	ns = clock_now_ns() - cu->stopped_ns;
	for (size_t i = 0; i < cu->nr_maps; i++)
		free((char *)cu->maps[i].path);
	free(cu->maps);
	free(cu->threads);
	free(cu);
	return ns;
}
