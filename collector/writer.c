/*
 * collector/writer.c - see writer.h.
 *
 * Throughput: one prepared INSERT per table, the rows handed to a row
 * queue (src/row-queue.h: blocks, many rows to an INSERT, with
 * writer_background on a thread at SCHED_IDLE); rows go into large
 * transactions; secondary indexes are built once at the end
 * (schema/indexes.sql).
 */
#include "config.h"
#include "collector/writer.h"
#include "collector/preload/shm.h"
#include "src/db.h"
#include "src/row-queue.h"
#include "src/derived/timeline.h"
#include "src/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One row per prepared statement: X(enum suffix, SQL). */
#define WRITER_STATEMENTS(X)                                                                 \
	X(THREAD, "INSERT INTO threads(tid, pid, name, start_ns, end_ns, attached) VALUES (?,?,?,?,?,?)") \
	X(THREAD_SCHED, "INSERT INTO thread_sched(tid, ts_ns, policy, priority, nice, cpus_allowed) "        \
			"VALUES (?,?,?,?,?,?)")                                                      \
	X(PROCESS, "INSERT INTO processes(pid, ppid, exe, start_ns, end_ns, exit_status) "     \
		   "VALUES (?,?,?,?,?,?)")                                                    \
	X(STATE, "INSERT INTO thread_states(tid, start_ns, end_ns, state, cpu, syscall) "      \
		 "VALUES (?,?,?,?,?,?)")                                                      \
	X(SWITCH, "INSERT INTO switches(ts_ns, cpu, prev_tid, prev_state, preempt, next_tid, " \
		  "stack_id) VALUES (?,?,?,?,?,?,?)")                                                     \
	X(WAKEUP, "INSERT INTO wakeups(ts_ns, cpu, waker_tid, wakee_tid, target_cpu) "         \
		  "VALUES (?,?,?,?,?)")                                                       \
	X(OTHER_TASK, "INSERT INTO other_tasks(tid, pid, comm) VALUES (?,?,?)")                \
	X(PHASE, "INSERT INTO phases(id, name, start_ns, end_ns, source, tid) VALUES (?,?,?,?,?,?)") \
	X(INTERRUPT, "INSERT INTO interrupts(cpu, start_ns, end_ns, kind, irq, name) VALUES (?,?,?,?,?,?)") \
	X(SYSCALL, "INSERT INTO syscalls(tid, start_ns, end_ns, nr, name, ret, fd, fd_kind, path) " \
		   "VALUES (?,?,?,?,?,?,?,?,?)")                                              \
	X(SUMMARIZED_STATE, "INSERT INTO summarized_states(tid, life_ns, state, cpu, intervals, ns) VALUES (?,?,?,?,?,?)") \
	X(SUMMARIZED_SWITCH, "INSERT INTO summarized_switches(prev_tid, next_tid, prev_state, count) "             \
			     "VALUES (?,?,?,?)")                                                                    \
	X(SUMMARIZED_SYSCALL, "INSERT INTO summarized_syscalls(tid, life_ns, nr, name, calls, errors, returned, " \
			      "total_ns, max_ns) VALUES (?,?,?,?,?,?,?,?,?)")                                      \
	X(SYNC_OP, "INSERT INTO sync_ops(tid, object_id, op, start_ns, end_ns, result, arg, "  \
		   "callsite, stack_id, unfinished, overhead_ns, injected_ns, hold_ns, id) "    \
		   "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)")                   \
	/* an op past --detail's budget: to the capture only (collector/sync/summary.h) */ \
	X(SUMMARIZED_OP, NULL)                                                                 \
	X(SYNC_OBJECT, "INSERT INTO sync_objects(id, kind, addr, pid, created_ns) "            \
		       "VALUES (?,?,?,?,?)")                                                  \
	X(SAMPLE, "INSERT INTO samples(ts_ns, tid, cpu, stack_id, unwind) VALUES (?,?,?,?,?)")   \
	X(STACK, "INSERT INTO stacks(id, parent_id, function_id, pid, addr, file, line) VALUES (?,?,?,?,?,?,?)") \
	X(FUNCTION, "INSERT INTO functions(id, name, module, file, line) VALUES (?,?,?,?,?)")  \
	X(MAP, "INSERT INTO maps(pid, ts_ns, start_addr, end_addr, pgoff, path, build_id, "     \
	       "symbols) VALUES (?,?,?,?,?,?,?,?)")                                             \
	X(CALLSITE, "INSERT INTO callsites(pid, addr, function_id, stack_id) VALUES (?,?,?,?)")             \
	X(CALL, "INSERT INTO calls(id, tid, function_id, parent_id, depth, start_ns, end_ns, "  \
		"unfinished, retroactive) VALUES (?,?,?,?,?,?,?,?,?)")                                        \
	X(COLLECTOR_WAIT, "INSERT INTO collector_waits(tid, pid, wait_ns, waits) VALUES (?,?,?,?)") \
	X(INSTRUMENTATION, "INSERT INTO instrumentation(id, kind, target, probe_id, functions, on_ns, off_ns, "       \
			   "reason, off_reason, hits, cost_ns) VALUES (?,?,?,?,?,?,?,?,?,?,?)")                 \
	X(INSTRUMENTED_FUNCTION, "INSERT INTO instrumentation_functions(instrumentation_id, name, module) "         \
				 "VALUES (?,?,?)")                                                         \
	X(META, "INSERT OR REPLACE INTO meta(key, value) VALUES (?,?)")

