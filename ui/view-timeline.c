/*
 * ui/view-timeline.c - one lane per thread, its states drawn over a time
 * axis, sync ops and syscalls as marks, a time cursor and a detail line
 * for what is under it. Every figure comes from the timeline.* queries of
 * src/browse-queries.c, so a frame reads a bounded number of rows on any
 * size of run. A busy lane zoomed out is drawn from timeline_levels (a byte
 * per bucket, a few buckets per column: one or two rows); otherwise its states
 * are read exactly when the window holds few of them and sampled at five
 * points per column when it holds many, and its marks are looked up per
 * column. (On a 10 M-event run those lookups, scattered over the tables,
 * cost 150-300 ms a frame zoomed out; the levels ~10 ms.) A column shows
 * its state, and the letter of its sync op (or the ^ of its syscall) only
 * when it holds few events: a busy lane zoomed out still shows what its
 * thread was doing.
 */
#define _GNU_SOURCE
#include "config.h"
#include "ui/display.h"
#include "ui/time-axis.h"
#include "ui/views.h"
#include "src/timefmt.h"
#include "src/derived/timeline-levels.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXACT_PER_COLUMN 4  /* read states exactly below this many per column */
#define SAMPLES 5           /* else the state at this many points across each column */
#define MARKS_FEW 2 /* a column shows an event's letter when it holds at most this many events */

/* A cell's state: a thread state's (src/thread-states.h) plus one, as in
 * timeline_levels; 0 for none. */
enum lane_state { LS_NONE, NR_LANE_STATES = NR_THREAD_STATES + 1 };
#define LS_OF(ts) ((enum lane_state)((ts) + 1))
#define TS_OF(ls) ((enum thread_state)((ls) - 1))


struct lane {
	int64_t tid, start_ns, end_ns;
	char *name;
	/* What draw_lane last computed for the window (cached_left,
	 * cached_npc, cached_cols): a frame whose window is unchanged (the
	 * cursor or the selection moved) reads nothing again. */
	enum lane_state *cells;
	char *marks;
	int64_t cached_left, cached_npc;
	int cached_cols;
};

struct timeline {
	struct lane *lanes;
	int nr_lanes;
	int *shown; /* lanes that pass the filter */
	int nr_shown, sel, top;
	struct time_axis ax; /* ax.cols: the plot's columns in the last frame */
	int name_cols, lane_rows; /* of the last frame */
	char *filter; /* as typed, for the status line */
};

static enum lane_state state_of(const char *name)
{
	for (int s = 0; name && s < NR_THREAD_STATES; s++)
		if (!strcmp(name, thread_state_name((enum thread_state)s)))
			return LS_OF(s);
	return name ? LS_OF(TS_BLOCKED) : LS_NONE;
}

/* Prepare a named query and bind the lane's tid and a window. */
static sqlite3_stmt *prepare(struct view *v, const char *name, int64_t tid, int64_t from, int64_t to)
{
	struct mtx_query_params p = { .tid = tid, .has_tid = true, .from = from, .has_from = true, .to = to,
				      .has_to = true };
	return view_prepare(v, name, &p, NULL);
}

static void bind_named(sqlite3_stmt *st, const char *name, int64_t value)
{
	int idx = sqlite3_bind_parameter_index(st, name);
	if (idx)
		sqlite3_bind_int64(st, idx, value);
}

/* The last interval state_at found: a later instant before its end is in
 * it too (a thread's states do not overlap), without another lookup. */
struct state_hit {
	int64_t start_ns, end_ns;
	enum lane_state state;
};

/* The state of lane @tid at @t, @t at or after the last one asked. */
static enum lane_state state_at(sqlite3_stmt *st, int64_t t, struct state_hit *hit)
{
	if (t >= hit->start_ns && t < hit->end_ns)
		return hit->state;
	sqlite3_reset(st);
	bind_named(st, ":from", t);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 1) > t) {
		*hit = (struct state_hit){ sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
					   state_of((const char *)sqlite3_column_text(st, 2)) };
		return hit->state;
	}
	return LS_NONE;
}

