/*
 * collector/preload/preload-locks.c - wrappers for pthread mutexes, rwlocks,
 * spinlocks, condition variables and barriers, and the C11 mtx_* / cnd_*
 * functions (recorded as kinds mutex and cond: in glibc they are the same
 * objects underneath, and glibc calls its pthread code internally, so one C11
 * call is one record).
 *
 * Condvar waits record their mutex in `arg`: the wait releases it at start_ns
 * and holds it again at end_ns, without separate mutex records.
 */
#define _GNU_SOURCE
#include <errno.h>

#include "collector/preload/preload.h"

#define K(k) MTX_SYNC_KIND_##k
#define O(o) MTX_SYNC_OP_##o

/* ---- mutex ------------------------------------------------------------ */

PRELOAD_EXPORT int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr)
{
	TRACE_BEFORE(K(MUTEX), O(INIT), m, 0, REAL(pthread_mutex_init)(m, attr));
}

PRELOAD_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	TRACE_TRY_FIRST(K(MUTEX), O(LOCK), m, REAL(pthread_mutex_trylock)(m), r_ != EBUSY,
			REAL(pthread_mutex_lock)(m));
}

PRELOAD_EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
	TRACE_AFTER(K(MUTEX), O(TRYLOCK), m, 0, REAL(pthread_mutex_trylock)(m));
}

PRELOAD_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
	TRACE_BLOCKING(K(MUTEX), O(TIMEDLOCK), m, 0, REAL(pthread_mutex_timedlock)(m, abstime));
}

PRELOAD_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clock,
					   const struct timespec *abstime)
{
	TRACE_BLOCKING(K(MUTEX), O(TIMEDLOCK), m, 0,
		       REAL(pthread_mutex_clocklock)(m, clock, abstime));
}

PRELOAD_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	TRACE_BEFORE(K(MUTEX), O(UNLOCK), m, 0, REAL(pthread_mutex_unlock)(m));
}

PRELOAD_EXPORT int pthread_mutex_destroy(pthread_mutex_t *m)
{
	TRACE_BEFORE(K(MUTEX), O(DESTROY), m, 0, REAL(pthread_mutex_destroy)(m));
}

/* ---- rwlock ----------------------------------------------------------- */

PRELOAD_EXPORT int pthread_rwlock_init(pthread_rwlock_t *rw, const pthread_rwlockattr_t *attr)
{
	TRACE_BEFORE(K(RWLOCK), O(INIT), rw, 0, REAL(pthread_rwlock_init)(rw, attr));
}

PRELOAD_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *rw)
{
	TRACE_TRY_FIRST(K(RWLOCK), O(RDLOCK), rw, REAL(pthread_rwlock_tryrdlock)(rw),
			r_ != EBUSY, REAL(pthread_rwlock_rdlock)(rw));
}

PRELOAD_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *rw)
{
	TRACE_TRY_FIRST(K(RWLOCK), O(WRLOCK), rw, REAL(pthread_rwlock_trywrlock)(rw),
			r_ != EBUSY, REAL(pthread_rwlock_wrlock)(rw));
}

PRELOAD_EXPORT int pthread_rwlock_tryrdlock(pthread_rwlock_t *rw)
{
	TRACE_AFTER(K(RWLOCK), O(TRYRDLOCK), rw, 0, REAL(pthread_rwlock_tryrdlock)(rw));
}

PRELOAD_EXPORT int pthread_rwlock_trywrlock(pthread_rwlock_t *rw)
{
	TRACE_AFTER(K(RWLOCK), O(TRYWRLOCK), rw, 0, REAL(pthread_rwlock_trywrlock)(rw));
}

PRELOAD_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *rw, const struct timespec *abstime)
{
	TRACE_BLOCKING(K(RWLOCK), O(TIMEDRDLOCK), rw, 0,
		       REAL(pthread_rwlock_timedrdlock)(rw, abstime));
}

