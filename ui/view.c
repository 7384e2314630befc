/*
 * ui/view.c - what every tabular view does the same way (see view.h).
 */
#define _GNU_SOURCE
#include "config.h"
#include "ui/view.h"
#include "ui/display.h"
#include "src/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Paged views keep at most this many rows; fetching more drops the far end. */
#define PAGED_MAX_ROWS 2000

struct view *view_new(struct browse *b, const struct view_ops *ops, const char *title,
		      const struct mtx_query_params *params)
{
	struct view *v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	v->b = b;
	v->ops = ops;
	v->title = strdup(title);
	if (params)
		v->params = *params;
	v->table.sticky_header = true;
	v->found.total = -1;
	return v;
}

void view_free(struct view *v)
{
	if (!v)
		return;
	if (v->ops->free)
		v->ops->free(v);
	table_clear(&v->table);
	match_free(v->search);
	match_free(v->filter);
	free(v->search_text);
	free(v->filter_text);
	free(v->order.section);
	free(v->title);
	free(v);
}

void view_message(struct browse *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_vset(&b->message, fmt, ap);
	va_end(ap);
}

static bool selectable(const struct view *v, size_t i)
{
	return i < v->table.nr_rows && v->table.rows[i].type == ROW_DATA && !v->table.rows[i].hidden;
}

const struct table_row *view_selected(const struct view *v)
{
	return selectable(v, v->sel) ? &v->table.rows[v->sel] : NULL;
}

const char *view_cell(const struct view *v, const char *name)
{
	const struct table_row *r = view_selected(v);
	if (!r)
		return NULL;
	const struct table_section *s = &v->table.sections[r->section];
	for (int c = 0; c < s->nr_cols; c++)
		if (!strcmp(s->names[c], name))
			return r->cells[c];
	return NULL;
}

/* view_prepare of @name's query, or with @order_col >= 0 of all its rows
 * in the order of that column (0-based) and @desc. */
static sqlite3_stmt *prepare_ordered(const struct view *v, const char *name, const struct mtx_query_params *params,
				     int order_col, bool desc, char **err)
{
	const struct mtx_query *q = query_find(name);
	sqlite3_stmt *st = NULL;
	/* On an incomplete run, with what it lacks left unknown. */
	char *run_sql = q ? query_sql(v->b->db, q, v->b->missing) : NULL, *sql = NULL;
	if (q && order_col >= 0 &&
	    asprintf(&sql, "SELECT * FROM (%s) ORDER BY %d %s", run_sql ? run_sql : q->sql, order_col + 1,
		     desc ? "DESC" : "ASC") < 0)
		sql = NULL;
	if (!q || (order_col >= 0 && !sql) ||
	    sqlite3_prepare_v2(v->b->db, sql ? sql : run_sql ? run_sql : q->sql, -1, &st, NULL) != SQLITE_OK) {
		error_set(err, "%s: %s", name, q ? sqlite3_errmsg(v->b->db) : "no such query");
		free(sql);
		free(run_sql);
		return NULL;
	}
	free(sql);
	free(run_sql);
	query_bind(st, params ? params : &v->params);
	return st;
}

sqlite3_stmt *view_prepare(const struct view *v, const char *name, const struct mtx_query_params *params,
			   char **err)
{
	return prepare_ordered(v, name, params, -1, false, err);
}

