/*
 * collector/writer.c - see writer.h.
 *
 * Throughput: one prepared INSERT per table, reused for every row; rows go
 * into large transactions; secondary indexes are built once at the end
 * (schema/indexes.sql). SQLite measured ~1.4 M narrow rows/s this way here.
 */
#include "config.h"
#include "collector/writer.h"
#include "collector/preload/shm.h"
#include "src/db.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* calls rows go WRITER_CALL_BATCH to a statement: a third less work for
 * SQLite per row than one INSERT each (writer_calls). */
#define CALLS_INSERT "INSERT INTO calls(id, tid, function_id, parent_id, depth, start_ns, end_ns, unfinished) VALUES "
#define CALL_VALUES "(?,?,?,?,?,?,?,?)"
#define CALL_VALUES_4 CALL_VALUES "," CALL_VALUES "," CALL_VALUES "," CALL_VALUES
#define CALL_VALUES_16 CALL_VALUES_4 "," CALL_VALUES_4 "," CALL_VALUES_4 "," CALL_VALUES_4
#define CALL_VALUES_64 CALL_VALUES_16 "," CALL_VALUES_16 "," CALL_VALUES_16 "," CALL_VALUES_16
_Static_assert(WRITER_CALL_BATCH == 64, "CALL_VALUES_64 holds the batch");

/* One row per prepared statement: X(enum suffix, SQL). */
#define WRITER_STATEMENTS(X)                                                                 \
	X(THREAD, "INSERT INTO threads(tid, pid, name, start_ns, end_ns) VALUES (?,?,?,?,?)") \
	X(PROCESS, "INSERT INTO processes(pid, ppid, exe, start_ns, end_ns, exit_status) "     \
		   "VALUES (?,?,?,?,?,?)")                                                    \
	X(STATE, "INSERT INTO thread_states(tid, start_ns, end_ns, state, cpu, syscall) "      \
		 "VALUES (?,?,?,?,?,?)")                                                      \
	X(SWITCH, "INSERT INTO switches(ts_ns, cpu, prev_tid, prev_state, preempt, next_tid, " \
		  "stack_id) VALUES (?,?,?,?,?,?,?)")                                                     \
	X(WAKEUP, "INSERT INTO wakeups(ts_ns, cpu, waker_tid, wakee_tid, target_cpu) "         \
		  "VALUES (?,?,?,?,?)")                                                       \
	X(SYSCALL, "INSERT INTO syscalls(tid, start_ns, end_ns, nr, name, ret, fd, fd_kind) "  \
		   "VALUES (?,?,?,?,?,?,?,?)")                                                \
	X(SYNC_OP, "INSERT INTO sync_ops(tid, object_id, op, start_ns, end_ns, result, arg, "  \
		   "callsite, stack_id) VALUES (?,?,?,?,?,?,?,?,?)")                                     \
	X(SYNC_OBJECT, "INSERT INTO sync_objects(id, kind, addr, pid, created_ns) "            \
		       "VALUES (?,?,?,?,?)")                                                  \
	X(SAMPLE, "INSERT INTO samples(ts_ns, tid, cpu, stack_id, unwind) VALUES (?,?,?,?,?)")   \
	X(STACK, "INSERT INTO stacks(id, parent_id, function_id, pid, addr) VALUES (?,?,?,?,?)") \
	X(FUNCTION, "INSERT INTO functions(id, name, module, file, line) VALUES (?,?,?,?,?)")  \
	X(MAP, "INSERT INTO maps(pid, ts_ns, start_addr, end_addr, pgoff, path, build_id, "     \
	       "symbols) VALUES (?,?,?,?,?,?,?,?)")                                             \
	X(CALLSITE, "INSERT INTO callsites(pid, addr, function_id) VALUES (?,?,?)")             \
	X(CALL, CALLS_INSERT CALL_VALUES)                                                       \
	X(CALL_BATCH, CALLS_INSERT CALL_VALUES_64)                                              \
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
	sqlite3_stmt *stmt[STMT__COUNT];
	uint64_t rows;
	int error;       /* sticky -errno */
	char *error_msg;
	char *path;
};

static int fail(struct mtx_writer *w, int rc)
{
	if (w->error)
		return w->error;
	w->error = (rc & 0xff) == SQLITE_FULL ? -ENOSPC : -EIO;
	free(w->error_msg);
	if (w->error == -ENOSPC) {
		if (asprintf(&w->error_msg, "writing %s: the disk is full; the run so far is kept", w->path) < 0)
			w->error_msg = NULL;
	} else if (asprintf(&w->error_msg, "writing %s: %s", w->path, sqlite3_errmsg(w->db)) < 0) {
		w->error_msg = NULL;
	}
	return w->error;
}

