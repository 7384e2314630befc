/* collector/sync-pump.c - see sync-pump.h. */
#include "config.h"
#include "collector/sync-pump.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * How long the pump sleeps when no writer wakes it. Writers wake it when a
 * lane reaches half full (collector/preload/lane.h), so this only bounds how
 * old a record of a quiet thread gets before it is queued. It used to be a
 * fixed 1 ms: ~1000 wakeups a second that preempted the traced program's
 * threads on a machine with few CPUs, whether or not anything was recorded.
 */
#define PUMP_IDLE_NS 20000000L /* 20 ms */

struct sync_pump {
	struct sync_region *region;
	pthread_t thread;
	pthread_mutex_t lock; /* guards queue and stop */
	struct sync_batch queue;
	struct sync_batch local; /* the pump thread's own, filled without the lock */
	int stop;
	uint64_t dropped; /* records lost for want of memory */
};

int sync_batch_append(struct sync_batch *b, const struct mtx_sync_record *recs, size_t n)
{
	if (b->cap - b->len < n) {
		size_t cap = b->cap ? b->cap : 4096;
		struct mtx_sync_record *grown;
		while (cap - b->len < n)
			cap *= 2;
		grown = realloc(b->recs, cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		b->recs = grown;
		b->cap = cap;
	}
	memcpy(b->recs + b->len, recs, n * sizeof(*recs));
	b->len += n;
	return 0;
}

static void on_record(void *ctx, const struct mtx_event *ev)
{
	struct sync_pump *p = ctx;
	if (sync_batch_append(&p->local, &ev->u.sync, 1))
		p->dropped++;
}

/* Append the local batch to the queue. Returns the queue's length. */
static size_t publish(struct sync_pump *p)
{
	size_t queued;
	pthread_mutex_lock(&p->lock);
	if (p->queue.len == 0) {
		struct sync_batch t = p->queue;
		p->queue = p->local;
		p->local = t;
	} else if (sync_batch_append(&p->queue, p->local.recs, p->local.len)) {
		p->dropped += p->local.len;
	}
	p->local.len = 0;
	queued = p->queue.len;
	pthread_mutex_unlock(&p->lock);
	return queued;
}

static void *pump_main(void *arg)
{
	struct sync_pump *p = arg;
	size_t queued = 0;
	for (;;) {
		uint32_t seq = sync_region_wake_seq(p->region);
		int stop;
		pthread_mutex_lock(&p->lock);
		stop = p->stop;
		queued = p->queue.len;
		pthread_mutex_unlock(&p->lock);
		if (stop)
			break;
		/* Bounded queue: leave records in the lanes (see sync-pump.h). */
		if (queued < SYNC_PUMP_MAX_QUEUED && sync_region_drain(p->region, on_record, p) > 0)
			queued = publish(p);
		sync_region_sleep(p->region, seq, PUMP_IDLE_NS);
	}
	return NULL;
}

int sync_pump_start(struct sync_pump **out, struct sync_region *r)
{
	struct sync_pump *p = calloc(1, sizeof(*p));
	int rc;
	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->region = r;
	pthread_mutex_init(&p->lock, NULL);
	rc = pthread_create(&p->thread, NULL, pump_main, p);
	if (rc) {
		pthread_mutex_destroy(&p->lock);
		free(p);
		return -rc;
	}
	*out = p;
	return 0;
}

void sync_pump_take(struct sync_pump *p, struct sync_batch *b)
{
	struct sync_batch t;
	pthread_mutex_lock(&p->lock);
	t = p->queue;
	p->queue = *b;
	p->queue.len = 0;
	pthread_mutex_unlock(&p->lock);
	*b = t;
}

uint64_t sync_pump_stop(struct sync_pump *p, struct sync_batch *b)
{
	uint64_t dropped;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_mutex_unlock(&p->lock);
	sync_region_wake(p->region);
	pthread_join(p->thread, NULL);
	/* The program is gone: whatever the lanes still hold is final. */
	sync_region_drain(p->region, on_record, p);
	publish(p);
	sync_batch_free(b);
	*b = p->queue;
	sync_batch_free(&p->local);
	dropped = p->dropped;
	pthread_mutex_destroy(&p->lock);
	free(p);
	return dropped;
}

void sync_batch_free(struct sync_batch *b)
{
	free(b->recs);
	memset(b, 0, sizeof(*b));
}
