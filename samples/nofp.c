/*
 * nofp - CPU-bound threads whose code has no frame pointers
 * (built with -O2 -fomit-frame-pointer), for unwinding by DWARF CFI.
 *
 * Usage: nofp [threads=2] [rounds=300]     (1 <= threads <= 64, 1 <= rounds)
 *
 * Each thread ("spin-<i>") calls, rounds times, path_a(), which calls
 * path_b(), which calls hot() - a long chain of integer mixing rounds,
 * nearly all of the program's CPU time. None of the three keeps a frame
 * pointer, and each uses its callee's result after the call, so every
 * call stays a real call (no inlining, cloning or tail call).
 *
 * A run under 'mtx collect --sample HZ --call-graph dwarf' must show:
 *  - threads+1 threads: main and the spinners;
 *  - hot() at the top of every spinner's flat profile;
 *  - nearly every sample in hot() with the whole path under it:
 *    path_a > path_b > hot (the frame-pointer method cannot give this:
 *    with no frame pointer to follow, its chains lose path_b and path_a).
 * Output: one checksum per thread; the same for the same arguments.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "samples/args.h"

#if defined(__GNUC__) && !defined(__clang__)
#define KEEP_CALL __attribute__((noipa))
#else
#define KEEP_CALL __attribute__((noinline))
#endif

#define HOT_ROUNDS 400000UL /* ~0.5 ms */

struct spinner {
	pthread_t thread;
	unsigned index;
	unsigned long rounds;
	uint64_t sum;
};

static KEEP_CALL uint64_t hot(uint64_t x)
{
	for (unsigned long i = 0; i < HOT_ROUNDS; i++) {
		x ^= x >> 31;
		x *= 0x9e3779b97f4a7c15ull;
		x += i;
	}
	return x;
}

static KEEP_CALL uint64_t path_b(uint64_t x)
{
	return hot(x + 1) ^ (x << 3);
}

static KEEP_CALL uint64_t path_a(uint64_t x)
{
	return path_b(x * 7) + (x >> 2);
}

static void *spin(void *arg)
{
	struct spinner *s = arg;
	char name[16];
	snprintf(name, sizeof(name), "spin-%u", s->index);
	pthread_setname_np(pthread_self(), name);
	for (unsigned long r = 0; r < s->rounds; r++)
		s->sum += path_a(s->sum + r + s->index);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long threads = 2, rounds = 300;
	struct spinner *s;

	if (argc > 3 || (argc > 1 && parse_arg(argv[1], 1, 64, &threads)) ||
	    (argc > 2 && parse_arg(argv[2], 1, 1000000, &rounds))) {
		fprintf(stderr, "usage: nofp [threads=2 (1-64)] [rounds=300]\n");
		return 2;
	}
	s = calloc(threads, sizeof(*s));
	if (!s)
		return 1;
	for (unsigned i = 0; i < threads; i++) {
		s[i] = (struct spinner){ .index = i, .rounds = rounds };
		if (pthread_create(&s[i].thread, NULL, spin, &s[i]) != 0) {
			fprintf(stderr, "nofp: cannot create a thread\n");
			return 1;
		}
	}
	for (unsigned i = 0; i < threads; i++) {
		pthread_join(s[i].thread, NULL);
		printf("spin-%u %016llx\n", i, (unsigned long long)s[i].sum);
	}
	free(s);
	return 0;
}
