/* src/probe/run.c - see run.h. A handful of whole-table scans, no SQL per
 * event: the analysis must keep up with runs of millions of ops. */
#include "config.h"
#include "src/probe/run.h"
#include "src/probe/run-env.h"
#include "src/db.h"
#include "src/error.h"
#include "src/grow.h"
#include "src/radix-sort.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The op and kind names, kept once here so events point at static text. */
static const char *const known_names[] = {
	"lock", "trylock", "timedlock", "unlock", "rdlock", "wrlock", "tryrdlock", "trywrlock", "timedrdlock",
	"timedwrlock", "wait", "timedwait", "trywait", "signal", "broadcast", "post", "init", "destroy", "open",
	"close", "create", "join", "detach", "exit", "kill", "tgkill", "pthread_kill", "raise", "sigqueue",
	"mutex", "rwlock", "spinlock", "cond", "sem", "barrier", "thread", NULL,
};

static const char *static_name(const unsigned char *text)
{
	if (!text)
		return "?";
	for (int i = 0; known_names[i]; i++)
		if (!strcmp(known_names[i], (const char *)text))
			return known_names[i];
	return "other";
}

const char *probe_action_name(enum probe_action a)
{
	static const char *const names[] = {
		[PA_OTHER] = "other",         [PA_LOCK] = "lock",         [PA_RDLOCK] = "rdlock",
		[PA_UNLOCK] = "unlock",       [PA_COND_WAIT] = "wait",    [PA_COND_SIGNAL] = "signal",
		[PA_COND_BROADCAST] = "broadcast", [PA_SEM_WAIT] = "wait", [PA_SEM_POST] = "post",
		[PA_SEM_INIT] = "init",       [PA_BARRIER_WAIT] = "wait", [PA_BARRIER_INIT] = "init",
		[PA_CREATE] = "create",       [PA_JOIN] = "join",         [PA_KILL] = "kill",
	};
	return a < sizeof(names) / sizeof(names[0]) && names[a] ? names[a] : "other";
}

/* The model's reading of (kind, op): its action and whether it may fail
 * at once (try) or after a time (timed). */
static void classify(struct probe_event *e, const char *kind, const char *op)
{
	bool lock = !strcmp(kind, "mutex") || !strcmp(kind, "spinlock") || !strcmp(kind, "rwlock");
	e->action = PA_OTHER;
	e->try_op = !strncmp(op, "try", 3);
	e->timed = !strncmp(op, "timed", 5);
	if (lock) {
		if (!strcmp(op, "unlock"))
			e->action = PA_UNLOCK;
		else if (strstr(op, "rdlock"))
			e->action = PA_RDLOCK;
		else if (strstr(op, "lock"))
			e->action = PA_LOCK;
	} else if (!strcmp(kind, "cond")) {
		if (strstr(op, "wait"))
			e->action = PA_COND_WAIT;
		else if (!strcmp(op, "signal"))
			e->action = PA_COND_SIGNAL;
		else if (!strcmp(op, "broadcast"))
			e->action = PA_COND_BROADCAST;
	} else if (!strcmp(kind, "sem")) {
		if (strstr(op, "wait"))
			e->action = PA_SEM_WAIT;
		else if (!strcmp(op, "post"))
			e->action = PA_SEM_POST;
		else if (!strcmp(op, "init") || !strcmp(op, "open"))
			e->action = PA_SEM_INIT;
	} else if (!strcmp(kind, "barrier")) {
		if (!strcmp(op, "wait"))
			e->action = PA_BARRIER_WAIT;
		else if (!strcmp(op, "init"))
			e->action = PA_BARRIER_INIT;
	} else if (!strcmp(kind, "thread")) {
		if (!strcmp(op, "create"))
			e->action = PA_CREATE;
		else if (!strcmp(op, "join"))
			e->action = PA_JOIN;
	} else if (!strcmp(kind, "signal")) {
		/* kill and sigqueue name a process, not a thread: outside the model */
		if (!strcmp(op, "tgkill") || !strcmp(op, "pthread_kill") || !strcmp(op, "raise"))
			e->action = PA_KILL;
	}
	if (e->action == PA_OTHER || e->action == PA_UNLOCK || e->action == PA_COND_SIGNAL ||
	    e->action == PA_COND_BROADCAST || e->action == PA_SEM_POST)
		e->try_op = e->timed = 0;
}

