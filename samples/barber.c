/*
 * barber - the sleeping barber (seed 004, from the LTP benchmarks).
 *
 * Usage: barber [customers=20] [chairs=3]    (1 <= customers <= 1000, 1 <= chairs)
 *        barber --leave [customers=5] [chairs=3]
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
 *
 * --leave is seed 004's barber (section 5): a customer who finds every
 * chair taken leaves without a haircut, so the barber may serve fewer.
 * The shop opens when the barber and every customer have met at a
 * pthread barrier (so the time main takes to create them does not count);
 * from then on customers 0..chairs arrive 10 ms apart from 1 ms on, the
 * others 10 ms apart from 40 ms on (nanosleep: the margins survive a
 * loaded machine); each haircut is 2 ms of the barber's CPU time
 * (cpuspin.h), and a seated customer waits for his turn with sem_wait.
 * Run plain, the barber is done with each customer before the next comes
 * (his sem_trywait fails and he sleeps in sem_wait): every customer is
 * served, in the order of arrival.  A tracer that slows every op by more
 * than about 5 ms (mtx collect --inject-overhead 10ms) keeps customer 0
 * in the barber's chair until customers 1..chairs have filled the room
 * and the later ones come, and they leave: the path changes, as in seed
 * 004's Fig. 10.
 * The barber stops when main, having joined every customer, posts
 * "customers" once more to an empty room.  With MTX_SELFCHECK each
 * customer's decision ("customer-<i>:seat" or ":leave", taken under the
 * room's mutex) and each haircut ("barber:serve:customer-<i>") is an
 * "order" line (samples/selfcheck-order.h).  Output: who was served, in
 * order, and who left.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "samples/args.h"
#include "samples/cpuspin.h"
#include "samples/selfcheck.h"
#include "samples/selfcheck-order.h"

#define CUT_ITERS 6000000UL	/* ~11 ms per haircut */
#define SIT_ITERS 50000UL
#define LEAVE_CUT_US 2000UL	/* --leave: a haircut, in the barber's CPU time */
#define LEAVE_EARLY_US 1000L	/* --leave: customer 0 comes, then one each 10 ms */
#define LEAVE_LATE_US 40000L	/* --leave: when customers after chairs+1 come */

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
static int leave_mode;			/* --leave */
static unsigned int *served_order;	/* --leave: ids in the order served */
static pthread_barrier_t shop_opens;	/* --leave: the barber and the customers */

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

	if (leave_mode) {
		cpuspin_us(LEAVE_CUT_US);
		return;
	}
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

/* The barber: sleep until a customer is waiting (sem_trywait first, so a
 * trace shows both outcomes). */
static void wait_for_customer(void)
{
	selfcheck_count("sem", "trywait");
	if (sem_trywait(customers_sem) != 0) {
		selfcheck_count("sem", "wait");
		while (sem_wait(customers_sem) != 0)
			selfcheck_count("sem", "wait");
	}
}

/* The barber: the first customer of the room, or NULL when it is empty
 * (--leave: main has closed the shop). */
static struct customer *take_next(void)
{
	struct customer *c = NULL;
	char what[SELFCHECK_ORDER_WHAT];

	selfcheck_count("mutex", "lock");
	pthread_mutex_lock(&room_lock);
	if (waiting > 0) {
		c = &customers[queue[queue_head++ % nr_chairs]];
		waiting--;
		snprintf(what, sizeof(what), "barber:serve:customer-%u", c->id);
		selfcheck_order(what);
	}
	selfcheck_count("mutex", "unlock");
	pthread_mutex_unlock(&room_lock);
	return c;
}

/* The barber: call @c, wait until he sits, cut his hair, say done. */
static void serve(struct customer *c)
{
	selfcheck_count("sem", "post");
	sem_post(&c->turn);		/* next, please */
	selfcheck_count("sem", "wait");
	while (sem_wait(&seated) != 0)
		selfcheck_count("sem", "wait");
	cut_hair(c->id);
	served_order[haircuts++] = c->id;
	selfcheck_count("sem", "post");
	sem_post(&c->turn);		/* done */
}

static void *barber(void *arg)
{
	struct customer *c;
	unsigned int n;

	(void)arg;
	pthread_setname_np(pthread_self(), "barber");
	if (leave_mode) {
		selfcheck_count("barrier", "wait");
		pthread_barrier_wait(&shop_opens);
	}
	for (n = 0; leave_mode || n < nr_customers; n++) {
		wait_for_customer();
		c = take_next();
		if (!c)
			break;
		serve(c);
	}
	selfcheck_thread_done("barber");
	return NULL;
}

/* A customer: take a chair if one is free; 1 if he did. The decision is
 * an "order" event (--leave logs them). */
static int try_seat(struct customer *c)
{
	char what[SELFCHECK_ORDER_WHAT];
	int seat;

	selfcheck_count("mutex", "lock");
	pthread_mutex_lock(&room_lock);
	seat = waiting < nr_chairs;
	if (seat) {
		queue[(queue_head + waiting++) % nr_chairs] = c->id;
		selfcheck_count("sem", "post");
		sem_post(customers_sem);
	}
	snprintf(what, sizeof(what), "customer-%u:%s", c->id, seat ? "seat" : "leave");
	selfcheck_order(what);
	selfcheck_count("mutex", "unlock");
	pthread_mutex_unlock(&room_lock);
	return seat;
}