int view_load_query(struct view *v, const char *name, long max_rows, char **err)
{
	const struct mtx_query *q = query_find(name);
	bool ordered = v->order.section && !strcmp(v->order.section, name);
	sqlite3_stmt *st = prepare_ordered(v, name, NULL, ordered ? v->order.col : -1, v->order.desc, err);
	if (!st)
		return -EIO;
	/* Filtered or searched, every row: what they find, and how many,
	 * must be of all the rows, not of the first. */
	if (v->filter || v->whole)
		max_rows = -1;
	/* A query that can stop early reads one row past what is shown (the
	 * note); ordered anew, or filtered, it must give every row. */
	int limit = sqlite3_bind_parameter_index(st, ":limit");
	if (limit)
		sqlite3_bind_int64(st, limit, ordered || max_rows < 0 ? -1 : max_rows + 1);
	/* Under a filter, every row it matches, of all. */
	v->filtered_load |= v->filter != NULL;
	int section = table_add_section(&v->table, st, name, q->title);
	/* What an incomplete run leaves unknown here, first. */
	char *note = query_note(q, v->b->missing, true), *line = NULL;
	if (section >= 0 && note && asprintf(&line, "(%s)", note) > 0)
		table_add_note(&v->table, section, line);
	long n = section < 0 ? section
			     : table_load(&v->table, section, st, v->b->origin_ns, max_rows, false, v->filter, err);
	if (n >= 0 && n == max_rows && table_more(&v->table, section, st, v->b->origin_ns, v->filter)) {
		table_add_note(&v->table, section, "... more rows not shown; narrow with a drill-down or mtx report");
		v->table.sections[section].cut = true;
	} else if (n == 0 && !query_unknown(q, v->b->missing)) {
		table_add_note(&v->table, section, "(none)");
	}
	free(note);
	free(line);
	if (n >= 0 && ordered) {
		v->table.sections[section].sort_col = v->order.col;
		v->table.sections[section].sort_desc = v->order.desc;
	}
	sqlite3_finalize(st);
	return n < 0 ? (int)n : section;
}

/* The first selectable row at or after @i going in @dir; SIZE_MAX if none. */
static size_t next_selectable(const struct view *v, size_t i, int dir)
{
	for (; i < v->table.nr_rows; i += (size_t)(long)dir)
		if (selectable(v, i))
			return i;
	return SIZE_MAX;
}

/* Keep at most PAGED_MAX_ROWS: drop from the end we moved away from. */
static void trim_pages(struct view *v, bool forward)
{
	size_t n = v->table.nr_rows;
	if (n <= PAGED_MAX_ROWS)
		return;
	size_t extra = n - PAGED_MAX_ROWS;
	table_drop(&v->table, extra, forward);
	if (forward) {
		v->sel = v->sel >= extra ? v->sel - extra : 0;
		v->top = v->top >= extra ? v->top - extra : 0;
	}
}

/* Fetch a page past the loaded rows; the number of rows added. */
static long fetch_page(struct view *v, bool forward)
{
	char *err = NULL;
	if (!v->ops->page)
		return 0;
	size_t before = v->table.nr_rows;
	long n = v->ops->page(v, forward, &err);
	if (n < 0) {
		view_message(v->b, "%s", err ? err : "cannot read more rows");
		free(err);
		return 0;
	}
	if (!forward) { /* rows went in front: indexes shift */
		size_t added = v->table.nr_rows - before;
		v->sel += added;
		v->top += added;
	}
	trim_pages(v, forward);
	return n;
}

/* Move the selection by @delta selectable rows, paging in more as needed. */
static void move_selection(struct view *v, long delta)
{
	int dir = delta < 0 ? -1 : 1;
	for (long moved = 0; moved < labs(delta); moved++) {
		size_t next = v->sel + (size_t)(long)dir < v->table.nr_rows ? next_selectable(v, v->sel + (size_t)(long)dir, dir)
									   : SIZE_MAX;
		if (next == SIZE_MAX && fetch_page(v, dir > 0) > 0)
			next = next_selectable(v, v->sel + (size_t)(long)dir, dir);
		if (next == SIZE_MAX)
			break;
		v->sel = next;
	}
}

/* Scroll so the selection is on screen. */
static void follow_selection(struct view *v)
{
	int rows = v->height - (v->table.sticky_header ? 1 : 0);
	if (rows < 1)
		rows = 1;
	if (v->sel < v->top) {
		v->top = v->sel;
		/* keep a section's title and header in view above its first row */
		while (v->top > 0 && v->table.rows[v->top - 1].type != ROW_DATA && v->sel - v->top < 3)
			v->top--;
	}
	/* The highest top that still shows the selection on the last line. */
	size_t lowest = v->sel;
	for (int shown = 1; lowest > 0 && shown < rows;)
		if (!v->table.rows[--lowest].hidden)
			shown++;
	if (v->top < lowest)
		v->top = lowest;
	/* No blank lines under the last row while rows above it are hidden
	 * (a search found a row near the end). */
	int below = 0;
	for (size_t i = v->top; i < v->table.nr_rows && below < rows; i++)
		below += !v->table.rows[i].hidden;
	while (v->top > 0 && below < rows)
		below += !v->table.rows[--v->top].hidden;
}

