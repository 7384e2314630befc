/*
 * src/derived/timeline-levels.c - analysis_timeline_levels_start/_finish
 * (analysis.h): fills
 * timeline_levels (schema/derived.sql), each busy thread's states and events
 * at coarser resolutions, so that the browser draws a zoomed-out lane from a
 * few bytes per column stored together instead of thousands of lookups
 * scattered over thread_states, sync_ops and syscalls (a 10 M-event run:
 * ~7000 per frame, 150-300 ms).
 *
 * Level L cuts time into buckets of 4^L ns counted from 0. A bucket gets the
 * state that covered most of it and its event: the object kind of its first
 * sync op, else "syscall" when a syscall began in it; both as one byte
 * (src/derived/timeline-levels.h), TL_LEVEL_CHUNK buckets to a row. A thread's levels
 * go from the coarsest (one bucket holds its whole run) down to the last
 * whose buckets are at least its mean state long: below that the browser
 * reads thread_states itself (a window of a few states per column), and
 * finer levels would hold more buckets than the thread has states. On a
 * 10 M-event run (2.4 M states): 1.7 MB in ~0.9 k rows. (Rows of runs of alike
 * buckets, one per run, took 0.74 M rows, 31 MB and ~1.5 s of CPU to insert.)
 * Threads with fewer than LEVELS_MIN_EVENTS states, ops and syscalls get
 * none: their lanes are read exactly at any zoom.
 */
#include "config.h"
#include "src/derived/analysis.h"
#include "src/worker.h"
#include "src/grow.h"
#include "src/derived/timeline.h"
#include "src/derived/timeline-levels.h"
#include "src/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEVELS_MIN_EVENTS 1024
#define MAX_STATES 16 /* distinct states within one bucket */

/* One row of timeline_levels, kept until it is inserted. */
struct level_row {
	int64_t tid, start_ns;
	int level, len;
	uint8_t *buckets;
};

/* The rows, computed on a thread of their own (src/derived/analysis.c) while the
 * other analyses insert theirs: ~1 k rows, ~2 MB on a 10 M-event run. */
struct levels_job {
	const struct mtx_timeline *tl;
	struct level_row *rows;
	size_t nr_rows, cap_rows;
	struct worker thread;
};

/* The level being computed: its chunk of buckets, flushed as a row. */
struct level {
	struct levels_job *job;
	int64_t tid, width_ns, chunk; /* chunk: its first bucket / TL_LEVEL_CHUNK */
	int level, lo, used;          /* the first bucket set, one past the last */
	uint8_t bytes[TL_LEVEL_CHUNK];
};

/* Keep the chunk as a row, when it holds anything. Returns 0 or -ENOMEM. */
static int level_flush(struct level *lv)
{
	struct levels_job *j = lv->job;
	if (!lv->used)
		return 0;
	struct level_row *rows = grow_array(j->rows, &j->cap_rows, j->nr_rows, sizeof(*rows), 256);
	uint8_t *buckets = malloc((size_t)(lv->used - lv->lo));
	if (!rows || !buckets) {
		free(buckets);
		return -ENOMEM;
	}
	j->rows = rows;
	memcpy(buckets, lv->bytes + lv->lo, (size_t)(lv->used - lv->lo));
	rows[j->nr_rows++] = (struct level_row){
		.tid = lv->tid, .start_ns = (lv->chunk * TL_LEVEL_CHUNK + lv->lo) * lv->width_ns,
		.level = lv->level, .len = lv->used - lv->lo, .buckets = buckets,
	};
	lv->used = 0;
	memset(lv->bytes, 0, sizeof(lv->bytes));
	return 0;
}

/* Set @n buckets from bucket @first (later than any set before) to @code. */
static int level_set(struct level *lv, int64_t first, int64_t n, uint8_t code)
{
	int rc = 0;
	while (!rc && n > 0) {
		if (first / TL_LEVEL_CHUNK != lv->chunk) {
			rc = level_flush(lv);
			lv->chunk = first / TL_LEVEL_CHUNK;
		}
		int64_t i = first % TL_LEVEL_CHUNK, k = n < TL_LEVEL_CHUNK - i ? n : TL_LEVEL_CHUNK - i;
		if (!lv->used)
			lv->lo = (int)i;
		memset(lv->bytes + i, code, (size_t)k);
		lv->used = (int)(i + k);
		first += k;
		n -= k;
	}
	return rc;
}