void probe_run_free(struct probe_run *run)
{
	if (!run)
		return;
	for (int32_t i = 0; i < run->nr_threads; i++)
		free(run->threads[i].name);
	free(run->threads);
	free(run->events);
	free(run->objects);
	free(run->pieces);
	free(run->piece_until);
	free(run->segment_pieces);
	free(run->segment_priority);
	free(run->segment_cpus);
	free(run->segment_kernel_ns);
	free(run->irqs);
	free(run->inject);
	free(run);
}

int64_t probe_event_tid(const struct probe_run *run, int32_t e)
{
	return e < 0 ? 0 : run->threads[run->events[e].thread].tid;
}

int32_t probe_event_k(const struct probe_run *run, int32_t e)
{
	return e < 0 ? 0 : run->events[e].k;
}

const char *probe_event_label(const struct probe_run *run, int32_t e, char *buf, size_t size)
{
	if (e < 0)
		return snprintf(buf, size, "T_0"), buf;
	const struct probe_thread *t = &run->threads[run->events[e].thread];
	snprintf(buf, size, "%s#%d", t->name ? t->name : "?", run->events[e].k);
	return buf;
}

static int sql_fail(sqlite3 *db, const char *what, char **err)
{
	error_set(err, "reading %s: %s", what, sqlite3_errmsg(db));
	return db_error_is_corrupt(sqlite3_errcode(db)) ? -EIO : -EINVAL;
}

