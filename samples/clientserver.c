/*
 * clientserver - the client-server service of seed 001, section 3.
 *
 * Usage: clientserver [clients=8] [requests=100]   (1 <= clients <= 500)
 *
 * Client threads ("client-<i>") put a connection request on the main
 * server's queue (mutex + condvar) and wait for the connection to be
 * accepted.  The main server thread S ("server") takes the requests one by
 * one and for each creates a dedicated server thread RS ("rs-<i>",
 * pthread_create).  A client and its RS then talk through a shared slot and
 * a pair of semaphores: the client writes a request into the slot and posts
 * "request"; RS wakes, computes the reply in serve() (busy loop) and posts
 * "reply"; the client waits for it (sem_timedwait, retried after a timeout),
 * checks that the reply is the expected function of the request, works a
 * little in prepare() (busy loop, a short sleep every 8 requests) and sends
 * the next.  A request of 0 closes the connection and RS returns.
 * S joins all RS threads; main joins the clients and S.
 *
 * A run under mtx must show:
 *  - 2*clients+2 threads: main, S, the clients and as many RS, each RS
 *    created by S (not by main);
 *  - the queue mutex and condvar used by the clients and S, S blocked in
 *    pthread_cond_wait until the connection requests arrive;
 *  - per connection, a request/reply semaphore pair used by exactly one
 *    client and one RS, with a strict ping-pong between the two: client and
 *    RS alternately block in sem_wait/sem_timedwait and wake each other
 *    (the client->RS->client pattern of Figure 7, right);
 *  - RS threads dominated by running serve(), clients by running prepare()
 *    and by waiting for the reply.
 * Output: totals (connections, requests, replies checked, bad replies=0),
 * the same for the same arguments.  Exit status 1 if a reply was wrong.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "samples/args.h"
#include "samples/selfcheck.h"

#define SERVE_ITERS 300000UL	/* ~0.6 ms per request */
#define PREPARE_ITERS 100000UL	/* ~0.2 ms */

struct connection {
	unsigned int id;
	pthread_t client, rs;
	sem_t request, reply;	/* client -> RS, RS -> client */
	unsigned long slot;	/* the request, then the reply */
	int accepted;		/* set by S under queue_lock */
	unsigned long checked, bad;
};

static unsigned int nr_clients;
static unsigned long nr_requests;
static struct connection *conns;

/* The main server's connection queue. */
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_cond = PTHREAD_COND_INITIALIZER;	/* new request */
static pthread_cond_t accept_cond = PTHREAD_COND_INITIALIZER;	/* accepted */
static struct connection **queue;
static unsigned int queue_head, queue_tail;

static unsigned long expected_reply(unsigned long req)
{
	unsigned long x = req * 2654435761UL;

	return (x ^ (x >> 13)) + 1;
}

/* The work RS does for one request: many rounds that end in expected_reply. */
static __attribute__((noinline)) unsigned long serve(unsigned long req)
{
	volatile unsigned long acc = req;
	unsigned long i;

	for (i = 0; i < SERVE_ITERS; i++)
		acc = acc * 31 + i;
	return expected_reply(req) + (acc & 0);
}

static __attribute__((noinline)) void prepare(unsigned int id, unsigned long n)
{
	volatile unsigned long acc = id;
	unsigned long i;

	for (i = 0; i < PREPARE_ITERS; i++)
		acc = acc * 17 + i;
	if (n % 8 == 7) {
		struct timespec nap = { 0, 300000 };

		while (nanosleep(&nap, &nap) != 0)
			;
	}
}

static void *dedicated_server(void *arg)
{
	struct connection *c = arg;
	char name[16];

	snprintf(name, sizeof(name), "rs-%u", c->id);
	pthread_setname_np(pthread_self(), name);
	for (;;) {
		unsigned long req;

		selfcheck_count("sem", "wait");
		while (sem_wait(&c->request) != 0)
			selfcheck_count("sem", "wait");
		req = c->slot;
		c->slot = req ? serve(req) : 0;
		selfcheck_count("sem", "post");
		sem_post(&c->reply);
		if (!req)
			break;
	}
	selfcheck_thread_done("rs");
	return NULL;
}

