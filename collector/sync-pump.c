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

/* Records stamped this long before a drain pass started may still be
 * unpublished when it reads their lane (a writer preempted between its
 * stamp and its head store); the same margin as the kernel rings' flush. */
#define CALL_WATERMARK_MARGIN_NS 2000000ull

struct sync_pump {
	struct sync_region *region;
	struct sync_region *calls; /* or NULL */
	pthread_t thread;
	pthread_mutex_t lock; /* guards queue, cqueue and stop */
	struct sync_batch queue;
	struct sync_batch local; /* the pump thread's own, filled without the lock */
	struct call_batch cqueue;
	struct call_batch clocal;
	uint32_t seq;
	int stop;
	uint64_t dropped; /* records lost for want of memory */
	uint64_t calls_dropped;
};

/* Make room for @n more elements of @size bytes after the @len in *@buf
 * (*@cap of them), doubling it as needed. Returns 0 or -ENOMEM. */
static int reserve(void **buf, size_t *cap, size_t len, size_t n, size_t size)
{
	if (*cap - len < n) {
		size_t c = *cap ? *cap : 4096;
		void *grown;
		while (c - len < n)
			c *= 2;
		grown = realloc(*buf, c * size);
		if (!grown)
			return -ENOMEM;
		*buf = grown;
		*cap = c;
	}
	return 0;
}

int sync_batch_append(struct sync_batch *b, const struct mtx_sync_record *recs, size_t n)
{
	if (reserve((void **)&b->recs, &b->cap, b->len, n, sizeof(*recs)))
		return -ENOMEM;
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

static int call_batch_reserve(struct call_batch *b, size_t n)
{
	return reserve((void **)&b->ev, &b->cap, b->len, n, sizeof(*b->ev));
}

static void on_call(void *ctx, const struct mtx_event *ev)
{
	struct sync_pump *p = ctx;
	struct call_entry *e;

	if (call_batch_reserve(&p->clocal, 1)) {
		p->calls_dropped++;
		return;
	}
	e = &p->clocal.ev[p->clocal.len++];
	e->ts_ns = ev->ts_ns;
	e->fn = ev->u.call.fn;
	e->pid = ev->pid;
	e->tid = ev->tid;
	e->seq = p->seq++;
	e->at_return = ev->u.call.at_return;
}

static int call_cmp(const void *a, const void *b)
{
	const struct call_entry *x = a, *y = b;

	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Drain the call region once: the pass's entries, sorted by time, go to
 * the queue with the new watermark. */
static void drain_calls(struct sync_pump *p, uint64_t pass_start_ns)
{
	p->clocal.len = 0;
	p->seq = 0;
	sync_region_drain(p->calls, on_call, p);
	/* lanes are drained one after the other: sort the pass by time, so
	 * the ordering stage gets nearly sorted input */
	qsort(p->clocal.ev, p->clocal.len, sizeof(*p->clocal.ev), call_cmp);
	pthread_mutex_lock(&p->lock);
	if (p->cqueue.len == 0) {
		struct call_batch t = p->cqueue;
		p->cqueue = p->clocal;
		p->clocal = t;
	} else if (call_batch_reserve(&p->cqueue, p->clocal.len) == 0) {
		memcpy(p->cqueue.ev + p->cqueue.len, p->clocal.ev, p->clocal.len * sizeof(*p->clocal.ev));
		p->cqueue.len += p->clocal.len;
	} else {
		p->calls_dropped += p->clocal.len;
	}
	p->clocal.len = 0;
	if (pass_start_ns > CALL_WATERMARK_MARGIN_NS)
		p->cqueue.upto_ns = pass_start_ns - CALL_WATERMARK_MARGIN_NS;
	pthread_mutex_unlock(&p->lock);
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
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
	/* the region whose futex word the writers of both wake (preload.c) */
	struct sync_region *waker = p->region ? p->region : p->calls;
	size_t queued = 0, cqueued = 0;
	for (;;) {
		uint32_t seq = sync_region_wake_seq(waker);
		int stop;
		pthread_mutex_lock(&p->lock);
		stop = p->stop;
		queued = p->queue.len;
		cqueued = p->cqueue.len;
		pthread_mutex_unlock(&p->lock);
		if (stop)
			break;
		/* Bounded queues: leave records in the lanes (see sync-pump.h). */
		if (p->calls && cqueued < CALL_PUMP_MAX_QUEUED)
			drain_calls(p, monotonic_ns());
		if (p->region && queued < SYNC_PUMP_MAX_QUEUED &&
		    sync_region_drain(p->region, on_record, p) > 0)
			queued = publish(p);
		sync_region_sleep(waker, seq, PUMP_IDLE_NS);
	}
	return NULL;
}

int sync_pump_start(struct sync_pump **out, struct sync_region *r, struct sync_region *calls)
{
	struct sync_pump *p = calloc(1, sizeof(*p));
	int rc;
	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->region = r;
	p->calls = calls;
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

void sync_pump_take_calls(struct sync_pump *p, struct call_batch *b)
{
	struct call_batch t;
	pthread_mutex_lock(&p->lock);
	t = p->cqueue;
	p->cqueue = *b;
	p->cqueue.len = 0;
	p->cqueue.upto_ns = t.upto_ns;
	pthread_mutex_unlock(&p->lock);
	*b = t;
}

uint64_t sync_pump_stop(struct sync_pump *p, struct sync_batch *b, struct call_batch *cb,
			uint64_t *calls_dropped)
{
	uint64_t dropped;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_mutex_unlock(&p->lock);
	sync_region_wake(p->region ? p->region : p->calls);
	pthread_join(p->thread, NULL);
	/* The program is gone: whatever the lanes still hold is final. */
	if (p->calls) {
		drain_calls(p, 0);
		p->cqueue.upto_ns = UINT64_MAX;
	}
	if (cb) {
		call_batch_free(cb);
		*cb = p->cqueue;
	} else {
		call_batch_free(&p->cqueue);
	}
	call_batch_free(&p->clocal);
	if (calls_dropped)
		*calls_dropped = p->calls_dropped;
	if (p->region)
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

void call_batch_free(struct call_batch *b)
{
	free(b->ev);
	memset(b, 0, sizeof(*b));
}