enum writer_stmt {
#define X(e, sql) STMT_##e,
	WRITER_STATEMENTS(X)
#undef X
	STMT__COUNT
};

static const char *const writer_sql[] = {
#define X(e, sql) sql,
	WRITER_STATEMENTS(X)
#undef X
};

struct mtx_writer {
	sqlite3 *db;
	struct row_queue *q;
	int error;       /* sticky -errno */
	char *error_msg;
	char *path;
	struct tl_capture *capture; /* writer_capture */
	uint64_t sync_ops, summarized_ops; /* writer_sync_op's */
	bool pinned; /* the capture is, for summarized ops (writer_may_summarize) */
};

static int fail_with(struct mtx_writer *w, int rc, const char *why)
{
	if (w->error)
		return w->error;
	w->error = (rc & 0xff) == SQLITE_FULL ? -ENOSPC : -EIO;
	if (w->error == -ENOSPC && w->q && !row_queue_committed(w->q))
		error_set(&w->error_msg, "writing %s: the disk is full before the first commit: nothing could be kept",
			  w->path);
	else if (w->error == -ENOSPC && w->q)
		error_set(&w->error_msg, "writing %s: the disk is full; the %llu rows committed before are kept",
			  w->path, (unsigned long long)row_queue_committed(w->q));
	else if (w->error == -ENOSPC)
		error_set(&w->error_msg, "writing %s: the disk is full; what was committed before is kept", w->path);
	else
		error_set(&w->error_msg, "writing %s: %s", w->path, why);
	return w->error;
}

static int fail(struct mtx_writer *w, int rc)
{
	return fail_with(w, rc, sqlite3_errmsg(w->db));
}

/* The sticky error, the row queue's included (its thread may have met it). */
static int sticky(struct mtx_writer *w)
{
	int rc = w->error || !w->q ? 0 : row_queue_error(w->q);
	return rc ? fail_with(w, rc, row_queue_errmsg(w->q)) : w->error;
}

/* Room for a row of statement @s (NULL: see sticky). */
static struct queued_row *row(struct mtx_writer *w, enum writer_stmt s)
{
	return w->error ? NULL : row_queue_row(w->q, s);
}

static int put(struct mtx_writer *w, struct queued_row *r)
{
	row_queue_put(w->q, r);
	return 0;
}

int writer_open(struct mtx_writer **out, const char *path, char **err)
{
	struct mtx_writer *w = calloc(1, sizeof(*w));
	int rc;

	*out = NULL;
	if (!w)
		return -ENOMEM;
	w->path = strdup(path);
	rc = db_create(path, &w->db, err);
	if (rc) {
		free(w->path);
		free(w);
		return rc;
	}
	rc = row_queue_open(w->db, writer_sql, STMT__COUNT, &w->q);
	if (rc)
		error_set(err, "preparing the inserts of %s: %s", path,
				rc == -ENOMEM ? "out of memory" : sqlite3_errmsg(w->db));
	if (!rc)
		rc = db_exec(w->db, "BEGIN", err);
	if (rc) {
		writer_close(w, 0);
		return rc;
	}
	*out = w;
	return 0;
}