static void jump_end(struct view *v, bool to_end)
{
	char *err = NULL;
	if (v->ops->reload) {
		table_clear(&v->table);
		v->top = v->sel = 0;
		if (v->ops->reload(v, to_end, &err)) {
			view_message(v->b, "%s", err ? err : "cannot read rows");
			free(err);
		}
	}
	size_t i = to_end ? next_selectable(v, v->table.nr_rows - 1, -1) : next_selectable(v, 0, 1);
	if (i != SIZE_MAX)
		v->sel = i;
	v->top = 0; /* follow_selection brings the selection into view */
}

/* Whether a section of @v had more rows than it loaded. */
static bool any_cut(const struct view *v)
{
	for (int i = 0; i < v->table.nr_sections; i++)
		if (v->table.sections[i].cut)
			return true;
	return false;
}

/* A pattern read at the prompt, and its text (@text, caller frees); NULL
 * when none was given (*@cleared: an empty line) or it is bad (said). */
static struct mtx_match *prompt_pattern(struct view *v, const char *label, bool *cleared, char **text)
{
	char *err = NULL;
	struct mtx_match *m = NULL;
	*text = display_prompt(label);
	*cleared = *text && !**text;
	if (*text && **text) {
		m = match_compile(*text, &err);
		if (!m)
			view_message(v->b, "%s", err ? err : "bad pattern");
		free(err);
	}
	if (!m) {
		free(*text);
		*text = NULL;
	}
	return m;
}

/*
 * Read @v's rows again from the database, under its order (v->order) and
 * filter. A reload makes the same sections in the same order; those not
 * ordered by the database keep their sort.
 */
void view_reload(struct view *v)
{
	struct table *t = &v->table;
	int nr = t->nr_sections;
	struct {
		int col;
		bool desc;
	} *kept = malloc(sizeof(*kept) * (size_t)(nr ? nr : 1));
	char *err = NULL;
	if (!kept) {
		view_message(v->b, "out of memory");
		return;
	}
	for (int i = 0; i < nr; i++) {
		kept[i].col = t->sections[i].sort_col;
		kept[i].desc = t->sections[i].sort_desc;
	}
	table_clear(t);
	v->filtered_load = false;
	v->found.total = -1;
	v->sel = v->top = 0; /* the first row, unless the load selects one */
	if (v->ops->load(v, &err))
		view_message(v->b, "%s", err ? err : "cannot read the rows again");
	free(err);
	for (int i = 0; i < t->nr_sections && i < nr; i++) {
		if (v->order.section && !strcmp(t->sections[i].name, v->order.section))
			continue;
		t->sections[i].sort_col = kept[i].col;
		t->sections[i].sort_desc = kept[i].desc;
		table_sort(t, i);
	}
	free(kept);
	table_filter(t, v->filter); /* rows a view adds by other means */
}

/* Sort the cut @section of @v by the database: the rows loaded are then
 * the first of all in the new order, not the ones loaded before,
 * reordered. */
static void resort_cut(struct view *v, int section)
{
	const struct table_section *s = &v->table.sections[section];
	char *name = strdup(s->name);
	if (!name) {
		view_message(v->b, "out of memory");
		return;
	}
	free(v->order.section);
	v->order.section = name;
	v->order.col = s->sort_col;
	v->order.desc = s->sort_desc;
	view_reload(v);
}