int32_t probe_run_thread_at(const struct probe_run *run, int64_t tid, int64_t ts_ns)
{
	int32_t lo = 0, hi = run->nr_threads, found = -1;
	while (lo < hi) { /* the first row of tid */
		int32_t mid = lo + (hi - lo) / 2;
		if (run->threads[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int32_t i = lo; i < run->nr_threads && run->threads[i].tid == tid; i++)
		if (found < 0 || run->threads[i].start_ns <= ts_ns)
			found = i;
	return found;
}

static int32_t object_index(const struct probe_run *run, int64_t id)
{
	int32_t lo = 0, hi = run->nr_objects;
	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;
		if (run->objects[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < run->nr_objects && run->objects[lo].id == id ? lo : -1;
}

static int load_threads(sqlite3 *db, struct probe_run *run, char **err)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int step;
	if (sqlite3_prepare_v2(db, "SELECT tid, name, start_ns, COALESCE(end_ns, start_ns) FROM threads "
				   "ORDER BY tid, start_ns", -1, &st, NULL) != SQLITE_OK)
		return sql_fail(db, "threads", err);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct probe_thread *t = grow_array(run->threads, &cap, (size_t)run->nr_threads, sizeof(*t), 64);
		const char *name = (const char *)sqlite3_column_text(st, 1);
		if (!t)
			break;
		run->threads = t;
		t = &run->threads[run->nr_threads++];
		*t = (struct probe_thread){ .tid = sqlite3_column_int64(st, 0), .start_ns = sqlite3_column_int64(st, 2),
					    .end_ns = sqlite3_column_int64(st, 3), .creator = -1,
					    .name = strdup(name ? name : "?") };
		if (!t->name)
			break;
	}
	sqlite3_finalize(st);
	if (step == SQLITE_ROW)
		return -ENOMEM;
	return step == SQLITE_DONE ? 0 : sql_fail(db, "threads", err);
}

static int load_objects(sqlite3 *db, struct probe_run *run, char **err)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int step;
	if (sqlite3_prepare_v2(db, "SELECT id, kind, addr FROM sync_objects ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		return sql_fail(db, "sync_objects", err);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct probe_object *o = grow_array(run->objects, &cap, (size_t)run->nr_objects, sizeof(*o), 64);
		if (!o)
			break;
		run->objects = o;
		run->objects[run->nr_objects++] = (struct probe_object){
			.id = sqlite3_column_int64(st, 0), .kind = static_name(sqlite3_column_text(st, 1)),
			.addr = sqlite3_column_int64(st, 2) };
	}
	sqlite3_finalize(st);
	if (step == SQLITE_ROW)
		return -ENOMEM;
	return step == SQLITE_DONE ? 0 : sql_fail(db, "sync_objects", err);
}

/* An event's place in the order of the vertices: its thread row, its
 * start, its id. */
struct event_key {
	int64_t start_ns, op_id;
	int32_t thread, at;
};

/* Put the events read in the table's order into (thread, start, id)
 * order. Reading them so and sorting here takes a third of the time that
 * reading them in that order takes: an index's order reads the table at
 * random (1.9 s against 0.2 s for 4.7 M ops, before a 0.3 s sort). */
static int sort_events(struct probe_run *run)
{
	static const struct radix_key keys[] = { RADIX_KEY(struct event_key, thread),
						 RADIX_KEY(struct event_key, start_ns),
						 RADIX_KEY(struct event_key, op_id) };
	struct event_key *k = malloc(((size_t)run->nr_events + 1) * sizeof(*k));
	struct probe_event *sorted = malloc(((size_t)run->nr_events + 1) * sizeof(*sorted));
	int rc = -ENOMEM;

	if (!k || !sorted)
		goto out;
	for (int32_t i = 0; i < run->nr_events; i++)
		k[i] = (struct event_key){ run->events[i].start_ns, run->events[i].op_id, run->events[i].thread, i };
	if (radix_sort(k, (size_t)run->nr_events, sizeof(*k), keys, sizeof(keys) / sizeof(keys[0])))
		goto out;
	for (int32_t i = 0; i < run->nr_events; i++)
		sorted[i] = run->events[k[i].at];
	free(run->events);
	run->events = sorted;
	sorted = NULL;
	rc = 0;
out:
	free(k);
	free(sorted);
	return rc;
}

/* The completed ops, by thread row then time: the vertices (tid, k). */
static int load_events(sqlite3 *db, struct probe_run *run, char **err)
{
	char sql[512];
	sqlite3_stmt *st;
	size_t cap = 0;
	int step, nr_overhead = 0;
	bool has_overhead = db_has_column(db, "sync_ops", "overhead_ns");

	snprintf(sql, sizeof(sql),
		 "SELECT id, tid, object_id, op, start_ns, end_ns, blocked, result, COALESCE(arg, 0), %s "
		 "FROM sync_ops WHERE %s",
		 has_overhead ? "overhead_ns" : "NULL",
		 db_has_column(db, "sync_ops", "unfinished") ? "unfinished IS NULL AND result IS NOT NULL"
							     : "result IS NOT NULL");
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return sql_fail(db, "sync_ops", err);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t tid = sqlite3_column_int64(st, 1), start = sqlite3_column_int64(st, 4);
		int32_t thread = probe_run_thread_at(run, tid, start), object = object_index(run, sqlite3_column_int64(st, 2));
		struct probe_event *e;
		int64_t result = sqlite3_column_int64(st, 7);
		if (thread < 0 || object < 0)
			continue; /* an op of no known thread or object: outside the model */
		if (!(e = grow_array(run->events, &cap, (size_t)run->nr_events, sizeof(*e), 1024)))
			break;
		run->events = e;
		e = &run->events[run->nr_events];
		*e = (struct probe_event){ .op_id = sqlite3_column_int64(st, 0), .start_ns = start,
					   .end_ns = sqlite3_column_int64(st, 5), .blocked = sqlite3_column_int(st, 6) != 0,
					   .arg = sqlite3_column_int64(st, 8), .thread = thread, .object = object,
					   .peer = -1, .waker = -1, .op = static_name(sqlite3_column_text(st, 3)) };
		if (e->end_ns < e->start_ns)
			e->end_ns = e->start_ns;
		if (sqlite3_column_type(st, 9) != SQLITE_NULL) {
			e->overhead_ns = sqlite3_column_int64(st, 9);
			if (e->overhead_ns < 0)
				e->overhead_ns = 0;
			nr_overhead++;
		}
		run->overhead_ns += e->overhead_ns;
		classify(e, run->objects[object].kind, e->op);
		/* A barrier's serial thread gets -1: it passed, as the others. */
		e->serial = e->action == PA_BARRIER_WAIT && result == -1;
		e->outcome = result == 0 || (e->action == PA_BARRIER_WAIT && result == -1) ? PO_OK : PO_FAIL;
		run->nr_events++;
	}
	sqlite3_finalize(st);
	if (step == SQLITE_ROW)
		return -ENOMEM;
	if (step != SQLITE_DONE)
		return sql_fail(db, "sync_ops", err);
	run->overhead_recorded = nr_overhead > 0;
	return sort_events(run);
}

/* Number the events per thread, and find each one's peer thread or mutex.
 * Returns 0 or -ENOMEM. */
static int link_events(struct probe_run *run)
{
	for (int32_t i = 0; i < run->nr_threads; i++)
		run->threads[i].first = -1;
	for (int32_t i = 0; i < run->nr_events; i++) {
		struct probe_event *e = &run->events[i];
		struct probe_thread *t = &run->threads[e->thread];
		if (t->first < 0)
			t->first = i;
		e->k = ++t->nr_events;
		switch (e->action) {
		case PA_COND_WAIT: e->peer = object_index(run, e->arg); break;
		case PA_CREATE:
		case PA_JOIN:
		case PA_KILL:
			if (e->arg > 0)
				e->peer = probe_run_thread_at(run, e->arg, e->action == PA_CREATE ? e->end_ns + 1 : e->start_ns);
			if (e->peer == e->thread)
				e->peer = -1;
			break;
		default: break;
		}
	}
	/* A creation names its child: the child's row that began after it. */
	for (int32_t i = 0; i < run->nr_events; i++) {
		struct probe_event *e = &run->events[i];
		if (e->action == PA_CREATE && e->peer >= 0 && run->threads[e->peer].creator < 0)
			run->threads[e->peer].creator = i;
	}
	/* A join of a thread that had already ended could not read its tid
	 * (arg 0): its thread object's creation names it. */
	int32_t *created = malloc(((size_t)run->nr_objects + 1) * sizeof(*created));
	if (!created)
		return -ENOMEM;
	for (int32_t o = 0; o < run->nr_objects; o++)
		created[o] = -1;
	for (int32_t t = 0; t < run->nr_threads; t++)
		if (run->threads[t].creator >= 0)
			created[run->events[run->threads[t].creator].object] = t;
	for (int32_t i = 0; i < run->nr_events; i++)
		if (run->events[i].action == PA_JOIN && run->events[i].peer < 0)
			run->events[i].peer = created[run->events[i].object];
	free(created);
	for (int32_t i = 0; i < run->nr_threads; i++)
		if (run->threads[i].first < 0)
			run->threads[i].first = 0;
	return 0;
}

/* Observed wakers of the events that blocked: the last wakeup of the
 * thread within the op (wakeups; a waker of 0 is an interrupt). */
struct wakeup_row {
	int64_t wakee, ts_ns, waker;
};

static int load_wakers(sqlite3 *db, struct probe_run *run, char **err)
{
	static const struct radix_key keys[] = { RADIX_KEY(struct wakeup_row, wakee),
						 RADIX_KEY(struct wakeup_row, ts_ns) };
	struct wakeup_row *w = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *st;
	int step;
	int32_t e = 0;
	/* In the table's order, sorted here: see sort_events. */
	if (sqlite3_prepare_v2(db, "SELECT wakee_tid, ts_ns, waker_tid FROM wakeups", -1, &st, NULL) != SQLITE_OK)
		return sql_fail(db, "wakeups", err);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct wakeup_row *v = grow_array(w, &cap, n, sizeof(*v), 4096);
		if (!v)
			break;
		w = v;
		w[n++] = (struct wakeup_row){ sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
					      sqlite3_column_int64(st, 2) };
	}
	sqlite3_finalize(st);
	if (step != SQLITE_DONE || radix_sort(w, n, sizeof(*w), keys, sizeof(keys) / sizeof(keys[0]))) {
		free(w);
		return step == SQLITE_DONE || step == SQLITE_ROW ? -ENOMEM : sql_fail(db, "wakeups", err);
	}
	/* Events are by (tid, start): walk both in step. */
	for (size_t j = 0; j < n; j++) {
		int64_t wakee = w[j].wakee, ts = w[j].ts_ns, waker = w[j].waker;
		while (e < run->nr_events && (run->threads[run->events[e].thread].tid < wakee ||
					      (run->threads[run->events[e].thread].tid == wakee &&
					       run->events[e].end_ns < ts)))
			e++;
		for (int32_t i = e; i < run->nr_events && run->threads[run->events[i].thread].tid == wakee; i++) {
			struct probe_event *ev = &run->events[i];
			if (ev->start_ns > ts)
				break;
			if (ev->blocked && ts <= ev->end_ns) {
				ev->waker = waker > 0 ? probe_run_thread_at(run, waker, ts) : -1;
				ev->woken_by_t0 = ev->waker < 0;
			}
		}
	}
	free(w);
	return 0;
}