/* The rows of the five recorded tables the derived build walks, to the
 * capture, in the INSERTs' column order (WRITER_STATEMENTS). */
static void capture_row(void *ctx, const struct queued_row *r)
{
	struct tl_capture *c = ctx;
#define INT(n) (r->v[n].i)
#define TEXT(n) (r->v[n].s) /* NULL when NULL */
#define HAS(n, flag) ((r->null_mask & (1u << (n))) ? 0 : (flag))
	switch (r->table) {
	case STMT_STATE:
		timeline_capture_state(c, INT(0), INT(1), INT(2), TEXT(3), HAS(4, 1) ? INT(4) : -1, TEXT(5));
		break;
	case STMT_SWITCH:
		timeline_capture_switch(c, INT(2), INT(0), INT(5), (int)INT(4), HAS(6, 1) ? INT(6) : 0);
		break;
	case STMT_WAKEUP:
		timeline_capture_wakeup(c, INT(3), INT(0), INT(2));
		break;
	case STMT_SYSCALL:
		timeline_capture_syscall(c, INT(0), INT(1), INT(2), INT(6), TEXT(7), TEXT(4), INT(5),
					 HAS(2, TL_HAS_END) | HAS(5, TL_HAS_RET) | HAS(6, TL_HAS_FD));
		break;
	case STMT_SYNC_OP:
	case STMT_SUMMARIZED_OP:
		timeline_capture_op(c, INT(0), INT(1), TEXT(2), INT(3), INT(4), INT(5), INT(6), INT(7),
				    HAS(8, 1) ? INT(8) : 0, HAS(12, 1) ? INT(12) : 0, HAS(10, 1) ? INT(10) : 0,
				    HAS(11, 1) ? INT(11) : 0,
				    HAS(5, TL_HAS_RESULT) | HAS(7, TL_HAS_CALLSITE) | HAS(10, TL_COST_MEASURED) |
					    (r->table == STMT_SUMMARIZED_OP ? TL_SUMMARIZED : 0));
		break;
	default:
		break;
	}
#undef INT
#undef TEXT
#undef HAS
}

int writer_capture(struct mtx_writer *w)
{
	if (!(w->capture = timeline_capture_new()))
		return -ENOMEM;
	row_queue_tap(w->q, capture_row, w->capture);
	return 0;
}

struct tl_capture *writer_captured(struct mtx_writer *w)
{
	return w->capture;
}

struct tl_capture *writer_take_capture(struct mtx_writer *w)
{
	row_queue_finish(w->q);
	struct tl_capture *c = sticky(w) ? NULL : w->capture;
	if (!c)
		timeline_capture_free(w->capture);
	row_queue_tap(w->q, NULL, NULL);
	w->capture = NULL;
	return c;
}

int writer_background(struct mtx_writer *w)
{
	/* As often as the collector commits while the program runs. */
	row_queue_commit_every(w->q, WRITER_COMMIT_EVERY_NS);
	return row_queue_start(w->q, true);
}

void writer_hold(struct mtx_writer *w, bool hold)
{
	row_queue_hold(w->q, hold);
}

int writer_thread(struct mtx_writer *w, int32_t tid, int32_t pid, const char *name,
		  uint64_t start_ns, uint64_t end_ns, int attached)
{
	struct queued_row *r = row(w, STMT_THREAD);
	if (!r)
		return sticky(w);
	row_put_int(r, tid);
	row_put_int(r, pid);
	row_put_text_copy(r, name);
	row_put_int(r, (int64_t)start_ns);
	row_put_int(r, (int64_t)end_ns);
	row_put_int(r, attached);
	return put(w, r);
}