/* Add [@s, @e) in @state to the time each column spends in each state. */
static void cover_add(const struct timeline *tl, int64_t (*cover)[NR_LANE_STATES], int64_t s, int64_t e,
		      enum lane_state state)
{
	int cols = tl->ax.cols;
	int64_t left = tl->ax.left_ns, npc = tl->ax.ns_per_col, right = left + npc * cols;
	int c0 = s <= left ? 0 : (int)((s - left) / npc), c1 = e >= right ? cols - 1 : (int)((e - 1 - left) / npc);
	for (int c = c0 < 0 ? 0 : c0; c <= c1 && c < cols; c++) {
		int64_t a = left + c * npc, b = a + npc;
		cover[c][state] += (e < b ? e : b) - (s > a ? s : a);
	}
}

/* Each column's state: the one that covered most of it. */
static void cells_from_cover(int cols, int64_t (*cover)[NR_LANE_STATES], enum lane_state *cells)
{
	for (int c = 0; c < cols; c++) {
		int best = LS_NONE;
		for (int s = LS_NONE + 1; s < NR_LANE_STATES; s++)
			if (cover[c][s] > cover[c][best] || (best == LS_NONE && cover[c][s] > 0))
				best = s;
		cells[c] = (enum lane_state)best;
	}
}

/* Fill @cells (ax.cols) with the state that covers most of each column. */
static void lane_states(struct view *v, const struct lane *l, enum lane_state *cells)
{
	struct timeline *tl = v->priv;
	int cols = tl->ax.cols, limit = cols * EXACT_PER_COLUMN;
	int64_t left = tl->ax.left_ns, npc = tl->ax.ns_per_col, right = left + npc * cols;
	int64_t(*cover)[NR_LANE_STATES] = calloc((size_t)cols, sizeof(*cover));
	sqlite3_stmt *st = prepare(v, "timeline.states", l->tid, left, right);
	int n = 0;
	memset(cells, 0, (size_t)cols * sizeof(*cells));
	if (!st || !cover)
		goto out;
	bind_named(st, ":limit", limit + 1);
	while (sqlite3_step(st) == SQLITE_ROW && ++n <= limit)
		cover_add(tl, cover, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
			  state_of((const char *)sqlite3_column_text(st, 2)));
	if (n > limit) { /* dense: the state of most of SAMPLES points per column */
		sqlite3_stmt *at = prepare(v, "timeline.state_at", l->tid, left, right);
		struct state_hit hit = { 0, 0, LS_NONE };
		for (int c = 0; at && c < cols; c++) {
			int votes[NR_LANE_STATES] = { 0 }, best = LS_NONE;
			for (int k = 0; k < SAMPLES; k++) {
				int s = state_at(at, left + c * npc + npc * (2 * k + 1) / (2 * SAMPLES), &hit);
				if (++votes[s] > votes[best] || (votes[s] == votes[best] && k == SAMPLES / 2))
					best = s;
			}
			cells[c] = (enum lane_state)best;
		}
		sqlite3_finalize(at);
		goto out;
	}
	cells_from_cover(cols, cover, cells);
out:
	sqlite3_finalize(st);
	free(cover);
}

/* The letter of each kind of event (a sync object's kind, or a syscall),
 * as the lanes and the legend show it; '*' for any other kind. */
static const struct {
	const char *kind;
	char mark;
} marks_of_kinds[] = {
	{ "mutex", 'M' }, { "rwlock", 'R' }, { "spinlock", 'P' }, { "cond", 'C' }, { "sem", 'S' },
	{ "barrier", 'B' }, { "thread", 'T' }, { "signal", 'K' }, { "other op", '*' }, { "syscall", '^' },
};
#define NR_MARKS (sizeof(marks_of_kinds) / sizeof(marks_of_kinds[0]))

static char kind_mark(const char *kind)
{
	for (size_t i = 0; kind && i < NR_MARKS; i++)
		if (!strcmp(kind, marks_of_kinds[i].kind))
			return marks_of_kinds[i].mark;
	return '*';
}

/*
 * Mark the column of the lane's first event in [@from, @to) (@st:
 * timeline.events) with its letter, a sync op's over a syscall's ^, when
 * that column holds at most MARKS_FEW events: more, and the column shows
 * the thread's state instead. Returns the column, or -1 if there is none.
 */
