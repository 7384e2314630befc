/*
 * collector/sync/uprobes-impl.h - what the two halves of the uprobe sync
 * fallback share (sync-uprobes.c: probes; sync-uprobes-pair.c: records).
 * Not for other files: use collector/sync/uprobes.h.
 */
#ifndef MTX_COLLECTOR_SYNC_UPROBES_IMPL_H
#define MTX_COLLECTOR_SYNC_UPROBES_IMPL_H

#include "collector/preload/shm.h"
#include "collector/sync/uprobes.h"

/* When the record's start and end are taken (see preload/preload.h). */
enum uprobe_stamp {
	STAMP_BEFORE,     /* releases: both at the entry */
	STAMP_AFTER,      /* try-calls: both at the return */
	STAMP_AROUND,     /* may wait: entry and return */
	STAMP_ENTRY_ONLY, /* never returns (exit): no return probe */
};

/* Where a record's addr or arg comes from. A0..A3: the first four
 * arguments at the entry (%di, %si, %dx, %cx). */
enum uprobe_from {
	FROM_NONE,
	FROM_A0,
	FROM_A1,
	FROM_A2,
	FROM_A0_U32,   /* A0 as an unsigned int (thrd_exit's int) */
	FROM_RETVAL,
	FROM_SEM_VALUE, /* sem_open: its value argument, with O_CREAT only */
	FROM_SELF_PD,  /* the calling thread's handle (from start_thread) */
	FROM_SELF_TID,
	FROM_CHILD_PD, /* the created thread's handle */
	FROM_CHILD_TID,
	FROM_TID_OF_A0, /* the tid of the thread whose handle is A0 */
};

/* How the return value becomes the record's result. */
enum uprobe_result {
	RESULT_RETURNED, /* the error number itself (pthread, C11) */
	RESULT_ERRNO,    /* 0, or -1 with errno set: result 0 or -1 */
	RESULT_POINTER,  /* NULL on failure: result 0 or -1 */
	RESULT_VOID,     /* nothing returned: 0 */
};

struct uprobe_spec {
	const char *symbol;
	uint16_t kind; /* MTX_SYNC_KIND__COUNT: a helper, not an operation */
	uint16_t op;
	uint8_t stamp, obj, arg, result;
};

extern const struct uprobe_spec uprobe_specs[];
extern const size_t uprobe_nr_specs;

/* A file probed, and the code in it that belongs to the C runtime (calls
 * from there are glibc's own): address ranges at link time, sorted. */
struct uprobe_module {
	char *path;
	struct uprobe_range { uint64_t lo, hi; } *runtime;
	size_t nr_runtime, cap_runtime;
};

struct uprobe_probe {
	const struct uprobe_spec *spec;
	const char *path;  /* modules[module].path */
	size_t module;
	uint64_t offset;   /* of the function in the file */
	uint64_t addr;     /* of the function at link time */
	uint64_t size;     /* of the function, bytes */
	uint32_t skip;     /* the probes sit this far in (uprobe_entry_offset) */
	uint8_t init_too;  /* also the init (glibc's x86-64 pthread_spin_init is
			    * pthread_spin_unlock): an unlock of a lock nobody
			    * holds is an init */
	long id[2];        /* tracepoint ids: entry, return (0: none) */
};

/* Which of a uprobe event's arg[] hold what besides the arguments. */
#define UPROBE_ARG_CALLSITE 4 /* entry: return address; return: where to */
#define UPROBE_ARG_IP 5       /* the function's address in the process */
#define UPROBE_ARG_SP 6       /* entry: the stack pointer */

struct uprobe_thread;
struct uprobe_held;

struct sync_uprobes {
	struct uprobe_group *group;
	struct uprobe_module *modules; /* files looked at (owned) */
	size_t nr_modules;
	struct uprobe_probe *by_spec; /* [uprobe_nr_specs], while finding */
	struct uprobe_probe *probes;  /* [nr_probes]: event tag i*2 (+1: return) */
	size_t nr_probes, nr_functions;
	int has_start_thread;
	/* pairing (sync-uprobes-pair.c) */
	struct uprobe_thread *threads; /* open addressing by tid */
	size_t threads_cap, nr_threads;
	struct uprobe_held *held;      /* spinlocks' holders, by (pid, addr) */
	size_t held_cap, nr_held;
	uint64_t unpaired;
};

/* uprobe_called_by_runtime - whether the call of @p whose entry was hit at
 * @ip (the function's address in the process) returns to @callsite inside
 * the C runtime of @p's file (sync-uprobes.c). */
int uprobe_called_by_runtime(const struct sync_uprobes *u, const struct uprobe_probe *p, uint64_t ip,
			     uint64_t callsite);

/* sync_uprobes_pair_free - free the pairing state. */
void sync_uprobes_pair_free(struct sync_uprobes *u);

#endif