int writer_thread_sched(struct mtx_writer *w, int32_t tid, uint64_t ts_ns, const char *policy,
			int32_t priority, int32_t nice, const char *cpus_allowed)
{
	struct queued_row *r = row(w, STMT_THREAD_SCHED);
	if (!r)
		return sticky(w);
	row_put_int(r, tid);
	row_put_int(r, (int64_t)ts_ns);
	row_put_text(r, policy);
	row_put_int(r, priority);
	row_put_int(r, nice);
	row_put_text_copy(r, cpus_allowed);
	return put(w, r);
}

int writer_interrupt(struct mtx_writer *w, int32_t cpu, uint64_t start_ns, uint64_t end_ns, const char *kind,
		     int32_t irq, const char *name)
{
	struct queued_row *r = row(w, STMT_INTERRUPT);
	if (!r)
		return sticky(w);
	row_put_int(r, cpu);
	row_put_int(r, (int64_t)start_ns);
	row_put_int(r, (int64_t)end_ns);
	row_put_text(r, kind);
	row_put_int_or_null(r, irq, irq >= 0);
	row_put_text_copy(r, name);
	return put(w, r);
}

int writer_phase(struct mtx_writer *w, int64_t id, const char *name, uint64_t start_ns, uint64_t end_ns,
		 const char *source, int32_t tid)
{
	struct queued_row *r = row(w, STMT_PHASE);
	if (!r)
		return sticky(w);
	row_put_int(r, id);
	row_put_text_copy(r, name);
	row_put_int(r, (int64_t)start_ns);
	row_put_int(r, (int64_t)end_ns);
	row_put_text(r, source);
	row_put_int_or_null(r, tid, tid > 0);
	return put(w, r);
}

int writer_other_task(struct mtx_writer *w, int32_t tid, int32_t pid, const char *comm)
{
	struct queued_row *r = row(w, STMT_OTHER_TASK);
	if (!r)
		return sticky(w);
	row_put_int(r, tid);
	row_put_int(r, pid);
	row_put_text_copy(r, comm);
	return put(w, r);
}

int writer_process(struct mtx_writer *w, int32_t pid, int32_t ppid, const char *exe,
		   uint64_t start_ns, int64_t end_ns, int64_t exit_status)
{
	struct queued_row *r = row(w, STMT_PROCESS);
	if (!r)
		return sticky(w);
	row_put_int(r, pid);
	row_put_int_or_null(r, ppid, ppid >= 0);
	row_put_text_copy(r, exe);
	row_put_int(r, (int64_t)start_ns);
	row_put_int_or_null(r, end_ns, end_ns >= 0);
	row_put_int_or_null(r, exit_status, exit_status >= 0);
	return put(w, r);
}

int writer_thread_state(struct mtx_writer *w, int32_t tid, uint64_t start_ns, uint64_t end_ns,
			const char *state, int32_t cpu, const char *syscall)
{
	struct queued_row *r = row(w, STMT_STATE);
	if (!r)
		return sticky(w);
	row_put_int(r, tid);
	row_put_int(r, (int64_t)start_ns);
	row_put_int(r, (int64_t)end_ns);
	row_put_text(r, state);
	row_put_int_or_null(r, cpu, cpu >= 0);
	row_put_text(r, syscall);
	return put(w, r);
}

int writer_switch(struct mtx_writer *w, uint64_t ts_ns, int32_t cpu, int32_t prev_tid,
		  const char *prev_state, int preempt, int32_t next_tid, uint32_t stack_id)
{
	struct queued_row *r = row(w, STMT_SWITCH);
	if (!r)
		return sticky(w);
	row_put_int(r, (int64_t)ts_ns);
	row_put_int(r, cpu);
	row_put_int(r, prev_tid);
	row_put_text(r, prev_state);
	row_put_int(r, preempt);
	row_put_int(r, next_tid);
	row_put_int_or_null(r, stack_id, stack_id != 0);
	return put(w, r);
}

int writer_wakeup(struct mtx_writer *w, uint64_t ts_ns, int32_t cpu, int32_t waker_tid,
		  int32_t wakee_tid, int32_t target_cpu)
{
	struct queued_row *r = row(w, STMT_WAKEUP);
	if (!r)
		return sticky(w);
	row_put_int(r, (int64_t)ts_ns);
	row_put_int(r, cpu);
	row_put_int(r, waker_tid);
	row_put_int(r, wakee_tid);
	row_put_int_or_null(r, target_cpu, target_cpu >= 0);
	return put(w, r);
}