static int mark_column(const struct timeline *tl, sqlite3_stmt *st, int64_t from, int64_t to, char *marks)
{
	int col = -1, n = 0;
	int64_t end = 0;
	char mark = 0;
	sqlite3_reset(st);
	bind_named(st, ":from", from);
	bind_named(st, ":to", to);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(st, 0);
		if (col < 0) {
			col = (int)((t - tl->ax.left_ns) / tl->ax.ns_per_col);
			end = tl->ax.left_ns + (int64_t)(col + 1) * tl->ax.ns_per_col;
		}
		if (t >= end)
			break;
		n++;
		if (!mark || mark == '^')
			mark = kind_mark((const char *)sqlite3_column_text(st, 1));
	}
	if (col >= 0 && col < tl->ax.cols && n <= MARKS_FEW)
		marks[col] = mark;
	return col;
}

/* timeline.events for lane @l, reading up to one row past MARKS_FEW. */
static sqlite3_stmt *prepare_events(struct view *v, const struct lane *l)
{
	sqlite3_stmt *st = prepare(v, "timeline.events", l->tid, 0, 0);
	if (st)
		bind_named(st, ":limit", MARKS_FEW + 1);
	return st;
}

/* Fill @marks with the letters of the columns that hold few events: one
 * lookup per column that holds any, each from that column on. */
static void lane_marks(struct view *v, const struct lane *l, char *marks)
{
	struct timeline *tl = v->priv;
	int64_t left = tl->ax.left_ns, npc = tl->ax.ns_per_col, right = left + npc * tl->ax.cols;
	sqlite3_stmt *st = prepare_events(v, l);
	memset(marks, 0, (size_t)tl->ax.cols);
	for (int64_t from = left, c; st && from < right; from = left + (c + 1) * npc)
		if ((c = mark_column(tl, st, from, right, marks)) < 0)
			break;
	sqlite3_finalize(st);
}

/* The level of timeline_levels to draw @l from: the coarsest it has whose
 * buckets fit twice or more in a column; -1 when it has none (a lane with
 * few rows, or zoomed in further than its levels go): read it exactly. */
static int lane_level(struct view *v, const struct lane *l)
{
	struct timeline *tl = v->priv;
	int level = 0, found = -1;
	while (level < 30 && (int64_t)2 << (2 * (level + 1)) <= tl->ax.ns_per_col)
		level++;
	sqlite3_stmt *st = level ? prepare(v, "timeline.level", l->tid, 0, 0) : NULL;
	if (st) {
		bind_named(st, ":level", level);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
			found = sqlite3_column_int(st, 0);
	}
	sqlite3_finalize(st);
	return found;
}

/* Fill @cells and @marks from @level of timeline_levels: each bucket covers
 * its columns as a state does; a column with more buckets holding an event
 * than MARKS_FEW and the two it may share with its neighbours holds too
 * many events for a letter, and the others are looked up (mark_column). */
static void lane_from_level(struct view *v, const struct lane *l, int level, enum lane_state *cells, char *marks)
{
	static const int nr_states = sizeof(timeline_level_states) / sizeof(timeline_level_states[0]);
	struct timeline *tl = v->priv;
	int cols = tl->ax.cols;
	int64_t left = tl->ax.left_ns, npc = tl->ax.ns_per_col, right = left + npc * cols, width_ns = (int64_t)1 << (2 * level);
	int64_t(*cover)[NR_LANE_STATES] = calloc((size_t)cols, sizeof(*cover));
	int *events = calloc((size_t)cols, sizeof(*events));
	sqlite3_stmt *st = cover && events ? prepare(v, "timeline.level_rows", l->tid, left, right) : NULL;
	memset(cells, 0, (size_t)cols * sizeof(*cells));
	memset(marks, 0, (size_t)cols);
	if (st)
		bind_named(st, ":level", level);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		int64_t start = sqlite3_column_int64(st, 0);
		const uint8_t *bytes = sqlite3_column_blob(st, 1);
		int64_t n = sqlite3_column_bytes(st, 1), i = left > start ? (left - start) / width_ns : 0;
		for (; bytes && i < n && start + i * width_ns < right; i++) {
			int64_t s = start + i * width_ns, e = s + width_ns;
			int state = bytes[i] & ((1 << TL_LEVEL_EVENT_SHIFT) - 1);
			if (state > 0 && state < nr_states)
				cover_add(tl, cover, s, e, state_of(timeline_level_states[state]));
			if (!(bytes[i] >> TL_LEVEL_EVENT_SHIFT))
				continue;
			int c0 = s <= left ? 0 : (int)((s - left) / npc), c1 = e >= right ? cols - 1 : (int)((e - 1 - left) / npc);
			for (int c = c0; c <= c1; c++)
				events[c]++;
		}
	}
	sqlite3_finalize(st);
	if (cover)
		cells_from_cover(cols, cover, cells);
	st = events ? prepare_events(v, l) : NULL;
	for (int c = 0; st && c < cols; c++)
		if (events[c] && events[c] <= MARKS_FEW + 2)
			mark_column(tl, st, left + c * npc, left + (c + 1) * npc, marks);
	sqlite3_finalize(st);
	free(cover);
	free(events);
}

