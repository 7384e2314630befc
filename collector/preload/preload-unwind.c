/*
 * collector/preload/preload-unwind.c - C++ exceptions through functions
 * whose return the -pg hooks redirected (preload-calls.c).
 *
 * The unwinder finds each frame's handler from its return address, and the
 * trampoline's address would stop it (the program would call terminate). So
 * every raise first puts the real return addresses back, and the catch
 * (libstdc++'s __cxa_begin_catch, called first thing by every handler) ends
 * the calls the exception unwound and redirects the frames still live.
 * Cleanups that run in between (destructors: _Unwind_Resume) need nothing:
 * calls they make close the unwound entries as stale (preload_pg_enter).
 * Interposed by name, like the pthread calls: libstdc++ reaches the
 * unwinder of libgcc_s, and handlers reach __cxa_begin_catch, through the
 * PLT. Without -pg frames on the thread, each costs one call more.
 */
#define _GNU_SOURCE
#include "collector/preload/preload.h"

#include <unwind.h>

void *__cxa_begin_catch(void *exception);

typedef _Unwind_Reason_Code (*raise_fn)(struct _Unwind_Exception *);
typedef void *(*catch_fn)(void *);

/* The next definition of @name (libgcc_s, libstdc++), resolved once. */
static void *next(void **cache, const char *name)
{
	void *p = __atomic_load_n(cache, __ATOMIC_RELAXED);
	if (!p) {
		p = preload_resolve(name, NULL);
		__atomic_store_n(cache, p, __ATOMIC_RELAXED);
	}
	return p;
}

PRELOAD_EXPORT _Unwind_Reason_Code _Unwind_RaiseException(struct _Unwind_Exception *exception)
{
	static void *real;
	raise_fn fn = (raise_fn)next(&real, "_Unwind_RaiseException");
	preload_calls_unwinding();
	return fn(exception);
}

/* throw; and std::rethrow_exception, from inside a handler (whose entry
 * redirected the live frames again). */
PRELOAD_EXPORT _Unwind_Reason_Code _Unwind_Resume_or_Rethrow(struct _Unwind_Exception *exception)
{
	static void *real;
	raise_fn fn = (raise_fn)next(&real, "_Unwind_Resume_or_Rethrow");
	preload_calls_unwinding();
	return fn(exception);
}

PRELOAD_EXPORT void *__cxa_begin_catch(void *exception)
{
	static void *real;
	catch_fn fn = (catch_fn)next(&real, "__cxa_begin_catch");
	/* The handler's stack pointer: just above this call's return address
	 * (built with frame pointers: the frame address is the saved rbp). */
	preload_calls_caught((const char *)__builtin_frame_address(0) + 16);
	return fn(exception);
}
