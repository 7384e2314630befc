/*
 * collector/preload/preload-calls.c - exact function calls of programs built
 * with -pg or -finstrument-functions: the library defines the hooks the
 * compiler calls (mcount, __fentry__, __cyg_profile_func_enter/exit) and
 * writes one record per entry and per exit into the call region
 * (collector/preload/shm.h, THE CALL REGION). The collector turns them into
 * MTX_EV_CALL events (collector/sync/region.c) that collector/calls.c pairs
 * into calls rows.
 *
 * Without MTX_CALL_REGION in the environment every hook returns at once,
 * so a program built with -pg runs as it would with glibc's mcount (minus
 * gprof's arcs: see mtx-collect(1)).
 *
 * COST. The goal is a traced call under 50 ns with two stamps of 16-20 ns
 * each (rdtsc), so a record is 16 bytes (stamp with an exit bit, function
 * address) in a lane of its own: pid and tid are the lane's, not the
 * record's. No syscall, lock or allocation on the hot path; a record is
 * written in one restartable sequence (lane.h), so a signal handler's own
 * calls may come in at any instant.
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

#include <stddef.h>
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
__thread struct shadow_stack *preload_pg_shadow __attribute__((tls_model("initial-exec")));
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

static HOOK __attribute__((noinline, cold)) void
write_call_slow_saving(struct mtx_lane_region *r, struct mtx_lane_writer *w, uint64_t stamp,
		       uint64_t fn)
{
	uint64_t xmm[16];

	SAVE_XMM(xmm);
	lane_write_call_slow(r, w, stamp, fn);
	RESTORE_XMM(xmm);
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

	if (preload_pg_shadow == SHADOW_GONE)
		return NULL;
	SAVE_XMM(xmm);
	p = mmap(NULL, sizeof(struct shadow_stack), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	RESTORE_XMM(xmm);
	errno = saved;
	if (p == MAP_FAILED)
		return NULL;
	preload_pg_shadow = p;
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
	lane_write_call(&preload_call_region, &t->cw, stamp, fn, write_call_slow_saving);
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

/* The assembly's fast paths (below) when the lane is missing or full: the
 * record as the C hooks write it. */
void preload_pg_record(uint64_t stamp, uint64_t fn);
HOOK void preload_pg_record(uint64_t stamp, uint64_t fn)
{
	call_record(&preload_tls, stamp, fn);
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
	struct shadow_stack *s = preload_pg_shadow;
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
	struct shadow_stack *s = preload_pg_shadow;
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
	if (!shadow_usable(preload_pg_shadow))
		return;
	restore_slots(preload_pg_shadow);
	preload_pg_shadow->sp = 0;
}

void preload_calls_thread_gone(void)
{
	if (shadow_usable(preload_pg_shadow))
		munmap(preload_pg_shadow, sizeof(*preload_pg_shadow));
	preload_pg_shadow = SHADOW_GONE;
}

void preload_calls_unwinding(void)
{
	if (shadow_usable(preload_pg_shadow))
		restore_slots(preload_pg_shadow);
}