/* @l's label, "name (tid)" (threads often share a name), in @buf; with
 * @width > 0 its name is cut to fit @width, the tid kept whole. */
static void lane_label(const struct lane *l, char *buf, size_t size, int width)
{
	char tid[32];
	int n = snprintf(tid, sizeof(tid), " (%lld)", (long long)l->tid);
	const char *name = l->name ? l->name : "?";
	int room = width > 0 ? width - n : (int)strlen(name);
	snprintf(buf, size, "%.*s%s", room > 0 ? room : 0, name, tid);
}

static void draw_lane(struct view *v, struct lane *l, int y, bool selected)
{
	struct timeline *tl = v->priv;
	int cols = tl->ax.cols, x0 = tl->name_cols;
	enum lane_state *cells = l->cells;
	char *marks = l->marks, name[64];
	int cursor = (int)((tl->ax.cursor_ns - tl->ax.left_ns) / tl->ax.ns_per_col);
	lane_label(l, name, sizeof(name), x0 - 1);
	display_text(y, 0, x0 - 1, selected ? STYLE_SELECTED : STYLE_NORMAL, true, name);
	if (!cells || !marks || l->cached_left != tl->ax.left_ns || l->cached_npc != tl->ax.ns_per_col ||
	    l->cached_cols != cols) {
		free(l->cells);
		free(l->marks);
		l->cells = cells = calloc((size_t)cols, sizeof(*cells));
		l->marks = marks = calloc((size_t)cols, 1);
		if (!cells || !marks)
			return;
		int level = lane_level(v, l);
		if (level >= 0) {
			lane_from_level(v, l, level, cells, marks);
		} else {
			lane_states(v, l, cells);
			lane_marks(v, l, marks);
		}
		l->cached_left = tl->ax.left_ns;
		l->cached_npc = tl->ax.ns_per_col;
		l->cached_cols = cols;
	}
	for (int c = 0; c < cols; c++) {
		/* A letter in the colour of the state it happened in. */
		enum display_style style = cells[c] ? display_state_style(TS_OF(cells[c])) : STYLE_MARK;
		if (selected && c == cursor)
			style = STYLE_CURSOR;
		if (marks[c])
			display_text(y, x0 + c, 1, style, false, (char[]){ marks[c], 0 });
		else if (cells[c])
			display_glyph(y, x0 + c, 1, display_state_glyph(TS_OF(cells[c])), style);
		else if (selected && c == cursor)
			display_glyph(y, x0 + c, 1, GLYPH_CURSOR, STYLE_CURSOR);
	}
}

/*
 * The legend: every state's glyph and every event's letter, named, on as
 * many lines as @width needs, up to @rows (drawn from row @y unless @y <
 * 0). Returns the lines it takes.
 */
static int draw_legend(int y, int width, int rows)
{
	static const char *const state_names[NR_THREAD_STATES] = {
#define X(e, name, total, pct, label, waiting) label,
		THREAD_STATES(X)
#undef X
	};
	int x = 0, line = 0;
	for (size_t i = 0; i < NR_THREAD_STATES + NR_MARKS && line < rows; i++) {
		bool state = i < NR_THREAD_STATES;
		const char *name = state ? state_names[i] : marks_of_kinds[i - NR_THREAD_STATES].kind;
		int w = 2 + (int)strlen(name);
		if (x && x + 2 + w > width) {
			line++;
			x = 0;
		}
		if (line == rows)
			break;
		x += x ? 2 : 0;
		if (y >= 0 && state)
			display_glyph(y + line, x, 1, display_state_glyph((enum thread_state)i),
				      display_state_style((enum thread_state)i));
		else if (y >= 0)
			display_text(y + line, x, 1, STYLE_HEADER, false, (char[]){ marks_of_kinds[i - NR_THREAD_STATES].mark, 0 });
		if (y >= 0)
			display_text(y + line, x + 2, width - x - 2, STYLE_HEADER, false, name);
		x += w;
	}
	return line + (x > 0);
}

