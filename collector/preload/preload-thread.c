/*
 * collector/preload/preload-thread.c - thread create, join, detach and exit,
 * POSIX and C11 (kind thread).
 *
 * A thread "object" is its pthread_t / thrd_t value (addr). arg is the
 * thread's kernel tid when it can be read from the handle (see
 * preload_thread_tid): create stamps before the call, so the record precedes
 * everything the new thread does; the tid is read after it, and is 0 when the
 * new thread already finished by then. The kernel's fork event (ptid = the
 * creator, time inside [start_ns, end_ns]) names the thread in every case.
 */
#define _GNU_SOURCE
#include "collector/preload/preload.h"

#define K MTX_SYNC_KIND_THREAD
#define O(o) MTX_SYNC_OP_##o

PRELOAD_EXPORT int pthread_create(pthread_t *restrict thread, const pthread_attr_t *restrict attr,
				  void *(*start)(void *), void *restrict arg)
{
	struct mtx_sync_record *o;
	uint64_t e, t0, t1;
	uint32_t injected;
	int r;

	if (!preload_recording())
		return REAL(pthread_create)(thread, attr, start, arg);
	e = preload_now();
	o = preload_begin(K, O(CREATE), NULL, 0, e, PRELOAD_CALLSITE, PRELOAD_FRAME);
	t0 = preload_call_starts(o, &e, &injected);
	r = REAL(pthread_create)(thread, attr, start, arg);
	t1 = preload_returned();
	if (r == 0)
		preload_learned(o, (void *)*thread, (uint32_t)preload_thread_tid(*thread));
	preload_end(o, t0, t1, r, preload_cost(e, t0, injected));
	return r;
}

PRELOAD_EXPORT int pthread_join(pthread_t thread, void **retval)
{
	uint64_t tid;

	if (!preload_recording())
		return REAL(pthread_join)(thread, retval);
	/* read before: the handle is valid until join returns (0 if it exited) */
	tid = (uint32_t)preload_thread_tid(thread);
	TRACE_BLOCKING(K, O(JOIN), (void *)thread, tid, REAL(pthread_join)(thread, retval));
}

PRELOAD_EXPORT int pthread_detach(pthread_t thread)
{
	uint64_t tid = preload_on() ? (uint32_t)preload_thread_tid(thread) : 0;

	TRACE_BEFORE(K, O(DETACH), (void *)thread, tid, REAL(pthread_detach)(thread));
}

/* Recorded before the call, which does not return; the lane is given back
 * by the thread-exit key destructor that pthread_exit runs. */
PRELOAD_EXPORT void pthread_exit(void *retval)
{
	if (preload_on()) {
		uint64_t e = preload_now(), t;
		struct mtx_sync_record *o = preload_begin(K, O(EXIT), (void *)pthread_self(),
							  (uintptr_t)retval, e, PRELOAD_CALLSITE,
							  PRELOAD_FRAME);
		uint32_t injected;

		t = preload_call_starts(o, &e, &injected);
		preload_end(o, t, t, 0, preload_cost(e, t, injected));
	}
	preload_calls_thread_exit();
	REAL(pthread_exit)(retval);
	__builtin_unreachable();
}

PRELOAD_EXPORT int thrd_create(thrd_t *thr, thrd_start_t func, void *arg)
{
	struct mtx_sync_record *o;
	uint64_t e, t0, t1;
	uint32_t injected;
	int r;

	if (!preload_recording())
		return REAL(thrd_create)(thr, func, arg);
	e = preload_now();
	o = preload_begin(K, O(CREATE), NULL, 0, e, PRELOAD_CALLSITE, PRELOAD_FRAME);
	t0 = preload_call_starts(o, &e, &injected);
	r = REAL(thrd_create)(thr, func, arg);
	t1 = preload_returned();
	if (r == thrd_success)
		preload_learned(o, (void *)*thr, (uint32_t)preload_thread_tid(*thr));
	preload_end(o, t0, t1, r, preload_cost(e, t0, injected));
	return r;
}

PRELOAD_EXPORT int thrd_join(thrd_t thr, int *res)
{
	uint64_t tid;

	if (!preload_recording())
		return REAL(thrd_join)(thr, res);
	tid = (uint32_t)preload_thread_tid(thr);
	TRACE_BLOCKING(K, O(JOIN), (void *)thr, tid, REAL(thrd_join)(thr, res));
}

PRELOAD_EXPORT int thrd_detach(thrd_t thr)
{
	uint64_t tid = preload_on() ? (uint32_t)preload_thread_tid(thr) : 0;

	TRACE_BEFORE(K, O(DETACH), (void *)thr, tid, REAL(thrd_detach)(thr));
}

PRELOAD_EXPORT void thrd_exit(int res)
{
	if (preload_on()) {
		uint64_t e = preload_now(), t;
		struct mtx_sync_record *o = preload_begin(K, O(EXIT), (void *)pthread_self(),
							  (uint64_t)(uint32_t)res, e, PRELOAD_CALLSITE,
							  PRELOAD_FRAME);
		uint32_t injected;

		t = preload_call_starts(o, &e, &injected);
		preload_end(o, t, t, 0, preload_cost(e, t, injected));
	}
	preload_calls_thread_exit();
	REAL(thrd_exit)(res);
	__builtin_unreachable();
}
