/*
 * src/derived/histogram.c - see histogram.h; and analysis_histograms (analysis.h),
 * which fills time_histograms (schema/derived.sql): per thread, its running,
 * runnable and blocked time, sync ops and syscalls; per sync object, its ops
 * and the time threads waited on it; every histogram of the run folded to one
 * width so that their buckets line up.
 */
#include "config.h"
#include "src/derived/histogram.h"
#include "src/derived/analysis.h"
#include "src/worker.h"
#include "src/grow.h"
#include "src/sorted.h"
#include "src/derived/timeline.h"
#include "src/thread-states.h"
#include "src/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NR_BUCKETS MTX_HISTOGRAM_BUCKETS
_Static_assert(NR_BUCKETS % 2 == 0, "doubling folds the buckets in pairs");

void histogram_init(struct mtx_histogram *h, int64_t start_ns, int64_t width_ns)
{
	memset(h, 0, sizeof(*h));
	h->start_ns = start_ns;
	h->width_ns = width_ns > 0 ? width_ns : 1;
}

/* Fold each pair of buckets into one twice as wide: new[i] = old[2i] +
 * old[2i+1]; the upper half becomes empty. */
static void histogram_double(struct mtx_histogram *h)
{
	for (int i = 0; i < NR_BUCKETS / 2; i++)
		h->value[i] = h->value[2 * i] + h->value[2 * i + 1];
	memset(&h->value[NR_BUCKETS / 2], 0, sizeof(h->value) / 2);
	h->width_ns *= 2;
}

void histogram_extend(struct mtx_histogram *h, int64_t ts_ns)
{
	/* A division rather than NR_BUCKETS * width_ns, which could overflow. */
	while (ts_ns >= h->start_ns && (ts_ns - h->start_ns) / h->width_ns >= NR_BUCKETS)
		histogram_double(h);
}

/* The bucket of an instant at or after the origin that it was extended to. */
static int bucket_of(const struct mtx_histogram *h, int64_t ts_ns)
{
	return (int)((ts_ns - h->start_ns) / h->width_ns);
}

void histogram_add(struct mtx_histogram *h, int64_t ts_ns, int64_t value)
{
	if (ts_ns < h->start_ns) {
		h->nr_dropped++;
		return;
	}
	histogram_extend(h, ts_ns);
	h->value[bucket_of(h, ts_ns)] += value;
}

void histogram_add_interval(struct mtx_histogram *h, int64_t start_ns, int64_t end_ns)
{
	if (end_ns <= start_ns)
		return;
	if (start_ns < h->start_ns) {
		h->nr_dropped++;
		if (end_ns <= h->start_ns)
			return;
		start_ns = h->start_ns;
	}
	/* Half-open: the interval's last nanosecond is end - 1. */
	histogram_extend(h, end_ns - 1);
	histogram_spread(h->value, NR_BUCKETS, h->start_ns, h->width_ns, start_ns, end_ns);
}

void histogram_spread(int64_t *value, int nr_buckets, int64_t origin_ns, int64_t width_ns, int64_t start_ns,
		      int64_t end_ns)
{
	const int64_t limit = origin_ns + width_ns * nr_buckets;
	if (start_ns < origin_ns)
		start_ns = origin_ns;
	if (end_ns > limit)
		end_ns = limit;
	while (start_ns < end_ns) {
		int64_t b = (start_ns - origin_ns) / width_ns, edge = origin_ns + (b + 1) * width_ns;
		int64_t until = end_ns < edge ? end_ns : edge;
		value[b] += until - start_ns;
		start_ns = until;
	}
}

int histogram_fold_to(struct mtx_histogram *h, int64_t width_ns)
{
	int64_t w = h->width_ns;
	while (w < width_ns && w <= INT64_MAX / 2)
		w *= 2;
	if (w != width_ns)
		return -EINVAL;
	while (h->width_ns < width_ns)
		histogram_double(h);
	return 0;
}

int histogram_is_empty(const struct mtx_histogram *h)
{
	for (int i = 0; i < NR_BUCKETS; i++)
		if (h->value[i])
			return 0;
	return 1;
}

/* ---- sparkline(bucket, value [, nr_buckets]) ----
 * One character per bucket, up to the highest bucket with a row, or to
 * nr_buckets when given: a bucket without a row (time_histograms keeps no
 * zeros) draws as a blank. */

