/*
 * handlers - signal handlers that make sync ops in the middle of their
 * thread's own, nest, and leave the interrupted call by siglongjmp.
 *
 * Usage: handlers [threads=3] [ms=300] [hz=5000] [jumps=20]
 *        (1 <= threads <= 32, 1 <= ms <= 60000, 1 <= hz <= 100000, jumps <= 1000)
 *
 * Workers ("worker-<i>") go through three phases:
 *   1. hammer: lock and unlock one shared mutex in a tight loop for ms
 *      milliseconds while a timer of their own (timer_create, delivered to
 *      the worker itself) interrupts them hz times a second. Its handler
 *      posts a semaphore; every fourth time it also raises a second signal,
 *      whose handler posts again from inside that raise (a handler nested in
 *      a handler, inside a traced call);
 *   2. jump out of a blocked wait: jumps times, block in sem_wait on a
 *      semaphore nobody posts; main waits until the worker sleeps in the
 *      kernel (futex, as /proc/self/task/TID/syscall shows), then
 *      pthread_kill()s it, and the handler posts and siglongjmp()s out;
 *   3. jump out of a call in progress: jumps times, raise() a signal whose
 *      handler posts and siglongjmp()s out of the raise.
 * Every call is counted with samples/selfcheck.h next to the call, in the
 * handlers too, so the counts are exact.
 *
 * A run under mtx must show:
 *  - every sem post of every handler, as many as each thread counted, and
 *    every lock and unlock; nothing lost;
 *  - threads*jumps sem waits and threads*jumps raises that never returned,
 *    left by siglongjmp (sync_ops.unfinished), ending when the handler
 *    jumped;
 *  - threads*jumps pthread_kill from main.
 * Output: the phases done, the same for the same arguments.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "samples/args.h"
#include "samples/selfcheck.h"

#define MAX_WORKERS 32
#define SIG_TICK (SIGRTMIN)          /* phase 1 timer */
#define SIG_NESTED (SIGRTMIN + 1)    /* raised by the tick's handler */
#define SIG_WAKE_JUMP (SIGRTMIN + 2) /* phase 2: main -> worker in sem_wait */
#define SIG_RAISE_JUMP (SIGRTMIN + 3) /* phase 3: raised by the worker */

struct worker {
	pthread_t thread;
	pid_t tid;
	int waiting;  /* atomic: about to block in sem_wait (phase 2) */
	int jumped;   /* atomic: landings of phase 2 */
};

static struct worker workers[MAX_WORKERS];
static unsigned long nr_workers = 3, run_ms = 300, hz = 5000, nr_jumps = 20;
static pthread_mutex_t hammered = PTHREAD_MUTEX_INITIALIZER;
static sem_t posts, never;
static __thread sigjmp_buf landing;
static __thread unsigned long ticks;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void post(void)
{
	selfcheck_count("sem", "post");
	sem_post(&posts);
}

static void on_tick(int sig)
{
	int saved = errno;

	(void)sig;
	post();
	if (++ticks % 4 == 0) {
		selfcheck_count("signal", "raise");
		raise(SIG_NESTED);
	}
	errno = saved;
}

static void on_nested(int sig)
{
	int saved = errno;

	(void)sig;
	post();
	errno = saved;
}

static void on_jump(int sig)
{
	(void)sig;
	post();
	siglongjmp(landing, 1);
}

static void handle(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask); /* any other of ours may nest in it */
	sa.sa_flags = SA_RESTART;
	sigaction(sig, &sa, NULL);
}

/* A timer that sends SIG_TICK to this thread hz times a second. */
static timer_t start_ticks(void)
{
	struct sigevent sev;
	struct itimerspec its;
	timer_t t;
	long period_ns = (long)(1000000000ul / hz);

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIG_TICK;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &sev, &t) != 0) {
		perror("handlers: timer_create");
		exit(1);
	}
	its.it_interval.tv_sec = period_ns / 1000000000L;
	its.it_interval.tv_nsec = period_ns % 1000000000L;
	its.it_value = its.it_interval;
	timer_settime(t, 0, &its, NULL);
	return t;
}

static void hammer(void)
{
	uint64_t end = now_ns() + run_ms * 1000000ull;
	timer_t t = start_ticks();

	while (now_ns() < end) {
		for (int i = 0; i < 1000; i++) {
			selfcheck_count("mutex", "lock");
			pthread_mutex_lock(&hammered);
			selfcheck_count("mutex", "unlock");
			pthread_mutex_unlock(&hammered);
		}
	}
	timer_delete(t); /* a tick still pending runs later: it is counted all the same */
}