int writer_syscall_row(struct mtx_writer *w, const struct mtx_syscall_row *s, const char *fd_kind, const char *path)
{
	struct queued_row *r = row(w, STMT_SYSCALL);
	if (!r)
		return sticky(w);
	row_put_int(r, s->tid);
	row_put_int(r, (int64_t)s->start_ns);
	row_put_int_or_null(r, s->end_ns, s->end_ns >= 0);
	row_put_int(r, s->nr);
	row_put_text(r, s->name);
	row_put_int_or_null(r, s->ret, s->has_ret);
	row_put_int_or_null(r, s->fd, s->has_fd);
	row_put_text(r, fd_kind);
	row_put_text_copy(r, path);
	return put(w, r);
}

int writer_summarized_state(struct mtx_writer *w, int32_t tid, uint64_t life_ns, const char *state,
			    int32_t cpu, uint64_t intervals, uint64_t ns)
{
	struct queued_row *r = row(w, STMT_SUMMARIZED_STATE);
	if (!r)
		return sticky(w);
	row_put_int(r, tid);
	row_put_int(r, (int64_t)life_ns);
	row_put_text(r, state);
	row_put_int_or_null(r, cpu, cpu >= 0);
	row_put_int(r, (int64_t)intervals);
	row_put_int(r, (int64_t)ns);
	return put(w, r);
}

int writer_summarized_switch(struct mtx_writer *w, int32_t prev_tid, int32_t next_tid, const char *prev_state,
			     uint64_t count)
{
	struct queued_row *r = row(w, STMT_SUMMARIZED_SWITCH);
	if (!r)
		return sticky(w);
	row_put_int(r, prev_tid);
	row_put_int(r, next_tid);
	row_put_text(r, prev_state);
	row_put_int(r, (int64_t)count);
	return put(w, r);
}

int writer_summarized_syscall(struct mtx_writer *w, const struct writer_summarized_syscall_row *s)
{
	struct queued_row *r = row(w, STMT_SUMMARIZED_SYSCALL);
	if (!r)
		return sticky(w);
	row_put_int(r, s->tid);
	row_put_int(r, (int64_t)s->life_ns);
	row_put_int(r, s->nr);
	row_put_text(r, s->name);
	row_put_int(r, (int64_t)s->calls);
	row_put_int(r, (int64_t)s->errors);
	row_put_int(r, (int64_t)s->with_end);
	row_put_int(r, (int64_t)s->ns);
	row_put_int(r, (int64_t)s->max_ns);
	return put(w, r);
}

bool writer_may_summarize(struct mtx_writer *w)
{
	/* once pinned it stays so: no atomic operation per op after */
	if (!w->pinned)
		w->pinned = w->capture && timeline_capture_pin(w->capture);
	return w->pinned;
}

int writer_sync_op(struct mtx_writer *w, const struct writer_sync_op_row *op)
{
	struct queued_row *r = row(w, op->summarized ? STMT_SUMMARIZED_OP : STMT_SYNC_OP);
	if (!r)
		return sticky(w);
	/* every op has an id, its place in the capture; the summarized
	 * ones' are left out of the table */
	w->sync_ops++;
	w->summarized_ops += op->summarized;
	row_put_int(r, op->tid);
	row_put_int(r, op->object_id);
	row_put_text(r, op->op);
	row_put_int(r, (int64_t)op->start_ns);
	row_put_int(r, (int64_t)op->end_ns);
	row_put_int_or_null(r, op->result, !sync_result_unfinished(op->result));
	row_put_int(r, op->arg);
	row_put_int(r, (int64_t)op->callsite);
	row_put_int_or_null(r, op->stack_id, op->stack_id != 0);
	row_put_text(r, sync_result_unfinished(op->result));
	row_put_int_or_null(r, op->overhead_ns, op->cost_measured);
	row_put_int_or_null(r, op->injected_ns, op->cost_measured);
	row_put_int_or_null(r, op->hold_ns, op->hold_ns >= 0);
	row_put_int(r, (int64_t)w->sync_ops);
	return put(w, r);
}

