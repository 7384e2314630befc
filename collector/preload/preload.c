/*
 * collector/preload/preload.c - core of libmtx-preload.so: attach to the sync
 * region named in the environment, resolve the real functions, give each
 * thread a lane, and handle fork, exec and thread exit.
 *
 * The wrappers live in preload-locks.c, preload-sem.c, preload-thread.c and
 * preload-signal.c; preload-jump.c handles siglongjmp out of them. Without MTX_SYNC_REGION in the environment (or with a
 * region that does not validate) the library only forwards calls.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/preload/preload.h"

#define X(fn, ver) __typeof__(fn) *preload_real_##fn;
PRELOAD_REALS(X)
#undef X

__thread struct preload_thread preload_tls __attribute__((tls_model("initial-exec")));
struct mtx_lane_region preload_region;
int preload_attached;
struct mtx_lane_region preload_call_region;
int preload_calls_attached;
int preload_tid_offset = -1;

int (*preload_vdso_clock_gettime)(clockid_t, struct timespec *);
int preload_tsc;
uint32_t preload_stack_frames;

static pthread_key_t exit_key;
static int exit_key_ok;

/*
 * Returned for a real function requested while this thread is already inside
 * preload_resolve: dlsym may call calloc, and a malloc replacement may take a
 * pthread lock, which would come back here forever. That can only happen
 * before our constructor resolved everything, while the process is still
 * single-threaded, so "succeed without doing anything" is the safe answer.
 * (Called through a pointer of another function type: on x86-64 the extra
 * arguments are ignored and 0 lands in the return register.)
 */
static long bootstrap_stub(void)
{
	return 0;
}

void *preload_resolve(const char *name, const char *version)
{
	struct preload_thread *t = &preload_tls;
	int saved = errno;
	void *p = NULL;

	if (t->guard)
		return (void *)bootstrap_stub;
	t->guard = 1;
	if (version)
		p = dlvsym(RTLD_NEXT, name, version);
	if (!p)
		p = dlsym(RTLD_NEXT, name);
	t->guard = 0;
	errno = saved;
	/* Missing only on a libc without the symbol: calls then become no-ops. */
	return p ? p : (void *)bootstrap_stub;
}

#define X(fn, ver) \
	void *preload_resolve_##fn(void) { return preload_resolve(#fn, ver); }
PRELOAD_REALS(X)
#undef X

static void resolve_all(void)
{
#define X(fn, ver) (void)REAL(fn);
	PRELOAD_REALS(X)
#undef X
}

/*
 * Thread exit: the key's destructor runs in the exiting thread after its
 * start routine returned or it called pthread_exit. If a later destructor
 * traces another operation, preload_claim takes a new lane and sets the key
 * again, so glibc runs this destructor once more (up to
 * PTHREAD_DESTRUCTOR_ITERATIONS times); the collector's liveness check catches
 * anything left after that.
 */
static void thread_exit_destructor(void *unused)
{
	(void)unused;
	lane_release(&preload_tls.w);
	lane_release(&preload_tls.cw);
	preload_calls_thread_gone();
}

/*
 * The calling thread's stack, for stack_walk. pthread_getattr_np allocates
 * (and reads /proc/self/maps for the main thread), so this runs once per
 * thread, at its first traced operation, inside the recursion guard; only
 * with --sync-stacks. A thread whose first traced operation is in a signal
 * handler that interrupted malloc could deadlock here: the price of knowing
 * the bounds without a trampoline in every thread start.
 */
static void find_stack_bounds(struct preload_thread *t)
{
	pthread_attr_t a;
	void *addr;
	size_t size;

	if (pthread_getattr_np(pthread_self(), &a) != 0)
		return;
	if (pthread_attr_getstack(&a, &addr, &size) == 0 && size >= 64) {
		t->stack_lo = (uintptr_t)addr;
		t->stack_hi = (uintptr_t)addr + size;
	}
	pthread_attr_destroy(&a);
}

/*
 * Walk the frame-pointer chain from here up: skip the library's own frames
 * (up to the one whose return address is @callsite, the wrapper's), then
 * store @callsite and each caller's return address in @pcs, at most @max.
 * Every frame read must lie between this function's frame and the top of
 * the thread's stack, above the previous one and 8-byte aligned, so a
 * clobbered or absent frame pointer (code built without them) ends the
 * walk instead of reading elsewhere; on an alternate signal stack, or with
 * unknown bounds, the stack is the call site alone. No syscall, lock or
 * allocation.
 */
