/*
 * collector/preload/lane.h - the writer side of a region (format in
 * collector/preload/shm.h): claim a lane, start an operation, publish its
 * record, give the lane back.
 *
 * Used by libmtx-preload.so (one struct mtx_lane_writer per thread and
 * region, in initial-exec TLS) and by tests/unit/test-sync-region.c, so the
 * tests drive exactly the code the library runs. Everything is static
 * inline: the library must not export it, and the hot path must not pay for
 * a call.
 *
 * SIGNAL HANDLERS. A handler may run at any instruction of a writer and write
 * records of its own into the same lane (sem_post in a handler is
 * async-signal-safe). Every change a writer makes to the lane is therefore
 * one restartable sequence (rseq(2)) that ends in one store:
 *   - lane_begin_op fills in the next slot of the lane's ops (shm.h) and
 *     counts it in the head word;
 *   - lane_publish copies the record into the ring and stores the head word
 *     raised by the records and lowered by the op: published and given back
 *     at once;
 *   - lane_write_call does the same for a call record (no op).
 * A signal that arrives inside a sequence makes the kernel move the thread
 * back to the sequence's start before the handler runs (the sequence is
 * announced in the thread's rseq area, which glibc registers for every
 * thread). So a handler sees each sequence either done or not begun, writes
 * where the interrupted writer would have, and nothing half-written is ever
 * published or overwritten. Where the thread has no rseq area (glibc told
 * not to register one, an old kernel), the same sequences run with signals
 * blocked: correct, but two syscalls each.
 *
 * A full lane is waited for outside any sequence, holding nothing, so a
 * handler that runs meanwhile may write and, if it must, wait as well:
 * records are lost only when the collector stops draining (lane_make_room).
 *
 * Hot path: no syscall, no lock, no allocation. The lane's head word is
 * written by its owner only; the collector reads it.
 */
#ifndef MTX_COLLECTOR_PRELOAD_LANE_H
#define MTX_COLLECTOR_PRELOAD_LANE_H

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector/preload/shm.h"

/* glibc 2.35+ (sys/rseq.h): where each thread's rseq area is. Weak, so that
 * the library still loads with a libc that has none. */
#pragma weak __rseq_offset
#pragma weak __rseq_size

/* How long a writer waits for the collector before counting losses: as
 * long as the collector lives and has not closed the region (a test gives
 * a bound of its own). */
#define LANE_WAIT_FOREVER UINT64_MAX
/* How long a new thread waits for a free lane: other threads may live as
 * long as the program, so this wait has a bound. */
#define LANE_CLAIM_WAIT_NS 500000000ull
/* The fewest records a lane may have: an op with the most frames fits. */
#define LANE_MIN_RECORDS 32u

/* A validated view of a mapped region: geometry copied out of the header. */
struct mtx_lane_region {
	struct mtx_shm_header *hdr;
	char *base;
	uint64_t lane_offset;
	uint64_t lane_stride;
	uint32_t lane_count;
	uint32_t lane_records;
	/* Set by lane_region_open_as to LANE_WAIT_FOREVER. */
	uint64_t wait_budget_ns; /* how long a full lane is waited for */
	/* The futex word that wakes the collector's drain: this region's
	 * drain_wake; the library points a call region's at its sync
	 * region's, the one word the drain sleeps on (preload.c). */
	uint32_t *wake_word;
	/* The collector is gone (lane_collector_gone): nothing waits for it
	 * any more, and on_gone (if set) was told, once. */
	int gone;
	void (*on_gone)(void);
	/* The clock of the records (the library's stamp), to add a wait for a
	 * full lane to the overhead of the record that waited; NULL: not added
	 * (tests). */
	uint64_t (*stamp)(void);
};

/* One thread's writing state. Zero-initialized means "no lane yet". The
 * -pg hooks' assembly reads the first fields (preload-calls.c checks). */
struct mtx_lane_writer {
	struct mtx_shm_lane *lane;
	union {
		struct mtx_sync_record *recs;       /* a sync region's lane */
		struct mtx_call_record *call_recs;  /* a call region's lane */
	};
	uint64_t mask;
	uint64_t limit;      /* the head may reach this without rereading tail */
	uint64_t *rseq_cs;   /* where a sequence is announced (rseq_none: nowhere) */
	int32_t tid;         /* tid, pid: the order of a record's fields */
	int32_t pid;
	uint32_t no_rseq;    /* no rseq area: block signals around sequences */
	uint32_t stalled;    /* a wait timed out; don't wait again until tail moves */
	uint64_t stalled_tail;
	uint64_t rseq_none;
};