struct piece_builder {
	int64_t *v, *until;
	size_t len, cap, cap_until;
};

/* Add @ns of CPU (@cpu) or off-CPU time (ending at T_0's instant @until,
 * or -1), merged with the piece before it when of the same sort and in
 * the same segment (@segment_first), and not itself held to an instant. */
static int piece_add(struct piece_builder *b, size_t segment_first, int64_t ns, bool cpu, int64_t until)
{
	int64_t *v;
	if (ns <= 0)
		return 0;
	if (b->len > segment_first && (b->v[b->len - 1] > 0) == cpu && b->until[b->len - 1] < 0) {
		b->v[b->len - 1] += cpu ? ns : -ns;
		b->until[b->len - 1] = until;
		return 0;
	}
	if (!(v = grow_array(b->until, &b->cap_until, b->len, sizeof(*v), 4096)))
		return -ENOMEM;
	b->until = v;
	if (!(v = grow_array(b->v, &b->cap, b->len, sizeof(*v), 4096)))
		return -ENOMEM;
	b->v = v;
	b->until[b->len] = until;
	b->v[b->len++] = cpu ? ns : -ns;
	return 0;
}

struct state {
	int64_t tid, start_ns, end_ns;
	int32_t cpu;
	int kind; /* 0 running, 1 runnable (dropped), 2 off-CPU */
};

