/*
 * collector/unwind.h - call chains of CPU samples from a copy of the user
 * stack (mtx collect --call-graph dwarf), by the DWARF call frame
 * information (.eh_frame, .debug_frame) of the mapped files, with libdw's
 * libdwfl. For code built without frame pointers (GCC's leaf functions at
 * -O2, Debian's libc), where the kernel's frame-pointer walk loses callers.
 *
 * One struct mtx_unwinder per address space: the files mapped into it are
 * reported as they appear, and each sample is unwound over its own stack
 * copy and registers, in the collector, while the run goes on.
 */
#ifndef MTX_COLLECTOR_UNWIND_H
#define MTX_COLLECTOR_UNWIND_H

#include "collector/event.h"

#include <stddef.h>
#include <stdint.h>

/* Most frames kept of one sample (the kernel's perf_event_max_stack). */
#define UNWIND_MAX_FRAMES 127

/* Why a DWARF unwind gave no usable chain (the sample then falls back to
 * its frame-pointer chain); names in unwind_fail_name(), meta keys
 * unwind_fallback_<name>. */
#define UNWIND_FAILURES(X)                                                          \
	X(NO_STACK, "no_stack")       /* no user registers or stack copy in the sample */ \
	X(NO_MODULE, "no_module")     /* the pc is in no reported file ([vdso], JIT) */    \
	X(NO_CALLER, "no_caller")     /* CFI gave no caller where the fp chain has one */ \
	X(ERROR, "error")             /* libdwfl failed (out of memory, no CFI at all) */

enum unwind_fail {
#define X(e, n) UNWIND_FAIL_##e,
	UNWIND_FAILURES(X)
#undef X
	UNWIND_FAIL__COUNT
};

/* unwind_fail_name - "no_stack", ... or "?" when out of range. */
const char *unwind_fail_name(unsigned why);

struct mtx_unwinder;

/* unwinder_new - an empty address space, or NULL when out of memory. */
struct mtx_unwinder *unwinder_new(void);

/*
 * unwinder_add_file - report the ELF file @path mapped at run-time address
 * @start from file offset @pgoff (a PERF_RECORD_MMAP2), with its build-id
 * (@build_id_size 0: unknown). Returns 0, or -errno when it cannot be used
 * (-ESTALE: the file's build-id is another, it was replaced after the run
 * mapped it; -ENOEXEC: not ELF, or overlapping an earlier mapping):
 * samples in it then fall back.
 */
int unwinder_add_file(struct mtx_unwinder *u, const char *path, uint64_t start, uint64_t pgoff,
		      const uint8_t *build_id, size_t build_id_size);

/*
 * unwinder_walk - unwind thread @tid from the registers and stack copy of
 * @stack: the pcs, leaf first (callers as return addresses, as perf gives
 * them), at most UNWIND_MAX_FRAMES, into @pcs, and (@sps not NULL) each
 * frame's stack pointer into @sps: a caller's is where its callee's
 * return leaves the stack pointer. Returns how many (0 when not even the
 * leaf's module is known, with *@why set). *@truncated is set when the
 * walk needed stack beyond the copy (callers may be missing).
 */
int unwinder_walk(struct mtx_unwinder *u, int32_t tid, const struct mtx_user_stack *stack, uint64_t *pcs,
		  uint64_t *sps, enum unwind_fail *why, int *truncated);

void unwinder_free(struct mtx_unwinder *u);

#endif
