/*
 * philosophers - the dining philosophers (seed 001, section 3).
 *
 * Usage: philosophers [N=5] [rounds=80]     (2 <= N <= 200, 1 <= rounds)
 *
 * N philosopher threads ("philo-0".."philo-<N-1>") sit at a round table with
 * one fork (a pthread mutex) between neighbours.  A "butler" POSIX semaphore
 * initialised to N-1 seats keeps at most N-1 of them at the table, so the
 * circular wait cannot close and there is no deadlock.  Each round a
 * philosopher thinks (think(): busy loop, then a short nanosleep), asks the
 * butler for a seat (sem_wait), takes its two forks (pthread_mutex_lock;
 * pthread_mutex_trylock first for the second one), eats (eat(): a longer
 * busy loop holding both forks), puts the forks down and leaves the table
 * (sem_post).  Forks are taken lower index first (the
 * last philosopher takes its right fork first): the butler alone prevents
 * the deadlock, but ThreadSanitizer cannot see that and would report the
 * left-then-right cycle as a lock-order inversion.
 *
 * A run under mtx must show:
 *  - N+1 threads: main (only creates and joins) and the N philosophers;
 *  - N fork mutexes, each used by exactly two philosophers (its neighbours),
 *    every one of them contended (lock calls that block), plus the butler
 *    semaphore, which blocks only when all N-1 seats are taken;
 *  - philosophers dominated by running (eat/think, eat being the hottest
 *    function) and blocked on the forks, with some sleeping (think's
 *    nanosleep); at most N/2 of them eat at the same time.
 * Output: one line per philosopher, "philosopher <i> ate <rounds> times",
 * then the total; the same for the same arguments.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "samples/args.h"
#include "samples/selfcheck.h"

#define THINK_ITERS 150000UL	/* ~0.3 ms */
#define EAT_ITERS 450000UL	/* ~0.9 ms */
#define THINK_SLEEP_NS 200000L

struct philosopher {
	pthread_t thread;
	unsigned int id;
	unsigned long meals;
};

static unsigned int nr_philos;
static unsigned long nr_rounds;
static pthread_mutex_t *forks;
static sem_t butler;

static __attribute__((noinline)) void think(unsigned int id)
{
	struct timespec nap = { 0, THINK_SLEEP_NS };
	volatile unsigned long acc = id;
	unsigned long i;

	for (i = 0; i < THINK_ITERS; i++)
		acc = acc * 31 + i;
	while (nanosleep(&nap, &nap) != 0)
		;
}

static __attribute__((noinline)) void eat(unsigned int id)
{
	volatile unsigned long acc = id;
	unsigned long i;

	for (i = 0; i < EAT_ITERS; i++)
		acc = acc * 17 + (i ^ id);
}

static __attribute__((noinline)) void take_forks(unsigned int first, unsigned int second)
{
	selfcheck_count("sem", "wait");
	while (sem_wait(&butler) != 0)
		selfcheck_count("sem", "wait");
	selfcheck_count("mutex", "lock");
	pthread_mutex_lock(&forks[first]);
	selfcheck_count("mutex", "trylock");
	if (pthread_mutex_trylock(&forks[second]) != 0) {
		selfcheck_count("mutex", "lock");
		pthread_mutex_lock(&forks[second]);
	}
}

static __attribute__((noinline)) void put_forks(unsigned int first, unsigned int second)
{
	selfcheck_count("mutex", "unlock");
	pthread_mutex_unlock(&forks[second]);
	selfcheck_count("mutex", "unlock");
	pthread_mutex_unlock(&forks[first]);
	selfcheck_count("sem", "post");
	sem_post(&butler);
}

static void *philosopher(void *arg)
{
	struct philosopher *p = arg;
	unsigned int left = p->id, right = (p->id + 1) % nr_philos;
	unsigned int first = left < right ? left : right;
	unsigned int second = left < right ? right : left;
	char name[16];
	unsigned long r;

	snprintf(name, sizeof(name), "philo-%u", p->id);
	pthread_setname_np(pthread_self(), name);
	for (r = 0; r < nr_rounds; r++) {
		think(p->id);
		take_forks(first, second);
		eat(p->id);
		p->meals++;
		put_forks(first, second);
	}
	selfcheck_thread_done("philosopher");
	return NULL;
}

int main(int argc, char **argv)
{
	struct philosopher *philos;
	unsigned long n = 5, total = 0;
	unsigned int i;

	nr_rounds = 80;
	if (argc > 3 || (argc > 1 && parse_arg(argv[1], 2, 200, &n)) ||
	    (argc > 2 && parse_arg(argv[2], 1, 1000000, &nr_rounds))) {
		fprintf(stderr, "usage: philosophers [N=5 (2..200)] [rounds=80]\n");
		return 2;
	}
	nr_philos = (unsigned int)n;
	forks = calloc(nr_philos, sizeof(*forks));
	philos = calloc(nr_philos, sizeof(*philos));
	if (!forks || !philos) {
		fprintf(stderr, "philosophers: out of memory\n");
		return 1;
	}
	for (i = 0; i < nr_philos; i++) {
		selfcheck_count("mutex", "init");
		pthread_mutex_init(&forks[i], NULL);
	}
	selfcheck_count("sem", "init");
	sem_init(&butler, 0, nr_philos - 1);

	for (i = 0; i < nr_philos; i++) {
		philos[i].id = i;
		selfcheck_count("thread", "create");
		if (pthread_create(&philos[i].thread, NULL, philosopher, &philos[i]) != 0) {
			fprintf(stderr, "philosophers: pthread_create failed\n");
			return 1;
		}
	}
	for (i = 0; i < nr_philos; i++) {
		selfcheck_count("thread", "join");
		pthread_join(philos[i].thread, NULL);
	}

	for (i = 0; i < nr_philos; i++) {
		printf("philosopher %u ate %lu times\n", i, philos[i].meals);
		total += philos[i].meals;
		selfcheck_count("mutex", "destroy");
		pthread_mutex_destroy(&forks[i]);
	}
	selfcheck_count("sem", "destroy");
	sem_destroy(&butler);
	printf("total %lu meals\n", total);
	fflush(stdout);
	free(forks);
	free(philos);
	selfcheck_thread_done("main");
	return 0;
}
