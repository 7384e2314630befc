/*
 * signals - threads signalling each other in all the ways Linux offers.
 *
 * Usage: signals [threads=3]     (2 <= threads <= 64)
 *
 * Sender threads ("sender-<i>") report "ready" and wait for main's "go"
 * (semaphores; so that every target is alive and known), then each, 40 times, sends one signal of each kind:
 *   pthread_kill  SIGUSR1     to the next sender (pthread_kill)
 *   kill          SIGUSR2     to the process (kill(getpid()))
 *   sigqueue      SIGRTMIN    to the process, value = sender index
 *   tgkill        SIGRTMIN+1  to the previous sender (glibc tgkill)
 *   raise         SIGRTMIN+2  to itself (raise)
 * Between sends a sender works (work(): busy loop).  Only one signal is in
 * flight at a time: a sender takes the "send" semaphore (a binary one),
 * sends, and waits on the "ack" semaphore, which the handler posts
 * (sem_post is async-signal-safe) after counting the signal in an atomic
 * counter.  So no standard signal is ever merged with a pending one, and
 * every count is exact.  At the end each sender posts "finished" and waits
 * on "leave" until main, having collected all the "finished" posts, lets
 * them go; main then joins them.  While signals fly, every thread that
 * can be a target waits only in sem_wait: ThreadSanitizer delivers a signal
 * to a thread blocked in pthread_mutex_lock or pthread_barrier_wait only
 * when that call returns, which here would never happen.
 *
 * A run under mtx must show:
 *  - threads+1 threads: main (creates and joins) and the senders;
 *  - 5*40*threads signals sent, each kind from every sender, kill and
 *    sigqueue delivered to whichever thread the kernel picks, pthread_kill
 *    and tgkill to the named thread, raise to the sender itself;
 *  - a strict sender -> handler (sem_post) -> sender wake-up for every
 *    signal, and the "send" semaphore contended by all senders;
 *  - senders split between running work() and blocked on the semaphores;
 *    main blocked in sem_wait on "finished" (it, too, runs the handler for
 *    some of the process-directed signals).
 * Output: signals received per kind (and a check of the sigqueue values);
 * the same for the same arguments.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "samples/selfcheck.h"

#define ROUNDS 40
#define WORK_ITERS 150000UL	/* ~0.3 ms */

enum kind { K_PTHREAD_KILL, K_KILL, K_SIGQUEUE, K_TGKILL, K_RAISE, NR_KINDS };
static const char *const kind_names[NR_KINDS] = {
	"pthread_kill", "kill", "sigqueue", "tgkill", "raise"
};

struct sender {
	pthread_t thread;	/* main's handle, for pthread_join */
	pthread_t self;		/* set by the sender itself, for pthread_kill */
	unsigned int id;
	pid_t tid;
};

static unsigned int nr_senders;
static struct sender *senders;
static sem_t ready, go, send_turn, ack, finished, leave;
static unsigned long received[NR_KINDS];	/* atomic */
static unsigned long bad_values;		/* atomic */

static int kind_signal(enum kind k)
{
	switch (k) {
	case K_PTHREAD_KILL: return SIGUSR1;
	case K_KILL: return SIGUSR2;
	case K_SIGQUEUE: return SIGRTMIN;
	case K_TGKILL: return SIGRTMIN + 1;
	default: return SIGRTMIN + 2;
	}
}

static void on_signal(int sig, siginfo_t *info, void *uctx)
{
	enum kind k;
	int saved_errno = errno;

	(void)uctx;
	for (k = 0; k < NR_KINDS; k++)
		if (kind_signal(k) == sig)
			break;
	if (k == K_SIGQUEUE &&
	    (info->si_code != SI_QUEUE || (unsigned int)info->si_value.sival_int >= nr_senders))
		__atomic_fetch_add(&bad_values, 1, __ATOMIC_RELAXED);
	if (k < NR_KINDS)
		__atomic_fetch_add(&received[k], 1, __ATOMIC_RELAXED);
	selfcheck_count("sem", "post");
	sem_post(&ack);
	errno = saved_errno;
}

static __attribute__((noinline)) void work(unsigned int id)
{
	volatile unsigned long acc = id;
	unsigned long i;

	for (i = 0; i < WORK_ITERS; i++)
		acc = acc * 31 + i;
}

/* Wait on @sem, retrying when a signal handler interrupts the wait. */
static void sem_wait_intr(sem_t *sem)
{
	selfcheck_count("sem", "wait");
	while (sem_wait(sem) != 0)
		selfcheck_count("sem", "wait");
}