/* A wait of lane_make_room for the collector: its wall time and the
 * thread's CPU time in it (0, 0: it did not wait). */
struct lane_wait {
	uint64_t wall_ns, cpu_ns;
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
	if (h->lane_count == 0 || h->lane_records < LANE_MIN_RECORDS ||
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
	r->wait_budget_ns = LANE_WAIT_FOREVER;
	r->wake_word = &h->drain_wake;
	r->gone = 0;
	r->on_gone = NULL;
	r->stamp = NULL;
	return 0;
}

/* lane_region_open - lane_region_open_as for a sync region. */
static inline int lane_region_open(struct mtx_lane_region *r, void *base, size_t size)
{
	return lane_region_open_as(r, base, size, MTX_SHM_MAGIC, MTX_SHM_RECORD_SIZE);
}

static inline struct mtx_shm_lane *lane_at(struct mtx_lane_region *r, uint32_t i)
{
	return mtx_shm_lane_at(r->base, r->lane_offset, r->lane_stride, i);
}

static inline uint64_t lane_clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t lane_now_ns(void)
{
	return lane_clock_ns(CLOCK_MONOTONIC);
}

/*
 * lane_rseq_cs_field - the calling thread's rseq_cs field (struct rseq),
 * where a sequence is announced to the kernel, or NULL when glibc
 * registered no rseq area for this thread.
 */
static inline uint64_t *lane_rseq_cs_field(void)
{
	struct rseq *rs;

	if (&__rseq_size == NULL || &__rseq_offset == NULL || __rseq_size == 0)
		return NULL;
	rs = (struct rseq *)((char *)__builtin_thread_pointer() + __rseq_offset);
	if ((int32_t)__atomic_load_n(&rs->cpu_id, __ATOMIC_RELAXED) < 0)
		return NULL; /* RSEQ_CPU_ID_UNINITIALIZED or _REGISTRATION_FAILED */
	return (uint64_t *)&rs->rseq_cs;
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
static inline void lane_wake_drain(struct mtx_lane_region *r)
{
	int saved = errno;

	__atomic_fetch_add(r->wake_word, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, r->wake_word, FUTEX_WAKE, 1, NULL, NULL, 0);
	errno = saved;
}

/*
 * lane_collector_gone - whether the collector that created the region has
 * closed it (it drains no more: the program it ran has exited, and what
 * it started may go on untraced) or died (hdr->creator_pid, checked with
 * kill(pid, 0)): only when a writer would wait for it. Once it has,
 * r->gone is set and r->on_gone called, so that the program runs on
 * untraced instead of waiting for a drain that will never come. (A
 * recycled pid looks alive: the writers then wait as for a slow collector.)
 */
static inline int lane_collector_gone(struct mtx_lane_region *r)
{
	int saved = errno, dead;
	pid_t pid = r->hdr->creator_pid;

	if (r->gone)
		return 1;
	/* the system call itself: the library interposes kill() */
	dead = __atomic_load_n(&r->hdr->closed, __ATOMIC_ACQUIRE) ||
	       (pid > 0 && syscall(SYS_kill, pid, 0) < 0 && errno == ESRCH);
	errno = saved;
	if (dead) {
		r->gone = 1;
		if (r->on_gone)
			r->on_gone();
	}
	return dead;
}

/*
 * lane_next_limit - where a writer at @head next rereads tail: at half
 * full, to wake the drain, then at full.
 */
static inline uint64_t lane_next_limit(uint64_t head, uint64_t tail, uint64_t n)
{
	return head - tail < n / 2 ? tail + n / 2 : tail + n;
}

/*
 * lane_claim - take a FREE lane for (@pid, @tid), from the thread that will
 * write into it (its rseq area is looked up here). If none is free, wait up
 * to LANE_CLAIM_WAIT_NS for the collector to free one, unless @wait is 0.
 * Returns 0, or -EAGAIN (nothing written: the caller counts the loss). Not
 * for a signal handler to interrupt: the library blocks signals around it.
 */
static inline int lane_claim(struct mtx_lane_region *r, struct mtx_lane_writer *w,
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
			l->stall_ns = step ? lane_now_ns() - start_ns : 0; /* this claim's wait */
			l->stalls = step != 0;
			for (uint32_t used = __atomic_load_n(&r->hdr->lanes_used, __ATOMIC_RELAXED);
			     used < i + 1 &&
			     !__atomic_compare_exchange_n(&r->hdr->lanes_used, &used, i + 1, 0,
							  __ATOMIC_RELEASE, __ATOMIC_RELAXED);)
				;
			/* The collector frees a lane only when drained (tail ==
			 * head) and its ops taken; a new owner starts with none. */
			head = mtx_lane_head(__atomic_load_n(&l->head, __ATOMIC_ACQUIRE));
			__atomic_store_n(&l->head, head, __ATOMIC_RELEASE);
			tail = __atomic_load_n(&l->tail, __ATOMIC_ACQUIRE);
			w->lane = l;
			w->recs = mtx_shm_lane_records(l); /* call_recs: same address */
			w->mask = r->lane_records - 1;
			w->limit = lane_next_limit(head, tail, r->lane_records);
			if (w->limit < head || w->limit - head > r->lane_records)
				w->limit = head; /* scribbled indices: reread tail at once */
			w->rseq_cs = lane_rseq_cs_field();
			w->no_rseq = w->rseq_cs == NULL;
			if (w->no_rseq) {
				w->rseq_cs = &w->rseq_none;
				__atomic_fetch_add(&r->hdr->claims_without_rseq, 1, __ATOMIC_RELAXED);
			}
			w->pid = pid;
			w->tid = tid;
			w->stalled = 0;
			__atomic_store_n(&l->state, MTX_LANE_LIVE, __ATOMIC_RELEASE);
			return 0;
		}
		if (!wait || ((step & 63) == 0 && lane_collector_gone(r)))
			return -EAGAIN;
		if (step == 0) {
			start_ns = lane_now_ns();
			lane_wake_drain(r); /* it frees the lanes of exited threads */
		}
		waited = lane_backoff(step++, start_ns);
		if (waited > LANE_CLAIM_WAIT_NS)
			return -EAGAIN;
	}
}

