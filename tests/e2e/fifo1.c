/*
 * tests/e2e/fifo1.c - a program whose order on one CPU is decided by
 * priorities and by another process's input at fixed instants: seed
 * 004's setting, for the oracle of SEEDS-MAP P4 (test-probe-oracle.sh).
 *
 *   fifo1 DATA START ROUNDS          the program (under mtx, or not)
 *   fifo1 --feed DATA START ROUNDS   the other process (never under mtx)
 *
 * DATA and START are named pipes. Every thread runs SCHED_FIFO on CPU 0:
 *  - "busy" (priority 10) waits for a byte on START, then takes mutex M
 *    for chunks of 4 ms of its own CPU time, 5 * ROUNDS + 5 times;
 *  - "reader" (priority 50) waits for a byte on DATA, then takes M and
 *    lets it go, ROUNDS times.
 * The feeder, by its own clock alone, writes START 50 ms after both pipes
 * are open, and byte i on DATA 20 i + 2 ms after that: in the middle of
 * busy's chunk 5 i when nothing slows busy down, so the reader waits for
 * that chunk's unlock and goes in between it and the next, with 2 ms of
 * margin either way (less what the reader's own rounds, which busy's CPU
 * clock does not count, add up to). An overhead of 100 us an op moves
 * busy's chunks by 0.2 ms each, and the reader then goes in elsewhere:
 * that order is the instrumented run's, and the one the simulation must
 * take back.
 *
 * The program numbers its own sync calls with one atomic counter,
 * releases before the call and acquisitions after it (so that a release
 * comes before the acquisition it lets through, as mtx stamps them), and
 * prints "seq thread k op" for each at the end, k counting the thread's
 * lock and unlock calls from 1. Exit 77 when SCHED_FIFO or CPU 0 cannot
 * be had.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHUNK_NS 4000000L
#define ROUND_NS 20000000L
#define OFFSET_NS 2000000L
#define START_NS 50000000L
#define MAX_LOG 4096

struct logged {
	const char *thread, *op;
	int k;
};

static struct logged log_v[MAX_LOG];
static atomic_int next_seq;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int rounds, data_fd, start_fd;

static void note(const char *thread, int *k, const char *op)
{
	int seq = atomic_fetch_add(&next_seq, 1);
	if (seq < MAX_LOG)
		log_v[seq] = (struct logged){ thread, op, ++*k };
}

static void lock_m(const char *thread, int *k)
{
	pthread_mutex_lock(&m);
	note(thread, k, "lock");
}

static void unlock_m(const char *thread, int *k)
{
	note(thread, k, "unlock");
	pthread_mutex_unlock(&m);
}

static long thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* Its class once more, through the library: mtx records the call, where
 * the /proc read of a new thread may come after a short run has ended. */
static void say_class(int priority)
{
	struct sched_param sp = { .sched_priority = priority };
	pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
}

static void *busy(void *arg)
{
	int k = 0;
	char c;
	(void)arg;
	pthread_setname_np(pthread_self(), "busy");
	say_class(10);
	/* the start is the feeder's, as its bytes are: nothing of this
	 * program's timing moves the instants (seed 004's T_0) */
	if (read(start_fd, &c, 1) != 1)
		exit(1);
	for (int j = 0; j < 5 * rounds + 5; j++) {
		lock_m("busy", &k);
		for (long until = thread_cpu_ns() + CHUNK_NS; thread_cpu_ns() < until;)
			;
		unlock_m("busy", &k);
	}
	return NULL;
}

static void *reader(void *arg)
{
	int k = 0;
	char c;
	(void)arg;
	pthread_setname_np(pthread_self(), "reader");
	say_class(50);
	for (int i = 0; i < rounds; i++) {
		if (read(data_fd, &c, 1) != 1)
			exit(1);
		lock_m("reader", &k);
		unlock_m("reader", &k);
	}
	return NULL;
}

static int start(pthread_t *t, void *(*fn)(void *), int priority)
{
	pthread_attr_t a;
	struct sched_param sp = { .sched_priority = priority };
	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_FIFO);
	pthread_attr_setschedparam(&a, &sp);
	return pthread_create(t, &a, fn, NULL);
}

/* The feeder keeps its instants on a CPU of its own (the last), above
 * whatever else runs there. */
static int feed(const char *data, const char *start)
{
	struct sched_param sp = { .sched_priority = 70 };
	struct timespec t0, at;
	cpu_set_t cpus;
	int go, out;

	CPU_ZERO(&cpus);
	CPU_SET(sysconf(_SC_NPROCESSORS_ONLN) - 1, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	sched_setscheduler(0, SCHED_FIFO, &sp);
	go = open(start, O_WRONLY);
	out = open(data, O_WRONLY);
	if (go < 0 || out < 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	t0.tv_nsec += START_NS;
	if (t0.tv_nsec >= 1000000000L) {
		t0.tv_sec++;
		t0.tv_nsec -= 1000000000L;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t0, NULL) == EINTR)
		;
	if (write(go, "s", 1) != 1)
		return 1;
	for (int i = 1; i <= rounds; i++) {
		long ns = t0.tv_nsec + i * ROUND_NS + OFFSET_NS;
		at = (struct timespec){ t0.tv_sec + ns / 1000000000L, ns % 1000000000L };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR)
			;
		if (write(out, "d", 1) != 1)
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = 60 };
	pthread_t b, r;
	cpu_set_t cpus;
	bool feeder = argc == 5 && !strcmp(argv[1], "--feed");
	int n;

	if (argc != 4 && !feeder) {
		fprintf(stderr, "usage: fifo1 [--feed] DATA START ROUNDS\n");
		return 2;
	}
	rounds = atoi(argv[argc - 1]);
	if (feeder)
		return feed(argv[2], argv[3]);
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus) || sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "fifo1: no SCHED_FIFO on CPU 0: %s\n", strerror(errno));
		return 77;
	}
	/* the feeder opens START, then DATA, to write */
	if ((start_fd = open(argv[2], O_RDONLY)) < 0 || (data_fd = open(argv[1], O_RDONLY)) < 0) {
		perror("fifo1: open");
		return 1;
	}
	if (start(&r, reader, 50) || start(&b, busy, 10)) {
		fprintf(stderr, "fifo1: cannot start a SCHED_FIFO thread\n");
		return 77;
	}
	pthread_join(b, NULL);
	pthread_join(r, NULL);
	n = atomic_load(&next_seq);
	for (int i = 0; i < n && i < MAX_LOG; i++)
		printf("%d %s %d %s\n", i + 1, log_v[i].thread, log_v[i].k, log_v[i].op);
	return 0;
}
