/*
 * ui/view.h - one interface for every view of mtx browse. A view fills a
 * table (or draws itself, like the timeline) from named queries; its key
 * handler returns a reaction and never draws. view.c gives every tabular
 * view scrolling, selection, paging, search, sorting and filtering.
 */
#ifndef MTX_VIEW_H
#define MTX_VIEW_H

#include "src/match.h"
#include "src/reports.h"
#include "ui/actions.h"
#include "ui/table.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The columns of a row's label (a thread's "name (tid)" and a blank) in
 * the views that draw bars or lanes beside it: "clientserver (18285)"
 * whole, or a third of a narrow screen. */
static inline int view_label_cols(int width)
{
	return width >= 66 ? 22 : width / 3;
}

/* What the main loop does after a key. */
enum reaction {
	REACT_UNHANDLED, /* not this view's key: the generic handlers try it */
	REACT_NONE,      /* nothing changed */
	REACT_REDRAW,
	REACT_PUSH,      /* open v->pushed on top of this view */
};

/* What every view can reach: the database and facts about the run. */
struct browse {
	sqlite3 *db;
	const char *path;          /* the file's name, for the title */
	const char *file;          /* its path as given, to open it again */
	const char *live;          /* mtx browse --live: the collector's socket, else NULL */
	int64_t origin_ns, end_ns; /* the run's first and last times */
	unsigned missing;          /* what an incomplete run lacks (run_state) */
	char *incomplete;          /* its INCOMPLETE line, drawn on every frame (owned), or NULL */
	char *message;             /* for the status line, once (owned) */
};

struct view;

struct view_ops {
	const char *name;
	/* Fill the view (first page, for paged views). 0 or -errno + @err. */
	int (*load)(struct view *v, char **err);
	/* The view's own keys; REACT_UNHANDLED for the rest. May be NULL. */
	enum reaction (*act)(struct view *v, enum action a);
	/* Draw into rows y..y+height-1; NULL: draw v->table. */
	void (*draw)(struct view *v, int y, int height, int width);
	/* Paged views: fetch rows after the last (@forward) or before the first
	 * one; the number added, 0 at the end, or -errno + @err. NULL: the table
	 * holds every row. */
	long (*page)(struct view *v, bool forward, char **err);
	/* Paged views: reload from the first (or, @to_end, the last) row. */
	int (*reload)(struct view *v, bool to_end, char **err);
	/* Paged views: select the first row after the selected one (@backward:
	 * before it; @from_selected: the selected one first) that v->filter
	 * and @m match, of all the query's rows, wrapping around at the end
	 * (*@wrapped then true), with the rows around it loaded. Returns 1,
	 * 0 when no row matches, or -errno with @err. */
	int (*find)(struct view *v, const struct mtx_match *m, bool backward, bool from_selected, bool *wrapped,
		    char **err);
	/* Paged views: how many of all the query's rows v->filter and @m
	 * match (*@total), and how many of those come before the selected
	 * row or are it (*@rank). 0 or -errno with @err. */
	int (*count)(struct view *v, const struct mtx_match *m, long *total, long *rank, char **err);
	/* The status line's text; NULL: the table's row counts. */
	void (*status)(const struct view *v, char *buf, size_t size);
	/* Whether the view is still being computed (on a thread of its own):
	 * the browser then draws it again every tenth of a second, keys or
	 * not, until it is done. May be NULL (never). */
	bool (*busy)(const struct view *v);
	/* Free what priv holds. May be NULL. */
	void (*free)(struct view *v);
};

struct view {
	const struct view_ops *ops;
	struct browse *b;
	char *title;          /* the breadcrumb part of this view */
	struct mtx_query_params params; /* what the view is about (thread, object, ...) */
	struct table table;
	size_t top, sel;      /* first row drawn, selected row */
	int height;           /* rows of the last frame */
	struct mtx_match *search; /* the last search, for n and N */
	char *search_text;        /* as typed */
	struct mtx_match *filter;
	char *filter_text;
	/* The match selected by the last search, of how many (paged views:
	 * counted once a search, then followed; total < 0: not counted). */
	struct {
		long rank, total;
		int64_t key[2]; /* the row's keys */
	} found;
	struct view *pushed;  /* REACT_PUSH: the view to open */
	/* A cut section sorted by the database, so that the rows loaded are
	 * the first in that order, not the query's (view_load_query). */
	struct {
		char *section; /* its query's name; NULL: none */
		int col;
		bool desc;
	} order;
	bool filtered_load; /* rows were loaded under a filter: those it left out are not in the table */
	bool whole;         /* load every row of each section: a search has looked past the first */
	void *priv;
};

/* view_new - a view of @ops about @params (copied), titled @title (copied). */
struct view *view_new(struct browse *b, const struct view_ops *ops, const char *title,
		      const struct mtx_query_params *params);

/* view_free - free @v and what it holds. */
void view_free(struct view *v);

/* view_handle - the generic reaction to @a for a tabular view. */
enum reaction view_handle(struct view *v, enum action a);

/* view_draw - draw @v (its own draw, or its table) into the given rows. */
void view_draw(struct view *v, int y, int height, int width);

/* view_status - the status line's text for @v (row counts, sort). */
void view_status(const struct view *v, char *buf, size_t size);

/* view_reload - read @v's rows again from the database (after its filter
 * or what it asks for changed), keeping its sort; the first row selected. */
void view_reload(struct view *v);

/* view_selected - the selected data row, or NULL. */
const struct table_row *view_selected(const struct view *v);

/* view_cell - the raw text of column @name in the selected row, or NULL. */
const char *view_cell(const struct view *v, const char *name);

/* view_say_found - say on the status line which match of how many (@total)
 * a search of v->search_text selected (@rank, 0: no @what matches), and
 * whether it went past the end (@backward: the start) to find it. */
void view_say_found(struct view *v, const char *what, long rank, long total, bool backward, bool wrapped);

/* view_message - set the status line's message (printf-style). */
void view_message(struct browse *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * view_prepare - the named query @name prepared on the run database with
 * @params bound (NULL: v->params). Returns NULL, with the reason in @err
 * when @err is given (caller frees), if there is no such query or SQLite
 * refuses it.
 */
sqlite3_stmt *view_prepare(const struct view *v, const char *name, const struct mtx_query_params *params,
			   char **err);

/*
 * view_load_query - add the named query @name as a section of @v's table,
 * bound to @v's params (and its :limit, if it has one, to @max_rows + 1,
 * or to all rows when ordered or filtered), loading up to @max_rows rows
 * (and a note when there are more; every row under a filter or once
 * v->whole), in v->order when that names it, and only those v->filter
 * matches. Returns the section's index or -errno with @err.
 */
int view_load_query(struct view *v, const char *name, long max_rows, char **err);

#endif
