/*
 * tests/e2e/longcall.c - test-catch-up.sh's program: a call that is
 * already running when probes go in (SEEDS-MAP S3).
 *
 *   longcall SECONDS STAMPS
 *
 * main calls outer(), which runs until SIGUSR2 (at most SECONDS seconds)
 * and calls inner() about every millisecond (sleeping between, in outer
 * itself): the test ends it once mtx is attached, however long mtx took
 * to start. After the first SIGUSR1, every inner() notes its own entry
 * time. At the end the program
 * writes STAMPS:
 *   outer_entry NS      (outer's first statement, CLOCK_MONOTONIC)
 *   outer_exit NS       (its last, before the return)
 *   inner NS            (one line per inner call after SIGUSR1)
 * and prints "longcall: N inner calls" on stdout; it exits 0.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_STAMPS 100000

static volatile sig_atomic_t counting, ending;
static uint64_t stamps[MAX_STAMPS];
static size_t nr_stamps;
static volatile unsigned sink;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		counting = 1;
	else
		ending = 1;
}

/* Global, noinline, with a body of its own: a real call at a symbol of its
 * own, which --functions finds. */
void inner(unsigned i);
uint64_t outer(double seconds, uint64_t *exit_ns);

__attribute__((noinline)) void inner(unsigned i)
{
	if (counting && nr_stamps < MAX_STAMPS)
		stamps[nr_stamps++] = now_ns();
	for (unsigned k = 0; k < 200; k++)
		sink += i * k;
}

__attribute__((noinline)) uint64_t outer(double seconds, uint64_t *exit_ns)
{
	uint64_t entry = now_ns(), until = entry + (uint64_t)(seconds * 1e9);
	unsigned i = 0;
	while (!ending && now_ns() < until) {
		inner(i++);
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	*exit_ns = now_ns();
	return entry;
}

int main(int argc, char **argv)
{
	uint64_t entry, exit_ns;
	FILE *out;
	if (argc != 3) {
		fprintf(stderr, "usage: longcall SECONDS STAMPS\n");
		return 2;
	}
	signal(SIGUSR1, on_signal);
	signal(SIGUSR2, on_signal);
	entry = outer(atof(argv[1]), &exit_ns);
	out = fopen(argv[2], "w");
	if (!out) {
		perror(argv[2]);
		return 1;
	}
	fprintf(out, "outer_entry %llu\nouter_exit %llu\n", (unsigned long long)entry, (unsigned long long)exit_ns);
	for (size_t i = 0; i < nr_stamps; i++)
		fprintf(out, "inner %llu\n", (unsigned long long)stamps[i]);
	fclose(out);
	printf("longcall: %zu inner calls\n", nr_stamps);
	return 0;
}