void preload_calls_caught(const void *sp)
{
	struct shadow_stack *s = preload_pg_shadow;
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
 * Each has a fast path in assembly for the common case: a thread with its
 * shadow stack and its lane, TSC stamps, an entry deeper than the one on
 * top, a lane with room. It does what preload_pg_enter / preload_pg_exit
 * do, in the same order (so signal handlers see the same states), with
 * four registers saved instead of eight and no C frame: a third of what
 * the hooks cost besides the two rdtsc (bench/function-hook-cost.sh).
 * Anything else goes to the C code, which decides afresh: *_full below,
 * or preload_pg_record when only the lane needs the slow path.
 *
 * The offsets the assembly uses, checked against the C layout:
 */
#define PG_SHADOW_ENTRIES 8 /* shadow_stack.e */
#define PG_ENTRY_SLOT 8     /* shadow_entry.slot; .ret is at 0, .fn at 16 */
#define PG_CW 72            /* preload_thread.cw */
#define PG_CW_LANE (PG_CW + 0)
#define PG_CW_RECS (PG_CW + 8)
#define PG_CW_MASK (PG_CW + 16)
#define PG_CW_LIMIT (PG_CW + 24)
#define PG_CW_RSEQ_CS (PG_CW + 32)
#define PG_CW_NO_RSEQ (PG_CW + 48)
#define PG_LANE_HEAD 64 /* mtx_shm_lane.head */
_Static_assert(offsetof(struct shadow_stack, e) == PG_SHADOW_ENTRIES, "asm layout");
_Static_assert(sizeof(struct shadow_entry) == 24 && offsetof(struct shadow_entry, ret) == 0 &&
		       offsetof(struct shadow_entry, slot) == PG_ENTRY_SLOT &&
		       offsetof(struct shadow_entry, fn) == 16,
	       "asm layout");
_Static_assert(offsetof(struct preload_thread, cw) == PG_CW, "asm layout");
_Static_assert(offsetof(struct mtx_lane_writer, lane) == PG_CW_LANE - PG_CW &&
		       offsetof(struct mtx_lane_writer, call_recs) == PG_CW_RECS - PG_CW &&
		       offsetof(struct mtx_lane_writer, mask) == PG_CW_MASK - PG_CW &&
		       offsetof(struct mtx_lane_writer, limit) == PG_CW_LIMIT - PG_CW &&
		       offsetof(struct mtx_lane_writer, rseq_cs) == PG_CW_RSEQ_CS - PG_CW &&
		       offsetof(struct mtx_lane_writer, no_rseq) == PG_CW_NO_RSEQ - PG_CW,
	       "asm layout");
_Static_assert(offsetof(struct mtx_shm_lane, head) == PG_LANE_HEAD, "asm layout");
_Static_assert(sizeof(struct mtx_call_record) == 16 && MTX_CALL_EXIT == 1ull << 63, "asm layout");
_Static_assert(SHADOW_DEPTH == 2048, "asm constant");
#define STR_(x) #x
#define STR(x) STR_(x)

/* The registers the C entry hooks keep, in the 64 bytes at the stack pointer: */
#define SAVE_ARG_REGS                                                          \
	"	movq %rax, 0(%rsp)\n	movq %rcx, 8(%rsp)\n	movq %rdx, 16(%rsp)\n"  \
	"	movq %rsi, 24(%rsp)\n	movq %rdi, 32(%rsp)\n	movq %r8, 40(%rsp)\n"   \
	"	movq %r9, 48(%rsp)\n	movq %r10, 56(%rsp)\n"
#define RESTORE_ARG_REGS                                                       \
	"	movq 0(%rsp), %rax\n	movq 8(%rsp), %rcx\n	movq 16(%rsp), %rdx\n"  \
	"	movq 24(%rsp), %rsi\n	movq 32(%rsp), %rdi\n	movq 40(%rsp), %r8\n"   \
	"	movq 48(%rsp), %r9\n	movq 56(%rsp), %r10\n"
/* The C entry hook @name: @frame bytes of stack (64 + alignment), @slot and
 * @selfpc the operands giving preload_pg_enter its two arguments. */
#define ENTRY_HOOK(name, frame, slot, selfpc)                                  \
	"	.globl " name "\n"                                                  \
	"	.hidden " name "\n"                                                 \
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

/*
 * Append the record (stamp %rax, function %r11) to the thread's call lane
 * as lane_seq_call does: one restartable sequence (lane.h) announced in the
 * thread's rseq area, ending in the increment of the head word. %rcx and
 * %rdx are scratch, %rbx is kept in the red zone meanwhile (-16: in the trampoline -8 is the slot of the
 * returning function, which an entry still names). Jumps to @slow
 * (nothing written) when the thread has no lane or no rseq area, or the
 * lane has no room. Labels 20-25 are its own.
 */
#define WRITE_RECORD(slow)                                                     \
	"	movq preload_tls@GOTTPOFF(%rip), %rcx\n"                             \
	"	cmpq $0, %fs:" STR(PG_CW_LANE) "(%rcx)\n"                            \
	"	je " slow "\n"                                                       \
	"	cmpl $0, %fs:" STR(PG_CW_NO_RSEQ) "(%rcx)\n"                         \
	"	jne " slow "\n"                                                      \
	"	movq %rbx, -16(%rsp)\n"                                              \
	"	.pushsection __rseq_cs, \"aw\"\n"                                    \
	"	.balign 32\n"                                                        \
	"23:	.long 0, 0\n"                                                       \
	"	.quad 21f, 22f - 21f, 24f\n"                                         \
	"	.popsection\n"                                                       \
	"20:	movq %fs:" STR(PG_CW_RSEQ_CS) "(%rcx), %rdx\n"                      \
	"	leaq 23b(%rip), %rbx\n"                                              \
	"	movq %rbx, (%rdx)\n"                                                 \
	"21:	movq %fs:" STR(PG_CW_LANE) "(%rcx), %rbx\n"                         \
	"	movq " STR(PG_LANE_HEAD) "(%rbx), %rdx\n"                            \
	"	incq %rdx\n"                                                         \
	"	cmpq %fs:" STR(PG_CW_LIMIT) "(%rcx), %rdx\n"                         \
	"	ja 25f\n"                                                            \
	"	decq %rdx\n"                                                         \
	"	andq %fs:" STR(PG_CW_MASK) "(%rcx), %rdx\n"                          \
	"	shlq $4, %rdx\n"                                                     \
	"	addq %fs:" STR(PG_CW_RECS) "(%rcx), %rdx\n"                          \
	"	movq %rax, 0(%rdx)\n"                                                \
	"	movq %r11, 8(%rdx)\n"                                                \
	"	incq " STR(PG_LANE_HEAD) "(%rbx)\n"                                  \
	"22:	movq -16(%rsp), %rbx\n"                                             \
	"	jmp 26f\n"                                                           \
	"	.long " STR(RSEQ_SIG) "\n"                                           \
	"24:	jmp 20b\n"                                                          \
	"25:	movq -16(%rsp), %rbx\n"                                             \
	"	jmp " slow "\n"                                                      \
	"26:\n"

#define PUSH(reg) "	pushq %" reg "\n	.cfi_adjust_cfa_offset 8\n"
#define POP(reg) "	popq %" reg "\n	.cfi_adjust_cfa_offset -8\n"

/*
 * The fast entry hook @name: the return address of the function being
 * entered is at @slot once rax, rdx, rcx and rsi are pushed (its own
 * return address, the function's address for the record, is then at
 * 32(%rsp)); @full is the C hook that handles everything else.
 */
#define FAST_ENTRY_HOOK(name, slot, full)                                      \
	"	.globl " name "\n"                                                  \
	"	.type " name ", @function\n"                                         \
	"	.p2align 4\n"                                                        \
	name ":\n"                                                               \
	"	.cfi_startproc\n"                                                    \
	"	cmpl $0, preload_calls_attached(%rip)\n"                             \
	"	je 9f\n"                                                             \
	PUSH("rax") PUSH("rdx") PUSH("rcx") PUSH("rsi")                          \
	"	movq preload_pg_shadow@GOTTPOFF(%rip), %rcx\n"                       \
	"	movq %fs:(%rcx), %rcx\n"                                             \
	"	cmpq $1, %rcx\n"                                                     \
	"	jbe 8f\n"                                                            \
	"	cmpl $0, preload_tsc(%rip)\n"                                        \
	"	je 8f\n"                                                             \
	"	rdtsc\n"                                                             \
	"	shlq $32, %rdx\n"                                                    \
	"	orq %rdx, %rax\n"                                                    \
	"	leaq " slot ", %rsi\n"                                               \
	"	movl (%rcx), %edx\n"                                                 \
	"	testl %edx, %edx\n"                                                  \
	"	jz 1f\n"                                                             \
	/* an entry on top whose slot is not above ours: maybe abandoned */      \
	"	leal -1(%rdx), %r11d\n"                                              \
	"	leaq (%r11,%r11,2), %r11\n"                                          \
	"	cmpq %rsi, " STR(PG_SHADOW_ENTRIES) "+" STR(PG_ENTRY_SLOT) "(%rcx,%r11,8)\n" \
	"	jbe 8f\n"                                                            \
	"1:	cmpl $" STR(SHADOW_DEPTH) ", %edx\n"                                 \
	"	jae 8f\n"                                                            \
	"	leal 1(%rdx), %r11d\n"                                               \
	"	movl %r11d, (%rcx)\n"                                                \
	"	leaq (%rdx,%rdx,2), %rdx\n"                                          \
	"	leaq " STR(PG_SHADOW_ENTRIES) "(%rcx,%rdx,8), %rdx\n"                \
	"	movq (%rsi), %r11\n"                                                 \
	"	movq %r11, 0(%rdx)\n"                                                \
	"	movq %rsi, 8(%rdx)\n"                                                \
	"	movq 32(%rsp), %r11\n"                                               \
	"	movq %r11, 16(%rdx)\n"                                               \
	"	leaq preload_pg_return(%rip), %rdx\n"                                \
	"	movq %rdx, (%rsi)\n"                                                 \
	WRITE_RECORD("7f")                                                     \
	"2:\n"                                                                   \
	"	.cfi_remember_state\n"                                               \
	POP("rsi") POP("rcx") POP("rdx") POP("rax")                              \
	"9:	ret\n"                                                              \
	"	.cfi_restore_state\n"                                                \
	"7:\n" /* the lane: the C record (stack aligned for it) */               \
	PUSH("rdi") PUSH("r8") PUSH("r9") PUSH("r10")                            \
	"	subq $8, %rsp\n	.cfi_adjust_cfa_offset 8\n"                         \
	"	movq %rax, %rdi\n"                                                   \
	"	movq %r11, %rsi\n"                                                   \
	"	call preload_pg_record\n"                                            \
	"	addq $8, %rsp\n	.cfi_adjust_cfa_offset -8\n"                        \
	POP("r10") POP("r9") POP("r8") POP("rdi")                                \
	"	jmp 2b\n"                                                            \
	"8:\n" /* the rest: the C hook, from the start */                        \
	POP("rsi") POP("rcx") POP("rdx") POP("rax")                              \
	"	jmp " full "\n"                                                      \
	"	.cfi_endproc\n"                                                      \
	"	.size " name ", .-" name "\n"

__asm__(
	"	.text\n"
	ENTRY_HOOK("preload_pg_mcount_full", 72, "8(%rbp)", "72(%rsp)")
	ENTRY_HOOK("preload_pg_fentry_full", 64, "72(%rsp)", "64(%rsp)")
	FAST_ENTRY_HOOK("mcount", "8(%rbp)", "preload_pg_mcount_full")
	FAST_ENTRY_HOOK("__fentry__", "40(%rsp)", "preload_pg_fentry_full")
	/*
	 * The trampoline: on arrival %rsp is just above the slot the
	 * returning function's address was in, and only rax and rdx (kept
	 * in r8 and r9 meanwhile) are live among the registers it uses:
	 * r10 holds the shadow stack, rsi its new depth, rdi its top entry.
	 */
	"	.globl preload_pg_return\n"
	"	.hidden preload_pg_return\n"
	"	.type preload_pg_return, @function\n"
	"	.p2align 4\n"
	"preload_pg_return:\n"
	"	movq %rax, %r8\n"
	"	movq %rdx, %r9\n"
	"	movq preload_pg_shadow@GOTTPOFF(%rip), %r10\n"
	"	movq %fs:(%r10), %r10\n"
	"	cmpq $1, %r10\n"
	"	jbe 8f\n"
	"	cmpl $0, preload_tsc(%rip)\n"
	"	je 8f\n"
	"	movl (%r10), %esi\n"
	"	testl %esi, %esi\n"
	"	jz 8f\n"
	"	decl %esi\n"
	"	leaq (%rsi,%rsi,2), %rdi\n"
	"	leaq " STR(PG_SHADOW_ENTRIES) "(%r10,%rdi,8), %rdi\n"
	/* frames below the returning one were abandoned: the C code */
	"	movq 8(%rdi), %rdx\n"
	"	addq $8, %rdx\n"
	"	cmpq %rsp, %rdx\n"
	"	jb 8f\n"
	"	rdtsc\n"
	"	shlq $32, %rdx\n"
	"	orq %rdx, %rax\n"
	"	btsq $63, %rax\n"
	"	movq 16(%rdi), %r11\n"
	WRITE_RECORD("7f")
	"3:	movq (%rdi), %r11\n"
	"	movl %esi, (%r10)\n"
	"	movq %r8, %rax\n"
	"	movq %r9, %rdx\n"
	"	jmp *%r11\n"
	"7:	pushq %r8\n	pushq %r9\n	pushq %r10\n	pushq %rsi\n	pushq %rdi\n"
	"	subq $8, %rsp\n"
	"	movq %rax, %rdi\n"
	"	movq %r11, %rsi\n"
	"	call preload_pg_record\n"
	"	addq $8, %rsp\n"
	"	popq %rdi\n	popq %rsi\n	popq %r10\n	popq %r9\n	popq %r8\n"
	"	jmp 3b\n"
	"8:	subq $16, %rsp\n"
	"	movq %r8, 0(%rsp)\n"
	"	movq %r9, 8(%rsp)\n"
	"	leaq 16(%rsp), %rdi\n"
	"	call preload_pg_exit\n"
	"	movq %rax, %r11\n"
	"	movq 0(%rsp), %rax\n"
	"	movq 8(%rsp), %rdx\n"
	"	addq $16, %rsp\n"
	"	jmp *%r11\n"
	"	.size preload_pg_return, .-preload_pg_return\n");