static const struct lane *selected_lane(const struct view *v)
{
	const struct timeline *tl = v->priv;
	return tl->nr_shown ? &tl->lanes[tl->shown[tl->sel]] : NULL;
}

/* The detail line: the selected lane's state under the cursor, why, what
 * ended it, and the sync op in the cursor's column. */
static void draw_detail(struct view *v, int y, int width)
{
	struct timeline *tl = v->priv;
	const struct lane *l = selected_lane(v);
	char line[1024], len[32];
	size_t used;
	if (!l) {
		display_text(y, 0, width, STYLE_NORMAL, true, "no lanes (f changes the filter)");
		return;
	}
	lane_label(l, line, sizeof(line), 0);
	used = strlen(line);
	used += (size_t)snprintf(line + used, sizeof(line) - used, ": ");
	/* The state from thread_states; why, from state_causes (waits only). */
	sqlite3_stmt *st = prepare(v, "timeline.state_at", l->tid, tl->ax.cursor_ns, tl->ax.cursor_ns);
	int64_t start = 0, end = 0;
	bool alive = st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 1) > tl->ax.cursor_ns;
	if (alive) {
		start = sqlite3_column_int64(st, 0);
		end = sqlite3_column_int64(st, 1);
		used += (size_t)snprintf(line + used, sizeof(line) - used, "%s %s", sqlite3_column_text(st, 2),
					 timefmt_duration((uint64_t)(end - start), len, sizeof(len)));
	} else {
		used += (size_t)snprintf(line + used, sizeof(line) - used, "not alive");
	}
	sqlite3_finalize(st);
	st = alive ? prepare(v, "timeline.cause_at", l->tid, tl->ax.cursor_ns, tl->ax.cursor_ns) : NULL;
	if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 1) == start && used < sizeof(line)) {
		const char *cause = (const char *)sqlite3_column_text(st, 3), *addr = (const char *)sqlite3_column_text(st, 4),
			   *kind = (const char *)sqlite3_column_text(st, 5), *op = (const char *)sqlite3_column_text(st, 6),
			   *syscall = (const char *)sqlite3_column_text(st, 7), *ended = (const char *)sqlite3_column_text(st, 9),
			   *waker = (const char *)sqlite3_column_text(st, 11);
		if (kind)
			used += (size_t)snprintf(line + used, sizeof(line) - used, ", %s %s %s", kind, addr ? addr : "",
						 op ? op : "");
		else
			used += (size_t)snprintf(line + used, sizeof(line) - used, ", %s", syscall ? syscall : cause ? cause : "?");
		if (ended && !strcmp(ended, "thread") && used < sizeof(line))
			used += (size_t)snprintf(line + used, sizeof(line) - used, ", woken by %s", waker ? waker : "?");
		else if (ended && used < sizeof(line))
			used += (size_t)snprintf(line + used, sizeof(line) - used, ", ended by %s", ended);
	}
	sqlite3_finalize(st);
	int64_t column_ns = tl->ax.left_ns + (tl->ax.cursor_ns - tl->ax.left_ns) / tl->ax.ns_per_col * tl->ax.ns_per_col;
	st = prepare(v, "timeline.op_at", l->tid, column_ns, column_ns + tl->ax.ns_per_col);
	if (st && sqlite3_step(st) == SQLITE_ROW && used < sizeof(line))
		snprintf(line + used, sizeof(line) - used, " | op %s %s %s%s", sqlite3_column_text(st, 0),
			 sqlite3_column_text(st, 2), sqlite3_column_text(st, 1), sqlite3_column_int(st, 3) ? " blocked" : "");
	sqlite3_finalize(st);
	display_text(y, 0, width, STYLE_NORMAL, true, line);
}