static const char sparkline_ramp[] = " .:-=+*#%@";
#define RAMP_TOP ((int)sizeof(sparkline_ramp) - 2) /* the index of '@' */

/* One group's buckets, zeroed by SQLite when it allocates them. */
struct sparkline {
	int64_t value[NR_BUCKETS];
	int nr_buckets; /* the highest bucket seen + 1 */
};

static void sparkline_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct sparkline *s = sqlite3_aggregate_context(ctx, sizeof(*s));
	int64_t b;

	if (!s) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (argc == 3 && sqlite3_value_int64(argv[2]) > s->nr_buckets) {
		int64_t n = sqlite3_value_int64(argv[2]);
		s->nr_buckets = n < NR_BUCKETS ? (int)n : NR_BUCKETS;
	}
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	b = sqlite3_value_int64(argv[0]);
	if (b < 0 || b >= NR_BUCKETS)
		return;
	s->value[b] += sqlite3_value_int64(argv[1]);
	if (b >= s->nr_buckets)
		s->nr_buckets = (int)b + 1;
}

/* The ramp index of @v in a group whose largest value is @max: '@' for the
 * largest only, the levels between spread evenly over (0, max). Long double
 * so that v * 8 cannot overflow. */
static int sparkline_level(int64_t v, int64_t max)
{
	if (v <= 0)
		return 0;
	if (v >= max)
		return RAMP_TOP;
	return 1 + (int)((long double)v * (RAMP_TOP - 1) / (long double)max);
}

char histogram_ramp(int64_t v, int64_t max)
{
	return sparkline_ramp[sparkline_level(v, max)];
}

/* The largest of a group's buckets (each the sum of its values). */
static int64_t sparkline_max(const struct sparkline *s)
{
	int64_t max = 0;
	for (int i = 0; s && i < s->nr_buckets; i++)
		if (s->value[i] > max)
			max = s->value[i];
	return max;
}

static void sparkline_final(sqlite3_context *ctx)
{
	const struct sparkline *s = sqlite3_aggregate_context(ctx, 0);
	char text[NR_BUCKETS];
	int64_t max = sparkline_max(s);
	int n = s ? s->nr_buckets : 0;

	for (int i = 0; i < n; i++)
		text[i] = sparkline_ramp[sparkline_level(s->value[i], max)];
	sqlite3_result_text(ctx, text, n, SQLITE_TRANSIENT);
}

/* sparkline_peak(bucket, value): what its '@' stands for. */
static void sparkline_peak_final(sqlite3_context *ctx)
{
	sqlite3_result_int64(ctx, sparkline_max(sqlite3_aggregate_context(ctx, 0)));
}

int histogram_register_sql(sqlite3 *db)
{
	int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
	int rc = sqlite3_create_function(db, "sparkline", 2, flags, NULL, NULL, sparkline_step, sparkline_final);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function(db, "sparkline", 3, flags, NULL, NULL, sparkline_step, sparkline_final);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function(db, "sparkline_peak", 2, flags, NULL, NULL, sparkline_step,
					     sparkline_peak_final);
	return rc == SQLITE_OK ? 0 : -EIO;
}

/* ---- analysis_histograms ---- */

/* Every histogram of a run starts 1 µs wide and doubles from there. */
#define INITIAL_WIDTH_NS 1000

enum thread_metric { RUNNING_NS, RUNNABLE_NS, BLOCKED_NS, SYNC_OPS, SYSCALLS, NR_THREAD_METRICS };
static const char *const thread_metrics[NR_THREAD_METRICS] = {
	[RUNNING_NS] = "running_ns", [RUNNABLE_NS] = "runnable_ns", [BLOCKED_NS] = "blocked_ns",
	[SYNC_OPS] = "sync_ops",     [SYSCALLS] = "syscalls",
};

enum object_metric { OPS, WAIT_NS, NR_OBJECT_METRICS };
static const char *const object_metrics[NR_OBJECT_METRICS] = {
	[OPS] = "ops", [WAIT_NS] = "wait_ns",
};

/* The thread metric a state's time counts toward: every wait is blocked. */
static enum thread_metric state_metric(enum thread_state s)
{
	return s == TS_RUNNING ? RUNNING_NS : s == TS_RUNNABLE ? RUNNABLE_NS : BLOCKED_NS;
}
#define NR_STATES NR_THREAD_STATES

/* The threads (by tid) or sync objects (by id) of the run, sorted by id,
 * each with one histogram per metric, allocated when first needed. */