/*
 * lane_release - the owning thread is exiting: mark the lane EXITED for the
 * collector to drain and free (every record is published already; ops still
 * in progress are the calls the thread ends in). The writer is reset first,
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
	__atomic_store_n(&l->state, MTX_LANE_EXITED, __ATOMIC_RELEASE);
}

/*
 * lane_reap_pid - mark lanes still LIVE under @pid EXITED. Called by the
 * library when it starts in a process: after exec no thread of the previous
 * image survives, but the kernel kept the pid (and the main thread's tid).
 */
static inline void lane_reap_pid(struct mtx_lane_region *r, int32_t pid)
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
 * lane_make_room - slow path when a record did not fit under the cached
 * limit: reread tail, wake the drain when the lane is half full, and if it
 * is really full wait for the collector, as long as it lives (or the
 * region's budget, in tests). Nothing is held while it waits, so a signal
 * handler may write meanwhile (and wait itself). Returns 1 when @need
 * records fit now, 0 when the collector is gone, or has not drained within
 * the budget (the caller counts the loss; later calls return 0 at once
 * until tail moves).
 */
static __attribute__((noinline, cold, unused)) int lane_make_room(struct mtx_lane_region *r, struct mtx_lane_writer *w,
				 uint32_t need, struct lane_wait *wait)
{
	struct mtx_shm_lane *l = w->lane;
	uint64_t n = r->lane_records, start_ns = 0, start_cpu_ns = 0, waited, head, tail;
	unsigned step = 0;
	int room;

	*wait = (struct lane_wait){ 0, 0 };
	if (!l || r->gone)
		return 0;
	for (;;) {
		head = mtx_lane_head(__atomic_load_n(&l->head, __ATOMIC_RELAXED));
		tail = __atomic_load_n(&l->tail, __ATOMIC_ACQUIRE);
		/* not while stalled: that would be a syscall on every op */
		if (step == 0 && head - tail >= n / 2 && !(w->stalled && tail == w->stalled_tail))
			lane_wake_drain(r);
		if (head + need <= tail + n) {
			w->limit = lane_next_limit(head, tail, n);
			if (w->limit < head + need)
				w->limit = tail + n;
			w->stalled = 0;
			room = 1;
			break;
		}
		if (w->stalled && tail == w->stalled_tail)
			return 0; /* the collector is not draining: don't wait on every op */
		if (step == 0) {
			start_ns = lane_now_ns();
			start_cpu_ns = lane_clock_ns(CLOCK_THREAD_CPUTIME_ID);
		}
		waited = lane_backoff(step++, start_ns);
		/* at the start and every few ms of a wait: is there a collector? */
		if (((step == 1 || waited) && lane_collector_gone(r)) || waited > r->wait_budget_ns) {
			w->stalled = 1;
			w->stalled_tail = tail;
			room = 0;
			break;
		}
	}
	if (start_ns) { /* the program's time this was, not its own */
		wait->wall_ns = lane_now_ns() - start_ns;
		wait->cpu_ns = lane_clock_ns(CLOCK_THREAD_CPUTIME_ID) - start_cpu_ns;
		l->stall_ns += wait->wall_ns;
		l->stalls++;
	}
	return room;
}

/*
 * The sequences. Each announces itself by storing its descriptor (in
 * section __rseq_cs: version, flags, start, length, abort address) in
 * *w->rseq_cs, and ends in the one instruction that changes the head word.
 * The abort address, preceded by the signature glibc registered
 * (RSEQ_SIG), goes back to the announcement: the kernel clears it on abort.
 * Registers are fixed scratch (clobbered); labels 0-5 are local to each.
 */
#define LANE_SEQ_TABLE                                                     \
	".pushsection __rseq_cs, \"aw\"\n\t"                               \
	".balign 32\n"                                                     \
	"3:\t.long 0, 0\n\t"                                               \
	".quad 1f, 2f - 1f, 4f\n\t"                                        \
	".popsection\n"                                                    \
	"0:\tleaq 3b(%%rip), %%rax\n\t"                                    \
	"movq %c[o_cs](%[w]), %%rcx\n\t"                                   \
	"movq %%rax, (%%rcx)\n"
#define LANE_SEQ_ABORT                                                     \
	"2:\tjmp 5f\n\t"                                                   \
	".long " LANE_STR(RSEQ_SIG) "\n"                                   \
	"4:\tjmp 0b\n"                                                     \
	"5:\n"
#define LANE_STR_(x) #x
#define LANE_STR(x) LANE_STR_(x)
#define LANE_SEQ_OFFSETS                                                         \
	[o_cs] "i"(offsetof(struct mtx_lane_writer, rseq_cs)),                   \
	[o_lane] "i"(offsetof(struct mtx_lane_writer, lane)),                    \
	[o_recs] "i"(offsetof(struct mtx_lane_writer, recs)),                    \
	[o_mask] "i"(offsetof(struct mtx_lane_writer, mask)),                    \
	[o_limit] "i"(offsetof(struct mtx_lane_writer, limit)),                  \
	[o_tid] "i"(offsetof(struct mtx_lane_writer, tid)),                      \
	[o_head] "i"(offsetof(struct mtx_shm_lane, head)),                       \
	[o_ops] "i"(offsetof(struct mtx_shm_lane, ops)),                         \
	[o_frame] "i"(offsetof(struct mtx_sync_op_slot, frame)),                 \
	[one] "i"(MTX_LANE_OP_ONE)

_Static_assert(offsetof(struct mtx_lane_writer, pid) == offsetof(struct mtx_lane_writer, tid) + 4 &&
		       offsetof(struct mtx_sync_record, pid) == offsetof(struct mtx_sync_record, tid) + 4 &&
		       offsetof(struct mtx_sync_record, tid) == 40 &&
		       offsetof(struct mtx_sync_record, kind) == 48 &&
		       offsetof(struct mtx_sync_record, op) == 50 &&
		       offsetof(struct mtx_sync_record, result) == 52 &&
		       offsetof(struct mtx_sync_record, overhead) == 56 &&
		       offsetof(struct mtx_sync_record, injected) == 60 &&
		       sizeof(struct mtx_sync_record) == 64 && sizeof(struct mtx_sync_op_slot) == 128,
	       "the sequences' layout");

/* @a + @b, at most UINT32_MAX: a record's overhead. */
static inline uint32_t lane_add_sat32(uint32_t a, uint64_t b)
{
	uint64_t sum = (uint64_t)a + b;

	return sum < b || sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum;
}

/* Begin: fill the next op slot and count it. Returns 1, or 0 when the lane
 * is gone (a child forked by a handler) or holds MTX_LANE_MAX_OPS ops. */
static inline __attribute__((always_inline)) int
lane_seq_begin(struct mtx_lane_writer *w, uint64_t frame, uint64_t start_ns, uint64_t addr,
	       uint64_t arg, uint64_t callsite, uint32_t kind_op)
{
	__asm__ goto(LANE_SEQ_TABLE
		     "1:\tmovq %c[o_lane](%[w]), %%rcx\n\t"
		     "testq %%rcx, %%rcx\n\t"
		     "jz %l[refused]\n\t"
		     "movq %c[o_head](%%rcx), %%rdx\n\t"
		     "shrq $48, %%rdx\n\t"
		     "cmpq %[max], %%rdx\n\t"
		     "jae %l[refused]\n\t"
		     "shlq $7, %%rdx\n\t"
		     "leaq %c[o_ops](%%rcx,%%rdx), %%rdx\n\t"
		     "movq %[frame], %c[o_frame](%%rdx)\n\t"
		     "movq %[start], 0(%%rdx)\n\t"
		     "movq $0, 8(%%rdx)\n\t"
		     "movq %[addr], 16(%%rdx)\n\t"
		     "movq %[arg], 24(%%rdx)\n\t"
		     "movq %[callsite], 32(%%rdx)\n\t"
		     "movq %c[o_tid](%[w]), %%rax\n\t"
		     "movq %%rax, 40(%%rdx)\n\t"
		     "movl %[kind_op], 48(%%rdx)\n\t"
		     "movl $0, 52(%%rdx)\n\t"
		     "movq $0, 56(%%rdx)\n\t"
		     "movabsq %[one], %%rax\n\t"
		     "addq %%rax, %c[o_head](%%rcx)\n" /* counted: the commit */
		     LANE_SEQ_ABORT
		     :
		     : [w] "r"(w), [frame] "r"(frame), [start] "r"(start_ns), [addr] "r"(addr),
		       [arg] "re"(arg), [callsite] "r"(callsite), [kind_op] "ri"(kind_op),
		       [max] "i"(MTX_LANE_MAX_OPS), LANE_SEQ_OFFSETS
		     : "rax", "rcx", "rdx", "memory", "cc"
		     : refused);
	return 1;
refused:
	return 0;
}

/* Publish: copy @k records from @src into the ring and store the head word
 * raised by @k, with the top op given back. Returns 0, or 1 when they do not
 * fit under the cached limit or the lane is gone (nothing changed). */
static inline __attribute__((always_inline)) int
lane_seq_publish(struct mtx_lane_writer *w, const struct mtx_sync_record *src, uint64_t k)
{
	__asm__ goto(LANE_SEQ_TABLE
		     "1:\tmovq %c[o_lane](%[w]), %%rcx\n\t"
		     "testq %%rcx, %%rcx\n\t"
		     "jz %l[full]\n\t"
		     "movq %c[o_head](%%rcx), %%rdx\n\t"
		     "shlq $16, %%rdx\n\t"
		     "shrq $16, %%rdx\n\t"
		     "leaq (%%rdx,%[k]), %%r8\n\t"
		     "cmpq %c[o_limit](%[w]), %%r8\n\t"
		     "ja %l[full]\n\t"
		     "movq %[src], %%rsi\n"
		     "6:\tmovq %%rdx, %%r9\n\t"
		     "andq %c[o_mask](%[w]), %%r9\n\t"
		     "shlq $6, %%r9\n\t"
		     "addq %c[o_recs](%[w]), %%r9\n\t"
		     "movq 0(%%rsi), %%rax\n\tmovq %%rax, 0(%%r9)\n\t"
		     "movq 8(%%rsi), %%rax\n\tmovq %%rax, 8(%%r9)\n\t"
		     "movq 16(%%rsi), %%rax\n\tmovq %%rax, 16(%%r9)\n\t"
		     "movq 24(%%rsi), %%rax\n\tmovq %%rax, 24(%%r9)\n\t"
		     "movq 32(%%rsi), %%rax\n\tmovq %%rax, 32(%%r9)\n\t"
		     "movq 40(%%rsi), %%rax\n\tmovq %%rax, 40(%%r9)\n\t"
		     "movq 48(%%rsi), %%rax\n\tmovq %%rax, 48(%%r9)\n\t"
		     "movq 56(%%rsi), %%rax\n\tmovq %%rax, 56(%%r9)\n\t"
		     "addq $64, %%rsi\n\t"
		     "incq %%rdx\n\t"
		     "cmpq %%r8, %%rdx\n\t"
		     "jne 6b\n\t"
		     "movabsq %[one], %%rax\n\t"
		     "negq %%rax\n\t"
		     "addq %[k], %%rax\n\t"
		     "addq %%rax, %c[o_head](%%rcx)\n" /* published, op given back */
		     LANE_SEQ_ABORT
		     :
		     : [w] "r"(w), [src] "r"(src), [k] "r"(k), LANE_SEQ_OFFSETS
		     : "rax", "rcx", "rdx", "rsi", "r8", "r9", "memory", "cc"
		     : full);
	return 0;
full:
	return 1;
}

/* The same for one call record (@stamp, @fn): no op is given back. */
static inline __attribute__((always_inline)) int
lane_seq_call(struct mtx_lane_writer *w, uint64_t stamp, uint64_t fn)
{
	__asm__ goto(LANE_SEQ_TABLE
		     "1:\tmovq %c[o_lane](%[w]), %%rcx\n\t"
		     "testq %%rcx, %%rcx\n\t"
		     "jz %l[full]\n\t"
		     "movq %c[o_head](%%rcx), %%rdx\n\t"
		     "leaq 1(%%rdx), %%rax\n\t"
		     "cmpq %c[o_limit](%[w]), %%rax\n\t"
		     "ja %l[full]\n\t"
		     "andq %c[o_mask](%[w]), %%rdx\n\t"
		     "shlq $4, %%rdx\n\t"
		     "addq %c[o_recs](%[w]), %%rdx\n\t"
		     "movq %[stamp], 0(%%rdx)\n\t"
		     "movq %[fn], 8(%%rdx)\n\t"
		     "incq %c[o_head](%%rcx)\n" /* published */
		     LANE_SEQ_ABORT
		     :
		     : [w] "r"(w), [stamp] "r"(stamp), [fn] "r"(fn), LANE_SEQ_OFFSETS
		     : "rax", "rcx", "rdx", "memory", "cc"
		     : full);
	return 0;
full:
	return 1;
}

/* Without an rseq area, a sequence runs with every signal blocked. errno
 * is untouched: pthread_sigmask returns its error instead of setting it. */
static inline void lane_block_signals(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, old);
}

