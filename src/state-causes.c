/*
 * src/state-causes.c - why each thread was not running (table state_causes).
 *
 * One merge pass over five streams, each ordered by (tid, time) on the
 * indexes built at finalize: a thread's states, the switches it made, the
 * wakeups it received, its syscalls and its sync ops. Each non-running
 * interval gets what it waited for (the innermost sync op or the syscall
 * under way), who had the CPU instead, and what ended the wait. The model
 * (collector/model.c) ends a wait exactly at the wakeup's time stamp, so
 * "the wakeup that ended it" is the one at its end_ns.
 *
 * Before the pass, the running intervals are loaded per CPU, to say which
 * traced thread held the CPU a woken thread was waiting for.
 */
#include "config.h"
#include "src/analysis.h"
#include "src/db.h"
#include "src/grow.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ETIMEDOUT on Linux; a timed wait that returned it was ended by a timer. */
#define ERR_TIMEDOUT 110

/* A query stepped in (tid, time) order, with its current row. */
struct stream {
	sqlite3_stmt *st;
	bool live; /* a current row is there */
};

static int stream_open(sqlite3 *db, struct stream *s, const char *sql, char **err)
{
	if (sqlite3_prepare_v2(db, sql, -1, &s->st, NULL) != SQLITE_OK) {
		if (asprintf(err, "state causes: %s", sqlite3_errmsg(db)) < 0)
			*err = NULL;
		return -EIO;
	}
	s->live = true;
	return 0;
}

static void stream_step(struct stream *s)
{
	s->live = sqlite3_step(s->st) == SQLITE_ROW;
}

/* Skip rows whose (tid, column @col) comes before (@tid, @ns). */
static void stream_seek(struct stream *s, int64_t tid, int64_t ns, int col)
{
	while (s->live) {
		int64_t t = sqlite3_column_int64(s->st, 0);
		if (t > tid || (t == tid && sqlite3_column_int64(s->st, col) >= ns))
			return;
		stream_step(s);
	}
}

static bool stream_at(const struct stream *s, int64_t tid)
{
	return s->live && sqlite3_column_int64(s->st, 0) == tid;
}

/* One running interval, for the per-CPU timelines. */
struct run {
	int64_t start_ns, end_ns, tid;
};

struct cpu_timeline {
	struct run *runs;
	size_t len, cap;
};

