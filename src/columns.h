/*
 * src/columns.h - how a query's column is shown, decided by its name, for
 * every text rendering of a named query (mtx report's tables and the
 * browser's views): *_ns are durations (start_ns, end_ns, ts_ns: times since
 * the run's start), *_pct percentages, addr/callsite in hex; a "peak" is a
 * duration when its row's "metric" is one (ends in _ns), else a count.
 */
#ifndef MTX_COLUMNS_H
#define MTX_COLUMNS_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* COL_HIDDEN: a column for scripts (CSV, JSON) that text leaves out: a
 * sync op's callsite, a code address, which text shows as its function
 * and source line (columns function and source). */
enum column_kind { COL_PLAIN, COL_TIME, COL_DURATION, COL_PCT, COL_HEX, COL_OF_METRIC, COL_HIDDEN };

#define COLUMN_GAP 2 /* blanks between two columns */

/* column_is_address - whether the column called @name holds code or data
 * addresses (addr, X_addr, callsite): hex in every format. */
bool column_is_address(const char *name);

/* column_time - @v, a CLOCK_MONOTONIC time, as seconds since @origin_ns
 * with @decimals (at most 9) digits after the point ("-" before it). */
void column_time(int64_t v, int64_t origin_ns, int decimals, char *buf, size_t size);

/* column_kind - how values of the column called @name are shown. */
enum column_kind column_kind(const char *name);

/* column_header - the column's heading: @name without its unit suffix
 * ("wait_ns" -> "wait", "running_pct" -> "running%"). */
void column_header(const char *name, char *buf, size_t size);

/*
 * column_cell - the text of column @col of @st's current row, shown as
 * @kind ("-" for NULL); times are relative to @origin_ns. Text is cut at
 * @size - 1 bytes.
 */
void column_cell(sqlite3_stmt *st, int col, enum column_kind kind, int64_t origin_ns, char *buf, size_t size);

/* A column's width when column_fit left it out. */
#define COLUMN_LEFT_OUT (-1)

/*
 * column_fit - lay @n columns of @widths out in @total_width: COLUMN_GAP
 * blanks apart when they fit so; else one blank apart, and then left out
 * (width COLUMN_LEFT_OUT) an object's address, addr or X_addr, where the
 * columns have its name too, name or X_name (which is the address when
 * the object has no name; COLUMN_GAP apart again if they fit so then), and
 * then, if @cut, the widest left-aligned (text) columns shrunk, never
 * below their header or a few characters, until they fit (numbers are
 * never cut: a 10 M-event run's locks still fit 80 columns one blank
 * apart). Returns the gap.
 */
int column_fit(int *widths, const bool *left, char *const *headers, int n, int total_width, bool cut);

#endif