static inline void lane_unblock_signals(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* The value of sequence @seq (one of lane_seq_*), run as writer @w can:
 * inside its rseq area, or with signals blocked. */
#define LANE_RUN_SEQ(w, seq)                          \
	({                                            \
		int done_;                            \
		if (__builtin_expect(!(w)->no_rseq, 1)) { \
			done_ = (seq);                \
		} else {                              \
			sigset_t old_;                \
			lane_block_signals(&old_);    \
			done_ = (seq);                \
			lane_unblock_signals(&old_);  \
		}                                     \
		done_;                                \
	})

/* lane_drop_op - give back the top op without publishing anything: one
 * instruction, so no signal handler sees it half done. */
static inline void lane_drop_op(struct mtx_lane_writer *w)
{
	__asm__ __volatile__("subq %1, %0" : "+m"(w->lane->head) : "r"(MTX_LANE_OP_ONE) : "memory", "cc");
}

/*
 * lane_begin_op - an operation starts: take the next slot of the lane's ops
 * and fill in what is known of it (@start_ns 0 when it is stamped later;
 * end_ns and result 0 until it returns), with @frame, the wrapper's stack
 * frame. The writer must have a lane (lane_claim). Returns the op's record,
 * for the caller to complete and lane_publish; NULL when it cannot be
 * recorded (counted in lost_full, unless the lane is gone: a child forked
 * by a signal handler, whose parent records the op).
 */
static inline __attribute__((always_inline)) struct mtx_sync_record *
lane_begin_op(struct mtx_lane_region *r, struct mtx_lane_writer *w, uint16_t kind,
	      uint16_t op, uint64_t addr, uint64_t arg, uint64_t start_ns, uint64_t callsite,
	      const void *frame)
{
	uint32_t kind_op = (uint32_t)kind | (uint32_t)op << 16;
	int ok = LANE_RUN_SEQ(w, lane_seq_begin(w, (uint64_t)(uintptr_t)frame, start_ns, addr, arg,
						callsite, kind_op));
	struct mtx_shm_lane *l = w->lane;

	if (__builtin_expect(!ok, 0)) {
		if (l)
			__atomic_fetch_add(&r->hdr->lost_full, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	/* ours is the top op: a handler that ran since gave its own back */
	return &l->ops[mtx_lane_nr_ops(__atomic_load_n(&l->head, __ATOMIC_RELAXED)) - 1].rec;
}

/*
 * lane_owns_op - whether @rec (from lane_begin_op) is in the writer's lane.
 * Not in a child that a signal handler forked while the op was under way:
 * the op is its parent's, and the child must not touch the parent's lane.
 */
static inline int lane_owns_op(const struct mtx_lane_writer *w, const struct mtx_sync_record *rec)
{
	return (uintptr_t)rec - (uintptr_t)w->lane < MTX_SHM_LANE_HEADER_SIZE;
}

/* The slow path of lane_publish: signals blocked, or the lane full. */
static __attribute__((noinline, cold, unused)) int
lane_publish_slow(struct mtx_lane_region *r, struct mtx_lane_writer *w,
		  struct mtx_sync_record *src, uint32_t k)
{
	for (;;) {
		uint64_t waited_from;
		struct lane_wait wait;

		if (!LANE_RUN_SEQ(w, lane_seq_publish(w, src, k)))
			return 1;
		if (!w->lane)
			return 0; /* a forked child's copy of its parent's op */
		waited_from = r->stamp ? r->stamp() : 0;
		if (!lane_make_room(r, w, k, &wait)) {
			lane_drop_op(w);
			__atomic_fetch_add(&r->hdr->lost_full, 1, __ATOMIC_RELAXED);
			return 0;
		}
		/* the wake and the wait are this op's overhead (the record is
		 * ours until published), as far as they took the thread's CPU
		 * time: asleep waiting, it spent none (seed 004 charges a
		 * thread's clock only for its own execution) */
		if (r->stamp) {
			uint64_t d = r->stamp() - waited_from;
			if (wait.cpu_ns < wait.wall_ns)
				d = (uint64_t)((double)d * (double)wait.cpu_ns / (double)wait.wall_ns);
			src[k - 1].overhead = lane_add_sat32(src[k - 1].overhead, d);
		}
	}
}

/*
 * lane_publish - publish the top op: its record at @src (normally the op's
 * own slot, completed: result, then end_ns), preceded there by @k - 1 frames
 * records when @k > 1, and give the op back, all in one store. Waits while
 * the lane is full. Returns 1, or 0 when the records were lost (counted in
 * lost_full; the op is given back all the same).
 */
static inline __attribute__((always_inline)) int
lane_publish(struct mtx_lane_region *r, struct mtx_lane_writer *w,
	     struct mtx_sync_record *src, uint32_t k)
{
	if (__builtin_expect(!w->no_rseq, 1) && lane_seq_publish(w, src, k) == 0)
		return 1;
	return lane_publish_slow(r, w, src, k);
}

/* What an op's wrapper cost its thread (shm.h, RECORDS: overhead,
 * injected), in the records' clock units. */
struct lane_cost {
	uint32_t overhead, injected;
};

/* Complete @rec: returned with @result at @end_ns (@start_ns too when it
 * was not known at the start), having cost @cost. end_ns is stored last: a
 * nonzero one says the call returned. */
static inline __attribute__((always_inline)) void
lane_complete(struct mtx_sync_record *rec, uint64_t start_ns, uint64_t end_ns, int32_t result,
	      struct lane_cost cost)
{
	if (start_ns)
		rec->start_ns = start_ns;
	rec->result = result;
	rec->overhead = cost.overhead;
	rec->injected = cost.injected;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	rec->end_ns = end_ns;
}

/* lane_end_op_cost - complete @rec (from lane_begin_op) and publish it. */
static inline __attribute__((always_inline)) int
lane_end_op_cost(struct mtx_lane_region *r, struct mtx_lane_writer *w, struct mtx_sync_record *rec,
		 uint64_t start_ns, uint64_t end_ns, int32_t result, struct lane_cost cost)
{
	if (__builtin_expect(!lane_owns_op(w, rec), 0))
		return 0;
	lane_complete(rec, start_ns, end_ns, result, cost);
	return lane_publish(r, w, rec, 1);
}

/* lane_end_op - lane_end_op_cost of an op that cost nothing measured. */
static inline __attribute__((always_inline)) int
lane_end_op(struct mtx_lane_region *r, struct mtx_lane_writer *w, struct mtx_sync_record *rec,
	    uint64_t start_ns, uint64_t end_ns, int32_t result)
{
	return lane_end_op_cost(r, w, rec, start_ns, end_ns, result, (struct lane_cost){ 0, 0 });
}

/*
 * lane_end_op_stack - lane_end_op, with the return addresses @pcs[0 .. @nr)
 * of the caller's stack (at most MTX_SYNC_STACK_MAX are kept) published as
 * frames records just before the record, by the same store (shm.h, FRAMES
 * RECORDS). They are put together on this stack first.
 */
static inline int lane_end_op_stack(struct mtx_lane_region *r, struct mtx_lane_writer *w,
				    struct mtx_sync_record *rec, uint64_t start_ns, uint64_t end_ns,
				    int32_t result, struct lane_cost cost, const uint64_t *pcs,
				    uint32_t nr)
{
	struct mtx_sync_record recs[MTX_SYNC_FRAMES_MAX_RECORDS + 1];
	uint32_t frames;

	if (!lane_owns_op(w, rec))
		return 0;
	lane_complete(rec, start_ns, end_ns, result, cost);
	if (nr > MTX_SYNC_STACK_MAX)
		nr = MTX_SYNC_STACK_MAX;
	frames = (nr + MTX_SYNC_FRAMES_PER_RECORD - 1) / MTX_SYNC_FRAMES_PER_RECORD;
	for (uint32_t i = 0; i < frames; i++) {
		struct mtx_sync_frames *f = (struct mtx_sync_frames *)&recs[i];
		uint32_t from = i * MTX_SYNC_FRAMES_PER_RECORD, k = nr - from;

		if (k > MTX_SYNC_FRAMES_PER_RECORD)
			k = MTX_SYNC_FRAMES_PER_RECORD;
		memset(f, 0, sizeof(*f));
		memcpy(f->pcs, pcs + from, k * sizeof(*pcs));
		f->kind = MTX_SYNC_KIND_FRAMES;
		f->nr = (uint8_t)k;
		f->index = (uint8_t)i;
		f->count = (uint8_t)frames;
	}
	recs[frames] = *rec;
	return lane_publish(r, w, recs, frames + 1);
}

/*
 * lane_write - one op from start to end at once (tests; the library's
 * wrappers begin before the call and end after it). Returns 1 when
 * published, 0 when lost.
 */
static inline int lane_write(struct mtx_lane_region *r, struct mtx_lane_writer *w,
			     uint16_t kind, uint16_t op, uint64_t addr, uint64_t arg,
			     uint64_t start_ns, uint64_t end_ns, int32_t result, uint64_t callsite)
{
	struct mtx_sync_record *rec = lane_begin_op(r, w, kind, op, addr, arg, start_ns, callsite,
						    __builtin_frame_address(0));

	return rec ? lane_end_op(r, w, rec, 0, end_ns, result) : 0;
}

/* What a call record's writer calls when the sequence did not publish
 * (lane_write_call_slow, or a wrapper of it: see preload-calls.c). */
typedef void (*lane_call_slow_fn)(struct mtx_lane_region *r, struct mtx_lane_writer *w,
				  uint64_t stamp, uint64_t fn);

/* The slow path of lane_write_call: signals blocked, or the lane full. */
static __attribute__((noinline, cold, unused)) void
lane_write_call_slow(struct mtx_lane_region *r, struct mtx_lane_writer *w, uint64_t stamp,
		     uint64_t fn)
{
	for (;;) {
		if (!LANE_RUN_SEQ(w, lane_seq_call(w, stamp, fn)) || !w->lane)
			return;
		struct lane_wait wait;

		if (!lane_make_room(r, w, 1, &wait)) {
			__atomic_fetch_add(&r->hdr->lost_full, 1, __ATOMIC_RELAXED);
			return;
		}
	}
}

/*
 * lane_write_call - append one call record (the call region's lanes): the
 * same protocol with a 16-byte record and no op. @slow is called when the
 * sequence did not publish (lane_write_call_slow, or a wrapper of it that
 * saves registers its caller must not lose: see preload-calls.c).
 */
static inline __attribute__((always_inline)) void
lane_write_call(struct mtx_lane_region *r, struct mtx_lane_writer *w, uint64_t stamp,
		uint64_t fn, lane_call_slow_fn slow)
{
	if (__builtin_expect(!w->no_rseq, 1) && lane_seq_call(w, stamp, fn) == 0)
		return;
	slow(r, w, stamp, fn);
}

#endif
