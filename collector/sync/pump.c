/* collector/sync/pump.c - see sync-pump.h. */
#include "config.h"
#include "collector/sync/pump.h"
#include "collector/preload/shm.h"
#include "src/pi-mutex.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
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

/* Raw call records of one thread, in its lane's order, in a list of
 * chunks: [head, len) of each chunk is still to be taken. */
#define CALL_CHUNK_RECORDS 16384u /* 256 KiB */

struct call_chunk {
	struct call_chunk *next;
	uint32_t head, len;
	struct mtx_call_record recs[CALL_CHUNK_RECORDS]; /* stamp: ns | MTX_CALL_EXIT */
};

struct call_stream {
	int32_t pid, tid;
	struct call_chunk *first, *last;
	uint64_t last_ns; /* the stamp of its latest record */
};

struct sync_pump {
	struct sync_region *region;
	struct sync_region *calls; /* or NULL */
	pthread_t thread;
	pthread_mutex_t lock; /* guards queue, the call streams and stop */
	struct sync_batch queue;
	size_t head; /* queue.recs[head, len) are still to be taken */
	struct sync_batch local; /* the pump thread's own, filled without the lock */
	struct call_stream *streams;
	size_t nr_streams, cap_streams, cur_stream;
	size_t calls_held;        /* records in the streams */
	uint64_t calls_upto_ns;   /* every record stamped before it is in a stream */
	struct call_chunk *spare; /* one emptied chunk, kept for the next */
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
	if (n == 0)
		return 0; /* @recs may be NULL then: memcpy must not see it */
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

/* The stream of (@pid, @tid), created empty; NULL when out of memory.
 * Lanes are drained one after the other, so the last one found is the
 * likely one. */
static struct call_stream *stream_of(struct sync_pump *p, int32_t pid, int32_t tid)
{
	struct call_stream *s;