static uint32_t stack_walk(const struct preload_thread *t, uint64_t callsite, uint64_t *pcs, uint32_t max)
{
	uintptr_t lo = (uintptr_t)__builtin_frame_address(0), hi = t->stack_hi, fp = lo;
	uint32_t nr = 0;

	pcs[nr++] = callsite;
	if (lo < t->stack_lo || lo >= hi)
		return nr;
	for (int hops = 0;; hops++) {
		const uintptr_t *f = (const uintptr_t *)fp;

		if (fp < lo || fp > hi - 16 || (fp & 7) || hops > 4)
			return nr;
		if (f[1] == callsite) {
			fp = f[0];
			break;
		}
		if (f[0] <= fp)
			return nr;
		fp = f[0];
	}
	for (uintptr_t prev = lo; nr < max; ) {
		const uintptr_t *f = (const uintptr_t *)fp;

		if (fp <= prev || fp > hi - 16 || (fp & 7) || f[1] == 0)
			break;
		pcs[nr++] = f[1];
		prev = fp;
		fp = f[0];
	}
	return nr;
}

/* preload_end with --sync-stacks: the record follows the caller's stack. */
__attribute__((noinline)) void preload_end_stack(struct mtx_sync_record *rec, uint64_t start_ns,
						 uint64_t end_ns, int32_t result, struct lane_cost cost)
{
	struct preload_thread *t = &preload_tls;
	uint64_t pcs[MTX_SYNC_STACK_MAX], walk_start = preload_now();
	uint32_t nr = stack_walk(t, rec->callsite, pcs, preload_stack_frames);

	/* the walk is the wrapper's cost too (--sync-stacks only) */
	cost.overhead = lane_add_sat32(cost.overhead, preload_now() - walk_start);
	lane_end_op_stack(&preload_region, &t->w, rec, start_ns, end_ns, result, cost, pcs, nr);
}

/* preload_now out of line: the region's clock for lane.h's slow paths. */
static uint64_t region_stamp(void)
{
	return preload_now();
}

int preload_claim_in(struct preload_thread *t, struct mtx_lane_writer *w,
		     struct mtx_lane_region *r)
{
	sigset_t old;
	int saved, rc;

	if (t->guard) {
		/* inside our own code (resolving the real functions) */
		__atomic_fetch_add(&r->hdr->lost_nolane, 1, __ATOMIC_RELAXED);
		return 0;
	}
	/* Once per thread: no signal handler may claim a lane halfway through
	 * ours (its op would find the guard up and be lost). */
	lane_block_signals(&old);
	t->guard = 1;
	saved = errno;
	if (r == &preload_region && preload_stack_frames && !t->stack_hi)
		find_stack_bounds(t);
	rc = lane_claim(r, w, getpid(), gettid(), !t->nolane_stalled);
	if (rc == 0) {
		t->nolane_stalled = 0;
		if (exit_key_ok)
			pthread_setspecific(exit_key, (void *)1);
	} else {
		t->nolane_stalled = 1;
		__atomic_fetch_add(&r->hdr->lost_nolane, 1, __ATOMIC_RELAXED);
	}
	errno = saved;
	t->guard = 0;
	lane_unblock_signals(&old);
	return rc == 0;
}

int preload_claim(struct preload_thread *t)
{
	if (!preload_attached)
		return 0;
	return preload_claim_in(t, &t->w, &preload_region);
}

/*
 * Only the thread that called fork() exists in the child, with a copy of its
 * TLS still pointing at the parent's lane. Forget it: the child's first
 * traced operation claims a lane under the child's pid and tid.
 */
static void atfork_child(void)
{
	memset(&preload_tls.w, 0, sizeof(preload_tls.w));
	memset(&preload_tls.cw, 0, sizeof(preload_tls.cw));
	preload_tls.nolane_stalled = 0;
}

/*
 * glibc publishes the offset of the kernel tid inside struct pthread for
 * libthread_db (_thread_db_pthread_tid: bit size, count, offset). Use it to
 * name the thread a create, join or pthread_kill is about; check it on our own
 * thread first and fall back to "unknown" (0) when anything looks wrong.
 */
static void find_tid_offset(void)
{
	const uint32_t *desc = dlvsym(RTLD_NEXT, "_thread_db_pthread_tid", "GLIBC_PRIVATE");

	if (!desc)
		desc = dlsym(RTLD_NEXT, "_thread_db_pthread_tid");
	if (!desc || desc[0] != 32 || desc[1] != 1 || desc[2] > 4096)
		return;
	if (*(int32_t *)((char *)pthread_self() + desc[2]) != gettid())
		return;
	preload_tid_offset = (int)desc[2];
}

