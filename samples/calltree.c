/*
 * calltree - threads calling a small tree of functions, for exact call
 * tracing (mtx collect --functions '^tree_').
 *
 * Usage: calltree [threads=3] [rounds=40] [ending=return]
 *        (1 <= threads <= 64, 1 <= rounds <= 1000000, ending: return, exit, abort)
 *
 * Thread i ("tree-i") runs rounds * (i + 1) rounds of tree_round(), which
 * calls tree_walk(depth) with depth = 1 + i % 3, recursing down to
 * tree_walk(0), which calls tree_leaf(); then tree_branch(), which calls
 * tree_leaf() twice. Per round: tree_round 1, tree_walk depth + 1,
 * tree_branch 1, tree_leaf 3 calls, nested as just said; tree_round is
 * called from the thread's start function, which is not a tree_ function.
 *
 * With ending exit or abort, the last thread runs alone, after the others
 * were joined, and its very last tree_leaf() (under tree_branch, under
 * tree_round) calls pthread_exit() or abort() instead of returning: those
 * three calls never return. abort ends the program with SIGABRT.
 *
 * A run under mtx --functions '^tree_' must show, per thread, exactly the
 * calls counted here and their nesting (calls.parent_id), every call
 * returned except, with exit or abort, the three left open, closed when
 * the thread ended and marked so.
 * Output: "tree-<i>: <calls> calls" per thread as it is joined, then the
 * total (not with abort); the same for the same arguments.
 * Self-check (MTX_SELFCHECK, see selfcheck.h): besides the thread and op
 * lines, "call pid=<pid> tid=<tid> caller=<fn or -> callee=<fn> count=<n>"
 * per (caller, callee) a thread called, and "open pid= tid= count=" for
 * calls that never returned.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "samples/args.h"
#include "samples/selfcheck.h"

enum tree_fn { FN_NONE, FN_ROUND, FN_WALK, FN_BRANCH, FN_LEAF, FN__COUNT };
static const char *const fn_names[FN__COUNT] = { "-", "tree_round", "tree_walk", "tree_branch", "tree_leaf" };

enum ending { END_RETURN, END_EXIT, END_ABORT };

struct tree_thread {
	pthread_t thread;
	int index;
	unsigned long rounds;
	unsigned long calls;
};

static unsigned long nr_threads = 3, rounds = 40;
static enum ending ending = END_RETURN;

/* Calls by (caller, callee) of this thread, and whether this is its last round. */
static __thread unsigned long edges[FN__COUNT][FN__COUNT];
static __thread int last_round_of_last_thread;
/* Stored to after every call: no call is then a tail call, nor the
 * recursion a loop (gcc turns "return f(d - 1) + 1" into one). */
static volatile unsigned long sink;
#define AFTER_CALL(n) (sink = (n))

#define NOT_FOLDED __attribute__((noinline, noipa))

static void write_calls(int still_open)
{
	char line[512];
	int fd = selfcheck_open(), pid = (int)getpid(), tid = (int)syscall(SYS_gettid);
	if (fd < 0)
		return;
	for (int from = 0; from < FN__COUNT; from++)
		for (int to = 1; to < FN__COUNT; to++)
			if (edges[from][to])
				selfcheck_write_line(fd, line, snprintf(line, sizeof(line),
						     "call pid=%d tid=%d caller=%s callee=%s count=%lu\n", pid,
						     tid, fn_names[from], fn_names[to], edges[from][to]));
	selfcheck_write_line(fd, line, snprintf(line, sizeof(line), "open pid=%d tid=%d count=%d\n", pid, tid, still_open));
	close(fd);
}

/* The last thread's end, from inside three open calls (see the top). */
static void end_inside(void)
{
	write_calls(3);
	if (ending == END_EXIT) {
		selfcheck_count("thread", "exit");
		selfcheck_thread_done("tree");
		pthread_exit(NULL);
	}
	selfcheck_thread_done("tree");
	fflush(stdout);
	abort();
}

