/*
 * tests/e2e/ticker.c - a program whose calls test-control.sh counts
 * itself: tick() is called once a millisecond for SECONDS seconds, and
 * each call reads CLOCK_MONOTONIC (the clock of mtx's *_ns) inside it;
 * at the end every stamp is printed, one a line, then "ticks N". Between
 * calls it sleeps (clock_nanosleep: a syscall each).
 *
 * Usage: ticker SECONDS
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t *stamps;
static size_t nr_stamps;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* tick - the function the test probes: not inlined, not cloned, external. */
__attribute__((noinline, noclone)) void tick(void);

__attribute__((noinline, noclone)) void tick(void)
{
	stamps[nr_stamps++] = now_ns();
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	long seconds = argc == 2 ? atol(argv[1]) : 0;
	struct timespec next;
	size_t max;
	if (seconds <= 0 || seconds > 600) {
		fprintf(stderr, "usage: ticker SECONDS (1 to 600)\n");
		return 2;
	}
	max = (size_t)seconds * 1000;
	stamps = calloc(max, sizeof(*stamps));
	if (!stamps)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (nr_stamps < max) {
		tick();
		next.tv_nsec += 1000000;
		if (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	for (size_t i = 0; i < nr_stamps; i++)
		printf("%llu\n", (unsigned long long)stamps[i]);
	printf("ticks %zu\n", nr_stamps);
	return 0;
}
