/*
 * collector/writer.c - see writer.h.
 *
 * Throughput: one prepared INSERT per table, and a second one that takes
 * WRITER_BATCH rows at once (a third less work for SQLite per row than one
 * INSERT each); rows go into large transactions; secondary indexes are
 * built once at the end (schema/indexes.sql).
 *
 * Rows are not written as they come: each call copies its row (statement
 * and parameters) into a block of BLOCK_ROWS, and a full block is written
 * statement by statement -- each table's rows keep their order, and no
 * table's rows depend on another's order -- so that most rows go
 * WRITER_BATCH to an INSERT. With writer_background, full blocks go to a
 * thread of their own at SCHED_IDLE instead: see there.
 */
#include "config.h"
#include "collector/writer.h"
#include "collector/preload/shm.h"
#include "src/db.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	X(CALL, "INSERT INTO calls(id, tid, function_id, parent_id, depth, start_ns, end_ns, "  \
		"unfinished) VALUES (?,?,?,?,?,?,?,?)")                                        \
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

#define WRITER_BATCH 64

/* A row on its way: its statement and parameters, NULL and text marked. */
#define MAX_PARAMS 9
struct queued_row {
	uint8_t stmt;         /* enum writer_stmt */
	uint8_t nr;           /* parameters */
	uint16_t null_mask;   /* bit i: parameter i + 1 is NULL */
	uint16_t text_mask;   /* bit i: it is the string at v[i].s */
	uint16_t owned_mask;  /* of those, copies to free once written */
	union {
		int64_t i;
		const char *s;
	} v[MAX_PARAMS];
};

#define BLOCK_ROWS 4096
struct row_block {
	struct row_block *next;
	uint32_t nr;
	struct queued_row rows[BLOCK_ROWS];
};

/*
 * The background writer's queue, in blocks of BLOCK_ROWS rows (~330 KB):
 * past BOOST_BLOCKS waiting (about a million rows) the thread runs at the
 * program's priority until it is down to UNBOOST_BLOCKS; past MAX_BLOCKS
 * the caller waits for room, as it waited for SQLite before.
 */
#define BOOST_BLOCKS 256
#define UNBOOST_BLOCKS 16
#define MAX_BLOCKS 1024
#define SPARE_BLOCKS 8

struct mtx_writer {
	sqlite3 *db;
	sqlite3_stmt *stmt[STMT__COUNT];
	sqlite3_stmt *batch[STMT__COUNT]; /* the same, WRITER_BATCH rows */
	uint64_t rows;         /* handed to the writer so far */
	int error;             /* sticky -errno (atomic: the thread sets it) */
	char *error_msg;       /* set before error */
	char *path;
	struct row_block *filling;
	/* writer_background: */
	int background;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t work, room;
	struct row_block *head, *tail, *spare; /* full blocks, in order; free ones */
	size_t queued, nr_spare;
	int commit_wanted, stop, boosted;
};

static int sticky_error(const struct mtx_writer *w)
{
	return __atomic_load_n(&w->error, __ATOMIC_ACQUIRE);
}

static int fail(struct mtx_writer *w, int rc)
{
	if (w->error)
		return w->error;
	free(w->error_msg);
	int error = (rc & 0xff) == SQLITE_FULL ? -ENOSPC : -EIO;
	if (error == -ENOSPC) {
		if (asprintf(&w->error_msg, "writing %s: the disk is full; the run so far is kept", w->path) < 0)
			w->error_msg = NULL;
	} else if (asprintf(&w->error_msg, "writing %s: %s", w->path, sqlite3_errmsg(w->db)) < 0) {
		w->error_msg = NULL;
	}
	__atomic_store_n(&w->error, error, __ATOMIC_RELEASE);
	return error;
}

/* Step a bound statement and reset it for the next rows. */
static int run(struct mtx_writer *w, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : fail(w, rc);
}

/* Bind @r to @st's parameters from @first + 1 on. */
static void bind_row(sqlite3_stmt *st, int first, const struct queued_row *r)
{
	for (int i = 0; i < r->nr; i++) {
		if (r->null_mask & (1u << i))
			sqlite3_bind_null(st, first + i + 1);
		else if (r->text_mask & (1u << i))
			sqlite3_bind_text(st, first + i + 1, r->v[i].s, -1, SQLITE_STATIC);
		else
			sqlite3_bind_int64(st, first + i + 1, r->v[i].i);
	}
}

