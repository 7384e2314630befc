/*
 * tests/e2e/planted.c - test-diagnose.sh's program: one planted bottleneck
 * per mode, whose size the program measures itself.
 *
 *   planted lock THREADS MS     THREADS threads take one mutex in hog() and
 *                               hold it for a while, MS ms in all
 *   planted cpu THREADS MS      THREADS threads compute in crunch() for MS ms
 * (main is the first of the THREADS: no thread idles, so that a planted
 * share stays the largest when other programs load the machine)
 *   planted io-small FILE N     N writes of 512 bytes to FILE, each synced
 *   planted io-big FILE N       N writes of 1 MiB to FILE, each synced
 *   planted io-join FILE N      io-small in a thread of its own, which main
 *                               joins (main waits for it: not a sync cause)
 *   planted io-two DIR MS       for MS ms, in turn: 512 bytes to DIR/slow.dat,
 *                               synced, and 64 KiB to DIR/fast.dat, not
 *   planted crowd THREADS MS    THREADS threads compute in crunch() for MS ms
 *                               of CPU time each, more of them than CPUs
 *   planted busywin 1 MS        a thread asleep MS ms, busy MS ms, asleep MS
 *                               ms, busy MS ms (test-histogram-metric.sh)
 *
 * On stdout "planted MODE: done" (the same under mtx); on stderr what the
 * program measured, on CLOCK_MONOTONIC:
 *   lock ADDR                   the mutex's address
 *   wait_ns NS                  the time the threads spent in pthread_mutex_lock
 *   thread_ns NS                the lifetimes of all its threads, main included
 *   cpu_ns NS                   the threads' CPU time (CLOCK_THREAD_CPUTIME_ID)
 *   off_cpu_ns NS               crunch and crowd: the rest of their lifetimes, when
 *                               they did not block: waiting for a CPU
 *   run_delay_ns NS             lock, cpu, crowd: the threads' time runnable, not
 *                               running (the kernel's schedstat run_delay)
 *   bytes_per_write B           what each write wrote
 *   writer TID                  io-join: the thread that wrote
 *   slow PATH, fast PATH        io-two: the files
 *   slow_ns NS, fast_ns NS      io-two: the time in each one's writes and syncs
 *   busy_tid TID                busywin: the thread that was busy
 *   busy START END CPU          busywin: each busy window, and the thread's
 *                               CPU time in it (CLOCK_THREAD_CPUTIME_ID)
 *   busy_cpu_ns NS              busywin: the thread's CPU time in all
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 64

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile uint64_t sink;
static uint64_t until_ns, cpu_each_ns;
static uint64_t waited_ns[MAX_THREADS], lived_ns[MAX_THREADS], cpu_ns[MAX_THREADS], delay_ns[MAX_THREADS];

/* The calling thread's time runnable on a run queue so far: the kernel's
 * schedstat run_delay, the truth about waiting for a CPU that other
 * programs (a loaded machine) impose. 0 when not readable. */
static uint64_t run_delay_ns(void)
{
	unsigned long long on_cpu = 0, delay = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	if (f) {
		if (fscanf(f, "%llu %llu", &on_cpu, &delay) != 2)
			delay = 0;
		fclose(f);
	}
	return delay;
}

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* Work of about @n us. */
__attribute__((noinline)) void crunch(unsigned n);
__attribute__((noinline)) void crunch(unsigned n)
{
	for (unsigned i = 0; i < n * 300; i++)
		sink += i * 7;
}

/* Take the mutex, hold it while working; how long taking it took. */
__attribute__((noinline)) uint64_t hog(void);
__attribute__((noinline)) uint64_t hog(void)
{
	uint64_t t0 = now_ns(), waited;
	pthread_mutex_lock(&lock);
	waited = now_ns() - t0;
	crunch(200);
	pthread_mutex_unlock(&lock);
	return waited;
}

static void *locker(void *arg)
{
	long i = (long)arg;
	uint64_t born = now_ns();
	while (now_ns() < until_ns)
		waited_ns[i] += hog();
	lived_ns[i] = now_ns() - born;
	delay_ns[i] = run_delay_ns();
	return NULL;
}

static void *cruncher(void *arg)
{
	long i = (long)arg;
	uint64_t born = now_ns();
	if (cpu_each_ns)
		while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < cpu_each_ns)
			crunch(100);
	else
		while (now_ns() < until_ns)
			crunch(100);
	cpu_ns[i] = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	lived_ns[i] = now_ns() - born;
	delay_ns[i] = run_delay_ns();
	return NULL;
}

static const char *io_path;
static long io_writes;

static int writes(const char *path, long n, size_t size);

static void *writer(void *arg)
{
	(void)arg;
	fprintf(stderr, "writer %d\n", (int)gettid());
	return (void *)(intptr_t)writes(io_path, io_writes, 512);
}

/* io-two: small synced writes to one file and big plain ones to another,
 * in turn, for @ms ms. */
