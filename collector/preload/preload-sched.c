/*
 * collector/preload/preload-sched.c - changes of a thread's scheduling
 * class (kind sched, op setsched): pthread_setschedparam,
 * pthread_setschedprio, sched_setscheduler, sched_setparam, setpriority
 * and nice; and of its CPU affinity: sched_setaffinity and
 * pthread_setaffinity_np. Not synchronization: the collector turns these records into
 * thread_sched rows, not sync_ops (collector/sync/collect-sync.c).
 *
 * Once the call succeeded, the wrapper reads back the target thread's
 * policy, real-time priority and nice (three syscalls: such changes are
 * rare), so the record holds the class the kernel applied, stamped when
 * the call returned: addr is the target's tid, arg the class packed by
 * mtx_sched_pack (shm.h). A call that failed, or that changed no one
 * thread (setpriority of a process group or a user), is recorded with
 * its error or with addr 0, and the collector keeps nothing of it. The
 * affinity the kernel applied is read back too, and is in the record when
 * it names CPUs below 32 only: the collector read it in /proc before, where
 * a thread that had exited since had none.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include "collector/preload/preload.h"

#define K MTX_SYNC_KIND_SCHED
#define O MTX_SYNC_OP_SETSCHED

/* Thread @tid's class now, packed. */
static uint64_t class_of(pid_t tid)
{
	struct sched_param sp = { 0 };
	int saved = errno, policy = sched_getscheduler(tid), nice;

	sched_getparam(tid, &sp);
	errno = 0;
	nice = getpriority(PRIO_PROCESS, (id_t)tid);
	errno = saved;
	return mtx_sched_pack(policy & ~SCHED_RESET_ON_FORK, sp.sched_priority, nice);
}

/* Thread @tid's affinity now, as MTX_SCHED_CPUS_KNOWN and its CPUs in bits
 * 32-63; 0 when it cannot be read or names a CPU from 32 on. */
static uint64_t cpus_of(pid_t tid)
{
	cpu_set_t set;
	uint64_t cpus = 0;
	int saved = errno;

	CPU_ZERO(&set);
	if (sched_getaffinity(tid, sizeof(set), &set)) {
		errno = saved;
		return 0;
	}
	errno = saved;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		if (cpu >= 32)
			return 0;
		cpus |= 1ULL << (32 + cpu);
	}
	return cpus | MTX_SCHED_CPUS_KNOWN;
}

/* Record @call (evaluated once; @ok: it succeeded) as a change of thread
 * @target (0: the caller; -1: none); @flags: MTX_SCHED_AFFINITY or 0. */
#define TRACE_SCHED_AS(flags, target, ok, call)                                         \
	do {                                                                            \
		struct mtx_sync_record *o_;                                             \
		uint64_t e_, t_;                                                        \
		pid_t tid_;                                                             \
		int r_, ok_, errno_;                                                    \
		if (!preload_recording())                                                      \
			return call;                                                    \
		e_ = preload_now();                                                     \
		o_ = preload_begin(K, O, NULL, 0, e_, PRELOAD_CALLSITE, PRELOAD_FRAME); \
		errno_ = errno;                                                         \
		errno = 0; /* nice's error is told by errno alone */                    \
		r_ = call;                                                              \
		ok_ = (ok);                                                             \
		if (errno == 0) /* the program's errno, as the call left it */          \
			errno = errno_;                                                 \
		t_ = preload_returned();                                                \
		tid_ = (target) == 0 ? gettid() : (target);                             \
		if (ok_ && tid_ > 0)                                                    \
			preload_learned(o_, (void *)(uintptr_t)tid_,                    \
					class_of(tid_) | (flags) | ((flags) ? cpus_of(tid_) : 0)); \
		preload_end(o_, e_, t_, ok_ ? 0 : r_ > 0 ? r_ : errno ? errno : EINVAL, \
			    preload_cost(e_, e_, 0));                                   \
		return r_;                                                              \
	} while (0)
#define TRACE_SCHED(target, ok, call) TRACE_SCHED_AS(0, target, ok, call)

PRELOAD_EXPORT int pthread_setschedparam(pthread_t thread, int policy, const struct sched_param *param)
{
	TRACE_SCHED(preload_thread_tid(thread), r_ == 0, REAL(pthread_setschedparam)(thread, policy, param));
}

PRELOAD_EXPORT int pthread_setschedprio(pthread_t thread, int prio)
{
	TRACE_SCHED(preload_thread_tid(thread), r_ == 0, REAL(pthread_setschedprio)(thread, prio));
}

PRELOAD_EXPORT int sched_setscheduler(pid_t pid, int policy, const struct sched_param *param)
{
	TRACE_SCHED(pid, r_ == 0, REAL(sched_setscheduler)(pid, policy, param));
}

PRELOAD_EXPORT int sched_setparam(pid_t pid, const struct sched_param *param)
{
	TRACE_SCHED(pid, r_ == 0, REAL(sched_setparam)(pid, param));
}

/* On Linux, PRIO_PROCESS names one thread (0: the caller). */
PRELOAD_EXPORT int setpriority(__priority_which_t which, id_t who, int prio)
{
	TRACE_SCHED(which == PRIO_PROCESS ? (pid_t)who : -1, r_ == 0, REAL(setpriority)(which, who, prio));
}

/* nice returns the new nice value, so -1 is an error only with errno set. */
PRELOAD_EXPORT int nice(int inc)
{
	TRACE_SCHED(0, r_ != -1 || errno == 0, REAL(nice)(inc));
}

PRELOAD_EXPORT int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *mask)
{
	TRACE_SCHED_AS(MTX_SCHED_AFFINITY, pid, r_ == 0, REAL(sched_setaffinity)(pid, size, mask));
}

PRELOAD_EXPORT int pthread_setaffinity_np(pthread_t thread, size_t size, const cpu_set_t *mask)
{
	TRACE_SCHED_AS(MTX_SCHED_AFFINITY, preload_thread_tid(thread), r_ == 0,
		       REAL(pthread_setaffinity_np)(thread, size, mask));
}
