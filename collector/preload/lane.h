/*
 * collector/preload/lane.h - the writer side of a sync region (format in
 * collector/preload/shm.h): claim a lane, append records, give the lane back.
 *
 * Used by libmtx-preload.so (one struct mtx_lane_writer per thread, in
 * initial-exec TLS) and by tests/unit/test-sync-region.c, so the tests drive
 * exactly the code the library runs. Everything is static inline: the library
 * must not export it, and the hot path must not pay for a call.
 *
 * Hot path (lane_write): no syscall, no lock, no allocation. The only shared
 * store is the release-store of lane->head; lane->tail is read only when the
 * writer reaches the limit it cached at the previous read.
 *
 * Signal handlers: a handler may interrupt lane_write and call lane_write
 * itself (e.g. sem_post in a handler). Records are reserved with one
 * instruction (xadd without lock prefix: atomic with respect to a signal on
 * the same CPU, which is all a per-thread ring needs), and only the outermost
 * writer publishes head, once every nested record is complete. A nested
 * writer never waits for the collector: it uses the slack the outermost writer
 * keeps free, and counts a loss when there is none.
 */
#ifndef MTX_COLLECTOR_PRELOAD_LANE_H
#define MTX_COLLECTOR_PRELOAD_LANE_H

#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector/preload/shm.h"

/* Records kept free for signal handlers nesting inside an outer write. */
#define LANE_SLACK 16u
/* Nested writers deeper than this count a loss instead of writing. */
#define LANE_MAX_DEPTH 8u
/* Records ahead of the one being written whose line is prefetched. */
#define LANE_PREFETCH_AHEAD 8u
/* How long a writer waits for the collector before counting losses. */
#define LANE_WAIT_BUDGET_NS 500000000ull
/* The same for call lanes, where one lost record breaks the nesting of many. */
#define LANE_CALL_WAIT_BUDGET_NS 10000000000ull

/* A validated view of a mapped region: geometry copied out of the header. */
struct mtx_lane_region {
	struct mtx_shm_header *hdr;
	char *base;
	uint64_t lane_offset;
	uint64_t lane_stride;
	uint32_t lane_count;
	uint32_t lane_records;
	/* Set by lane_region_open_as to LANE_SLACK and LANE_WAIT_BUDGET_NS;
	 * the library raises both for call lanes (preload.c). */
	uint32_t slack;          /* records kept free for nested writers */
	uint64_t wait_budget_ns; /* how long a full lane is waited for */
	/* The futex word that wakes the collector's drain: this region's
	 * drain_wake; the library points a call region's at its sync
	 * region's, the one word the drain sleeps on (preload.c). */
	uint32_t *wake_word;
};

/* One thread's writing state. Zero-initialized means "no lane yet". */
struct mtx_lane_writer {
	struct mtx_shm_lane *lane;
	union {
		struct mtx_sync_record *recs;       /* a sync region's lane */
		struct mtx_call_record *call_recs;  /* a call region's lane */
	};
	uint64_t mask;
	uint64_t reserve;    /* next record index; head once all writes are done */
	uint64_t limit;      /* reserve may reach this without rereading tail */
	uint32_t depth;      /* lane_write nesting (signal handlers) */
	int32_t pid;
	int32_t tid;
	uint32_t stalled;    /* a wait timed out; don't wait again until tail moves */
	uint64_t stalled_tail;
};

/*
 * lane_region_open_as - validate the header of a region mapped at @base
 * (@size bytes) whose magic must be @magic and records @record_size bytes,
 * and fill @r. Returns 0, or -EPROTO when it is not such a region of this
 * version or its geometry does not fit in @size.
 */