static void timeline_draw(struct view *v, int y, int height, int width)
{
	struct timeline *tl = v->priv;
	/* The legend takes what it needs, up to a third of the lanes' rows. */
	int legend = draw_legend(-1, width, height > 4 ? (height - 2) / 3 : 0);
	tl->name_cols = view_label_cols(width);
	tl->ax.cols = width - tl->name_cols;
	tl->lane_rows = height - 2 - legend;
	time_axis_clamp(&tl->ax);
	if (tl->sel < tl->top)
		tl->top = tl->sel;
	if (tl->sel >= tl->top + tl->lane_rows)
		tl->top = tl->sel - tl->lane_rows + 1;
	time_axis_draw(&tl->ax, y, tl->name_cols, width, "thread", v->b->origin_ns);
	for (int i = 0; i < tl->lane_rows && tl->top + i < tl->nr_shown; i++)
		draw_lane(v, &tl->lanes[tl->shown[tl->top + i]], y + 1 + i, tl->top + i == tl->sel);
	draw_legend(y + height - 1 - legend, width, legend);
	draw_detail(v, y + height - 1, width);
}

static void timeline_status(const struct view *v, char *buf, size_t size)
{
	const struct timeline *tl = v->priv;
	char npc[32], at[32];
	int64_t t = tl->ax.cursor_ns - v->b->origin_ns;
	snprintf(buf, size, "lane %d of %d%s%s  at %s  %s a column", tl->nr_shown ? tl->sel + 1 : 0, tl->nr_shown,
		 tl->filter ? ", filter " : "", tl->filter ? tl->filter : "",
		 timefmt_duration(t < 0 ? 0 : (uint64_t)t, at, sizeof(at)),
		 timefmt_duration((uint64_t)tl->ax.ns_per_col, npc, sizeof(npc)));
}

/* Keep the lanes named by @text: a thread pattern, or an object (0xADDR or
 * its id after '#') whose threads are kept. NULL or empty: all lanes. */
static int apply_filter(struct view *v, const char *text)
{
	struct timeline *tl = v->priv;
	struct mtx_match *m = NULL;
	char *err = NULL, label[96];
	int64_t object = 0;
	bool by_object = text && (!strncmp(text, "0x", 2) || text[0] == '#');
	sqlite3_stmt *st = NULL;
	int64_t *tids = NULL;
	size_t nr_tids = 0;

	if (by_object) {
		object = strtoll(text[0] == '#' ? text + 1 : text, NULL, 0);
		struct mtx_query_params p = { .addr = object, .has_addr = text[0] != '#', .object_id = object,
					      .has_object_id = text[0] == '#' };
		st = view_prepare(v, "timeline.object_threads", &p, NULL);
		if (st) {
			while (sqlite3_step(st) == SQLITE_ROW) {
				int64_t *more = realloc(tids, (nr_tids + 1) * sizeof(*tids));
				if (!more)
					break;
				tids = more;
				tids[nr_tids++] = sqlite3_column_int64(st, 0);
			}
		}
		sqlite3_finalize(st);
	} else if (text && *text) {
		m = match_compile(text, &err);
		if (!m) {
			view_message(v->b, "%s", err ? err : "bad pattern");
			free(err);
			return -EINVAL;
		}
	}
	tl->nr_shown = 0;
	for (int i = 0; i < tl->nr_lanes; i++) {
		bool keep = true;
		if (by_object) {
			keep = false;
			for (size_t k = 0; k < nr_tids; k++)
				keep |= tids[k] == tl->lanes[i].tid;
		} else if (m) {
			lane_label(&tl->lanes[i], label, sizeof(label), 0);
			keep = match_test(m, label);
		}
		if (keep)
			tl->shown[tl->nr_shown++] = i;
	}
	free(tids);
	match_free(m);
	free(tl->filter);
	tl->filter = text && *text ? strdup(text) : NULL;
	tl->sel = tl->top = 0;
	if (!tl->nr_shown)
		view_message(v->b, "no lane matches %s", text);
	return 0;
}

