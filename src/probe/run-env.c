/* src/probe/run-env.c - see run-env.h. Whole-table scans into sorted
 * arrays, binary searches after: run.c asks once per thread state. */
#include "config.h"
#include "src/probe/run-env.h"
#include "src/db.h"
#include "src/error.h"
#include "src/grow.h"
#include "src/radix-sort.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How far back a handler is looked for that covers a wakeup: a softirq
 * yields after 2 ms (MAX_SOFTIRQ_TIME), hard handlers are far shorter
 * (the external_events view looks as far). */
#define HANDLER_LOOKBACK_NS 20000000

struct handler {
	int64_t start_ns, end_ns;
	int32_t cpu;
	bool timed; /* a timer's: an hrtimer expiry, or a softirq of timers or housekeeping */
};

struct t0_wakeup {
	int64_t wakee_tid, ts_ns;
};

struct class_row {
	int64_t tid, ts_ns;
	int32_t priority;
	uint64_t cpus;
};

struct run_env {
	struct handler *handlers; /* by (cpu, start) */
	size_t nr_handlers;
	struct handler *busy;     /* their union per CPU: disjoint, by (cpu, start) */
	size_t nr_busy;
	struct t0_wakeup *ended;  /* wakeups that end a wait at T_0's instant, by (tid, ts) */
	size_t nr_ended;
	struct class_row *classes; /* by (tid, ts) */
	size_t nr_classes;
	size_t cap_irqs;          /* of the run's irqs, which run_env_irq_within appends to */
};

static int sql_fail(sqlite3 *db, const char *what, char **err)
{
	error_set(err, "reading %s: %s", what, sqlite3_errmsg(db));
	return db_error_is_corrupt(sqlite3_errcode(db)) ? -EIO : -EINVAL;
}

/* Handlers that end a sleep or a timeout, or do the kernel's own rounds:
 * what they wake would have woken a duration after it slept either way. */
static bool timed_handler(const char *kind, const char *name)
{
	static const char *const timed_softirqs[] = { "TIMER", "HRTIMER", "RCU", "SCHED", NULL };
	if (!kind || !strcmp(kind, "timer"))
		return true;
	if (strcmp(kind, "softirq") || !name)
		return false;
	for (int i = 0; timed_softirqs[i]; i++)
		if (!strcmp(name, timed_softirqs[i]))
			return true;
	return false;
}

static int load_handlers(sqlite3 *db, struct run_env *env, char **err)
{
	sqlite3_stmt *st;
	size_t cap = 0, cap_busy = 0;
	int step;
	if (!db_has_table(db, "interrupts"))
		return 0;
	if (sqlite3_prepare_v2(db, "SELECT cpu, start_ns, end_ns, kind, name FROM interrupts ORDER BY cpu, start_ns",
			       -1, &st, NULL) != SQLITE_OK)
		return sql_fail(db, "interrupts", err);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct handler h = { .cpu = sqlite3_column_int(st, 0), .start_ns = sqlite3_column_int64(st, 1),
				     .end_ns = sqlite3_column_int64(st, 2),
				     .timed = timed_handler((const char *)sqlite3_column_text(st, 3),
							    (const char *)sqlite3_column_text(st, 4)) };
		struct handler *v;
		if (h.end_ns < h.start_ns)
			continue;
		if (!(v = grow_array(env->handlers, &cap, env->nr_handlers, sizeof(*v), 1024)))
			break;
		env->handlers = v;
		env->handlers[env->nr_handlers++] = h;
		/* the union: a nested handler lies inside the one before it */
		struct handler *last = env->nr_busy ? &env->busy[env->nr_busy - 1] : NULL;
		if (last && last->cpu == h.cpu && h.start_ns <= last->end_ns) {
			if (h.end_ns > last->end_ns)
				last->end_ns = h.end_ns;
			continue;
		}
		if (!(v = grow_array(env->busy, &cap_busy, env->nr_busy, sizeof(*v), 1024)))
			break;
		env->busy = v;
		env->busy[env->nr_busy++] = h;
	}
	sqlite3_finalize(st);
	if (step == SQLITE_ROW)
		return -ENOMEM;
	return step == SQLITE_DONE ? 0 : sql_fail(db, "interrupts", err);
}