static void sort_next(struct view *v, bool reverse)
{
	const struct table_row *r = view_selected(v);
	int section = r ? r->section : 0;
	if (v->ops->page || section >= v->table.nr_sections) {
		view_message(v->b, "this view is in time order and cannot be sorted");
		return;
	}
	struct table_section *s = &v->table.sections[section];
	if (reverse) {
		if (s->sort_col < 0)
			s->sort_col = 0;
		s->sort_desc = !s->sort_desc;
	} else {
		s->sort_col = (s->sort_col + 1) % (s->nr_shown ? s->nr_shown : 1);
		s->sort_desc = !s->left[s->sort_col]; /* numbers: biggest first */
	}
	view_message(v->b, "sorted by %s%s", s->headers[s->sort_col], s->sort_desc ? ", descending" : "");
	if (s->cut)
		resort_cut(v, section);
	else
		table_sort(&v->table, section);
}

/* Whether row @i is selectable and v->search matches it. */
static bool row_found(const struct view *v, size_t i)
{
	char text[4096];
	if (!selectable(v, i))
		return false;
	table_row_text(&v->table, &v->table.rows[i], text, sizeof(text));
	return match_test(v->search, text);
}

/* Select the next row loaded that v->search matches (see view_ops.find). */
static int find_loaded(struct view *v, bool backward, bool from_selected, bool *wrapped)
{
	long n = (long)v->table.nr_rows, dir = backward ? -1 : 1;
	for (long k = from_selected ? 0 : 1; n && k <= n; k++) {
		long at = (long)v->sel + dir * k;
		if (!row_found(v, (size_t)((at % n + n) % n)))
			continue;
		*wrapped = at < 0 || at >= n;
		v->sel = (size_t)((at % n + n) % n);
		return 1;
	}
	return 0;
}

/* Every row of @v loaded, for a search to see them all: once a section
 * was cut, the selection kept on the same row. */
static void load_whole(struct view *v)
{
	const struct table_row *r = view_selected(v);
	int section = r ? r->section : 0;
	size_t ordinal = 0;
	for (size_t i = 0; r && i < v->sel; i++)
		ordinal += v->table.rows[i].section == section && selectable(v, i);
	v->whole = true;
	view_reload(v);
	for (size_t i = 0; i < v->table.nr_rows; i++)
		if (v->table.rows[i].section == section && selectable(v, i) && !ordinal--) {
			v->sel = i;
			break;
		}
}

/* The rank of the selected match among all (v->found), counted once per
 * search in a paged view and then followed from match to match (@before:
 * the keys of the row selected before, @step: +1 forward, -1 backward). */
static int count_found(struct view *v, const int64_t before[2], int step, bool wrapped, char **err)
{
	const struct table_row *r = view_selected(v);
	if (!v->ops->count) { /* everything is loaded: count there */
		v->found.rank = v->found.total = 0;
		for (size_t i = 0; i < v->table.nr_rows; i++)
			if (row_found(v, i)) {
				v->found.total++;
				v->found.rank += i <= v->sel;
			}
		return 0;
	}
	if (v->found.total >= 0 && step && before[0] == v->found.key[0] && before[1] == v->found.key[1])
		v->found.rank = wrapped ? (step > 0 ? 1 : v->found.total) : v->found.rank + step;
	else if (v->ops->count(v, v->search, &v->found.total, &v->found.rank, err))
		return -EIO;
	v->found.key[0] = r ? r->key[0] : 0;
	v->found.key[1] = r ? r->key[1] : 0;
	return 0;
}

/*
 * Select the next row that the last search matches, of all the view's rows
 * (of those the filter keeps), after the selection or (@backward) before
 * it, or the selected row itself first (@from_selected); past the last one
 * (the first), from the other end, as less and tig do. Says which match of
 * how many it is, and when it wrapped.
 */
static void search(struct view *v, bool backward, bool from_selected)
{
	const struct table_row *r = view_selected(v);
	int64_t before[2] = { r ? r->key[0] : 0, r ? r->key[1] : 0 };
	bool wrapped = false;
	char *err = NULL;
	int found;
	if (!v->search) {
		view_message(v->b, "no search yet: press /");
		return;
	}
	if (!v->ops->find && any_cut(v))
		load_whole(v);
	found = v->ops->find ? v->ops->find(v, v->search, backward, from_selected, &wrapped, &err)
			     : find_loaded(v, backward, from_selected, &wrapped);
	if (found > 0 && count_found(v, before, from_selected ? 0 : backward ? -1 : 1, wrapped, &err))
		found = -EIO;
	if (found < 0)
		view_message(v->b, "%s", err ? err : "cannot search the rows");
	else
		view_say_found(v, "row", found ? v->found.rank : 0, v->found.total, backward, wrapped);
	free(err);
}