static int run_cmp(const void *a, const void *b)
{
	const struct run *x = a, *y = b;
	return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

/* The traced thread running on @cpu at @ns, or -1. */
static int64_t running_on(const struct cpu_timeline *cpus, int nr_cpus, int cpu, int64_t ns)
{
	if (cpu < 0 || cpu >= nr_cpus)
		return -1;
	const struct cpu_timeline *c = &cpus[cpu];
	size_t lo = 0, hi = c->len;
	while (lo < hi) { /* first run starting after ns */
		size_t mid = (lo + hi) / 2;
		if (c->runs[mid].start_ns <= ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && c->runs[lo - 1].end_ns > ns)
		return c->runs[lo - 1].tid;
	return -1;
}

static int load_timelines(sqlite3 *db, struct cpu_timeline **out, int *nr_out)
{
	sqlite3_stmt *st;
	struct cpu_timeline *cpus = NULL;
	int nr = 0;

	if (sqlite3_prepare_v2(db,
			       "SELECT cpu, start_ns, end_ns, tid FROM thread_states "
			       "WHERE state = 'running' AND cpu >= 0",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int cpu = sqlite3_column_int(st, 0);
		if (cpu >= 4096)
			continue;
		if (cpu >= nr) {
			struct cpu_timeline *more = realloc(cpus, sizeof(*cpus) * (size_t)(cpu + 1));
			if (!more)
				goto nomem;
			memset(more + nr, 0, sizeof(*more) * (size_t)(cpu + 1 - nr));
			cpus = more;
			nr = cpu + 1;
		}
		struct cpu_timeline *c = &cpus[cpu];
		struct run *runs = grow_array(c->runs, &c->cap, c->len + 1, sizeof(*runs), 1024);
		if (!runs)
			goto nomem;
		c->runs = runs;
		runs[c->len++] = (struct run){ sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2),
					       sqlite3_column_int64(st, 3) };
	}
	sqlite3_finalize(st);
	for (int i = 0; i < nr; i++)
		qsort(cpus[i].runs, cpus[i].len, sizeof(struct run), run_cmp);
	*out = cpus;
	*nr_out = nr;
	return 0;
nomem:
	sqlite3_finalize(st);
	for (int i = 0; i < nr; i++)
		free(cpus[i].runs);
	free(cpus);
	return -ENOMEM;
}

/* A sync op that may still be under way at the current interval. */
struct open_op {
	int64_t id, object_id, start_ns, end_ns, result;
	char op[16];
};

/* One thread_states row and what is being learnt about it. */
struct interval {
	int64_t tid, start_ns, end_ns, cpu, object_id;
	char state[16];
	char syscall[32];
	bool has_syscall, has_object;
};

/* The last syscall seen of the current thread. */
struct syscall_row {
	int64_t tid, start_ns, end_ns, fd;
	bool has_end, has_fd;
	char fd_kind[16];
};

struct pass {
	sqlite3 *db;
	struct syscall_row sys;
	bool has_sys;
	struct stream states, switches, wakeups, syscalls, ops;
	sqlite3_stmt *insert;
	struct cpu_timeline *cpus;
	int nr_cpus;
	struct open_op *open; /* ops of the current thread not yet ended */
	size_t nr_open, cap_open;
	int64_t open_tid;
};

static bool is_waiting(const char *state)
{
	return strcmp(state, "running") && strcmp(state, "runnable");
}

static bool is_timed(const char *op)
{
	return strstr(op, "timed") != NULL;
}

/* Bring the open-op list of @iv's thread up to @iv: add ops that started by
 * its start, drop those that ended before it. */
static int update_open_ops(struct pass *p, const struct interval *iv)
{
	if (p->open_tid != iv->tid) {
		p->nr_open = 0;
		p->open_tid = iv->tid;
	}
	size_t keep = 0;
	for (size_t i = 0; i < p->nr_open; i++)
		if (p->open[i].end_ns > iv->start_ns)
			p->open[keep++] = p->open[i];
	p->nr_open = keep;
	stream_seek(&p->ops, iv->tid, INT64_MIN, 1);
	while (stream_at(&p->ops, iv->tid) && sqlite3_column_int64(p->ops.st, 1) <= iv->start_ns) {
		sqlite3_stmt *st = p->ops.st;
		if (sqlite3_column_int64(st, 2) > iv->start_ns) {
			struct open_op *o = grow_array(p->open, &p->cap_open, p->nr_open + 1, sizeof(*o), 16);
			if (!o)
				return -ENOMEM;
			p->open = o;
			o = &p->open[p->nr_open++];
			o->start_ns = sqlite3_column_int64(st, 1);
			o->end_ns = sqlite3_column_int64(st, 2);
			o->id = sqlite3_column_int64(st, 3);
			o->object_id = sqlite3_column_int64(st, 4);
			snprintf(o->op, sizeof(o->op), "%s", (const char *)sqlite3_column_text(st, 5));
			o->result = sqlite3_column_int64(st, 6);
		}
		stream_step(&p->ops);
	}
	return 0;
}

/* The innermost op under way through all of @iv (the latest started), one
 * on @iv's object if it has one; NULL if none. */
static const struct open_op *op_during(const struct pass *p, const struct interval *iv)
{
	for (size_t i = p->nr_open; i-- > 0;) {
		const struct open_op *o = &p->open[i];
		if (o->start_ns <= iv->start_ns && o->end_ns >= iv->end_ns &&
		    (!iv->has_object || o->object_id == iv->object_id))
			return o;
	}
	return NULL;
}

/* The syscall under way through all of @iv (the last one it entered by
 * @iv's start, if it had not returned by @iv's end), or NULL. */
static const struct syscall_row *syscall_during(struct pass *p, const struct interval *iv)
{
	stream_seek(&p->syscalls, iv->tid, INT64_MIN, 1);
	while (stream_at(&p->syscalls, iv->tid) && sqlite3_column_int64(p->syscalls.st, 1) <= iv->start_ns) {
		sqlite3_stmt *st = p->syscalls.st;
		struct syscall_row *r = &p->sys;
		r->tid = iv->tid;
		r->start_ns = sqlite3_column_int64(st, 1);
		r->has_end = sqlite3_column_type(st, 2) != SQLITE_NULL;
		r->end_ns = sqlite3_column_int64(st, 2);
		r->has_fd = sqlite3_column_type(st, 3) != SQLITE_NULL;
		r->fd = sqlite3_column_int64(st, 3);
		snprintf(r->fd_kind, sizeof(r->fd_kind), "%s",
			 sqlite3_column_type(st, 4) == SQLITE_NULL ? "" : (const char *)sqlite3_column_text(st, 4));
		p->has_sys = true;
		stream_step(&p->syscalls);
	}
	if (!p->has_sys || p->sys.tid != iv->tid || p->sys.start_ns > iv->start_ns ||
	    (p->sys.has_end && p->sys.end_ns < iv->end_ns))
		return NULL;
	return &p->sys;
}

/*
 * Describe @iv (a non-running interval) and insert its row. @prev is the
 * thread's previous interval (NULL at the start of a lifetime), @next_cpu
 * the CPU of the running interval that follows (-1 if none), @last whether
 * the lifetime ends with it.
 */
static int describe(struct pass *p, const struct interval *iv, const struct interval *prev, int64_t next_cpu,
		    bool last)
{
	sqlite3_stmt *ins = p->insert;
	const char *cause = "unknown", *ended_by = NULL;
	int64_t next_tid = -1, waker_tid = -1;
	bool has_next = false, has_waker = false, preempt = false, switched = false;
	const struct open_op *op = NULL;
	const struct syscall_row *sys = NULL;
	int rc;

	/* The switch that began it, if the thread left a CPU then. */
	stream_seek(&p->switches, iv->tid, iv->start_ns, 1);
	if (stream_at(&p->switches, iv->tid) && sqlite3_column_int64(p->switches.st, 1) == iv->start_ns) {
		switched = true;
		next_tid = sqlite3_column_int64(p->switches.st, 2);
		has_next = true;
		preempt = sqlite3_column_int(p->switches.st, 3) != 0;
	}

	if (!is_waiting(iv->state)) { /* runnable */
		if (!prev)
			cause = "new";
		else if (is_waiting(prev->state)) {
			cause = "woken";
			next_tid = running_on(p->cpus, p->nr_cpus, (int)next_cpu, iv->start_ns);
			has_next = next_tid >= 0 && next_tid != iv->tid;
		} else if (switched || preempt)
			cause = "preempted";
	} else {
		if ((rc = update_open_ops(p, iv)))
			return rc;
		op = op_during(p, iv);

		sys = syscall_during(p, iv);
		if (!strcmp(iv->state, "sleeping"))
			cause = "sleep";
		else if (op || !strcmp(iv->state, "blocked_sync"))
			cause = "sync";
		else if (iv->has_syscall)
			cause = "syscall";

		/* What ended it: the wakeup at its end (or the last within it). */
		stream_seek(&p->wakeups, iv->tid, iv->start_ns, 1);
		while (stream_at(&p->wakeups, iv->tid) && sqlite3_column_int64(p->wakeups.st, 1) <= iv->end_ns) {
			waker_tid = sqlite3_column_int64(p->wakeups.st, 2);
			has_waker = true;
			stream_step(&p->wakeups);
		}
		if (has_waker && waker_tid > 0)
			ended_by = "thread";
		else if (has_waker)
			ended_by = !strcmp(iv->state, "sleeping") ||
						   (op && is_timed(op->op) && op->result == ERR_TIMEDOUT)
					   ? "timer"
					   : "interrupt";
		else
			ended_by = last ? "exit" : "unknown";
		has_waker = has_waker && waker_tid > 0;
	}

	sqlite3_reset(ins);
	sqlite3_bind_int64(ins, 1, iv->tid);
	sqlite3_bind_int64(ins, 2, iv->start_ns);
	sqlite3_bind_int64(ins, 3, iv->end_ns);
	sqlite3_bind_text(ins, 4, iv->state, -1, SQLITE_STATIC);
	sqlite3_bind_text(ins, 5, cause, -1, SQLITE_STATIC);
	db_bind_int_or_null(ins, 6, op ? op->object_id : iv->object_id, op || iv->has_object);
	db_bind_int_or_null(ins, 7, op ? op->id : 0, op != NULL);
	db_bind_text_or_null(ins, 8, iv->has_syscall ? iv->syscall : NULL);
	db_bind_int_or_null(ins, 9, sys ? sys->fd : 0, sys && sys->has_fd);
	db_bind_text_or_null(ins, 10, sys && sys->fd_kind[0] ? sys->fd_kind : NULL);
	db_bind_int_or_null(ins, 11, next_tid, has_next);
	db_bind_text_or_null(ins, 12, ended_by);
	db_bind_int_or_null(ins, 13, waker_tid, has_waker);
	return sqlite3_step(ins) == SQLITE_DONE ? 0 : -EIO;
}

static void read_interval(sqlite3_stmt *st, struct interval *iv)
{
	iv->tid = sqlite3_column_int64(st, 0);
	iv->start_ns = sqlite3_column_int64(st, 1);
	iv->end_ns = sqlite3_column_int64(st, 2);
	snprintf(iv->state, sizeof(iv->state), "%s", (const char *)sqlite3_column_text(st, 3));
	iv->cpu = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 4);
	iv->has_object = sqlite3_column_type(st, 5) != SQLITE_NULL;
	iv->object_id = sqlite3_column_int64(st, 5);
	iv->has_syscall = sqlite3_column_type(st, 6) != SQLITE_NULL;
	snprintf(iv->syscall, sizeof(iv->syscall), "%s",
		 iv->has_syscall ? (const char *)sqlite3_column_text(st, 6) : "");
}

static void pass_close(struct pass *p)
{
	struct stream *streams[] = { &p->states, &p->switches, &p->wakeups, &p->syscalls, &p->ops };
	for (size_t i = 0; i < sizeof(streams) / sizeof(streams[0]); i++)
		sqlite3_finalize(streams[i]->st);
	sqlite3_finalize(p->insert);
	for (int i = 0; i < p->nr_cpus; i++)
		free(p->cpus[i].runs);
	free(p->cpus);
	free(p->open);
}

int analysis_state_causes(sqlite3 *db, char **err)
{
	/* Runs recorded before syscalls had fd columns still get causes. */
	const char *fd_columns = db_has_column(db, "syscalls", "fd_kind") ? "fd, fd_kind" : "NULL, NULL";
	char syscalls_sql[160];
	struct pass p = { .db = db, .open_tid = -1 };
	struct interval cur, last_seen, pending, pending_prev;
	bool have_last = false, have_pending = false, pending_has_prev = false;
	int rc;

	snprintf(syscalls_sql, sizeof(syscalls_sql),
		 "SELECT tid, start_ns, end_ns, %s FROM syscalls ORDER BY tid, start_ns", fd_columns);
	if ((rc = load_timelines(db, &p.cpus, &p.nr_cpus))) {
		if (asprintf(err, "state causes: cannot load the running intervals") < 0)
			*err = NULL;
		return rc;
	}
	if ((rc = stream_open(db, &p.states,
			      "SELECT tid, start_ns, end_ns, state, cpu, object_id, syscall FROM thread_states "
			      "ORDER BY tid, start_ns",
			      err)) ||
	    (rc = stream_open(db, &p.switches,
			      "SELECT prev_tid, ts_ns, next_tid, preempt FROM switches ORDER BY prev_tid, ts_ns",
			      err)) ||
	    (rc = stream_open(db, &p.wakeups,
			      "SELECT wakee_tid, ts_ns, waker_tid FROM wakeups ORDER BY wakee_tid, ts_ns", err)) ||
	    (rc = stream_open(db, &p.syscalls, syscalls_sql, err)) ||
	    (rc = stream_open(db, &p.ops,
			      "SELECT tid, start_ns, end_ns, id, object_id, op, result FROM sync_ops "
			      "ORDER BY tid, start_ns",
			      err)))
		goto out;
	if (sqlite3_prepare_v2(db,
			       "INSERT INTO state_causes (tid, start_ns, end_ns, state, cause, object_id, op_id, "
			       "syscall, fd, fd_kind, next_tid, ended_by, waker_tid) "
			       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			       -1, &p.insert, NULL) != SQLITE_OK) {
		rc = -EIO;
		if (asprintf(err, "state causes: %s", sqlite3_errmsg(db)) < 0)
			*err = NULL;
		goto out;
	}
	stream_step(&p.states);
	stream_step(&p.switches);
	stream_step(&p.wakeups);
	stream_step(&p.syscalls);
	stream_step(&p.ops);

	/* Each non-running interval is described once the next one of its
	 * thread is known (its CPU, or that the lifetime ended). */
	for (; p.states.live && !rc; stream_step(&p.states)) {
		read_interval(p.states.st, &cur);
		bool follows = have_last && last_seen.tid == cur.tid && last_seen.end_ns == cur.start_ns;
		if (have_pending) {
			bool same = pending.tid == cur.tid && pending.end_ns == cur.start_ns;
			int64_t next_cpu = same && !strcmp(cur.state, "running") ? cur.cpu : -1;
			rc = describe(&p, &pending, pending_has_prev ? &pending_prev : NULL, next_cpu, !same);
			have_pending = false;
		}
		if (strcmp(cur.state, "running")) {
			pending = cur;
			pending_has_prev = follows;
			if (follows)
				pending_prev = last_seen;
			have_pending = true;
		}
		last_seen = cur;
		have_last = true;
	}
	if (!rc && have_pending)
		rc = describe(&p, &pending, pending_has_prev ? &pending_prev : NULL, -1, true);
	if (rc && !*err && asprintf(err, "state causes: %s", sqlite3_errmsg(db)) < 0)
		*err = NULL;
out:
	pass_close(&p);
	return rc;
}
