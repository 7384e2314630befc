/*
 * src/derived/critical-path.c - the critical path of a run (table critical_path of
 * schema/derived.sql): the chain of work and waits that bounded the run's
 * wall time, walked backwards from the exit of the root process's main
 * thread.
 *
 * The walk stands on one thread lifetime at one instant and steps back over
 * that thread's thread_states intervals, newest first. Running and runnable
 * time is on the path. A wait (blocked, blocked_sync, blocked_io, sleeping)
 * is followed to the wakeup that ended it: when a traced thread woke it, the
 * wait did not bound the run, the waker's work did, so the path continues in
 * the waker at the wakeup's instant, and the waker's segments inside a
 * blocked_sync wait are marked with that wait's object (the path "waited
 * through" it there). When an interrupt or a timer (waker 0), an untraced
 * task or nothing seen ended it, the wait itself is on the path. At the
 * start of a thread the path continues in the thread whose pthread_create
 * made it (its 'create' sync op), or for a process's main thread in a
 * thread of the parent process (fork); where no creator is known, at the
 * root process's start, it ends.
 *
 * Termination on any input, malformed included: time never increases along
 * the walk, each step back over a state interval strictly decreases it, and
 * a jump at an unchanged instant to a (lifetime, instant) already visited is
 * refused (the wait stays on the path). The path thus has at most about as
 * many segments as there are state intervals.
 *
 * The walk reads the states and wakeups from the timeline (src/derived/timeline.h)
 * and touches no SQLite connection, so it runs on a thread of its own
 * (analysis_critical_path_start) while the other analyses insert their
 * rows; the threads, processes and create ops are read before it, the
 * segments stored after it.
 */
#include "config.h"
#include "src/derived/analysis.h"
#include "src/worker.h"
#include "src/db.h"
#include "src/sorted.h"
#include "src/grow.h"
#include "src/keyhash.h"
#include "src/row-queue.h"
#include "src/derived/timeline.h"
#include "src/thread-states.h"
#include "src/error.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_OBJECT   INT64_MIN /* object_id NULL */
#define END_UNKNOWN INT64_MAX /* threads.end_ns NULL: alive to the end */
#define NOT_VISITED INT64_MIN

/* The statements that name the function of each segment. */
enum walk_stmt { ST_CALL, ST_CALL_PARENT, NR_WALK_STMTS };

static const char *const walk_sql[NR_WALK_STMTS] = {
	/* The latest call begun at or before an instant ... */
	[ST_CALL] = "SELECT function_id, parent_id, end_ns FROM calls WHERE tid = ?1 AND start_ns <= ?2 "
		    "ORDER BY start_ns DESC LIMIT 1",
	/* ... and its callers, up to the first still under way then. */
	[ST_CALL_PARENT] = "SELECT function_id, parent_id, end_ns FROM calls WHERE id = ?1",
};

/* One threads row. */
struct lifetime {
	int64_t tid, pid, start_ns, end_ns;
	int64_t creator_tid;  /* the thread whose 'create' op named this one; 0 none */
	ptrdiff_t window;     /* innermost attribution window (walk.windows), -1 none */
	int64_t visited_ns;   /* the latest instant the walk stood here */
};

/* One processes row. */
struct process {
	int64_t pid, ppid, start_ns; /* ppid -1 unknown */
};

/* From start_ns on (up to the jump that made it), the segments of one
 * lifetime are where the path waited through object_id. */
struct window {
	int64_t start_ns, object_id;
	ptrdiff_t outer; /* the same lifetime's window before this one, -1 none */
};

struct segment {
	size_t life, state;
	int64_t start_ns, end_ns, object_id;
};

struct state_name {
	char *name;
	int waits; /* a waiting state (src/thread-states.h) */
};

struct walk {
	sqlite3 *db;
	const struct mtx_timeline *tl;
	char **err;
	sqlite3_stmt *st[NR_WALK_STMTS];
	int has_calls;
	struct lifetime *lives; /* by tid, then start_ns */
	size_t nr_lives, lives_cap;
	struct process *procs;  /* by pid, then start_ns */
	size_t nr_procs, procs_cap;
	struct window *windows;
	size_t nr_windows, windows_cap;
	struct segment *segs;   /* newest first */
	size_t nr_segs, segs_cap;
	struct state_name *names;
	size_t nr_names, names_cap;
	ptrdiff_t *name_of_string; /* per timeline string: its index in names, -1 not yet */
	ptrdiff_t root;         /* the root process's main thread, -1 none */
};