static inline int lane_region_open_as(struct mtx_lane_region *r, void *base, size_t size,
				      const char *magic, uint32_t record_size)
{
	struct mtx_shm_header *h = base;
	uint64_t end;

	if (size < MTX_SHM_HEADER_SIZE || memcmp(h->magic, magic, 8) != 0 ||
	    h->version != MTX_SHM_VERSION || h->record_size != record_size ||
	    h->lane_header_size != MTX_SHM_LANE_HEADER_SIZE)
		return -EPROTO;
	if (h->lane_count == 0 || h->lane_records < 2 * LANE_SLACK ||
	    (h->lane_records & (h->lane_records - 1)) != 0 ||
	    h->lane_offset < MTX_SHM_HEADER_SIZE ||
	    h->lane_stride < MTX_SHM_LANE_HEADER_SIZE + (uint64_t)h->lane_records * record_size)
		return -EPROTO;
	end = h->lane_offset + (uint64_t)h->lane_count * h->lane_stride;
	if (end > size || end < h->lane_offset)
		return -EPROTO;
	r->hdr = h;
	r->base = base;
	r->lane_offset = h->lane_offset;
	r->lane_stride = h->lane_stride;
	r->lane_count = h->lane_count;
	r->lane_records = h->lane_records;
	r->slack = LANE_SLACK;
	r->wait_budget_ns = LANE_WAIT_BUDGET_NS;
	r->wake_word = &h->drain_wake;
	return 0;
}

/* lane_region_open - lane_region_open_as for a sync region. */
static inline int lane_region_open(struct mtx_lane_region *r, void *base, size_t size)
{
	return lane_region_open_as(r, base, size, MTX_SHM_MAGIC, MTX_SHM_RECORD_SIZE);
}

static inline struct mtx_shm_lane *lane_at(const struct mtx_lane_region *r, uint32_t i)
{
	return mtx_shm_lane_at(r->base, r->lane_offset, r->lane_stride, i);
}

static inline uint64_t lane_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * lane_backoff - one step of waiting for the collector: spin first (it may be
 * draining right now), then yield, then sleep 50 us. Only reached on the slow
 * path. Returns the nanoseconds waited so far. errno is preserved, so the
 * traced program's errno semantics do not change.
 */
static inline uint64_t lane_backoff(unsigned step, uint64_t start_ns)
{
	int saved = errno;

	if (step < 256) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	} else if (step < 512) {
		sched_yield();
	} else {
		struct timespec ts = { 0, 50000 };
		nanosleep(&ts, NULL);
	}
	errno = saved;
	return (step & 63) == 0 ? lane_now_ns() - start_ns : 0;
}

/*
 * lane_wake_drain - bump the region's drain_wake futex word and wake the
 * collector's drain (shm.h). Only on slow paths: once per half lane at most.
 * errno is preserved.
 */
static inline void lane_wake_drain(const struct mtx_lane_region *r)
{
	int saved = errno;

	__atomic_fetch_add(r->wake_word, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, r->wake_word, FUTEX_WAKE, 1, NULL, NULL, 0);
	errno = saved;
}

/*
 * lane_next_limit - where a writer at @reserve next rereads tail: at half
 * full, to wake the drain, then at full (less the nested writers' @slack).
 */
static inline uint64_t lane_next_limit(uint64_t reserve, uint64_t tail, uint64_t n, uint32_t slack)
{
	return reserve - tail < n / 2 ? tail + n / 2 : tail + n - slack;
}

/*
 * lane_claim - take a FREE lane for (@pid, @tid). If none is free, wait up to
 * LANE_WAIT_BUDGET_NS for the collector to free one, unless @wait is 0.
 * Returns 0, or -EAGAIN (nothing written: the caller counts the loss).
 */