int writer_sync_object(struct mtx_writer *w, int64_t id, const char *kind, uint64_t addr,
		       int32_t pid, uint64_t created_ns)
{
	struct queued_row *r = row(w, STMT_SYNC_OBJECT);
	if (!r)
		return sticky(w);
	row_put_int(r, id);
	row_put_text(r, kind);
	row_put_int(r, (int64_t)addr);
	row_put_int(r, pid);
	row_put_int(r, (int64_t)created_ns);
	return put(w, r);
}

int writer_sample(struct mtx_writer *w, uint64_t ts_ns, int32_t tid, int32_t cpu, uint32_t stack_id,
		  const char *unwind)
{
	struct queued_row *r = row(w, STMT_SAMPLE);
	if (!r)
		return sticky(w);
	row_put_int(r, (int64_t)ts_ns);
	row_put_int(r, tid);
	row_put_int_or_null(r, cpu, cpu >= 0);
	row_put_int_or_null(r, stack_id, stack_id > 0);
	row_put_text(r, unwind);
	return put(w, r);
}

int writer_stack(struct mtx_writer *w, uint32_t id, uint32_t parent_id, int64_t function_id, int32_t pid,
		 uint64_t addr, const char *file, int line)
{
	struct queued_row *r = row(w, STMT_STACK);
	if (!r)
		return sticky(w);
	row_put_int(r, id);
	row_put_int_or_null(r, parent_id, parent_id > 0);
	row_put_int(r, function_id);
	row_put_int(r, pid);
	row_put_int(r, (int64_t)addr);
	row_put_text_copy(r, file);
	row_put_int_or_null(r, line, line > 0);
	return put(w, r);
}

int writer_function(struct mtx_writer *w, int64_t id, const char *name, const char *module, const char *file,
		    int line)
{
	struct queued_row *r = row(w, STMT_FUNCTION);
	if (!r)
		return sticky(w);
	row_put_int(r, id);
	row_put_text_copy(r, name);
	row_put_text_copy(r, module);
	row_put_text_copy(r, file);
	row_put_int_or_null(r, line, line > 0);
	return put(w, r);
}

int writer_map(struct mtx_writer *w, int32_t pid, uint64_t ts_ns, uint64_t start, uint64_t end, uint64_t pgoff,
	       const char *path, const char *build_id, const char *symbols)
{
	struct queued_row *r = row(w, STMT_MAP);
	if (!r)
		return sticky(w);
	row_put_int(r, pid);
	row_put_int(r, (int64_t)ts_ns);
	row_put_int(r, (int64_t)start);
	row_put_int(r, (int64_t)end);
	row_put_int(r, (int64_t)pgoff);
	row_put_text_copy(r, path);
	row_put_text_copy(r, build_id);
	row_put_text_copy(r, symbols);
	return put(w, r);
}

int writer_calls(struct mtx_writer *w, const struct writer_call_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct queued_row *r = row(w, STMT_CALL);
		if (!r)
			return sticky(w);
		row_put_int(r, rows[i].id);
		row_put_int(r, rows[i].tid);
		row_put_int(r, rows[i].function_id);
		row_put_int_or_null(r, rows[i].parent_id, rows[i].parent_id > 0);
		row_put_int(r, rows[i].depth);
		row_put_int(r, (int64_t)rows[i].start_ns);
		row_put_int(r, (int64_t)rows[i].end_ns);
		row_put_text(r, rows[i].unfinished);
		row_put_int(r, rows[i].retroactive);
		put(w, r);
	}
	return 0;
}

int writer_callsite(struct mtx_writer *w, int32_t pid, uint64_t addr, int64_t function_id, uint32_t stack_id)
{
	struct queued_row *r = row(w, STMT_CALLSITE);
	if (!r)
		return sticky(w);
	row_put_int(r, pid);
	row_put_int(r, (int64_t)addr);
	row_put_int(r, function_id);
	row_put_int_or_null(r, stack_id, stack_id > 0);
	return put(w, r);
}

