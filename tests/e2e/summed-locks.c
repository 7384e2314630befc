/*
 * tests/e2e/summed-locks.c - test-detail-sync.sh's program: lock ops by
 * the hundred thousand, most of which mtx collect --detail adds up, and a
 * few that must stay rows, each counted and timed by the program itself.
 *
 *   summed-locks PAIRS
 *
 * Two threads, A and B, then:
 *  1. each locks and unlocks a mutex of its own PAIRS times, with a little
 *     work inside: never contended. Each sums its holds as it sees them,
 *     from inside (after the lock returned, before the unlock is called)
 *     and from outside (before the lock is called, after the unlock
 *     returned): the time mtx records lies between.
 *  2. ROUNDS times, A takes the shared mutex, lets B go (a semaphore),
 *     sleeps 20 ms and releases it; B, let go, locks it and so waits for
 *     A, releases it and lets A go on: B's ROUNDS locks found A holding it
 *     and blocked, A's never.
 *  3. A initializes a mutex, locks and unlocks it FIRST times, destroys
 *     it, initializes it again at the same address and locks and unlocks
 *     it SECOND times, and destroys it: two lifetimes of one address.
 * On stdout, "summed-locks: PAIRS pairs, ROUNDS rounds" (the same under
 * mtx); on stderr, one line each:
 *   own A|B ADDR PAIRS
 *   thread A|B TID INSIDE_NS OUTSIDE_NS
 *   shared ADDR ROUNDS
 *   lifetimes ADDR FIRST SECOND
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 5
#define FIRST 300
#define SECOND 200

static pthread_mutex_t own[2] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER };
static pthread_mutex_t shared = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t twice;
static pthread_barrier_t phase;
static sem_t go_b, go_a;
static long pairs;
static volatile unsigned sink;

struct worker {
	int index;
	pid_t tid;
	uint64_t inside_ns, outside_ns;
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void own_pairs(struct worker *w)
{
	for (long i = 0; i < pairs; i++) {
		uint64_t t0 = now_ns(), t1, t2;
		pthread_mutex_lock(&own[w->index]);
		t1 = now_ns();
		for (unsigned k = 0; k < 50; k++)
			sink += k;
		t2 = now_ns();
		pthread_mutex_unlock(&own[w->index]);
		w->outside_ns += now_ns() - t0;
		w->inside_ns += t2 - t1;
	}
}

static void lifetimes(void)
{
	for (int round = 0; round < 2; round++) {
		pthread_mutex_init(&twice, NULL);
		for (int i = 0; i < (round ? SECOND : FIRST); i++) {
			pthread_mutex_lock(&twice);
			pthread_mutex_unlock(&twice);
		}
		pthread_mutex_destroy(&twice);
	}
}

static void *run(void *arg)
{
	struct worker *w = arg;
	w->tid = gettid();
	own_pairs(w);
	pthread_barrier_wait(&phase);
	for (int r = 0; r < ROUNDS; r++) {
		if (w->index == 0) {
			pthread_mutex_lock(&shared);
			sem_post(&go_b);
			nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
			pthread_mutex_unlock(&shared);
			sem_wait(&go_a);
		} else {
			sem_wait(&go_b);
			pthread_mutex_lock(&shared);
			pthread_mutex_unlock(&shared);
			sem_post(&go_a);
		}
	}
	if (w->index == 0)
		lifetimes();
	return NULL;
}

int main(int argc, char **argv)
{
	struct worker w[2] = { { .index = 0 }, { .index = 1 } };
	pthread_t t[2];
	if (argc != 2 || (pairs = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: summed-locks PAIRS\n");
		return 2;
	}
	pthread_barrier_init(&phase, NULL, 2);
	sem_init(&go_b, 0, 0);
	sem_init(&go_a, 0, 0);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, run, &w[i])) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 2; i++) {
		fprintf(stderr, "own %c %lu %ld\n", 'A' + i, (unsigned long)(uintptr_t)&own[i], pairs);
		fprintf(stderr, "thread %c %d %llu %llu\n", 'A' + i, (int)w[i].tid, (unsigned long long)w[i].inside_ns,
			(unsigned long long)w[i].outside_ns);
	}
	fprintf(stderr, "shared %lu %d\n", (unsigned long)(uintptr_t)&shared, ROUNDS);
	fprintf(stderr, "lifetimes %lu %d %d\n", (unsigned long)(uintptr_t)&twice, FIRST, SECOND);
	printf("summed-locks: %ld pairs, %d rounds\n", pairs, ROUNDS);
	return 0;
}