PRELOAD_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *rw, const struct timespec *abstime)
{
	TRACE_BLOCKING(K(RWLOCK), O(TIMEDWRLOCK), rw, 0,
		       REAL(pthread_rwlock_timedwrlock)(rw, abstime));
}

PRELOAD_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *rw, clockid_t clock,
					      const struct timespec *abstime)
{
	TRACE_BLOCKING(K(RWLOCK), O(TIMEDRDLOCK), rw, 0,
		       REAL(pthread_rwlock_clockrdlock)(rw, clock, abstime));
}

PRELOAD_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *rw, clockid_t clock,
					      const struct timespec *abstime)
{
	TRACE_BLOCKING(K(RWLOCK), O(TIMEDWRLOCK), rw, 0,
		       REAL(pthread_rwlock_clockwrlock)(rw, clock, abstime));
}

PRELOAD_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *rw)
{
	TRACE_BEFORE(K(RWLOCK), O(UNLOCK), rw, 0, REAL(pthread_rwlock_unlock)(rw));
}

PRELOAD_EXPORT int pthread_rwlock_destroy(pthread_rwlock_t *rw)
{
	TRACE_BEFORE(K(RWLOCK), O(DESTROY), rw, 0, REAL(pthread_rwlock_destroy)(rw));
}

/* ---- spinlock --------------------------------------------------------- */

PRELOAD_EXPORT int pthread_spin_init(pthread_spinlock_t *s, int pshared)
{
	TRACE_BEFORE(K(SPINLOCK), O(INIT), s, 0, REAL(pthread_spin_init)(s, pshared));
}

PRELOAD_EXPORT int pthread_spin_lock(pthread_spinlock_t *s)
{
	TRACE_TRY_FIRST(K(SPINLOCK), O(LOCK), s, REAL(pthread_spin_trylock)(s), r_ != EBUSY,
			REAL(pthread_spin_lock)(s));
}

PRELOAD_EXPORT int pthread_spin_trylock(pthread_spinlock_t *s)
{
	TRACE_AFTER(K(SPINLOCK), O(TRYLOCK), s, 0, REAL(pthread_spin_trylock)(s));
}

PRELOAD_EXPORT int pthread_spin_unlock(pthread_spinlock_t *s)
{
	TRACE_BEFORE(K(SPINLOCK), O(UNLOCK), s, 0, REAL(pthread_spin_unlock)(s));
}

PRELOAD_EXPORT int pthread_spin_destroy(pthread_spinlock_t *s)
{
	TRACE_BEFORE(K(SPINLOCK), O(DESTROY), s, 0, REAL(pthread_spin_destroy)(s));
}

/* ---- condvar (GLIBC_2.3.2 versions, see preload.h) -------------------- */

PRELOAD_EXPORT int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr)
{
	TRACE_BEFORE(K(COND), O(INIT), c, 0, REAL(pthread_cond_init)(c, attr));
}

PRELOAD_EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	TRACE_BLOCKING(K(COND), O(WAIT), c, (uintptr_t)m, REAL(pthread_cond_wait)(c, m));
}

PRELOAD_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
					  const struct timespec *abstime)
{
	TRACE_BLOCKING(K(COND), O(TIMEDWAIT), c, (uintptr_t)m,
		       REAL(pthread_cond_timedwait)(c, m, abstime));
}

PRELOAD_EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock,
					  const struct timespec *abstime)
{
	TRACE_BLOCKING(K(COND), O(TIMEDWAIT), c, (uintptr_t)m,
		       REAL(pthread_cond_clockwait)(c, m, clock, abstime));
}

PRELOAD_EXPORT int pthread_cond_signal(pthread_cond_t *c)
{
	TRACE_BEFORE(K(COND), O(SIGNAL), c, 0, REAL(pthread_cond_signal)(c));
}

PRELOAD_EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
	TRACE_BEFORE(K(COND), O(BROADCAST), c, 0, REAL(pthread_cond_broadcast)(c));
}

