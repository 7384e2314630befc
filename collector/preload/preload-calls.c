/*
 * collector/preload/preload-calls.c - exact function calls of programs built
 * with -pg or -finstrument-functions: the library defines the hooks the
 * compiler calls (mcount, __fentry__, __cyg_profile_func_enter/exit) and
 * writes one record per entry and per exit into the call region
 * (collector/preload/shm.h, THE CALL REGION). The collector turns them into
 * MTX_EV_CALL events (collector/source-sync.c) that collector/calls.c pairs
 * into calls rows.
 *
 * Without MTX_CALL_REGION in the environment every hook returns at once,
 * so a program built with -pg runs as it would with glibc's mcount (minus
 * gprof's arcs: see mtx-collect(1)).
 *
 * COST. The goal is a traced call under 50 ns with two stamps of 16-20 ns
 * each (rdtsc), so a record is 16 bytes (stamp with an exit bit, function
 * address) in a lane of its own: pid and tid are the lane's, not the
 * record's. No syscall, lock or allocation on the hot path; lane_write_call
 * nests safely under signal handlers, like lane_write.
 *
 * -finstrument-functions: gcc calls __cyg_profile_func_enter(fn, callsite)
 * after a function's prologue and __cyg_profile_func_exit(fn, callsite)
 * before each of its returns, and also when a C++ exception unwinds through
 * it. These are ordinary calls, so the hooks are ordinary C functions.
 *
 * -pg (x86-64): gcc calls mcount after the prologue (push %rbp; mov %rsp,
 * %rbp), and with -mfentry __fentry__ before it. Neither tells of the
 * return, so the hook replaces the function's return address with
 * preload_pg_return and keeps the real one on a per-thread shadow stack
 * (entry: real return address, address of the slot it was in, function).
 * When the function returns into the trampoline, the trampoline saves the
 * return registers (rax, rdx), records the exit, and jumps to the real
 * address. The compiler's mcount call is invisible to it, so the hooks must
 * keep every register that may be live there: the argument registers (and
 * r10, the static chain), saved by the assembly, and xmm0-7/x87, which the C
 * code never touches (general-regs-only) except on its slow paths, which
 * save xmm0-7 themselves. After a return only rax/rdx/xmm0-1/st0-1 are live.
 *
 * Non-local exits: an entry whose slot lies below the stack pointer the
 * trampoline is reached with, or below the slot of a function being entered,
 * belongs to a frame that longjmp (or a signal handler's siglongjmp)
 * abandoned; its exit is recorded at that moment and the entry dropped, so
 * nesting stays exact. (With -finstrument-functions such frames simply get
 * no exit: collector/calls.c closes them, marked, when their caller returns.) pthread_exit and thrd_exit
 * put the real return addresses back before unwinding the thread (its open
 * calls have no exit record; collector/calls.c closes calls left open at
 * thread exit, as it does for exit() called from inside functions). Not
 * handled: thread cancellation, instrumented functions run by a signal
 * handler on an alternate stack less than STALE_SPAN above the thread's own
 * (their entries would take the interrupted frames for abandoned ones).
 * C++ exceptions: the unwinder reads return addresses and cannot step
 * through the trampoline (the program would terminate), so when one is
 * raised the real addresses go back into their slots, and when it is
 * caught the frames it unwound end and the live ones are redirected again
 * (preload-unwind.c). Calls deeper than SHADOW_DEPTH on one thread are
 * not recorded (their entry is counted lost), nor are functions run while
 * the thread has no lane and none can be had (lost_nolane).
 *
 * fork keeps the shadow stack (the child has the same frames); the child's
 * first record claims a lane of its own (preload.c's atfork handler).
 */
#define _GNU_SOURCE
/* No SSE/x87 code in this file (the lane code it inlines included): the
 * hooks run where the compiler assumes no call was made. */
#pragma GCC target("general-regs-only")
#include "collector/preload/preload.h"

#include <sys/mman.h>

/* Nesting depth of -pg calls tracked per thread. */
#define SHADOW_DEPTH 2048u
/* Frames further apart than this are not on the same stack (bytes). */
#define STALE_SPAN (64ull << 20)

struct shadow_entry {
	uint64_t ret;   /* the real return address */
	uint64_t *slot; /* where it was, in the caller's frame */
	uint64_t fn;    /* what the entry record named */
};

struct shadow_stack {
	uint32_t sp; /* entries in use */
	struct shadow_entry e[SHADOW_DEPTH];
};

/*
 * Not in TLS itself: glibc carves a thread's static TLS out of its stack, and
 * 48 KiB there overflowed programs with small thread stacks (sysbench's
 * 64 KiB), -pg or not. Mapped at the thread's first -pg entry, unmapped when
 * the thread exits (SHADOW_GONE after that: nothing is recorded any more).
 */
