/*
 * src/derived/state-causes.c - why each thread was not running (table state_causes),
 * and how often each thread handed the CPU to which, where (switch_totals).
 *
 * One merge pass per thread over five of its time-ordered rows (a
 * timeline, src/derived/timeline.h): its states, the switches it made, the wakeups
 * it received, its syscalls and its sync ops. Each non-running interval
 * gets what it waited for (the innermost sync op or the syscall under way),
 * who had the CPU instead, and what ended the wait. The model
 * (collector/model.c) ends a wait exactly at the wakeup's time stamp, so
 * "the wakeup that ended it" is the one at its end_ns.
 *
 * Before the pass, the running intervals are gathered per CPU, to say which
 * traced thread held the CPU a woken thread was waiting for.
 *
 * Each row is also added up per thread in wait_totals (waits) or
 * cpu_wait_totals (runnable), and each sync wait handed to wait_for_add
 * (src/derived/wait-for.c), so that nothing reads state_causes back.
 */
#include "config.h"
#include "src/derived/analysis.h"
#include "src/db.h"
#include "src/grow.h"
#include "src/radix-sort.h"
#include "src/row-queue.h"
#include "src/keyhash.h"
#include "src/sorted.h"
#include "src/derived/timeline.h"
#include "src/thread-states.h"
#include "src/error.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One running interval, for the per-CPU timelines. */
struct run {
	int64_t start_ns, end_ns, tid;
};

struct cpu_timeline {
	struct run *runs;
	size_t len, cap;
	size_t at; /* where the thread being described last looked */
};

/* The traced thread running on @cpu at @ns, or -1. One thread's intervals
 * come in time order, so the search starts where that thread's last one
 * ended (c->at, 0 at each thread): a binary search over the CPU's whole run
 * took 0.18 s of the pass on a 10 M-event run, mostly in cache misses. */
static int64_t running_on(struct cpu_timeline *cpus, int nr_cpus, int64_t cpu, int64_t ns)
{
	if (cpu < 0 || cpu >= nr_cpus)
		return -1;
	struct cpu_timeline *c = &cpus[cpu];
	size_t lo = SORTED_FIRST_NEAR(c->runs, c->len, start_ns, ns, true, &c->at); /* first run starting after ns */
	if (lo > 0 && c->runs[lo - 1].end_ns > ns)
		return c->runs[lo - 1].tid;
	return -1;
}

/* Where a switch left the thread (the switches report's "at"), as a key:
 * kind and op of a sync op, an interned string, or one of these words. */
static const char *const at_words[] = { "sync", "sleep", "preempted", "new", "unknown", "woken" };
enum { AT_SYNC_OP = 1, AT_STRING = 2, AT_WORD = 3 };
#define AT_KEY(type, a, b) (((int64_t)(type) << 32) | ((int64_t)(a) << 16) | (int64_t)(b))
/* The function the thread was in (functions.id, 0 unknown) joins the key
 * above the position's 34 bits. */
#define AT_FUNCTION_SHIFT 36
#define AT_WITH_FUNCTION(at, fn) ((at) | ((int64_t)(fn) << AT_FUNCTION_SHIFT))

/* One row of switch_buckets (bucket: the bucket's number), or with bucket
 * 0 of switch_totals. */
struct switch_total {
	int64_t from_tid, to_tid, at, bucket, count;
};

struct switch_totals {
	const struct tl_buckets *buckets;
	struct keyhash keys;
	struct switch_total *rows;
	size_t len, cap;
};

/* The words of state_causes.cause and .ended_by, for the totals' keys. */
static const char *const causes[] = { "unknown", "sync", "syscall", "sleep", "new", "woken", "preempted" };
static const char *const endings[] = { "thread", "timer", "interrupt", "exit", "unknown" };

static int word_index(const char *const *words, size_t n, const char *word)
{
	for (size_t i = 0; word && i < n; i++)
		if (!strcmp(word, words[i]))
			return (int)i;
	return -1;
}

/* One row of wait_buckets (other_tid: waker_tid) or cpu_wait_buckets
 * (other_tid: next_tid), bucket: the bucket's number; or with bucket 0 of
 * their *_totals; -1 for a NULL. */
struct cause_total {
	int64_t tid, other_tid, bucket, waits, wait_ns, max_wait_ns;
	uint16_t syscall, fd_kind;
	int8_t cause, ended_by;
};