struct subjects {
	const char *kind; /* time_histograms.subject */
	const char *const *metrics;
	int nr_metrics;
	int64_t *id;
	size_t len, cap;
	struct mtx_histogram **h; /* [i * nr_metrics + metric], NULL while empty */
	size_t last;              /* the last one found: point scans come grouped by id */
};

struct run {
	int64_t origin_ns; /* the run's first instant: every histogram's origin */
	int64_t end_ns;    /* its end: the latest thread end or event seen */
	struct subjects threads, objects;
};

static int sql_fail(sqlite3 *db, const char *what, char **err)
{
	error_set(err, "time histograms (%s): %s", what, sqlite3_errmsg(db));
	return sqlite3_errcode(db) == SQLITE_FULL ? -ENOSPC : -EIO;
}

/* Call @row for each row of @sql; stop at the first that fails. Returns 0
 * or -errno (with @err for SQLite's failures). */
static int scan(sqlite3 *db, const char *sql, int (*row)(struct run *, sqlite3_stmt *, void *), struct run *r,
		void *arg, char **err)
{
	sqlite3_stmt *st;
	int rc = 0, step = SQLITE_DONE;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return sql_fail(db, sql, err);
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW)
		rc = row(r, st, arg);
	if (!rc && step != SQLITE_DONE)
		rc = sql_fail(db, sql, err);
	sqlite3_finalize(st);
	return rc;
}

static void note_end(struct run *r, int64_t end_ns)
{
	if (end_ns > r->end_ns)
		r->end_ns = end_ns;
}

/* threads: the run's first instant and its end as far as threads know. */
static int row_run_span(struct run *r, sqlite3_stmt *st, void *arg)
{
	r->origin_ns = sqlite3_column_int64(st, 0);
	r->end_ns = sqlite3_column_int64(st, 1);
	*(int *)arg = sqlite3_column_type(st, 0) != SQLITE_NULL;
	return 0;
}

/* One subject id, in increasing order. */
static int row_subject(struct run *r, sqlite3_stmt *st, void *arg)
{
	struct subjects *s = arg;
	int64_t *id = grow_array(s->id, &s->cap, s->len, sizeof(*id), 256);
	if (!id)
		return -ENOMEM;
	s->id = id;
	s->id[s->len++] = sqlite3_column_int64(st, 0);
	return 0;
}

static int subjects_alloc_histograms(struct subjects *s)
{
	s->h = calloc(s->len ? s->len * (size_t)s->nr_metrics : 1, sizeof(*s->h));
	return s->h ? 0 : -ENOMEM;
}

static void subjects_free(struct subjects *s)
{
	for (size_t i = 0; s->h && i < s->len * (size_t)s->nr_metrics; i++)
		free(s->h[i]);
	free(s->h);
	free(s->id);
}

/* The histogram of subject @id's @metric, created empty when new; NULL in
 * *@out for an id the run does not list (such rows are left out). Returns 0
 * or -ENOMEM. */
static int histogram_of(const struct run *r, struct subjects *s, int64_t id, int metric, struct mtx_histogram **out)
{
	size_t i;
	struct mtx_histogram **slot;

	*out = NULL;
	if (s->last < s->len && s->id[s->last] == id) {
		i = s->last;
	} else {
		i = sorted_first(s->id, s->len, sizeof(*s->id), 0, id, false);
		if (i == s->len || s->id[i] != id)
			return 0;
		s->last = i;
	}
	slot = &s->h[i * (size_t)s->nr_metrics + (size_t)metric];
	if (!*slot) {
		*slot = malloc(sizeof(**slot));
		if (!*slot)
			return -ENOMEM;
		histogram_init(*slot, r->origin_ns, INITIAL_WIDTH_NS);
	}
	*out = *slot;
	return 0;
}

/* One event of @metric of subject @id at @ts_ns. */
static int add_point(struct run *r, struct subjects *s, int64_t id, int metric, int64_t ts_ns)
{
	struct mtx_histogram *h;
	int rc = histogram_of(r, s, id, metric, &h);

	if (rc || !h)
		return rc;
	histogram_add(h, ts_ns, 1);
	note_end(r, ts_ns + 1);
	return 0;
}

/* A thread_states interval of @tid, to its thread's metric for the state
 * (@metric, -1 for a state this build does not know: left out) and, when
 * blocked_sync on an object, to the object's wait_ns. */
