/*
 * collector/event.h - the one decoded event type that flows from every source
 * (perf rings, preload lanes) through the time-ordering stage to the writer.
 *
 * Data flow: source-*.c decode raw bytes -> struct mtx_event -> order.c (k-way
 * merge by ts_ns) -> model.c (thread state machine) -> writer.c (SQLite).
 * All times are CLOCK_MONOTONIC nanoseconds (perf attr.use_clockid).
 */
#ifndef MTX_COLLECTOR_EVENT_H
#define MTX_COLLECTOR_EVENT_H

#include <stdint.h>

#include "collector/preload/shm.h" /* struct mtx_sync_record */

/* One row per event type: X(enum suffix, name used in messages and meta keys). */
#define MTX_EVENT_TYPES(X)      \
	X(COMM, "comm")             \
	X(FORK, "fork")             \
	X(EXIT, "exit")             \
	X(SWITCH_OUT, "switch_out") \
	X(SWITCH_IN, "switch_in")   \
	X(WAKEUP, "wakeup")         \
	X(SYS_ENTER, "sys_enter")   \
	X(SYS_EXIT, "sys_exit")     \
	X(SYNC, "sync")             \
	X(LOST, "lost")             \
	X(MMAP, "mmap")             \
	X(SAMPLE, "sample")         \
	X(UPROBE, "uprobe")           \
	X(CALL, "call")               \
	X(INTERRUPT, "interrupt")     \
	X(PHASE_SIGNAL, "phase_signal") \
	X(SOURCE_OFF, "source_off")

enum mtx_event_type {
#define X(e, n) MTX_EV_##e,
	MTX_EVENT_TYPES(X)
#undef X
	MTX_EV__COUNT
};

/* Event sources; lost-record counters are kept per source (meta key lost_<name>). */
#define MTX_SOURCES(X)                 \
	X(SCHED, "sched")              \
	X(SYSCALLS, "syscalls")        \
	X(WAKEUPS, "wakeups")          \
	X(SYNC, "sync")                \
	X(SAMPLES, "samples")          \
	X(FUNCTIONS, "functions")      \
	X(CALLS, "calls")              \
	X(INTERRUPTS, "interrupts")    \
	X(PHASE_SIGNAL, "phase_signal")

/* mtx_event.u.call.at_return of the event that closes a removed probe
 * set's open calls (collector/calls.c). */
#define MTX_CALL_CUT 2

enum mtx_source_id {
#define X(e, n) MTX_SRC_##e,
	MTX_SOURCES(X)
#undef X
	MTX_SRC__COUNT
};

/*
 * A copy of a thread's user stack and registers taken with a CPU sample
 * (mtx collect --call-graph dwarf), for unwinding by DWARF CFI in the
 * collector (collector/unwind.c). One malloc'd block.
 */
#define MTX_NR_DWARF_REGS 17 /* x86-64 DWARF registers 0-16: rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip */
struct mtx_user_stack {
	uint64_t regs[MTX_NR_DWARF_REGS]; /* by DWARF number; regs[7] = sp, regs[16] = ip */
	uint64_t size;                    /* bytes in data: the stack from sp up */
	uint8_t data[];
};

