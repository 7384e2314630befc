/*
 * ui/table.h - rows of named queries as the views hold and draw them: one
 * renderer for every tabular view. A table has one or more sections (one per
 * query, each with its own columns); cells are formatted once when loaded,
 * by the same column rules as 'mtx report' (src/columns.h).
 */
#ifndef MTX_TABLE_H
#define MTX_TABLE_H

#include "src/columns.h"
#include "src/match.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum row_type { ROW_DATA, ROW_TITLE, ROW_HEADER, ROW_NOTE };

struct table_section {
	char *name;   /* the named query's name */
	char *title;
	int nr_cols;
	char **names;   /* column names as the query gives them */
	char **headers; /* as shown */
	enum column_kind *kinds;
	bool *left;     /* text: left-aligned, may be cut */
	int *widths;    /* widest cell so far */
	int sort_col;   /* -1: the query's order */
	bool sort_desc;
	bool cut;       /* the query had more rows than were loaded */
	int key_cols[2]; /* columns key0, key1 that page the section (-1: none) */
	int nr_shown;    /* columns drawn: all but the trailing keys */
};

struct table_row {
	enum row_type type;
	int section;
	char **cells;   /* data: nr_cols cells; title and note: cells[0] */
	double *values; /* data: each cell's number, for sorting (NAN: text) */
	int64_t key[2];
	bool hidden;    /* filtered out */
};

struct table {
	struct table_section *sections;
	int nr_sections;
	struct table_row *rows;
	size_t nr_rows, cap;
	bool sticky_header; /* one section: its header stays on top, no title row */
};

/*
 * table_add_section - start a section for @st's columns called @name with
 * @title; unless the table has a sticky header, a title and a header row
 * open it. Returns the section's index, or -ENOMEM.
 */
int table_add_section(struct table *t, sqlite3_stmt *st, const char *name, const char *title);

/*
 * table_load - step @st and add up to @max_rows data rows (all when < 0)
 * to @section, after the last row or, with @at_front, before the first
 * (in reverse: @st then gives rows in descending order); with @keep, only
 * the rows whose text it matches. Returns the number of rows added, or
 * -EIO with SQLite's message in @err (caller frees).
 */
long table_load(struct table *t, int section, sqlite3_stmt *st, int64_t origin_ns, long max_rows, bool at_front,
		const struct mtx_match *keep, char **err);

/* table_more - whether @st has a row left for @section (one that @keep
 * matches, with @keep); the rows it steps past are not added. */
bool table_more(struct table *t, int section, sqlite3_stmt *st, int64_t origin_ns, const struct mtx_match *keep);

/* table_add_columns - the same for a section of @n text columns not read
 * from SQL (the help); rows go in with table_add_cells. */
int table_add_columns(struct table *t, const char *name, const char *title, const char *const *columns, int n);

/* table_add_cells - a data row of text cells (one per column of @section). */
void table_add_cells(struct table *t, int section, const char *const *cells);

/* table_add_note - a line of text in @section (e.g. "(none)"). */
void table_add_note(struct table *t, int section, const char *text);

/* table_drop - free @n rows at the front (or the end) of the table. */
void table_drop(struct table *t, size_t n, bool front);

/* table_sort - order @section's data rows by its sort column. */
void table_sort(struct table *t, int section);

/* table_row_text - the row as plain text (cells joined), for search. */
void table_row_text(const struct table *t, const struct table_row *row, char *buf, size_t size);

/* table_step_text - the same text for @st's current row, as @section would
 * show it, without adding the row: for searching rows not loaded. */
void table_step_text(const struct table *t, int section, sqlite3_stmt *st, int64_t origin_ns, char *buf, size_t size);

/* table_filter - hide the data rows whose text @m does not match (NULL: show all). */
void table_filter(struct table *t, const struct mtx_match *m);

/*
 * table_draw - draw rows from @top into @height lines at row @y, @width
 * columns wide, @sel highlighted (SIZE_MAX: none); hidden rows skipped.
 * With a sticky header the header takes the first line.
 */
void table_draw(const struct table *t, int y, int height, int width, size_t top, size_t sel);

/* table_clear - free every row and section. */
void table_clear(struct table *t);

#endif