static inline int lane_claim(const struct mtx_lane_region *r, struct mtx_lane_writer *w,
			     int32_t pid, int32_t tid, int wait)
{
	uint64_t start_ns = 0, waited = 0;
	unsigned step = 0;

	for (;;) {
		for (uint32_t i = 0; i < r->lane_count; i++) {
			struct mtx_shm_lane *l = lane_at(r, i);
			uint32_t expect = MTX_LANE_FREE;
			uint64_t head, tail;

			if (__atomic_load_n(&l->state, __ATOMIC_RELAXED) != MTX_LANE_FREE)
				continue;
			if (!__atomic_compare_exchange_n(&l->state, &expect, MTX_LANE_CLAIMING, 0,
							 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				continue;
			l->owner_pid = pid;
			l->owner_tid = tid;
			l->claims++;
			l->pending.start_ns = 0; /* a dead owner's, already taken */
			for (uint32_t used = __atomic_load_n(&r->hdr->lanes_used, __ATOMIC_RELAXED);
			     used < i + 1 &&
			     !__atomic_compare_exchange_n(&r->hdr->lanes_used, &used, i + 1, 0,
							  __ATOMIC_RELEASE, __ATOMIC_RELAXED);)
				;
			/* The collector frees a lane only when drained: tail == head. */
			head = __atomic_load_n(&l->head, __ATOMIC_ACQUIRE);
			tail = __atomic_load_n(&l->tail, __ATOMIC_ACQUIRE);
			w->lane = l;
			w->recs = mtx_shm_lane_records(l); /* call_recs: same address */
			w->mask = r->lane_records - 1;
			w->reserve = head;
			w->limit = lane_next_limit(head, tail, r->lane_records, r->slack);
			if (w->limit < head || w->limit - head > r->lane_records)
				w->limit = head; /* scribbled indices: reread tail at once */
			w->pid = pid;
			w->tid = tid;
			w->stalled = 0;
			__atomic_store_n(&l->state, MTX_LANE_LIVE, __ATOMIC_RELEASE);
			return 0;
		}
		if (!wait)
			return -EAGAIN;
		if (step == 0) {
			start_ns = lane_now_ns();
			lane_wake_drain(r); /* it frees the lanes of exited threads */
		}
		waited = lane_backoff(step++, start_ns);
		if (waited > LANE_WAIT_BUDGET_NS)
			return -EAGAIN;
	}
}

/*
 * lane_release - the owning thread is exiting: publish what it wrote, mark the
 * lane EXITED for the collector to drain and free. The writer is reset first,
 * so a signal handler running in between claims a fresh lane instead of
 * writing into one the collector may already be recycling.
 */
static inline void lane_release(struct mtx_lane_writer *w)
{
	struct mtx_shm_lane *l = w->lane;

	if (!l)
		return;
	w->lane = NULL;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&l->head, w->reserve, __ATOMIC_RELEASE);
	__atomic_store_n(&l->state, MTX_LANE_EXITED, __ATOMIC_RELEASE);
}

/*
 * lane_reap_pid - mark lanes still LIVE under @pid EXITED. Called by the
 * library when it starts in a process: after exec no thread of the previous
 * image survives, but the kernel kept the pid (and the main thread's tid).
 */
static inline void lane_reap_pid(const struct mtx_lane_region *r, int32_t pid)
{
	/* Only lanes ever claimed can be LIVE: each lane's header is a page of
	 * its own, and touching all of them cost ~10 ms at every start. */
	uint32_t used = __atomic_load_n(&r->hdr->lanes_used, __ATOMIC_ACQUIRE);
	if (used > r->lane_count)
		used = r->lane_count;
	for (uint32_t i = 0; i < used; i++) {
		struct mtx_shm_lane *l = lane_at(r, i);
		uint32_t expect = MTX_LANE_LIVE;

		if (__atomic_load_n(&l->state, __ATOMIC_ACQUIRE) == MTX_LANE_LIVE &&
		    l->owner_pid == pid)
			__atomic_compare_exchange_n(&l->state, &expect, MTX_LANE_EXITED, 0,
						    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	}
}

/*
 * lane_make_room - slow path when reserve + @need passed the cached limit:
 * reread tail, wake the drain when the lane is half full, and if it is
 * really full wait (bounded) for the collector.
 * Nested writers (@depth > 1, one record each) never wait: the outermost
 * one is suspended under them and the collector cannot free what it has
 * not published.
 * Returns 1 when @need records may be reserved, 0 when the operation must
 * be counted lost.
 */
static __attribute__((noinline, cold, unused)) int lane_make_room(const struct mtx_lane_region *r, struct mtx_lane_writer *w,
				 uint32_t depth, uint32_t need)
{
	struct mtx_shm_lane *l = w->lane;
	uint64_t n = r->lane_records, start_ns = 0, tail;
	unsigned step = 0;

	if (depth > 1) {
		tail = __atomic_load_n(&l->tail, __ATOMIC_ACQUIRE);
		/* keep one slot per deeper level that may sneak in before our xadd */
		return depth <= LANE_MAX_DEPTH && w->reserve + LANE_MAX_DEPTH < tail + n;
	}
	for (;;) {
		tail = __atomic_load_n(&l->tail, __ATOMIC_ACQUIRE);
		/* not while stalled: that would be a syscall on every op */
		if (step == 0 && w->reserve - tail >= n / 2 && !(w->stalled && tail == w->stalled_tail))
			lane_wake_drain(r);
		if (w->reserve + need - 1 + r->slack < tail + n) {
			w->limit = lane_next_limit(w->reserve, tail, n, r->slack);
			w->stalled = 0;
			return 1;
		}
		if (w->stalled && tail == w->stalled_tail)
			return 0; /* the collector is not draining: don't wait on every op */
		if (step == 0)
			start_ns = lane_now_ns();
		if (lane_backoff(step++, start_ns) > r->wait_budget_ns) {
			w->stalled = 1;
			w->stalled_tail = tail;
			return 0;
		}
	}
}

/*
 * Prefetch with intent to write (PREFETCHW: executed as a NOP by x86 CPUs
 * that lack it), so the line arrives already owned.
 */
static inline void lane_prefetch_write(const void *p)
{
#if defined(__x86_64__)
	__asm__ __volatile__("prefetchw %0" : : "m"(*(const char *)p));
#else
	__builtin_prefetch(p, 1, 3);
#endif
}

/* Reserve @n record indices: one instruction, so a signal cannot split it. */
static inline uint64_t lane_reserve(uint64_t *reserve, uint64_t n)
{
#if defined(__x86_64__)
	uint64_t v = n;

	__asm__ __volatile__("xaddq %0, %1" : "+r"(v), "+m"(*reserve) : : "memory");
	return v;
#else
	return __atomic_fetch_add(reserve, n, __ATOMIC_RELAXED);
#endif
}

/* What a writer calls when the lane seems full: lane_make_room, or a
 * wrapper of it (preload-calls.c keeps registers around it). */
typedef int (*lane_room_fn)(const struct mtx_lane_region *r, struct mtx_lane_writer *w,
			    uint32_t depth, uint32_t need);

/*
 * lane_begin - start appending @need records, reserved together (so no
 * signal handler's record lands between them): returns the index of the
 * first, or UINT64_MAX when the lane stayed full (counted once in
 * hdr->lost_full). Every lane_begin is followed by one lane_end, which
 * publishes the records unless a signal handler interrupted an outer write.
 */
static inline __attribute__((always_inline)) uint64_t
lane_begin(const struct mtx_lane_region *r, struct mtx_lane_writer *w, uint32_t need,
	   lane_room_fn make_room)
{
	uint32_t depth = ++w->depth;

	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect(w->reserve + need - 1 >= w->limit, 0) && !make_room(r, w, depth, need)) {
		__atomic_fetch_add(&r->hdr->lost_full, 1, __ATOMIC_RELAXED);
		return UINT64_MAX;
	}
	return lane_reserve(&w->reserve, need);
}

static inline __attribute__((always_inline)) void lane_end(struct mtx_lane_writer *w)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (--w->depth == 0)
		__atomic_store_n(&w->lane->head, w->reserve, __ATOMIC_RELEASE);
}

