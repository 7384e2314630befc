/*
 * collector/preload/preload.h - what the files of libmtx-preload.so share:
 * the table of real functions, the per-thread writer, and the helpers every
 * wrapper uses. Nothing here is exported from the library (it is built with
 * -fvisibility=hidden); wrappers are marked PRELOAD_EXPORT one by one.
 *
 * How a wrapper stamps time (so that happened-before is never inverted between
 * a release in one thread and the matching acquire in another):
 *   - releases (unlock, post, signal, broadcast, kill, create, exit, ...)
 *     take one stamp before the call: start_ns == end_ns <= the release;
 *   - acquires that did not block (lock whose trylock succeeded, trylock,
 *     trywait) take one stamp after the call: start_ns == end_ns >= the
 *     acquisition;
 *   - everything that may block takes a stamp before and after.
 * So an uncontended lock+unlock pair costs two clock reads, not four.
 *
 * What the wrapper costs its thread (the record's overhead, shm.h): one
 * more stamp at the wrapper's entry, and the stamp just before the real
 * call (preload_call_starts), which is also the op's start_ns: whatever
 * the wrapper did first (claiming a lane, filling in the op, the busy wait
 * of --inject-overhead) lies before start_ns, in the thread's time before
 * the op. After the real call the wrapper only publishes the record: a
 * few stores that no stamp sees, unless the lane is full (lane.h adds
 * that wait). So overhead = (exit - entry) - (after real - before real)
 * with exit taken as the stamp after the real call, for two more clock
 * reads at most per op.
 */
#ifndef MTX_COLLECTOR_PRELOAD_PRELOAD_H
#define MTX_COLLECTOR_PRELOAD_PRELOAD_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <threads.h>
#include <unistd.h>
#include <x86intrin.h>

#include "collector/preload/lane.h"

#define PRELOAD_EXPORT __attribute__((visibility("default")))
#define PRELOAD_CALLSITE ((uint64_t)(uintptr_t)__builtin_return_address(0))

/*
 * Every function the library interposes: X(name, symbol version or NULL).
 * pthread_cond_* exist twice in glibc on x86-64 (GLIBC_2.2.5 for the old
 * LinuxThreads-compatible layout, GLIBC_2.3.2 for the current one); a program
 * built today binds to 2.3.2, so the wrapper must forward to that one.
 */
#define PRELOAD_REALS(X)                                  \
	X(pthread_mutex_init, NULL)                       \
	X(pthread_mutex_lock, NULL)                       \
	X(pthread_mutex_trylock, NULL)                    \
	X(pthread_mutex_timedlock, NULL)                  \
	X(pthread_mutex_clocklock, NULL)                  \
	X(pthread_mutex_unlock, NULL)                     \
	X(pthread_mutex_destroy, NULL)                    \
	X(pthread_rwlock_init, NULL)                      \
	X(pthread_rwlock_rdlock, NULL)                    \
	X(pthread_rwlock_wrlock, NULL)                    \
	X(pthread_rwlock_tryrdlock, NULL)                 \
	X(pthread_rwlock_trywrlock, NULL)                 \
	X(pthread_rwlock_timedrdlock, NULL)               \
	X(pthread_rwlock_timedwrlock, NULL)               \
	X(pthread_rwlock_clockrdlock, NULL)               \
	X(pthread_rwlock_clockwrlock, NULL)               \
	X(pthread_rwlock_unlock, NULL)                    \
	X(pthread_rwlock_destroy, NULL)                   \
	X(pthread_spin_init, NULL)                        \
	X(pthread_spin_lock, NULL)                        \
	X(pthread_spin_trylock, NULL)                     \
	X(pthread_spin_unlock, NULL)                      \
	X(pthread_spin_destroy, NULL)                     \
	X(pthread_cond_init, "GLIBC_2.3.2")               \
	X(pthread_cond_wait, "GLIBC_2.3.2")               \
	X(pthread_cond_timedwait, "GLIBC_2.3.2")          \
	X(pthread_cond_signal, "GLIBC_2.3.2")             \
	X(pthread_cond_broadcast, "GLIBC_2.3.2")          \
	X(pthread_cond_destroy, "GLIBC_2.3.2")            \
	X(pthread_cond_clockwait, NULL)                   \
	X(pthread_barrier_init, NULL)                     \
	X(pthread_barrier_wait, NULL)                     \
	X(pthread_barrier_destroy, NULL)                  \
	X(sem_init, NULL)                                 \
	X(sem_wait, NULL)                                 \
	X(sem_trywait, NULL)                              \
	X(sem_timedwait, NULL)                            \
	X(sem_clockwait, NULL)                            \
	X(sem_post, NULL)                                 \
	X(sem_destroy, NULL)                              \
	X(sem_open, NULL)                                 \
	X(sem_close, NULL)                                \
	X(mtx_init, NULL)                                 \
	X(mtx_lock, NULL)                                 \
	X(mtx_trylock, NULL)                              \
	X(mtx_timedlock, NULL)                            \
	X(mtx_unlock, NULL)                               \
	X(mtx_destroy, NULL)                              \
	X(cnd_init, NULL)                                 \
	X(cnd_wait, NULL)                                 \
	X(cnd_timedwait, NULL)                            \
	X(cnd_signal, NULL)                               \
	X(cnd_broadcast, NULL)                            \
	X(cnd_destroy, NULL)                              \
	X(thrd_create, NULL)                              \
	X(thrd_join, NULL)                                \
	X(thrd_detach, NULL)                              \
	X(thrd_exit, NULL)                                \
	X(pthread_create, NULL)                           \
	X(pthread_join, NULL)                             \
	X(pthread_detach, NULL)                           \
	X(pthread_exit, NULL)                             \
	X(kill, NULL)                                     \
	X(tgkill, NULL)                                   \
	X(pthread_kill, NULL)                             \
	X(raise, NULL)                                    \
	X(sigqueue, NULL)                                 \
	X(pthread_setschedparam, NULL)                    \
	X(pthread_setschedprio, NULL)                     \
	X(sched_setscheduler, NULL)                       \
	X(sched_setparam, NULL)                           \
	X(setpriority, NULL)                              \
	X(nice, NULL)                                     \
	X(sched_setaffinity, NULL)                        \
	X(pthread_setaffinity_np, NULL)                   \
	X(longjmp, NULL)                                  \
	X(_longjmp, NULL)                                 \
	X(siglongjmp, NULL)                               \
	X(__longjmp_chk, NULL)

