/*
 * ui/time-axis.h - a time axis over screen columns, with a time cursor:
 * what the views that draw lanes over time (the timeline, the
 * probe-effect view) scroll and zoom alike, with the same keys.
 */
#ifndef MTX_TIME_AXIS_H
#define MTX_TIME_AXIS_H

#include "ui/view.h"

#include <stdbool.h>
#include <stdint.h>

struct time_axis {
	int64_t start_ns, end_ns; /* what can be shown */
	int64_t left_ns;          /* the first column's start */
	int64_t ns_per_col;       /* INT64_MAX / 4: the whole span, once cols is known */
	int64_t cursor_ns;
	int cols;                 /* of the last frame */
};

/* time_axis_clamp - keep the zoom within one column of 10 ns and the
 * whole span, the cursor within the span, and the window on the cursor
 * (moved by half a screen when it leaves). */
void time_axis_clamp(struct time_axis *ax);

/* time_axis_column - the column of @t, which may be < 0 or >= cols. */
int64_t time_axis_column(const struct time_axis *ax, int64_t t);

/* time_axis_draw - the axis on row @y: @label, then from column @x0 a time
 * since @origin_ns every 20 columns, and a 'v' over the cursor. */
void time_axis_draw(const struct time_axis *ax, int y, int x0, int width, const char *label, int64_t origin_ns);

/* time_axis_act - the axis's keys: the cursor a column left or right, to
 * either end, zoom in or out around it, or to a time asked for (said on
 * @b's status line when it is not one). Returns whether @a was one. */
bool time_axis_act(struct time_axis *ax, struct browse *b, enum action a);

#endif
