/*
 * bench/lock-pairs.c - lock-pairs [pairs=200000] [runs=5]: the loop of
 * bench/lock-pairs.h alone, so that it can be linked statically and traced
 * through uprobes (bench/sync-uprobe-cost.sh).
 */
#define _GNU_SOURCE
#include "bench/lock-pairs.h"

int main(int argc, char **argv)
{
	long pairs = argc > 1 ? atol(argv[1]) : 200000;
	int runs = argc > 2 ? atoi(argv[2]) : 5;

	if (pairs < 1 || runs < 1) {
		fprintf(stderr, "usage: lock-pairs [pairs] [runs]\n");
		return 2;
	}
	return measure(pairs, runs);
}
