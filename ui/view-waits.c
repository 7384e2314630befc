/*
 * ui/view-waits.c - where each thread's lifetime went, as one bar per
 * thread: running, runnable, blocked on sync, blocked on I/O, sleeping,
 * other blocked. The shares are the threads report's (seed 001 Table 1);
 * Enter opens the thread: the objects, syscalls and wakers behind its waits.
 */
#include "config.h"
#include "ui/display.h"
#include "ui/views.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The threads query's share columns, in bar order: one a thread state. */
static const struct {
	const char *column, *label;
} parts[] = {
#define X(e, name, total, pct, label, waiting) { pct, label },
	THREAD_STATES(X)
#undef X
};
#define NR_PARTS (sizeof(parts) / sizeof(parts[0]))

static int waits_load(struct view *v, char **err)
{
	int rc = view_load_query(v, "threads", -1, err);
	return rc < 0 ? rc : 0;
}

static int column_of(const struct table_section *s, const char *name)
{
	for (int c = 0; c < s->nr_cols; c++)
		if (!strcmp(s->names[c], name))
			return c;
	return -1;
}

static void draw_legend(int y, int width)
{
	int x = view_label_cols(width);
	display_text(y, 0, width, STYLE_HEADER, true, "thread");
	for (size_t p = 0; p < NR_PARTS && x < width; p++) {
		display_glyph(y, x, 1, display_state_glyph((enum thread_state)p), display_state_style((enum thread_state)p));
		display_text(y, x + 2, width - x - 2, STYLE_HEADER, false, parts[p].label);
		x += (int)strlen(parts[p].label) + 4;
	}
}

static void draw_bar(const struct view *v, const struct table_row *r, int y, int width, bool selected)
{
	const struct table_section *s = &v->table.sections[r->section];
	char name[64];
	int tid = column_of(s, "tid"), tname = column_of(s, "name"), x0 = view_label_cols(width);
	snprintf(name, sizeof(name), "%s (%s)", tname >= 0 ? r->cells[tname] : "?", tid >= 0 ? r->cells[tid] : "?");
	display_text(y, 0, x0 - 1, selected ? STYLE_SELECTED : STYLE_NORMAL, true, name);
	/* Each part ends where its cumulative share rounds to, so the parts
	 * always fill the bar exactly. */
	int bar = width - x0 - 1, x = x0;
	double share[NR_PARTS], total = 0, cumulative = 0;
	for (size_t p = 0; p < NR_PARTS; p++) {
		int c = column_of(s, parts[p].column);
		share[p] = c >= 0 && r->values[c] > 0 ? r->values[c] : 0;
		total += share[p];
	}
	for (size_t p = 0; p < NR_PARTS && total > 0; p++) {
		cumulative += share[p];
		int end = x0 + (int)(cumulative / total * bar + 0.5);
		display_glyph(y, x, end - x, display_state_glyph((enum thread_state)p),
			      display_state_style((enum thread_state)p));
		x = end;
	}
}

static void waits_draw(struct view *v, int y, int height, int width)
{
	draw_legend(y++, width);
	height--;
	for (size_t i = v->top; i < v->table.nr_rows && height > 0; i++) {
		const struct table_row *r = &v->table.rows[i];
		if (r->hidden || r->type != ROW_DATA)
			continue;
		draw_bar(v, r, y++, width, i == v->sel);
		height--;
	}
}

static enum reaction waits_act(struct view *v, enum action a)
{
	const char *tid = view_cell(v, "tid");
	if (a != ACT_OPEN)
		return REACT_UNHANDLED;
	if (!tid)
		return REACT_NONE;
	v->pushed = thread_view_new(v->b, strtoll(tid, NULL, 10));
	return v->pushed ? REACT_PUSH : REACT_REDRAW;
}

static const struct view_ops waits_view_ops = {
	.name = "waits",
	.load = waits_load,
	.act = waits_act,
	.draw = waits_draw,
};

struct view *waits_view_new(struct browse *b)
{
	return view_new(b, &waits_view_ops, "waits", NULL);
}
