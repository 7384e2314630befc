/*
 * collector/preload/preload-inject.c - mtx collect --inject-overhead: a busy
 * wait on the records' clock before the real call of every recorded
 * operation of the threads in the option's scope, so that a user (or a
 * test) can see how much overhead the program's order tolerates (seed 004
 * §5). The wait is recorded as the op's injected cost, and is part of its
 * overhead (shm.h, RECORDS).
 *
 * The scope is a set of ops (sync_ops.op), and a tid or a thread name as
 * the thread has it at the time of the op. Reading the name is a system call, so each thread keeps whether
 * its name matches, and decides again only when some thread of the process
 * was renamed through pthread_setname_np or prctl(PR_SET_NAME), which this
 * file interposes to count renames. (A name written to
 * /proc/self/task/TID/comm directly is not seen.)
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/preload/preload.h"

uint64_t preload_inject_delay;
static uint64_t inject_gap;
static int32_t inject_tid;
static char inject_thread[16];
static uint64_t inject_ops;
/* Renames in this process so far (pthread_setname_np, PR_SET_NAME). */
static uint32_t renames;

void preload_inject_setup(const struct mtx_shm_header *h)
{
	inject_tid = h->inject_tid;
	memcpy(inject_thread, h->inject_thread, sizeof(inject_thread));
	inject_thread[sizeof(inject_thread) - 1] = '\0';
	inject_gap = h->inject_gap;
	inject_ops = h->inject_ops;
	preload_inject_delay = h->inject_delay;
}

/* Whether the calling thread (@t) is in the option's scope now. */
static int in_scope(struct preload_thread *t)
{
	uint32_t seen;
	char name[16] = "";
	int saved;

	if (inject_tid)
		return t->w.tid == inject_tid;
	if (!inject_thread[0])
		return 1;
	seen = __atomic_load_n(&renames, __ATOMIC_ACQUIRE) + 1;
	if (t->inject_seen != seen) {
		saved = errno;
		/* the system call itself: this library interposes prctl */
		if (syscall(SYS_prctl, PR_GET_NAME, name, 0, 0, 0) != 0)
			name[0] = '\0';
		errno = saved;
		t->inject_here = strncmp(name, inject_thread, sizeof(name)) == 0;
		t->inject_seen = seen;
	}
	return t->inject_here;
}

/*
 * The wait is CPU time: steps longer than inject_gap (the thread was
 * preempted, or an interrupt ran) are not counted, so a loaded machine
 * does not shorten it; *@entry moves later by them, so that the op's
 * overhead holds only the wrapper's time on the CPU.
 */
__attribute__((noinline)) uint64_t preload_inject(const struct mtx_sync_record *rec, uint64_t *entry,
						  uint32_t *injected)
{
	uint64_t prev, now, spun = 0, off_cpu = 0;

	/* rec->op < MTX_SYNC_OP__COUNT <= 64: this library wrote it */
	if ((inject_ops && !(inject_ops >> rec->op & 1)) || !in_scope(&preload_tls))
		return preload_now();
	prev = preload_now();
	while (spun < preload_inject_delay) {
		__builtin_ia32_pause();
		now = preload_now();
		if (now - prev > inject_gap)
			off_cpu += now - prev;
		else
			spun += now - prev;
		prev = now;
	}
	*injected = spun > UINT32_MAX ? UINT32_MAX : (uint32_t)spun;
	*entry += off_cpu;
	return prev;
}

PRELOAD_EXPORT int pthread_setname_np(pthread_t thread, const char *name)
{
	static int (*real)(pthread_t, const char *);
	int r;

	if (!real)
		real = (int (*)(pthread_t, const char *))preload_resolve("pthread_setname_np", NULL);
	r = real(thread, name);
	__atomic_fetch_add(&renames, 1, __ATOMIC_RELEASE);
	return r;
}

/* prctl takes up to four more arguments, as unsigned longs (as glibc's). */
PRELOAD_EXPORT int prctl(int option, ...)
{
	static int (*real)(int, ...);
	unsigned long a2, a3, a4, a5;
	va_list ap;
	int r;

	va_start(ap, option);
	a2 = va_arg(ap, unsigned long);
	a3 = va_arg(ap, unsigned long);
	a4 = va_arg(ap, unsigned long);
	a5 = va_arg(ap, unsigned long);
	va_end(ap);
	if (!real)
		real = (int (*)(int, ...))preload_resolve("prctl", NULL);
	r = real(option, a2, a3, a4, a5);
	if (option == PR_SET_NAME)
		__atomic_fetch_add(&renames, 1, __ATOMIC_RELEASE);
	return r;
}
