/*
 * tests/e2e/deeprecursion.c - calls nested deeper than the kernel's 64
 * return probes per thread, for mtx collect --functions '^(recurse|leaf)$'.
 *
 * Usage: deeprecursion DEPTH TIMES THREADS. Each thread calls
 * recurse(DEPTH) TIMES times; recurse(d) calls leaf once, then
 * recurse(d - 1) while d > 1, then leaf again, so every level of the
 * recursion holds two calls of leaf, the second one after the deeper
 * levels returned. Prints what its threads called, as they counted it
 * (recurse: DEPTH*TIMES*THREADS, leaf twice that), the deepest level of
 * recurse reached (DEPTH), and a sum of the results:
 *   recurse calls=R max_depth=D
 *   leaf calls=L
 *   sum N
 * and exits with status 3 (a status of its own, for mtx to pass on).
 * Under mtx: each thread's calls nest as the program made them, recurse at
 * depths 0 .. DEPTH-1 and leaf one level below its caller; past the
 * kernel's depth they are marked return_probe_depth and counted lost.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int depth, times;
/* What each thread called, counted as it did. */
static __thread long nr_recurse, nr_leaf, level, max_level;
struct counts {
	long recurse, leaf, max_level, sum;
};

__attribute__((noinline, noclone)) long leaf(int d);
__attribute__((noinline, noclone)) long recurse(int d);

__attribute__((noinline, noclone)) long leaf(int d)
{
	nr_leaf++;
	__asm__ volatile("" : "+r"(d));
	return d;
}

__attribute__((noinline, noclone)) long recurse(int d)
{
	long r;
	nr_recurse++;
	if (++level > max_level)
		max_level = level;
	r = leaf(d);
	if (d > 1)
		r += recurse(d - 1);
	r += leaf(d);
	level--;
	__asm__ volatile("" : "+r"(r)); /* no tail call */
	return r;
}

static void *worker(void *arg)
{
	struct counts *n = arg;
	for (int i = 0; i < times; i++)
		n->sum += recurse(depth);
	n->recurse = nr_recurse;
	n->leaf = nr_leaf;
	n->max_level = max_level;
	return NULL;
}

int main(int argc, char **argv)
{
	int threads;
	pthread_t *tids;
	struct counts *n, all = { 0 };

	if (argc != 4 || (depth = atoi(argv[1])) < 1 || (times = atoi(argv[2])) < 1 ||
	    (threads = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: deeprecursion DEPTH TIMES THREADS (each >= 1)\n");
		return 2;
	}
	tids = calloc((size_t)threads, sizeof(*tids));
	n = calloc((size_t)threads, sizeof(*n));
	if (!tids || !n)
		return 1;
	for (int i = 0; i < threads; i++)
		if (pthread_create(&tids[i], NULL, worker, &n[i]))
			return 1;
	for (int i = 0; i < threads; i++) {
		pthread_join(tids[i], NULL);
		all.recurse += n[i].recurse;
		all.leaf += n[i].leaf;
		all.sum += n[i].sum;
		if (n[i].max_level > all.max_level)
			all.max_level = n[i].max_level;
	}
	printf("recurse calls=%ld max_depth=%ld\n", all.recurse, all.max_level);
	printf("leaf calls=%ld\n", all.leaf);
	printf("sum %ld\n", all.sum);
	free(tids);
	free(n);
	return 3;
}
