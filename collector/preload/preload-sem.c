/*
 * collector/preload/preload-sem.c - wrappers for POSIX semaphores, unnamed
 * (sem_init/sem_destroy) and named (sem_open/sem_close).
 *
 * These calls return -1 and set errno; a record's result is 0 or that errno,
 * and errno is left exactly as the real call left it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>

#include "collector/preload/preload.h"

#define K MTX_SYNC_KIND_SEM
#define O(o) MTX_SYNC_OP_##o

PRELOAD_EXPORT int sem_init(sem_t *s, int pshared, unsigned value)
{
	TRACE_BEFORE_AS(RESULT_ERRNO, K, O(INIT), s, value, REAL(sem_init)(s, pshared, value));
}

/* Usually the value is positive: try first, stamp once (as for mutex lock). */
PRELOAD_EXPORT int sem_wait(sem_t *s)
{
	struct mtx_sync_record *o;
	uint64_t e, b, t0, t1;
	uint32_t injected;
	int r, saved;

	if (!preload_recording())
		return REAL(sem_wait)(s);
	e = preload_now();
	o = preload_begin(K, O(WAIT), s, 0, 0, PRELOAD_CALLSITE, PRELOAD_FRAME);
	saved = errno;
	b = preload_call_starts(o, &e, &injected);
	r = REAL(sem_trywait)(s);
	if (r == 0) {
		t0 = preload_returned();
		preload_end(o, t0, t0, 0, preload_cost(e, b, injected));
		return 0;
	}
	errno = saved; /* the failed try must not leave EAGAIN behind */
	t0 = preload_returned();
	preload_started(o, t0);
	r = REAL(sem_wait)(s);
	t1 = preload_returned();
	preload_end(o, 0, t1, RESULT_ERRNO(r), preload_cost(e, b, injected));
	return r;
}

PRELOAD_EXPORT int sem_trywait(sem_t *s)
{
	TRACE_AFTER_AS(RESULT_ERRNO, K, O(TRYWAIT), s, 0, REAL(sem_trywait)(s));
}

PRELOAD_EXPORT int sem_timedwait(sem_t *restrict s, const struct timespec *restrict abstime)
{
	TRACE_BLOCKING_AS(RESULT_ERRNO, K, O(TIMEDWAIT), s, 0, REAL(sem_timedwait)(s, abstime));
}

PRELOAD_EXPORT int sem_clockwait(sem_t *restrict s, clockid_t clock,
				 const struct timespec *restrict abstime)
{
	TRACE_BLOCKING_AS(RESULT_ERRNO, K, O(TIMEDWAIT), s, 0, REAL(sem_clockwait)(s, clock, abstime));
}

PRELOAD_EXPORT int sem_post(sem_t *s)
{
	TRACE_BEFORE_AS(RESULT_ERRNO, K, O(POST), s, 0, REAL(sem_post)(s));
}

PRELOAD_EXPORT int sem_destroy(sem_t *s)
{
	TRACE_BEFORE_AS(RESULT_ERRNO, K, O(DESTROY), s, 0, REAL(sem_destroy)(s));
}

/* addr is the sem_t the call returned (0 on failure). */
PRELOAD_EXPORT sem_t *sem_open(const char *name, int oflag, ...)
{
	mode_t mode = 0;
	unsigned value = 0;
	struct mtx_sync_record *o;
	uint64_t e, t0, t1;
	uint32_t injected;
	sem_t *s;

	/* The mode and value arguments exist only with O_CREAT. */
	if (oflag & O_CREAT) {
		va_list ap;

		va_start(ap, oflag);
		mode = va_arg(ap, mode_t);
		value = va_arg(ap, unsigned);
		va_end(ap);
	}
	if (!preload_recording())
		return REAL(sem_open)(name, oflag, mode, value);
	e = preload_now();
	o = preload_begin(K, O(OPEN), NULL, value, e, PRELOAD_CALLSITE, PRELOAD_FRAME);
	t0 = preload_call_starts(o, &e, &injected);
	s = REAL(sem_open)(name, oflag, mode, value);
	t1 = preload_returned();
	preload_learned(o, s == SEM_FAILED ? NULL : s, value);
	preload_end(o, t0, t1, s == SEM_FAILED ? errno : 0, preload_cost(e, t0, injected));
	return s;
}

PRELOAD_EXPORT int sem_close(sem_t *s)
{
	TRACE_BEFORE_AS(RESULT_ERRNO, K, O(CLOSE), s, 0, REAL(sem_close)(s));
}
