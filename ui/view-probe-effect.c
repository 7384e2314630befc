/*
 * ui/view-probe-effect.c - seed 004's Figs. 8-10 in the browser (key E):
 * did recording change the run's synchronization order? Two lanes per
 * thread over one time axis, I (its sync events as observed) and S (as
 * simulated without the overhead), each event drawn as its number in its
 * run's total order ("number below event"); the events within
 * PROBE_WINDOW_HALF places of the first divergent event e_d highlighted,
 * e_d itself and its logical dependencies (its edges in G^I and G^S)
 * named under the lanes, with those of the event under the cursor.
 *
 * The analysis is mtx probe-effect's (src/probe), done in memory when the
 * view opens, on a thread of its own with its own connection to the file
 * (seconds on a run of millions of events: the browser draws the view
 * as "simulating" meanwhile, and q or another view's key leave it), and
 * again only when m changes the model; the file is not written. A frame
 * then reads nothing: each lane finds the events in the window by binary
 * search over its thread's events in that run's order.
 */
#include "config.h"
#include "ui/display.h"
#include "ui/time-axis.h"
#include "ui/views.h"
#include "src/clock.h"
#include "src/db.h"
#include "src/probe/hb.h"
#include "src/probe/run.h"
#include "src/probe/simulate.h"
#include "src/probe/verdict.h"
#include "src/timefmt.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each thread's two lanes: the instrumented run and the simulated one. */
enum { RUN_I, RUN_S, NR_RUNS };
static const char run_letter[NR_RUNS] = { 'I', 'S' };

struct probe_effect {
	struct probe_run *run;
	int32_t *obs;                  /* the observed order of actions */
	struct probe_graph g[NR_RUNS]; /* G^I, G^S */
	struct probe_sim sim;
	struct probe_verdict v;
	enum probe_model model;
	/* Per run, each thread's events in that run's order of happening:
	 * thread t's are order[r][first[r][t]] .. order[r][first[r][t + 1] - 1]. */
	int32_t *order[NR_RUNS], *first[NR_RUNS];
	int32_t *threads; /* those with events: lanes 2i (I) and 2i + 1 (S) are threads[i]'s */
	int64_t *segment_cpu_obs; /* per segment (run.h), its CPU time as recorded */
	int nr_lanes;
	int *shown, nr_shown; /* the lanes f keeps (all at first) */
	char *filter;         /* its pattern as typed, or NULL */
	int sel, top;         /* in shown */
	int lane_rows, name_cols;
	struct time_axis ax;
	bool fitted; /* the window was put around e_d, once the width was known */
	/* The first analysis, on the worker thread: until done (atomic) it
	 * alone touches the fields above; then the view takes its result. */
	char *path;
	pthread_t worker;
	bool started, joined;
	int done;
	int load_rc;
	char *load_err;
	uint64_t began_ns;
};

static int64_t event_ns(const struct probe_effect *pe, int r, int32_t e)
{
	return r == RUN_I ? pe->run->events[e].end_ns : pe->sim.happen_ns[e];
}

/* @e's place in run @r's total order, 1-based; 0: it never happened there. */
static int32_t event_rank(const struct probe_effect *pe, int r, int32_t e)
{
	if (e < 0)
		return 0; /* T_0: not an event of the run */
	return r == RUN_I ? pe->v.obs_rank[e] : pe->v.sim_rank[e];
}

/* The place of e_d's window in run @r: e_d's, or just past the end of a
 * simulation that could not execute it; 0 when the graphs are equal. */
static int32_t window_center(const struct probe_effect *pe, int r)
{
	int32_t rank = pe->v.first >= 0 ? event_rank(pe, r, pe->v.first) : 0;
	return pe->v.first < 0 ? 0 : rank ? rank : pe->v.nr_sim + 1;
}

/* The first place in [@lo, @hi) of order[@r] (one thread's events) whose
 * event happens at @t or later in run @r; @hi when none does. */