struct mtx_event {
	uint64_t ts_ns;
	uint32_t type; /* enum mtx_event_type */
	int32_t cpu;   /* -1 when unknown */
	int32_t pid;   /* process of the thread the event is about */
	int32_t tid;   /* thread the event is about (waker for WAKEUP) */
	union {
		struct { int32_t ppid, ptid; } fork;           /* pid/tid: the new task */
		struct { char comm[16]; uint8_t exec; } comm;  /* exec: comm set by exec */
		/* A switch out; with --sample, @pcs (malloc'd, owned by the
		 * consumer, NULL without) is the user call chain as for a
		 * SAMPLE, and @stack_id the collector's id for it (0: none). */
		/* @prev_prio: the kernel priority of the thread leaving
		 * (INT32_MIN: not known), for collector/thread-sched.c. */
		struct {
			int64_t prev_state;
			int32_t next_tid, prev_prio;
			uint8_t preempt;
			uint32_t nr, stack_id;
			uint64_t *pcs;
		} sw;
		struct { int32_t wakee_tid; int32_t target_cpu; } wakeup; /* tid: waker, 0 = interrupt/idle */
		struct { int64_t nr; uint64_t arg0, arg1; } sys_enter;
		struct { int64_t nr; int64_t ret; } sys_exit;
		struct mtx_sync_record sync;
		struct { uint32_t source; uint64_t count; } lost;
		/* An executable mapping (PERF_RECORD_MMAP2); @path is malloc'd
		 * and owned by whoever consumes the event (collector/profile.c). */
		struct {
			uint64_t start, len, pgoff;
			char *path;
			uint8_t build_id_size; /* 0: none in the record */
			uint8_t build_id[20];
		} mmap;
		/* A CPU sample: the user call chain, leaf first, as perf gives it
		 * (callers are return addresses); @pcs is malloc'd and owned by
		 * the consumer. @kernel: the CPU was in the kernel for this thread.
		 * @stack: NULL, or (--call-graph dwarf) the user stack to unwind
		 * instead of @pcs, malloc'd and owned by the consumer. */
		struct { uint64_t *pcs; uint32_t nr; uint8_t kernel; struct mtx_user_stack *stack; } sample;
		/* A uprobe hit (collector/sync/uprobes.c): probe is the probe's
		 * index, arg its fetched values in the order it defines them. */
		struct { uint32_t probe; uint32_t at_return; uint64_t arg[7]; } uprobe;
		/* A function entered or left, from uprobes on --functions or the
		 * -pg / -finstrument-functions hooks of the preload library:
		 * @fn an address inside the function in process pid (its entry
		 * where known; it is named like a sample's pc), @callsite the
		 * return address in the caller (0 if unknown). Time-ordered per
		 * thread; collector/calls.c pairs them into calls rows. @sp:
		 * at an entry, the stack pointer (0 if unknown); @uretprobe: the
		 * return is a kernel return probe's (uprobes), which the kernel
		 * arms only so deep (collector/calls.h). @set: the probe set
		 * (mtx ctl probe add) whose probe it was; an event with
		 * at_return MTX_CALL_CUT closes that set's open calls (removed).
		 * @catch_up (collector/catch-up.h): an entry, a call found on
		 * the stack as its probe went in; a return, a hit of the probe
		 * on such a call's return address, @sp the stack pointer
		 * after it (any call returning there hits it). */
		struct {
			uint64_t fn;
			uint64_t callsite;
			uint64_t sp;
			uint8_t at_return; /* 1: a return; MTX_CALL_CUT: @set removed */
			uint8_t uretprobe;
			uint8_t catch_up;
			uint16_t set; /* the probe set's (mtx ctl probe add), else 0 */
		} call;
		/* An interrupt handler entered or left on cpu (the event's tid
		 * is whatever it interrupted): @kind an enum mtx_interrupt_kind
		 * (collector/interrupts.h), @key what pairs the exit with its
		 * entry (the irq number, the softirq vector, the hrtimer's
		 * address), @function the hrtimer's function (0: not a timer),
		 * @name the irq's action name at an irq entry ("" otherwise). */
		struct { uint8_t kind, exit; int32_t irq; uint64_t key, function; char name[24]; } intr;
		/* --phase-signal's signal sent to task @target (a tid; @group: to its process) */
		struct { int32_t target; uint8_t group; } phase_signal;
		/* @source was switched off then (mtx ctl, the consultant):
		 * what the model keeps open of it is seen no more */
		struct { uint32_t source; } source_off;
	} u;
};

/* Name of an event type ("switch_out"), or "?" when out of range. */
const char *event_type_name(uint32_t type);
/* Name of a source ("sched"), or "?" when out of range. */
const char *source_name(uint32_t source);

#endif
