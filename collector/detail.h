/*
 * collector/detail.h - how much of the kernel's stream becomes rows (mtx
 * collect --detail): seed 003's answer to a heavy program, exact totals
 * for every event and a row per event only up to a budget.
 *
 * Every row of the kernel sources passes through here on its way to the
 * writer. Until the budget of rows is spent, each is written. From the
 * instant it is (meta detail_until_ns), the rows a heavy program makes by
 * the million and no analysis of a wait needs are added up instead of
 * written: running and runnable intervals, switches that did not block
 * (a preemption, a yield) and syscalls that did not block. They go into
 * summarized_states (per thread lifetime and state: intervals, time),
 * summarized_switches (per from, to and state left in: count) and
 * summarized_syscalls (per thread lifetime and syscall: calls, errors,
 * time, longest), which the views thread_summary and switch_graph add in,
 * so that their figures are those of a run that kept every row. What
 * waits are made of stays a row: blocked, sleeping and I/O intervals,
 * switches that blocked, syscalls that blocked, wakeups, sync operations.
 *
 * A row belongs to the detail when it begins before the cutoff, so that
 * the rows and the totals never count an event twice or miss one.
 */
#ifndef MTX_COLLECTOR_DETAIL_H
#define MTX_COLLECTOR_DETAIL_H

#include "collector/writer.h"

#include <stdbool.h>
#include <stdint.h>

struct mtx_detail;

/* The default budget: about a second of SQLite's writing and indexing. */
#define DETAIL_DEFAULT_ROWS 1000000u

/* detail_new - rows through @w, every one of them until detail_budget.
 * NULL when out of memory. */
struct mtx_detail *detail_new(struct mtx_writer *w);

/* detail_budget - @rows of the summarizable kinds in detail (0: every
 * row, mtx collect --detail all). */
void detail_budget(struct mtx_detail *d, uint64_t rows);

/* detail_now - the stream has reached @ts_ns (the cutoff falls there). */
void detail_now(struct mtx_detail *d, uint64_t ts_ns);

/* A thread_states row of the lifetime that began at @life_ns (as
 * writer_thread_state); @on_cpu: running or runnable, a state added up
 * past the budget. */
int detail_state(struct mtx_detail *d, uint64_t life_ns, int32_t tid, uint64_t start_ns, uint64_t end_ns,
		 const char *state, int32_t cpu, const char *syscall, bool on_cpu);

/* A switches row (as writer_switch); @preempt: the thread left the CPU
 * runnable (not to wait), a switch added up past the budget. */
int detail_switch(struct mtx_detail *d, uint64_t ts_ns, int32_t cpu, int32_t prev_tid, const char *prev_state,
		  int preempt, int32_t next_tid, uint32_t stack_id);

/* A syscalls row (as writer_syscall_row); row->blocked says whether its
 * thread waited inside it, row->life_ns its lifetime. */
int detail_syscall(struct mtx_detail *d, const struct mtx_syscall_row *row, const char *fd_kind, const char *path);

/* detail_sync_op - a sync op that begins at @start_ns counts in the budget:
 * true when it is in the detail (collector/sync/summary.h adds up some of
 * the others). The sync ops' cutoff is their own (meta
 * sync_detail_until_ns): where their stream was when the budget ran out. */
bool detail_sync_op(struct mtx_detail *d, uint64_t start_ns);

/* detail_finish - write the summarized tables and meta (detail_rows,
 * detail_until_ns, summarized_*). Returns 0 or the writer's -errno. */
int detail_finish(struct mtx_detail *d);

void detail_free(struct mtx_detail *d);

#endif
