/*
 * ui/display.h - the terminal: the only part of mtx that calls ncurses.
 * Views draw through these calls in terms of styles and glyphs, so colour,
 * monochrome (NO_COLOR) and ASCII (non-UTF-8 locales) are decided here once.
 */
#ifndef MTX_DISPLAY_H
#define MTX_DISPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "src/thread-states.h"

/* The smallest screen the views are laid out for. */
#define DISPLAY_MIN_COLS 40
#define DISPLAY_MIN_ROWS 10

enum display_style {
	STYLE_NORMAL,
	STYLE_TITLE,    /* the top line */
	STYLE_HEADER,   /* column headings, section titles */
	STYLE_SELECTED, /* the selected row */
	STYLE_STATUS,   /* the bottom line */
	STYLE_ERROR,
	STYLE_MARK,     /* a search match, a timeline mark */
	/* thread states, in the order of enum state_glyph */
	STYLE_RUNNING,
	STYLE_RUNNABLE,
	STYLE_SYNC,
	STYLE_IO,
	STYLE_SLEEP,
	STYLE_BLOCKED,
	STYLE_CURSOR,   /* the timeline's time cursor */
	NR_STYLES
};

enum display_glyph {
	GLYPH_RUNNING,
	GLYPH_RUNNABLE,
	GLYPH_SYNC,
	GLYPH_IO,
	GLYPH_SLEEP,
	GLYPH_BLOCKED,
	GLYPH_BAR,      /* a filled cell of a breakdown bar */
	GLYPH_HLINE,
	GLYPH_CURSOR,
	GLYPH_ELLIPSIS, /* what a cut text lost */
	GLYPH_ASCENDING, /* the sort column's, in its header */
	GLYPH_DESCENDING,
	NR_GLYPHS
};

/* A thread state's glyph and style: the state glyphs and styles above are
 * in the order of src/thread-states.h. */
static inline enum display_glyph display_state_glyph(enum thread_state s)
{
	return (enum display_glyph)(GLYPH_RUNNING + (int)s);
}

static inline enum display_style display_state_style(enum thread_state s)
{
	return (enum display_style)(STYLE_RUNNING + (int)s);
}

_Static_assert(GLYPH_BLOCKED - GLYPH_RUNNING == TS_BLOCKED && STYLE_BLOCKED - STYLE_RUNNING == TS_BLOCKED &&
		       GLYPH_SYNC - GLYPH_RUNNING == TS_BLOCKED_SYNC && STYLE_SLEEP - STYLE_RUNNING == TS_SLEEPING,
	       "the state glyphs and styles follow src/thread-states.h");

/*
 * display_usable - whether the browser can take over this terminal:
 * standard input and output are terminals and TERM is set and not "dumb".
 * Returns 0, or -1 with a one-line reason in @err (static text).
 */
int display_usable(const char **err);

/*
 * display_init - take over the terminal (raw keys, no echo, colours unless
 * NO_COLOR is set, UTF-8 glyphs when the locale is UTF-8). Installs handlers
 * so that the terminal is restored on every exit path, fatal signals
 * included. Returns 0, or -1 with a one-line reason in @err (static text)
 * when standard input/output is not a terminal or TERM cannot be used.
 */
int display_init(const char **err);

/* display_end - give the terminal back; safe to call more than once. */
void display_end(void);

/* display_size - the screen's rows and columns now. */
void display_size(int *rows, int *cols);

/* display_clear - blank the screen before a frame is drawn. */
void display_clear(void);

/*
 * display_text - draw @text at row @y, column @x in @style, at most @width
 * columns (cut, never wrapped); with @fill the rest of the @width is
 * painted in the style too.
 */
void display_text(int y, int x, int width, enum display_style style, bool fill, const char *text);

/* display_glyph - draw @n copies of @glyph at (@y, @x) in @style. */
void display_glyph(int y, int x, int n, enum display_glyph glyph, enum display_style style);

/* display_glyph_text - the glyph as a string (UTF-8 or ASCII), one column
 * wide. */
const char *display_glyph_text(enum display_glyph glyph);

/* display_refresh - show what was drawn. */
void display_refresh(void);

/* display_key - wait for a key (ncurses codes; KEY_RESIZE after a resize). */
int display_key(void);
/* display_key_within - the same, for at most @ms milliseconds: ERR when
 * none came. */
int display_key_within(int ms);

/* display_last_input_ns - when the last key was read (CLOCK_MONOTONIC),
 * a prompt's Enter included: where a key's response time starts. */
uint64_t display_last_input_ns(void);

/*
 * display_prompt - read a line on the bottom row after @label; Enter ends
 * it, Esc cancels. Returns a malloc'd string (caller frees) or NULL.
 */
char *display_prompt(const char *label);

#endif