/* By thread, then start; ties in the table's order (a stable sort). */
static const struct radix_key state_keys[] = { RADIX_KEY(struct state, tid), RADIX_KEY(struct state, start_ns) };

/* Remove @ns from the CPU pieces of the segment [first, end), from its end:
 * the wrapper ran just before the op. Returns how much it removed. */
static int64_t remove_from_segment(int64_t *pieces, size_t first, size_t end, int64_t ns)
{
	int64_t removed = 0;
	for (size_t i = end; i-- > first && ns > 0;) {
		if (pieces[i] <= 0)
			continue;
		int64_t take = pieces[i] < ns ? pieces[i] : ns;
		pieces[i] -= take;
		ns -= take;
		removed += take;
	}
	return removed;
}

/* Thread @t's piece of state @x within [lo, hi), in the segment whose
 * pieces begin at @seg_first: its running time less the interrupts'
 * (T_0's, given back to T_0 in the simulation), or its time off the CPU,
 * held to T_0's instant when T_0 ended it there. */
static int add_state(struct probe_run *run, struct run_env *env, struct piece_builder *b, size_t seg_first,
		     const struct state *x, int64_t lo, int64_t hi)
{
	if (x->kind == 0) {
		int64_t irq = x->cpu >= 0 ? run_env_irq_within(env, run, x->cpu, lo, hi) : 0;
		if (irq < 0)
			return (int)irq;
		run->irq_ns += irq;
		return piece_add(b, seg_first, hi - lo - irq, true, -1);
	}
	bool instant = hi == x->end_ns && run_env_t0_ended(env, x->tid, x->end_ns);
	run->t0_instants += instant;
	return piece_add(b, seg_first, hi - lo, false, instant ? hi : -1);
}