struct cause_totals {
	const struct tl_buckets *buckets;
	struct keyhash keys;
	struct cause_total *rows;
	size_t len, cap;
};

/* One state_causes row, as the insert pipe carries it (strings: the
 * timeline's or static). */
struct cause_row {
	int64_t tid, start_ns, end_ns, object_id, op_id, fd, next_tid, waker_tid, function_id;
	const char *state, *cause, *syscall, *fd_kind, *ended_by, *op;
	bool has_object, has_op, has_fd, has_next, has_waker;
};

/* Hand @c over as a row of state_causes: 0, or -ECANCELED once the
 * inserting failed. */
static int put_cause(struct row_queue *queue, int table, const struct cause_row *c)
{
	struct queued_row *r = row_queue_row(queue, table);
	if (!r)
		return -ECANCELED;
	row_put_int(r, c->tid);
	row_put_int(r, c->start_ns);
	row_put_int(r, c->end_ns);
	row_put_text(r, c->state);
	row_put_text(r, c->cause);
	row_put_int_or_null(r, c->object_id, c->has_object);
	row_put_int_or_null(r, c->op_id, c->has_op);
	row_put_text(r, c->syscall);
	row_put_int_or_null(r, c->fd, c->has_fd);
	row_put_text(r, c->fd_kind);
	row_put_int_or_null(r, c->next_tid, c->has_next);
	row_put_text(r, c->ended_by);
	row_put_int_or_null(r, c->waker_tid, c->has_waker);
	row_put_text(r, c->op);
	row_put_int_or_null(r, c->function_id, c->function_id > 0);
	row_queue_put(queue, r);
	return 0;
}

/* The queue's tables: state_causes and wait_for (src/derived/wait-for.c). */
enum { CAUSE_ROWS, WAIT_FOR_ROWS, NR_ROW_TABLES };

struct pass {
	const struct mtx_timeline *tl;
	const struct tl_thread *t;
	size_t sw, wk, sc, op;        /* the thread's next switch, wakeup, syscall, op */
	const struct tl_syscall *sys; /* the last syscall it entered, or NULL */
	const struct tl_op **open;    /* its ops not yet ended */
	size_t nr_open, cap_open;
	struct cpu_timeline *cpus;
	int nr_cpus;
	uint16_t running, runnable, sleeping, blocked_sync;
	struct row_queue *queue;
	struct switch_totals switches;
	struct cause_totals waits, cpu_waits;
	struct wait_for_pass *wait_for;
};

static int load_timelines(struct pass *p)
{
	const struct mtx_timeline *tl = p->tl;
	for (size_t i = 0; i < tl->nr_threads; i++) {
		const struct tl_thread *t = &tl->threads[i];
		for (size_t k = 0; k < t->nr_states; k++) {
			const struct tl_state *s = &t->states[k];
			if (s->state != p->running || !(s->flags & TL_HAS_CPU) || s->cpu < 0 || s->cpu >= 4096)
				continue;
			if (s->cpu >= p->nr_cpus) {
				struct cpu_timeline *more = realloc(p->cpus, sizeof(*more) * (size_t)(s->cpu + 1));
				if (!more)
					return -ENOMEM;
				memset(more + p->nr_cpus, 0, sizeof(*more) * (size_t)(s->cpu + 1 - p->nr_cpus));
				p->cpus = more;
				p->nr_cpus = s->cpu + 1;
			}
			struct cpu_timeline *c = &p->cpus[s->cpu];
			struct run *runs = grow_array(c->runs, &c->cap, c->len, sizeof(*runs), 1024);
			if (!runs)
				return -ENOMEM;
			c->runs = runs;
			runs[c->len++] = (struct run){ s->start_ns, s->end_ns, t->tid };
		}
	}
	for (int i = 0; i < p->nr_cpus; i++)
		if (radix_sort(p->cpus[i].runs, p->cpus[i].len, sizeof(struct run), &RADIX_KEY(struct run, start_ns), 1))
			return -ENOMEM;
	return 0;
}

static bool is_waiting(const struct pass *p, const struct tl_state *s)
{
	return s->state != p->running && s->state != p->runnable;
}

/* Bring the thread's open-op list up to @iv: add ops that started by its
 * start, drop those that ended before it. */