static int timeline_view_load(struct view *v, char **err)
{
	struct timeline *tl = v->priv;
	sqlite3_stmt *st = view_prepare(v, "timeline.lanes", NULL, err);
	if (!st)
		return -EIO;
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct lane *more = realloc(tl->lanes, (size_t)(tl->nr_lanes + 1) * sizeof(*more));
		if (!more)
			break;
		tl->lanes = more;
		struct lane *l = &tl->lanes[tl->nr_lanes++];
		memset(l, 0, sizeof(*l));
		l->tid = sqlite3_column_int64(st, 0);
		l->name = sqlite3_column_text(st, 1) ? strdup((const char *)sqlite3_column_text(st, 1)) : NULL;
		l->start_ns = sqlite3_column_int64(st, 2);
		l->end_ns = sqlite3_column_int64(st, 3);
	}
	sqlite3_finalize(st);
	tl->shown = calloc((size_t)(tl->nr_lanes ? tl->nr_lanes : 1), sizeof(int));
	if (!tl->shown)
		return -ENOMEM;
	apply_filter(v, NULL);
	tl->ax = (struct time_axis){ .start_ns = v->b->origin_ns, .end_ns = v->b->end_ns, .left_ns = v->b->origin_ns,
				     .cursor_ns = v->b->origin_ns,
				     .ns_per_col = INT64_MAX / 4 /* the whole run, once the width is known */ };
	return 0;
}

/* Move the cursor to @t; an event query's NULL (none) leaves it. */
static void cursor_to_result(struct view *v, sqlite3_stmt *st, const char *none)
{
	struct timeline *tl = v->priv;
	if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		tl->ax.cursor_ns = sqlite3_column_int64(st, 0);
	else
		view_message(v->b, "%s", none);
	sqlite3_finalize(st);
}

/* Follow the wakeup that ended the selected lane's wait under the cursor. */
static void follow_wakeup(struct view *v)
{
	struct timeline *tl = v->priv;
	const struct lane *l = selected_lane(v);
	if (!l)
		return;
	sqlite3_stmt *st = prepare(v, "timeline.cause_at", l->tid, tl->ax.cursor_ns, tl->ax.cursor_ns);
	if (!st || sqlite3_step(st) != SQLITE_ROW || sqlite3_column_int64(st, 2) <= tl->ax.cursor_ns ||
	    !strcmp((const char *)sqlite3_column_text(st, 0), thread_state_name(TS_RUNNING))) {
		view_message(v->b, "the cursor is not on a wait of this thread");
		sqlite3_finalize(st);
		return;
	}
	int64_t start = sqlite3_column_int64(st, 1), end = sqlite3_column_int64(st, 2);
	sqlite3_finalize(st);
	st = prepare(v, "timeline.wakeup", l->tid, start, end);
	if (!st || sqlite3_step(st) != SQLITE_ROW) {
		view_message(v->b, "no wakeup ended this wait (a timeout, a signal, or preemption)");
		sqlite3_finalize(st);
		return;
	}
	int64_t ts = sqlite3_column_int64(st, 0), waker = sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	tl->ax.cursor_ns = ts;
	for (int i = 0; i < tl->nr_shown; i++) {
		const struct lane *w = &tl->lanes[tl->shown[i]];
		if (w->tid == waker && w->start_ns <= ts && ts <= w->end_ns) {
			tl->sel = i;
			view_message(v->b, "woken by %s (%lld)", w->name ? w->name : "?", (long long)waker);
			return;
		}
	}
	view_message(v->b, waker ? "woken by tid %lld, which has no lane here" : "woken by an interrupt (tid %lld)",
		     (long long)waker);
}

/* Select the next lane (@backward: the previous; @from_selected: this one
 * first) whose "name (tid)" the last search matches, round the ends. */
static void search_lanes(struct view *v, bool backward, bool from_selected)
{
	struct timeline *tl = v->priv;
	char label[96];
	long rank = 0, total = 0;
	int found = -1;
	bool wrapped = false;
	if (!v->search) {
		view_message(v->b, "no search yet: press /");
		return;
	}
	for (int k = from_selected ? 0 : 1; k <= tl->nr_shown && found < 0; k++) {
		int at = tl->sel + (backward ? -k : k), i = (at % tl->nr_shown + tl->nr_shown) % tl->nr_shown;
		lane_label(&tl->lanes[tl->shown[i]], label, sizeof(label), 0);
		if (match_test(v->search, label)) {
			found = tl->sel = i;
			wrapped = at < 0 || at >= tl->nr_shown;
		}
	}
	for (int i = 0; found >= 0 && i < tl->nr_shown; i++) {
		lane_label(&tl->lanes[tl->shown[i]], label, sizeof(label), 0);
		if (match_test(v->search, label) && ++total && i == found)
			rank = total;
	}
	view_say_found(v, "lane", rank, total, backward, wrapped);
}

