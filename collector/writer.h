/*
 * collector/writer.h - the SQLite sink: rows in, batched transactions out.
 * The writer knows tables, not events; collector/model.c turns events into
 * rows. Errors are sticky: after the first failure (e.g. a full disk) every
 * call returns it, and what was committed before stays in the file.
 *
 * Rows are written some time after the call that hands them over (in
 * blocks, and with writer_background on another thread), so the strings of
 * the hot rows -- states, syscall and op names, kinds, fd kinds, unwind
 * methods, a call's unfinished -- must live as long as the writer (string
 * literals and static tables do); names, paths, build-ids and meta values
 * are copied.
 */
#ifndef MTX_COLLECTOR_WRITER_H
#define MTX_COLLECTOR_WRITER_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mtx_writer;

/* writer_open - create the run database @path (must not exist) and begin the
 * first batch. Returns 0 or -errno with a message in @err (caller frees). */
int writer_open(struct mtx_writer **out, const char *path, char **err);

/*
 * writer_background - from now on, write the rows on a thread of the
 * writer's own at SCHED_IDLE, which runs only when a CPU would otherwise
 * be idle: a program that keeps every CPU busy is not slowed by SQLite
 * while it runs, and its rows wait in memory. Past about a million rows
 * waiting the thread runs at normal priority until it has caught up; past
 * four million the caller waits. writer_db and writer_close first write
 * everything and stop the thread. Returns 0 or -errno.
 */
int writer_background(struct mtx_writer *w);

/* writer_hold - while @hold, write nothing and keep every row in memory
 * (after writer_background; see row_queue_hold). */
void writer_hold(struct mtx_writer *w, bool hold);

/*
 * writer_capture - from now on, keep the run's timeline (src/derived/timeline.h)
 * as its rows are written, so that the derived build at the end of the
 * collection need not read them back; before any row. sync_resolve amends
 * writer_captured(); writer_take_capture hands it over once everything is
 * written (NULL after a failed write); writer_close frees one not taken.
 * Returns 0 or -ENOMEM.
 */
struct tl_capture;
int writer_capture(struct mtx_writer *w);
struct tl_capture *writer_captured(struct mtx_writer *w);
struct tl_capture *writer_take_capture(struct mtx_writer *w);

/* Rows. Each returns 0 or the writer's sticky -errno. NULL-able columns take
 * a negative value (or NULL pointer) for NULL. */
int writer_thread(struct mtx_writer *w, int32_t tid, int32_t pid, const char *name,
		  uint64_t start_ns, uint64_t end_ns, int attached);
/* A window in which a source or a probe set was on (mtx ctl). @kind and
 * @reason static; @target copied; 0 is NULL for @probe_id (and then
 * @hits), @functions, @off_ns (on until the end) and @cost_ns. */
struct writer_instrumentation_row {
	int64_t id;
	const char *kind, *target, *reason, *off_reason; /* off_reason NULL-able */
	int64_t probe_id, functions;
	uint64_t on_ns, off_ns, hits, cost_ns;
};
int writer_instrumentation(struct mtx_writer *w, const struct writer_instrumentation_row *i);
/* A function instrumentation row @instrumentation_id put probes on;
 * @name and @module copied. */
int writer_instrumented_function(struct mtx_writer *w, int64_t instrumentation_id, const char *name,
				 const char *module);
/* @policy: a static name (collector/thread-sched.c); @cpus_allowed
 * copied, NULL-able. */
int writer_thread_sched(struct mtx_writer *w, int32_t tid, uint64_t ts_ns, const char *policy,
			int32_t priority, int32_t nice, const char *cpus_allowed);
int writer_process(struct mtx_writer *w, int32_t pid, int32_t ppid, const char *exe,
		   uint64_t start_ns, int64_t end_ns, int64_t exit_status);
int writer_thread_state(struct mtx_writer *w, int32_t tid, uint64_t start_ns, uint64_t end_ns,
			const char *state, int32_t cpu, const char *syscall);