/* The first of @v[0..n) (by (cpu, start)) on @cpu that ends after @ns,
 * or n. */
static size_t first_ending_after(const struct handler *v, size_t n, int32_t cpu, int64_t ns)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].cpu < cpu || (v[mid].cpu == cpu && v[mid].end_ns <= ns))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The innermost handler on @cpu running at @ns (the last to begin by
 * then that had not ended), or NULL. */
static const struct handler *handler_at(const struct run_env *env, int32_t cpu, int64_t ns)
{
	size_t lo = 0, hi = env->nr_handlers;
	while (lo < hi) { /* the first that begins after ns */
		size_t mid = lo + (hi - lo) / 2;
		const struct handler *h = &env->handlers[mid];
		if (h->cpu < cpu || (h->cpu == cpu && h->start_ns <= ns))
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0) {
		const struct handler *h = &env->handlers[lo];
		if (h->cpu != cpu || h->start_ns < ns - HANDLER_LOOKBACK_NS)
			return NULL;
		if (h->end_ns >= ns)
			return h;
	}
	return NULL;
}

/* The wakeups of traced threads that T_0 made at an instant of its own:
 * by a task outside the traced ones, or (when the run recorded them) in
 * a device's interrupt handler. */
static int load_ended(sqlite3 *db, struct run_env *env, char **err)
{
	static const struct radix_key by_wakee[] = { RADIX_KEY(struct t0_wakeup, wakee_tid),
						     RADIX_KEY(struct t0_wakeup, ts_ns) };
	sqlite3_stmt *st;
	size_t cap = 0;
	int step;
	/* A scan in the table's order (an index's order would read the table
	 * at random): most wakeups are the traced threads' own, and go. */
	if (sqlite3_prepare_v2(db, env->nr_handlers
				   ? "SELECT wakee_tid, ts_ns, waker_tid, cpu FROM wakeups WHERE waker_tid = 0 OR "
				     "waker_tid NOT IN (SELECT tid FROM threads)"
				   : "SELECT wakee_tid, ts_ns, waker_tid, cpu FROM wakeups WHERE waker_tid <> 0 AND "
				     "waker_tid NOT IN (SELECT tid FROM threads)",
			       -1, &st, NULL) != SQLITE_OK)
		return sql_fail(db, "wakeups", err);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t wakee = sqlite3_column_int64(st, 0), ts = sqlite3_column_int64(st, 1);
		int64_t waker = sqlite3_column_int64(st, 2);
		struct t0_wakeup *v;
		if (waker == 0) {
			const struct handler *h = handler_at(env, sqlite3_column_int(st, 3), ts);
			if (!h || h->timed)
				continue;
		}
		if (!(v = grow_array(env->ended, &cap, env->nr_ended, sizeof(*v), 256)))
			break;
		env->ended = v;
		env->ended[env->nr_ended++] = (struct t0_wakeup){ wakee, ts };
	}
	sqlite3_finalize(st);
	if (step == SQLITE_ROW)
		return -ENOMEM;
	if (step != SQLITE_DONE)
		return sql_fail(db, "wakeups", err);
	return radix_sort(env->ended, env->nr_ended, sizeof(*env->ended), by_wakee, 2);
}

/* "0-3,8,10-15" as a mask of CPUs 0..63; 0 (any) when empty, or when it
 * names a CPU past 63 or cannot be read. */
static uint64_t parse_cpus(const char *text)
{
	uint64_t mask = 0;
	if (!text)
		return 0;
	while (*text) {
		char *end;
		long a = strtol(text, &end, 10), b = a;
		if (end == text || a < 0)
			return 0;
		if (*end == '-') {
			text = end + 1;
			b = strtol(text, &end, 10);
			if (end == text || b < a)
				return 0;
		}
		if (b > 63)
			return 0;
		for (long c = a; c <= b; c++)
			mask |= 1ULL << c;
		text = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return 0;
	}
	return mask;
}