static int update_open_ops(struct pass *p, const struct tl_state *iv)
{
	size_t keep = 0;
	for (size_t i = 0; i < p->nr_open; i++)
		if (p->open[i]->end_ns > iv->start_ns)
			p->open[keep++] = p->open[i];
	p->nr_open = keep;
	for (; p->op < p->t->nr_ops && p->t->ops[p->op].start_ns <= iv->start_ns; p->op++) {
		const struct tl_op *o = &p->t->ops[p->op];
		if (o->end_ns <= iv->start_ns)
			continue;
		const struct tl_op **open = grow_array(p->open, &p->cap_open, p->nr_open, sizeof(*open), 16);
		if (!open)
			return -ENOMEM;
		p->open = open;
		p->open[p->nr_open++] = o;
	}
	return 0;
}

/* The innermost op under way through all of @iv (the latest started), one
 * on @iv's object if it has one; NULL if none. */
static const struct tl_op *op_during(const struct pass *p, const struct tl_state *iv)
{
	for (size_t i = p->nr_open; i-- > 0;) {
		const struct tl_op *o = p->open[i];
		if (o->start_ns <= iv->start_ns && o->end_ns >= iv->end_ns &&
		    (!(iv->flags & TL_HAS_OBJECT) || o->object_id == iv->object_id))
			return o;
	}
	return NULL;
}

/* The syscall under way through all of @iv (the last one it entered by
 * @iv's start, if it had not returned by @iv's end), or NULL. */
static const struct tl_syscall *syscall_during(struct pass *p, const struct tl_state *iv)
{
	for (; p->sc < p->t->nr_syscalls && p->t->syscalls[p->sc].start_ns <= iv->start_ns; p->sc++)
		p->sys = &p->t->syscalls[p->sc];
	if (!p->sys || ((p->sys->flags & TL_HAS_END) && p->sys->end_ns < iv->end_ns))
		return NULL;
	return p->sys;
}

/* Add @x's count to the total of its key in @c. */
static int merge_switch(struct switch_totals *c, const struct switch_total *x)
{
	/* The bucket's number above the tid's 32 bits (unsigned: a time before
	 * the origin has a negative one). */
	ptrdiff_t i = keyhash_row(&c->keys, x->from_tid, (int64_t)((uint64_t)x->bucket << 32 | (uint32_t)x->to_tid),
				  x->at, &c->rows, &c->len, &c->cap, sizeof(*c->rows),
				  &(struct switch_total){ x->from_tid, x->to_tid, x->at, x->bucket, 0 });
	if (i < 0)
		return (int)i;
	c->rows[i].count += x->count;
	return 0;
}

/* Count one switch of the thread to @to_tid at @ns, left at @at. */
static int count_switch(struct pass *p, int64_t to_tid, int64_t ns, int64_t at)
{
	return merge_switch(&p->switches, &(struct switch_total){ p->t->tid, to_tid, at,
								   timeline_bucket_of(p->switches.buckets, ns), 1 });
}

/* Add @x's waits to the total of its key in @c. */
static int merge_cause(struct cause_totals *c, const struct cause_total *x)
{
	struct cause_total init = *x;
	init.waits = init.wait_ns = init.max_wait_ns = 0;
	/* The bucket's number with cause and ended_by (each under 16). The
	 * key is packed unsigned: a syscall of TL_NONE shifted into an
	 * int64_t's top bits overflows it. */
	ptrdiff_t i = keyhash_row(&c->keys, x->tid,
				  (int64_t)((uint64_t)x->syscall << 48 | (uint64_t)x->fd_kind << 32 |
					    (uint32_t)x->other_tid),
				  x->bucket * 256 + x->cause * 16 + x->ended_by, &c->rows, &c->len, &c->cap,
				  sizeof(*c->rows), &init);
	if (i < 0)
		return (int)i;
	struct cause_total *to = &c->rows[i];
	if (!to->waits || x->max_wait_ns > to->max_wait_ns)
		to->max_wait_ns = x->max_wait_ns;
	to->waits += x->waits;
	to->wait_ns += x->wait_ns;
	return 0;
}

/* Count an interval of @ns that began at @start_ns as a wait of @key in
 * its bucket in @c. */