/* @stack_id: where prev_tid was in its code (--sample), 0 for none (NULL). */
int writer_switch(struct mtx_writer *w, uint64_t ts_ns, int32_t cpu, int32_t prev_tid,
		  const char *prev_state, int preempt, int32_t next_tid, uint32_t stack_id);
int writer_wakeup(struct mtx_writer *w, uint64_t ts_ns, int32_t cpu, int32_t waker_tid,
		  int32_t wakee_tid, int32_t target_cpu);
/* An interrupts row: @kind static (collector/interrupts.h), @irq NULL
 * when negative, @name copied. */
int writer_interrupt(struct mtx_writer *w, int32_t cpu, uint64_t start_ns, uint64_t end_ns, const char *kind,
		     int32_t irq, const char *name);
/* An other_tasks row (collector/other-tasks.h); @comm copied, NULL-able. */
int writer_other_task(struct mtx_writer *w, int32_t tid, int32_t pid, const char *comm);
/* A phases row; @source is a static string, @tid 0 for none. */
int writer_phase(struct mtx_writer *w, int64_t id, const char *name, uint64_t start_ns, uint64_t end_ns,
		 const char *source, int32_t tid);
/* A whole syscalls row, fd included: a struct because collector/fd-kind.c
 * holds rows back until their fd_kind is known. */
struct mtx_syscall_row {
	uint64_t start_ns;
	int64_t end_ns;   /* -1: never returned (NULL) */
	int64_t nr;
	const char *name; /* static (collector/syscall-names.h) */
	int64_t ret;      /* NULL unless has_ret */
	int32_t tid;
	int32_t fd;       /* NULL unless has_fd */
	uint8_t has_ret, has_fd;
	uint8_t blocked;  /* its thread waited inside it (collector/detail.h) */
	uint8_t io_op;    /* a read- or write-family call that returned (src/io-ops.h) */
	uint64_t life_ns; /* its thread's lifetime began then (collector/detail.h) */
	uint64_t io_wait_ns; /* its thread's time blocked on I/O inside it */
	uint32_t io_stack;   /* the user stack it blocked on I/O with (profile_intern's), 0: none */
};
/* @fd_kind: NULL, or a static name (collector/fd-kind.h); @path: NULL, or
 * the file's path (copied). */
int writer_syscall_row(struct mtx_writer *w, const struct mtx_syscall_row *r, const char *fd_kind, const char *path);
/* The rows collector/detail.c added up instead of writing: @state and
 * @prev_state static; @cpu -1 for none (thread_states.cpu's). */
int writer_summarized_state(struct mtx_writer *w, int32_t tid, uint64_t life_ns, const char *state,
			    int32_t cpu, uint64_t intervals, uint64_t ns);
int writer_summarized_switch(struct mtx_writer *w, int32_t prev_tid, int32_t next_tid, const char *prev_state,
			     uint64_t count);
struct writer_summarized_syscall_row {
	int32_t tid;
	uint64_t life_ns;
	int64_t nr;
	const char *name; /* static */
	uint64_t calls, errors, with_end, ns, max_ns;
};
int writer_summarized_syscall(struct mtx_writer *w, const struct writer_summarized_syscall_row *s);
/* A sync_ops row; object ids come from collector/sync/objects.c. @op is a
 * static name; @arg and @callsite are stored as given; @stack_id 0 for none
 * (NULL). @overhead_ns and @injected_ns (what the wrapper cost) are NULL
 * when @cost_measured is false (uprobes); @hold_ns is NULL when negative. */
struct writer_sync_op_row {
	int32_t tid, result;
	int64_t object_id, arg, hold_ns;
	const char *op;
	uint64_t start_ns, end_ns, callsite;
	uint32_t stack_id, overhead_ns, injected_ns;
	bool cost_measured;
	bool summarized; /* past --detail's budget: captured, not a row (collector/sync/summary.h) */
};
int writer_sync_op(struct mtx_writer *w, const struct writer_sync_op_row *op);
/* writer_may_summarize - whether a sync op may be handed over summarized:
 * the capture, which alone will hold it, is kept whatever its size. */
