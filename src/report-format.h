/*
 * src/report-format.h - printing query results as aligned text tables that
 * fit a width (a terminal's) or are never cut (a pipe), as CSV, or as JSON. Values are shown by their column's
 * name: *_ns durations (start_ns, end_ns, ts_ns: times since the run's
 * start), *_pct percentages, addr/callsite in hex; CSV and JSON keep the
 * raw numbers and names.
 */
#ifndef MTX_REPORT_FORMAT_H
#define MTX_REPORT_FORMAT_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>

enum report_format { REPORT_TEXT, REPORT_CSV, REPORT_JSON };

struct report_printer {
	FILE *out;
	enum report_format format;
	int64_t origin_ns; /* the run's start, for times in text */
	int width;         /* text: columns to fit (a terminal's), <= 0: none, nothing cut */
	int nr_sections;   /* printed so far */
	long limit_rows;   /* rows printed per section at most, 0: all */
	long nr_more;      /* rows of the last section left out by the limit */
	/* Optional, set per section: a statement whose one value is the number
	 * of rows the section's statement gives (query_count_sql),
	 * so that the rows left out are counted without stepping through them. */
	sqlite3_stmt *count;
	/* Optional, set per section: a line that text prints under the title
	 * (which columns are unknown, and why). */
	const char *note;
};

/* report_json_string - @s as a JSON string, quoted and escaped. */
void report_json_string(FILE *out, const char *s);

/* report_csv_string - @s as a CSV field, quoted when it must be. */
void report_csv_string(FILE *out, const char *s);

/* report_decimal - @v in decimal into @out (21 bytes at least, no NUL):
 * its length; report_int - the same written to @out. Exports write
 * millions: printf's parsing was a fifth of their time. */
size_t report_decimal(int64_t v, char *out);
void report_int(FILE *out, int64_t v);

/* report_value - column @c of @st's current row as it is, a CSV field or a
 * JSON value (NULL: an empty field, null). */
void report_value(FILE *out, enum report_format format, sqlite3_stmt *st, int c);

/* report_format_parse - "text", "csv" or "json"; -1 if none of them. */
int report_format_parse(const char *name);

/* report_begin / report_end - what goes around the sections (JSON's braces). */
void report_begin(struct report_printer *p);
void report_end(struct report_printer *p);

/*
 * report_print - step @st to its end and print its rows under @title (the
 * JSON key is @name), at most p->limit_rows of them (when not 0): the rows
 * left out are counted in p->nr_more (from p->count when set), and text
 * says so below the table.
 * Returns the number of rows printed, or -EIO with the SQLite message in
 * @err (caller frees).
 */
long report_print(struct report_printer *p, const char *name, const char *title, sqlite3_stmt *st, char **err);

/*
 * report_print_unknown - a section none of whose rows can be known, for
 * the reason @why: text prints its title and "(unknown: @why)" where the
 * rows would be, JSON the key @name with null (not [], which says none),
 * CSV nothing (a header without rows would say none too).
 */
void report_print_unknown(struct report_printer *p, const char *name, const char *title, const char *why);

#endif