static int load_classes(sqlite3 *db, struct run_env *env, char **err)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int step;
	char sql[160];
	if (!db_has_column(db, "thread_sched", "priority"))
		return 0;
	snprintf(sql, sizeof(sql), "SELECT tid, ts_ns, priority, %s FROM thread_sched ORDER BY tid, ts_ns",
		 db_has_column(db, "thread_sched", "cpus_allowed") ? "cpus_allowed" : "NULL");
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return sql_fail(db, "thread_sched", err);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct class_row *v = grow_array(env->classes, &cap, env->nr_classes, sizeof(*v), 64);
		if (!v)
			break;
		env->classes = v;
		env->classes[env->nr_classes++] = (struct class_row){
			.tid = sqlite3_column_int64(st, 0), .ts_ns = sqlite3_column_int64(st, 1),
			.priority = sqlite3_column_int(st, 2),
			.cpus = parse_cpus((const char *)sqlite3_column_text(st, 3)) };
	}
	sqlite3_finalize(st);
	if (step == SQLITE_ROW)
		return -ENOMEM;
	return step == SQLITE_DONE ? 0 : sql_fail(db, "thread_sched", err);
}

int run_env_load(sqlite3 *db, struct run_env **out, char **err)
{
	struct run_env *env = calloc(1, sizeof(*env));
	int rc;
	if (!env)
		return -ENOMEM;
	rc = load_handlers(db, env, err);
	if (!rc)
		rc = load_ended(db, env, err);
	if (!rc)
		rc = load_classes(db, env, err);
	if (rc) {
		run_env_free(env);
		return rc;
	}
	*out = env;
	return 0;
}

int64_t run_env_irq_within(struct run_env *env, struct probe_run *run, int32_t cpu, int64_t lo_ns, int64_t hi_ns)
{
	int64_t total = 0;
	for (size_t i = first_ending_after(env->busy, env->nr_busy, cpu, lo_ns);
	     i < env->nr_busy && env->busy[i].cpu == cpu && env->busy[i].start_ns < hi_ns; i++) {
		struct probe_irq *v;
		int64_t a = env->busy[i].start_ns > lo_ns ? env->busy[i].start_ns : lo_ns;
		int64_t b = env->busy[i].end_ns < hi_ns ? env->busy[i].end_ns : hi_ns;
		if (b <= a)
			continue;
		if (!(v = grow_array(run->irqs, &env->cap_irqs, (size_t)run->nr_irqs, sizeof(*v), 1024)))
			return -ENOMEM;
		run->irqs = v;
		run->irqs[run->nr_irqs++] = (struct probe_irq){ a, b, cpu };
		total += b - a;
	}
	return total;
}

bool run_env_t0_ended(const struct run_env *env, int64_t tid, int64_t ts_ns)
{
	size_t lo = 0, hi = env->nr_ended;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct t0_wakeup *w = &env->ended[mid];
		if (w->wakee_tid < tid || (w->wakee_tid == tid && w->ts_ns < ts_ns))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < env->nr_ended && env->ended[lo].wakee_tid == tid && env->ended[lo].ts_ns == ts_ns;
}

void run_env_class_at(const struct run_env *env, int64_t tid, int64_t ts_ns, int32_t *priority, uint64_t *cpus)
{
	size_t lo = 0, hi = env->nr_classes, found;
	while (lo < hi) { /* the first row of tid */
		size_t mid = lo + (hi - lo) / 2;
		if (env->classes[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	*priority = 0;
	*cpus = 0;
	if (lo >= env->nr_classes || env->classes[lo].tid != tid)
		return;
	for (found = lo; lo < env->nr_classes && env->classes[lo].tid == tid && env->classes[lo].ts_ns <= ts_ns; lo++)
		found = lo;
	*priority = env->classes[found].priority;
	*cpus = env->classes[found].cpus;
}

bool run_env_has_irqs(const struct run_env *env)
{
	return env->nr_handlers > 0;
}

bool run_env_has_classes(const struct run_env *env)
{
	return env->nr_classes > 0;
}

void run_env_free(struct run_env *env)
{
	if (!env)
		return;
	free(env->handlers);
	free(env->busy);
	free(env->ended);
	free(env->classes);
	free(env);
}
