/*
 * tests/unit/preload-workload.c - a program that makes every call
 * libmtx-preload.so interposes, counting each with samples/selfcheck.h, so
 * tests/unit/test-preload.c can compare the trace with the truth.
 *
 * Usage: preload-workload [short_threads=300]
 *
 * Covers what the samples do not all cover: every rwlock and spinlock form,
 * C11 mtx/cnd/thrd, named and unnamed semaphores, all five ways to send a
 * signal (handlers count their sem_post), barriers, pthread_exit and detach,
 * a fork whose child traces its own operations, and many short threads in a
 * row (lanes must be reused). Output and exit status are deterministic.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

#include "samples/selfcheck.h"

#define C(kind, op) selfcheck_count(kind, op)

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw;
static pthread_spinlock_t spin;
static pthread_cond_t cv;
static pthread_barrier_t bar;
static sem_t ack;
static long shared_total;
static volatile sig_atomic_t handled;
static int short_done; /* atomic; not a traced lock, so it is not counted */

static void on_signal(int sig)
{
	(void)sig;
	handled++;
	C("sem", "post");
	sem_post(&ack);
}

static struct timespec soon(long ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += ns;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

static void wait_ack(void)
{
	for (;;) {
		C("sem", "wait");
		if (sem_wait(&ack) == 0)
			return;
		if (errno != EINTR)
			abort();
	}
}

static void *worker(void *arg)
{
	long id = (long)arg;
	struct timespec ts;

	for (int i = 0; i < 2000; i++) {
		C("mutex", "lock");
		pthread_mutex_lock(&m);
		shared_total++;
		C("mutex", "unlock");
		pthread_mutex_unlock(&m);

		C("rwlock", i % 3 ? "rdlock" : "wrlock");
		if (i % 3)
			pthread_rwlock_rdlock(&rw);
		else
			pthread_rwlock_wrlock(&rw);
		C("rwlock", "unlock");
		pthread_rwlock_unlock(&rw);

		C("spinlock", "lock");
		pthread_spin_lock(&spin);
		C("spinlock", "unlock");
		pthread_spin_unlock(&spin);
	}
	C("mutex", "trylock");
	if (pthread_mutex_trylock(&m) == 0) {
		C("mutex", "unlock");
		pthread_mutex_unlock(&m);
	}
	ts = soon(1000000);
	C("mutex", "timedlock");
	if (pthread_mutex_timedlock(&m, &ts) == 0) {
		C("mutex", "unlock");
		pthread_mutex_unlock(&m);
	}
	C("rwlock", "tryrdlock");
	if (pthread_rwlock_tryrdlock(&rw) == 0) {
		C("rwlock", "unlock");
		pthread_rwlock_unlock(&rw);
	}
	C("rwlock", "trywrlock");
	if (pthread_rwlock_trywrlock(&rw) == 0) {
		C("rwlock", "unlock");
		pthread_rwlock_unlock(&rw);
	}
	ts = soon(1000000);
	C("rwlock", "timedrdlock");
	if (pthread_rwlock_timedrdlock(&rw, &ts) == 0) {
		C("rwlock", "unlock");
		pthread_rwlock_unlock(&rw);
	}
	ts = soon(1000000);
	C("rwlock", "timedwrlock");
	if (pthread_rwlock_timedwrlock(&rw, &ts) == 0) {
		C("rwlock", "unlock");
		pthread_rwlock_unlock(&rw);
	}
	C("spinlock", "trylock");
	if (pthread_spin_trylock(&spin) == 0) {
		C("spinlock", "unlock");
		pthread_spin_unlock(&spin);
	}
	C("barrier", "wait");
	pthread_barrier_wait(&bar);

	/* condvar: worker 0 waits until worker 1 sets the flag */
	static int flag;
	C("mutex", "lock");
	pthread_mutex_lock(&m);
	if (id == 0) {
		while (!flag) {
			C("cond", "wait");
			pthread_cond_wait(&cv, &m);
		}
		ts = soon(100000);
		C("cond", "timedwait");
		pthread_cond_timedwait(&cv, &m, &ts); /* times out */
	} else {
		flag = 1;
		C("cond", "broadcast");
		pthread_cond_broadcast(&cv);
		C("cond", "signal");
		pthread_cond_signal(&cv);
	}
	C("mutex", "unlock");
	pthread_mutex_unlock(&m);

	selfcheck_thread_done("worker");
	return NULL;
}

static void *exiter(void *arg)
{
	(void)arg;
	C("thread", "exit");
	selfcheck_thread_done("exiter");
	pthread_exit(NULL);
}

static void *short_thread(void *arg)
{
	(void)arg;
	C("mutex", "lock");
	pthread_mutex_lock(&m);
	shared_total++;
	C("mutex", "unlock");
	pthread_mutex_unlock(&m);
	selfcheck_thread_done("short");
	__atomic_fetch_add(&short_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* C11 */
static mtx_t cm;
static cnd_t cc;
static int c11_ready;

static int c11_thread(void *arg)
{
	(void)arg;
	C("mutex", "lock");
	mtx_lock(&cm);
	c11_ready = 1;
	C("cond", "signal");
	cnd_signal(&cc);
	C("mutex", "unlock");
	mtx_unlock(&cm);
	selfcheck_thread_done("c11");
	return 7;
}

static void c11_part(void)
{
	thrd_t t;
	int res = 0;
	struct timespec ts;

	C("mutex", "init");
	mtx_init(&cm, mtx_timed);
	C("cond", "init");
	cnd_init(&cc);
	C("thread", "create");
	thrd_create(&t, c11_thread, NULL);
	C("mutex", "lock");
	mtx_lock(&cm);
	while (!c11_ready) {
		C("cond", "wait");
		cnd_wait(&cc, &cm);
	}
	ts = soon(100000);
	C("cond", "timedwait");
	cnd_timedwait(&cc, &cm, &ts);
	C("cond", "broadcast");
	cnd_broadcast(&cc);
	C("mutex", "unlock");
	mtx_unlock(&cm);
	C("mutex", "trylock");
	if (mtx_trylock(&cm) == thrd_success) {
		C("mutex", "unlock");
		mtx_unlock(&cm);
	}
	ts = soon(100000);
	C("mutex", "timedlock");
	if (mtx_timedlock(&cm, &ts) == thrd_success) {
		C("mutex", "unlock");
		mtx_unlock(&cm);
	}
	C("thread", "join");
	thrd_join(t, &res);
	printf("c11 thread returned %d\n", res);
	C("mutex", "destroy");
	mtx_destroy(&cm);
	C("cond", "destroy");
	cnd_destroy(&cc);
}

static void signal_part(void)
{
	union sigval v = { .sival_int = 1 };
	struct sigaction sa = { 0 };
	sem_t *named;
	char name[64];

	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, NULL);
	for (int i = 0; i < 20; i++) {
		C("signal", "raise");
		raise(SIGUSR1);
		wait_ack();
		C("signal", "kill");
		kill(getpid(), SIGUSR1);
		wait_ack();
		C("signal", "tgkill");
		tgkill(getpid(), gettid(), SIGUSR1);
		wait_ack();
		C("signal", "pthread_kill");
		pthread_kill(pthread_self(), SIGUSR1);
		wait_ack();
		C("signal", "sigqueue");
		sigqueue(getpid(), SIGUSR1, v);
		wait_ack();
	}
	printf("signals handled %d\n", (int)handled);

	snprintf(name, sizeof(name), "/mtx-workload-%d", (int)getpid());
	C("sem", "open");
	named = sem_open(name, O_CREAT | O_EXCL, 0600, 2);
	if (named == SEM_FAILED)
		abort();
	sem_unlink(name);
	C("sem", "trywait");
	sem_trywait(named);
	struct timespec ts = soon(100000);
	C("sem", "timedwait");
	sem_timedwait(named, &ts);
	C("sem", "timedwait");
	ts = soon(100000);
	sem_timedwait(named, &ts); /* value 0 now: times out */
	C("sem", "post");
	sem_post(named);
	C("sem", "close");
	sem_close(named);
}

int main(int argc, char **argv)
{
	int nshort = argc > 1 ? atoi(argv[1]) : 300;
	pthread_t w[2], t;
	pid_t child;
	int status;

	C("rwlock", "init");
	pthread_rwlock_init(&rw, NULL);
	C("spinlock", "init");
	pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
	C("cond", "init");
	pthread_cond_init(&cv, NULL);
	C("barrier", "init");
	pthread_barrier_init(&bar, NULL, 2);
	C("sem", "init");
	sem_init(&ack, 0, 0);

	for (long i = 0; i < 2; i++) {
		C("thread", "create");
		pthread_create(&w[i], NULL, worker, (void *)i);
	}
	for (int i = 0; i < 2; i++) {
		C("thread", "join");
		pthread_join(w[i], NULL);
	}
	printf("total after workers %ld\n", shared_total);

	C("thread", "create");
	pthread_create(&t, NULL, exiter, NULL);
	C("thread", "join");
	pthread_join(t, NULL);

	/* many short threads in a row: lanes must be recycled */
	for (int i = 0; i < nshort; i++) {
		C("thread", "create");
		pthread_create(&t, NULL, short_thread, NULL);
		if (i % 2) {
			C("thread", "detach");
			pthread_detach(t);
		} else {
			C("thread", "join");
			pthread_join(t, NULL);
		}
	}

	/* let the detached short threads finish (before fork: none may hold m) */
	while (__atomic_load_n(&short_done, __ATOMIC_ACQUIRE) < nshort)
		usleep(1000);

	c11_part();
	signal_part();

	fflush(stdout);
	child = fork();
	if (child == 0) {
		selfcheck_reset();
		for (int i = 0; i < 100; i++) {
			C("mutex", "lock");
			pthread_mutex_lock(&m);
			C("mutex", "unlock");
			pthread_mutex_unlock(&m);
		}
		selfcheck_thread_done("child");
		_exit(5);
	}
	waitpid(child, &status, 0);
	printf("child exit %d\n", WEXITSTATUS(status));

	printf("total %ld\n", shared_total);

	C("barrier", "destroy");
	pthread_barrier_destroy(&bar);
	C("cond", "destroy");
	pthread_cond_destroy(&cv);
	C("spinlock", "destroy");
	pthread_spin_destroy(&spin);
	C("rwlock", "destroy");
	pthread_rwlock_destroy(&rw);
	C("sem", "destroy");
	sem_destroy(&ack);
	C("mutex", "destroy");
	pthread_mutex_destroy(&m);
	selfcheck_thread_done("main");
	return 3;
}