static void *main_server(void *arg)
{
	unsigned int i;

	(void)arg;
	pthread_setname_np(pthread_self(), "server");
	for (i = 0; i < nr_clients; i++) {
		struct connection *c;

		selfcheck_count("mutex", "lock");
		pthread_mutex_lock(&queue_lock);
		while (queue_head == queue_tail) {
			selfcheck_count("cond", "wait");
			pthread_cond_wait(&queue_cond, &queue_lock);
		}
		c = queue[queue_head++ % nr_clients];
		selfcheck_count("thread", "create");
		if (pthread_create(&c->rs, NULL, dedicated_server, c) != 0) {
			fprintf(stderr, "clientserver: pthread_create failed\n");
			exit(1);
		}
		c->accepted = 1;
		selfcheck_count("cond", "broadcast");
		pthread_cond_broadcast(&accept_cond);
		selfcheck_count("mutex", "unlock");
		pthread_mutex_unlock(&queue_lock);
	}
	for (i = 0; i < nr_clients; i++) {
		selfcheck_count("thread", "join");
		pthread_join(conns[i].rs, NULL);
	}
	selfcheck_thread_done("server");
	return NULL;
}

static unsigned long call(struct connection *c, unsigned long req)
{
	struct timespec deadline;

	c->slot = req;
	selfcheck_count("sem", "post");
	sem_post(&c->request);
	for (;;) {
		clock_gettime(CLOCK_REALTIME, &deadline);
		deadline.tv_nsec += 20000000;	/* 20 ms */
		if (deadline.tv_nsec >= 1000000000) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000;
		}
		selfcheck_count("sem", "timedwait");
		if (sem_timedwait(&c->reply, &deadline) == 0)
			return c->slot;
	}
}

static void *client(void *arg)
{
	struct connection *c = arg;
	unsigned long n;
	char name[16];

	snprintf(name, sizeof(name), "client-%u", c->id);
	pthread_setname_np(pthread_self(), name);

	selfcheck_count("mutex", "lock");
	pthread_mutex_lock(&queue_lock);
	queue[queue_tail++ % nr_clients] = c;
	selfcheck_count("cond", "signal");
	pthread_cond_signal(&queue_cond);
	while (!c->accepted) {
		selfcheck_count("cond", "wait");
		pthread_cond_wait(&accept_cond, &queue_lock);
	}
	selfcheck_count("mutex", "unlock");
	pthread_mutex_unlock(&queue_lock);

	for (n = 0; n < nr_requests; n++) {
		unsigned long req = (unsigned long)c->id * 100000 + n + 1;

		prepare(c->id, n);
		if (call(c, req) == expected_reply(req))
			c->checked++;
		else
			c->bad++;
	}
	call(c, 0);	/* close */
	selfcheck_thread_done("client");
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long n = 8, checked = 0, bad = 0;
	pthread_t server;
	unsigned int i;

	nr_requests = 100;
	if (argc > 3 || (argc > 1 && parse_arg(argv[1], 1, 500, &n)) ||
	    (argc > 2 && parse_arg(argv[2], 0, 1000000, &nr_requests))) {
		fprintf(stderr, "usage: clientserver [clients=8 (1..500)] [requests=100]\n");
		return 2;
	}
	nr_clients = (unsigned int)n;
	conns = calloc(nr_clients, sizeof(*conns));
	queue = calloc(nr_clients, sizeof(*queue));
	if (!conns || !queue) {
		fprintf(stderr, "clientserver: out of memory\n");
		return 1;
	}
	for (i = 0; i < nr_clients; i++) {
		conns[i].id = i;
		selfcheck_count("sem", "init");
		sem_init(&conns[i].request, 0, 0);
		selfcheck_count("sem", "init");
		sem_init(&conns[i].reply, 0, 0);
	}

	selfcheck_count("thread", "create");
	if (pthread_create(&server, NULL, main_server, NULL) != 0)
		goto fail;
	for (i = 0; i < nr_clients; i++) {
		selfcheck_count("thread", "create");
		if (pthread_create(&conns[i].client, NULL, client, &conns[i]) != 0)
			goto fail;
	}
	for (i = 0; i < nr_clients; i++) {
		selfcheck_count("thread", "join");
		pthread_join(conns[i].client, NULL);
	}
	selfcheck_count("thread", "join");
	pthread_join(server, NULL);

	for (i = 0; i < nr_clients; i++) {
		checked += conns[i].checked;
		bad += conns[i].bad;
		selfcheck_count("sem", "destroy");
		sem_destroy(&conns[i].request);
		selfcheck_count("sem", "destroy");
		sem_destroy(&conns[i].reply);
	}
	printf("connections %u\n", nr_clients);
	printf("requests %lu\n", (unsigned long)nr_clients * nr_requests);
	printf("replies checked %lu\n", checked);
	printf("bad replies %lu\n", bad);
	fflush(stdout);
	free(conns);
	free(queue);
	selfcheck_thread_done("main");
	return bad ? 1 : 0;
fail:
	fprintf(stderr, "clientserver: pthread_create failed\n");
	return 1;
}
