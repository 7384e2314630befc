/*
 * samples/hooktree.c - a call-heavy program with known nesting, for exact
 * function calls (mtx's -pg / -finstrument-functions hooks, uprobes on
 * --functions) and their cost (bench/function-hook-cost.sh).
 *
 * Usage: hooktree [threads=3] [rounds=200] [depth=6] [jump=0]
 *
 * main starts `threads` workers (pthread) and calls ct_leaf once itself.
 * Worker i runs rounds + i rounds of ct_walk(depth): ct_walk(d) calls
 * ct_leaf, then, for d > 0, ct_walk(d - 1) twice, and ct_spin every eighth
 * leaf, so a round is 2^(depth+1) - 1 ct_walk calls, as many ct_leaf calls
 * and calls of ct_spin in between. Every counted function is noinline; the
 * program's other code is no_instrument_function, so the counted functions
 * (main, ct_worker, ct_walk, ct_leaf, ct_spin) are exactly the instrumented
 * ones.
 *
 * stdout: one line per worker with its counts, then the total (the same for
 * the same arguments). Exit 0; 2 with one line on stderr for bad arguments.
 *
 * Ground truth: with MTX_SELFCHECK=<file> every thread appends, as it ends,
 *   call pid=<pid> tid=<tid> fn=<name> parent=<name or -> count=<n>
 * one line per (function, calling function) it ran, counted by the functions
 * themselves (a per-thread "current function" kept by the same code).
 *
 * jump=1: every 16th round (the first included) a worker also calls
 * ct_jump, which setjmps and calls ct_dive(3); ct_dive recurses to depth 0
 * and longjmps back, so the four ct_dive calls never return. jump=2: ct_jump
 * then calls ct_leaf after landing. Under -pg the hooks close abandoned
 * frames when the next instrumented function is entered or returns, so
 * nesting stays exact with jump=2; -finstrument-functions gets no exit for
 * them (they are closed, marked unfinished, when ct_jump returns), so only
 * jump=1 keeps its nesting exact. A run
 * under mtx must show in its calls table exactly these counts per thread,
 * function and parent function. With HOOKTREE_NS=1 the program also writes
 * "hooktree: calls=<n> ns=<t> cpu_ns=<c>" to stderr: the calls made, the
 * time they took and the CPU time the process used meanwhile (for
 * benchmarks; not compared by tests).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "samples/args.h"

#define NOTRACE __attribute__((no_instrument_function))
#define COUNTED __attribute__((noinline))

enum ct_fn { CT_NONE, CT_MAIN, CT_WORKER, CT_WALK, CT_LEAF, CT_SPIN, CT_JUMP, CT_DIVE, CT__COUNT };
static const char *const ct_names[CT__COUNT] = { "-", "main", "ct_worker", "ct_walk", "ct_leaf",
						 "ct_spin", "ct_jump", "ct_dive" };

static __thread unsigned long ct_counts[CT__COUNT][CT__COUNT]; /* [fn][parent] */
static __thread enum ct_fn ct_current;
static __thread unsigned long ct_leaves;
static volatile unsigned long ct_sink;

/* ENTER/LEAVE: count this call under its caller; the caller is current again on return. */
#define ENTER(fn)                                   \
	enum ct_fn ct_parent_ = ct_current;         \
	ct_counts[fn][ct_parent_]++;                \
	ct_current = fn
#define LEAVE() (ct_current = ct_parent_)

/* @clock in ns: CLOCK_MONOTONIC, or CLOCK_PROCESS_CPUTIME_ID for the CPU
 * time of the whole process (the workers', as main waits). */
static NOTRACE unsigned long long clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static NOTRACE unsigned long thread_calls(void)
{
	unsigned long n = 0;

	for (int f = 0; f < CT__COUNT; f++)
		for (int p = 0; p < CT__COUNT; p++)
			n += ct_counts[f][p];
	return n;
}

/* Append this thread's ground truth to $MTX_SELFCHECK (one write a line). */
static NOTRACE void report_thread(void)
{
	const char *path = getenv("MTX_SELFCHECK");
	char line[200];
	int fd;

	if (!path || !*path)
		return;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	for (int f = 1; f < CT__COUNT; f++) {
		for (int p = 0; p < CT__COUNT; p++) {
			int n;

			if (!ct_counts[f][p])
				continue;
			n = snprintf(line, sizeof(line), "call pid=%d tid=%d fn=%s parent=%s count=%lu\n",
				     (int)getpid(), (int)syscall(SYS_gettid), ct_names[f], ct_names[p],
				     ct_counts[f][p]);
			if (write(fd, line, (size_t)n) < 0)
				break;
		}
	}
	close(fd);
}