/* A customer who was called: sit down, wait until the haircut is done. */
static void get_haircut(struct customer *c)
{
	sit_down(c->id);
	selfcheck_count("sem", "post");
	sem_post(&seated);
	selfcheck_count("sem", "wait");
	while (sem_wait(&c->turn) != 0)
		selfcheck_count("sem", "wait");
	c->served = 1;
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
	for (visit = 0; !try_seat(c); visit++)
		nap_us(3000L + 1000L * ((c->id + visit) % 5));	/* come back later */

	do {
		clock_gettime(CLOCK_REALTIME, &deadline);
		deadline.tv_nsec += 10000000L;
		if (deadline.tv_nsec >= 1000000000L) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000L;
		}
		selfcheck_count("sem", "timedwait");
	} while (sem_timedwait(&c->turn, &deadline) != 0);
	get_haircut(c);
	selfcheck_thread_done("customer");
	return NULL;
}

/* --leave: one visit, at a set time after the shop opens; no free chair,
 * no haircut. */
static void *customer_once(void *arg)
{
	struct customer *c = arg;
	char name[16];

	snprintf(name, sizeof(name), "customer-%u", c->id);
	pthread_setname_np(pthread_self(), name);
	selfcheck_count("barrier", "wait");
	pthread_barrier_wait(&shop_opens);
	nap_us(c->id <= nr_chairs ? LEAVE_EARLY_US + 10000L * c->id
				  : LEAVE_LATE_US + 10000L * (c->id - nr_chairs - 1));
	if (try_seat(c)) {
		selfcheck_count("sem", "wait");
		while (sem_wait(&c->turn) != 0)
			selfcheck_count("sem", "wait");
		get_haircut(c);
	}
	selfcheck_thread_done("customer");
	return NULL;
}

/* --leave: who was served, in order, and who left. */
static void print_served_order(unsigned long served)
{
	unsigned long i;

	printf("served %lu of %u customers, in this order:", served, nr_customers);
	for (i = 0; i < haircuts; i++)
		printf(" %u", served_order[i]);
	printf("\nleft without a haircut:%s", served == nr_customers ? " none" : "");
	for (i = 0; i < nr_customers; i++)
		if (!customers[i].served)
			printf(" %u", customers[i].id);
	printf("\n");
}

int main(int argc, char **argv)
{
	unsigned long n = 20, chairs = 3, served = 0;
	char sem_name[64];
	pthread_t barber_thread;
	unsigned int i;

	if (argc > 1 && strcmp(argv[1], "--leave") == 0) {
		leave_mode = 1;
		n = 5;
		argv++;
		argc--;
	}
	if (argc > 3 || (argc > 1 && parse_arg(argv[1], 1, 1000, &n)) ||
	    (argc > 2 && parse_arg(argv[2], 1, 1000, &chairs))) {
		fprintf(stderr, "usage: barber [--leave] [customers=20 (5 with --leave) (1..1000)] [chairs=3 (1..1000)]\n");
		return 2;
	}
	nr_customers = (unsigned int)n;
	nr_chairs = (unsigned int)chairs;
	customers = calloc(nr_customers, sizeof(*customers));
	queue = calloc(nr_chairs, sizeof(*queue));
	served_order = calloc(nr_customers, sizeof(*served_order));
	if (!customers || !queue || !served_order) {
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

	if (leave_mode) {
		selfcheck_count("barrier", "init");
		pthread_barrier_init(&shop_opens, NULL, nr_customers + 1);
	}
	selfcheck_count("thread", "create");
	if (pthread_create(&barber_thread, NULL, barber, NULL) != 0)
		goto fail;
	for (i = 0; i < nr_customers; i++) {
		customers[i].id = i;
		selfcheck_count("sem", "init");
		sem_init(&customers[i].turn, 0, 0);
		selfcheck_count("thread", "create");
		if (pthread_create(&customers[i].thread, NULL, leave_mode ? customer_once : customer,
				   &customers[i]) != 0)
			goto fail;
	}
	for (i = 0; i < nr_customers; i++) {
		selfcheck_count("thread", "join");
		pthread_join(customers[i].thread, NULL);
		served += (unsigned long)customers[i].served;
	}
	if (leave_mode) {	/* close: the barber finds the room empty */
		selfcheck_count("sem", "post");
		sem_post(customers_sem);
	}
	selfcheck_count("thread", "join");
	pthread_join(barber_thread, NULL);
	for (i = 0; i < nr_customers; i++) {
		selfcheck_count("sem", "destroy");
		sem_destroy(&customers[i].turn);
	}

	if (leave_mode) {
		selfcheck_count("barrier", "destroy");
		pthread_barrier_destroy(&shop_opens);
		selfcheck_order_write();
		print_served_order(served);
	} else {
		printf("served %lu customers\n", served);
	}
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
	free(served_order);
	selfcheck_thread_done("main");
	return 0;
fail:
	fprintf(stderr, "barber: pthread_create failed\n");
	return 1;
}