static int walk_fail(struct walk *w, int rc, const char *what)
{
	if (w->err) {
		free(*w->err);
		error_set(w->err, "critical path (%s): %s", what,
				rc == -ENOMEM ? "out of memory" : sqlite3_errmsg(w->db));
	}
	return rc;
}

static int sql_fail(struct walk *w, const char *what)
{
	return walk_fail(w, sqlite3_errcode(w->db) == SQLITE_FULL ? -ENOSPC : -EIO, what);
}

static int64_t column_or(sqlite3_stmt *st, int col, int64_t fallback)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL ? fallback : sqlite3_column_int64(st, col);
}

/* The index of @name in the walk's state names, added when new; -1 when
 * memory ran out. */
static ptrdiff_t state_intern(struct walk *w, const char *name)
{
	struct state_name *names;
	size_t i;

	for (i = 0; i < w->nr_names; i++)
		if (!strcmp(w->names[i].name, name))
			return (ptrdiff_t)i;
	names = grow_array(w->names, &w->names_cap, w->nr_names, sizeof(*names), 8);
	if (!names)
		return -1;
	w->names = names;
	names[i].name = strdup(name);
	if (!names[i].name)
		return -1;
	names[i].waits = 0;
	for (int k = 0; k < NR_THREAD_STATES; k++)
		names[i].waits |= thread_state_waiting((enum thread_state)k) &&
				  !strcmp(name, thread_state_name((enum thread_state)k));
	w->nr_names++;
	return (ptrdiff_t)i;
}

/* The walk's state name of a timeline state (an interned string); -1 when
 * memory ran out. */
static ptrdiff_t state_of(struct walk *w, uint16_t string)
{
	if (w->name_of_string[string] < 0)
		w->name_of_string[string] = state_intern(w, timeline_string(w->tl, string));
	return w->name_of_string[string];
}

/* The states of lifetime @l begun before @ns are those of @t from index
 * *@k - 1 down to the first begun before the lifetime: newest first, and
 * among equal starts the last recorded first, as the (tid, start_ns) index
 * gives them. Returns the next one, or NULL. */
static const struct tl_state *state_before(const struct tl_thread *t, const struct lifetime *l, size_t *k)
{
	if (!t || !*k || t->states[*k - 1].start_ns < l->start_ns)
		return NULL;
	return &t->states[--*k];
}

/* ---- the thread and process tables, in memory ------------------------- */

/* The lifetime of @tid begun latest at or before @ns, or -1. */
static ptrdiff_t lifetime_at(const struct walk *w, int64_t tid, int64_t ns)
{
	size_t lo = SORTED_FIRST2(w->lives, w->nr_lives, tid, start_ns, tid, ns, true); /* first after (tid, ns) */
	return lo > 0 && w->lives[lo - 1].tid == tid ? (ptrdiff_t)lo - 1 : -1;
}

static int alive_at(const struct lifetime *l, int64_t ns)
{
	return l->start_ns <= ns && ns <= l->end_ns;
}

/* Run @sql and hand each row to @row. Returns 0 or the first error. */
static int each_row(struct walk *w, const char *sql, const char *what,
		    int (*row)(struct walk *, sqlite3_stmt *))
{
	sqlite3_stmt *st;
	int rc = 0, step;

	if (sqlite3_prepare_v2(w->db, sql, -1, &st, NULL) != SQLITE_OK)
		return sql_fail(w, what);
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW)
		rc = row(w, st);
	if (!rc && step != SQLITE_DONE)
		rc = sql_fail(w, what);
	sqlite3_finalize(st);
	return rc;
}

