/*
 * ui/time-axis.c - see time-axis.h.
 */
#include "config.h"
#include "ui/time-axis.h"
#include "ui/display.h"
#include "src/timefmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LABEL_EVERY 20 /* columns between time labels */
#define MIN_NS_PER_COL 10

void time_axis_clamp(struct time_axis *ax)
{
	int64_t span = ax->end_ns - ax->start_ns, cols = ax->cols > 0 ? ax->cols : 1;
	int64_t widest = (span + cols - 1) / cols;
	if (ax->ns_per_col > widest)
		ax->ns_per_col = widest > 0 ? widest : 1;
	if (ax->ns_per_col < MIN_NS_PER_COL)
		ax->ns_per_col = MIN_NS_PER_COL;
	if (ax->cursor_ns < ax->start_ns)
		ax->cursor_ns = ax->start_ns;
	if (ax->cursor_ns >= ax->end_ns)
		ax->cursor_ns = ax->end_ns - 1;
	/* Keep the cursor inside the window, moving the window by half a screen. */
	int64_t width_ns = ax->ns_per_col * cols;
	if (ax->cursor_ns < ax->left_ns || ax->cursor_ns >= ax->left_ns + width_ns)
		ax->left_ns = ax->cursor_ns - width_ns / 2;
	if (ax->left_ns > ax->end_ns - width_ns)
		ax->left_ns = ax->end_ns - width_ns;
	if (ax->left_ns < ax->start_ns)
		ax->left_ns = ax->start_ns;
}

int64_t time_axis_column(const struct time_axis *ax, int64_t t)
{
	int64_t d = t - ax->left_ns;
	/* rounded down below the left edge too */
	return d >= 0 ? d / ax->ns_per_col : -((-d + ax->ns_per_col - 1) / ax->ns_per_col);
}

void time_axis_draw(const struct time_axis *ax, int y, int x0, int width, const char *label, int64_t origin_ns)
{
	char line[1024], text[32];
	memset(line, ' ', sizeof(line));
	snprintf(line, (size_t)x0, "%s", label);
	line[strlen(line)] = ' ';
	for (int c = 0; c < ax->cols; c += LABEL_EVERY) {
		int64_t t = ax->left_ns + (int64_t)c * ax->ns_per_col - origin_ns;
		int n = snprintf(text, sizeof(text), "|%s", timefmt_duration(t < 0 ? 0 : (uint64_t)t, text + 16, 16));
		if (x0 + c + n < (int)sizeof(line) - 1)
			memcpy(line + x0 + c, text, (size_t)n);
	}
	int64_t cursor = time_axis_column(ax, ax->cursor_ns);
	if (cursor >= 0 && cursor < ax->cols && x0 + cursor < (int)sizeof(line) - 1)
		line[x0 + cursor] = 'v';
	line[width < (int)sizeof(line) ? width : (int)sizeof(line) - 1] = 0;
	display_text(y, 0, width, STYLE_HEADER, true, line);
}

bool time_axis_act(struct time_axis *ax, struct browse *b, enum action a)
{
	int64_t npc = ax->ns_per_col, offset;
	char *text;
	switch (a) {
	case ACT_LEFT:
		ax->cursor_ns -= npc;
		break;
	case ACT_RIGHT:
		ax->cursor_ns += npc;
		break;
	case ACT_FIRST:
		ax->cursor_ns = ax->start_ns;
		break;
	case ACT_LAST:
		ax->cursor_ns = ax->end_ns - 1;
		break;
	case ACT_ZOOM_IN:
	case ACT_ZOOM_OUT: {
		/* Keep the cursor on the same screen column. */
		int64_t col = (ax->cursor_ns - ax->left_ns) / npc;
		ax->ns_per_col = a == ACT_ZOOM_IN ? npc / 2 : npc * 2;
		time_axis_clamp(ax);
		ax->left_ns = ax->cursor_ns - col * ax->ns_per_col;
		break;
	}
	case ACT_JUMP_TIME:
		text = display_prompt("jump to time since the start (1.5s, 200ms, 30us): ");
		if (text && *text) {
			if (timefmt_parse_offset(text, &offset))
				view_message(b, "'%s' is not a time such as 1.5s, 200ms, 30us or 10ns", text);
			else
				ax->cursor_ns = ax->start_ns + offset;
		}
		free(text);
		break;
	default:
		return false;
	}
	time_axis_clamp(ax);
	return true;
}