static int count_cause(struct cause_totals *c, struct cause_total *key, int64_t start_ns, int64_t ns)
{
	key->bucket = timeline_bucket_of(c->buckets, start_ns);
	key->waits = 1;
	key->wait_ns = key->max_wait_ns = ns;
	return merge_cause(c, key);
}

static int64_t at_word(const char *word)
{
	for (size_t i = 0; i < sizeof(at_words) / sizeof(at_words[0]); i++)
		if (!strcmp(word, at_words[i]))
			return AT_KEY(AT_WORD, 0, i);
	return AT_KEY(AT_WORD, 0, 0);
}

/*
 * Describe @iv (a non-running interval) and insert its row. @prev is the
 * thread's previous interval (NULL at the start of a lifetime), @next_cpu
 * the CPU of the running interval that follows (-1 if none), @last whether
 * the lifetime ends with it.
 */
static int describe(struct pass *p, const struct tl_state *iv, const struct tl_state *prev, int64_t next_cpu,
		    bool last)
{
	const char *cause = "unknown", *ended_by = NULL;
	int64_t next_tid = -1, waker_tid = -1, at, function_id = 0;
	bool has_next = false, has_waker = false, preempt = false, switched = false;
	const struct tl_op *op = NULL;
	const struct tl_syscall *sys = NULL;
	const struct tl_thread *t = p->t;
	int rc;

	/* The switch that began it, if the thread left a CPU then. */
	while (p->sw < t->nr_switches && t->switches[p->sw].ts_ns < iv->start_ns)
		p->sw++;
	if (p->sw < t->nr_switches && t->switches[p->sw].ts_ns == iv->start_ns) {
		switched = true;
		next_tid = t->switches[p->sw].next_tid;
		has_next = true;
		preempt = t->switches[p->sw].preempt;
		function_id = t->switches[p->sw].function_id;
	}

	if (!is_waiting(p, iv)) { /* runnable */
		if (!prev)
			cause = "new";
		else if (is_waiting(p, prev)) {
			cause = "woken";
			next_tid = running_on(p->cpus, p->nr_cpus, next_cpu, iv->start_ns);
			has_next = next_tid >= 0 && next_tid != t->tid;
		} else if (switched || preempt)
			cause = "preempted";
	} else {
		if ((rc = update_open_ops(p, iv)))
			return rc;
		op = op_during(p, iv);

		sys = syscall_during(p, iv);
		if (iv->state == p->sleeping)
			cause = "sleep";
		else if (op || iv->state == p->blocked_sync)
			cause = "sync";
		else if (iv->flags & TL_HAS_SYSCALL)
			cause = "syscall";

		/* What ended it: the wakeup at its end (or the last within it). */
		while (p->wk < t->nr_wakeups && t->wakeups[p->wk].ts_ns < iv->start_ns)
			p->wk++;
		for (; p->wk < t->nr_wakeups && t->wakeups[p->wk].ts_ns <= iv->end_ns; p->wk++) {
			waker_tid = t->wakeups[p->wk].waker_tid;
			has_waker = true;
		}
		const char *op_name = op ? timeline_string(p->tl, op->op) : NULL;
		if (has_waker && waker_tid > 0)
			ended_by = "thread";
		else if (has_waker && waker_tid < 0) /* a task too far into its exit to be named */
			ended_by = "unknown";
		else if (has_waker)
			ended_by = iv->state == p->sleeping || (op_name && strstr(op_name, "timed") &&
								(op->flags & TL_HAS_RESULT) && op->result == ETIMEDOUT)
					   ? "timer"
					   : "interrupt";
		else
			ended_by = last ? "exit" : "unknown";
		has_waker = has_waker && waker_tid > 0;
	}

	bool has_object = op || (iv->flags & TL_HAS_OBJECT);
	int64_t object_id = op ? op->object_id : iv->object_id;
	const char *syscall = iv->flags & TL_HAS_SYSCALL ? timeline_string(p->tl, iv->syscall) : NULL;
	const char *fd_kind = sys ? timeline_string(p->tl, sys->fd_kind) : NULL;
	if (fd_kind && !*fd_kind)
		fd_kind = NULL;

	rc = put_cause(p->queue, CAUSE_ROWS, &(struct cause_row){
		.tid = t->tid, .start_ns = iv->start_ns, .end_ns = iv->end_ns, .object_id = object_id,
		.op_id = op ? op->id : 0, .fd = sys ? sys->fd : 0, .next_tid = next_tid, .waker_tid = waker_tid,
		.function_id = function_id, .state = timeline_string(p->tl, iv->state), .cause = cause,
		.syscall = syscall, .fd_kind = fd_kind, .ended_by = ended_by,
		.op = op ? timeline_string(p->tl, op->op) : NULL, .has_object = has_object, .has_op = op != NULL,
		.has_fd = sys && (sys->flags & TL_HAS_FD), .has_next = has_next, .has_waker = has_waker,
	});
	if (rc)
		return rc;
	int64_t ns = iv->end_ns - iv->start_ns;
	if (is_waiting(p, iv)) {
		/* A thread's waits and their wakers at a glance, and what waited
		 * for whom (wait_for) for the sync ones. */
		struct cause_total key = {
			.tid = t->tid, .other_tid = has_waker ? waker_tid : -1,
			.syscall = syscall ? iv->syscall : TL_NONE,
			.fd_kind = fd_kind ? sys->fd_kind : TL_NONE,
			.cause = (int8_t)word_index(causes, sizeof(causes) / sizeof(causes[0]), cause),
			.ended_by = (int8_t)word_index(endings, sizeof(endings) / sizeof(endings[0]), ended_by),
		};
		if ((rc = count_cause(&p->waits, &key, iv->start_ns, ns)))
			return rc;
		if (!strcmp(cause, "sync") &&
		    (rc = wait_for_add(p->wait_for, t->tid, iv->start_ns, iv->end_ns, has_object, object_id, op,
				       has_waker, waker_tid)))
			return rc;
	} else {
		struct cause_total key = {
			.tid = t->tid, .other_tid = has_next ? next_tid : -1, .syscall = TL_NONE, .fd_kind = TL_NONE,
			.cause = (int8_t)word_index(causes, sizeof(causes) / sizeof(causes[0]), cause), .ended_by = -1,
		};
		if ((rc = count_cause(&p->cpu_waits, &key, iv->start_ns, ns)))
			return rc;
	}
	if (!has_next || !strcmp(cause, "woken"))
		return 0;
	/* As the switches report names the position (see src/reports.c). */
	const struct tl_object *o = has_object ? timeline_object(p->tl, object_id) : NULL;
	if (!strcmp(cause, "sync"))
		at = op && o ? AT_KEY(AT_SYNC_OP, o->kind, op->op) : at_word("sync");
	else if (!strcmp(cause, "syscall"))
		at = AT_KEY(AT_STRING, 0, syscall ? iv->syscall : TL_NONE);
	else if (!strcmp(cause, "sleep"))
		at = syscall ? AT_KEY(AT_STRING, 0, iv->syscall) : at_word("sleep");
	else
		at = at_word(cause);
	if (function_id > 0 && function_id < ((int64_t)1 << (63 - AT_FUNCTION_SHIFT)))
		at = AT_WITH_FUNCTION(at, function_id);
	return count_switch(p, next_tid, iv->start_ns, at);
}