static int32_t lower_bound(const struct probe_effect *pe, int r, int32_t lo, int32_t hi, int64_t t)
{
	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;
		if (event_ns(pe, r, pe->order[r][mid]) < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void lane_span(const struct probe_effect *pe, int lane, int32_t *lo, int32_t *hi)
{
	int32_t t = pe->threads[lane / 2];
	*lo = pe->first[lane % 2][t];
	*hi = pe->first[lane % 2][t + 1];
}

/* order[] and first[] from the verdict's two total orders (a counting sort
 * by thread, which keeps each run's order within a thread). */
static int index_orders(struct probe_effect *pe)
{
	const struct probe_run *run = pe->run;
	for (int r = 0; r < NR_RUNS; r++) {
		const int32_t *seq = r == RUN_I ? pe->v.by_obs : pe->v.by_sim;
		int32_t n = r == RUN_I ? run->nr_events : pe->v.nr_sim, *at;
		free(pe->order[r]);
		free(pe->first[r]);
		pe->order[r] = malloc(((size_t)n + 1) * sizeof(int32_t));
		pe->first[r] = calloc((size_t)run->nr_threads + 1, sizeof(int32_t));
		at = calloc((size_t)run->nr_threads + 1, sizeof(int32_t));
		if (!pe->order[r] || !pe->first[r] || !at) {
			free(at);
			return -ENOMEM;
		}
		for (int32_t i = 0; i < n; i++)
			pe->first[r][run->events[seq[i]].thread + 1]++;
		for (int32_t t = 0; t < run->nr_threads; t++)
			pe->first[r][t + 1] += pe->first[r][t];
		memcpy(at, pe->first[r], (size_t)run->nr_threads * sizeof(int32_t));
		for (int32_t i = 0; i < n; i++)
			pe->order[r][at[run->events[seq[i]].thread]++] = seq[i];
		free(at);
	}
	return 0;
}

static void free_result(struct probe_effect *pe)
{
	probe_verdict_free(&pe->v);
	hb_free(&pe->g[RUN_S]);
	probe_sim_free(&pe->sim);
}

/* Simulate under pe->model, build G^S, compare: mtx probe-effect's steps. */
static int analyse(struct probe_effect *pe)
{
	free_result(pe);
	int rc = probe_verdict_simulate(pe->run, pe->model, pe->obs, &pe->g[RUN_I], &pe->sim, &pe->g[RUN_S], &pe->v);
	if (!rc)
		rc = index_orders(pe);
	if (pe->sim.end_ns + 1 > pe->ax.end_ns)
		pe->ax.end_ns = pe->sim.end_ns + 1;
	pe->fitted = false;
	if (rc)
		free_result(pe);
	return rc;
}

/* Whether the view holds a result (analyse may have run out of memory). */
static bool analysed(const struct probe_effect *pe)
{
	return pe->v.obs_rank != NULL;
}

/* The CPU time in segment @seg of @run: its pieces > 0 (run.h). */
static int64_t segment_cpu(const struct probe_run *run, int32_t seg)
{
	int64_t sum = 0;
	for (int32_t i = run->segment_pieces[seg]; i < run->segment_pieces[seg + 1]; i++)
		sum += run->pieces[i] > 0 ? run->pieces[i] : 0;
	return sum;
}

/* Seed 004 Fig. 1's local clock: the CPU time @e's thread had run when it
 * entered @e's call, in run @r (S: without the overhead removed before it).
 * Its segments up to @e are added up: once a frame, for one event. */
static int64_t cpu_clock(const struct probe_effect *pe, int r, int32_t e)
{
	const struct probe_event *ev = &pe->run->events[e];
	int32_t first = pe->run->threads[ev->thread].first_segment;
	int64_t sum = 0;
	for (int32_t seg = first; seg < first + ev->k; seg++)
		sum += r == RUN_I ? pe->segment_cpu_obs[seg] : segment_cpu(pe->run, seg);
	return sum;
}

/* The first analysis: the run read through a connection of its own, G^I,
 * the overhead taken out, the simulation, the lanes. */
static int first_analysis(struct probe_effect *pe, char **err)
{
	sqlite3 *db = NULL;
	int rc = db_open_readonly(pe->path, &db, err);
	if (!rc)
		rc = probe_run_load(db, &pe->run, err);
	sqlite3_close(db);
	if (rc)
		return rc;
	pe->threads = calloc((size_t)pe->run->nr_threads + 1, sizeof(int32_t));
	if (!pe->threads || hb_build_observed(pe->run, &pe->obs, &pe->g[RUN_I]))
		goto nomem;
	/* Kept before the overhead goes, for the CPU clocks of both runs. */
	if (!(pe->segment_cpu_obs = calloc((size_t)pe->run->nr_segments + 1, sizeof(int64_t))))
		goto nomem;
	for (int32_t seg = 0; seg < pe->run->nr_segments; seg++)
		pe->segment_cpu_obs[seg] = segment_cpu(pe->run, seg);
	probe_run_remove_overhead(pe->run);
	if (analyse(pe))
		goto nomem;
	for (int32_t t = 0; t < pe->run->nr_threads; t++)
		if (pe->run->threads[t].nr_events) {
			pe->threads[pe->nr_lanes / 2] = t;
			pe->nr_lanes += 2;
		}
	if (!(pe->shown = calloc((size_t)pe->nr_lanes + 1, sizeof(int))))
		goto nomem;
	for (pe->nr_shown = 0; pe->nr_shown < pe->nr_lanes; pe->nr_shown++)
		pe->shown[pe->nr_shown] = pe->nr_shown;
	return 0;
nomem:
	*err = strdup("out of memory");
	return -ENOMEM;
}

static void *first_analysis_main(void *arg)
{
	struct probe_effect *pe = arg;
	pe->load_rc = first_analysis(pe, &pe->load_err);
	__atomic_store_n(&pe->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Whether the first analysis is over (its thread joined, its result the
 * view's). */
static bool ready(struct probe_effect *pe)
{
	if (!__atomic_load_n(&pe->done, __ATOMIC_ACQUIRE))
		return false;
	if (pe->started && !pe->joined) {
		pthread_join(pe->worker, NULL);
		pe->joined = true;
	}
	return true;
}

static bool probe_effect_busy(const struct view *v)
{
	const struct probe_effect *pe = v->priv;
	return !__atomic_load_n(&pe->done, __ATOMIC_ACQUIRE);
}

static int probe_effect_load(struct view *v, char **err)
{
	struct probe_effect *pe = v->priv;
	pe->ax = (struct time_axis){ .start_ns = v->b->origin_ns, .end_ns = v->b->end_ns, .left_ns = v->b->origin_ns };
	if (!(pe->path = strdup(v->b->file))) {
		*err = strdup("out of memory");
		return -ENOMEM;
	}
	pe->began_ns = clock_now_ns();
	pe->started = pthread_create(&pe->worker, NULL, first_analysis_main, pe) == 0;
	if (!pe->started) /* no thread: here, as before */
		first_analysis_main(pe);
	return 0;
}

/* The selected lane, or -1 when the filter keeps none. */
static int selected_lane(const struct probe_effect *pe)
{
	return pe->nr_shown ? pe->shown[pe->sel] : -1;
}

/* The time of the event the view opens on: e_d (the first event of the
 * simulated order when the graphs are equal), simulated when it was. */
static int64_t focus_ns(const struct probe_effect *pe, int32_t *lane)
{
	int32_t e = pe->v.first >= 0 ? pe->v.first : pe->v.nr_sim ? pe->v.by_sim[0] : pe->v.by_obs[0];
	int r = pe->v.sim_rank[e] ? RUN_S : RUN_I;
	for (int i = 0; i < pe->nr_lanes / 2; i++)
		if (pe->threads[i] == pe->run->events[e].thread)
			*lane = 2 * i + r;
	return event_ns(pe, r, e);
}

/* Put the window on e_d's: zoom in from the whole run while the events
 * within PROBE_WINDOW_HALF places of it, in either run, take less than
 * half the plot; the cursor on e_d. */
static void fit_window(struct probe_effect *pe)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (int r = 0; r < NR_RUNS; r++) {
		const int32_t *seq = r == RUN_I ? pe->v.by_obs : pe->v.by_sim;
		int32_t n = r == RUN_I ? pe->run->nr_events : pe->v.nr_sim, d = window_center(pe, r);
		d = d ? d : 1; /* equal: the first events */
		for (int32_t k = d - PROBE_WINDOW_HALF < 1 ? 1 : d - PROBE_WINDOW_HALF; k <= n && k <= d + PROBE_WINDOW_HALF; k++) {
			int64_t t = event_ns(pe, r, seq[k - 1]);
			lo = t < lo ? t : lo;
			hi = t > hi ? t : hi;
		}
	}
	int lane = -1;
	pe->ax.cursor_ns = focus_ns(pe, &lane);
	for (int i = 0; i < pe->nr_shown; i++)
		if (pe->shown[i] == lane)
			pe->sel = i;
	pe->ax.ns_per_col = INT64_MAX / 4;
	time_axis_clamp(&pe->ax);
	while (lo <= hi && pe->ax.ns_per_col > 20 && (hi - lo) * 2 < pe->ax.ns_per_col * pe->ax.cols)
		pe->ax.ns_per_col /= 2;
	if (lo <= hi)
		pe->ax.left_ns = lo + (hi - lo) / 2 - pe->ax.ns_per_col * pe->ax.cols / 2;
	time_axis_clamp(&pe->ax);
	pe->fitted = true;
}

/* How column @c of lane @lane is drawn: as e_d if it holds e_d, else as a
 * source of e_d's edges in that run's graph if it holds one, else as e_d's
 * window if it holds an event within PROBE_WINDOW_HALF places of it. Those
 * are few, so a column of a thousand events costs no more than one. */
static enum display_style column_style(const struct probe_effect *pe, int lane, int64_t c)
{
	const struct probe_graph *g = &pe->g[lane % 2];
	int r = lane % 2, thread = pe->threads[lane / 2];
	int32_t d = window_center(pe, r), first = pe->v.first, n = r == RUN_I ? pe->run->nr_events : pe->v.nr_sim;
	const int32_t *seq = r == RUN_I ? pe->v.by_obs : pe->v.by_sim;
#define IN_COLUMN(e) ((e) >= 0 && pe->run->events[e].thread == thread && event_rank(pe, r, e) && \
		      time_axis_column(&pe->ax, event_ns(pe, r, e)) == c)
	if (first < 0)
		return STYLE_NORMAL;
	if (IN_COLUMN(first))
		return STYLE_ERROR;
	for (int32_t i = g->in_first[first]; i < g->in_first[first + 1]; i++)
		if (IN_COLUMN(g->in_src[i]))
			return STYLE_HEADER;
	for (int32_t k = d - PROBE_WINDOW_HALF < 1 ? 1 : d - PROBE_WINDOW_HALF; k <= n && k <= d + PROBE_WINDOW_HALF; k++)
		if (IN_COLUMN(seq[k - 1]))
			return STYLE_MARK;
#undef IN_COLUMN
	return STYLE_NORMAL;
}

/* "name (tid) I", the name cut to fit @width. */
static void lane_label(const struct probe_effect *pe, int lane, char *buf, size_t size, int width)
{
	const struct probe_thread *t = &pe->run->threads[pe->threads[lane / 2]];
	char tail[40];
	int n = snprintf(tail, sizeof(tail), " (%" PRId64 ") %c", t->tid, run_letter[lane % 2]);
	int room = width > 0 ? width - n : (int)strlen(t->name ? t->name : "?");
	snprintf(buf, size, "%.*s%s", room > 0 ? room : 0, t->name ? t->name : "?", tail);
}

/* A lane: a line over the thread's life (I: as recorded; S: to its last
 * simulated event), each event its number where it fits before the next
 * with a blank between, else '*' (several, or too close: zoom in). */
static void draw_lane(struct probe_effect *pe, int lane, int y, bool selected)
{
	const struct probe_thread *th = &pe->run->threads[pe->threads[lane / 2]];
	const struct time_axis *ax = &pe->ax;
	int r = lane % 2, x0 = pe->name_cols, cols = ax->cols;
	int32_t lo, hi;
	int64_t right = ax->left_ns + ax->ns_per_col * cols, cursor = time_axis_column(ax, ax->cursor_ns);
	char name[96], number[16];

	lane_span(pe, lane, &lo, &hi);
	lane_label(pe, lane, name, sizeof(name), x0 - 1);
	display_text(y, 0, x0 - 1, selected ? STYLE_SELECTED : STYLE_NORMAL, true, name);
	int64_t end_ns = r == RUN_I ? th->end_ns : hi > lo ? event_ns(pe, r, pe->order[r][hi - 1]) : th->start_ns;
	int64_t c0 = time_axis_column(ax, th->start_ns), c1 = time_axis_column(ax, end_ns);
	c0 = c0 < 0 ? 0 : c0;
	c1 = c1 >= cols ? cols - 1 : c1;
	if (c1 >= c0)
		display_glyph(y, x0 + (int)c0, (int)(c1 - c0 + 1), GLYPH_HLINE, STYLE_NORMAL);
	if (selected && cursor >= 0 && cursor < cols)
		display_glyph(y, x0 + (int)cursor, 1, GLYPH_CURSOR, STYLE_CURSOR);
	for (int32_t at = lower_bound(pe, r, lo, hi, ax->left_ns), next; at < hi; at = next) {
		int32_t e = pe->order[r][at], rank = event_rank(pe, r, e);
		int64_t t = event_ns(pe, r, e), c = time_axis_column(ax, t);
		if (t >= right)
			break;
		next = lower_bound(pe, r, at + 1, hi, ax->left_ns + (c + 1) * ax->ns_per_col);
		int w = snprintf(number, sizeof(number), "%d", rank);
		bool fits = next == at + 1 && c + w <= cols &&
			    (next == hi || time_axis_column(ax, event_ns(pe, r, pe->order[r][next])) > c + w);
		enum display_style style = column_style(pe, lane, c);
		if (selected && cursor >= c && cursor < c + (fits ? w : 1))
			style = STYLE_CURSOR;
		display_text(y, x0 + (int)c, fits ? w : 1, style, false, fits ? number : "*");
	}
}

/* "#N name#k op kind 0xaddr at T" of @e in run @r into @buf (from @used),
 * and " <- " its sources in that run's graph, each by its number there. */
static size_t describe(const struct probe_effect *pe, int r, int32_t e, bool whole, char *buf, size_t size,
		       size_t used)
{
	const struct probe_run *run = pe->run;
	const struct probe_graph *g = &pe->g[r];
	const struct probe_object *o = &run->objects[run->events[e].object];
	char label[96], at[32];
	int64_t t = event_ns(pe, r, e) - run->origin_ns;
	if (used < size && whole)
		used += (size_t)snprintf(buf + used, size - used, "#%d %s %s %s %#" PRIx64 " at %s",
					 event_rank(pe, r, e), probe_event_label(run, e, label, sizeof(label)),
					 run->events[e].op, o->kind, (uint64_t)o->addr,
					 timefmt_duration(t < 0 ? 0 : (uint64_t)t, at, sizeof(at)));
	else if (used < size)
		used += (size_t)snprintf(buf + used, size - used, "#%d at %s", event_rank(pe, r, e),
					 timefmt_duration(t < 0 ? 0 : (uint64_t)t, at, sizeof(at)));
	if (used < size)
		used += (size_t)snprintf(buf + used, size - used, " <- %s",
					 g->in_first[e] == g->in_first[e + 1] ? "nothing" : "");
	for (int32_t i = g->in_first[e]; i < g->in_first[e + 1] && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s#%d %s (%s)", i > g->in_first[e] ? ", " : "",
					 event_rank(pe, r, g->in_src[i]), probe_event_label(run, g->in_src[i], label, sizeof(label)),
					 hb_edge_name(g->in_kind[i]));
	return used;
}

/* The verdict, the model and what was removed, on one line. */
static void draw_header(const struct probe_effect *pe, int y, int width)
{
	const struct probe_verdict *v = &pe->v;
	char line[512], removed[32];
	size_t used;
	if (!v->divergent)
		used = (size_t)snprintf(line, sizeof(line), "equal: G^S = G^I, %" PRId64 " timestamp inversion%s",
					v->inversions, v->inversions == 1 ? "" : "s");
	else if (v->cannot_execute)
		used = (size_t)snprintf(line, sizeof(line), "divergent at I#%d, which cannot execute",
					v->obs_rank[v->first]);
	else
		used = (size_t)snprintf(line, sizeof(line), "divergent from S#%d (I#%d)", v->sim_rank[v->first],
					v->obs_rank[v->first]);
	if (v->divergent && used < sizeof(line))
		used += v->trustworthy ? (size_t)snprintf(line + used, sizeof(line) - used, ", #1-#%d trustworthy", v->trustworthy)
				       : (size_t)snprintf(line + used, sizeof(line) - used, ", none trustworthy");
	if (pe->run->overhead_recorded)
		strcat(timefmt_duration((uint64_t)pe->run->overhead_removed_ns, removed, sizeof(removed) - 8), " removed");
	if (used < sizeof(line))
		snprintf(line + used, sizeof(line) - used, "; %s, %d CPU%s, %s", probe_model_name(pe->model),
			 pe->sim.nr_cpus, pe->sim.nr_cpus == 1 ? "" : "s",
			 pe->run->overhead_recorded ? removed : "no overhead recorded");
	display_text(y, 0, width, STYLE_HEADER, true, line);
}

/* The event under the cursor on the selected lane, or -1; how many more
 * share its column in *@more. */
static int32_t event_at_cursor(const struct probe_effect *pe, int32_t *more)
{
	const struct time_axis *ax = &pe->ax;
	int32_t lo, hi, at, end;
	int lane = selected_lane(pe), r = lane % 2;
	if (lane < 0)
		return -1;
	int64_t from = ax->left_ns + time_axis_column(ax, ax->cursor_ns) * ax->ns_per_col;
	lane_span(pe, lane, &lo, &hi);
	at = lower_bound(pe, r, lo, hi, from);
	end = lower_bound(pe, r, at, hi, from + ax->ns_per_col);
	*more = end - at - 1;
	return at < end ? pe->order[r][at] : -1;
}

/* Under the lanes: what the numbers are, e_d in both runs with its
 * sources (divergent), and the event under the cursor with its sources. */
static int draw_details(struct probe_effect *pe, int y, int width, bool count_only)
{
	const struct probe_verdict *v = &pe->v;
	char line[1024];
	int rows = 0;
	/* With nothing removed, S is the run replayed by the model: where it
	 * departs, the model does, and that is no evidence of a probe effect
	 * (mtx probe-effect's model check). */
	if (!count_only)
		display_text(y + rows, 0, width, STYLE_NORMAL, true,
			     v->divergent && !pe->run->overhead_removed_ns
				     ? "nothing was removed: the model departs from the run, not a probe effect"
				     : "N: place in its run's total order (I observed, S simulated); *: several, zoom in");
	rows++;
	for (int r = 0; v->divergent && r < NR_RUNS; r++, rows++) {
		size_t used = (size_t)snprintf(line, sizeof(line), "e_d %c: ", run_letter[r]);
		if (count_only)
			continue;
		if (r == RUN_S && v->cannot_execute)
			snprintf(line + used, sizeof(line) - used, "%s cannot execute: its thread waits forever there",
				 probe_event_label(pe->run, v->first, (char[96]){ 0 }, 96));
		else
			describe(pe, r, v->first, r == RUN_I, line, sizeof(line), used);
		display_text(y + rows, 0, width, STYLE_NORMAL, true, line);
	}
	if (!count_only && pe->nr_shown) {
		int32_t more, e = event_at_cursor(pe, &more);
		int r = selected_lane(pe) % 2;
		size_t used = (size_t)snprintf(line, sizeof(line), "%c: ", run_letter[r]);
		if (e < 0)
			snprintf(line + used, sizeof(line) - used, "no event at the cursor ([ and ] go to one)");
		else if ((used = describe(pe, r, e, true, line, sizeof(line), used)) < sizeof(line) && more > 0)
			snprintf(line + used, sizeof(line) - used, "; %d more in this column", more);
		display_text(y + rows, 0, width, STYLE_NORMAL, true, line);
		line[0] = 0;
		if (e >= 0) {
			char a[32], b[32];
			snprintf(line, sizeof(line), "%s's CPU clock C_i on entering it: I %s, S %s",
				 pe->run->threads[pe->run->events[e].thread].name,
				 timefmt_duration((uint64_t)cpu_clock(pe, RUN_I, e), a, sizeof(a)),
				 timefmt_duration((uint64_t)cpu_clock(pe, RUN_S, e), b, sizeof(b)));
		}
		display_text(y + rows + 1, 0, width, STYLE_NORMAL, true, line);
	}
	return rows + 2;
}

static void probe_effect_draw(struct view *v, int y, int height, int width)
{
	struct probe_effect *pe = v->priv;
	if (!ready(pe)) {
		char line[160];
		snprintf(line, sizeof(line), "simulating the run without mtx's overhead... %.0f s (other views meanwhile)",
			 (double)(clock_now_ns() - pe->began_ns) / 1e9);
		display_text(y, 0, width, STYLE_NORMAL, false, line);
		return;
	}
	if (pe->load_rc) {
		display_text(y, 0, width, STYLE_ERROR, true, pe->load_err ? pe->load_err : "cannot read the run");
		return;
	}
	int details = draw_details(pe, 0, width, true);
	if (!analysed(pe)) {
		display_text(y, 0, width, STYLE_ERROR, true, "out of memory: no result (m tries again)");
		return;
	}
	pe->name_cols = view_label_cols(width);
	pe->ax.cols = width - pe->name_cols;
	pe->lane_rows = height - 2 - details;
	if (!pe->fitted)
		fit_window(pe);
	time_axis_clamp(&pe->ax);
	if (pe->sel < pe->top)
		pe->top = pe->sel;
	if (pe->sel >= pe->top + pe->lane_rows)
		pe->top = pe->sel - pe->lane_rows + 1;
	draw_header(pe, y, width);
	time_axis_draw(&pe->ax, y + 1, pe->name_cols, width, "thread", v->b->origin_ns);
	for (int i = 0; i < pe->lane_rows && pe->top + i < pe->nr_shown; i++)
		draw_lane(pe, pe->shown[pe->top + i], y + 2 + i, pe->top + i == pe->sel);
	draw_details(pe, y + height - details, width, false);
}

static void probe_effect_status(const struct view *v, char *buf, size_t size)
{
	const struct probe_effect *pe = v->priv;
	char npc[32], at[32];
	if (probe_effect_busy(v)) { /* the worker owns the rest */
		snprintf(buf, size, "simulating");
		return;
	}
	int64_t t = pe->ax.cursor_ns - v->b->origin_ns;
	snprintf(buf, size, "lane %d of %d%s%s  at %s  %s a column", pe->nr_shown ? pe->sel + 1 : 0, pe->nr_shown,
		 pe->filter ? ", filter " : "", pe->filter ? pe->filter : "",
		 timefmt_duration(t < 0 ? 0 : (uint64_t)t, at, sizeof(at)),
		 timefmt_duration((uint64_t)pe->ax.ns_per_col, npc, sizeof(npc)));
}

/* The cursor to the selected lane's next event after it (@backward: the
 * last before it). */
static void cursor_to_event(struct view *v, bool backward)
{
	struct probe_effect *pe = v->priv;
	int32_t lo, hi, at;
	int lane = selected_lane(pe), r = lane % 2;
	if (lane < 0)
		return;
	lane_span(pe, lane, &lo, &hi);
	at = lower_bound(pe, r, lo, hi, pe->ax.cursor_ns + !backward) - backward;
	if (at < lo || at >= hi)
		view_message(v->b, backward ? "no earlier event on this lane" : "no later event on this lane");
	else
		pe->ax.cursor_ns = event_ns(pe, r, pe->order[r][at]);
}

/* Keep the lanes whose "name (tid) I" (or S) @text matches; empty: all.
 * The selected lane stays selected when it is kept. */
static void apply_filter(struct view *v, const char *text)
{
	struct probe_effect *pe = v->priv;
	struct mtx_match *m = NULL;
	char *err = NULL, label[128];
	int lane = selected_lane(pe);
	if (*text && !(m = match_compile(text, &err))) {
		view_message(v->b, "%s", err ? err : "bad pattern");
		free(err);
		return;
	}
	pe->nr_shown = pe->sel = pe->top = 0;
	for (int i = 0; i < pe->nr_lanes; i++) {
		lane_label(pe, i, label, sizeof(label), 0);
		if (m && !match_test(m, label))
			continue;
		if (i == lane)
			pe->sel = pe->nr_shown;
		pe->shown[pe->nr_shown++] = i;
	}
	match_free(m);
	free(pe->filter);
	pe->filter = *text ? strdup(text) : NULL;
	if (!pe->nr_shown)
		view_message(v->b, "no lane matches %s", text);
}

static enum reaction probe_effect_act(struct view *v, enum action a)
{
	struct probe_effect *pe = v->priv;
	int page = pe->lane_rows > 1 ? pe->lane_rows - 1 : 1;
	int32_t more, e;
	char *text;

	if (!ready(pe) || pe->load_rc)
		return REACT_UNHANDLED; /* q, another view: the generic keys */
	if (!analysed(pe) && a != ACT_MODEL)
		return REACT_UNHANDLED;
	if (time_axis_act(&pe->ax, v->b, a))
		return REACT_REDRAW;
	switch (a) {
	case ACT_UP:
	case ACT_DOWN:
	case ACT_PAGE_UP:
	case ACT_PAGE_DOWN:
		pe->sel += a == ACT_UP ? -1 : a == ACT_DOWN ? 1 : a == ACT_PAGE_UP ? -page : page;
		pe->sel = pe->sel >= pe->nr_shown ? pe->nr_shown - 1 : pe->sel;
		pe->sel = pe->sel < 0 ? 0 : pe->sel;
		break;
	case ACT_NEXT_EVENT:
	case ACT_PREV_EVENT:
		cursor_to_event(v, a == ACT_PREV_EVENT);
		break;
	case ACT_OPEN: /* the event's object, on its op */
		if ((e = event_at_cursor(pe, &more)) < 0) {
			view_message(v->b, "no event at the cursor ([ and ] go to one)");
			break;
		}
		v->pushed = history_view_at(v->b, pe->run->objects[pe->run->events[e].object].id,
					    pe->run->events[e].start_ns, pe->run->events[e].op_id);
		return v->pushed ? REACT_PUSH : REACT_REDRAW;
	case ACT_MODEL:
		pe->model = pe->model == PROBE_MODEL_SMP ? PROBE_MODEL_UP_PRIO : PROBE_MODEL_SMP;
		if (analyse(pe))
			view_message(v->b, "out of memory");
		break;
	case ACT_FILTER:
		text = display_prompt("lanes of threads matching (empty: all): ");
		if (text)
			apply_filter(v, text);
		free(text);
		break;
	case ACT_SEARCH:
	case ACT_SEARCH_NEXT:
	case ACT_SEARCH_PREV:
	case ACT_SORT:
	case ACT_SORT_REVERSE:
	case ACT_BLOCKED_ONLY:
	case ACT_FOLLOW_WAKEUP:
		view_message(v->b, "not in this view (? lists the keys)");
		break;
	default:
		return REACT_UNHANDLED;
	}
	time_axis_clamp(&pe->ax);
	return REACT_REDRAW;
}

static void probe_effect_free(struct view *v)
{
	struct probe_effect *pe = v->priv;
	/* Only the browser's end frees a main view: an analysis still going
	 * then is left to the process's exit, with what it holds. */
	if (pe->started && !pe->joined && !__atomic_load_n(&pe->done, __ATOMIC_ACQUIRE)) {
		pthread_detach(pe->worker);
		return;
	}
	if (pe->started && !pe->joined)
		pthread_join(pe->worker, NULL);
	free(pe->path);
	free(pe->load_err);
	free_result(pe);
	hb_free(&pe->g[RUN_I]);
	for (int r = 0; r < NR_RUNS; r++)
		free(pe->order[r]), free(pe->first[r]);
	free(pe->obs);
	free(pe->threads);
	free(pe->segment_cpu_obs);
	free(pe->shown);
	free(pe->filter);
	probe_run_free(pe->run);
	free(pe);
}

static const struct view_ops probe_effect_view_ops = {
	.name = "probe-effect",
	.load = probe_effect_load,
	.act = probe_effect_act,
	.draw = probe_effect_draw,
	.status = probe_effect_status,
	.busy = probe_effect_busy,
	.free = probe_effect_free,
};

struct view *probe_effect_view_new(struct browse *b)
{
	struct probe_effect *pe = calloc(1, sizeof(*pe));
	struct view *v = pe ? view_new(b, &probe_effect_view_ops, "probe-effect", NULL) : NULL;
	if (!v) {
		free(pe);
		return NULL;
	}
	v->priv = pe;
	return v;
}
