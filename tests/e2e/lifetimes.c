/*
 * tests/e2e/lifetimes.c - a mutex and a condition variable at one address
 * each, initialized and destroyed three times over: each round a thread
 * waits on the condition (under the mutex) until main signals it, and main
 * joins it. sync_resolve splits each object into a lifetime per round and
 * moves the ops of the later rounds, and the cond waits' mutex, to them.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

static pthread_mutex_t lock;
static pthread_cond_t ready;
static int go, waiting;

static void *waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	waiting = 1;
	while (!go)
		pthread_cond_wait(&ready, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(void)
{
	for (int round = 0; round < 3; round++) {
		pthread_t t;
		pthread_mutex_init(&lock, NULL);
		pthread_cond_init(&ready, NULL);
		go = waiting = 0;
		if (pthread_create(&t, NULL, waiter, NULL))
			return 1;
		/* Signal once the waiter waits: it let go of the lock in
		 * pthread_cond_wait, after it said so under it. */
		for (;;) {
			pthread_mutex_lock(&lock);
			if (waiting)
				break;
			pthread_mutex_unlock(&lock);
			sched_yield();
		}
		go = 1;
		pthread_cond_signal(&ready);
		pthread_mutex_unlock(&lock);
		pthread_join(t, NULL);
		pthread_cond_destroy(&ready);
		pthread_mutex_destroy(&lock);
	}
	puts("3 rounds");
	return 0;
}
