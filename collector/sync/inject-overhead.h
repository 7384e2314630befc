/*
 * collector/sync/inject-overhead.h - mtx collect --inject-overhead
 * DURATION[:sync][:op=OP[,OP...]][:tid=N|:thread=NAME]: a busy wait that
 * libmtx-preload.so adds before the real call of every recorded sync op
 * in scope, of the threads in scope (collector/preload/preload-inject.c),
 * to see how much overhead a program's order tolerates (seed 004 §5).
 *
 * Only sync ops: the scopes "calls" and "all" (the -pg and
 * -finstrument-functions hooks too) are refused. A hook's cost is charged
 * by calibration, not measured per call as a sync wrapper's is, so an
 * injected wait there would not be recorded per call, and mtx
 * probe-effect, which removes each sync op's measured overhead from the
 * segment before it, could not remove it; and the hooks run where the
 * instrumented function's argument registers are live, where the thread
 * name check of :thread= (a system call and a string compare) cannot run
 * without saving them on every call.
 */
#ifndef MTX_COLLECTOR_SYNC_INJECT_OVERHEAD_H
#define MTX_COLLECTOR_SYNC_INJECT_OVERHEAD_H

#include <stdint.h>

/* The longest wait the option takes (each op's record holds it in 32 bits
 * of TSC ticks). */
#define SYNC_INJECT_MAX_NS 1000000000ull

/* A step of the busy wait (a few TSC reads apart) longer than this was
 * time the thread spent off the CPU, or in an interrupt: not counted. */
#define SYNC_INJECT_GAP_NS 1000

struct sync_inject {
	uint64_t delay_ns; /* 0: not asked for */
	int32_t tid;       /* only this thread; 0: any */
	char thread[16];   /* only threads of this name; "": any */
	uint64_t ops;      /* only these ops: bit 1 << enum mtx_sync_op each; 0: any */
	const char *text;  /* the option as given (meta inject_overhead) */
};

/*
 * sync_inject_parse - read the option's @text into @out. Returns 0, or
 * -EINVAL with a message in @err (caller frees) that names what is wrong.
 */
int sync_inject_parse(const char *text, struct sync_inject *out, char **err);

#endif