void view_say_found(struct view *v, const char *what, long rank, long total, bool backward, bool wrapped)
{
	if (!rank)
		view_message(v->b, "no %s%s matches '%s'", what, v->filter ? " kept by the filter" : "", v->search_text);
	else
		view_message(v->b, "%smatch %ld of %ld for '%s'",
			     !wrapped ? "" : backward ? "search hit the top, continued at the bottom: "
						: "search hit the bottom, continued at the top: ",
			     rank, total, v->search_text);
}

enum reaction view_handle(struct view *v, enum action a)
{
	long page = v->height > 2 ? v->height - 2 : 1;
	bool cleared;
	switch (a) {
	case ACT_UP:
		move_selection(v, -1);
		break;
	case ACT_DOWN:
		move_selection(v, 1);
		break;
	case ACT_PAGE_UP:
		move_selection(v, -page);
		break;
	case ACT_PAGE_DOWN:
		move_selection(v, page);
		break;
	case ACT_FIRST:
		jump_end(v, false);
		break;
	case ACT_LAST:
		jump_end(v, true);
		break;
	case ACT_SEARCH: {
		char *text;
		struct mtx_match *m = prompt_pattern(v, "search: ", &cleared, &text);
		if (!m)
			return REACT_REDRAW;
		match_free(v->search);
		free(v->search_text);
		v->search = m;
		v->search_text = text;
		v->found.total = -1;
		search(v, false, true);
		break;
	}
	case ACT_SEARCH_NEXT:
		search(v, false, false);
		break;
	case ACT_SEARCH_PREV:
		search(v, true, false);
		break;
	case ACT_SORT:
		sort_next(v, false);
		break;
	case ACT_SORT_REVERSE:
		sort_next(v, true);
		break;
	case ACT_FILTER: {
		char *text;
		struct mtx_match *m = prompt_pattern(v, "filter (empty: all rows): ", &cleared, &text);
		if (!m && !cleared)
			return REACT_REDRAW;
		match_free(v->filter);
		free(v->filter_text);
		v->filter = m;
		v->filter_text = text;
		/* Rows past those loaded, or left out by the last filter, can
		 * match: the database gives them. */
		if (v->ops->load && (v->ops->page || any_cut(v) || v->filtered_load))
			view_reload(v);
		else
			table_filter(&v->table, m);
		v->found.total = -1;
		if (!selectable(v, v->sel)) {
			size_t i = next_selectable(v, 0, 1);
			v->sel = i == SIZE_MAX ? 0 : i;
		}
		v->top = 0;
		break;
	}
	default:
		return REACT_UNHANDLED;
	}
	follow_selection(v);
	return REACT_REDRAW;
}

void view_draw(struct view *v, int y, int height, int width)
{
	v->height = height;
	if (!selectable(v, v->sel)) {
		size_t i = next_selectable(v, v->sel, 1);
		if (i != SIZE_MAX)
			v->sel = i;
	}
	follow_selection(v);
	if (v->ops->draw) {
		v->ops->draw(v, y, height, width);
		return;
	}
	table_draw(&v->table, y, height, width, v->top, selectable(v, v->sel) ? v->sel : SIZE_MAX);
}

void view_status(const struct view *v, char *buf, size_t size)
{
	size_t data = 0, index = 0;
	if (v->ops->status) {
		v->ops->status(v, buf, size);
		return;
	}
	for (size_t i = 0; i < v->table.nr_rows; i++)
		if (selectable(v, i)) {
			data++;
			if (i <= v->sel)
				index = data;
		}
	if (v->ops->page)
		snprintf(buf, size, "row %zu of %zu loaded", index, data);
	else
		snprintf(buf, size, "row %zu of %s%zu%s", index, any_cut(v) ? "the first " : "", data,
			 v->filter ? " (filtered)" : "");
}
