/*
 * src/columns.c - see columns.h.
 */
#include "config.h"
#include "src/columns.h"
#include "src/timefmt.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define MIN_TEXT_WIDTH 6

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

bool column_is_address(const char *name)
{
	return !strcmp(name, "addr") || ends_with(name, "_addr") || ends_with(name, "callsite");
}

void column_time(int64_t v, int64_t origin_ns, int decimals, char *buf, size_t size)
{
	/* Unsigned: a damaged file's times can be anywhere, and the distance
	 * between two int64_t needs all 64 bits. */
	bool before = v < origin_ns;
	uint64_t mag = before ? (uint64_t)origin_ns - (uint64_t)v : (uint64_t)v - (uint64_t)origin_ns, unit = 1;
	for (int d = decimals; d < 9; d++)
		unit *= 10;
	snprintf(buf, size, "%s%" PRIu64 ".%0*" PRIu64, before ? "-" : "", mag / 1000000000, decimals,
		 (mag % 1000000000) / unit);
}

enum column_kind column_kind(const char *name)
{
	if (!strcmp(name, "start_ns") || !strcmp(name, "end_ns") || !strcmp(name, "ts_ns"))
		return COL_TIME;
	if (ends_with(name, "_ns"))
		return COL_DURATION;
	if (ends_with(name, "_pct"))
		return COL_PCT;
	if (!strcmp(name, "callsite"))
		return COL_HIDDEN;
	if (column_is_address(name))
		return COL_HEX;
	if (!strcmp(name, "peak"))
		return COL_OF_METRIC;
	return COL_PLAIN;
}

/* Whether the column "metric" of @st's current row names a duration. */
static bool metric_is_duration(sqlite3_stmt *st)
{
	for (int c = 0; c < sqlite3_column_count(st); c++)
		if (!strcmp(sqlite3_column_name(st, c), "metric")) {
			const char *m = (const char *)sqlite3_column_text(st, c);
			return m && ends_with(m, "_ns");
		}
	return false;
}

void column_header(const char *name, char *buf, size_t size)
{
	size_t n = strlen(name);
	if (ends_with(name, "_ns"))
		snprintf(buf, size, "%.*s", (int)(n - 3), name);
	else if (ends_with(name, "_pct"))
		snprintf(buf, size, "%.*s%%", (int)(n - 4), name);
	else
		snprintf(buf, size, "%s", name);
}

void column_cell(sqlite3_stmt *st, int col, enum column_kind kind, int64_t origin_ns, char *buf, size_t size)
{
	int type = sqlite3_column_type(st, col);
	int64_t v = sqlite3_column_int64(st, col);

	if (type == SQLITE_NULL) {
		snprintf(buf, size, "-");
		return;
	}
	if (type == SQLITE_TEXT || type == SQLITE_BLOB) {
		snprintf(buf, size, "%s", (const char *)sqlite3_column_text(st, col));
		return;
	}
	if (kind == COL_OF_METRIC)
		kind = metric_is_duration(st) ? COL_DURATION : COL_PLAIN;
	switch (kind) {
	case COL_TIME:
		column_time(v, origin_ns, 6, buf, size);
		break;
	case COL_DURATION:
		if (v < 0)
			snprintf(buf, size, "%" PRId64, v);
		else
			timefmt_duration((uint64_t)v, buf, size);
		break;
	case COL_PCT:
		snprintf(buf, size, "%.1f", sqlite3_column_double(st, col));
		break;
	case COL_HEX:
		snprintf(buf, size, "0x%" PRIx64, (uint64_t)v);
		break;
	default:
		if (type == SQLITE_FLOAT)
			snprintf(buf, size, "%.3g", sqlite3_column_double(st, col));
		else
			snprintf(buf, size, "%" PRId64, v);
	}
}

/* The width of a line of the shown columns, @gap blanks apart. */
static int line_width(const int *widths, int n, int gap)
{
	int total = 0, shown = 0;
	for (int c = 0; c < n; c++)
		if (widths[c] != COLUMN_LEFT_OUT) {
			total += widths[c];
			shown++;
		}
	return total + (shown > 1 ? (shown - 1) * gap : 0);
}

/* Whether column @c is an object's address (addr, X_addr) that its name
 * column (name, X_name) shows too: the name is the address when the
 * object has none. */
static bool address_named(char *const *headers, int n, int c)
{
	size_t len = strlen(headers[c]);
	if (strcmp(headers[c], "addr") && !ends_with(headers[c], "_addr"))
		return false;
	for (int k = 0; k < n; k++)
		if (strlen(headers[k]) == len && !strncmp(headers[k], headers[c], len - 4) &&
		    !strcmp(headers[k] + len - 4, "name"))
			return true;
	return false;
}

int column_fit(int *widths, const bool *left, char *const *headers, int n, int total_width, bool cut)
{
	if (line_width(widths, n, COLUMN_GAP) <= total_width)
		return COLUMN_GAP;
	/* One blank apart, and only then addresses left out where names
	 * show them, and then text cut: a blank less loses nothing. */
	for (int c = 0; c < n && line_width(widths, n, 1) > total_width; c++)
		if (address_named(headers, n, c))
			widths[c] = COLUMN_LEFT_OUT;
	/* Without them the columns may fit as far apart as the others. */
	if (line_width(widths, n, COLUMN_GAP) <= total_width)
		return COLUMN_GAP;
	if (!cut)
		return 1;
	for (;;) {
		int widest = -1, total = line_width(widths, n, 1);
		for (int c = 0; c < n; c++)
			if (left[c] && widths[c] > MIN_TEXT_WIDTH && widths[c] > (int)strlen(headers[c]) &&
			    (widest < 0 || widths[c] > widths[widest]))
				widest = c;
		if (total <= total_width || widest < 0)
			return 1;
		widths[widest] -= total - total_width < widths[widest] - MIN_TEXT_WIDTH ? total - total_width
											  : widths[widest] - MIN_TEXT_WIDTH;
	}
}
