/*
 * src/worker.h - run a computation on a thread of its own, and wait for
 * what it returned: the derived build computes the critical path, the time
 * histograms and the timeline levels meanwhile (src/derived/).
 */
#ifndef MTX_WORKER_H
#define MTX_WORKER_H

#include <pthread.h>
#include <stdbool.h>

struct worker {
	int (*run)(void *arg);
	void *arg;
	int rc;
	bool threaded;
	pthread_t thread;
};

/*
 * worker_start - run @run(@arg), a computation that touches no SQLite
 * connection, on a thread of its own (on this one when none can be
 * started); worker_join waits for it and returns what it returned.
 */
void worker_start(struct worker *w, int (*run)(void *arg), void *arg);
int worker_join(struct worker *w);

#endif