/* What -D_FORTIFY_SOURCE turns longjmp and siglongjmp into (bits/setjmp2.h
 * declares it only in fortified builds). */
void __longjmp_chk(struct __jmp_buf_tag env[1], int val) __attribute__((noreturn));

#define X(fn, ver) extern __typeof__(fn) *preload_real_##fn;
PRELOAD_REALS(X)
#undef X

/* Resolve one real function (slow path: only before the constructor ran). */
void *preload_resolve(const char *name, const char *version);

#define X(fn, ver) void *preload_resolve_##fn(void);
PRELOAD_REALS(X)
#undef X

/* preload_get_<fn>(): the real function, resolved on first use if needed. */
#define X(fn, ver)                                                                 \
	static inline __typeof__(fn) *preload_get_##fn(void)                       \
	{                                                                          \
		__typeof__(fn) *p_ = preload_real_##fn;                            \
		if (__builtin_expect(p_ == NULL, 0))                               \
			preload_real_##fn = p_ = (__typeof__(fn) *)preload_resolve_##fn(); \
		return p_;                                                         \
	}
PRELOAD_REALS(X)
#undef X

#define REAL(fn) (preload_get_##fn())

/* Per-thread state, in initial-exec TLS: no allocation, no __tls_get_addr. */
struct preload_thread {
	struct mtx_lane_writer w;
	struct mtx_lane_writer cw; /* the call region's lane (preload-calls.c) */
	uint32_t guard;        /* library code running in this thread: don't record */
	uint32_t nolane_stalled; /* a lane claim waited in vain: don't wait again */
	/* --inject-overhead:thread=NAME: the name-change count (plus one) at
	 * which inject_here was decided, and whether this thread is named so */
	uint32_t inject_seen, inject_here;
	uintptr_t stack_lo, stack_hi; /* the thread's stack, for stack walks; 0: unknown */
};

extern __thread struct preload_thread preload_tls __attribute__((tls_model("initial-exec")));
extern struct mtx_lane_region preload_region;
extern int preload_attached;
/* The call region (MTX_CALL_ENV), for the -pg / -finstrument-functions hooks. */
extern struct mtx_lane_region preload_call_region;
extern int preload_calls_attached;
extern int preload_tid_offset;

/* Slow path of preload_begin: claim a lane. Returns 1 when one was claimed. */
int preload_claim(struct preload_thread *t);
/* The same for writer @w of @t in region @r (a call lane). */
int preload_claim_in(struct preload_thread *t, struct mtx_lane_writer *w,
		     struct mtx_lane_region *r);