/* Step a bound statement and reset it for the next row. */
static int run(struct mtx_writer *w, enum writer_stmt s)
{
	sqlite3_stmt *st = w->stmt[s];
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return fail(w, rc);
	w->rows++;
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
	for (int i = 0; i < STMT__COUNT; i++) {
		if (sqlite3_prepare_v3(w->db, writer_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &w->stmt[i], NULL) != SQLITE_OK) {
			if (err && asprintf(err, "preparing %s: %s", writer_sql[i], sqlite3_errmsg(w->db)) < 0)
				*err = NULL;
			writer_close(w, 0);
			return -EIO;
		}
	}
	rc = db_exec(w->db, "BEGIN", err);
	if (rc) {
		writer_close(w, 0);
		return rc;
	}
	*out = w;
	return 0;
}

int writer_thread(struct mtx_writer *w, int32_t tid, int32_t pid, const char *name,
		  uint64_t start_ns, uint64_t end_ns)
{
	sqlite3_stmt *st = w->stmt[STMT_THREAD];
	if (w->error)
		return w->error;
	sqlite3_bind_int(st, 1, tid);
	sqlite3_bind_int(st, 2, pid);
	db_bind_text_or_null(st, 3, name);
	sqlite3_bind_int64(st, 4, (int64_t)start_ns);
	sqlite3_bind_int64(st, 5, (int64_t)end_ns);
	return run(w, STMT_THREAD);
}

int writer_process(struct mtx_writer *w, int32_t pid, int32_t ppid, const char *exe,
		   uint64_t start_ns, int64_t end_ns, int64_t exit_status)
{
	sqlite3_stmt *st = w->stmt[STMT_PROCESS];
	if (w->error)
		return w->error;
	sqlite3_bind_int(st, 1, pid);
	db_bind_int_or_null(st, 2, ppid, ppid >= 0);
	db_bind_text_or_null(st, 3, exe);
	sqlite3_bind_int64(st, 4, (int64_t)start_ns);
	db_bind_int_or_null(st, 5, end_ns, end_ns >= 0);
	db_bind_int_or_null(st, 6, exit_status, exit_status >= 0);
	return run(w, STMT_PROCESS);
}

int writer_thread_state(struct mtx_writer *w, int32_t tid, uint64_t start_ns, uint64_t end_ns,
			const char *state, int32_t cpu, const char *syscall)
{
	sqlite3_stmt *st = w->stmt[STMT_STATE];
	if (w->error)
		return w->error;
	sqlite3_bind_int(st, 1, tid);
	sqlite3_bind_int64(st, 2, (int64_t)start_ns);
	sqlite3_bind_int64(st, 3, (int64_t)end_ns);
	sqlite3_bind_text(st, 4, state, -1, SQLITE_STATIC);
	db_bind_int_or_null(st, 5, cpu, cpu >= 0);
	db_bind_text_or_null(st, 6, syscall);
	return run(w, STMT_STATE);
}

int writer_switch(struct mtx_writer *w, uint64_t ts_ns, int32_t cpu, int32_t prev_tid,
		  const char *prev_state, int preempt, int32_t next_tid, uint32_t stack_id)
{
	sqlite3_stmt *st = w->stmt[STMT_SWITCH];
	if (w->error)
		return w->error;
	sqlite3_bind_int64(st, 1, (int64_t)ts_ns);
	sqlite3_bind_int(st, 2, cpu);
	sqlite3_bind_int(st, 3, prev_tid);
	sqlite3_bind_text(st, 4, prev_state, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 5, preempt);
	sqlite3_bind_int(st, 6, next_tid);
	db_bind_int_or_null(st, 7, stack_id, stack_id != 0);
	return run(w, STMT_SWITCH);
}

int writer_wakeup(struct mtx_writer *w, uint64_t ts_ns, int32_t cpu, int32_t waker_tid,
		  int32_t wakee_tid, int32_t target_cpu)
{
	sqlite3_stmt *st = w->stmt[STMT_WAKEUP];
	if (w->error)
		return w->error;
	sqlite3_bind_int64(st, 1, (int64_t)ts_ns);
	sqlite3_bind_int(st, 2, cpu);
	sqlite3_bind_int(st, 3, waker_tid);
	sqlite3_bind_int(st, 4, wakee_tid);
	db_bind_int_or_null(st, 5, target_cpu, target_cpu >= 0);
	return run(w, STMT_WAKEUP);
}