static __attribute__((noinline)) void send_one(struct sender *s, enum kind k)
{
	struct sender *next = &senders[(s->id + 1) % nr_senders];
	struct sender *prev = &senders[(s->id + nr_senders - 1) % nr_senders];
	union sigval value = { .sival_int = (int)s->id };
	int sig = kind_signal(k);

	sem_wait_intr(&send_turn);
	selfcheck_count("signal", kind_names[k]);
	switch (k) {
	case K_PTHREAD_KILL: pthread_kill(next->self, sig); break;
	case K_KILL: kill(getpid(), sig); break;
	case K_SIGQUEUE: sigqueue(getpid(), sig, value); break;
	case K_TGKILL: tgkill(getpid(), prev->tid, sig); break;
	default: raise(sig); break;
	}
	sem_wait_intr(&ack);	/* EINTR when the signal came to us */
	selfcheck_count("sem", "post");
	sem_post(&send_turn);
}

static void *sender(void *arg)
{
	struct sender *s = arg;
	char name[16];
	int r;
	enum kind k;

	snprintf(name, sizeof(name), "sender-%u", s->id);
	pthread_setname_np(pthread_self(), name);
	s->self = pthread_self();
	s->tid = (pid_t)syscall(SYS_gettid);
	selfcheck_count("sem", "post");
	sem_post(&ready);
	sem_wait_intr(&go);	/* all tids known, all targets alive */
	for (r = 0; r < ROUNDS; r++) {
		for (k = 0; k < NR_KINDS; k++) {
			work(s->id);
			send_one(s, k);
		}
	}
	selfcheck_count("sem", "post");
	sem_post(&finished);
	sem_wait_intr(&leave);	/* nobody leaves while still a target */
	selfcheck_thread_done("sender");
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	unsigned long n = 3;
	unsigned int i;
	enum kind k;

	if (argc > 1) {
		char *end;

		errno = 0;
		n = strtoul(argv[1], &end, 10);
		if (argc > 2 || errno || end == argv[1] || *end || argv[1][0] == '-' || n < 2 || n > 64) {
			fprintf(stderr, "usage: signals [threads=3 (2..64)]\n");
			return 2;
		}
	}
	nr_senders = (unsigned int)n;
	senders = calloc(nr_senders, sizeof(*senders));
	if (!senders) {
		fprintf(stderr, "signals: out of memory\n");
		return 1;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (k = 0; k < NR_KINDS; k++)
		sigaction(kind_signal(k), &sa, NULL);

	selfcheck_count("sem", "init");
	sem_init(&send_turn, 0, 1);
	selfcheck_count("sem", "init");
	sem_init(&ack, 0, 0);
	selfcheck_count("sem", "init");
	sem_init(&finished, 0, 0);
	selfcheck_count("sem", "init");
	sem_init(&leave, 0, 0);
	selfcheck_count("sem", "init");
	sem_init(&ready, 0, 0);
	selfcheck_count("sem", "init");
	sem_init(&go, 0, 0);

	for (i = 0; i < nr_senders; i++) {
		senders[i].id = i;
		selfcheck_count("thread", "create");
		if (pthread_create(&senders[i].thread, NULL, sender, &senders[i]) != 0) {
			fprintf(stderr, "signals: pthread_create failed\n");
			return 1;
		}
	}
	for (i = 0; i < nr_senders; i++)
		sem_wait_intr(&ready);
	for (i = 0; i < nr_senders; i++) {
		selfcheck_count("sem", "post");
		sem_post(&go);
	}
	for (i = 0; i < nr_senders; i++)
		sem_wait_intr(&finished);
	for (i = 0; i < nr_senders; i++) {
		selfcheck_count("sem", "post");
		sem_post(&leave);
	}
	for (i = 0; i < nr_senders; i++) {
		selfcheck_count("thread", "join");
		pthread_join(senders[i].thread, NULL);
	}

	for (k = 0; k < NR_KINDS; k++)
		printf("%s sent %lu received %lu\n", kind_names[k],
		       (unsigned long)ROUNDS * nr_senders, received[k]);
	printf("sigqueue bad values %lu\n", bad_values);
	fflush(stdout);

	selfcheck_count("sem", "destroy");
	sem_destroy(&go);
	selfcheck_count("sem", "destroy");
	sem_destroy(&ready);
	selfcheck_count("sem", "destroy");
	sem_destroy(&leave);
	selfcheck_count("sem", "destroy");
	sem_destroy(&finished);
	selfcheck_count("sem", "destroy");
	sem_destroy(&ack);
	selfcheck_count("sem", "destroy");
	sem_destroy(&send_turn);
	free(senders);
	selfcheck_thread_done("main");
	return 0;
}
