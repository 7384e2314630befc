/*
 * ui/actions.c - the table of actions and their keys (see actions.h).
 */
#include "config.h"
#include "ui/actions.h"

#include <curses.h>

#define CTRL(c) ((c) & 0x1f)

static const struct action_info actions[] = {
	{ ACT_UP, "up", "all views", "Up, k", { KEY_UP, 'k' }, "the row (timeline: lane) above" },
	{ ACT_DOWN, "down", "all views", "Down, j", { KEY_DOWN, 'j' }, "the row (timeline: lane) below" },
	{ ACT_PAGE_UP, "page-up", "all views", "PgUp, Ctrl-B", { KEY_PPAGE, CTRL('b') }, "one screen up" },
	{ ACT_PAGE_DOWN, "page-down", "all views", "PgDn, Ctrl-F, Space", { KEY_NPAGE, CTRL('f'), ' ' },
	  "one screen down" },
	{ ACT_FIRST, "first", "all views", "Home, g", { KEY_HOME, 'g' }, "the first row (timeline: run start)" },
	{ ACT_LAST, "last", "all views", "End, G", { KEY_END, 'G' }, "the last row (timeline: run end)" },
	{ ACT_LEFT, "left", "time views", "Left, h", { KEY_LEFT, 'h' }, "move the time cursor earlier" },
	{ ACT_RIGHT, "right", "time views", "Right, l", { KEY_RIGHT, 'l' }, "move the time cursor later" },
	{ ACT_OPEN, "open", "all views", "Enter", { '\n', '\r', KEY_ENTER }, "open what is selected" },
	{ ACT_BACK, "back", "all views", "Backspace, Esc", { KEY_BACKSPACE, 127, 8, 27 },
	  "close this view, back to the one before" },
	{ ACT_NEXT_VIEW, "next-view", "all views", "Tab", { '\t' }, "the next main view" },
	{ ACT_PREV_VIEW, "prev-view", "all views", "Shift-Tab", { KEY_BTAB }, "the previous main view" },
	{ ACT_SEARCH, "search", "all views", "/", { '/' }, "search rows (timeline: lanes), PCRE2" },
	{ ACT_SEARCH_NEXT, "search-next", "all views", "n", { 'n' }, "the next match" },
	{ ACT_SEARCH_PREV, "search-prev", "all views", "N", { 'N' }, "the previous match" },
	{ ACT_SORT, "sort", "tables", "s", { 's' }, "sort by the next column" },
	{ ACT_SORT_REVERSE, "sort-reverse", "tables", "S", { 'S' }, "reverse the sort order" },
	{ ACT_FILTER, "filter", "all views", "f", { 'f' },
	  "keep rows (timeline: lanes) matching a pattern" },
	{ ACT_BLOCKED_ONLY, "blocked-only", "histories", "b", { 'b' },
	  "only the ops that blocked, or all again" },
	{ ACT_ZOOM_IN, "zoom-in", "time views", "+, =", { '+', '=' }, "zoom in around the cursor" },
	{ ACT_ZOOM_OUT, "zoom-out", "time views", "-", { '-' }, "zoom out around the cursor" },
	{ ACT_JUMP_TIME, "jump", "time views", "t", { 't' }, "jump to a time since the start (1.5s, 20ms)" },
	{ ACT_NEXT_EVENT, "next-event", "time views", "]", { ']' }, "the lane's next state change or sync op" },
	{ ACT_PREV_EVENT, "prev-event", "time views", "[", { '[' }, "the lane's previous state change or sync op" },
	{ ACT_FOLLOW_WAKEUP, "follow-wakeup", "timeline", "w", { 'w' },
	  "from a wait to the waker that ended it" },
	{ ACT_MODEL, "model", "probe view", "m", { 'm' }, "simulate again with the other model" },
#define X(e, name, key, help, open) { ACT_VIEW_##e, name, "all views", (char[]){ key, 0 }, { key }, help },
	MAIN_VIEWS(X)
#undef X
	{ ACT_HELP, "help", "all views", "?, F1", { '?', KEY_F(1) }, "this help" },
	{ ACT_REDRAW, "redraw", "all views", "Ctrl-L", { CTRL('l') }, "redraw the screen" },
	{ ACT_QUIT, "quit", "all views", "q", { 'q' }, "close this view; in a main view, quit" },
	{ ACT_QUIT_ALL, "quit-all", "all views", "Q", { 'Q' }, "quit from any view" },
};

enum action action_for_key(int key)
{
	for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
		for (int k = 0; k < ACTION_MAX_KEYS && actions[i].keys[k]; k++)
			if (actions[i].keys[k] == key)
				return actions[i].action;
	return ACT_NONE;
}

const struct action_info *action_table(int *nr)
{
	*nr = (int)(sizeof(actions) / sizeof(actions[0]));
	return actions;
}