int writer_syscall(struct mtx_writer *w, int32_t tid, uint64_t start_ns, int64_t end_ns,
		   int64_t nr, const char *name, int64_t ret, int has_ret)
{
	struct mtx_syscall_row r = {
		.start_ns = start_ns, .end_ns = end_ns, .nr = nr, .name = name,
		.ret = ret, .tid = tid, .has_ret = (uint8_t)(has_ret != 0),
	};
	return writer_syscall_row(w, &r, NULL);
}

int writer_syscall_row(struct mtx_writer *w, const struct mtx_syscall_row *r, const char *fd_kind)
{
	sqlite3_stmt *st = w->stmt[STMT_SYSCALL];
	if (w->error)
		return w->error;
	sqlite3_bind_int(st, 1, r->tid);
	sqlite3_bind_int64(st, 2, (int64_t)r->start_ns);
	db_bind_int_or_null(st, 3, r->end_ns, r->end_ns >= 0);
	sqlite3_bind_int64(st, 4, r->nr);
	sqlite3_bind_text(st, 5, r->name, -1, SQLITE_STATIC);
	db_bind_int_or_null(st, 6, r->ret, r->has_ret);
	db_bind_int_or_null(st, 7, r->fd, r->has_fd);
	db_bind_text_or_null(st, 8, fd_kind);
	return run(w, STMT_SYSCALL);
}

int writer_sync_op(struct mtx_writer *w, int32_t tid, int64_t object_id, const char *op,
		   uint64_t start_ns, uint64_t end_ns, int32_t result, int64_t arg, uint64_t callsite,
		   uint32_t stack_id)
{
	sqlite3_stmt *st = w->stmt[STMT_SYNC_OP];
	if (w->error)
		return w->error;
	sqlite3_bind_int(st, 1, tid);
	sqlite3_bind_int64(st, 2, object_id);
	sqlite3_bind_text(st, 3, op, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (int64_t)start_ns);
	sqlite3_bind_int64(st, 5, (int64_t)end_ns);
	db_bind_int_or_null(st, 6, result, result != MTX_SYNC_RESULT_UNRETURNED);
	sqlite3_bind_int64(st, 7, arg);
	sqlite3_bind_int64(st, 8, (int64_t)callsite);
	db_bind_int_or_null(st, 9, stack_id, stack_id != 0);
	return run(w, STMT_SYNC_OP);
}

int writer_sync_object(struct mtx_writer *w, int64_t id, const char *kind, uint64_t addr,
		       int32_t pid, uint64_t created_ns)
{
	sqlite3_stmt *st = w->stmt[STMT_SYNC_OBJECT];
	if (w->error)
		return w->error;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (int64_t)addr);
	sqlite3_bind_int(st, 4, pid);
	sqlite3_bind_int64(st, 5, (int64_t)created_ns);
	return run(w, STMT_SYNC_OBJECT);
}

int writer_sample(struct mtx_writer *w, uint64_t ts_ns, int32_t tid, int32_t cpu, uint32_t stack_id,
		  const char *unwind)
{
	sqlite3_stmt *st = w->stmt[STMT_SAMPLE];
	if (w->error)
		return w->error;
	sqlite3_bind_int64(st, 1, (int64_t)ts_ns);
	sqlite3_bind_int(st, 2, tid);
	db_bind_int_or_null(st, 3, cpu, cpu >= 0);
	db_bind_int_or_null(st, 4, stack_id, stack_id > 0);
	db_bind_text_or_null(st, 5, unwind);
	return run(w, STMT_SAMPLE);
}

int writer_stack(struct mtx_writer *w, uint32_t id, uint32_t parent_id, int64_t function_id, int32_t pid,
		 uint64_t addr)
{
	sqlite3_stmt *st = w->stmt[STMT_STACK];
	if (w->error)
		return w->error;
	sqlite3_bind_int64(st, 1, id);
	db_bind_int_or_null(st, 2, parent_id, parent_id > 0);
	sqlite3_bind_int64(st, 3, function_id);
	sqlite3_bind_int(st, 4, pid);
	sqlite3_bind_int64(st, 5, (int64_t)addr);
	return run(w, STMT_STACK);
}

int writer_function(struct mtx_writer *w, int64_t id, const char *name, const char *module, const char *file,
		    int line)
{
	sqlite3_stmt *st = w->stmt[STMT_FUNCTION];
	if (w->error)
		return w->error;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	db_bind_text_or_null(st, 3, module);
	db_bind_text_or_null(st, 4, file);
	db_bind_int_or_null(st, 5, line, line > 0);
	return run(w, STMT_FUNCTION);
}

