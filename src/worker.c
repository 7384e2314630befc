/* src/worker.c - see worker.h. */
#include "config.h"
#include "src/worker.h"

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	w->rc = w->run(w->arg);
	return NULL;
}

void worker_start(struct worker *w, int (*run)(void *arg), void *arg)
{
	*w = (struct worker){ .run = run, .arg = arg };
	w->threaded = pthread_create(&w->thread, NULL, worker_main, w) == 0;
	if (!w->threaded)
		w->rc = run(arg);
}

int worker_join(struct worker *w)
{
	if (w->threaded)
		pthread_join(w->thread, NULL);
	w->threaded = false;
	return w->rc;
}