/* The code of @name in @names (@nr of them, 0 unused), else @other. */
static uint8_t code_of(const char *name, const char *const *names, size_t nr, uint8_t other)
{
	for (size_t c = 1; name && c < nr; c++)
		if (!strcmp(name, names[c]))
			return (uint8_t)c;
	return name ? other : 0;
}

/* A bucket's byte: @state (an interned thread_states.state or TL_NONE)
 * and @event (a kind, "syscall" or NULL). */
static uint8_t bucket_code(const struct mtx_timeline *tl, uint16_t state, const char *event)
{
	static const size_t nr_states = sizeof(timeline_level_states) / sizeof(timeline_level_states[0]);
	static const size_t nr_events = sizeof(timeline_level_events) / sizeof(timeline_level_events[0]);
	uint8_t s = code_of(timeline_string(tl, state), timeline_level_states, nr_states, (uint8_t)(nr_states - 1));
	uint8_t e = code_of(event, timeline_level_events, nr_events, (uint8_t)(nr_events - 1));
	return (uint8_t)(s | e << TL_LEVEL_EVENT_SHIFT);
}

/* The kind of @op's object ("?" when it is not known). */
static const char *op_kind(const struct mtx_timeline *tl, const struct tl_op *op)
{
	const struct tl_object *o = timeline_object(tl, op->object_id);
	const char *kind = o ? timeline_string(tl, o->kind) : NULL;
	return kind ? kind : "?";
}

/* Keep the buckets of @t at lv->width_ns. Returns 0 or -ENOMEM. */
static int level_fill(const struct mtx_timeline *tl, const struct tl_thread *t, struct level *lv)
{
	const int64_t none = INT64_MAX, width_ns = lv->width_ns;
	size_t i = 0, j = 0, k = 0;
	int64_t from = 0; /* everything before it is done */
	int rc = 0;
	lv->chunk = -1;
	while (!rc) {
		/* Past what ended before @from. */
		while (i < t->nr_states && t->states[i].end_ns <= from)
			i++;
		while (j < t->nr_ops && t->ops[j].start_ns < from)
			j++;
		while (k < t->nr_syscalls && t->syscalls[k].start_ns < from)
			k++;
		int64_t next_state = i < t->nr_states ? (t->states[i].start_ns > from ? t->states[i].start_ns : from) : none;
		int64_t next_op = j < t->nr_ops ? t->ops[j].start_ns : none, next_sys = k < t->nr_syscalls ? t->syscalls[k].start_ns : none;
		int64_t at = next_state < next_op ? next_state : next_op;
		at = at < next_sys ? at : next_sys;
		if (at == none)
			return level_flush(lv);
		int64_t a = at - at % width_ns, z = a + width_ns;
		/* Whole buckets inside one state and without events: one piece. */
		if (next_state == at && at == a) {
			int64_t stop = t->states[i].end_ns;
			stop = stop < next_op ? stop : next_op;
			stop = stop < next_sys ? stop : next_sys;
			int64_t full_end = stop - stop % width_ns;
			if (full_end > a) {
				rc = level_set(lv, a / width_ns, (full_end - a) / width_ns, bucket_code(tl, t->states[i].state, NULL));
				from = full_end;
				continue;
			}
		}
		/* One bucket, [a, z): what covered most of it, and its first event. */
		uint16_t ids[MAX_STATES];
		int64_t cover[MAX_STATES];
		int nr_ids = 0;
		for (size_t s = i; s < t->nr_states && t->states[s].start_ns < z; s++) {
			int64_t s0 = t->states[s].start_ns > a ? t->states[s].start_ns : a;
			int64_t s1 = t->states[s].end_ns < z ? t->states[s].end_ns : z;
			if (s1 <= s0)
				continue;
			int n = 0;
			while (n < nr_ids && ids[n] != t->states[s].state)
				n++;
			if (n == nr_ids && nr_ids < MAX_STATES) {
				ids[nr_ids] = t->states[s].state;
				cover[nr_ids++] = 0;
			}
			if (n < nr_ids)
				cover[n] += s1 - s0;
		}
		uint16_t state = TL_NONE;
		int64_t best = 0;
		for (int n = 0; n < nr_ids; n++)
			if (cover[n] > best)
				best = cover[n], state = ids[n];
		const char *event = next_op < z ? op_kind(tl, &t->ops[j]) : next_sys < z ? "syscall" : NULL;
		rc = level_set(lv, a / width_ns, 1, bucket_code(tl, state, event));
		from = z;
	}
	return rc;
}