/* The segments of every thread from its states (thread_states); without
 * any states for a thread, its wall time between events counts as CPU. */
static int build_segments(sqlite3 *db, struct probe_run *run, struct run_env *env, char **err)
{
	struct piece_builder b = { 0 };
	struct state *states = NULL;
	size_t nr_states = 0, cap = 0, at = 0;
	sqlite3_stmt *st;
	int step, rc = 0;

	/* In the table's order, sorted here: see sort_events. */
	if (sqlite3_prepare_v2(db, "SELECT tid, start_ns, end_ns, state, COALESCE(cpu, -1) FROM thread_states", -1,
			       &st, NULL) != SQLITE_OK)
		return sql_fail(db, "thread_states", err);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct state *v = grow_array(states, &cap, nr_states, sizeof(*v), 4096);
		const char *name = (const char *)sqlite3_column_text(st, 3);
		if (!v)
			break;
		states = v;
		states[nr_states++] = (struct state){ sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
						      sqlite3_column_int64(st, 2), sqlite3_column_int(st, 4),
						      !name || !strcmp(name, "running") ? 0
						      : !strcmp(name, "runnable")       ? 1
											: 2 };
	}
	sqlite3_finalize(st);
	if (step != SQLITE_DONE) {
		free(states);
		return step == SQLITE_ROW ? -ENOMEM : sql_fail(db, "thread_states", err);
	}
	if (radix_sort(states, nr_states, sizeof(*states), state_keys, sizeof(state_keys) / sizeof(state_keys[0]))) {
		free(states);
		return -ENOMEM;
	}

	run->nr_segments = run->nr_events + run->nr_threads;
	if (!(run->segment_pieces = calloc((size_t)run->nr_segments + 1, sizeof(int32_t)))) {
		free(states);
		return -ENOMEM;
	}
	int32_t s = 0;
	for (int32_t ti = 0; ti < run->nr_threads && !rc; ti++) {
		struct probe_thread *t = &run->threads[ti];
		const struct probe_event *ev = &run->events[t->first];
		size_t first_state;
		bool has_states;
		t->first_segment = s;
		while (at < nr_states && states[at].tid < t->tid)
			at++;
		first_state = at;
		has_states = at < nr_states && states[at].tid == t->tid;
		for (int32_t k = 0; k <= t->nr_events && !rc; k++, s++) {
			/* [a, c): from this segment's op's start (or the thread's
			 * start) to the next op's start; [a, m) is inside the op. */
			int64_t a = k ? ev[k - 1].start_ns : t->start_ns;
			int64_t m = k ? ev[k - 1].end_ns : a;
			int64_t c = k < t->nr_events ? ev[k].start_ns : t->end_ns;
			size_t seg_first = b.len;
			if (k == 0 && t->nr_events && a > c)
				a = m = c;
			if (m > c)
				m = c;
			run->segment_pieces[s] = (int32_t)b.len;
			if (!has_states) {
				rc = piece_add(&b, seg_first, c - m, true, -1);
			} else {
				for (size_t i = first_state; i < nr_states && states[i].tid == t->tid && !rc; i++) {
					const struct state *x = &states[i];
					if (x->end_ns <= a) {
						first_state = i + 1; /* never needed again */
						continue;
					}
					if (x->start_ns >= c)
						break;
					int64_t lo = x->start_ns > a ? x->start_ns : a, hi = x->end_ns < c ? x->end_ns : c;
					/* inside the op only its running time is the thread's
					 * own; its waits are the model's to decide */
					if (x->kind == 0)
						rc = add_state(run, env, &b, seg_first, x, lo, hi);
					else if (x->kind == 2 && hi > m)
						rc = add_state(run, env, &b, seg_first, x, lo > m ? lo : m, hi);
				}
			}
			for (size_t i = seg_first; i < b.len; i++)
				if (b.v[i] > 0)
					run->cpu_ns += b.v[i];
		}
		at = first_state;
	}
	run->segment_pieces[s] = (int32_t)b.len;
	run->pieces = b.v;
	run->piece_until = b.until;
	free(states);
	return rc;
}

