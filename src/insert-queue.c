/*
 * src/insert-queue.c - see insert-queue.h.
 *
 * Rows go in chunks: the adding thread fills one, hands it over full, and
 * takes an empty one back (at most MAX_CHUNKS exist, so memory stays
 * bounded and the adder waits when the inserts fall behind).
 */
#include "config.h"
#include "src/insert-queue.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#define ROWS_PER_CHUNK 1024
#define MAX_CHUNKS 8

struct chunk {
	struct chunk *next;
	size_t nr_rows;
	struct insert_row rows[ROWS_PER_CHUNK];
};

struct insert_queue {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	pthread_t thread;
	bool threaded, done;
	int rc;                    /* the first failure, set by the inserting side */
	struct chunk *full, *last; /* handed over, oldest first */
	struct chunk *empty;       /* to be reused */
	struct chunk *filling;     /* the adder's */
	int nr_chunks;
};

/* Insert @c's rows; 0 or -EIO. */
static int insert_chunk(const struct chunk *c)
{
	for (size_t i = 0; i < c->nr_rows; i++) {
		const struct insert_row *r = &c->rows[i];
		sqlite3_reset(r->st);
		for (int k = 0; k < r->nr_values; k++) {
			const struct insert_value *v = &r->values[k];
			if (v->type == INSERT_INT)
				sqlite3_bind_int64(r->st, k + 1, v->i);
			else if (v->type == INSERT_TEXT)
				sqlite3_bind_text(r->st, k + 1, v->text, -1, SQLITE_STATIC);
			else
				sqlite3_bind_null(r->st, k + 1);
		}
		if (sqlite3_step(r->st) != SQLITE_DONE)
			return -EIO;
	}
	return 0;
}

static void *insert_run(void *arg)
{
	struct insert_queue *q = arg;
	pthread_mutex_lock(&q->lock);
	for (;;) {
		while (!q->full && !q->done)
			pthread_cond_wait(&q->changed, &q->lock);
		struct chunk *c = q->full;
		if (!c)
			break;
		if (!(q->full = c->next))
			q->last = NULL;
		int rc = q->rc;
		pthread_mutex_unlock(&q->lock);
		if (!rc) /* after a failure the rest is dropped */
			rc = insert_chunk(c);
		pthread_mutex_lock(&q->lock);
		if (rc && !q->rc)
			q->rc = rc;
		c->next = q->empty;
		q->empty = c;
		pthread_cond_broadcast(&q->changed);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

int insert_queue_start(struct insert_queue **out)
{
	struct insert_queue *q = calloc(1, sizeof(*q));
	*out = q;
	if (!q)
		return -ENOMEM;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->changed, NULL);
	q->threaded = pthread_create(&q->thread, NULL, insert_run, q) == 0;
	return 0;
}

/* Hand the chunk being filled over (without a thread: insert it here). */
static void hand_over(struct insert_queue *q)
{
	struct chunk *c = q->filling;
	q->filling = NULL;
	if (!c)
		return;
	if (!q->threaded) {
		if (!q->rc)
			q->rc = insert_chunk(c);
		c->next = q->empty;
		q->empty = c;
		return;
	}
	pthread_mutex_lock(&q->lock);
	c->next = NULL;
	if (q->last)
		q->last->next = c;
	else
		q->full = c;
	q->last = c;
	pthread_cond_broadcast(&q->changed);
	pthread_mutex_unlock(&q->lock);
}

/* An empty chunk for the adder: a reused one, a new one, or (at the limit)
 * the next one the inserting thread is done with. */
static struct chunk *take_empty(struct insert_queue *q)
{
	struct chunk *c = NULL;
	pthread_mutex_lock(&q->lock);
	while (!q->empty && q->nr_chunks >= MAX_CHUNKS && !q->rc)
		pthread_cond_wait(&q->changed, &q->lock);
	if (!q->rc && (c = q->empty))
		q->empty = c->next;
	else if (!q->rc && (c = malloc(sizeof(*c))))
		q->nr_chunks++;
	else if (!q->rc)
		q->rc = -ENOMEM;
	pthread_mutex_unlock(&q->lock);
	if (c)
		c->nr_rows = 0;
	return c;
}

struct insert_row *insert_queue_add(struct insert_queue *q, sqlite3_stmt *st, int nr_values)
{
	if (q->filling && q->filling->nr_rows == ROWS_PER_CHUNK)
		hand_over(q);
	if (!q->filling && !(q->filling = take_empty(q)))
		return NULL;
	struct insert_row *r = &q->filling->rows[q->filling->nr_rows++];
	r->st = st;
	r->nr_values = nr_values < INSERT_MAX_COLUMNS ? nr_values : INSERT_MAX_COLUMNS;
	return r;
}

int insert_queue_finish(struct insert_queue *q)
{
	if (!q)
		return 0;
	hand_over(q);
	if (q->threaded) {
		pthread_mutex_lock(&q->lock);
		q->done = true;
		pthread_cond_broadcast(&q->changed);
		pthread_mutex_unlock(&q->lock);
		pthread_join(q->thread, NULL);
	}
	int rc = q->rc;
	for (struct chunk *c = q->empty, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->changed);
	free(q);
	return rc;
}
