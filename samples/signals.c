/*
 * signals - threads signalling each other in all the ways Linux offers.
 *
 * Usage: signals [threads=3]     (2 <= threads <= 64)
 *
 * Sender threads ("sender-<i>") meet at a barrier (so that every target is
 * alive), then each, 40 times, sends one signal of each kind:
 *   pthread_kill  SIGUSR1     to the next sender (pthread_kill)
 *   kill          SIGUSR2     to the process (kill(getpid()))
 *   sigqueue      SIGRTMIN    to the process, value = sender index
 *   tgkill        SIGRTMIN+1  to the previous sender (syscall SYS_tgkill)
 *   raise         SIGRTMIN+2  to itself (raise)
 * Between sends a sender works (work(): busy loop).  Only one signal is in
 * flight at a time: a sender takes the "send" mutex, sends, and waits on the
 * "ack" semaphore, which the handler posts (sem_post is async-signal-safe)
 * after counting the signal in an atomic counter.  So no standard signal
 * is ever merged with a pending one, and every count is exact.  The
 * senders meet at the barrier again before leaving; main joins them.
 *
 * A run under mtx must show:
 *  - threads+1 threads: main (creates and joins) and the senders;
 *  - 5*40*threads signals sent, each kind from every sender, kill and
 *    sigqueue delivered to whichever thread the kernel picks, pthread_kill
 *    and tgkill to the named thread, raise to the sender itself;
 *  - a strict sender -> handler (sem_post) -> sender wake-up for every
 *    signal, and the "send" mutex contended by all senders;
 *  - senders split between running work() and blocked on the mutex and
 *    the semaphore; two barrier episodes.
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
static pthread_barrier_t barrier;
static pthread_mutex_t send_lock;
static sem_t ack;
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

static __attribute__((noinline)) void send_one(struct sender *s, enum kind k)
{
	struct sender *next = &senders[(s->id + 1) % nr_senders];
	struct sender *prev = &senders[(s->id + nr_senders - 1) % nr_senders];
	union sigval value = { .sival_int = (int)s->id };
	int sig = kind_signal(k);

	selfcheck_count("mutex", "lock");
	pthread_mutex_lock(&send_lock);
	selfcheck_count("signal", kind_names[k]);
	switch (k) {
	case K_PTHREAD_KILL: pthread_kill(next->self, sig); break;
	case K_KILL: kill(getpid(), sig); break;
	case K_SIGQUEUE: sigqueue(getpid(), sig, value); break;
	case K_TGKILL: syscall(SYS_tgkill, getpid(), prev->tid, sig); break;
	default: raise(sig); break;
	}
	selfcheck_count("sem", "wait");
	while (sem_wait(&ack) != 0)	/* EINTR: our own signal came here */
		selfcheck_count("sem", "wait");
	selfcheck_count("mutex", "unlock");
	pthread_mutex_unlock(&send_lock);
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
	selfcheck_count("barrier", "wait");
	pthread_barrier_wait(&barrier);	/* all tids known, all targets alive */
	for (r = 0; r < ROUNDS; r++) {
		for (k = 0; k < NR_KINDS; k++) {
			work(s->id);
			send_one(s, k);
		}
	}
	selfcheck_count("barrier", "wait");
	pthread_barrier_wait(&barrier);	/* nobody leaves while still a target */
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
	sem_init(&ack, 0, 0);
	selfcheck_count("mutex", "init");
	pthread_mutex_init(&send_lock, NULL);
	selfcheck_count("barrier", "init");
	pthread_barrier_init(&barrier, NULL, nr_senders);

	for (i = 0; i < nr_senders; i++) {
		senders[i].id = i;
		selfcheck_count("thread", "create");
		if (pthread_create(&senders[i].thread, NULL, sender, &senders[i]) != 0) {
			fprintf(stderr, "signals: pthread_create failed\n");
			return 1;
		}
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

	selfcheck_count("barrier", "destroy");
	pthread_barrier_destroy(&barrier);
	selfcheck_count("mutex", "destroy");
	pthread_mutex_destroy(&send_lock);
	selfcheck_count("sem", "destroy");
	sem_destroy(&ack);
	free(senders);
	selfcheck_thread_done("main");
	return 0;
}
