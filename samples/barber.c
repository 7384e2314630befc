/*
 * barber - the sleeping barber (seed 004, from the LTP benchmarks).
 *
 * Usage: barber [customers=20] [chairs=3]    (1 <= customers <= 1000, 1 <= chairs)
 *
 * One barber thread ("barber") and customer threads ("customer-<i>").  A
 * customer arrives after a short walk (nanosleep) and looks at the waiting
 * room (its count is guarded by a pthread mutex): if a chair is free he
 * takes it, writes his number in the room's queue and posts the
 * "customers" semaphore (a named POSIX semaphore, sem_open/sem_close);
 * otherwise he goes away, walks for a while and comes back later, so every
 * customer is eventually served.  The barber tries sem_trywait on
 * "customers" and, finding nobody, falls asleep in sem_wait.  Woken, he
 * takes the first customer from the queue, calls him with the customer's
 * own "turn" semaphore, waits until he sits in the barber's chair (the
 * "seated" semaphore), cuts his hair (cut_hair(): busy loop) and posts
 * "turn" again when done.  A customer waits for his call with
 * sem_timedwait (retried after each 10 ms timeout) and for the end of the
 * haircut with sem_wait.
 *
 * A run under mtx must show:
 *  - customers+2 threads: main, the barber and the customers;
 *  - the barber dominated by running cut_hair() and, between customers,
 *    blocked in sem_wait on "customers" (asleep); customers mostly sleeping
 *    (walking) and blocked on their turn semaphores;
 *  - the waiting-room mutex taken by every customer at each visit and by
 *    the barber once per haircut; a strict barber -> customer -> barber
 *    hand-off on "turn"/"seated" for each haircut;
 *  - some customers visiting more than once (the room full), the exact
 *    number depending on the schedule: only the totals are deterministic.
 * Output: "served <customers> customers" and the barber's haircut count;
 * the same for the same arguments.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "samples/args.h"
#include "samples/selfcheck.h"

#define CUT_ITERS 6000000UL	/* ~11 ms per haircut */
#define SIT_ITERS 50000UL

struct customer {
	pthread_t thread;
	unsigned int id;
	sem_t turn;		/* posted by the barber: "your turn", then "done" */
	int served;
};

static unsigned int nr_customers, nr_chairs;
static struct customer *customers;

static pthread_mutex_t room_lock;	/* waiting, queue */
static unsigned int waiting, queue_head;
static unsigned int *queue;		/* ids of seated customers, FIFO */
static sem_t *customers_sem;		/* named: number of waiting customers */
static sem_t seated;			/* the called customer sits down */
static unsigned long haircuts;

static void nap_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) != 0)
		;
}

static __attribute__((noinline)) void cut_hair(unsigned int id)
{
	volatile unsigned long acc = id;
	unsigned long i;

	for (i = 0; i < CUT_ITERS; i++)
		acc = acc * 31 + i;
}

static __attribute__((noinline)) void sit_down(unsigned int id)
{
	volatile unsigned long acc = id;
	unsigned long i;

	for (i = 0; i < SIT_ITERS; i++)
		acc = acc * 17 + i;
}

static void *barber(void *arg)
{
	unsigned int n;

	(void)arg;
	pthread_setname_np(pthread_self(), "barber");
	for (n = 0; n < nr_customers; n++) {
		struct customer *c;

		selfcheck_count("sem", "trywait");
		if (sem_trywait(customers_sem) != 0) {
			/* Nobody waiting: sleep until a customer comes. */
			selfcheck_count("sem", "wait");
			while (sem_wait(customers_sem) != 0)
				selfcheck_count("sem", "wait");
		}
		selfcheck_count("mutex", "lock");
		pthread_mutex_lock(&room_lock);
		c = &customers[queue[queue_head++ % nr_chairs]];
		waiting--;
		selfcheck_count("mutex", "unlock");
		pthread_mutex_unlock(&room_lock);

		selfcheck_count("sem", "post");
		sem_post(&c->turn);		/* next, please */
		selfcheck_count("sem", "wait");
		while (sem_wait(&seated) != 0)
			selfcheck_count("sem", "wait");
		cut_hair(c->id);
		haircuts++;
		selfcheck_count("sem", "post");
		sem_post(&c->turn);		/* done */
	}
	selfcheck_thread_done("barber");
	return NULL;
}