static __thread struct shadow_stack *shadow __attribute__((tls_model("initial-exec")));
#define SHADOW_GONE ((struct shadow_stack *)1)

static inline int shadow_usable(const struct shadow_stack *s)
{
	return (uintptr_t)s > (uintptr_t)SHADOW_GONE;
}

/* The trampoline and the C halves of the assembly below. */
void preload_pg_return(void);
void preload_pg_enter(uint64_t *slot, uint64_t fn);
uint64_t preload_pg_exit(uint64_t sp_at_return);

#define HOOK
/* Slow paths call into libc, which may use xmm0-7: keep them for the
 * instrumented function (its float arguments or return value). */
#define SAVE_XMM(buf)                                                            \
	__asm__ __volatile__("movdqu %%xmm0, 0(%0)\n\tmovdqu %%xmm1, 16(%0)\n\t"      \
			     "movdqu %%xmm2, 32(%0)\n\tmovdqu %%xmm3, 48(%0)\n\t"     \
			     "movdqu %%xmm4, 64(%0)\n\tmovdqu %%xmm5, 80(%0)\n\t"     \
			     "movdqu %%xmm6, 96(%0)\n\tmovdqu %%xmm7, 112(%0)"        \
			     : : "r"(buf) : "memory")
#define RESTORE_XMM(buf)                                                         \
	__asm__ __volatile__("movdqu 0(%0), %%xmm0\n\tmovdqu 16(%0), %%xmm1\n\t"      \
			     "movdqu 32(%0), %%xmm2\n\tmovdqu 48(%0), %%xmm3\n\t"     \
			     "movdqu 64(%0), %%xmm4\n\tmovdqu 80(%0), %%xmm5\n\t"     \
			     "movdqu 96(%0), %%xmm6\n\tmovdqu 112(%0), %%xmm7"        \
			     : : "r"(buf) : "memory")

static HOOK __attribute__((noinline, cold)) int
make_room_saving(const struct mtx_lane_region *r, struct mtx_lane_writer *w, uint32_t depth,
		 uint32_t need)
{
	uint64_t xmm[16];
	int ok;

	SAVE_XMM(xmm);
	ok = lane_make_room(r, w, depth, need);
	RESTORE_XMM(xmm);
	return ok;
}

static HOOK __attribute__((noinline, cold)) int claim_saving(struct preload_thread *t)
{
	uint64_t xmm[16];
	int ok;

	SAVE_XMM(xmm);
	ok = preload_claim_in(t, &t->cw, &preload_call_region);
	RESTORE_XMM(xmm);
	return ok;
}

/* preload_now's clock_gettime, which may touch xmm: out of line. */
static HOOK __attribute__((noinline, cold)) uint64_t now_saving(void)
{
	uint64_t xmm[16], ns;

	SAVE_XMM(xmm);
	ns = preload_now();
	RESTORE_XMM(xmm);
	return ns;
}

/* The thread's first -pg entry: map its shadow stack (NULL if that fails,
 * or once the thread is exiting). mmap may set errno: the instrumented
 * function must not see it change. */