static int add_lifetime(struct walk *w, sqlite3_stmt *st)
{
	struct lifetime *l = grow_array(w->lives, &w->lives_cap, w->nr_lives, sizeof(*l), 256);
	if (!l)
		return walk_fail(w, -ENOMEM, "threads");
	w->lives = l;
	w->lives[w->nr_lives++] = (struct lifetime){
		.tid = sqlite3_column_int64(st, 0),
		.pid = sqlite3_column_int64(st, 1),
		.start_ns = sqlite3_column_int64(st, 2),
		.end_ns = column_or(st, 3, END_UNKNOWN),
		.window = -1,
		.visited_ns = NOT_VISITED,
	};
	return 0;
}

static int add_process(struct walk *w, sqlite3_stmt *st)
{
	struct process *p = grow_array(w->procs, &w->procs_cap, w->nr_procs, sizeof(*p), 16);
	if (!p)
		return walk_fail(w, -ENOMEM, "processes");
	w->procs = p;
	w->procs[w->nr_procs++] = (struct process){
		.pid = sqlite3_column_int64(st, 0),
		.ppid = column_or(st, 1, -1),
		.start_ns = column_or(st, 2, INT64_MIN),
	};
	return 0;
}

/* A create op (new tid, creating tid, end_ns): the clone happens inside the
 * call, so the lifetime it made is the one of that tid begun latest before
 * the call returned. */
static int add_creator(struct walk *w, sqlite3_stmt *st)
{
	ptrdiff_t i = lifetime_at(w, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 2));
	if (i >= 0)
		w->lives[i].creator_tid = sqlite3_column_int64(st, 1);
	return 0;
}

/* The root process (pid, start_ns): its main thread is the first lifetime
 * of tid pid in it. */
static int set_root(struct walk *w, sqlite3_stmt *st)
{
	int64_t pid = sqlite3_column_int64(st, 0), start_ns = column_or(st, 1, INT64_MIN);

	for (ptrdiff_t i = lifetime_at(w, pid, INT64_MAX); i >= 0 && w->lives[i].tid == pid; i--)
		if (w->lives[i].pid == pid && (w->root < 0 || w->lives[i].start_ns >= start_ns))
			w->root = i;
	return 0;
}

/* Load the threads, the processes, who created whom and the root. */
static int load(struct walk *w)
{
	int rc = each_row(w, "SELECT tid, pid, start_ns, end_ns FROM threads ORDER BY tid, start_ns",
			  "threads", add_lifetime);
	if (!rc)
		rc = each_row(w, "SELECT pid, ppid, start_ns FROM processes ORDER BY pid, start_ns",
			      "processes", add_process);
	/* pthread_create's op on the new thread's object names its tid. The
	 * join starts from the few objects of kind thread (CROSS JOIN fixes
	 * SQLite's loop order) and reaches their ops through the
	 * sync_ops(object_id, start_ns) index instead of scanning all ops. */
	if (!rc)
		rc = each_row(w, "SELECT o.arg, o.tid, o.end_ns FROM sync_objects s "
				 "CROSS JOIN sync_ops o ON o.object_id = s.id "
				 "WHERE s.kind = 'thread' AND o.op = 'create' AND o.arg IS NOT NULL "
				 "ORDER BY o.end_ns",
			      "create ops", add_creator);
	/* The root: the process whose parent is not in the run, the earliest
	 * if several. */
	if (!rc)
		rc = each_row(w, "SELECT pid, start_ns FROM processes "
				 "WHERE ppid IS NULL OR ppid NOT IN (SELECT pid FROM processes) "
				 "ORDER BY start_ns IS NULL, start_ns LIMIT 1",
			      "root process", set_root);
	return rc;
}

/* ---- emitting segments -------------------------------------------------- */

static int push_segment(struct walk *w, size_t life, int64_t start_ns, int64_t end_ns, size_t state,
			int64_t object_id)
{
	struct segment *s = grow_array(w->segs, &w->segs_cap, w->nr_segs, sizeof(*s), 1024);
	if (!s)
		return walk_fail(w, -ENOMEM, "segments");
	w->segs = s;
	w->segs[w->nr_segs++] = (struct segment){ life, state, start_ns, end_ns, object_id };
	return 0;
}

/*
 * emit - put [@start_ns, @end_ns) of lifetime @life, in @state, on the path
 * (called with ever earlier times). Inside an attribution window the
 * segment takes the window's object unless it has its own (a blocked_sync
 * wait that stays on the path); it is split where a window begins.
 */