/* Each segment's priority and CPUs: its thread's when the segment's event
 * began (the last segment: when the thread ended). */
static int segment_classes(struct probe_run *run, const struct run_env *env)
{
	run->segment_priority = calloc((size_t)run->nr_segments + 1, sizeof(*run->segment_priority));
	run->segment_cpus = calloc((size_t)run->nr_segments + 1, sizeof(*run->segment_cpus));
	if (!run->segment_priority || !run->segment_cpus)
		return -ENOMEM;
	run->priorities_recorded = run_env_has_classes(env);
	for (int32_t ti = 0; ti < run->nr_threads; ti++) {
		const struct probe_thread *t = &run->threads[ti];
		for (int32_t k = 0; k <= t->nr_events; k++) {
			int64_t at = k < t->nr_events ? run->events[t->first + k].start_ns : t->end_ns;
			int32_t s = t->first_segment + k;
			run_env_class_at(env, t->tid, at, &run->segment_priority[s], &run->segment_cpus[s]);
		}
	}
	return 0;
}

/* Sems at one instant: posts before waits, then in op order. */
static int sem_order_cmp(const void *x, const void *y, void *events)
{
	const struct probe_event *ev = events;
	const struct probe_event *a = &ev[*(const int32_t *)x], *b = &ev[*(const int32_t *)y];
	if (a->object != b->object)
		return a->object < b->object ? -1 : 1;
	if (a->end_ns != b->end_ns)
		return a->end_ns < b->end_ns ? -1 : 1;
	if (a->action != b->action)
		return a->action == PA_SEM_POST ? -1 : 1;
	return a->op_id < b->op_id ? -1 : a->op_id > b->op_id;
}

/* Each semaphore's units at the start (its init or open, else the fewest
 * that let the observed waits succeed in the observed order), and each
 * barrier's count (its init, else its waits per serial thread, else the
 * threads that waited on it). */
static int object_initials(struct probe_run *run)
{
	size_t n_obj = (size_t)run->nr_objects + 1;
	int32_t *order = malloc(((size_t)run->nr_events + 1) * sizeof(*order));
	int64_t *level = calloc(n_obj, sizeof(*level)), *low = calloc(n_obj, sizeof(*low));
	int64_t *serial = calloc(n_obj, sizeof(*serial)), *waits = calloc(n_obj, sizeof(*waits));
	int32_t *last_thread = malloc(n_obj * sizeof(*last_thread));
	int64_t *threads = calloc(n_obj, sizeof(*threads));
	bool *init = calloc(n_obj, sizeof(*init));
	int32_t n = 0;
	int rc = -ENOMEM;

	if (!order || !level || !low || !serial || !waits || !init || !last_thread || !threads)
		goto out;
	for (size_t o = 0; o < n_obj; o++)
		last_thread[o] = -1;
	for (int32_t i = 0; i < run->nr_events; i++) {
		const struct probe_event *e = &run->events[i];
		if (e->action == PA_SEM_INIT || e->action == PA_BARRIER_INIT) {
			if (!init[e->object])
				run->objects[e->object].initial = e->arg;
			init[e->object] = true;
		} else if (e->action == PA_SEM_WAIT || e->action == PA_SEM_POST) {
			order[n++] = i;
		} else if (e->action == PA_BARRIER_WAIT) {
			waits[e->object]++;
			serial[e->object] += e->serial;
			/* events are by thread: a new thread starts a new run */
			if (last_thread[e->object] != e->thread)
				threads[e->object]++;
			last_thread[e->object] = e->thread;
		}
	}
	qsort_r(order, (size_t)n, sizeof(*order), sem_order_cmp, run->events);
	for (int32_t i = 0; i < n; i++) {
		const struct probe_event *e = &run->events[order[i]];
		if (e->action == PA_SEM_POST)
			level[e->object]++;
		else if (e->outcome == PO_OK && --level[e->object] < low[e->object])
			low[e->object] = level[e->object];
	}
	for (int32_t o = 0; o < run->nr_objects; o++) {
		struct probe_object *obj = &run->objects[o];
		if (init[o])
			continue;
		if (!strcmp(obj->kind, "sem"))
			obj->initial = -low[o];
		else if (!strcmp(obj->kind, "barrier"))
			obj->initial = serial[o] ? (waits[o] + serial[o] - 1) / serial[o] : threads[o];
	}
	rc = 0;
out:
	free(order), free(level), free(low), free(serial), free(waits), free(init), free(last_thread), free(threads);
	return rc;
}

