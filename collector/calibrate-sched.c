/*
 * collector/calibrate-sched.c - what the scheduler costs at a context
 * switch, measured as seed 004 §4.2 does it, for the simulation of mtx
 * probe-effect (SEEDS-MAP P4 adds it at every switch; P8 is this file).
 *
 * Two threads pinned to one CPU. A high-priority waiter blocks on a
 * semaphore and a low-priority poster posts it; since the waiter outranks
 * the poster, the post wakes it and switches to it. A round times:
 *   - the post with a waiter, from the poster's call to the waiter's
 *     return from sem_wait;
 *   - a post of another semaphore that no one waits on, from call to return.
 * Both intervals hold one clock read and the post's own work. Their
 * difference is the wakeup and the switch. The figure is the median of
 * the first minus the median of the second: a round that an interrupt or
 * another task lengthens moves neither median.
 *
 * The classes: SCHED_FIFO 99 and 98 when mtx may use them (root,
 * CAP_SYS_NICE or RLIMIT_RTPRIO), so that the waiter runs as soon as it is
 * woken, and no program's real-time thread on that CPU keeps either off
 * it: each collection calibrates at its start, for a few milliseconds,
 * and at 90 and 10 a busy SCHED_FIFO program at 10 or more on that CPU
 * (test-probe-oracle's, in a parallel test) would hold the poster off
 * for as long as it ran. Otherwise SCHED_OTHER at nice -20 and 19. Lowering nice needs the
 * same privilege, so without it the waiter keeps the nice it inherited;
 * the result names the nice values the threads really had. Under
 * SCHED_OTHER the waker is usually preempted, but not always. A round
 * counts only when the waiter really slept (its voluntary context switches,
 * getrusage(RUSAGE_THREAD), rose across sem_wait) and ran before the post
 * returned. The other rounds are discarded, and their number is reported.
 */
#include "config.h"
#include "collector/calibrate-sched.h"
#include "src/clock.h"
#include "src/log.h"
#include "src/timefmt.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { WAITER, POSTER };

static const int fifo_prio[2] = { [WAITER] = 99, [POSTER] = 98 };
static const int other_nice[2] = { [WAITER] = -20, [POSTER] = 19 };

/* What the two threads share. Round i's stamps and verdicts are written
 * by one thread each and read after both are joined. */
struct two_tasks {
	sem_t wake;  /* the waiter blocks on it */
	sem_t alone; /* no one ever waits on it */
	unsigned rounds;
	int policy;
	int nice[2];       /* SCHED_OTHER: asked for, then what each thread got */
	uint64_t *post_ns; /* the poster: just before posting wake */
	uint64_t *woken_ns; /* the waiter: just after its sem_wait returned */
	uint64_t *alone_ns; /* the poster: a post of alone, call to return */
	bool *slept;        /* the waiter blocked in round i's wait */
	bool *prompt;       /* the waiter ran before the poster's post returned */
	unsigned ready;     /* i + 1: the waiter is about to wait in round i */
	unsigned woken;     /* i + 1: the waiter returned from round i's wait */
	bool quit;          /* the poster could not be made: the waiter stops */
};

static pid_t this_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* Under SCHED_OTHER, ask for this thread's nice, and keep the one it has:
 * lowering nice may be refused. */
static void take_nice(struct two_tasks *t, int who)
{
	if (t->policy != SCHED_OTHER)
		return;
	setpriority(PRIO_PROCESS, (id_t)this_tid(), t->nice[who]);
	t->nice[who] = getpriority(PRIO_PROCESS, (id_t)this_tid());
}

static long voluntary_switches(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_nvcsw;
}

static void *waiter_main(void *arg)
{
	struct two_tasks *t = arg;

	take_nice(t, WAITER);
	for (unsigned i = 0; i < t->rounds; i++) {
		long before = voluntary_switches();

		__atomic_store_n(&t->ready, i + 1, __ATOMIC_RELEASE);
		while (sem_wait(&t->wake) && errno == EINTR)
			;
		t->woken_ns[i] = clock_now_ns();
		__atomic_store_n(&t->woken, i + 1, __ATOMIC_RELEASE);
		if (__atomic_load_n(&t->quit, __ATOMIC_ACQUIRE))
			break;
		t->slept[i] = before >= 0 && voluntary_switches() > before;
	}
	return NULL;
}