static void free_owned(struct queued_row *r)
{
	for (int i = 0; r->owned_mask; i++)
		if (r->owned_mask & (1u << i)) {
			free((void *)r->v[i].s);
			r->owned_mask &= (uint16_t)~(1u << i);
		}
}

/* Write block @b's rows into the open transaction: statement by statement,
 * each in its rows' order, WRITER_BATCH rows to an INSERT while it has
 * that many. Empties @b. */
static void write_block(struct mtx_writer *w, struct row_block *b)
{
	uint16_t order[BLOCK_ROWS];
	uint32_t first[STMT__COUNT + 1] = { 0 };
	for (uint32_t i = 0; i < b->nr; i++)
		first[b->rows[i].stmt + 1]++;
	for (int s = 0; s < STMT__COUNT; s++)
		first[s + 1] += first[s];
	uint32_t next[STMT__COUNT];
	memcpy(next, first, sizeof(next));
	for (uint32_t i = 0; i < b->nr; i++)
		order[next[b->rows[i].stmt]++] = (uint16_t)i;
	for (int s = 0; s < STMT__COUNT && !w->error; s++) {
		uint32_t i = first[s], end = first[s + 1];
		for (; end - i >= WRITER_BATCH && !w->error; i += WRITER_BATCH) {
			for (int k = 0; k < WRITER_BATCH; k++)
				bind_row(w->batch[s], k * b->rows[order[i]].nr, &b->rows[order[i + (uint32_t)k]]);
			run(w, w->batch[s]);
		}
		for (; i < end && !w->error; i++) {
			bind_row(w->stmt[s], 0, &b->rows[order[i]]);
			run(w, w->stmt[s]);
		}
	}
	for (uint32_t i = 0; i < b->nr; i++)
		free_owned(&b->rows[i]);
	b->nr = 0;
}