/* The first and last instant of anything @t recorded, and the mean length
 * of its states. */
static void thread_span(const struct tl_thread *t, int64_t *first, int64_t *last, int64_t *mean_state_ns)
{
	int64_t sum = 0;
	*first = INT64_MAX;
	*last = INT64_MIN;
	if (t->nr_states) {
		*first = t->states[0].start_ns;
		for (size_t s = 0; s < t->nr_states; s++) {
			*last = t->states[s].end_ns > *last ? t->states[s].end_ns : *last;
			sum += t->states[s].end_ns - t->states[s].start_ns;
		}
	}
	*mean_state_ns = t->nr_states ? sum / (int64_t)t->nr_states : 0;
	if (t->nr_ops) {
		*first = t->ops[0].start_ns < *first ? t->ops[0].start_ns : *first;
		*last = t->ops[t->nr_ops - 1].start_ns > *last ? t->ops[t->nr_ops - 1].start_ns : *last;
	}
	if (t->nr_syscalls) {
		*first = t->syscalls[0].start_ns < *first ? t->syscalls[0].start_ns : *first;
		*last = t->syscalls[t->nr_syscalls - 1].start_ns > *last ? t->syscalls[t->nr_syscalls - 1].start_ns : *last;
	}
}

/* Every busy thread's levels, as rows of @arg (a levels_job). */
static int fill_levels(void *arg)
{
	struct levels_job *j = arg;
	const struct mtx_timeline *tl = j->tl;
	struct level *lv = calloc(1, sizeof(*lv));
	int rc = lv ? 0 : -ENOMEM;

	for (size_t n = 0; !rc && n < tl->nr_threads; n++) {
		const struct tl_thread *t = &tl->threads[n];
		size_t events = t->nr_states + t->nr_ops + t->nr_syscalls;
		int64_t first, last, mean_state_ns;
		if (events < LEVELS_MIN_EVENTS)
			continue;
		thread_span(t, &first, &last, &mean_state_ns);
		if (first < 0)
			continue; /* buckets count from 0 */
		/* From the finest level to the coarsest, in the table's order. */
		int finest = 1, coarsest = 1;
		while (finest < 30 && ((int64_t)1 << (2 * finest)) < mean_state_ns)
			finest++;
		while (coarsest < 30 && ((int64_t)1 << (2 * coarsest)) < last - first)
			coarsest++;
		for (int level = finest; !rc && level <= coarsest; level++) {
			lv->job = j;
			lv->tid = t->tid;
			lv->level = level;
			lv->width_ns = (int64_t)1 << (2 * level);
			rc = level_fill(tl, t, lv);
		}
	}
	free(lv);
	return rc;
}

int analysis_timeline_levels_start(const struct mtx_timeline *tl, struct levels_job **out)
{
	struct levels_job *j = calloc(1, sizeof(*j));
	*out = j;
	if (!j)
		return -ENOMEM;
	j->tl = tl;
	worker_start(&j->thread, fill_levels, j);
	return 0;
}

int analysis_timeline_levels_finish(sqlite3 *db, struct levels_job *j, char **err)
{
	sqlite3_stmt *ins = NULL;
	int rc = worker_join(&j->thread);

	if (!rc && db &&
	    sqlite3_prepare_v2(db, "INSERT INTO timeline_levels (tid, level, start_ns, buckets) VALUES (?, ?, ?, ?)",
			       -1, &ins, NULL) != SQLITE_OK)
		rc = -EIO;
	for (size_t i = 0; !rc && db && i < j->nr_rows; i++) {
		const struct level_row *r = &j->rows[i];
		sqlite3_bind_int64(ins, 1, r->tid);
		sqlite3_bind_int(ins, 2, r->level);
		sqlite3_bind_int64(ins, 3, r->start_ns);
		sqlite3_bind_blob(ins, 4, r->buckets, r->len, SQLITE_STATIC);
		rc = sqlite3_step(ins) == SQLITE_DONE ? 0 : -EIO;
		sqlite3_reset(ins);
	}
	sqlite3_finalize(ins);
	if (rc)
		error_set(err, "timeline levels: %s", rc == -ENOMEM ? "out of memory" : sqlite3_errmsg(db));
	for (size_t i = 0; i < j->nr_rows; i++)
		free(j->rows[i].buckets);
	free(j->rows);
	free(j);
	return rc;
}