int writer_map(struct mtx_writer *w, int32_t pid, uint64_t ts_ns, uint64_t start, uint64_t end, uint64_t pgoff,
	       const char *path, const char *build_id, const char *symbols)
{
	sqlite3_stmt *st = w->stmt[STMT_MAP];
	if (w->error)
		return w->error;
	sqlite3_bind_int(st, 1, pid);
	sqlite3_bind_int64(st, 2, (int64_t)ts_ns);
	sqlite3_bind_int64(st, 3, (int64_t)start);
	sqlite3_bind_int64(st, 4, (int64_t)end);
	sqlite3_bind_int64(st, 5, (int64_t)pgoff);
	sqlite3_bind_text(st, 6, path, -1, SQLITE_STATIC);
	db_bind_text_or_null(st, 7, build_id);
	db_bind_text_or_null(st, 8, symbols);
	return run(w, STMT_MAP);
}

/* Bind @r to the eight parameters of @st from @first + 1 on. */
static void bind_call(sqlite3_stmt *st, int first, const struct writer_call_row *r)
{
	sqlite3_bind_int64(st, first + 1, r->id);
	sqlite3_bind_int(st, first + 2, r->tid);
	sqlite3_bind_int64(st, first + 3, r->function_id);
	db_bind_int_or_null(st, first + 4, r->parent_id, r->parent_id > 0);
	sqlite3_bind_int(st, first + 5, r->depth);
	sqlite3_bind_int64(st, first + 6, (int64_t)r->start_ns);
	sqlite3_bind_int64(st, first + 7, (int64_t)r->end_ns);
	db_bind_text_or_null(st, first + 8, r->unfinished);
}

int writer_calls(struct mtx_writer *w, const struct writer_call_row *rows, size_t n)
{
	size_t i = 0;

	for (; i + WRITER_CALL_BATCH <= n && !w->error; i += WRITER_CALL_BATCH) {
		for (int k = 0; k < WRITER_CALL_BATCH; k++)
			bind_call(w->stmt[STMT_CALL_BATCH], 8 * k, &rows[i + k]);
		if (run(w, STMT_CALL_BATCH) == 0)
			w->rows += WRITER_CALL_BATCH - 1;
	}
	for (; i < n && !w->error; i++) {
		bind_call(w->stmt[STMT_CALL], 0, &rows[i]);
		run(w, STMT_CALL);
	}
	return w->error;
}

int writer_callsite(struct mtx_writer *w, int32_t pid, uint64_t addr, int64_t function_id)
{
	sqlite3_stmt *st = w->stmt[STMT_CALLSITE];
	if (w->error)
		return w->error;
	sqlite3_bind_int(st, 1, pid);
	sqlite3_bind_int64(st, 2, (int64_t)addr);
	sqlite3_bind_int64(st, 3, function_id);
	return run(w, STMT_CALLSITE);
}

int writer_meta(struct mtx_writer *w, const char *key, const char *value)
{
	sqlite3_stmt *st = w->stmt[STMT_META];
	if (w->error)
		return w->error;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	db_bind_text_or_null(st, 2, value);
	return run(w, STMT_META);
}

int writer_meta_int(struct mtx_writer *w, const char *key, int64_t value)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%lld", (long long)value);
	return writer_meta(w, key, buf);
}

int writer_commit(struct mtx_writer *w)
{
	int rc;
	if (w->error)
		return w->error;
	rc = sqlite3_exec(w->db, "COMMIT; BEGIN", NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : fail(w, rc);
}

uint64_t writer_rows(const struct mtx_writer *w)
{
	return w->rows;
}

sqlite3 *writer_db(struct mtx_writer *w)
{
	return w->db;
}

const char *writer_error(const struct mtx_writer *w)
{
	return w->error_msg;
}

int writer_close(struct mtx_writer *w, int finalize)
{
	int rc;
	if (!w)
		return 0;
	if (sqlite3_get_autocommit(w->db) == 0) {
		rc = sqlite3_exec(w->db, "COMMIT", NULL, NULL, NULL);
		if (rc != SQLITE_OK)
			fail(w, rc);
	}
	/* Indexes and the journal switch run outside any transaction. */
	if (finalize && !w->error) {
		char *err = NULL;
		if (db_finalize(w->db, &err) != 0)
			fail(w, sqlite3_errcode(w->db));
		free(err);
	}
	for (int i = 0; i < STMT__COUNT; i++)
		sqlite3_finalize(w->stmt[i]);
	sqlite3_close(w->db);
	rc = w->error;
	free(w->error_msg);
	free(w->path);
	free(w);
	return rc;
}