/* One thread's intervals: each non-running one is described once the next
 * one is known (its CPU, or that the lifetime ended). */
static int thread_pass(struct pass *p)
{
	const struct tl_thread *t = p->t;
	int rc = 0;

	p->sw = p->wk = p->sc = p->op = 0;
	for (int i = 0; i < p->nr_cpus; i++)
		p->cpus[i].at = 0;
	p->sys = NULL;
	p->nr_open = 0;
	for (size_t i = 0; i < t->nr_states && !rc; i++) {
		const struct tl_state *iv = &t->states[i], *prev = i ? &t->states[i - 1] : NULL, *next;
		if (iv->state == p->running)
			continue;
		next = i + 1 < t->nr_states ? &t->states[i + 1] : NULL;
		bool same = next && iv->end_ns == next->start_ns;
		int64_t next_cpu = same && next->state == p->running && (next->flags & TL_HAS_CPU) ? next->cpu : -1;
		rc = describe(p, iv, prev && prev->end_ns == iv->start_ns ? prev : NULL, next_cpu, !same);
	}
	return rc;
}

/* The rows of @c into switch_buckets, or with @buckets false into
 * switch_totals. */
static int write_switch_rows(sqlite3 *db, const struct pass *p, const struct switch_totals *c, bool buckets)
{
	sqlite3_stmt *ins;
	char text[80];
	int rc = 0;

	if (sqlite3_prepare_v2(db, buckets ? "INSERT INTO switch_buckets (from_tid, to_tid, at, count, function_id, "
					     "bucket_ns) VALUES (?, ?, ?, ?, ?, ?)"
					   : "INSERT INTO switch_totals (from_tid, to_tid, at, count, function_id) "
					     "VALUES (?, ?, ?, ?, ?)",
			       -1, &ins, NULL) != SQLITE_OK)
		return -EIO;
	for (size_t i = 0; i < c->len && !rc; i++) {
		const struct switch_total *s = &c->rows[i];
		int64_t function_id = s->at >> AT_FUNCTION_SHIFT;
		int type = (int)((s->at >> 32) & 0xf);
		uint16_t a = (uint16_t)(s->at >> 16), b = (uint16_t)s->at;
		const char *at = NULL;
		if (type == AT_SYNC_OP) {
			snprintf(text, sizeof(text), "%s %s", timeline_string(p->tl, a), timeline_string(p->tl, b));
			at = text;
		} else if (type == AT_STRING) {
			at = timeline_string(p->tl, b);
		} else {
			at = at_words[b];
		}
		sqlite3_reset(ins);
		sqlite3_bind_int64(ins, 1, s->from_tid);
		sqlite3_bind_int64(ins, 2, s->to_tid);
		db_bind_text_or_null(ins, 3, at);
		sqlite3_bind_int64(ins, 4, s->count);
		db_bind_int_or_null(ins, 5, function_id, function_id > 0);
		if (buckets)
			sqlite3_bind_int64(ins, 6, timeline_bucket_ns(c->buckets, s->bucket));
		rc = sqlite3_step(ins) == SQLITE_DONE ? 0 : -EIO;
	}
	sqlite3_finalize(ins);
	return rc;
}

