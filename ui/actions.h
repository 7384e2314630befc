/*
 * ui/actions.h - everything a key can ask the browser to do. The one table
 * in actions.c binds keys to actions; the help view, 'mtx browse --keys'
 * and the test that checks mtx-browse(1) are all generated from it.
 */
#ifndef MTX_ACTIONS_H
#define MTX_ACTIONS_H

#include "ui/main-views.h"

enum action {
	ACT_NONE,
	ACT_UP,
	ACT_DOWN,
	ACT_PAGE_UP,
	ACT_PAGE_DOWN,
	ACT_FIRST,
	ACT_LAST,
	ACT_LEFT,
	ACT_RIGHT,
	ACT_OPEN,
	ACT_BACK,
	ACT_NEXT_VIEW,
	ACT_PREV_VIEW,
	ACT_SEARCH,
	ACT_SEARCH_NEXT,
	ACT_SEARCH_PREV,
	ACT_SORT,
	ACT_SORT_REVERSE,
	ACT_FILTER,
	ACT_BLOCKED_ONLY,
	ACT_ZOOM_IN,
	ACT_ZOOM_OUT,
	ACT_JUMP_TIME,
	ACT_NEXT_EVENT,
	ACT_PREV_EVENT,
	ACT_FOLLOW_WAKEUP,
	ACT_MODEL,
#define X(e, name, key, help, open) ACT_VIEW_##e,
	MAIN_VIEWS(X)
#undef X
	ACT_HELP,
	ACT_REDRAW,
	ACT_QUIT,
	ACT_QUIT_ALL,
	NR_ACTIONS
};

#define ACTION_MAX_KEYS 4

struct action_info {
	enum action action;
	const char *name;       /* e.g. "page-down" */
	const char *where;      /* "all views", "tables", "timeline" */
	const char *key_names;  /* as the help and the man page spell them */
	int keys[ACTION_MAX_KEYS]; /* ncurses key codes; 0 ends */
	const char *help;       /* one line */
};

/* action_for_key - the action bound to ncurses key @key, or ACT_NONE. */
enum action action_for_key(int key);

/* action_table - the table, in help order; @nr gets its length. */
const struct action_info *action_table(int *nr);

#endif
