/*
 * collector/preload/preload-jump.c - non-local exits out of traced calls.
 *
 * A signal handler that runs inside a traced call (a sem_wait that SIGALRM
 * interrupts, say) may leave it by siglongjmp: the wrapper never ends, and
 * its op stays among the lane's ops in progress (shm.h). So the library
 * interposes longjmp, _longjmp, siglongjmp and __longjmp_chk (what
 * -D_FORTIFY_SOURCE makes of the first three), and before the jump it
 * publishes every op whose wrapper the jump leaves, innermost first:
 *   - one whose call had returned (end_ns set: only its record was still to
 *     be written) as it returned;
 *   - any other with result MTX_SYNC_RESULT_ABANDONED and end_ns the jump
 *     (start_ns too, when the op had not been stamped yet).
 * That is what is known, and only that: a call that returned in the last
 * instructions before its wrapper took the end stamp counts as abandoned.
 *
 * Which ops the jump leaves: those whose wrapper frame lies below the stack
 * pointer the jump restores, on the same stack. A wrapper on the alternate
 * signal stack is left by a jump to the thread's own stack; one on the
 * thread's stack is not left by a jump that stays on the alternate stack.
 * glibc keeps the stack pointer in the jmp_buf mangled with the thread's
 * pointer guard (x86-64 PTR_MANGLE: xor with %fs:0x30, then rotate left by
 * 17); the constructor checks the unmangling on a jmp_buf of its own, and
 * where it does not hold the ops are left in place (they are then reported
 * as calls their thread died in).
 */
#define _GNU_SOURCE
#include "collector/preload/preload.h"

/* Where the stack pointer is in a jmp_buf (glibc's JB_RSP on x86-64). */
#define JB_RSP 6

static int jump_sp_known;

static uint64_t jump_sp(const struct __jmp_buf_tag *env)
{
	uint64_t v = (uint64_t)env->__jmpbuf[JB_RSP], guard;

	__asm__("movq %%fs:0x30, %0" : "=r"(guard));
	v = (v >> 17) | (v << 47);
	return v ^ guard;
}

/* The constructor's check (preload.c): the stack pointer unmangled from a
 * fresh jmp_buf must be this function's own, give or take its frame. */
__attribute__((noinline)) void preload_jump_check(void)
{
	jmp_buf env;
	uint64_t here = (uint64_t)(uintptr_t)__builtin_frame_address(0);

	if (setjmp(env) == 0) {
		uint64_t sp = jump_sp(env);

		jump_sp_known = sp < here && here - sp < 4096;
	}
}

static int on_alt_stack(const stack_t *alt, uint64_t addr)
{
	uint64_t lo = (uint64_t)(uintptr_t)alt->ss_sp;

	return !(alt->ss_flags & SS_DISABLE) && addr >= lo && addr - lo < alt->ss_size;
}

/* Whether a jump to stack pointer @target leaves the wrapper at @frame. */
static int left_by(uint64_t frame, uint64_t target, const stack_t *alt)
{
	int frame_alt = on_alt_stack(alt, frame), target_alt = on_alt_stack(alt, target);

	if (frame_alt != target_alt)
		return frame_alt;
	return frame < target;
}

/* Publish the ops the jump to @env leaves (see the top of this file). */
static void jump_out(const struct __jmp_buf_tag *env)
{
	struct preload_thread *t = &preload_tls;
	struct mtx_shm_lane *l = t->w.lane;
	uint64_t target, now = 0;
	stack_t alt;
	int saved;

	if (!preload_on() || !l || !jump_sp_known ||
	    mtx_lane_nr_ops(__atomic_load_n(&l->head, __ATOMIC_RELAXED)) == 0)
		return;
	saved = errno;
	target = jump_sp(env);
	if (sigaltstack(NULL, &alt) != 0)
		alt.ss_flags = SS_DISABLE;
	for (;;) {
		uint32_t nr = mtx_lane_nr_ops(__atomic_load_n(&l->head, __ATOMIC_RELAXED));
		struct mtx_sync_op_slot *slot;

		if (nr == 0 || nr > MTX_LANE_MAX_OPS)
			break;
		slot = &l->ops[nr - 1];
		if (!left_by(slot->frame, target, &alt))
			break;
		if (slot->rec.end_ns == 0) {
			if (!now)
				now = preload_now();
			if (!slot->rec.start_ns)
				slot->rec.start_ns = now;
			slot->rec.result = MTX_SYNC_RESULT_ABANDONED;
			__atomic_signal_fence(__ATOMIC_SEQ_CST);
			slot->rec.end_ns = now;
		}
		lane_publish(&preload_region, &t->w, &slot->rec, 1);
	}
	errno = saved;
}

/* Each jump: publish what it leaves, then make it. */
#define JUMP_WRAPPER(fn)                                          \
	PRELOAD_EXPORT void fn(struct __jmp_buf_tag env[1], int val) \
	{                                                         \
		jump_out(env);                                    \
		REAL(fn)(env, val);                               \
		__builtin_unreachable();                          \
	}

JUMP_WRAPPER(longjmp)
JUMP_WRAPPER(_longjmp)
JUMP_WRAPPER(siglongjmp)
JUMP_WRAPPER(__longjmp_chk)