/* pthread_exit/thrd_exit: give back the return addresses the -pg hooks
 * replaced, so the unwinding they do finds the real frames. */
void preload_calls_thread_exit(void);
/* The thread is exiting (its key destructor): free what the hooks kept. */
void preload_calls_thread_gone(void);
/* An exception is about to be unwound: the same, keeping the entries. */
void preload_calls_unwinding(void);
/* It was caught by the frame whose stack pointer is @sp: the calls it
 * unwound end now; the frames above are redirected again. */
void preload_calls_caught(const void *sp);

/* Whether a jmp_buf's stack pointer can be read (preload-jump.c). */
void preload_jump_check(void);

/* The region asks for user stacks with each record (mtx collect
 * --sync-stacks): the most frames to walk, 0 for none. */
extern uint32_t preload_stack_frames;

/* preload_end with the caller's user stack (see preload.c). */
void preload_end_stack(struct mtx_sync_record *rec, uint64_t start_ns, uint64_t end_ns,
		       int32_t result, struct lane_cost cost);

/* --inject-overhead (preload-inject.c): the busy wait before each real
 * call, in the records' clock units; 0: none. */
extern uint64_t preload_inject_delay;
/* The busy wait if the calling thread and op @rec are in the option's
 * scope; returns the stamp after it, and the wait in *@injected; the time
 * it spent off the CPU moves the wrapper's *@entry stamp later. */
uint64_t preload_inject(const struct mtx_sync_record *rec, uint64_t *entry, uint32_t *injected);
/* Read the option from the region's header. */
void preload_inject_setup(const struct mtx_shm_header *h);

/* Kernel tid of a live thread handle, 0 when unknown (see preload.c). */
static inline int32_t preload_thread_tid(pthread_t thread)
{
	if (preload_tid_offset < 0 || thread == 0)
		return 0;
	return *(volatile int32_t *)((char *)thread + preload_tid_offset);
}

static inline int preload_on(void)
{
	return __builtin_expect(preload_attached, 1);
}

/* Whether an op is to be recorded now: attached, and sync not switched
 * off by the collector (mtx ctl source off sync). */
static inline int preload_recording(void)
{
	return __builtin_expect(preload_attached && !__atomic_load_n(&preload_region.hdr->paused, __ATOMIC_RELAXED), 1);
}

/* The vDSO's clock_gettime, called without glibc's wrapper (see preload.c). */
extern int (*preload_vdso_clock_gettime)(clockid_t, struct timespec *);
/* The region asks for raw TSC stamps (MTX_SHM_CLOCK_TSC). */
extern int preload_tsc;