static int add_state(struct run *r, int64_t tid, const struct tl_state *s, int metric, int blocked_sync)
{
	struct mtx_histogram *h;
	int rc;

	if (metric < 0)
		return 0;
	note_end(r, s->end_ns);
	rc = histogram_of(r, &r->threads, tid, metric, &h);
	if (rc)
		return rc;
	if (h)
		histogram_add_interval(h, s->start_ns, s->end_ns);
	if (!blocked_sync || !(s->flags & TL_HAS_OBJECT))
		return 0;
	rc = histogram_of(r, &r->objects, s->object_id, WAIT_NS, &h);
	if (!rc && h)
		histogram_add_interval(h, s->start_ns, s->end_ns);
	return rc;
}

/* Fold @s's non-empty histograms to @width_ns and insert their first
 * @nr_buckets buckets with @ins. */
static int write_subjects(sqlite3 *db, const struct subjects *s, sqlite3_stmt *ins, int64_t width_ns,
			  int nr_buckets, char **err)
{
	for (size_t i = 0; i < s->len; i++) {
		for (int m = 0; m < s->nr_metrics; m++) {
			struct mtx_histogram *h = s->h[i * (size_t)s->nr_metrics + (size_t)m];
			if (!h || histogram_is_empty(h))
				continue;
			if (histogram_fold_to(h, width_ns)) {
				/* Cannot be: every width is 1 µs times a power of two. */
				error_set(err, "time histograms: widths do not line up");
				return -EINVAL;
			}
			for (int b = 0; b < nr_buckets; b++) {
				if (!histogram_value(h, b))
					continue; /* schema/derived.sql: no row for a 0 */
				sqlite3_bind_text(ins, 1, s->kind, -1, SQLITE_STATIC);
				sqlite3_bind_int64(ins, 2, s->id[i]);
				sqlite3_bind_text(ins, 3, s->metrics[m], -1, SQLITE_STATIC);
				sqlite3_bind_int(ins, 4, b);
				sqlite3_bind_int64(ins, 5, histogram_bucket_start_ns(h, b));
				sqlite3_bind_int64(ins, 6, width_ns);
				sqlite3_bind_int64(ins, 7, histogram_value(h, b));
				if (sqlite3_step(ins) != SQLITE_DONE)
					return sql_fail(db, "inserting into time_histograms", err);
				sqlite3_reset(ins);
			}
		}
	}
	return 0;
}

/* The widest histogram of @s, at least @width_ns. */
static int64_t widest(const struct subjects *s, int64_t width_ns)
{
	for (size_t i = 0; i < s->len * (size_t)s->nr_metrics; i++)
		if (s->h[i] && histogram_width_ns(s->h[i]) > width_ns)
			width_ns = histogram_width_ns(s->h[i]);
	return width_ns;
}

/* One width for the whole run: wide enough for its end to fall in the last
 * bucket at most, and no narrower than any histogram reached. Then write. */
static int write_run(sqlite3 *db, struct run *r, char **err)
{
	struct mtx_histogram span;
	sqlite3_stmt *ins;
	int64_t width_ns;
	int rc, nr_buckets;

	if (r->end_ns <= r->origin_ns)
		r->end_ns = r->origin_ns + 1;
	histogram_init(&span, r->origin_ns, INITIAL_WIDTH_NS);
	histogram_extend(&span, r->end_ns - 1);
	width_ns = widest(&r->objects, widest(&r->threads, histogram_width_ns(&span)));
	nr_buckets = (int)((r->end_ns - 1 - r->origin_ns) / width_ns) + 1;

	char sql[128];
	snprintf(sql, sizeof(sql), "INSERT INTO histogram_buckets VALUES (%lld, %lld, %d)", (long long)r->origin_ns,
		 (long long)width_ns, nr_buckets);
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return sql_fail(db, "inserting into histogram_buckets", err);
	if (sqlite3_prepare_v2(db, "INSERT INTO time_histograms VALUES (?, ?, ?, ?, ?, ?, ?)", -1, &ins, NULL) !=
	    SQLITE_OK)
		return sql_fail(db, "preparing the insert", err);
	rc = write_subjects(db, &r->threads, ins, width_ns, nr_buckets, err);
	if (!rc)
		rc = write_subjects(db, &r->objects, ins, width_ns, nr_buckets, err);
	sqlite3_finalize(ins);
	return rc;
}