static void jump_out_of_waits(struct worker *w)
{
	/* volatile: the jump comes back into this frame */
	for (volatile unsigned long k = 0; k < nr_jumps; k++) {
		if (sigsetjmp(landing, 1) == 0) {
			__atomic_store_n(&w->waiting, 1, __ATOMIC_RELEASE);
			selfcheck_count("sem", "wait");
			while (sem_wait(&never) != 0) /* EINTR: a late tick */
				selfcheck_count("sem", "wait");
			abort(); /* only the jump leaves it */
		}
		__atomic_store_n(&w->waiting, 0, __ATOMIC_RELEASE);
		__atomic_fetch_add(&w->jumped, 1, __ATOMIC_RELEASE);
	}
}

static void jump_out_of_raises(void)
{
	for (volatile unsigned long k = 0; k < nr_jumps; k++) {
		if (sigsetjmp(landing, 1) == 0) {
			selfcheck_count("signal", "raise");
			raise(SIG_RAISE_JUMP); /* its handler jumps out of it */
			abort();
		}
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	char name[16];

	snprintf(name, sizeof(name), "worker-%d", (int)(w - workers));
	pthread_setname_np(pthread_self(), name);
	w->tid = (pid_t)syscall(SYS_gettid);
	hammer();
	jump_out_of_waits(w);
	jump_out_of_raises();
	selfcheck_thread_done("worker");
	return NULL;
}

/* Whether thread @tid sleeps in the kernel on @sem's futex word. */
static int blocked_on(pid_t tid, const sem_t *sem)
{
	char path[64], line[256];
	unsigned long nr, uaddr;
	FILE *f;
	int yes = 0;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f) && sscanf(line, "%lu %lx", &nr, &uaddr) == 2)
		yes = nr == SYS_futex && uaddr >= (uintptr_t)sem && uaddr < (uintptr_t)sem + sizeof(*sem);
	fclose(f);
	return yes;
}

static void pause_us(long us)
{
	struct timespec ts = { 0, us * 1000 };

	nanosleep(&ts, NULL);
}

/* Phase 2, main's side: wake each worker out of its wait, jumps times. */
static void kick_waiters(void)
{
	for (unsigned long k = 0; k < nr_jumps; k++) {
		for (unsigned long i = 0; i < nr_workers; i++) {
			struct worker *w = &workers[i];

			while (!__atomic_load_n(&w->waiting, __ATOMIC_ACQUIRE) || !blocked_on(w->tid, &never))
				pause_us(50);
			selfcheck_count("signal", "pthread_kill");
			pthread_kill(w->thread, SIG_WAKE_JUMP);
			while (__atomic_load_n(&w->jumped, __ATOMIC_ACQUIRE) < (int)k + 1)
				pause_us(50);
		}
	}
}

int main(int argc, char **argv)
{
	unsigned long *params[] = { &nr_workers, &run_ms, &hz, &nr_jumps };
	const unsigned long lo[] = { 1, 1, 1, 0 }, hi[] = { MAX_WORKERS, 60000, 100000, 1000 };

	for (int i = 1; i < argc; i++)
		if (i > 4 || parse_arg(argv[i], lo[i - 1], hi[i - 1], params[i - 1]) != 0) {
			fprintf(stderr, "usage: handlers [threads=3 (1..32)] [ms=300] [hz=5000] [jumps=20]\n");
			return 2;
		}
	handle(SIG_TICK, on_tick);
	handle(SIG_NESTED, on_nested);
	handle(SIG_WAKE_JUMP, on_jump);
	handle(SIG_RAISE_JUMP, on_jump);
	selfcheck_count("sem", "init");
	sem_init(&posts, 0, 0);
	selfcheck_count("sem", "init");
	sem_init(&never, 0, 0);
	for (unsigned long i = 0; i < nr_workers; i++) {
		selfcheck_count("thread", "create");
		if (pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]) != 0) {
			fprintf(stderr, "handlers: pthread_create failed\n");
			return 1;
		}
	}
	while (1) { /* every tid known before phase 2 needs it */
		unsigned long known = 0;

		for (unsigned long i = 0; i < nr_workers; i++)
			known += __atomic_load_n(&workers[i].tid, __ATOMIC_ACQUIRE) != 0;
		if (known == nr_workers)
			break;
		pause_us(100);
	}
	kick_waiters();
	for (unsigned long i = 0; i < nr_workers; i++) {
		selfcheck_count("thread", "join");
		pthread_join(workers[i].thread, NULL);
	}
	printf("%lu workers: hammered under %lu Hz of handlers for %lu ms, "
	       "jumped out of %lu waits and %lu raises each\n",
	       nr_workers, hz, run_ms, nr_jumps, nr_jumps);
	fflush(stdout);
	selfcheck_count("sem", "destroy");
	sem_destroy(&never);
	selfcheck_count("sem", "destroy");
	sem_destroy(&posts);
	selfcheck_thread_done("main");
	return 0;
}
