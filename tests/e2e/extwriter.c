/*
 * tests/e2e/extwriter.c - an external input for tests/e2e/test-external.sh:
 * run outside the traced program, it opens FIFO for writing (which waits
 * for the traced reader to open it), then writes one byte at each of N
 * absolute instants PERIOD_US apart on CLOCK_MONOTONIC (the clock of
 * mtx's *_ns columns), starting 20 ms after the open, and prints one line
 * per write:
 *
 *   write <planned_ns> <before_ns> <after_ns>
 *
 * planned: the instant slept to (clock_nanosleep TIMER_ABSTIME); before
 * and after: the clock read just before and just after the write(2) that
 * wakes the reader, so the wakeup lies between them.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/prctl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	uint64_t planned, before[256], after[256], at[256], period_ns;
	int fd, n;

	if (argc != 4 || (n = atoi(argv[2])) <= 0 || n > 256 || atoi(argv[3]) <= 0) {
		fprintf(stderr, "usage: extwriter FIFO N PERIOD_US (N <= 256)\n");
		return 2;
	}
	period_ns = (uint64_t)atoi(argv[3]) * 1000u;
	if ((fd = open(argv[1], O_WRONLY)) < 0) {
		perror(argv[1]);
		return 1;
	}
	/* wake at the instant planned, not up to 50 us later */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	planned = now_ns() + 20000000u;
	for (int i = 0; i < n; i++, planned += period_ns) {
		struct timespec ts = { (time_t)(planned / 1000000000u), (long)(planned % 1000000000u) };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			;
		at[i] = planned;
		before[i] = now_ns();
		if (write(fd, "x", 1) != 1) {
			perror("write");
			return 1;
		}
		after[i] = now_ns();
	}
	close(fd);
	for (int i = 0; i < n; i++)
		printf("write %llu %llu %llu\n", (unsigned long long)at[i], (unsigned long long)before[i],
		       (unsigned long long)after[i]);
	return 0;
}