static int two_files(const char *dir, long ms)
{
	static char buf[1 << 16];
	char slow[4096], fast[4096];
	uint64_t until = now_ns() + (uint64_t)ms * 1000000u, slow_ns = 0, fast_ns = 0;
	snprintf(slow, sizeof(slow), "%s/slow.dat", dir);
	snprintf(fast, sizeof(fast), "%s/fast.dat", dir);
	int s = open(slow, O_WRONLY | O_CREAT | O_TRUNC, 0600), f = open(fast, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (s < 0 || f < 0) {
		perror(dir);
		return 1;
	}
	memset(buf, 'x', sizeof(buf));
	while (now_ns() < until) {
		uint64_t t0 = now_ns(), t1;
		if (write(s, buf, 512) != 512 || fdatasync(s))
			return 1;
		t1 = now_ns();
		/* rewritten in place: the page cache takes it, no disk wait */
		if (pwrite(f, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
			return 1;
		slow_ns += t1 - t0;
		fast_ns += now_ns() - t1;
	}
	close(s);
	close(f);
	unlink(slow);
	unlink(fast);
	fprintf(stderr, "slow %s\nfast %s\nslow_ns %llu\nfast_ns %llu\n", slow, fast, (unsigned long long)slow_ns,
		(unsigned long long)fast_ns);
	return 0;
}

static int writes(const char *path, long n, size_t size)
{
	char *buf = malloc(size);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (!buf || fd < 0) {
		perror(path);
		return 1;
	}
	memset(buf, 'x', size);
	for (long i = 0; i < n; i++)
		if (write(fd, buf, size) != (ssize_t)size || fdatasync(fd)) {
			perror("write");
			return 1;
		}
	close(fd);
	unlink(path);
	free(buf);
	fprintf(stderr, "bytes_per_write %zu\n", size);
	return 0;
}

/* busywin: asleep and busy by turns, @arg ms each, twice; each window as
 * the program saw it. */
static void *busywin(void *arg)
{
	uint64_t ms = (uint64_t)(uintptr_t)arg * 1000000u, t0 = now_ns();
	fprintf(stderr, "busy_tid %ld\n", (long)gettid());
	for (int w = 0; w < 2; w++) {
		uint64_t from = t0 + (2 * (uint64_t)w + 1) * ms, cpu0, start;
		struct timespec at = { (time_t)(from / 1000000000u), (long)(from % 1000000000u) };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL))
			;
		start = now_ns();
		cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		while (now_ns() < from + ms)
			crunch(10);
		fprintf(stderr, "busy %llu %llu %llu\n", (unsigned long long)start, (unsigned long long)now_ns(),
			(unsigned long long)(clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0));
	}
	fprintf(stderr, "busy_cpu_ns %llu\n", (unsigned long long)clock_ns(CLOCK_THREAD_CPUTIME_ID));
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[MAX_THREADS];
	uint64_t start = now_ns(), waited = 0, lived = 0, cpu = 0, delay = 0;
	const char *mode = argc == 4 ? argv[1] : "";
	long n = argc == 4 ? atol(argv[3]) : 0;
	int threads = argc == 4 ? atoi(argv[2]) : 0;
	void *(*run)(void *) = NULL;
	if (!strcmp(mode, "io-join") && n > 0) {
		void *rc = NULL;
		io_path = argv[2];
		io_writes = n;
		if (pthread_create(&t[0], NULL, writer, NULL) || pthread_join(t[0], &rc) || rc)
			return 1;
		printf("planted %s: done\n", mode);
		return 0;
	}
	if (!strcmp(mode, "busywin") && n > 0) {
		if (pthread_create(&t[0], NULL, busywin, (void *)(uintptr_t)n) || pthread_join(t[0], NULL))
			return 1;
		printf("planted %s: done\n", mode);
		return 0;
	}
	if (!strcmp(mode, "io-two") && n > 0) {
		uint64_t t0 = now_ns();
		if (two_files(argv[2], n))
			return 1;
		fprintf(stderr, "thread_ns %llu\n", (unsigned long long)(now_ns() - t0));
		printf("planted %s: done\n", mode);
		return 0;
	}
	if (!strcmp(mode, "io-small") || !strcmp(mode, "io-big")) {
		if (n <= 0 || writes(argv[2], n, !strcmp(mode, "io-small") ? 512 : 1 << 20))
			return 1;
		printf("planted %s: done\n", mode);
		return 0;
	}
	if (!strcmp(mode, "lock"))
		run = locker;
	else if (!strcmp(mode, "cpu") || !strcmp(mode, "crowd"))
		run = cruncher;
	if (!run || threads < 1 || threads > MAX_THREADS || n <= 0) {
		fprintf(stderr, "usage: planted lock|cpu|crowd THREADS MS | planted io-small|io-big FILE N | "
				"planted io-two DIR MS | planted busywin 1 MS\n");
		return 2;
	}
	until_ns = start + (uint64_t)n * 1000000u;
	if (!strcmp(mode, "crowd"))
		cpu_each_ns = (uint64_t)n * 1000000u;
	for (long i = 1; i < threads; i++)
		if (pthread_create(&t[i], NULL, run, (void *)i)) {
			perror("pthread_create");
			return 1;
		}
	run((void *)0);
	for (int i = 0; i < threads; i++) {
		if (i)
			pthread_join(t[i], NULL);
		waited += waited_ns[i];
		cpu += cpu_ns[i];
		delay += delay_ns[i];
		lived += i ? lived_ns[i] : 0;
	}
	lived += now_ns() - start; /* main's */
	fprintf(stderr, "lock %#lx\nwait_ns %llu\nthread_ns %llu\ncpu_ns %llu\noff_cpu_ns %llu\nrun_delay_ns %llu\n",
		(unsigned long)(uintptr_t)&lock, (unsigned long long)waited, (unsigned long long)lived,
		(unsigned long long)cpu, (unsigned long long)(run == cruncher && lived > cpu ? lived - cpu : 0),
		(unsigned long long)delay);
	printf("planted %s: done\n", mode);
	return 0;
}