static void *customer(void *arg)
{
	struct customer *c = arg;
	struct timespec deadline;
	unsigned int visit;
	char name[16];

	snprintf(name, sizeof(name), "customer-%u", c->id);
	pthread_setname_np(pthread_self(), name);
	nap_us(1000L * (c->id % 10) + 500);
	for (visit = 0;; visit++) {
		int seat;

		selfcheck_count("mutex", "lock");
		pthread_mutex_lock(&room_lock);
		seat = waiting < nr_chairs;
		if (seat) {
			queue[(queue_head + waiting++) % nr_chairs] = c->id;
			selfcheck_count("sem", "post");
			sem_post(customers_sem);
		}
		selfcheck_count("mutex", "unlock");
		pthread_mutex_unlock(&room_lock);
		if (seat)
			break;
		nap_us(3000L + 1000L * ((c->id + visit) % 5));	/* come back later */
	}

	do {
		clock_gettime(CLOCK_REALTIME, &deadline);
		deadline.tv_nsec += 10000000L;
		if (deadline.tv_nsec >= 1000000000L) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000L;
		}
		selfcheck_count("sem", "timedwait");
	} while (sem_timedwait(&c->turn, &deadline) != 0);
	sit_down(c->id);
	selfcheck_count("sem", "post");
	sem_post(&seated);
	selfcheck_count("sem", "wait");
	while (sem_wait(&c->turn) != 0)
		selfcheck_count("sem", "wait");
	c->served = 1;
	selfcheck_thread_done("customer");
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long n = 20, chairs = 3, served = 0;
	char sem_name[64];
	pthread_t barber_thread;
	unsigned int i;

	if (argc > 3 || (argc > 1 && parse_arg(argv[1], 1, 1000, &n)) ||
	    (argc > 2 && parse_arg(argv[2], 1, 1000, &chairs))) {
		fprintf(stderr, "usage: barber [customers=20 (1..1000)] [chairs=3 (1..1000)]\n");
		return 2;
	}
	nr_customers = (unsigned int)n;
	nr_chairs = (unsigned int)chairs;
	customers = calloc(nr_customers, sizeof(*customers));
	queue = calloc(nr_chairs, sizeof(*queue));
	if (!customers || !queue) {
		fprintf(stderr, "barber: out of memory\n");
		return 1;
	}

	snprintf(sem_name, sizeof(sem_name), "/mtx-barber-%d", (int)getpid());
	selfcheck_count("sem", "open");
	customers_sem = sem_open(sem_name, O_CREAT | O_EXCL, 0600, 0);
	if (customers_sem == SEM_FAILED) {
		perror("barber: sem_open");
		return 1;
	}
	sem_unlink(sem_name);	/* the name is not needed once open */
	selfcheck_count("sem", "init");
	sem_init(&seated, 0, 0);
	selfcheck_count("mutex", "init");
	pthread_mutex_init(&room_lock, NULL);

	selfcheck_count("thread", "create");
	if (pthread_create(&barber_thread, NULL, barber, NULL) != 0)
		goto fail;
	for (i = 0; i < nr_customers; i++) {
		customers[i].id = i;
		selfcheck_count("sem", "init");
		sem_init(&customers[i].turn, 0, 0);
		selfcheck_count("thread", "create");
		if (pthread_create(&customers[i].thread, NULL, customer, &customers[i]) != 0)
			goto fail;
	}
	for (i = 0; i < nr_customers; i++) {
		selfcheck_count("thread", "join");
		pthread_join(customers[i].thread, NULL);
		served += (unsigned long)customers[i].served;
	}
	selfcheck_count("thread", "join");
	pthread_join(barber_thread, NULL);
	for (i = 0; i < nr_customers; i++) {
		selfcheck_count("sem", "destroy");
		sem_destroy(&customers[i].turn);
	}

	printf("served %lu customers\n", served);
	printf("barber cut %lu heads\n", haircuts);
	fflush(stdout);

	selfcheck_count("mutex", "destroy");
	pthread_mutex_destroy(&room_lock);
	selfcheck_count("sem", "destroy");
	sem_destroy(&seated);
	selfcheck_count("sem", "close");
	sem_close(customers_sem);
	free(customers);
	free(queue);
	selfcheck_thread_done("main");
	return 0;
fail:
	fprintf(stderr, "barber: pthread_create failed\n");
	return 1;
}