/*
 * lane_write_stack - append one record, preceded by frames records holding
 * @pcs[0 .. @nr) (shm.h, FRAMES RECORDS) when @nr > 0 and this is not a
 * nested write (a signal handler's record carries no stack). The writer
 * must have a lane (lane_claim); when the lane stays full the record is
 * counted in hdr->lost_full. pid and tid come from the writer. Safe to call
 * from a signal handler that interrupted another lane_write of the same
 * thread.
 */
static inline __attribute__((always_inline)) void lane_write_stack(const struct mtx_lane_region *r, struct mtx_lane_writer *w,
			      uint16_t kind, uint16_t op, uint64_t addr, uint64_t arg,
			      uint64_t start_ns, uint64_t end_ns, int32_t result, uint64_t callsite,
			      const uint64_t *pcs, uint32_t nr)
{
	uint32_t frames = 0;
	uint64_t pos;
	struct mtx_sync_record *rec;

	/* Only the outermost write carries a stack: a signal handler that
	 * interrupts us in between sees depth > 0 and writes without one. */
	if (nr && w->depth == 0) {
		if (nr > MTX_SYNC_STACK_MAX)
			nr = MTX_SYNC_STACK_MAX;
		frames = (nr + MTX_SYNC_FRAMES_PER_RECORD - 1) / MTX_SYNC_FRAMES_PER_RECORD;
	}
	pos = lane_begin(r, w, frames + 1, lane_make_room);
	if (pos != UINT64_MAX) {
		for (uint32_t i = 0; i < frames; i++) {
			struct mtx_sync_frames *f = (struct mtx_sync_frames *)&w->recs[(pos + i) & w->mask];
			uint32_t from = i * MTX_SYNC_FRAMES_PER_RECORD, k = nr - from;

			if (k > MTX_SYNC_FRAMES_PER_RECORD)
				k = MTX_SYNC_FRAMES_PER_RECORD;
			memcpy(f->pcs, pcs + from, k * sizeof(*pcs));
			f->kind = MTX_SYNC_KIND_FRAMES;
			f->nr = (uint8_t)k;
			f->index = (uint8_t)i;
			f->count = (uint8_t)frames;
		}
		pos += frames;
		rec = &w->recs[pos & w->mask];
		/*
		 * Ask for the line a few records ahead now: the lane is bigger
		 * than the cache, so without this every new line is a
		 * read-for-ownership miss that the next locked instruction of
		 * the traced program waits for.
		 */
		lane_prefetch_write(&w->recs[(pos + LANE_PREFETCH_AHEAD) & w->mask]);
		rec->start_ns = start_ns;
		rec->end_ns = end_ns;
		rec->addr = addr;
		rec->arg = arg;
		rec->callsite = callsite;
		rec->tid = w->tid;
		rec->pid = w->pid;
		rec->kind = kind;
		rec->op = op;
		rec->result = result;
	}
	lane_end(w);
}