PRELOAD_EXPORT int pthread_cond_destroy(pthread_cond_t *c)
{
	TRACE_BEFORE(K(COND), O(DESTROY), c, 0, REAL(pthread_cond_destroy)(c));
}

/* ---- barrier ---------------------------------------------------------- */

PRELOAD_EXPORT int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *attr,
					unsigned count)
{
	TRACE_BEFORE(K(BARRIER), O(INIT), b, count, REAL(pthread_barrier_init)(b, attr, count));
}

/* result is PTHREAD_BARRIER_SERIAL_THREAD (-1) in exactly one thread */
PRELOAD_EXPORT int pthread_barrier_wait(pthread_barrier_t *b)
{
	TRACE_BLOCKING(K(BARRIER), O(WAIT), b, 0, REAL(pthread_barrier_wait)(b));
}

PRELOAD_EXPORT int pthread_barrier_destroy(pthread_barrier_t *b)
{
	TRACE_BEFORE(K(BARRIER), O(DESTROY), b, 0, REAL(pthread_barrier_destroy)(b));
}

/* ---- C11 mtx_* and cnd_* (results are thrd_success, thrd_busy, ...) --- */

PRELOAD_EXPORT int mtx_init(mtx_t *m, int type)
{
	TRACE_BEFORE(K(MUTEX), O(INIT), m, (unsigned)type, REAL(mtx_init)(m, type));
}

PRELOAD_EXPORT int mtx_lock(mtx_t *m)
{
	TRACE_TRY_FIRST(K(MUTEX), O(LOCK), m, REAL(mtx_trylock)(m), r_ == thrd_success,
			REAL(mtx_lock)(m));
}

PRELOAD_EXPORT int mtx_trylock(mtx_t *m)
{
	TRACE_AFTER(K(MUTEX), O(TRYLOCK), m, 0, REAL(mtx_trylock)(m));
}

PRELOAD_EXPORT int mtx_timedlock(mtx_t *restrict m, const struct timespec *restrict abstime)
{
	TRACE_BLOCKING(K(MUTEX), O(TIMEDLOCK), m, 0, REAL(mtx_timedlock)(m, abstime));
}

PRELOAD_EXPORT int mtx_unlock(mtx_t *m)
{
	TRACE_BEFORE(K(MUTEX), O(UNLOCK), m, 0, REAL(mtx_unlock)(m));
}

PRELOAD_EXPORT void mtx_destroy(mtx_t *m)
{
	TRACE_BEFORE_VOID(K(MUTEX), O(DESTROY), m, REAL(mtx_destroy)(m));
}

PRELOAD_EXPORT int cnd_init(cnd_t *c)
{
	TRACE_BEFORE(K(COND), O(INIT), c, 0, REAL(cnd_init)(c));
}

PRELOAD_EXPORT int cnd_wait(cnd_t *c, mtx_t *m)
{
	TRACE_BLOCKING(K(COND), O(WAIT), c, (uintptr_t)m, REAL(cnd_wait)(c, m));
}

PRELOAD_EXPORT int cnd_timedwait(cnd_t *restrict c, mtx_t *restrict m,
				 const struct timespec *restrict abstime)
{
	TRACE_BLOCKING(K(COND), O(TIMEDWAIT), c, (uintptr_t)m, REAL(cnd_timedwait)(c, m, abstime));
}

PRELOAD_EXPORT int cnd_signal(cnd_t *c)
{
	TRACE_BEFORE(K(COND), O(SIGNAL), c, 0, REAL(cnd_signal)(c));
}

PRELOAD_EXPORT int cnd_broadcast(cnd_t *c)
{
	TRACE_BEFORE(K(COND), O(BROADCAST), c, 0, REAL(cnd_broadcast)(c));
}

PRELOAD_EXPORT void cnd_destroy(cnd_t *c)
{
	TRACE_BEFORE_VOID(K(COND), O(DESTROY), c, REAL(cnd_destroy)(c));
}