/*
 * The same vDSO function glibc's clock_gettime ends in, minus the PLT hop
 * and glibc's dispatch (about 3 ns of the ~25 a stamp costs here). The
 * clock and the values are identical; without a vDSO we keep glibc's.
 */
static void find_vdso_clock(void)
{
	void *vdso = dlopen("linux-vdso.so.1", RTLD_LAZY | RTLD_NOLOAD);
	struct timespec ts;
	void *fn;

	if (!vdso)
		return;
	fn = dlsym(vdso, "__vdso_clock_gettime");
	if (fn && ((int (*)(clockid_t, struct timespec *))fn)(CLOCK_MONOTONIC, &ts) == 0)
		preload_vdso_clock_gettime = (int (*)(clockid_t, struct timespec *))fn;
	dlclose(vdso);
}

/* Map the region named by environment variable @env into @r (@magic and
 * @record_size: which kind of region). Returns 0 or -errno. */
static int attach_region(const char *env, const char *magic, uint32_t record_size,
			 struct mtx_lane_region *r)
{
	const char *name = getenv(env);
	struct stat st;
	void *base;
	int fd, rc;

	if (!name || name[0] != '/')
		return -ENOENT;
	fd = shm_open(name, O_RDWR | O_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)MTX_SHM_HEADER_SIZE) {
		close(fd);
		return -EPROTO;
	}
	base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (base == MAP_FAILED)
		return -errno;
	rc = lane_region_open_as(r, base, (size_t)st.st_size, magic, record_size);
	if (rc < 0) {
		munmap(base, (size_t)st.st_size);
		return rc;
	}
	/* The collector gives both regions the same clock. */
	preload_tsc = r->hdr->clock_id == MTX_SHM_CLOCK_TSC;
	return 0;
}

/*
 * The collector died (lane.h, lane_collector_gone): from now on every
 * wrapper and hook only forwards, and nothing waits for a drain that will
 * never come. Both regions are one collector's.
 */
static void collector_gone(void)
{
	preload_region.gone = 1;
	preload_call_region.gone = 1;
	__atomic_store_n(&preload_attached, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&preload_calls_attached, 0, __ATOMIC_RELEASE);
}

__attribute__((constructor)) static void preload_init(void)
{
	int saved = errno;

	resolve_all();
	preload_tls.guard = 1;
	find_tid_offset();
	find_vdso_clock();
	preload_jump_check();
	if (attach_region(MTX_SHM_ENV, MTX_SHM_MAGIC, MTX_SHM_RECORD_SIZE, &preload_region) == 0) {
		/* A fresh image: lanes still LIVE under our pid predate an exec. */
		lane_reap_pid(&preload_region, getpid());
		preload_stack_frames = preload_region.hdr->stack_frames;
		preload_region.on_gone = collector_gone;
		preload_region.stamp = region_stamp;
		preload_inject_setup(preload_region.hdr);
		if (preload_stack_frames > MTX_SYNC_STACK_MAX)
			preload_stack_frames = MTX_SYNC_STACK_MAX;
		__atomic_store_n(&preload_attached, 1, __ATOMIC_RELEASE);
	}
	if (attach_region(MTX_CALL_ENV, MTX_CALL_MAGIC, MTX_CALL_RECORD_SIZE,
			  &preload_call_region) == 0) {
		lane_reap_pid(&preload_call_region, getpid());
		preload_call_region.on_gone = collector_gone;
		/* The drain sleeps on the sync region's futex word alone. */
		if (preload_attached)
			preload_call_region.wake_word = preload_region.wake_word;
		__atomic_store_n(&preload_calls_attached, 1, __ATOMIC_RELEASE);
	}
	if (preload_attached || preload_calls_attached) {
		exit_key_ok = pthread_key_create(&exit_key, thread_exit_destructor) == 0;
		pthread_atfork(NULL, NULL, atfork_child);
	}
	preload_tls.guard = 0;
	errno = saved;
}

/*
 * At exit() the main thread's key destructor does not run; release its lane so
 * the collector can free it without waiting for its liveness check.
 * Operations traced by later destructors claim a new lane, reaped the same way.
 */
__attribute__((destructor)) static void preload_fini(void)
{
	if (preload_attached)
		lane_release(&preload_tls.w);
	if (preload_calls_attached)
		lane_release(&preload_tls.cw);
}
