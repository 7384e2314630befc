/*
 * collector/model.h - the thread model: consumes the time-ordered event
 * stream and writes rows. It follows every traced thread through its states
 * (running, runnable, blocked, blocked_io, sleeping), pairs syscall entry
 * and exit, and tracks processes and thread lifetimes, so that each thread's
 * lifetime is tiled by thread_states without gap or overlap.
 */
#ifndef MTX_COLLECTOR_MODEL_H
#define MTX_COLLECTOR_MODEL_H

#include "collector/event.h"
#include "collector/fd-kind.h"
#include "collector/writer.h"
#include "src/thread-states.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct mtx_model;

/* model_new - a model writing into @w. Returns NULL when out of memory. */
struct mtx_model *model_new(struct mtx_writer *w);

/*
 * model_set_fd_resolver - how the model learns what a syscall's file
 * descriptor was (syscalls.fd_kind): @fn, e.g. fd_kind_resolve_proc, asked
 * once per descriptor until it is closed or replaced. Without one (the
 * default) fd_kind is NULL.
 */
void model_set_fd_resolver(struct mtx_model *m, mtx_fd_resolve_fn fn, void *ctx);

/* model_set_detail - how many rows of the kinds a heavy program makes by
 * the million are written before the rest are added up (collector/detail.h;
 * 0: every row, the default). */
void model_set_detail(struct mtx_model *m, uint64_t rows);
/* model_detail - that budget, which the sync ops count in too. */
struct mtx_detail *model_detail(struct mtx_model *m);
/*
 * model_attached_thread - thread @tid of process @pid, named @name, was
 * alive when mtx attached at @ns, in the state /proc showed (@proc_state:
 * 'R', 'S', 'D', ...; @syscall_nr: the syscall it was in, or -1): its
 * lifetime starts there, flagged attached. The main thread (@tid == @pid)
 * names the process.
 */
void model_attached_thread(struct mtx_model *m, int32_t tid, int32_t pid, const char *name, char proc_state,
			   int syscall_nr, uint64_t ns);

/* model_detached - mtx collect -p detached at @ns: the run lasts until
 * then, whether its threads did anything at the end or not. */
void model_detached(struct mtx_model *m, uint64_t ns);

/* model_program_released - the instant @ns the program was let go: the
 * system-wide sources (interrupts) count from there. */
void model_program_released(struct mtx_model *m, uint64_t ns);

/* model_event - feed one event (events must come in time order; an event
 * earlier than its thread's last one is clamped and counted). */
void model_event(struct mtx_model *m, const struct mtx_event *ev);

/* order_emit_fn adapter: @ctx is the model. */
void model_emit(void *ctx, const struct mtx_event *ev);

/*
 * model_finish - close every thread still alive at @end_ns, write threads
 * and processes, and the model's counters into meta. @root_pid's exit
 * status is @root_status (as from waitpid: exit code, or 128+signal), or
 * -1 if unknown.
 */
int model_finish(struct mtx_model *m, uint64_t end_ns, pid_t root_pid, int root_status);

/* model_first_ns / model_last_ns - the time span of events seen (0 if none). */
uint64_t model_first_ns(const struct mtx_model *m);
uint64_t model_last_ns(const struct mtx_model *m);

/* model_has_thread - whether @tid is a thread of the run the model has seen. */
bool model_has_thread(struct mtx_model *m, int32_t tid);

/* model_nr_threads - how many thread lifetimes were seen. */
uint64_t model_nr_threads(const struct mtx_model *m);

/* A traced thread alive now, as the model follows it (mtx ctl SOCK live). */
struct model_thread_view {
	int32_t tid, pid;
	const char *name;
	uint64_t start_ns;
	enum thread_state state; /* since @since_ns */
	uint64_t since_ns;
	uint64_t state_ns[NR_THREAD_STATES]; /* its life so far, the current state's to now */
	uint64_t io_ops, io_bytes; /* read- and write-family syscalls returned, their bytes (src/io-ops.h) */
};
typedef void (*model_thread_fn)(void *ctx, const struct model_thread_view *t);

/* model_each_thread - @fn for each thread alive, its current state's
 * interval counted up to @now_ns (the stream's time, model_last_ns). */
void model_each_thread(const struct mtx_model *m, uint64_t now_ns, model_thread_fn fn, void *ctx);

/* model_keep_cpu_times - from now on, add up each thread's time running
 * on each CPU and runnable before it ran there (mtx collect --consultant's
 * /Machine); model_each_cpu_time - @fn for each (thread, CPU) so far, the
 * ended threads' too, an interval under way counted up to @now_ns. */
struct model_cpu_time {
	int32_t tid, cpu;
	uint64_t running_ns, runnable_ns;
};
typedef void (*model_cpu_time_fn)(void *ctx, const struct model_cpu_time *c);
void model_keep_cpu_times(struct mtx_model *m);
void model_each_cpu_time(const struct mtx_model *m, uint64_t now_ns, model_cpu_time_fn fn, void *ctx);

/* model_keep_io_times - from now on, add up each thread's time blocked
 * on I/O by the user stack it left the CPU with (the switch-out's, when
 * the sched source records stacks), and its I/O on each file, from the
 * syscall rows as the fd tracker vouches for their path (a tenth of a
 * second late or so), by that stack too. model_each_io_time - @fn for
 * each (thread, file or NULL, stack) so far, the ended threads' too, a
 * wait under way counted up to @now_ns; @path stays valid while the model
 * does. A NULL path's time is all the thread's I/O wait in that stack
 * (stack 0 is left out: it names no code). */
struct model_io_time {
	int32_t tid;
	uint32_t stack; /* profile_intern's; 0: none */
	const char *path;
	uint64_t io_ops, io_bytes, io_wait_ns;
};
typedef void (*model_io_time_fn)(void *ctx, const struct model_io_time *f);
void model_keep_io_times(struct mtx_model *m);
void model_each_io_time(const struct mtx_model *m, uint64_t now_ns, model_io_time_fn fn, void *ctx);

/* model_on_thread_end - @fn for each thread as it ends, with its whole
 * life (mtx collect --consultant keeps the ended ones' totals). */
void model_on_thread_end(struct mtx_model *m, model_thread_fn fn, void *ctx);

/* model_syscalls - how many syscalls returned so far (their records'
 * cost, for the consultant's budget). */
uint64_t model_syscalls(const struct mtx_model *m);
/* model_switches - how many times the traced threads left a CPU so far
 * (what a per-thread event adds its cost to). */
uint64_t model_switches(const struct mtx_model *m);

/* model_ended - how many traced threads have ended so far, and the time
 * they spent in each state, added up into @state_ns. */
uint64_t model_ended(const struct mtx_model *m, uint64_t state_ns[NR_THREAD_STATES]);

/* model_free - release the model (rows already written stay). */
void model_free(struct mtx_model *m);

#endif