static HOOK __attribute__((noinline, cold)) struct shadow_stack *shadow_map(void)
{
	uint64_t xmm[16];
	int saved = errno;
	void *p;

	if (shadow == SHADOW_GONE)
		return NULL;
	SAVE_XMM(xmm);
	p = mmap(NULL, sizeof(struct shadow_stack), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	RESTORE_XMM(xmm);
	errno = saved;
	if (p == MAP_FAILED)
		return NULL;
	shadow = p;
	return p;
}

static inline HOOK uint64_t hook_now(void)
{
	if (__builtin_expect(preload_tsc, 1))
		return __rdtsc();
	return now_saving();
}

static inline __attribute__((always_inline)) HOOK void call_record(struct preload_thread *t,
								    uint64_t stamp, uint64_t fn)
{
	if (__builtin_expect(t->cw.lane == NULL, 0) && !claim_saving(t))
		return;
	lane_write_call(&preload_call_region, &t->cw, stamp, fn, make_room_saving);
}

PRELOAD_EXPORT HOOK void __cyg_profile_func_enter(void *fn, void *callsite)
{
	(void)callsite;
	if (!__builtin_expect(preload_calls_attached, 1))
		return;
	call_record(&preload_tls, hook_now(), (uint64_t)(uintptr_t)fn);
}

PRELOAD_EXPORT HOOK void __cyg_profile_func_exit(void *fn, void *callsite)
{
	(void)callsite;
	if (!__builtin_expect(preload_calls_attached, 1))
		return;
	call_record(&preload_tls, hook_now() | MTX_CALL_EXIT, (uint64_t)(uintptr_t)fn);
}

/* Whether @e is a frame abandoned by a longjmp, seen from a function
 * being entered whose return address is at @slot (see preload_pg_enter). */
static inline int stale(const struct shadow_entry *e, const uint64_t *slot, uint64_t span)
{
	if (e->slot == slot)
		return *slot != (uint64_t)(uintptr_t)preload_pg_return;
	return e->slot < slot && (uint64_t)((const char *)slot - (const char *)e->slot) < span;
}

/* Record the exits of the abandoned frames on top of @s (at @stamp) and
 * drop them; out of line, as it is rare. The trampoline knows @slot is the
 * returning frame's, so everything below it goes (@span UINT64_MAX). */
static __attribute__((noinline, cold)) void close_stale(struct shadow_stack *s, const uint64_t *slot,
							 uint64_t stamp, uint64_t span)
{
	while (s->sp > 0 && stale(&s->e[s->sp - 1], slot, span)) {
		call_record(&preload_tls, stamp | MTX_CALL_EXIT, s->e[s->sp - 1].fn);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		s->sp--;
	}
}

/*
 * preload_pg_enter - from mcount/__fentry__: @slot holds the function's
 * return address, @fn is the hook's own return address (inside the
 * function). The entry is pushed before the slot is redirected, and sp is
 * raised before the entry is filled, so a signal handler's calls in between
 * stack above it.
 */
HOOK void preload_pg_enter(uint64_t *slot, uint64_t fn)
{
	struct shadow_stack *s = shadow;
	struct shadow_entry *e;
	uint64_t stamp;
	uint32_t sp;

	if (!__builtin_expect(preload_calls_attached, 1))
		return;
	if (__builtin_expect(!shadow_usable(s), 0) && !(s = shadow_map())) {
		__atomic_fetch_add(&preload_call_region.hdr->lost_full, 1, __ATOMIC_RELAXED);
		return;
	}
	stamp = hook_now();
	/* Entries of frames below this one, or of an earlier call from the
	 * same place, were abandoned by a longjmp since: close them first, or
	 * this call would nest under them. The same slot still holding the
	 * trampoline is a tail call's (its caller jumped here and is closed
	 * by the trampoline); a fresh call wrote a real return address there.
	 * A frame further away than STALE_SPAN is on another stack: a signal
	 * handler's alternate one, above the thread's. */
	if (__builtin_expect(s->sp > 0 && stale(&s->e[s->sp - 1], slot, STALE_SPAN), 0))
		close_stale(s, slot, stamp, STALE_SPAN);
	sp = s->sp;
	if (__builtin_expect(sp >= SHADOW_DEPTH, 0)) {
		__atomic_fetch_add(&preload_call_region.hdr->lost_full, 1, __ATOMIC_RELAXED);
		return;
	}
	s->sp = sp + 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	e = &s->e[sp];
	e->ret = *slot;
	e->slot = slot;
	e->fn = fn;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	*slot = (uint64_t)(uintptr_t)preload_pg_return;
	call_record(&preload_tls, stamp, fn);
}

/*
 * preload_pg_exit - from the trampoline, whose stack pointer on arrival is
 * @sp_at_return (just above the slot the returning function's address was
 * in). Records the exit of that function, and of every deeper one a longjmp
 * skipped, and returns the real return address.
 */
HOOK uint64_t preload_pg_exit(uint64_t sp_at_return)
{
	struct shadow_stack *s = shadow;
	uint64_t stamp = hook_now() | MTX_CALL_EXIT;
	struct shadow_entry *e;
	uint64_t ret;

	/* Only an entry redirects a return here, and it mapped the stack. */
	if (__builtin_expect(!shadow_usable(s) || s->sp == 0, 0))
		__builtin_trap(); /* only a program that rewrote its own return addresses */
	e = &s->e[s->sp - 1];
	if (__builtin_expect((uint64_t)(uintptr_t)e->slot + 8 < sp_at_return, 0)) {
		/* frames below ours, abandoned by longjmp: closed just now */
		close_stale(s, (const uint64_t *)(uintptr_t)(sp_at_return - 8), stamp, UINT64_MAX);
		if (s->sp == 0)
			__builtin_trap();
		e = &s->e[s->sp - 1];
	}
	ret = e->ret;
	call_record(&preload_tls, stamp, e->fn);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	s->sp--;
	return ret;
}

/* Put the real return addresses back into every slot the hooks redirected,
 * for an unwinder to read. Top down: with tail calls an entry's "real"
 * address may be the trampoline, put right by an entry further down. */
static void restore_slots(const struct shadow_stack *s)
{
	for (uint32_t i = s->sp; i-- > 0;) {
		const struct shadow_entry *e = &s->e[i];

		if (*e->slot == (uint64_t)(uintptr_t)preload_pg_return)
			*e->slot = e->ret;
	}
}

void preload_calls_thread_exit(void)
{
	if (!shadow_usable(shadow))
		return;
	restore_slots(shadow);
	shadow->sp = 0;
}

void preload_calls_thread_gone(void)
{
	if (shadow_usable(shadow))
		munmap(shadow, sizeof(*shadow));
	shadow = SHADOW_GONE;
}

void preload_calls_unwinding(void)
{
	if (shadow_usable(shadow))
		restore_slots(shadow);
}

void preload_calls_caught(const void *sp)
{
	struct shadow_stack *s = shadow;
	uint64_t stamp;

	if (!shadow_usable(s) || s->sp == 0)
		return;
	/* Frames below the catching one are gone: they end now. */
	stamp = hook_now() | MTX_CALL_EXIT;
	while (s->sp > 0 && (const void *)s->e[s->sp - 1].slot < sp) {
		call_record(&preload_tls, stamp, s->e[s->sp - 1].fn);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		s->sp--;
	}
	/* The rest are live and return through the trampoline again. */
	for (uint32_t i = 0; i < s->sp; i++)
		*s->e[i].slot = (uint64_t)(uintptr_t)preload_pg_return;
}

/*
 * The entry points. mcount: called after push %rbp; mov %rsp, %rbp, so the
 * return address is at 8(%rbp); the stack is 8 off 16-byte alignment on
 * arrival. __fentry__: called first thing, return address at 8(%rsp) on
 * arrival, stack aligned. Both keep rax (varargs count), the six argument
 * registers and r10. The trampoline arrives with the stack aligned (the
 * function's ret popped the slot) and keeps rax and rdx.
 *
 * The registers the entry hooks keep, in the 64 bytes at the stack pointer:
 */
#define SAVE_ARG_REGS                                                          \
	"	movq %rax, 0(%rsp)\n	movq %rcx, 8(%rsp)\n	movq %rdx, 16(%rsp)\n"  \
	"	movq %rsi, 24(%rsp)\n	movq %rdi, 32(%rsp)\n	movq %r8, 40(%rsp)\n"   \
	"	movq %r9, 48(%rsp)\n	movq %r10, 56(%rsp)\n"
#define RESTORE_ARG_REGS                                                       \
	"	movq 0(%rsp), %rax\n	movq 8(%rsp), %rcx\n	movq 16(%rsp), %rdx\n"  \
	"	movq 24(%rsp), %rsi\n	movq 32(%rsp), %rdi\n	movq 40(%rsp), %r8\n"   \
	"	movq 48(%rsp), %r9\n	movq 56(%rsp), %r10\n"
/* An entry hook @name: @frame bytes of stack (64 + alignment), @slot and
 * @selfpc the operands giving preload_pg_enter its two arguments. */
#define ENTRY_HOOK(name, frame, slot, selfpc)                                  \
	"	.globl " name "\n"                                                  \
	"	.type " name ", @function\n"                                         \
	"	.p2align 4\n"                                                        \
	name ":\n"                                                               \
	"	.cfi_startproc\n"                                                    \
	"	subq $" #frame ", %rsp\n"                                            \
	"	.cfi_adjust_cfa_offset " #frame "\n"                                 \
	SAVE_ARG_REGS                                                          \
	"	leaq " slot ", %rdi\n"                                               \
	"	movq " selfpc ", %rsi\n"                                             \
	"	call preload_pg_enter\n"                                             \
	RESTORE_ARG_REGS                                                       \
	"	addq $" #frame ", %rsp\n"                                            \
	"	.cfi_adjust_cfa_offset -" #frame "\n"                                \
	"	ret\n"                                                               \
	"	.cfi_endproc\n"                                                      \
	"	.size " name ", .-" name "\n"

__asm__(
	"	.text\n"
	ENTRY_HOOK("mcount", 72, "8(%rbp)", "72(%rsp)")
	ENTRY_HOOK("__fentry__", 64, "72(%rsp)", "64(%rsp)")
	"	.globl preload_pg_return\n"
	"	.hidden preload_pg_return\n"
	"	.type preload_pg_return, @function\n"
	"	.p2align 4\n"
	"preload_pg_return:\n"
	"	subq $16, %rsp\n"
	"	movq %rax, 0(%rsp)\n"
	"	movq %rdx, 8(%rsp)\n"
	"	leaq 16(%rsp), %rdi\n"
	"	call preload_pg_exit\n"
	"	movq %rax, %r11\n"
	"	movq 0(%rsp), %rax\n"
	"	movq 8(%rsp), %rdx\n"
	"	addq $16, %rsp\n"
	"	jmp *%r11\n"
	"	.size preload_pg_return, .-preload_pg_return\n");