int writer_collector_wait(struct mtx_writer *w, int32_t tid, int32_t pid, uint64_t wait_ns, uint64_t waits)
{
	struct queued_row *r = row(w, STMT_COLLECTOR_WAIT);
	if (!r)
		return sticky(w);
	row_put_int(r, tid);
	row_put_int(r, pid);
	row_put_int(r, (int64_t)wait_ns);
	row_put_int(r, (int64_t)waits);
	return put(w, r);
}

int writer_instrumentation(struct mtx_writer *w, const struct writer_instrumentation_row *i)
{
	struct queued_row *r = row(w, STMT_INSTRUMENTATION);
	if (!r)
		return sticky(w);
	row_put_int(r, i->id);
	row_put_text(r, i->kind);
	row_put_text_copy(r, i->target);
	row_put_int_or_null(r, i->probe_id, i->probe_id > 0);
	row_put_int_or_null(r, i->functions, i->functions > 0);
	row_put_int(r, (int64_t)i->on_ns);
	row_put_int_or_null(r, (int64_t)i->off_ns, i->off_ns != 0);
	row_put_text(r, i->reason);
	row_put_text(r, i->off_reason);
	row_put_int_or_null(r, (int64_t)i->hits, i->probe_id > 0);
	row_put_int_or_null(r, (int64_t)i->cost_ns, i->cost_ns != 0);
	return put(w, r);
}

int writer_instrumented_function(struct mtx_writer *w, int64_t instrumentation_id, const char *name,
				 const char *module)
{
	struct queued_row *r = row(w, STMT_INSTRUMENTED_FUNCTION);
	if (!r)
		return sticky(w);
	row_put_int(r, instrumentation_id);
	row_put_text_copy(r, name);
	row_put_text_copy(r, module);
	return put(w, r);
}

int writer_meta(struct mtx_writer *w, const char *key, const char *value)
{
	struct queued_row *r = row(w, STMT_META);
	if (!r)
		return sticky(w);
	row_put_text_copy(r, key);
	row_put_text_copy(r, value);
	return put(w, r);
}

int writer_meta_int(struct mtx_writer *w, const char *key, int64_t value)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%lld", (long long)value);
	return writer_meta(w, key, buf);
}

int writer_commit(struct mtx_writer *w)
{
	if (!w->error)
		row_queue_commit(w->q);
	return sticky(w);
}

uint64_t writer_summarized_ops(const struct mtx_writer *w)
{
	return w->summarized_ops;
}

uint64_t writer_rows(const struct mtx_writer *w)
{
	return row_queue_rows(w->q) - w->summarized_ops;
}

uint64_t writer_rows_spilled(const struct mtx_writer *w)
{
	return row_queue_rows_spilled(w->q);
}

sqlite3 *writer_db(struct mtx_writer *w)
{
	row_queue_finish(w->q);
	/* What was recorded is kept before anything works on it. */
	if (!w->error && sqlite3_get_autocommit(w->db) == 0)
		row_queue_commit(w->q);
	sticky(w);
	return w->db;
}

const char *writer_error(struct mtx_writer *w)
{
	return sticky(w) ? w->error_msg : NULL;
}

int writer_close(struct mtx_writer *w, int finalize)
{
	int rc;
	if (!w)
		return 0;
	if (w->q)
		row_queue_finish(w->q);
	sticky(w);
	if (sqlite3_get_autocommit(w->db) == 0) {
		rc = sqlite3_exec(w->db, "COMMIT", NULL, NULL, NULL);
		if (rc != SQLITE_OK)
			fail(w, rc);
	}
	/* Indexes and the journal switch run outside any transaction. */
	if (finalize && !w->error) {
		char *err = NULL;
		/* Left in WAL mode while a reader has it open: mtx collect
		 * tries again once the derived tables are written. */
		if (db_finalize(w->db, &err) < 0)
			fail(w, sqlite3_errcode(w->db));
		free(err);
	}
	row_queue_close(w->q);
	sqlite3_close(w->db);
	timeline_capture_free(w->capture);
	rc = w->error;
	free(w->error_msg);
	free(w->path);
	free(w);
	return rc;
}