static enum reaction timeline_act(struct view *v, enum action a)
{
	struct timeline *tl = v->priv;
	const struct lane *l = selected_lane(v);
	int page = tl->lane_rows > 1 ? tl->lane_rows - 1 : 1;
	char *text, *err = NULL;

	if (time_axis_act(&tl->ax, v->b, a))
		return REACT_REDRAW;
	switch (a) {
	case ACT_UP:
	case ACT_DOWN:
	case ACT_PAGE_UP:
	case ACT_PAGE_DOWN: {
		int step = a == ACT_UP ? -1 : a == ACT_DOWN ? 1 : a == ACT_PAGE_UP ? -page : page;
		tl->sel += step;
		if (tl->sel >= tl->nr_shown)
			tl->sel = tl->nr_shown - 1;
		if (tl->sel < 0)
			tl->sel = 0;
		break;
	}
	case ACT_NEXT_EVENT:
	case ACT_PREV_EVENT:
		if (l)
			cursor_to_result(v,
					 prepare(v, a == ACT_NEXT_EVENT ? "timeline.next_event" : "timeline.prev_event",
						 l->tid, tl->ax.cursor_ns, tl->ax.cursor_ns),
					 a == ACT_NEXT_EVENT ? "no later event on this lane" : "no earlier event on this lane");
		break;
	case ACT_FOLLOW_WAKEUP:
		follow_wakeup(v);
		break;
	case ACT_SEARCH:
		text = display_prompt("search lanes: ");
		if (text && *text) {
			struct mtx_match *m = match_compile(text, &err);
			if (m) {
				match_free(v->search);
				free(v->search_text);
				v->search = m;
				v->search_text = text;
				text = NULL;
				search_lanes(v, false, true);
			} else {
				view_message(v->b, "%s", err ? err : "bad pattern");
			}
			free(err);
		}
		free(text);
		break;
	case ACT_SEARCH_NEXT:
	case ACT_SEARCH_PREV:
		search_lanes(v, a == ACT_SEARCH_PREV, false);
		break;
	case ACT_FILTER:
		text = display_prompt("lanes of threads matching, or of object 0xADDR / #ID (empty: all): ");
		if (text)
			apply_filter(v, text);
		free(text);
		break;
	case ACT_OPEN: {
		/* On a wait for an object: its history, on that wait's op. */
		struct mtx_query_params p = { .tid = l ? l->tid : 0, .has_tid = true, .from = tl->ax.cursor_ns,
					      .has_from = true };
		if (!l)
			return REACT_NONE;
		v->pushed = history_view_of_wait(v, "object.wait_at", &p, -1);
		if (!v->pushed)
			v->pushed = thread_view_new(v->b, l->tid);
		return v->pushed ? REACT_PUSH : REACT_REDRAW;
	}
	default:
		return REACT_UNHANDLED;
	}
	time_axis_clamp(&tl->ax);
	return REACT_REDRAW;
}

static void timeline_view_free(struct view *v)
{
	struct timeline *tl = v->priv;
	for (int i = 0; i < tl->nr_lanes; i++) {
		free(tl->lanes[i].name);
		free(tl->lanes[i].cells);
		free(tl->lanes[i].marks);
	}
	free(tl->lanes);
	free(tl->shown);
	free(tl->filter);
	free(tl);
}

static const struct view_ops timeline_view_ops = {
	.name = "timeline",
	.load = timeline_view_load,
	.act = timeline_act,
	.draw = timeline_draw,
	.status = timeline_status,
	.free = timeline_view_free,
};

struct view *timeline_view_new(struct browse *b)
{
	struct timeline *tl = calloc(1, sizeof(*tl));
	struct view *v = tl ? view_new(b, &timeline_view_ops, "timeline", NULL) : NULL;
	if (!v) {
		free(tl);
		return NULL;
	}
	v->priv = tl;
	return v;
}
