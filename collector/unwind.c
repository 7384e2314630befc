/*
 * collector/unwind.c - see unwind.h.
 *
 * libdwfl facts relied on (elfutils' libdwfl.h):
 *  - dwfl_report_elf places an ET_DYN file at the absolute address @base
 *    when add_p_vaddr is false (so base = load bias), and ignores @base for
 *    ET_EXEC; dwfl_report_begin_add keeps the modules already reported;
 *  - dwfl_attach_state gives a Dwfl our own thread callbacks: the initial
 *    registers (DWARF numbering; 0-16 on x86-64, 16 the return address
 *    column, i.e. the pc) and every memory read, which we answer from the
 *    sample's stack copy only; CFI itself comes from the files;
 *  - dwfl_getthread_frames calls get_thread, then set_initial_registers,
 *    then our callback once per frame, leaf first; dwfl_frame_pc tells
 *    whether a frame's pc is exact (an activation: the leaf, a signal
 *    frame) or a return address.
 * One Dwfl per address space is attached once; the sample being unwound
 * is handed to the callbacks through the unwinder, so nothing is set up
 * per sample but libdwfl's own frame states.
 */
#include "config.h"
#include "collector/unwind.h"
#include "src/symbols.h"

#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DWARF_REG_SP 7
#define DWARF_REG_IP 16

/* Reads this far above the copy are taken for stack the copy lacks. */
#define STACK_LIMIT_BYTES (8u << 20)

struct mtx_unwinder {
	Dwfl *dwfl;
	int nr_files;
	int attached;
	/* The sample being unwound (set around dwfl_getthread_frames). */
	int32_t tid;
	const struct mtx_user_stack *stack;
	int truncated;
};

static const char *const fail_names[] = {
#define X(e, n) n,
	UNWIND_FAILURES(X)
#undef X
};

const char *unwind_fail_name(unsigned why)
{
	return why < UNWIND_FAIL__COUNT ? fail_names[why] : "?";
}

static char *debuginfo_path;

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

struct mtx_unwinder *unwinder_new(void)
{
	struct mtx_unwinder *u = calloc(1, sizeof(*u));
	if (!u || elf_version(EV_CURRENT) == EV_NONE) {
		free(u);
		return NULL;
	}
	u->dwfl = dwfl_begin(&dwfl_callbacks);
	if (!u->dwfl) {
		free(u);
		return NULL;
	}
	return u;
}

/* Whether @elf's build-id is @id (unknown: yes). */
static int same_build(Elf *elf, const uint8_t *id, size_t size)
{
	const void *bits;
	ssize_t n;
	if (!size)
		return 1;
	n = dwelf_elf_gnu_build_id(elf, &bits);
	return n == (ssize_t)size && memcmp(bits, id, size) == 0;
}

/*
 * Only the load bias and the build-id are read here, from the program
 * headers and notes; CFI is read by libdwfl when a walk first needs it.
 * (The naming at the end opens the file again with its symbols, which
 * takes far longer for a large library: not something to do during the
 * run.)
 */
int unwinder_add_file(struct mtx_unwinder *u, const char *path, uint64_t start, uint64_t pgoff,
		      const uint8_t *build_id, size_t build_id_size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;
	Dwfl_Module *mod;
	uint64_t bias = 0;
	Elf *elf;

	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		rc = -ENOEXEC;
	else if (!same_build(elf, build_id, build_id_size))
		rc = -ESTALE;
	else if (symbols_elf_bias(elf, start, pgoff, &bias))
		rc = -ENOEXEC;
	elf_end(elf);
	if (rc) {
		close(fd);
		return rc;
	}
	/* The fd is libdwfl's when it succeeds. */
	dwfl_report_begin_add(u->dwfl);
	mod = dwfl_report_elf(u->dwfl, path, path, fd, bias, false);
	dwfl_report_end(u->dwfl, NULL, NULL);
	if (!mod) {
		close(fd);
		return -ENOEXEC;
	}
	u->nr_files++;
	return 0;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct mtx_unwinder *u = arg;
	if (*thread_argp)
		return 0; /* one thread: the sample's */
	*thread_argp = u;
	return u->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct mtx_unwinder *u = arg;
	*thread_argp = u;
	return tid == u->tid;
}

/* Stack memory, from the copy: it starts at the sampled sp. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct mtx_unwinder *u = arg;
	const struct mtx_user_stack *st = u->stack;
	uint64_t sp = st->regs[DWARF_REG_SP];
	if (addr >= sp && st->size >= 8 && addr - sp <= st->size - 8) {
		memcpy(result, st->data + (addr - sp), 8);
		return true;
	}
	if (addr >= sp && addr - sp < STACK_LIMIT_BYTES)
		u->truncated = 1;
	return false;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	struct mtx_unwinder *u = thread_arg;
	const Dwarf_Word *regs = u->stack->regs;
	if (!dwfl_thread_state_registers(thread, 0, MTX_NR_DWARF_REGS, regs))
		return false;
	dwfl_thread_state_register_pc(thread, regs[DWARF_REG_IP]);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

struct walk {
	uint64_t *pcs, *sps;
	int nr;
};

static int on_frame(Dwfl_Frame *frame, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr pc;
	bool activation;
	if (!dwfl_frame_pc(frame, &pc, &activation))
		return DWARF_CB_ABORT;
	/* Callers are stored as return addresses (stacks.c takes 1 off);
	 * an exact pc above the leaf (a signal frame) gets 1 added. */
	w->pcs[w->nr] = w->nr && activation ? pc + 1 : pc;
	if (w->sps) {
		Dwarf_Word sp = 0;
		if (dwfl_frame_reg(frame, DWARF_REG_SP, &sp) != 0)
			return DWARF_CB_ABORT;
		w->sps[w->nr] = sp;
	}
	w->nr++;
	return w->nr < UNWIND_MAX_FRAMES ? DWARF_CB_OK : DWARF_CB_ABORT;
}

int unwinder_walk(struct mtx_unwinder *u, int32_t tid, const struct mtx_user_stack *stack, uint64_t *pcs,
		  uint64_t *sps, enum unwind_fail *why, int *truncated)
{
	struct walk w = { .pcs = pcs, .sps = sps };
	*truncated = 0;
	*why = UNWIND_FAIL_ERROR;
	if (!stack) {
		*why = UNWIND_FAIL_NO_STACK;
		return 0;
	}
	if (!u->nr_files || !dwfl_addrmodule(u->dwfl, stack->regs[DWARF_REG_IP])) {
		*why = UNWIND_FAIL_NO_MODULE;
		return 0;
	}
	if (!u->attached) {
		/* The architecture comes from the modules (elf NULL). */
		if (!dwfl_attach_state(u->dwfl, NULL, tid, &thread_callbacks, u))
			return 0;
		u->attached = 1;
	}
	u->tid = tid;
	u->stack = stack;
	u->truncated = 0;
	/* Its end is an error on some targets: what was walked counts. */
	dwfl_getthread_frames(u->dwfl, tid, on_frame, &w);
	u->stack = NULL;
	*truncated = u->truncated;
	if (w.nr == 1)
		*why = UNWIND_FAIL_NO_CALLER;
	return w.nr;
}

void unwinder_free(struct mtx_unwinder *u)
{
	if (!u)
		return;
	dwfl_end(u->dwfl);
	free(u);
}