static inline uint64_t preload_now(void)
{
	struct timespec ts;

	/* Raw TSC when the collector converts it (collector/sync/tsc-map.h). */
	if (__builtin_expect(preload_tsc, 1))
		return __rdtsc();
	if (__builtin_expect(preload_vdso_clock_gettime != NULL, 1))
		preload_vdso_clock_gettime(CLOCK_MONOTONIC, &ts);
	else
		clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * preload_returned - the stamp after a real call, read once the call is
 * done. rdtsc waits for nothing before it: the stamp after a call that
 * took a lock could be read before the call's atomic step (or a spin
 * loop's last load) was done, ahead of the unlock on another CPU that let
 * it in: tests/e2e/test-sync-order.sh saw 25-35% of a spinlock's handoffs
 * so, by up to 756 ns. The lfence makes it wait. A stamp before a call
 * needs none: it retires before the call's stores, which only then become
 * visible. (The vDSO's clock_gettime orders its own TSC read.)
 */
static inline uint64_t preload_returned(void)
{
	if (__builtin_expect(preload_tsc, 1))
		_mm_lfence();
	return preload_now();
}

/*
 * preload_call_starts - the real call of op @rec is next: the busy wait of
 * --inject-overhead when the thread and the op are in its scope (*@injected: how
 * long; *@entry, the wrapper's entry stamp, moves later by what of it was
 * spent off the CPU), then a stamp, returned: the end of the wrapper's
 * own work before the call.
 */
static inline __attribute__((always_inline)) uint64_t
preload_call_starts(const struct mtx_sync_record *rec, uint64_t *entry, uint32_t *injected)
{
	*injected = 0;
	if (__builtin_expect(preload_inject_delay != 0, 0) && rec)
		return preload_inject(rec, entry, injected);
	return preload_now();
}

/* What the wrapper cost from its entry stamp @entry to @call_start
 * (preload_call_starts), of which @injected was the injected wait. */
static inline struct lane_cost preload_cost(uint64_t entry, uint64_t call_start, uint32_t injected)
{
	uint64_t d = call_start > entry ? call_start - entry : 0;

	return (struct lane_cost){ d > UINT32_MAX ? UINT32_MAX : (uint32_t)d, injected };
}

/*
 * preload_begin - the calling thread starts an operation (claiming a lane on
 * its first): its description goes into the lane's ops (shm.h) before the
 * real call, so that the op is recorded even if the thread dies inside the
 * call or a signal handler leaves it by siglongjmp (preload-jump.c).
 * @start_ns is 0 when the op is stamped after the call. Returns the op's
 * record for preload_end, or NULL when it is not recorded (counted).
 */
static inline __attribute__((always_inline)) struct mtx_sync_record *
preload_begin(enum mtx_sync_kind kind, enum mtx_sync_op op, const volatile void *addr,
	      uint64_t arg, uint64_t start_ns, uint64_t callsite, const void *frame)
{
	struct preload_thread *t = &preload_tls;

	if (__builtin_expect(t->w.lane == NULL, 0) && !preload_claim(t))
		return NULL;
	return lane_begin_op(&preload_region, &t->w, (uint16_t)kind, (uint16_t)op,
			     (uint64_t)(uintptr_t)addr, arg, start_ns, callsite, frame);
}

/* preload_end - the call returned (@result) at @end_ns (and started at
 * @start_ns when that was not known to preload_begin), the wrapper having
 * cost @cost (preload_cost): publish @rec. */
static inline __attribute__((always_inline)) void
preload_end(struct mtx_sync_record *rec, uint64_t start_ns, uint64_t end_ns, int32_t result,
	    struct lane_cost cost)
{
	if (__builtin_expect(rec == NULL, 0))
		return;
	if (__builtin_expect(preload_stack_frames != 0, 0)) {
		preload_end_stack(rec, start_ns, end_ns, result, cost);
		return;
	}
	lane_end_op_cost(&preload_region, &preload_tls.w, rec, start_ns, end_ns, result, cost);
}

/* A blocking call's stamp taken once it is known that the op blocks. */
static inline void preload_started(struct mtx_sync_record *rec, uint64_t start_ns)
{
	if (rec && lane_owns_op(&preload_tls.w, rec))
		rec->start_ns = start_ns;
}

/* The object and argument of an op known only once the call returned
 * (pthread_create's thread). */
static inline void preload_learned(struct mtx_sync_record *rec, const volatile void *addr,
				   uint64_t arg)
{
	if (rec && lane_owns_op(&preload_tls.w, rec)) {
		rec->addr = (uint64_t)(uintptr_t)addr;
		rec->arg = arg;
	}
}

/* How a call's return value becomes a record's result: pthread and C11
 * calls return the error itself; sem_* and the signal calls return -1 and
 * set errno (left as the call left it). */
#define RESULT_RETURNED(r) (r)
#define RESULT_ERRNO(r) ((r) == 0 ? 0 : errno)

/* The wrapper's own frame: a siglongjmp that leaves it abandons its op. */
#define PRELOAD_FRAME __builtin_frame_address(0)

/*
 * The four shapes of wrapper (see the top of this file for why stamps sit
 * where they do). Each expands inside the exported wrapper, so the call site
 * is the wrapper's own return address. `call` is evaluated exactly once;
 * with the region detached it is forwarded with nothing else done. The
 * _AS forms take the RESULT_ mapping; the others use RESULT_RETURNED.
 */
#define TRACE_BEFORE_AS(result_of, kind, op, obj, arg, call)                      \
	do {                                                                      \
		struct mtx_sync_record *o_;                                       \
		uint64_t e_, t_;                                                  \
		uint32_t i_;                                                      \
		int r_;                                                           \
		if (!preload_recording())                                                \
			return call;                                              \
		e_ = preload_now();                                               \
		o_ = preload_begin(kind, op, obj, arg, e_, PRELOAD_CALLSITE, PRELOAD_FRAME); \
		t_ = preload_call_starts(o_, &e_, &i_);                                \
		r_ = call;                                                        \
		preload_end(o_, t_, t_, result_of(r_), preload_cost(e_, t_, i_)); \
		return r_;                                                        \
	} while (0)
#define TRACE_BEFORE(kind, op, obj, arg, call) TRACE_BEFORE_AS(RESULT_RETURNED, kind, op, obj, arg, call)

/* The same for a call that returns nothing (C11 *_destroy): result 0. */
#define TRACE_BEFORE_VOID(kind, op, obj, call)                                    \
	do {                                                                      \
		struct mtx_sync_record *o_;                                       \
		uint64_t e_, t_;                                                  \
		uint32_t i_;                                                      \
		if (!preload_recording()) {                                              \
			call;                                                     \
			return;                                                   \
		}                                                                 \
		e_ = preload_now();                                               \
		o_ = preload_begin(kind, op, obj, 0, e_, PRELOAD_CALLSITE, PRELOAD_FRAME); \
		t_ = preload_call_starts(o_, &e_, &i_);                                \
		call;                                                             \
		preload_end(o_, t_, t_, 0, preload_cost(e_, t_, i_));             \
	} while (0)

#define TRACE_AFTER_AS(result_of, kind, op, obj, arg, call)                       \
	do {                                                                      \
		struct mtx_sync_record *o_;                                       \
		uint64_t e_, b_, t_;                                              \
		uint32_t i_;                                                      \
		int r_;                                                           \
		if (!preload_recording())                                                \
			return call;                                              \
		e_ = preload_now();                                               \
		o_ = preload_begin(kind, op, obj, arg, 0, PRELOAD_CALLSITE, PRELOAD_FRAME); \
		b_ = preload_call_starts(o_, &e_, &i_);                                \
		r_ = call;                                                        \
		t_ = preload_returned();                                          \
		preload_end(o_, t_, t_, result_of(r_), preload_cost(e_, b_, i_)); \
		return r_;                                                        \
	} while (0)
#define TRACE_AFTER(kind, op, obj, arg, call) TRACE_AFTER_AS(RESULT_RETURNED, kind, op, obj, arg, call)

#define TRACE_BLOCKING_AS(result_of, kind, op, obj, arg, call)                      \
	do {                                                                        \
		struct mtx_sync_record *o_;                                         \
		uint64_t e_, t0_, t1_;                                              \
		uint32_t i_;                                                        \
		int r_;                                                             \
		if (!preload_recording())                                                  \
			return call;                                                \
		e_ = preload_now();                                                 \
		o_ = preload_begin(kind, op, obj, arg, e_, PRELOAD_CALLSITE, PRELOAD_FRAME); \
		t0_ = preload_call_starts(o_, &e_, &i_);                                 \
		r_ = call;                                                          \
		t1_ = preload_returned();                                           \
		preload_end(o_, t0_, t1_, result_of(r_), preload_cost(e_, t0_, i_)); \
		return r_;                                                          \
	} while (0)
#define TRACE_BLOCKING(kind, op, obj, arg, call) TRACE_BLOCKING_AS(RESULT_RETURNED, kind, op, obj, arg, call)

/*
 * An acquire that usually does not block: try first (one stamp after it
 * succeeds); only when the try says "busy" call the blocking function, with
 * stamps around it. The blocking call re-decides everything, so error cases
 * (EDEADLK on relock, EAGAIN on too many readers, EOWNERDEAD) come out as
 * they would without the library.
 */
#define TRACE_TRY_FIRST(kind, op, obj, trycall, fast, call)                         \
	do {                                                                        \
		struct mtx_sync_record *o_;                                         \
		uint64_t e_, b_, t0_, t1_;                                          \
		uint32_t i_;                                                        \
		int r_;                                                             \
		if (!preload_recording())                                                  \
			return call;                                                \
		e_ = preload_now();                                                 \
		o_ = preload_begin(kind, op, obj, 0, 0, PRELOAD_CALLSITE, PRELOAD_FRAME); \
		b_ = preload_call_starts(o_, &e_, &i_);                                  \
		r_ = trycall;                                                       \
		if (fast) {                                                         \
			t0_ = preload_returned();                                   \
			preload_end(o_, t0_, t0_, r_, preload_cost(e_, b_, i_));    \
			return r_;                                                  \
		}                                                                   \
		t0_ = preload_returned();                                           \
		preload_started(o_, t0_);                                           \
		r_ = call;                                                          \
		t1_ = preload_returned();                                           \
		preload_end(o_, 0, t1_, r_, preload_cost(e_, b_, i_));              \
		return r_;                                                          \
	} while (0)

#endif