/* The threads (tid) and objects (id) the histograms are kept for, each
 * with room for its histograms. */
static int find_subjects(sqlite3 *db, struct run *r, char **err)
{
	int rc = scan(db, "SELECT DISTINCT tid FROM threads ORDER BY tid", row_subject, r, &r->threads, err);
	if (!rc)
		rc = scan(db, "SELECT id FROM sync_objects ORDER BY id", row_subject, r, &r->objects, err);
	if (!rc)
		rc = subjects_alloc_histograms(&r->threads);
	if (!rc)
		rc = subjects_alloc_histograms(&r->objects);
	return rc;
}

/*
 * Feed the histograms from the timeline, thread by thread (no SQL: this
 * may run on a thread of its own). Order does not change the result:
 * folding is exact, so a histogram ends the same whatever order it was fed
 * in.
 */
static int fill_run(struct run *r, const struct mtx_timeline *tl)
{
	int metric_of[NR_STATES + 1], rc = 0;
	uint16_t state_ids[NR_STATES], blocked_sync = timeline_intern_find(tl, thread_state_name(TS_BLOCKED_SYNC));

	for (size_t k = 0; k < NR_STATES; k++) {
		state_ids[k] = timeline_intern_find(tl, thread_state_name((enum thread_state)k));
		metric_of[k] = (int)state_metric((enum thread_state)k);
	}
	for (size_t i = 0; i < tl->nr_threads && !rc; i++) {
		const struct tl_thread *t = &tl->threads[i];
		for (size_t j = 0; j < t->nr_states && !rc; j++) {
			size_t k = 0;
			while (k < NR_STATES && t->states[j].state != state_ids[k])
				k++;
			rc = add_state(r, t->tid, &t->states[j], k < NR_STATES ? metric_of[k] : -1,
				       t->states[j].state == blocked_sync);
		}
		for (size_t j = 0; j < t->nr_ops && !rc; j++) {
			rc = add_point(r, &r->threads, t->tid, SYNC_OPS, t->ops[j].start_ns);
			if (!rc)
				rc = add_point(r, &r->objects, t->ops[j].object_id, OPS, t->ops[j].start_ns);
		}
		for (size_t j = 0; j < t->nr_syscalls && !rc; j++)
			rc = add_point(r, &r->threads, t->tid, SYSCALLS, t->syscalls[j].start_ns);
	}
	return rc;
}

struct histogram_job {
	struct run r;
	const struct mtx_timeline *tl;
	int has_threads;
	struct worker thread;
};

static int fill_job(void *arg)
{
	struct histogram_job *j = arg;
	return fill_run(&j->r, j->tl);
}

int analysis_histograms_start(sqlite3 *db, const struct mtx_timeline *tl, struct histogram_job **out, char **err)
{
	struct histogram_job *j = calloc(1, sizeof(*j));
	int rc;

	*out = j;
	if (!j)
		return -ENOMEM;
	j->tl = tl;
	j->r = (struct run){
		.threads = { .kind = "thread", .metrics = thread_metrics, .nr_metrics = NR_THREAD_METRICS },
		.objects = { .kind = "object", .metrics = object_metrics, .nr_metrics = NR_OBJECT_METRICS },
	};
	rc = scan(db, "SELECT MIN(start_ns), MAX(COALESCE(end_ns, start_ns)) FROM threads", row_run_span, &j->r,
		  &j->has_threads, err);
	if (!rc && j->has_threads)
		rc = find_subjects(db, &j->r, err);
	if (!rc && j->has_threads)
		worker_start(&j->thread, fill_job, j);
	return rc;
}

int analysis_histograms_finish(sqlite3 *db, struct histogram_job *j, char **err)
{
	int rc;
	if (!j)
		return -ENOMEM;
	rc = j->has_threads ? worker_join(&j->thread) : 0;
	if (!rc && j->has_threads && db)
		rc = write_run(db, &j->r, err);
	if (rc == -ENOMEM)
		error_set(err, "time histograms: out of memory");
	subjects_free(&j->r.threads);
	subjects_free(&j->r.objects);
	free(j);
	return rc;
}

int analysis_histograms(sqlite3 *db, const struct mtx_timeline *tl, char **err)
{
	struct histogram_job *j;
	int rc = analysis_histograms_start(db, tl, &j, err);
	int done = analysis_histograms_finish(rc ? NULL : db, j, rc ? NULL : err);
	return rc ? rc : done;
}