static int emit(struct walk *w, size_t life, int64_t start_ns, int64_t end_ns, size_t state, int64_t object_id)
{
	struct lifetime *l = &w->lives[life];

	while (end_ns > start_ns) {
		int64_t from = start_ns, object = object_id;
		int rc;

		/* Windows begun at or after this segment's end are behind the walk for good. */
		while (l->window >= 0 && w->windows[l->window].start_ns >= end_ns)
			l->window = w->windows[l->window].outer;
		if (l->window >= 0) {
			const struct window *win = &w->windows[l->window];
			if (win->start_ns > from)
				from = win->start_ns;
			if (object == NO_OBJECT)
				object = win->object_id;
		}
		rc = push_segment(w, life, from, end_ns, state, object);
		if (rc)
			return rc;
		end_ns = from;
	}
	return 0;
}

static int open_window(struct walk *w, size_t life, int64_t start_ns, int64_t object_id)
{
	struct window *win = grow_array(w->windows, &w->windows_cap, w->nr_windows, sizeof(*win), 256);
	if (!win)
		return walk_fail(w, -ENOMEM, "windows");
	w->windows = win;
	w->windows[w->nr_windows] = (struct window){ start_ns, object_id, w->lives[life].window };
	w->lives[life].window = (ptrdiff_t)w->nr_windows++;
	return 0;
}

/* ---- the walk ----------------------------------------------------------- */

/*
 * may_jump - whether the walk may go from lifetime @from at @ns to @to at
 * @to_ns (never later). A jump that leaves time unchanged must not reach a
 * (lifetime, instant) already visited: that is a cycle in inconsistent data.
 * Since time never increases, a lifetime's latest visit is the only one that
 * can be at the current instant.
 */
static int may_jump(struct walk *w, size_t from, int64_t ns, ptrdiff_t to, int64_t to_ns)
{
	if (to < 0 || (size_t)to == from || to_ns > ns)
		return 0;
	if (to_ns == ns && w->lives[to].visited_ns == ns)
		return 0;
	w->lives[from].visited_ns = ns;
	w->lives[to].visited_ns = to_ns;
	return 1;
}

/*
 * waker_lifetime - the traced lifetime that woke @wakee's wait begun at
 * @wait_ns by a wakeup at @ts_ns, and in *@at_ns the instant to continue it
 * at; -1 when the waker is not a traced thread alive then. A waker whose
 * exit was recorded during the wait but before the wakeup (the kernel wakes
 * a joiner from the exiting thread, after its exit event) is followed from
 * its exit.
 */
static ptrdiff_t waker_lifetime(const struct walk *w, int64_t waker_tid, int64_t wait_ns, int64_t ts_ns,
				int64_t *at_ns)
{
	ptrdiff_t i = waker_tid > 0 ? lifetime_at(w, waker_tid, ts_ns) : -1;
	if (i < 0 || w->lives[i].end_ns <= wait_ns)
		return -1;
	*at_ns = w->lives[i].end_ns < ts_ns ? w->lives[i].end_ns : ts_ns;
	return i;
}

/* The wakeup in [@from_ns, @to_ns] of @t ending a wait (the one at its
 * end, else the latest in it): true and its time and waker, or false. */
static bool find_wakeup(const struct tl_thread *t, int64_t from_ns, int64_t to_ns, int64_t *ts_ns, int64_t *waker_tid)
{
	size_t k = t ? SORTED_FIRST(t->wakeups, t->nr_wakeups, ts_ns, to_ns, true) : 0;
	if (!k || t->wakeups[k - 1].ts_ns < from_ns)
		return false;
	*ts_ns = t->wakeups[k - 1].ts_ns;
	*waker_tid = t->wakeups[k - 1].waker_tid;
	return true;
}

/*
 * walk_thread - step back over lifetime *@life's intervals from *@ns. Returns
 * 1 after a jump to a waker (*@life and *@ns updated), 0 once at the
 * lifetime's start (*@ns = its start_ns), or an error.
 */