static void *poster_main(void *arg)
{
	struct two_tasks *t = arg;

	take_nice(t, POSTER);
	for (unsigned i = 0; i < t->rounds; i++) {
		uint64_t t0;

		/* On one CPU with FIFO the waiter is always there first;
		 * under SCHED_OTHER it may need the CPU back. */
		while (__atomic_load_n(&t->ready, __ATOMIC_ACQUIRE) != i + 1)
			sched_yield();
		t0 = clock_now_ns();
		sem_post(&t->alone);
		t->alone_ns[i] = clock_now_ns() - t0;
		sem_trywait(&t->alone);
		t->post_ns[i] = clock_now_ns();
		sem_post(&t->wake);
		t->prompt[i] = __atomic_load_n(&t->woken, __ATOMIC_ACQUIRE) == i + 1;
	}
	return NULL;
}

/* The lowest CPU this thread may run on, or -1. */
static int first_allowed_cpu(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			return cpu;
	return -1;
}

/* Thread attributes: pinned to @cpu, @policy at @prio (SCHED_OTHER: 0),
 * never inherited from the caller, whose class may be real-time. */
static int task_attr(pthread_attr_t *attr, int cpu, int policy, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	cpu_set_t one;
	int rc;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if ((rc = pthread_attr_init(attr)))
		return -rc;
	rc = pthread_attr_setaffinity_np(attr, sizeof(one), &one);
	if (!rc)
		rc = pthread_attr_setinheritsched(attr, PTHREAD_EXPLICIT_SCHED);
	if (!rc)
		rc = pthread_attr_setschedpolicy(attr, policy);
	if (!rc)
		rc = pthread_attr_setschedparam(attr, &sp);
	if (rc)
		pthread_attr_destroy(attr);
	return -rc;
}

/* Start the two threads under @policy (anew: the rounds' verdicts
 * cleared) and wait for them to finish. 0, or -errno from pthread_create (-EPERM: @policy is not permitted). */
