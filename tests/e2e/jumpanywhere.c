/*
 * tests/e2e/jumpanywhere.c - a signal handler that siglongjmp()s out of
 * whatever its thread was doing, at any instruction of the traced calls.
 *
 * Usage: jumpanywhere [ms=300] [hz=20000]
 *
 * One thread trylocks and unlocks a mutex and posts and takes a semaphore
 * in a loop for ms milliseconds (never a blocking call: a jump out of the
 * middle of one may leave the mutex taken by nobody), while a timer of its own interrupts it hz
 * times a second; the handler posts the semaphore and jumps back to the
 * top of the loop, wherever the thread was: before a call, inside one
 * (inside the library's record writing too), after it. On landing the
 * thread gives the mutex back if it held it (unlock: errorcheck mutex,
 * EPERM when it did not).
 *
 * Counts (samples/selfcheck.h) are taken before each call, so a jump that
 * lands between the count and the call makes the count one more than the
 * calls made: under mtx, per op, the program's count minus the ops recorded
 * must lie in [0, jumps]. Nothing may be lost or rejected, and ops left by
 * the jumps are recorded as unfinished 'siglongjmp'. stderr: "jumps N".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "samples/selfcheck.h"

static pthread_mutex_t m;
static sem_t s;
static sigjmp_buf top;
static volatile unsigned long jumps;

static void on_tick(int sig)
{
	(void)sig;
	selfcheck_count("sem", "post");
	sem_post(&s);
	jumps++;
	siglongjmp(top, 1);
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	unsigned long ms = argc > 1 ? strtoul(argv[1], NULL, 10) : 300;
	unsigned long hz = argc > 2 ? strtoul(argv[2], NULL, 10) : 20000;
	pthread_mutexattr_t a;
	struct sigaction sa;
	struct sigevent sev;
	struct itimerspec its;
	sigset_t tick;
	timer_t t;
	volatile unsigned long long end;

	if (ms == 0 || hz == 0 || hz > 1000000) {
		fprintf(stderr, "usage: jumpanywhere [ms=300] [hz=20000]\n");
		return 2;
	}
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
	selfcheck_count("mutex", "init");
	pthread_mutex_init(&m, &a);
	selfcheck_count("sem", "init");
	sem_init(&s, 0, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_tick;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGRTMIN, &sa, NULL);
	sigemptyset(&tick);
	sigaddset(&tick, SIGRTMIN);

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGRTMIN;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &sev, &t) != 0)
		return 1;
	its.it_interval.tv_sec = 0;
	its.it_interval.tv_nsec = (long)(1000000000ul / hz);
	its.it_value = its.it_interval;
	end = now_ns() + ms * 1000000ull;

	/* The timer starts only once top is saved: a tick that came while
	 * sigsetjmp was still writing it (the thread preempted for a tick's
	 * length right after timer_settime) jumped through a half-written
	 * buffer, 1 run in ~200 on a loaded machine. */
	if (sigsetjmp(top, 1) != 0) {
		/* landed: give the mutex back if the jump left it held */
		pthread_sigmask(SIG_BLOCK, &tick, NULL);
		selfcheck_count("mutex", "unlock");
		pthread_mutex_unlock(&m);
		pthread_sigmask(SIG_UNBLOCK, &tick, NULL);
	} else {
		timer_settime(t, 0, &its, NULL);
	}
	while (now_ns() < end) {
		selfcheck_count("mutex", "trylock");
		pthread_mutex_trylock(&m);
		selfcheck_count("mutex", "unlock");
		pthread_mutex_unlock(&m);
		selfcheck_count("sem", "post");
		sem_post(&s);
		selfcheck_count("sem", "trywait");
		sem_trywait(&s);
	}
	pthread_sigmask(SIG_BLOCK, &tick, NULL);
	timer_delete(t);
	fprintf(stderr, "jumps %lu\n", jumps);
	selfcheck_thread_done("main");
	return 0;
}