static int walk_thread(struct walk *w, size_t *life, int64_t *ns)
{
	const struct lifetime *l = &w->lives[*life];
	const struct tl_thread *t = timeline_thread(w->tl, l->tid);
	const struct tl_state *s;
	size_t k = t ? timeline_states_from(t, *ns) : 0;
	ptrdiff_t unknown = state_intern(w, "unknown");
	int rc = 0, jumped = 0;

	if (unknown < 0)
		return walk_fail(w, -ENOMEM, "states");
	while (!jumped && (s = state_before(t, l, &k))) {
		int64_t start_ns = s->start_ns, end_ns = s->end_ns;
		int64_t object_id = s->flags & TL_HAS_OBJECT ? s->object_id : NO_OBJECT, ts_ns = 0, waker_tid = 0, at_ns = 0;
		ptrdiff_t state = state_of(w, s->state), waker;

		if (state < 0) {
			rc = walk_fail(w, -ENOMEM, "states");
			break;
		}
		if (start_ns >= *ns)
			continue; /* an empty or overlapping interval */
		if (end_ns < *ns) { /* a hole in the tiling (not in a consistent run.db) */
			int64_t hole_ns = end_ns > start_ns ? end_ns : start_ns;
			if ((rc = emit(w, *life, hole_ns, *ns, (size_t)unknown, NO_OBJECT)))
				break;
			*ns = hole_ns;
			if (start_ns >= *ns)
				continue;
		}
		if (w->names[state].waits) {
			/* The interval, clipped at *ns, ends at *ns: its wakeup is at or before. */
			waker = find_wakeup(t, start_ns, *ns, &ts_ns, &waker_tid)
					? waker_lifetime(w, waker_tid, start_ns, ts_ns, &at_ns) : -1;
			if (waker >= 0 && may_jump(w, *life, *ns, waker, at_ns)) {
				/* What is left of the wait after the waker's instant stays on the path. */
				if ((rc = emit(w, *life, at_ns, *ns, (size_t)state, object_id)))
					break;
				if (object_id != NO_OBJECT && !strcmp(w->names[state].name, thread_state_name(TS_BLOCKED_SYNC)) &&
				    (rc = open_window(w, (size_t)waker, start_ns, object_id)))
					break;
				*life = (size_t)waker;
				*ns = at_ns;
				jumped = 1;
				continue;
			}
		}
		if ((rc = emit(w, *life, start_ns, *ns, (size_t)state, object_id)))
			break;
		*ns = start_ns;
	}
	if (jumped)
		return 1;
	if (rc)
		return rc;
	if (*ns > l->start_ns) { /* no interval at the lifetime's start */
		if ((rc = emit(w, *life, l->start_ns, *ns, (size_t)unknown, NO_OBJECT)))
			return rc;
		*ns = l->start_ns;
	}
	return 0;
}

/* The state of lifetime @life just before @ns is running: 1 or 0. */
static int running_before(struct walk *w, size_t life, int64_t ns)
{
	const struct tl_thread *t = timeline_thread(w->tl, w->lives[life].tid);
	size_t k = t ? timeline_states_from(t, ns) : 0;
	const struct tl_state *s = state_before(t, &w->lives[life], &k);
	return s && !strcmp(timeline_string(w->tl, s->state), thread_state_name(TS_RUNNING));
}

/*
 * creator - in *@out the lifetime that made lifetime @life, alive at its
 * start: the thread of its 'create' op; else, for a process's main thread, a
 * thread of the parent process (the one running then when there is one,
 * since the fork ran on it); -1 when none. Returns 0 or an error.
 */
static int creator(struct walk *w, size_t life, ptrdiff_t *out)
{
	const struct lifetime *l = &w->lives[life];
	int64_t ns = l->start_ns, ppid = -1;

	*out = -1;
	if (l->creator_tid > 0) {
		ptrdiff_t c = lifetime_at(w, l->creator_tid, ns);
		if (c >= 0 && alive_at(&w->lives[c], ns)) {
			*out = c;
			return 0;
		}
	}
	if (l->tid != l->pid)
		return 0;
	for (size_t i = 0; i < w->nr_procs; i++) /* its process: the row of pid begun latest by then */
		if (w->procs[i].pid == l->pid && w->procs[i].start_ns <= ns)
			ppid = w->procs[i].ppid;
	for (size_t i = 0; i < w->nr_lives && ppid > 0; i++) {
		int running;
		if (w->lives[i].pid != ppid || i == life || !alive_at(&w->lives[i], ns))
			continue;
		running = running_before(w, i, ns);
		if (running || *out < 0 || w->lives[i].tid == ppid)
			*out = (ptrdiff_t)i;
		if (running)
			break;
	}
	return 0;
}

