/*
 * collector/catch-up.h - the calls already running when probes go in
 * (seed 002 §5.6, "catch-up"; SEEDS-MAP S3).
 *
 * A probe put on a function that is active misses the entry of each of
 * its activations, and the kernel arms a return probe only at an entry,
 * so their returns would go unseen too. So, before the probes go on,
 * every thread of the process is stopped (PTRACE_SEIZE and
 * PTRACE_INTERRUPT: no signal the program could see), and its user stack
 * is copied and unwound by the DWARF CFI of its files (collector/unwind.h),
 * with each frame's stack pointer. The caller puts the probes on, turns
 * each activation of a probed function into a call begun then
 * (retroactive), the base of the stack first, with a one-shot probe on its
 * return address (collector/function-uprobes.h), and lets the threads go
 * (PTRACE_DETACH; the kernel restarts a syscall the stop interrupted, as
 * for any ptrace stop). The paper's rewrite of the return address becomes
 * that probe: the program's memory is never written.
 */
#ifndef MTX_COLLECTOR_CATCH_UP_H
#define MTX_COLLECTOR_CATCH_UP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct catch_up;

/* One stopped thread's stack, leaf first: @pcs as unwind.h gives them (the
 * leaf's exact, callers' return addresses), @sps each frame's stack pointer
 * (a caller's: where its callee's return leaves it). */
struct catch_up_stack {
	int32_t tid;
	int nr;
	const uint64_t *pcs, *sps;
};

/* An executable mapping of a file in the stopped process. */
struct catch_up_map {
	uint64_t start, end, pgoff;
	const char *path;
};

/*
 * catch_up_stop - stop every thread of process @pid (those it starts
 * meanwhile too) and unwind each. A thread that does not stop within a
 * second (uninterruptible sleep) is left out; so is one whose stack
 * cannot be read. Returns the stopped process (catch_up_resume it), or
 * NULL when it cannot be traced (it is gone, another tracer has it, out
 * of memory): then a warning says that the calls already running are not
 * recorded, and nothing of it stays stopped.
 */
struct catch_up *catch_up_stop(pid_t pid);

/* catch_up_pid - the process stopped. */
pid_t catch_up_pid(const struct catch_up *cu);

/* catch_up_stack - stack @i (< catch_up_nr_stacks) of the stopped threads. */
size_t catch_up_nr_stacks(const struct catch_up *cu);
struct catch_up_stack catch_up_stack(const struct catch_up *cu, size_t i);

/* catch_up_map_of - the executable file mapping that holds @addr, or NULL. */
const struct catch_up_map *catch_up_map_of(const struct catch_up *cu, uint64_t addr);

/* catch_up_resume - let every thread go, and free @cu (NULL is fine).
 * Returns how long the process was stopped, in ns. */
uint64_t catch_up_resume(struct catch_up *cu);

#endif