NOT_FOLDED static unsigned long tree_leaf(int from_branch)
{
	sink++;
	if (from_branch == 2 && last_round_of_last_thread)
		end_inside();
	return 1;
}

NOT_FOLDED static unsigned long tree_walk(int depth)
{
	unsigned long n;
	if (depth > 0) {
		edges[FN_WALK][FN_WALK]++;
		n = tree_walk(depth - 1);
	} else {
		edges[FN_WALK][FN_LEAF]++;
		n = tree_leaf(0);
	}
	AFTER_CALL(n);
	return n + 1;
}

NOT_FOLDED static unsigned long tree_branch(void)
{
	unsigned long n;
	edges[FN_BRANCH][FN_LEAF]++;
	n = tree_leaf(1);
	edges[FN_BRANCH][FN_LEAF]++;
	n += tree_leaf(2);
	AFTER_CALL(n);
	return n + 1;
}

NOT_FOLDED static unsigned long tree_round(int depth)
{
	unsigned long n;
	edges[FN_ROUND][FN_WALK]++;
	n = tree_walk(depth);
	edges[FN_ROUND][FN_BRANCH]++;
	n += tree_branch();
	AFTER_CALL(n);
	return n + 1;
}

static void *calltree_thread(void *arg)
{
	struct tree_thread *t = arg;
	char name[16];
	snprintf(name, sizeof(name), "tree-%d", t->index);
	pthread_setname_np(pthread_self(), name);
	for (unsigned long r = 0; r < t->rounds; r++) {
		last_round_of_last_thread = ending != END_RETURN && t->index == (int)nr_threads - 1 &&
					    r + 1 == t->rounds;
		edges[FN_NONE][FN_ROUND]++;
		t->calls += tree_round(1 + t->index % 3);
	}
	write_calls(0);
	selfcheck_thread_done("tree");
	return NULL;
}

static void start(struct tree_thread *t)
{
	selfcheck_count("thread", "create");
	if (pthread_create(&t->thread, NULL, calltree_thread, t) != 0) {
		fprintf(stderr, "calltree: cannot create a thread\n");
		exit(1);
	}
}

static unsigned long join(struct tree_thread *t)
{
	selfcheck_count("thread", "join");
	pthread_join(t->thread, NULL);
	printf("tree-%d: %lu calls\n", t->index, t->calls);
	fflush(stdout);
	return t->calls;
}

int main(int argc, char **argv)
{
	struct tree_thread threads[64];
	unsigned long total = 0, alone;
	if (argc > 4 || (argc > 1 && parse_arg(argv[1], 1, 64, &nr_threads)) ||
	    (argc > 2 && parse_arg(argv[2], 1, 1000000, &rounds))) {
		fprintf(stderr, "usage: calltree [threads=3] [rounds=40] [return|exit|abort]\n");
		return 2;
	}
	if (argc > 3) {
		if (!strcmp(argv[3], "exit"))
			ending = END_EXIT;
		else if (!strcmp(argv[3], "abort"))
			ending = END_ABORT;
		else if (strcmp(argv[3], "return") != 0) {
			fprintf(stderr, "usage: calltree [threads=3] [rounds=40] [return|exit|abort]\n");
			return 2;
		}
	}
	for (unsigned long i = 0; i < nr_threads; i++)
		threads[i] = (struct tree_thread){ .index = (int)i, .rounds = rounds * (i + 1) };
	alone = ending == END_RETURN ? nr_threads : nr_threads - 1;
	for (unsigned long i = 0; i < alone; i++)
		start(&threads[i]);
	for (unsigned long i = 0; i < alone; i++)
		total += join(&threads[i]);
	if (alone < nr_threads) {
		/* The last thread alone: nothing else is inside a call when it ends. */
		start(&threads[alone]);
		total += join(&threads[alone]);
	}
	printf("total %lu calls\n", total);
	selfcheck_thread_done("main");
	return 0;
}
