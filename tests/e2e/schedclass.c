/*
 * tests/e2e/schedclass.c - threads of known scheduling classes, for
 * tests/e2e/test-thread-sched.sh: the main thread, "plain" (created with
 * the default attributes: the creator's class) and "rr" (created SCHED_RR
 * at priority 7 through its attributes, when permitted). Each reads its
 * own class as it starts, and stays alive 300 ms so that the collector
 * sees it alive; main then prints one line per thread:
 *
 *   sched tid=<tid> policy=<SCHED_...> priority=<n> nice=<n>
 *
 * and "rr unavailable" when SCHED_RR was refused (EPERM).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

struct reading {
	pid_t tid;
	int policy, priority, nice;
};

static void read_own(struct reading *r)
{
	struct sched_param sp = { 0 };

	r->tid = gettid();
	r->policy = sched_getscheduler(0);
	sched_getparam(0, &sp);
	r->priority = sp.sched_priority;
	errno = 0;
	r->nice = getpriority(PRIO_PROCESS, 0);
}

static void *thread_main(void *arg)
{
	struct timespec stay = { 0, 300000000 };

	read_own(arg);
	nanosleep(&stay, NULL);
	return NULL;
}

static const char *policy_name(int p)
{
	return p == SCHED_OTHER ? "SCHED_OTHER" : p == SCHED_FIFO ? "SCHED_FIFO" :
	       p == SCHED_RR ? "SCHED_RR" : p == SCHED_BATCH ? "SCHED_BATCH" :
	       p == SCHED_IDLE ? "SCHED_IDLE" : "unknown";
}

static void print(const struct reading *r)
{
	printf("sched tid=%d policy=%s priority=%d nice=%d\n", (int)r->tid, policy_name(r->policy),
	       r->priority, r->nice);
}

int main(void)
{
	struct reading self, plain, rr;
	struct sched_param sp = { .sched_priority = 7 };
	pthread_attr_t attr;
	pthread_t a, b;
	int rc;

	read_own(&self);
	if (pthread_create(&a, NULL, thread_main, &plain))
		return 1;
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_RR);
	pthread_attr_setschedparam(&attr, &sp);
	rc = pthread_create(&b, &attr, thread_main, &rr);
	pthread_attr_destroy(&attr);
	pthread_join(a, NULL);
	print(&self);
	print(&plain);
	if (rc == 0) {
		pthread_join(b, NULL);
		print(&rr);
	} else {
		printf("rr unavailable\n");
	}
	return 0;
}