/*
 * lane_write_call - append one call record (the call region's lanes): the
 * same protocol as lane_write with a 16-byte record. @make_room is called
 * when the cached limit is reached (lane_make_room, or a wrapper of it that
 * saves registers its caller must not lose: see preload-calls.c).
 */
static inline __attribute__((always_inline)) void
lane_write_call(const struct mtx_lane_region *r, struct mtx_lane_writer *w, uint64_t stamp,
		uint64_t fn, lane_room_fn make_room)
{
	uint64_t pos = lane_begin(r, w, 1, make_room);

	/* No prefetchw here, unlike lane_write: with four records a line it
	 * measured slower (bench/function-hook-cost.sh, hooks-* 84 -> 35 ns
	 * per call at best; non-temporal stores with the sfence they need
	 * before head: ~500 ns). */
	if (pos != UINT64_MAX) {
		struct mtx_call_record *rec = &w->call_recs[pos & w->mask];

		rec->stamp = stamp;
		rec->fn = fn;
	}
	lane_end(w);
}

/* lane_write - append one record without a stack (see lane_write_stack). */
static inline __attribute__((always_inline)) void lane_write(const struct mtx_lane_region *r, struct mtx_lane_writer *w,
			      uint16_t kind, uint16_t op, uint64_t addr, uint64_t arg,
			      uint64_t start_ns, uint64_t end_ns, int32_t result, uint64_t callsite)
{
	lane_write_stack(r, w, kind, op, addr, arg, start_ns, end_ns, result, callsite, NULL, 0);
}

#endif
