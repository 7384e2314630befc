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

static inline int32_t sem_result(int r)
{
	return r == 0 ? 0 : errno;
}

/* One stamp before the call (init, post, destroy, close: see preload.h). */
#define SEM_BEFORE(op, obj, arg, call)                                                       \
	do {                                                                                 \
		uint64_t t_;                                                                 \
		int r_;                                                                      \
		if (!preload_on())                                                           \
			return call;                                                         \
		t_ = preload_now();                                                          \
		r_ = call;                                                                   \
		preload_record(K, op, obj, arg, t_, t_, sem_result(r_), PRELOAD_CALLSITE);   \
		return r_;                                                                   \
	} while (0)

#define SEM_BLOCKING(op, obj, call)                                                          \
	do {                                                                                 \
		uint64_t t0_, t1_;                                                           \
		int r_;                                                                      \
		if (!preload_on())                                                           \
			return call;                                                         \
		t0_ = preload_now();                                                         \
		r_ = call;                                                                   \
		t1_ = preload_now();                                                         \
		preload_record(K, op, obj, 0, t0_, t1_, sem_result(r_), PRELOAD_CALLSITE);   \
		return r_;                                                                   \
	} while (0)

PRELOAD_EXPORT int sem_init(sem_t *s, int pshared, unsigned value)
{
	SEM_BEFORE(O(INIT), s, value, REAL(sem_init)(s, pshared, value));
}

/* Usually the value is positive: try first, stamp once (as for mutex lock). */
PRELOAD_EXPORT int sem_wait(sem_t *s)
{
	uint64_t t0, t1;
	int r, saved;

	if (!preload_on())
		return REAL(sem_wait)(s);
	saved = errno;
	r = REAL(sem_trywait)(s);
	if (r == 0) {
		t0 = preload_now();
		preload_record(K, O(WAIT), s, 0, t0, t0, 0, PRELOAD_CALLSITE);
		return 0;
	}
	errno = saved; /* the failed try must not leave EAGAIN behind */
	t0 = preload_now();
	r = REAL(sem_wait)(s);
	t1 = preload_now();
	preload_record(K, O(WAIT), s, 0, t0, t1, sem_result(r), PRELOAD_CALLSITE);
	return r;
}

PRELOAD_EXPORT int sem_trywait(sem_t *s)
{
	uint64_t t;
	int r;

	if (!preload_on())
		return REAL(sem_trywait)(s);
	r = REAL(sem_trywait)(s);
	t = preload_now();
	preload_record(K, O(TRYWAIT), s, 0, t, t, sem_result(r), PRELOAD_CALLSITE);
	return r;
}

PRELOAD_EXPORT int sem_timedwait(sem_t *restrict s, const struct timespec *restrict abstime)
{
	SEM_BLOCKING(O(TIMEDWAIT), s, REAL(sem_timedwait)(s, abstime));
}

PRELOAD_EXPORT int sem_clockwait(sem_t *restrict s, clockid_t clock,
				 const struct timespec *restrict abstime)
{
	SEM_BLOCKING(O(TIMEDWAIT), s, REAL(sem_clockwait)(s, clock, abstime));
}

PRELOAD_EXPORT int sem_post(sem_t *s)
{
	SEM_BEFORE(O(POST), s, 0, REAL(sem_post)(s));
}

PRELOAD_EXPORT int sem_destroy(sem_t *s)
{
	SEM_BEFORE(O(DESTROY), s, 0, REAL(sem_destroy)(s));
}

/* addr is the sem_t the call returned (0 on failure). */
PRELOAD_EXPORT sem_t *sem_open(const char *name, int oflag, ...)
{
	mode_t mode = 0;
	unsigned value = 0;
	uint64_t t0, t1;
	sem_t *s;

	/* The mode and value arguments exist only with O_CREAT. */
	if (oflag & O_CREAT) {
		va_list ap;

		va_start(ap, oflag);
		mode = va_arg(ap, mode_t);
		value = va_arg(ap, unsigned);
		va_end(ap);
	}
	if (!preload_on())
		return REAL(sem_open)(name, oflag, mode, value);
	t0 = preload_now();
	s = REAL(sem_open)(name, oflag, mode, value);
	t1 = preload_now();
	preload_record(K, O(OPEN), s == SEM_FAILED ? NULL : s, value, t0, t1,
		       s == SEM_FAILED ? errno : 0, PRELOAD_CALLSITE);
	return s;
}

PRELOAD_EXPORT int sem_close(sem_t *s)
{
	SEM_BEFORE(O(CLOSE), s, 0, REAL(sem_close)(s));
}