static int run_two_tasks(struct two_tasks *t, int cpu, int policy)
{
	pthread_attr_t attr[2];
	pthread_t tid[2];
	int rc;

	t->policy = policy;
	t->ready = t->woken = 0;
	t->quit = false;
	memset(t->slept, 0, t->rounds * sizeof(bool));
	memset(t->prompt, 0, t->rounds * sizeof(bool));
	for (int who = WAITER; who <= POSTER; who++) {
		t->nice[who] = other_nice[who];
		rc = task_attr(&attr[who], cpu, policy, policy == SCHED_FIFO ? fifo_prio[who] : 0);
		if (rc) {
			if (who == POSTER)
				pthread_attr_destroy(&attr[WAITER]);
			return rc;
		}
	}
	/* The waiter first: it blocks at once, so a real-time poster never
	 * spins waiting for it on their CPU. */
	rc = -pthread_create(&tid[WAITER], &attr[WAITER], waiter_main, t);
	if (!rc) {
		rc = -pthread_create(&tid[POSTER], &attr[POSTER], poster_main, t);
		if (rc) {
			__atomic_store_n(&t->quit, true, __ATOMIC_RELEASE);
			sem_post(&t->wake);
		} else {
			pthread_join(tid[POSTER], NULL);
		}
		pthread_join(tid[WAITER], NULL);
	}
	pthread_attr_destroy(&attr[WAITER]);
	pthread_attr_destroy(&attr[POSTER]);
	return rc;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static uint64_t median(uint64_t *v, unsigned n)
{
	qsort(v, n, sizeof(v[0]), cmp_u64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Fill @c from the rounds of @t: 0, or -EAGAIN when there is no clear
 * figure. The counted rounds' intervals are gathered into @t's arrays. */
static int summarize(struct two_tasks *t, struct mtx_sched_cost *c)
{
	unsigned n = 0;

	for (unsigned i = 0; i < t->rounds; i++) {
		if (!t->slept[i] || !t->prompt[i] || t->woken_ns[i] < t->post_ns[i])
			continue;
		/* in place: n <= i */
		t->woken_ns[n] = t->woken_ns[i] - t->post_ns[i];
		t->alone_ns[n] = t->alone_ns[i];
		n++;
	}
	c->rounds = n;
	c->discarded = t->rounds - n;
	if (n == 0 || n < t->rounds / 2)
		return -EAGAIN;
	c->post_waiter_ns = median(t->woken_ns, n);
	c->post_alone_ns = median(t->alone_ns, n);
	if (c->post_waiter_ns <= c->post_alone_ns)
		return -EAGAIN;
	c->switch_ns = c->post_waiter_ns - c->post_alone_ns;
	return 0;
}

int calibrate_sched_cost(struct mtx_sched_cost *c, unsigned rounds)
{
	struct two_tasks t = { .rounds = rounds };
	int rc;

	memset(c, 0, sizeof(*c));
	if (rounds == 0)
		return -EINVAL;
	c->cpu = first_allowed_cpu();
	if (c->cpu < 0)
		return -ESRCH;
	t.post_ns = calloc(rounds, sizeof(uint64_t));
	t.woken_ns = calloc(rounds, sizeof(uint64_t));
	t.alone_ns = calloc(rounds, sizeof(uint64_t));
	t.slept = calloc(rounds, sizeof(bool));
	t.prompt = calloc(rounds, sizeof(bool));
	rc = -ENOMEM;
	if (!t.post_ns || !t.woken_ns || !t.alone_ns || !t.slept || !t.prompt)
		goto out;
	if (sem_init(&t.wake, 0, 0) || sem_init(&t.alone, 0, 0)) {
		rc = -errno;
		goto out;
	}
	rc = run_two_tasks(&t, c->cpu, SCHED_FIFO);
	if (rc == -EPERM)
		rc = run_two_tasks(&t, c->cpu, SCHED_OTHER);
	if (!rc) {
		c->policy = t.policy;
		c->waiter_prio = t.policy == SCHED_FIFO ? fifo_prio[WAITER] : t.nice[WAITER];
		c->poster_prio = t.policy == SCHED_FIFO ? fifo_prio[POSTER] : t.nice[POSTER];
		rc = summarize(&t, c);
	}
	sem_destroy(&t.wake);
	sem_destroy(&t.alone);
out:
	free(t.post_ns);
	free(t.woken_ns);
	free(t.alone_ns);
	free(t.slept);
	free(t.prompt);
	return rc;
}

char *calibrate_sched_how(const struct mtx_sched_cost *c)
{
	char waiter[32], alone[32], discarded[48] = "", *how;

	if (c->discarded)
		snprintf(discarded, sizeof(discarded), ", %u round%s discarded", c->discarded, plural_s(c->discarded));
	if (asprintf(&how, "post with waiter %s - post without %s; 2 threads pinned to cpu %d, %s %s%d/%d; n=%u%s",
		     timefmt_duration(c->post_waiter_ns, waiter, sizeof(waiter)),
		     timefmt_duration(c->post_alone_ns, alone, sizeof(alone)), c->cpu,
		     c->policy == SCHED_FIFO ? "SCHED_FIFO" : "SCHED_OTHER", c->policy == SCHED_FIFO ? "" : "nice ",
		     c->waiter_prio, c->poster_prio, c->rounds, discarded) < 0)
		return NULL;
	return how;
}

void calibrate_sched_meta(struct mtx_writer *w)
{
	struct mtx_sched_cost c;
	char *how;

	if (calibrate_sched_cost(&c, CALIBRATE_SCHED_ROUNDS_AT_START))
		return;
	writer_meta_int(w, "cal_sched_switch_ns", (int64_t)c.switch_ns);
	if ((how = calibrate_sched_how(&c)))
		writer_meta(w, "cal_sched_switch_how", how);
	free(how);
}