/* The switches per bucket into switch_buckets, and folded over the run
 * into switch_totals. */
static int write_switches(sqlite3 *db, const struct pass *p)
{
	struct switch_totals run = { 0 };
	int rc = write_switch_rows(db, p, &p->switches, true);
	for (size_t i = 0; i < p->switches.len && !rc; i++) {
		struct switch_total x = p->switches.rows[i];
		x.bucket = 0;
		rc = merge_switch(&run, &x);
	}
	if (!rc)
		rc = write_switch_rows(db, p, &run, false);
	keyhash_free(&run.keys);
	free(run.rows);
	return rc;
}

/* The rows of @c into @table (a wait_totals or cpu_wait_totals, or their
 * *_buckets with @buckets). */
static int write_cause_rows(sqlite3 *db, const struct pass *p, const struct cause_totals *c, bool waits,
			    const char *table, bool buckets)
{
	char sql[256];
	sqlite3_stmt *ins = NULL;
	int rc = 0;

	snprintf(sql, sizeof(sql),
		 waits ? "INSERT INTO %s (tid, cause, waits, wait_ns, max_wait_ns, syscall, fd_kind, ended_by, "
			 "waker_tid%s) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?%s)"
		       : "INSERT INTO %s (tid, cause, waits, wait_ns, max_wait_ns, next_tid%s) "
			 "VALUES (?, ?, ?, ?, ?, ?%s)",
		 table, buckets ? ", bucket_ns" : "", buckets ? ", ?" : "");
	if (sqlite3_prepare_v2(db, sql, -1, &ins, NULL) != SQLITE_OK)
		return -EIO;
	for (size_t i = 0; i < c->len && !rc; i++) {
		const struct cause_total *x = &c->rows[i];
		int col = 6;
		sqlite3_reset(ins);
		sqlite3_bind_int64(ins, 1, x->tid);
		sqlite3_bind_text(ins, 2, causes[x->cause], -1, SQLITE_STATIC);
		sqlite3_bind_int64(ins, 3, x->waits);
		sqlite3_bind_int64(ins, 4, x->wait_ns);
		sqlite3_bind_int64(ins, 5, x->max_wait_ns);
		if (waits) {
			db_bind_text_or_null(ins, col++, timeline_string(p->tl, x->syscall));
			db_bind_text_or_null(ins, col++, timeline_string(p->tl, x->fd_kind));
			db_bind_text_or_null(ins, col++, x->ended_by >= 0 ? endings[x->ended_by] : NULL);
		}
		db_bind_int_or_null(ins, col++, x->other_tid, x->other_tid >= 0);
		if (buckets)
			sqlite3_bind_int64(ins, col, timeline_bucket_ns(c->buckets, x->bucket));
		rc = sqlite3_step(ins) == SQLITE_DONE ? 0 : -EIO;
	}
	sqlite3_finalize(ins);
	return rc;
}