	if (p->cur_stream < p->nr_streams && p->streams[p->cur_stream].tid == tid &&
	    p->streams[p->cur_stream].pid == pid)
		return &p->streams[p->cur_stream];
	for (size_t i = 0; i < p->nr_streams; i++)
		if (p->streams[i].tid == tid && p->streams[i].pid == pid) {
			p->cur_stream = i;
			return &p->streams[i];
		}
	if (reserve((void **)&p->streams, &p->cap_streams, p->nr_streams, 1, sizeof(*p->streams)))
		return NULL;
	s = &p->streams[p->nr_streams];
	*s = (struct call_stream){ .pid = pid, .tid = tid };
	p->cur_stream = p->nr_streams++;
	return s;
}

/* Called by sync_region_drain with the lock held. */
static void on_call(void *ctx, const struct mtx_event *ev)
{
	struct sync_pump *p = ctx;
	struct call_stream *s = stream_of(p, ev->pid, ev->tid);
	struct call_chunk *c = s ? s->last : NULL;

	if (s && (!c || c->len == CALL_CHUNK_RECORDS)) {
		c = p->spare ? p->spare : malloc(sizeof(*c));
		p->spare = NULL;
		if (c) {
			c->next = NULL;
			c->head = c->len = 0;
			if (s->last)
				s->last->next = c;
			else
				s->first = c;
			s->last = c;
		}
	}
	if (!c) {
		p->calls_dropped++;
		return;
	}
	/* A thread's records are in the order it made them, but a thread moved
	 * to another CPU may stamp one a few ns before the one it made before:
	 * the CPUs' TSCs of a virtual machine can be that far apart (seen: 3-10
	 * ns, every run, on a 2-vCPU KVM guest whose clocksource is the TSC).
	 * The stream, and so the merge, keeps the thread's order. */
	if (ev->ts_ns > s->last_ns)
		s->last_ns = ev->ts_ns;
	c->recs[c->len++] = (struct mtx_call_record){
		.stamp = s->last_ns | (ev->u.call.at_return ? MTX_CALL_EXIT : 0), .fn = ev->u.call.fn,
	};
	p->calls_held++;
}

static uint64_t stream_head_ns(const struct call_stream *s)
{
	return s->first->recs[s->first->head].stamp & ~MTX_CALL_EXIT;
}

/* Move @s's next record into @b (which has room). */
static void stream_pop(struct sync_pump *p, struct call_stream *s, struct call_batch *b)
{
	struct call_chunk *c = s->first;
	const struct mtx_call_record *r = &c->recs[c->head++];

	b->ev[b->len++] = (struct call_entry){
		.ts_ns = r->stamp & ~MTX_CALL_EXIT, .fn = r->fn, .pid = s->pid, .tid = s->tid,
		.at_return = (r->stamp & MTX_CALL_EXIT) != 0,
	};
	p->calls_held--;
	if (c->head == c->len && (c->next || c->len == CALL_CHUNK_RECORDS)) {
		s->first = c->next;
		if (!s->first)
			s->last = NULL;
		free(p->spare);
		p->spare = c;
	}
}

/*
 * Merge the streams into @b in time order: every record stamped before
 * @upto_ns, at most @max. Each stream is in time order (its lane's), so
 * the stream with the earliest head gives records until its head passes
 * the next stream's. @b->upto_ns becomes the time every record before
 * which is now handed out. Empty streams are dropped. With the lock held.
 */
static void merge_calls(struct sync_pump *p, struct call_batch *b, uint64_t upto_ns, size_t max)
{
	size_t kept = 0;

	b->len = 0;
	if (call_batch_reserve(b, max < p->calls_held ? max : p->calls_held))
		return; /* held for the next take */
	for (;;) {
		struct call_stream *best = NULL;
		uint64_t best_ns = upto_ns, next_ns = upto_ns;

		for (size_t i = 0; i < p->nr_streams; i++) {
			struct call_stream *s = &p->streams[i];
			uint64_t ns;

			if (!s->first || s->first->head == s->first->len)
				continue;
			ns = stream_head_ns(s);
			if (ns < best_ns) {
				next_ns = best_ns;
				best_ns = ns;
				best = s;
			} else if (ns < next_ns) {
				next_ns = ns;
			}
		}
		if (!best || b->len == max) {
			b->upto_ns = best_ns;
			break;
		}
		do
			stream_pop(p, best, b);
		while (b->len < max && best->first && best->first->head < best->first->len &&
		       stream_head_ns(best) <= next_ns);
	}
	for (size_t i = 0; i < p->nr_streams; i++) {
		struct call_stream *s = &p->streams[i];

		if (s->first && s->first->head == s->first->len && !s->first->next) {
			free(s->first);
			s->first = s->last = NULL;
		}
		if (s->first)
			p->streams[kept++] = *s;
	}
	p->nr_streams = kept;
	p->cur_stream = 0;
}

/* Drain the call region once, into the streams, and raise the watermark
 * to what the pass guarantees. */
static void drain_calls(struct sync_pump *p, uint64_t pass_start_ns)
{
	pthread_mutex_lock(&p->lock);
	sync_region_drain(p->calls, on_call, p);
	if (pass_start_ns > CALL_WATERMARK_MARGIN_NS)
		p->calls_upto_ns = pass_start_ns - CALL_WATERMARK_MARGIN_NS;
	pthread_mutex_unlock(&p->lock);
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Move the queue's records to the front of its buffer once more than half
 * of it has been taken: amortized, a copy per record at most. */
static void compact_queue(struct sync_pump *p, bool always)
{
	struct sync_batch *q = &p->queue;
	if (!p->head || (!always && p->head < q->len / 2))
		return;
	memmove(q->recs, q->recs + p->head, (q->len - p->head) * sizeof(*q->recs));
	q->len -= p->head;
	p->head = 0;
}

/* Append the local batch to the queue. Returns how many records it holds. */
static size_t publish(struct sync_pump *p)
{
	size_t queued;
	pthread_mutex_lock(&p->lock);
	compact_queue(p, false);
	if (p->queue.len == 0) {
		struct sync_batch t = p->queue;
		p->queue = p->local;
		p->local = t;
	} else if (sync_batch_append(&p->queue, p->local.recs, p->local.len)) {
		p->dropped += p->local.len;
	}
	p->local.len = 0;
	queued = p->queue.len - p->head;
	pthread_mutex_unlock(&p->lock);
	return queued;
}

static void *pump_main(void *arg)
{
	struct sync_pump *p = arg;
	/* the region whose futex word the writers of both wake (preload.c) */
	struct sync_region *waker = p->region ? p->region : p->calls;
	size_t queued = 0, held = 0;
	for (;;) {
		uint32_t seq = sync_region_wake_seq(waker);
		int stop;
		pthread_mutex_lock(&p->lock);
		stop = p->stop;
		queued = p->queue.len - p->head;
		held = p->calls_held;
		pthread_mutex_unlock(&p->lock);
		if (stop)
			break;
		/* Bounded queues: leave records in the lanes (see sync-pump.h). */
		if (p->calls && held < CALL_PUMP_MAX_HELD)
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
	pi_mutex_init(&p->lock);
	rc = pthread_create(&p->thread, NULL, pump_main, p);
	if (rc) {
		pthread_mutex_destroy(&p->lock);
		free(p);
		return -rc;
	}
	*out = p;
	return 0;
}

size_t sync_pump_take(struct sync_pump *p, struct sync_batch *b, size_t max)
{
	size_t n, left;
	pthread_mutex_lock(&p->lock);
	n = p->queue.len - p->head;
	if (p->head == 0 && n <= max) { /* all of it: the buffers change hands */
		struct sync_batch t = p->queue;
		p->queue = *b;
		p->queue.len = 0;
		*b = t;
	} else {
		b->len = 0;
		if (n > max)
			n = max;
		/* out of memory: nothing taken this time, the queue keeps it */
		if (sync_batch_append(b, p->queue.recs + p->head, n) == 0)
			p->head += n;
		if (p->head == p->queue.len)
			p->head = p->queue.len = 0;
	}
	left = p->queue.len - p->head;
	pthread_mutex_unlock(&p->lock);
	return left;
}

void sync_pump_take_calls(struct sync_pump *p, struct call_batch *b)
{
	pthread_mutex_lock(&p->lock);
	merge_calls(p, b, p->calls_upto_ns, CALL_PUMP_TAKE_MAX);
	pthread_mutex_unlock(&p->lock);
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
	/* The program is gone: whatever the lanes still hold is final, and
	 * what it started that lives on must not wait for a drain. */
	if (p->region)
		sync_region_close(p->region);
	if (p->calls)
		sync_region_close(p->calls);
	if (p->calls)
		drain_calls(p, 0);
	if (cb) {
		merge_calls(p, cb, UINT64_MAX, p->calls_held);
		cb->upto_ns = UINT64_MAX;
	}
	for (size_t i = 0; i < p->nr_streams; i++)
		for (struct call_chunk *c = p->streams[i].first, *next; c; c = next) {
			next = c->next;
			free(c);
		}
	free(p->streams);
	free(p->spare);
	if (calls_dropped)
		*calls_dropped = p->calls_dropped;
	if (p->region) {
		sync_region_reap(p->region);
		sync_region_drain(p->region, on_record, p);
	}
	publish(p);
	compact_queue(p, true);
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
