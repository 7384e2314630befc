/*
 * tests/e2e/outlives.c - a program that outlives its collector.
 *
 * Usage: outlives DIR
 *
 * It starts, takes a mutex a few times (so that it is being traced), writes
 * DIR/ready and waits for DIR/go. Then (the test has killed `mtx collect`
 * meanwhile) it does what fills a lane and claims more lanes than a region
 * has: 200 000 lock/unlock pairs on the main thread, then 1 500 short
 * threads one after another, each locking 10 times. Under a dead collector
 * the library must neither wait for it nor stop the program: stdout, the
 * counts, is the same as without mtx, and DIR/done appears at the end.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static unsigned long locked;

static void lock_n(int n)
{
	for (int i = 0; i < n; i++) {
		pthread_mutex_lock(&m);
		locked++;
		pthread_mutex_unlock(&m);
	}
}

static void *short_thread(void *arg)
{
	(void)arg;
	lock_n(10);
	return NULL;
}

static void touch(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	char go[4096];

	if (argc != 2) {
		fprintf(stderr, "usage: outlives DIR\n");
		return 2;
	}
	lock_n(100);
	touch(argv[1], "ready");
	snprintf(go, sizeof(go), "%s/go", argv[1]);
	while (access(go, F_OK) != 0) {
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
	}
	lock_n(200000);
	for (int i = 0; i < 1500; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, short_thread, NULL) != 0)
			return 1;
		pthread_join(t, NULL);
	}
	printf("locked %lu times\n", locked);
	touch(argv[1], "done");
	return 0;
}
