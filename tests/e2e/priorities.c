/*
 * tests/e2e/priorities.c - threads that change their scheduling class, for
 * tests/e2e/test-thread-sched.sh. Each change is logged with the
 * CLOCK_MONOTONIC instants just before and after the call (the clock of
 * mtx's *_ns) and the class the thread then reads itself:
 *
 *   set tid=<tid> before=<ns> after=<ns> policy=<SCHED_...> priority=<n> nice=<n>
 *
 * "rt" goes SCHED_FIFO 10 (pthread_setschedparam), SCHED_RR 20
 * (pthread_setschedparam), priority 30 (pthread_setschedprio by main),
 * then SCHED_OTHER 0 (sched_setscheduler); "nicer" goes nice 5
 * (setpriority) then nice 8 (nice(3)). Real-time classes need
 * CAP_SYS_NICE: without it "rt unavailable" is printed instead. Then
 * "outside" pins itself to CPU 0 (sched_setaffinity), logged as
 * "affinity tid=<tid> before=<ns> after=<ns> cpus=0", and
 * "outside tid=<tid> since=<ns>" names that thread, and when it began
 * to wait for a line on stdin
 * (someone renices it meanwhile) and logs "woke tid=<tid> before=<ns> ...",
 * its class once it has read it, then leaves the CPU and stays alive
 * until stdin ends.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t rt_set; /* rt's first change is made */
static pthread_barrier_t prio_set; /* main's setschedprio is made */

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void pause_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };
	nanosleep(&ts, NULL);
}

static const char *policy_name(int p)
{
	return p == SCHED_OTHER ? "SCHED_OTHER" : p == SCHED_FIFO ? "SCHED_FIFO" : p == SCHED_RR ? "SCHED_RR" : "other";
}

/* Log thread @tid's class, changed between @before and @after. */
static void log_class(const char *what, pid_t tid, uint64_t before, uint64_t after)
{
	struct sched_param sp = { 0 };
	int policy = sched_getscheduler(tid), nice;

	sched_getparam(tid, &sp);
	errno = 0;
	nice = getpriority(PRIO_PROCESS, (id_t)tid);
	pthread_mutex_lock(&out_lock);
	printf("%s tid=%d before=%llu after=%llu policy=%s priority=%d nice=%d\n", what, (int)tid,
	       (unsigned long long)before, (unsigned long long)after, policy_name(policy), sp.sched_priority, nice);
	pthread_mutex_unlock(&out_lock);
}

static int rt_ok = 1;
static pid_t rt_tid;

static void *rt_main(void *arg)
{
	struct sched_param sp = { .sched_priority = 10 };
	uint64_t b;
	int rc;

	(void)arg;
	rt_tid = gettid();
	b = now_ns();
	rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	if (rc) {
		rt_ok = 0;
		pthread_barrier_wait(&rt_set);
		pthread_barrier_wait(&prio_set);
		return NULL;
	}
	log_class("set", rt_tid, b, now_ns());
	pause_ms(5);
	sp.sched_priority = 20;
	b = now_ns();
	pthread_setschedparam(pthread_self(), SCHED_RR, &sp);
	log_class("set", rt_tid, b, now_ns());
	pthread_barrier_wait(&rt_set);
	pthread_barrier_wait(&prio_set);
	pause_ms(5);
	sp.sched_priority = 0;
	b = now_ns();
	sched_setscheduler(0, SCHED_OTHER, &sp);
	log_class("set", rt_tid, b, now_ns());
	return NULL;
}

static void *nicer_main(void *arg)
{
	pid_t tid = gettid();
	int base = getpriority(PRIO_PROCESS, 0);
	uint64_t b;

	(void)arg;
	pause_ms(3);
	b = now_ns();
	errno = 42; /* a call that succeeds leaves errno as it was, under mtx too */
	if (setpriority(PRIO_PROCESS, 0, base + 5 > 19 ? 19 : base + 5) == 0) {
		int e = errno;
		pthread_mutex_lock(&out_lock);
		printf("errno after setpriority=%d\n", e);
		pthread_mutex_unlock(&out_lock);
	}
	log_class("set", tid, b, now_ns());
	pause_ms(5);
	b = now_ns();
	if (nice(3) == -1 && errno)
		perror("nice");
	log_class("set", tid, b, now_ns());
	return NULL;
}

static void *outside_main(void *arg)
{
	char line[64];
	pid_t tid = gettid();
	cpu_set_t cpu0;
	uint64_t b;

	(void)arg;
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	b = now_ns();
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0) == 0) {
		uint64_t a = now_ns();
		pthread_mutex_lock(&out_lock);
		printf("affinity tid=%d before=%llu after=%llu cpus=0\n", (int)tid, (unsigned long long)b,
		       (unsigned long long)a);
		pthread_mutex_unlock(&out_lock);
	}
	pthread_mutex_lock(&out_lock);
	printf("outside tid=%d since=%llu\n", (int)tid, (unsigned long long)now_ns());
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
	if (!fgets(line, sizeof(line), stdin))
		return NULL;
	{
		uint64_t at = now_ns();
		log_class("woke", tid, at, at);
	}
	pause_ms(2); /* leaves the CPU: the switch that shows the change */
	/* alive until stdin ends, for the collector to read its class */
	while (fgets(line, sizeof(line), stdin))
		;
	return NULL;
}

int main(void)
{
	pthread_t rt, nicer, outside;
	uint64_t b;

	setvbuf(stdout, NULL, _IOLBF, 0);
	pthread_barrier_init(&rt_set, NULL, 2);
	pthread_barrier_init(&prio_set, NULL, 2);
	pthread_create(&outside, NULL, outside_main, NULL);
	pthread_create(&rt, NULL, rt_main, NULL);
	pthread_create(&nicer, NULL, nicer_main, NULL);
	pthread_barrier_wait(&rt_set);
	if (rt_ok) {
		b = now_ns();
		pthread_setschedprio(rt, 30);
		log_class("set", rt_tid, b, now_ns());
	} else {
		printf("rt unavailable\n");
	}
	pthread_barrier_wait(&prio_set);
	pthread_join(rt, NULL);
	pthread_join(nicer, NULL);
	pthread_join(outside, NULL);
	return 0;
}