bool writer_may_summarize(struct mtx_writer *w);
int writer_sync_object(struct mtx_writer *w, int64_t id, const char *kind, uint64_t addr,
		       int32_t pid, uint64_t created_ns);

/* CPU samples: @stack_id 0 for none (NULL), @unwind "fp" or "dwarf". Stacks,
 * functions, maps and callsites are written when the run ends
 * (collector/profile.c). */
int writer_sample(struct mtx_writer *w, uint64_t ts_ns, int32_t tid, int32_t cpu, uint32_t stack_id,
		  const char *unwind);
/* A stacks row; @file and @line (NULL, 0: unknown) where in its function @addr is. */
int writer_stack(struct mtx_writer *w, uint32_t id, uint32_t parent_id, int64_t function_id, int32_t pid,
		 uint64_t addr, const char *file, int line);
int writer_function(struct mtx_writer *w, int64_t id, const char *name, const char *module, const char *file,
		    int line);
int writer_map(struct mtx_writer *w, int32_t pid, uint64_t ts_ns, uint64_t start, uint64_t end, uint64_t pgoff,
	       const char *path, const char *build_id, const char *symbols);
/* A callsites row: @stack_id (0: none) the stacks row of its innermost frame. */
int writer_callsite(struct mtx_writer *w, int32_t pid, uint64_t addr, int64_t function_id, uint32_t stack_id);
/* A calls row (collector/calls.c): @parent_id <= 0 for none (NULL);
 * @unfinished NULL when the call returned, else why it was closed (a
 * static string); @retroactive: found on the stack as its probe went in. */
struct writer_call_row {
	int64_t id, function_id, parent_id;
	uint64_t start_ns, end_ns;
	int32_t tid, depth;
	const char *unfinished;
	int retroactive;
};

/* writer_calls - @n calls rows: cheapest in id order (appended to the
 * table's b-tree). Returns 0 or -errno. */
int writer_calls(struct mtx_writer *w, const struct writer_call_row *rows, size_t n);

/* writer_collector_wait - thread @tid waited @wait_ns for the collector
 * in @waits waits (a full lane or no free lane: collector_waits). */
int writer_collector_wait(struct mtx_writer *w, int32_t tid, int32_t pid, uint64_t wait_ns, uint64_t waits);

/* writer_meta - insert or replace a meta fact (goes into the current batch). */
int writer_meta(struct mtx_writer *w, const char *key, const char *value);
int writer_meta_int(struct mtx_writer *w, const char *key, int64_t value);

/* How often rows are committed (the collector asks, and the background
 * thread does by itself while it writes a backlog): a collector killed at
 * any moment loses at most this much of what it recorded. */
#define WRITER_COMMIT_EVERY_NS 500000000ull

/* writer_commit - commit the rows handed over so far and begin the next
 * batch (in the background: as soon as the thread has written them). */
int writer_commit(struct mtx_writer *w);

/* writer_summarized_ops - sync ops handed over summarized (to the capture
 * only, collector/sync/summary.h). */
uint64_t writer_summarized_ops(const struct mtx_writer *w);
/* writer_rows - rows handed over so far (all tables), summarized ops
 * left out. */
uint64_t writer_rows(const struct mtx_writer *w);
/* writer_rows_spilled - of those, rows that waited in the spill file
 * (src/row-queue.h) rather than in memory. */
uint64_t writer_rows_spilled(const struct mtx_writer *w);

/* writer_db - the underlying handle, for finalizing passes (SQL over the
 * loaded tables), once every row handed over is written and committed
 * (and the background thread stopped). Valid until writer_close; call it
 * again after writing more rows. */
sqlite3 *writer_db(struct mtx_writer *w);

/* writer_error - the sticky error message, or NULL. */
const char *writer_error(struct mtx_writer *w);

/*
 * writer_close - commit; when @finalize, build indexes and mark the run
 * complete first. Closes the database and frees @w. Returns 0 or -errno
 * (the sticky error if there was one).
 */
int writer_close(struct mtx_writer *w, int finalize);

#endif
