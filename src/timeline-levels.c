/*
 * src/timeline-levels.c - analysis_timeline_levels (analysis.h): fills
 * timeline_levels (schema/derived.sql), each busy thread's states and events
 * at coarser resolutions, so that the browser draws a zoomed-out lane from a
 * few hundred rows stored together instead of thousands of lookups
 * scattered over thread_states, sync_ops and syscalls (a 10 M-event run:
 * ~7000 per frame, 150-300 ms).
 *
 * Level L cuts time into buckets of 4^L ns counted from 0. A bucket gets the
 * state that covered most of it and its event: the object kind of its first
 * sync op, else "syscall" when a syscall began in it. Consecutive buckets
 * alike make one row, from where the thread's states begin in the first to
 * where they end in the last. A thread's levels go from the coarsest (one
 * bucket holds its whole run) down to the last whose buckets are at least
 * its mean state long: below that the browser reads thread_states itself
 * (a window of a few states per column), and finer levels would be nearly
 * as many rows as the states (a 10 M-event run: 0.74 M rows for 2.4 M
 * states; stopping at twice the mean state saved 0.22 M rows, but left the
 * busiest lanes to per-column lookups at 0.5-2 ms a column).
 * Threads with fewer than LEVELS_MIN_EVENTS states, ops and syscalls get
 * none: their lanes are read exactly at any zoom.
 */
#include "config.h"
#include "src/analysis.h"
#include "src/grow.h"
#include "src/timeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEVELS_MIN_EVENTS 1024
#define MAX_STATES 16 /* distinct states within one bucket */

/* One row of a level. */
struct level_run {
	int64_t start_ns, end_ns;
	uint16_t state; /* TL_NONE: no state in it */
	const char *event;
};

struct level {
	struct level_run *runs;
	size_t nr, cap, max;
};

/* Append buckets covered over [@lo, @hi) by @state with @event: into the
 * last row when they continue it, alike. Returns false past level->max rows
 * or out of memory. */
static bool level_add(struct level *lv, int64_t lo, int64_t hi, uint16_t state, const char *event)
{
	struct level_run *last = lv->nr ? &lv->runs[lv->nr - 1] : NULL;
	if (last && last->end_ns == lo && last->state == state && last->event == event) {
		last->end_ns = hi;
		return true;
	}
	if (lv->nr >= lv->max)
		return false;
	struct level_run *more = grow_array(lv->runs, &lv->cap, lv->nr, sizeof(*more), 256);
	if (!more)
		return false;
	lv->runs = more;
	lv->runs[lv->nr++] = (struct level_run){ lo, hi, state, event };
	return true;
}

/* The sync op kinds, interned: a row's event is one of these pointers. */
static const char *op_kind(const struct mtx_timeline *tl, const struct tl_op *op)
{
	const struct tl_object *o = timeline_object(tl, op->object_id);
	const char *kind = o ? timeline_string(tl, o->kind) : NULL;
	return kind ? kind : "?";
}

/* The rows of @t at buckets of @width_ns; false when they are more than
 * lv->max (or memory ran out). */
static bool level_fill(const struct mtx_timeline *tl, const struct tl_thread *t, int64_t width_ns, struct level *lv)
{
	const int64_t none = INT64_MAX;
	size_t i = 0, j = 0, k = 0;
	int64_t from = 0; /* everything before it is done */
	lv->nr = 0;
	for (;;) {
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
			return true;
		int64_t a = at - at % width_ns, z = a + width_ns;
		/* Whole buckets inside one state and without events: one piece. */
		if (next_state == at && at == a) {
			int64_t stop = t->states[i].end_ns;
			stop = stop < next_op ? stop : next_op;
			stop = stop < next_sys ? stop : next_sys;
			int64_t full_end = stop - stop % width_ns;
			if (full_end > a) {
				if (!level_add(lv, a, full_end, t->states[i].state, NULL))
					return false;
				from = full_end;
				continue;
			}
		}
		/* One bucket, [a, z): what covered most of it, and its first event. */
		uint16_t ids[MAX_STATES];
		int64_t cover[MAX_STATES], lo = z, hi = a;
		int nr_ids = 0;
		for (size_t s = i; s < t->nr_states && t->states[s].start_ns < z; s++) {
			int64_t s0 = t->states[s].start_ns > a ? t->states[s].start_ns : a;
			int64_t s1 = t->states[s].end_ns < z ? t->states[s].end_ns : z;
			if (s1 <= s0)
				continue;
			lo = s0 < lo ? s0 : lo;
			hi = s1 > hi ? s1 : hi;
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
		if (state == TL_NONE)
			lo = a, hi = z; /* events alone */
		if (!level_add(lv, lo, hi, state, event))
			return false;
		from = z;
	}
}

/* Insert @lv as level @level of @tid. */
static int level_insert(sqlite3_stmt *ins, const struct mtx_timeline *tl, int64_t tid, int level, const struct level *lv)
{
	for (size_t r = 0; r < lv->nr; r++) {
		const struct level_run *run = &lv->runs[r];
		sqlite3_bind_int64(ins, 1, tid);
		sqlite3_bind_int(ins, 2, level);
		sqlite3_bind_int64(ins, 3, run->start_ns);
		sqlite3_bind_int64(ins, 4, run->end_ns);
		if (run->state == TL_NONE)
			sqlite3_bind_null(ins, 5);
		else
			sqlite3_bind_text(ins, 5, timeline_string(tl, run->state), -1, SQLITE_STATIC);
		if (run->event)
			sqlite3_bind_text(ins, 6, run->event, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(ins, 6);
		if (sqlite3_step(ins) != SQLITE_DONE)
			return -EIO;
		sqlite3_reset(ins);
	}
	return 0;
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

int analysis_timeline_levels(sqlite3 *db, const struct mtx_timeline *tl, char **err)
{
	sqlite3_stmt *ins = NULL;
	struct level lv = { 0 };
	int rc = 0;

	if (sqlite3_prepare_v2(db,
			       "INSERT INTO timeline_levels (tid, level, start_ns, end_ns, state, event) "
			       "VALUES (?, ?, ?, ?, ?, ?)",
			       -1, &ins, NULL) != SQLITE_OK)
		rc = -EIO;
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
		lv.max = events; /* a level as big as what it sums up is no use */
		for (int level = finest; !rc && level <= coarsest && level_fill(tl, t, (int64_t)1 << (2 * level), &lv);
		     level++)
			rc = level_insert(ins, tl, t->tid, level, &lv);
	}
	if (rc && err && asprintf(err, "timeline levels: %s", sqlite3_errmsg(db)) < 0)
		*err = NULL;
	sqlite3_finalize(ins);
	free(lv.runs);
	return rc;
}