static int walk(struct walk *w, size_t life, int64_t ns)
{
	for (;;) {
		int rc = walk_thread(w, &life, &ns);
		ptrdiff_t from;

		if (rc < 0)
			return rc;
		if (rc)
			continue;
		rc = creator(w, life, &from);
		if (rc < 0)
			return rc;
		if (!may_jump(w, life, ns, from, ns))
			return 0;
		life = (size_t)from;
	}
}

/* The innermost call of @tid under way at @ns: 1 and its function, 0 when
 * none, or an error. Calls nest, so it is the latest begun by then, or the
 * first of that one's callers still under way. */
static int function_at(struct walk *w, int64_t tid, int64_t ns, int64_t *function_id)
{
	sqlite3_stmt *st = w->st[ST_CALL];
	int rc, depth = 0;

	sqlite3_bind_int64(st, 1, tid);
	sqlite3_bind_int64(st, 2, ns);
	for (;;) {
		int64_t parent_id, end_ns;

		rc = sqlite3_step(st);
		if (rc != SQLITE_ROW)
			break;
		*function_id = sqlite3_column_int64(st, 0);
		parent_id = column_or(st, 1, -1);
		end_ns = column_or(st, 2, END_UNKNOWN);
		sqlite3_reset(st);
		if (end_ns > ns)
			return 1;
		if (parent_id < 0 || ++depth > 1 << 16) /* no caller, or a cycle of parents */
			return 0;
		st = w->st[ST_CALL_PARENT];
		sqlite3_bind_int64(st, 1, parent_id);
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : sql_fail(w, "calls");
}

/* The segments of one (tid, state, object, function), added up for
 * critical_path_totals, or per bucket for critical_path_buckets: there
 * segments, start_ns and end_ns are of those that begin in the bucket,
 * path_ns the time of all within it. */
struct path_total {
	int64_t tid, object_id, function_id, bucket_ns, segments, path_ns, start_ns, end_ns;
	size_t state;
	bool has_function;
};

struct path_totals {
	struct keyhash keys;
	struct path_total *rows;
	size_t len, cap;
};

/* The total of @s's key (thread @tid, in function @function_id if
 * @found) and bucket number @bucket (0 for critical_path_totals) in @t,
 * made with @bucket_ns if new; NULL when out of memory. The run spans at
 * most 33 buckets, so 16 bits of the number tell them apart. */
static struct path_total *path_total_of(struct path_totals *t, const struct segment *s, int64_t tid,
					int64_t function_id, int found, int64_t bucket, int64_t bucket_ns)
{
	const struct path_total init = { .tid = tid, .object_id = s->object_id, .function_id = function_id,
					 .bucket_ns = bucket_ns, .start_ns = INT64_MAX, .end_ns = INT64_MIN,
					 .state = s->state, .has_function = found };
	/* A tid fits 32 bits; the states are a handful of names. */
	ptrdiff_t i = keyhash_row(&t->keys, tid * 65536 + (int64_t)s->state, s->object_id,
				  (found ? function_id : -1) * 65536 + (bucket & 0xffff), &t->rows, &t->len, &t->cap,
				  sizeof(*t->rows), &init);
	return i < 0 ? NULL : &t->rows[i];
}

/* Count @s as a segment that began in @t (its span too). */
static void path_total_begins(struct path_total *t, const struct segment *s)
{
	t->segments++;
	if (s->start_ns < t->start_ns)
		t->start_ns = s->start_ns;
	if (s->end_ns > t->end_ns)
		t->end_ns = s->end_ns;
}

/* Add segment @s of thread @tid (in function @function_id if @found) to
 * its total in @totals and to its totals per bucket of @b in @buckets: its
 * time within each bucket it overlaps, and as a segment in the one it
 * begins in. */
static int count_segment(struct path_totals *totals, struct path_totals *buckets, const struct tl_buckets *b,
			 const struct segment *s, int64_t tid, int64_t function_id, int found)
{
	struct path_total *t = path_total_of(totals, s, tid, function_id, found, 0, 0);
	if (!t)
		return -ENOMEM;
	path_total_begins(t, s);
	t->path_ns += s->end_ns - s->start_ns;
	int64_t first = timeline_bucket_of(b, s->start_ns);
	int64_t last = s->end_ns > s->start_ns ? timeline_bucket_of(b, s->end_ns - 1) : first;
	for (int64_t k = first; k <= last; k++) {
		int64_t from = timeline_bucket_ns(b, k), to = from + b->width_ns;
		if (!(t = path_total_of(buckets, s, tid, function_id, found, k, from)))
			return -ENOMEM;
		if (k == first)
			path_total_begins(t, s);
		t->path_ns += (s->end_ns < to ? s->end_ns : to) - (s->start_ns > from ? s->start_ns : from);
	}
	return 0;
}

/* Put @t as a row of the queue's table @table: critical_path_totals, or
 * critical_path_buckets with its bucket_ns. False once the queue failed
 * (row_queue_finish says why). */
static bool put_path_total(struct walk *w, struct row_queue *q, int table, const struct path_total *t)
{
	struct queued_row *r = row_queue_row(q, table);
	if (!r)
		return false;
	row_put_int(r, t->tid);
	row_put_text(r, w->names[t->state].name);
	row_put_int_or_null(r, t->object_id, t->object_id != NO_OBJECT);
	row_put_int_or_null(r, t->function_id, t->has_function);
	row_put_int(r, t->segments);
	row_put_int(r, t->path_ns);
	row_put_int_or_null(r, t->start_ns, t->segments > 0);
	row_put_int_or_null(r, t->end_ns, t->segments > 0);
	if (table == 2)
		row_put_int(r, t->bucket_ns);
	row_queue_put(q, r);
	return true;
}

/* Store the segments, earliest first, seq from 1, and their totals in
 * critical_path_totals (the views' per thread, state, object and function;
 * a GROUP BY took 0.5 s on sysbench's 384 k segments) and per bucket in
 * critical_path_buckets. */
static int store(struct walk *w)
{
	static const char *const insert[] = {
		"INSERT INTO critical_path (seq, tid, start_ns, end_ns, state, object_id, function_id) "
		"VALUES (?,?,?,?,?,?,?)",
		"INSERT INTO critical_path_totals (tid, state, object_id, function_id, segments, path_ns, start_ns, "
		"end_ns) VALUES (?,?,?,?,?,?,?,?)",
		"INSERT INTO critical_path_buckets (tid, state, object_id, function_id, segments, path_ns, start_ns, "
		"end_ns, bucket_ns) VALUES (?,?,?,?,?,?,?,?,?)",
	};
	struct path_totals totals = { 0 }, buckets = { 0 };
	struct row_queue *q;
	int rc = row_queue_open(w->db, insert, 3, &q), found = 0;
	bool queued = true;

	for (size_t i = w->nr_segs, seq = 1; !rc && i-- > 0; seq++) {
		const struct segment *s = &w->segs[i];
		int64_t tid = w->lives[s->life].tid, function_id = 0;
		found = w->has_calls ? function_at(w, tid, s->start_ns, &function_id) : 0;
		struct queued_row *r = found < 0 ? NULL : row_queue_row(q, 0);

		if (!r)
			break;
		if ((rc = count_segment(&totals, &buckets, &w->tl->buckets, s, tid, function_id, found)))
			break;
		row_put_int(r, (int64_t)seq);
		row_put_int(r, tid);
		row_put_int(r, s->start_ns);
		row_put_int(r, s->end_ns);
		row_put_text(r, w->names[s->state].name);
		row_put_int_or_null(r, s->object_id, s->object_id != NO_OBJECT);
		row_put_int_or_null(r, function_id, found);
		row_queue_put(q, r);
	}
	for (size_t i = 0; i < totals.len && !rc && found >= 0 && queued; i++)
		queued = put_path_total(w, q, 1, &totals.rows[i]);
	for (size_t i = 0; i < buckets.len && !rc && found >= 0 && queued; i++)
		queued = put_path_total(w, q, 2, &buckets.rows[i]);
	keyhash_free(&totals.keys);
	free(totals.rows);
	keyhash_free(&buckets.keys);
	free(buckets.rows);
	if (found < 0) {
		row_queue_close(q);
		return found; /* function_at said why */
	}
	if (!rc && row_queue_finish(q))
		rc = row_queue_error(q) == SQLITE_NOMEM ? -ENOMEM : -EIO;
	row_queue_close(q);
	if (rc == -ENOMEM)
		return walk_fail(w, rc, "insert");
	return rc ? sql_fail(w, "insert") : 0;
}

/* Where the path ends: the root's main thread at its exit, or when that is
 * not known at the end of its last state. */
static int64_t end_of(struct walk *w, size_t life)
{
	const struct lifetime *l = &w->lives[life];
	const struct tl_thread *t = timeline_thread(w->tl, l->tid);
	size_t k = t ? t->nr_states : 0;
	const struct tl_state *s = l->end_ns == END_UNKNOWN ? state_before(t, l, &k) : NULL;
	return l->end_ns != END_UNKNOWN ? l->end_ns : s ? s->end_ns : l->start_ns;
}

/* The walk, from the root's exit back (nothing when the run is empty). */
static int walk_run(void *arg)
{
	struct walk *w = arg;
	return w->root >= 0 ? walk(w, (size_t)w->root, end_of(w, (size_t)w->root)) : 0;
}

struct critical_path_job {
	struct walk w;
	char *err; /* the walk's */
	struct worker thread;
};

int analysis_critical_path_start(sqlite3 *db, const struct mtx_timeline *tl, struct critical_path_job **out,
				 char **err)
{
	struct critical_path_job *j = calloc(1, sizeof(*j));
	int rc = 0;

	*out = j;
	if (!j)
		return -ENOMEM;
	j->w = (struct walk){ .db = db, .tl = tl, .err = err, .root = -1 };
	struct walk *w = &j->w;
	if (!(w->name_of_string = malloc(sizeof(*w->name_of_string) * (tl->nr_strings ? tl->nr_strings : 1))))
		return walk_fail(w, -ENOMEM, "states");
	for (size_t i = 0; i < tl->nr_strings; i++)
		w->name_of_string[i] = -1;
	for (int i = 0; i < NR_WALK_STMTS && !rc; i++)
		if (sqlite3_prepare_v2(db, walk_sql[i], -1, &w->st[i], NULL) != SQLITE_OK)
			rc = sql_fail(w, "prepare");
	if (!rc) {
		w->has_calls = db_query_int(db, "SELECT EXISTS (SELECT 1 FROM calls)", 0) > 0;
		rc = load(w);
	}
	w->err = &j->err; /* the walk's own, as it runs beside this thread */
	if (!rc)
		worker_start(&j->thread, walk_run, w);
	return rc;
}

int analysis_critical_path_finish(sqlite3 *db, struct critical_path_job *j, char **err)
{
	struct walk *w = &j->w;
	int rc = worker_join(&j->thread);

	if (rc && err) {
		free(*err);
		*err = j->err;
		j->err = NULL;
	}
	w->err = err;
	if (!rc && db)
		rc = store(w);
	free(j->err);
	for (int i = 0; i < NR_WALK_STMTS; i++)
		sqlite3_finalize(w->st[i]);
	for (size_t i = 0; i < w->nr_names; i++)
		free(w->names[i].name);
	free(w->names);
	free(w->name_of_string);
	free(w->lives);
	free(w->procs);
	free(w->windows);
	free(w->segs);
	free(j);
	return rc;
}

int analysis_critical_path(sqlite3 *db, const struct mtx_timeline *tl, char **err)
{
	struct critical_path_job *j;
	int rc = analysis_critical_path_start(db, tl, &j, err);
	int done = j ? analysis_critical_path_finish(rc ? NULL : db, j, rc ? NULL : err) : -ENOMEM;
	return rc ? rc : done;
}