static int commit(struct mtx_writer *w)
{
	int rc = sqlite3_exec(w->db, "COMMIT; BEGIN", NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : fail(w, rc);
}

static void set_idle(pthread_t thread, int idle)
{
	struct sched_param sp = { 0 };
	pthread_setschedparam(thread, idle ? SCHED_IDLE : SCHED_OTHER, &sp);
}

/*
 * The background writer: full blocks in order, and a commit when one is
 * wanted, until told to stop with nothing left. At SCHED_IDLE it runs only
 * on a CPU the program leaves idle, so that a program that keeps the CPUs
 * busy is not slowed by SQLite; the rows wait meanwhile (see BOOST_BLOCKS).
 */
static void *background_main(void *arg)
{
	struct mtx_writer *w = arg;
	pthread_mutex_lock(&w->lock);
	for (;;) {
		if (w->head) {
			struct row_block *b = w->head;
			if (!(w->head = b->next))
				w->tail = NULL;
			w->queued--;
			if (w->boosted && w->queued <= UNBOOST_BLOCKS) {
				set_idle(pthread_self(), 1);
				w->boosted = 0;
			}
			pthread_cond_signal(&w->room);
			pthread_mutex_unlock(&w->lock);
			write_block(w, b);
			pthread_mutex_lock(&w->lock);
			if (w->nr_spare < SPARE_BLOCKS) {
				b->next = w->spare;
				w->spare = b;
				w->nr_spare++;
			} else {
				free(b);
			}
		} else if (w->commit_wanted) {
			w->commit_wanted = 0;
			pthread_mutex_unlock(&w->lock);
			if (!w->error)
				commit(w);
			pthread_mutex_lock(&w->lock);
		} else if (w->stop) {
			break;
		} else {
			pthread_cond_wait(&w->work, &w->lock);
		}
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* Hand the block being filled over to the background writer (or write it
 * now without one). */
static void hand_over(struct mtx_writer *w)
{
	struct row_block *b = w->filling;
	if (!b || !b->nr)
		return;
	if (!w->background) {
		write_block(w, b);
		return;
	}
	pthread_mutex_lock(&w->lock);
	while (w->queued >= MAX_BLOCKS)
		pthread_cond_wait(&w->room, &w->lock);
	b->next = NULL;
	if (w->tail)
		w->tail->next = b;
	else
		w->head = b;
	w->tail = b;
	if (++w->queued >= BOOST_BLOCKS && !w->boosted) {
		set_idle(w->thread, 0);
		w->boosted = 1;
	}
	if ((w->filling = w->spare)) {
		w->spare = w->filling->next;
		w->nr_spare--;
	}
	pthread_cond_signal(&w->work);
	pthread_mutex_unlock(&w->lock);
	if (w->filling)
		w->filling->nr = 0;
}

/* Take @r (its owned strings too), or return the sticky error. */
static int submit(struct mtx_writer *w, struct queued_row *r)
{
	int error = sticky_error(w);
	if (!error && !w->filling && !(w->filling = calloc(1, sizeof(*w->filling))))
		error = fail(w, SQLITE_NOMEM);
	if (error) {
		free_owned(r);
		return error;
	}
	w->filling->rows[w->filling->nr++] = *r;
	w->rows++;
	if (w->filling->nr == BLOCK_ROWS)
		hand_over(w);
	return 0;
}

/* Parameters, in order. */
static void put_int(struct queued_row *r, int64_t v)
{
	r->v[r->nr++].i = v;
}

static void put_int_or_null(struct queued_row *r, int64_t v, int present)
{
	if (!present)
		r->null_mask |= (uint16_t)(1u << r->nr);
	put_int(r, v);
}

/* A string that outlives the write: a literal, or a static table's. */
static void put_static_text(struct queued_row *r, const char *s)
{
	if (!s)
		r->null_mask |= (uint16_t)(1u << r->nr);
	else
		r->text_mask |= (uint16_t)(1u << r->nr);
	r->v[r->nr++].s = s;
}

/* A string the caller may free or change afterwards: copied. */
static void put_text(struct queued_row *r, const char *s)
{
	char *copy = s ? strdup(s) : NULL;
	if (copy)
		r->owned_mask |= (uint16_t)(1u << r->nr);
	put_static_text(r, copy);
}

#define ROW(s) ((struct queued_row){ .stmt = STMT_##s })

/* "INSERT ... VALUES (?,...)" taking WRITER_BATCH rows (malloc'd). */
static char *batch_sql(const char *sql)
{
	const char *values = strstr(sql, "VALUES ");
	if (!values)
		return NULL;
	values += strlen("VALUES ");
	size_t head = (size_t)(values - sql), group = strlen(values);
	char *out = malloc(head + WRITER_BATCH * (group + 1)), *o = out;
	if (!out)
		return NULL;
	memcpy(o, sql, head);
	o += head;
	for (int k = 0; k < WRITER_BATCH; k++) {
		if (k)
			*o++ = ',';
		memcpy(o, values, group);
		o += group;
	}
	*o = '\0';
	return out;
}

static int prepare(struct mtx_writer *w, const char *sql, sqlite3_stmt **st, char **err)
{
	if (sql && sqlite3_prepare_v3(w->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) == SQLITE_OK)
		return 0;
	if (err && asprintf(err, "preparing %s: %s", sql ? sql : "a batch", sqlite3_errmsg(w->db)) < 0)
		*err = NULL;
	return -EIO;
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
	for (int i = 0; i < STMT__COUNT && !rc; i++) {
		char *batch = batch_sql(writer_sql[i]);
		rc = prepare(w, writer_sql[i], &w->stmt[i], err);
		if (!rc)
			rc = prepare(w, batch, &w->batch[i], err);
		free(batch);
	}
	if (!rc)
		rc = db_exec(w->db, "BEGIN", err);
	if (rc) {
		writer_close(w, 0);
		return rc;
	}
	*out = w;
	return 0;
}

int writer_background(struct mtx_writer *w)
{
	if (w->background)
		return 0;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->work, NULL);
	pthread_cond_init(&w->room, NULL);
	hand_over(w);
	if (pthread_create(&w->thread, NULL, background_main, w))
		return -EAGAIN;
	set_idle(w->thread, 1);
	w->background = 1;
	return 0;
}

/* Write everything handed over, then go on without the thread. */
static void stop_background(struct mtx_writer *w)
{
	if (!w->background)
		return;
	hand_over(w);
	pthread_mutex_lock(&w->lock);
	w->stop = 1;
	/* Nothing is left to leave the CPUs to. */
	if (!w->boosted)
		set_idle(w->thread, 0);
	pthread_cond_signal(&w->work);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	w->background = 0;
	while (w->spare) {
		struct row_block *b = w->spare;
		w->spare = b->next;
		free(b);
	}
	pthread_cond_destroy(&w->room);
	pthread_cond_destroy(&w->work);
	pthread_mutex_destroy(&w->lock);
}

int writer_thread(struct mtx_writer *w, int32_t tid, int32_t pid, const char *name,
		  uint64_t start_ns, uint64_t end_ns)
{
	struct queued_row r = ROW(THREAD);
	put_int(&r, tid);
	put_int(&r, pid);
	put_text(&r, name);
	put_int(&r, (int64_t)start_ns);
	put_int(&r, (int64_t)end_ns);
	return submit(w, &r);
}

int writer_process(struct mtx_writer *w, int32_t pid, int32_t ppid, const char *exe,
		   uint64_t start_ns, int64_t end_ns, int64_t exit_status)
{
	struct queued_row r = ROW(PROCESS);
	put_int(&r, pid);
	put_int_or_null(&r, ppid, ppid >= 0);
	put_text(&r, exe);
	put_int(&r, (int64_t)start_ns);
	put_int_or_null(&r, end_ns, end_ns >= 0);
	put_int_or_null(&r, exit_status, exit_status >= 0);
	return submit(w, &r);
}

int writer_thread_state(struct mtx_writer *w, int32_t tid, uint64_t start_ns, uint64_t end_ns,
			const char *state, int32_t cpu, const char *syscall)
{
	struct queued_row r = ROW(STATE);
	put_int(&r, tid);
	put_int(&r, (int64_t)start_ns);
	put_int(&r, (int64_t)end_ns);
	put_static_text(&r, state);
	put_int_or_null(&r, cpu, cpu >= 0);
	put_static_text(&r, syscall);
	return submit(w, &r);
}

int writer_switch(struct mtx_writer *w, uint64_t ts_ns, int32_t cpu, int32_t prev_tid,
		  const char *prev_state, int preempt, int32_t next_tid, uint32_t stack_id)
{
	struct queued_row r = ROW(SWITCH);
	put_int(&r, (int64_t)ts_ns);
	put_int(&r, cpu);
	put_int(&r, prev_tid);
	put_static_text(&r, prev_state);
	put_int(&r, preempt);
	put_int(&r, next_tid);
	put_int_or_null(&r, stack_id, stack_id != 0);
	return submit(w, &r);
}

int writer_wakeup(struct mtx_writer *w, uint64_t ts_ns, int32_t cpu, int32_t waker_tid,
		  int32_t wakee_tid, int32_t target_cpu)
{
	struct queued_row r = ROW(WAKEUP);
	put_int(&r, (int64_t)ts_ns);
	put_int(&r, cpu);
	put_int(&r, waker_tid);
	put_int(&r, wakee_tid);
	put_int_or_null(&r, target_cpu, target_cpu >= 0);
	return submit(w, &r);
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

int writer_syscall_row(struct mtx_writer *w, const struct mtx_syscall_row *s, const char *fd_kind)
{
	struct queued_row r = ROW(SYSCALL);
	put_int(&r, s->tid);
	put_int(&r, (int64_t)s->start_ns);
	put_int_or_null(&r, s->end_ns, s->end_ns >= 0);
	put_int(&r, s->nr);
	put_static_text(&r, s->name);
	put_int_or_null(&r, s->ret, s->has_ret);
	put_int_or_null(&r, s->fd, s->has_fd);
	put_static_text(&r, fd_kind);
	return submit(w, &r);
}

int writer_sync_op(struct mtx_writer *w, int32_t tid, int64_t object_id, const char *op,
		   uint64_t start_ns, uint64_t end_ns, int32_t result, int64_t arg, uint64_t callsite,
		   uint32_t stack_id)
{
	struct queued_row r = ROW(SYNC_OP);
	put_int(&r, tid);
	put_int(&r, object_id);
	put_static_text(&r, op);
	put_int(&r, (int64_t)start_ns);
	put_int(&r, (int64_t)end_ns);
	put_int_or_null(&r, result, result != MTX_SYNC_RESULT_UNRETURNED);
	put_int(&r, arg);
	put_int(&r, (int64_t)callsite);
	put_int_or_null(&r, stack_id, stack_id != 0);
	return submit(w, &r);
}

int writer_sync_object(struct mtx_writer *w, int64_t id, const char *kind, uint64_t addr,
		       int32_t pid, uint64_t created_ns)
{
	struct queued_row r = ROW(SYNC_OBJECT);
	put_int(&r, id);
	put_static_text(&r, kind);
	put_int(&r, (int64_t)addr);
	put_int(&r, pid);
	put_int(&r, (int64_t)created_ns);
	return submit(w, &r);
}

int writer_sample(struct mtx_writer *w, uint64_t ts_ns, int32_t tid, int32_t cpu, uint32_t stack_id,
		  const char *unwind)
{
	struct queued_row r = ROW(SAMPLE);
	put_int(&r, (int64_t)ts_ns);
	put_int(&r, tid);
	put_int_or_null(&r, cpu, cpu >= 0);
	put_int_or_null(&r, stack_id, stack_id > 0);
	put_static_text(&r, unwind);
	return submit(w, &r);
}

int writer_stack(struct mtx_writer *w, uint32_t id, uint32_t parent_id, int64_t function_id, int32_t pid,
		 uint64_t addr)
{
	struct queued_row r = ROW(STACK);
	put_int(&r, id);
	put_int_or_null(&r, parent_id, parent_id > 0);
	put_int(&r, function_id);
	put_int(&r, pid);
	put_int(&r, (int64_t)addr);
	return submit(w, &r);
}

int writer_function(struct mtx_writer *w, int64_t id, const char *name, const char *module, const char *file,
		    int line)
{
	struct queued_row r = ROW(FUNCTION);
	put_int(&r, id);
	put_text(&r, name);
	put_text(&r, module);
	put_text(&r, file);
	put_int_or_null(&r, line, line > 0);
	return submit(w, &r);
}

int writer_map(struct mtx_writer *w, int32_t pid, uint64_t ts_ns, uint64_t start, uint64_t end, uint64_t pgoff,
	       const char *path, const char *build_id, const char *symbols)
{
	struct queued_row r = ROW(MAP);
	put_int(&r, pid);
	put_int(&r, (int64_t)ts_ns);
	put_int(&r, (int64_t)start);
	put_int(&r, (int64_t)end);
	put_int(&r, (int64_t)pgoff);
	put_text(&r, path);
	put_text(&r, build_id);
	put_text(&r, symbols);
	return submit(w, &r);
}

int writer_calls(struct mtx_writer *w, const struct writer_call_row *rows, size_t n)
{
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		struct queued_row r = ROW(CALL);
		put_int(&r, rows[i].id);
		put_int(&r, rows[i].tid);
		put_int(&r, rows[i].function_id);
		put_int_or_null(&r, rows[i].parent_id, rows[i].parent_id > 0);
		put_int(&r, rows[i].depth);
		put_int(&r, (int64_t)rows[i].start_ns);
		put_int(&r, (int64_t)rows[i].end_ns);
		put_static_text(&r, rows[i].unfinished);
		rc = submit(w, &r);
	}
	return rc;
}

int writer_callsite(struct mtx_writer *w, int32_t pid, uint64_t addr, int64_t function_id)
{
	struct queued_row r = ROW(CALLSITE);
	put_int(&r, pid);
	put_int(&r, (int64_t)addr);
	put_int(&r, function_id);
	return submit(w, &r);
}

int writer_meta(struct mtx_writer *w, const char *key, const char *value)
{
	struct queued_row r = ROW(META);
	put_text(&r, key);
	put_text(&r, value);
	return submit(w, &r);
}

int writer_meta_int(struct mtx_writer *w, const char *key, int64_t value)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%lld", (long long)value);
	return writer_meta(w, key, buf);
}

int writer_commit(struct mtx_writer *w)
{
	hand_over(w);
	if (w->background) {
		pthread_mutex_lock(&w->lock);
		w->commit_wanted = 1;
		pthread_cond_signal(&w->work);
		pthread_mutex_unlock(&w->lock);
		return sticky_error(w);
	}
	return w->error ? w->error : commit(w);
}

uint64_t writer_rows(const struct mtx_writer *w)
{
	return w->rows;
}

sqlite3 *writer_db(struct mtx_writer *w)
{
	stop_background(w);
	hand_over(w);
	return w->db;
}

const char *writer_error(const struct mtx_writer *w)
{
	return sticky_error(w) ? w->error_msg : NULL;
}

int writer_close(struct mtx_writer *w, int finalize)
{
	int rc;
	if (!w)
		return 0;
	stop_background(w);
	hand_over(w);
	free(w->filling);
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
	for (int i = 0; i < STMT__COUNT; i++) {
		sqlite3_finalize(w->stmt[i]);
		sqlite3_finalize(w->batch[i]);
	}
	sqlite3_close(w->db);
	rc = w->error;
	free(w->error_msg);
	free(w->path);
	free(w);
	return rc;
}
