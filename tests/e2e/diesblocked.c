/*
 * tests/e2e/diesblocked.c - threads that are blocked when the program ends:
 * one in pthread_cond_wait, one in sem_wait, one in pthread_mutex_lock (on a
 * mutex main holds). Main waits until each of them sleeps in the kernel
 * (futex, as /proc/self/task/TID/syscall shows), prints "exiting" and calls
 * exit(0): none of the three calls returns. Under mtx each must be recorded
 * all the same, as a call that did not return (sync_ops.result NULL),
 * ending with its thread, which was blocked_sync on its object until then.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t cond_lock = PTHREAD_MUTEX_INITIALIZER, held = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static sem_t empty;
static volatile pid_t tids[3];

static void *in_cond_wait(void *arg)
{
	(void)arg;
	tids[0] = (pid_t)syscall(SYS_gettid);
	pthread_mutex_lock(&cond_lock);
	for (;;)
		pthread_cond_wait(&never, &cond_lock);
	return NULL;
}

static void *in_sem_wait(void *arg)
{
	(void)arg;
	tids[1] = (pid_t)syscall(SYS_gettid);
	for (;;)
		sem_wait(&empty);
	return NULL;
}

static void *in_lock(void *arg)
{
	(void)arg;
	tids[2] = (pid_t)syscall(SYS_gettid);
	pthread_mutex_lock(&held);
	return NULL;
}

/* Whether thread @tid is inside a futex call. */
static int in_futex(pid_t tid)
{
	char path[64], buf[32] = "";
	FILE *f;
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return !strncmp(buf, "202 ", 4);
}

int main(void)
{
	void *(*start[3])(void *) = { in_cond_wait, in_sem_wait, in_lock };
	pthread_t t;
	struct timespec tick = { 0, 1000000 };

	sem_init(&empty, 0, 0);
	pthread_mutex_lock(&held);
	for (int i = 0; i < 3; i++)
		if (pthread_create(&t, NULL, start[i], NULL) != 0) {
			fprintf(stderr, "diesblocked: cannot create a thread\n");
			return 1;
		}
	for (int i = 0; i < 3; i++)
		while (!tids[i] || !in_futex(tids[i]))
			nanosleep(&tick, NULL);
	printf("exiting\n");
	fflush(stdout);
	exit(0);
}
