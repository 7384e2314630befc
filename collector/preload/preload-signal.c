/*
 * collector/preload/preload-signal.c - signal sending (kind signal): kill,
 * tgkill, pthread_kill, raise, sigqueue. addr is the signal number, arg the
 * target (pid for kill and sigqueue, tid for the others).
 *
 * Stamped before the call (sending happens before delivery) and recorded after
 * it, to carry the result. Two consequences: a signal that kills the sender
 * itself loses that one record, and a handler that runs inside raise() writes
 * its own records before the raise record (lane order is completion order).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <unistd.h>

#include "collector/preload/preload.h"

#define K MTX_SYNC_KIND_SIGNAL
#define O(o) MTX_SYNC_OP_##o

/* The object of a signal op is its number (see shm.h). */
#define SIG_OBJ(sig) ((void *)(uintptr_t)(unsigned)(sig))

PRELOAD_EXPORT int kill(pid_t pid, int sig)
{
	TRACE_BEFORE_AS(RESULT_ERRNO, K, O(KILL), SIG_OBJ(sig),
			(uint64_t)(uint32_t)pid, REAL(kill)(pid, sig));
}

PRELOAD_EXPORT int tgkill(pid_t tgid, pid_t tid, int sig)
{
	TRACE_BEFORE_AS(RESULT_ERRNO, K, O(TGKILL), SIG_OBJ(sig),
			(uint64_t)(uint32_t)tid, REAL(tgkill)(tgid, tid, sig));
}

PRELOAD_EXPORT int sigqueue(pid_t pid, int sig, const union sigval value)
{
	TRACE_BEFORE_AS(RESULT_ERRNO, K, O(SIGQUEUE), SIG_OBJ(sig),
			(uint64_t)(uint32_t)pid, REAL(sigqueue)(pid, sig, value));
}

PRELOAD_EXPORT int raise(int sig)
{
	/* gettid: a syscall, but raise makes several anyway */
	uint64_t self = preload_on() ? (uint64_t)(uint32_t)gettid() : 0;

	TRACE_BEFORE_AS(RESULT_ERRNO, K, O(RAISE), SIG_OBJ(sig),
			self, REAL(raise)(sig));
}

/* pthread_kill returns the error number instead of setting errno. */
PRELOAD_EXPORT int pthread_kill(pthread_t thread, int sig)
{
	uint64_t tid = preload_on() ? (uint32_t)preload_thread_tid(thread) : 0;

	TRACE_BEFORE(K, O(PTHREAD_KILL), SIG_OBJ(sig), tid,
		     REAL(pthread_kill)(thread, sig));
}