static COUNTED void ct_spin(void)
{
	ENTER(CT_SPIN);
	ct_sink++;
	LEAVE();
}

static COUNTED void ct_leaf(void)
{
	ENTER(CT_LEAF);
	if ((++ct_leaves & 7) == 0)
		ct_spin();
	ct_sink++;
	LEAVE();
}

static COUNTED void ct_walk(int depth)
{
	ENTER(CT_WALK);
	ct_leaf();
	if (depth > 0) {
		ct_walk(depth - 1);
		ct_walk(depth - 1);
	}
	LEAVE();
}

static __thread jmp_buf ct_landing;

/* gcc 12 takes the longjmp-only base case for no base case at all. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winfinite-recursion"
static COUNTED void ct_dive(int depth)
{
	ENTER(CT_DIVE);
	if (depth > 0)
		ct_dive(depth - 1);
	else
		longjmp(ct_landing, 1); /* never LEAVEs: ct_jump restores its caller */
	LEAVE(); /* not reached */
}
#pragma GCC diagnostic pop

static COUNTED void ct_jump(int call_after)
{
	ENTER(CT_JUMP);
	if (setjmp(ct_landing) == 0)
		ct_dive(3);
	ct_current = CT_JUMP;
	if (call_after)
		ct_leaf();
	LEAVE();
}

struct worker_arg {
	int rounds, depth, jump;
	unsigned long walks, leaves, spins, calls;
};

static COUNTED void *ct_worker(void *p)
{
	struct worker_arg *a = p;

	ENTER(CT_WORKER);
	for (int r = 0; r < a->rounds; r++) {
		ct_walk(a->depth);
		if (a->jump && r % 16 == 0)
			ct_jump(a->jump == 2);
	}
	LEAVE();
	a->walks = ct_counts[CT_WALK][CT_WORKER] + ct_counts[CT_WALK][CT_WALK];
	a->leaves = ct_counts[CT_LEAF][CT_WALK] + ct_counts[CT_LEAF][CT_JUMP];
	a->spins = ct_counts[CT_SPIN][CT_LEAF];
	a->calls = thread_calls();
	report_thread();
	return NULL;
}

static NOTRACE int parse_args(int argc, char **argv, unsigned long *threads,
			       unsigned long *rounds, unsigned long *depth, unsigned long *jump)
{
	*threads = 3;
	*rounds = 200;
	*depth = 6;
	*jump = 0;
	if (argc > 5 || (argc > 1 && parse_arg(argv[1], 1, 64, threads)) ||
	    (argc > 2 && parse_arg(argv[2], 1, 10000000, rounds)) ||
	    (argc > 3 && parse_arg(argv[3], 0, 20, depth)) ||
	    (argc > 4 && parse_arg(argv[4], 0, 2, jump))) {
		fprintf(stderr, "usage: %s [threads 1-64] [rounds] [depth 0-20] [jump 0-2]\n", argv[0]);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct worker_arg args[64];
	pthread_t tids[64];
	unsigned long total = 0, threads, rounds, depth, jump;
	unsigned long long t0, cpu0;
	int rc;

	ENTER(CT_MAIN);
	if (parse_args(argc, argv, &threads, &rounds, &depth, &jump)) {
		LEAVE();
		return 2;
	}
	t0 = clock_ns(CLOCK_MONOTONIC);
	cpu0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	for (unsigned long i = 0; i < threads; i++) {
		args[i] = (struct worker_arg){ .rounds = (int)(rounds + i), .depth = (int)depth,
					       .jump = (int)jump };
		rc = pthread_create(&tids[i], NULL, ct_worker, &args[i]);
		if (rc) {
			fprintf(stderr, "hooktree: pthread_create: %s\n", strerror(rc));
			exit(1);
		}
	}
	ct_leaf();
	for (unsigned long i = 0; i < threads; i++) {
		pthread_join(tids[i], NULL);
		printf("worker %lu: ct_walk=%lu ct_leaf=%lu ct_spin=%lu\n", i, args[i].walks,
		       args[i].leaves, args[i].spins);
		total += args[i].calls;
	}
	total += thread_calls();
	if (getenv("HOOKTREE_NS"))
		fprintf(stderr, "hooktree: calls=%lu ns=%llu cpu_ns=%llu\n", total, clock_ns(CLOCK_MONOTONIC) - t0,
			clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0);
	printf("total calls: %lu\n", total);
	LEAVE();
	report_thread();
	return 0;
}