/* @c's rows per bucket into @buckets_table, and folded over the run into
 * @totals_table. */
static int write_causes(sqlite3 *db, const struct pass *p, const struct cause_totals *c, bool waits,
			const char *buckets_table, const char *totals_table)
{
	struct cause_totals run = { 0 };
	int rc = write_cause_rows(db, p, c, waits, buckets_table, true);
	for (size_t i = 0; i < c->len && !rc; i++) {
		struct cause_total x = c->rows[i];
		x.bucket = 0;
		rc = merge_cause(&run, &x);
	}
	if (!rc)
		rc = write_cause_rows(db, p, &run, waits, totals_table, false);
	keyhash_free(&run.keys);
	free(run.rows);
	return rc;
}

/* The pass over every thread. */
static int all_threads(struct pass *p)
{
	int rc = load_timelines(p);
	for (size_t i = 0; i < p->tl->nr_threads && !rc; i++) {
		p->t = &p->tl->threads[i];
		rc = thread_pass(p);
	}
	return rc;
}

int analysis_state_causes(sqlite3 *db, const struct mtx_timeline *tl, char **err)
{
	const char *const inserts[NR_ROW_TABLES] = {
		[CAUSE_ROWS] = "INSERT INTO state_causes (tid, start_ns, end_ns, state, cause, object_id, op_id, "
			       "syscall, fd, fd_kind, next_tid, ended_by, waker_tid, op, function_id) "
			       "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		[WAIT_FOR_ROWS] = wait_for_insert,
	};
	struct pass p = { .tl = tl, .waits.buckets = &tl->buckets, .cpu_waits.buckets = &tl->buckets,
			  .switches.buckets = &tl->buckets };
	int rc;

	p.running = timeline_intern_find(tl, thread_state_name(TS_RUNNING));
	p.runnable = timeline_intern_find(tl, thread_state_name(TS_RUNNABLE));
	p.sleeping = timeline_intern_find(tl, thread_state_name(TS_SLEEPING));
	p.blocked_sync = timeline_intern_find(tl, thread_state_name(TS_BLOCKED_SYNC));
	if ((rc = row_queue_open(db, inserts, NR_ROW_TABLES, &p.queue)) ||
	    (rc = wait_for_begin(db, tl, p.queue, WAIT_FOR_ROWS, &p.wait_for)))
		goto out;
	/* The rows are inserted on a thread of the queue's while this one
	 * describes them: on a 10 M-event run each side takes 1-2 s. */
	row_queue_start(p.queue, false);
	rc = all_threads(&p);
	if (!rc)
		rc = wait_for_put(p.wait_for);
	if (row_queue_finish(p.queue))
		rc = -EIO; /* the describing stopped for it, if it did */
	if (!rc)
		rc = write_switches(db, &p);
	if (!rc)
		rc = write_causes(db, &p, &p.waits, true, "wait_buckets", "wait_totals");
	if (!rc)
		rc = write_causes(db, &p, &p.cpu_waits, false, "cpu_wait_buckets", "cpu_wait_totals");
out:
	rc = wait_for_end(db, p.wait_for, rc);
	const char *why = rc == -ENOMEM ? "out of memory" : p.queue ? row_queue_errmsg(p.queue) : NULL;
	if (rc)
		error_set(err, "state causes: %s", why ? why : sqlite3_errmsg(db));
	row_queue_close(p.queue);
	for (int i = 0; i < p.nr_cpus; i++)
		free(p.cpus[i].runs);
	free(p.cpus);
	free(p.open);
	free(p.switches.rows);
	keyhash_free(&p.switches.keys);
	keyhash_free(&p.waits.keys);
	keyhash_free(&p.cpu_waits.keys);
	free(p.waits.rows);
	free(p.cpu_waits.rows);
	return rc;
}