void probe_run_remove_overhead(struct probe_run *run)
{
	if (run->overhead_removed)
		return;
	for (int32_t t = 0; t < run->nr_threads; t++)
		for (int32_t k = 0; k <= run->threads[t].nr_events; k++) {
			int32_t s = run->threads[t].first_segment + k;
			size_t first = (size_t)run->segment_pieces[s], end = (size_t)run->segment_pieces[s + 1];
			if (k < run->threads[t].nr_events)
				run->overhead_removed_ns += remove_from_segment(
					run->pieces, first, end, run->events[run->threads[t].first + k].overhead_ns);
			if (run->segment_kernel_ns)
				run->kernel_removed_ns +=
					remove_from_segment(run->pieces, first, end, run->segment_kernel_ns[s]);
		}
	run->overhead_removed = true;
}

int probe_run_load(sqlite3 *db, struct probe_run **out, char **err)
{
	struct probe_run *run;
	struct run_env *env = NULL;
	char *cpus, *switch_ns, *summarized = db_meta_get(db, "detail_until_ns");
	int rc;

	/* The simulation replays every thread's CPU time and every kernel
	 * record's cost: a run whose running intervals and switches were
	 * only added up past a point (mtx collect --detail) has neither. */
	if (summarized) {
		error_set(err, "only its first %.3f s has every event (mtx collect --detail): the probe-effect "
			  "check needs them all; record it with --detail all",
			  (double)(atoll(summarized) - db_run_start_ns(db)) / 1e9);
		free(summarized);
		return -ENOTSUP;
	}
	if (!(run = calloc(1, sizeof(*run))))
		return -ENOMEM;
	run->origin_ns = db_run_start_ns(db);
	cpus = db_meta_get(db, "nr_cpus");
	run->nr_cpus = cpus ? atoi(cpus) : 0;
	if (run->nr_cpus < 1)
		run->nr_cpus = 1;
	free(cpus);
	run->inject = db_meta_get(db, "inject_overhead");
	switch_ns = db_meta_get(db, "cal_sched_switch_ns");
	run->sched_switch_ns = switch_ns ? atoll(switch_ns) : 0;
	if (run->sched_switch_ns < 0)
		run->sched_switch_ns = 0;
	free(switch_ns);
	rc = load_threads(db, run, err);
	if (!rc)
		rc = load_objects(db, run, err);
	if (!rc)
		rc = load_events(db, run, err);
	if (!rc && run->nr_events == 0) {
		error_set(err, "the run has no synchronization ops (was it recorded with the sync source?)");
		rc = -ENODATA;
	}
	if (!rc)
		rc = link_events(run);
	if (!rc)
		rc = load_wakers(db, run, err);
	if (!rc)
		rc = run_env_load(db, &env, err);
	if (!rc)
		rc = build_segments(db, run, env, err);
	if (!rc)
		rc = segment_classes(run, env);
	if (!rc)
		rc = probe_run_load_kernel_costs(db, run, err);
	if (!rc)
		rc = object_initials(run);
	if (!rc) {
		static const struct radix_key by_start[] = { RADIX_KEY(struct probe_irq, start_ns),
							     RADIX_KEY(struct probe_irq, cpu) };
		run->irqs_recorded = run_env_has_irqs(env);
		rc = radix_sort(run->irqs, (size_t)run->nr_irqs, sizeof(*run->irqs), by_start, 2);
	}
	run_env_free(env);
	if (rc) {
		if (rc == -ENOMEM && err && !*err)
			error_set(err, "out of memory");
		probe_run_free(run);
		return rc;
	}
	*out = run;
	return 0;
}
