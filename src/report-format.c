/*
 * src/report-format.c - see report-format.h.
 *
 * Text tables are sized from their first TEXT_SAMPLE_ROWS rows and then
 * streamed, so a report of a million rows prints at once in bounded memory.
 * Within a width (a terminal's), a later cell wider than its column is cut
 * and ends in '~'; without one (a pipe, a file) it is printed whole, past
 * its column.
 */
#include "config.h"
#include "src/report-format.h"
#include "src/columns.h"
#include "src/grow.h"
#include "src/error.h"
#include "src/log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define TEXT_SAMPLE_ROWS 1000
#define PIPE_WIDTH 80 /* the layout of text in a pipe, where no cell is cut */
#define CELL_SIZE 64 /* a formatted number's text; a text value is its own */

int report_format_parse(const char *name)
{
	static const char *const names[] = { [REPORT_TEXT] = "text", [REPORT_CSV] = "csv", [REPORT_JSON] = "json" };
	for (int i = 0; i < 3; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

void report_begin(struct report_printer *p)
{
	if (p->format == REPORT_JSON)
		fputs("{", p->out);
}

void report_end(struct report_printer *p)
{
	if (p->format == REPORT_JSON)
		fputs("\n}\n", p->out);
}

struct text_table {
	int nr_cols;  /* the columns text shows (not COL_HIDDEN) */
	int *col;     /* each one's column in the statement */
	enum column_kind *kinds;
	char **headers;
	int *widths;
	bool *left; /* text values: left-aligned, and the ones cut to fit */
	int gap;    /* blanks between columns */
	char **cells; /* buffered rows, nr_cols per row */
	size_t nr_rows, cap;
};

/* @n spaces. */
static void pad(FILE *out, int n)
{
	static const char spaces[] = "                                                                ";
	for (; n > 0; n -= (int)sizeof(spaces) - 1)
		fwrite(spaces, 1, n < (int)sizeof(spaces) - 1 ? (size_t)n : sizeof(spaces) - 1, out);
}

static void print_text_row(const struct report_printer *p, const struct text_table *t, const char *const *cells)
{
	int last = t->nr_cols - 1;
	while (last > 0 && t->widths[last] == COLUMN_LEFT_OUT)
		last--;
	for (int c = 0, first = 1; c < t->nr_cols; c++) {
		const char *s = cells[c];
		int w = t->widths[c], len = (int)strlen(s);
		if (w == COLUMN_LEFT_OUT)
			continue;
		if (!first)
			pad(p->out, t->gap);
		first = 0;
		if (len > w && p->width > 0) {
			fwrite(s, 1, (size_t)(w - 1), p->out);
			fputc('~', p->out);
			continue;
		}
		if (!t->left[c])
			pad(p->out, w - len);
		fwrite(s, 1, (size_t)len, p->out);
		if (t->left[c] && c < last)
			pad(p->out, w - len);
	}
	fputc('\n', p->out);
}

/* Column @c of @st's row as text: a text value whole (valid until @st
 * steps on), else formatted into @buf. */
static const char *cell_text(const struct report_printer *p, sqlite3_stmt *st, int c, enum column_kind kind,
			     char *buf)
{
	if (sqlite3_column_type(st, c) == SQLITE_TEXT)
		return (const char *)sqlite3_column_text(st, c);
	column_cell(st, c, kind, p->origin_ns, buf, CELL_SIZE);
	return buf;
}

static char **row_cells(const struct report_printer *p, sqlite3_stmt *st, const struct text_table *t)
{
	char **cells = calloc((size_t)t->nr_cols, sizeof(char *)), buf[CELL_SIZE];
	if (!cells)
		return NULL;
	for (int c = 0; c < t->nr_cols; c++)
		cells[c] = strdup(cell_text(p, st, t->col[c], t->kinds[c], buf));
	return cells;
}

static void free_cells(char **cells, int n)
{
	for (int c = 0; c < n && cells; c++)
		free(cells[c]);
	free(cells);
}

/* Whether @n rows are all that may be printed. */
static bool limited(const struct report_printer *p, long n)
{
	return p->limit_rows > 0 && n >= p->limit_rows;
}

/* The rows of @st left after the @n printed: from p->count when there is
 * one, else by stepping @st to its end. */
static long count_rest(const struct report_printer *p, sqlite3_stmt *st, long n, int *rc)
{
	long left = 0;
	if (p->count) {
		if ((*rc = sqlite3_step(p->count)) == SQLITE_ROW) {
			left = (long)sqlite3_column_int64(p->count, 0) - n;
			*rc = SQLITE_DONE;
		}
		sqlite3_reset(p->count);
		return left > 0 ? left : 0;
	}
	while ((*rc = sqlite3_step(st)) == SQLITE_ROW)
		left++;
	return left;
}

static long print_text(struct report_printer *p, const char *title, sqlite3_stmt *st, int *rc)
{
	struct text_table t = { 0 };
	int nr_columns = sqlite3_column_count(st);
	char ***rows = NULL;
	size_t cap = 0;
	long n = 0;

	t.col = calloc((size_t)nr_columns + 1, sizeof(*t.col));
	t.kinds = calloc((size_t)nr_columns + 1, sizeof(*t.kinds));
	t.headers = calloc((size_t)nr_columns + 1, sizeof(*t.headers));
	t.widths = calloc((size_t)nr_columns + 1, sizeof(*t.widths));
	t.left = calloc((size_t)nr_columns + 1, sizeof(*t.left));
	for (int i = 0; i < nr_columns; i++)
		if (column_kind(sqlite3_column_name(st, i)) != COL_HIDDEN)
			t.col[t.nr_cols++] = i;
	for (int c = 0; c < t.nr_cols; c++) {
		char h[128];
		t.kinds[c] = column_kind(sqlite3_column_name(st, t.col[c]));
		column_header(sqlite3_column_name(st, t.col[c]), h, sizeof(h));
		t.headers[c] = strdup(h);
		t.widths[c] = (int)strlen(h);
	}
	/* Size the columns on the first rows. */
	long sampled = p->limit_rows > 0 && p->limit_rows < TEXT_SAMPLE_ROWS ? p->limit_rows : TEXT_SAMPLE_ROWS;
	while (n < sampled && (*rc = sqlite3_step(st)) == SQLITE_ROW) {
		char ***more = grow_array(rows, &cap, (size_t)n + 1, sizeof(*rows), 64);
		if (!more)
			break;
		rows = more;
		rows[n] = row_cells(p, st, &t);
		for (int c = 0; c < t.nr_cols && rows[n]; c++) {
			int len = (int)strlen(rows[n][c]);
			if (len > t.widths[c])
				t.widths[c] = len;
			if (sqlite3_column_type(st, t.col[c]) == SQLITE_TEXT)
				t.left[c] = true;
		}
		n++;
	}
	/* Without a width (a pipe), laid out as on a terminal of PIPE_WIDTH,
	 * but no cell is cut. */
	t.gap = column_fit(t.widths, t.left, t.headers, t.nr_cols, p->width > 0 ? p->width : PIPE_WIDTH, p->width > 0);
	if (p->nr_sections)
		fputc('\n', p->out);
	fprintf(p->out, "%s\n", title);
	if (p->note)
		fprintf(p->out, "(%s)\n", p->note);
	print_text_row(p, &t, (const char *const *)t.headers);
	for (long i = 0; i < n; i++) {
		if (rows[i])
			print_text_row(p, &t, (const char *const *)rows[i]);
		free_cells(rows[i], t.nr_cols);
	}
	free(rows);
	/* Stream the rest with those widths, each cell formatted in place. */
	char (*scratch)[CELL_SIZE] = calloc((size_t)t.nr_cols, CELL_SIZE);
	const char **cells = calloc((size_t)t.nr_cols, sizeof(*cells));
	while (scratch && cells && n >= sampled && !limited(p, n) && (*rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int c = 0; c < t.nr_cols; c++)
			cells[c] = cell_text(p, st, t.col[c], t.kinds[c], scratch[c]);
		print_text_row(p, &t, cells);
		n++;
	}
	free(scratch);
	free(cells);
	if (n == 0)
		fprintf(p->out, "(none)\n");
	if (limited(p, n) && (p->nr_more = count_rest(p, st, n, rc)) > 0)
		fprintf(p->out, "... %ld more row%s (--limit 0 for all)\n", p->nr_more,
			plural_s((unsigned long long)p->nr_more));
	for (int c = 0; c < t.nr_cols; c++)
		free(t.headers[c]);
	free(t.headers);
	free(t.col);
	free(t.kinds);
	free(t.widths);
	free(t.left);
	return n;
}

void report_csv_string(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

void report_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	while (*s) {
		/* the run of characters that need no escape, in one write */
		size_t n = 0;
		while (s[n] && s[n] != '"' && s[n] != '\\' && (unsigned char)s[n] >= 0x20)
			n++;
		fwrite(s, 1, n, out);
		s += n;
		if (!*s)
			break;
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else
			fprintf(out, "\\u%04x", (unsigned char)*s);
		s++;
	}
	fputc('"', out);
}

/* What CSV and JSON add to or make of a column, by its name: a time
 * (start_ns, end_ns, ts_ns) is followed by the same in seconds since the
 * run's start (start_s, ...); an address is a "0x..." string, as text and
 * the reports' arguments have it. */
enum raw_kind { RAW_PLAIN, RAW_TIME, RAW_ADDRESS };

static enum raw_kind raw_kind(const char *name)
{
	return column_kind(name) == COL_TIME ? RAW_TIME : column_is_address(name) ? RAW_ADDRESS : RAW_PLAIN;
}

/* The name of the seconds-since-start column after time column @name. */
static void since_start_name(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%.*s_s", (int)strlen(name) - 3, name);
}

size_t report_decimal(int64_t v, char *out)
{
	char tmp[24];
	size_t n = 0, len = 0;
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	do
		tmp[n++] = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		out[len++] = '-';
	while (n)
		out[len++] = tmp[--n];
	return len;
}

void report_int(FILE *out, int64_t v)
{
	char buf[24];
	fwrite(buf, 1, report_decimal(v, buf), out);
}

void report_value(FILE *out, enum report_format format, sqlite3_stmt *st, int c)
{
	switch (sqlite3_column_type(st, c)) {
	case SQLITE_NULL:
		if (format == REPORT_JSON)
			fputs("null", out);
		break;
	case SQLITE_INTEGER:
		report_int(out, sqlite3_column_int64(st, c));
		break;
	case SQLITE_FLOAT: /* SQLite's own rendering: the shortest that reads back */
		fputs((const char *)sqlite3_column_text(st, c), out);
		break;
	default:
		if (format == REPORT_JSON)
			report_json_string(out, (const char *)sqlite3_column_text(st, c));
		else
			report_csv_string(out, (const char *)sqlite3_column_text(st, c));
	}
}

/* One raw value, for CSV and JSON (NULL: empty / null); an address in hex. */
static void raw_value(const struct report_printer *p, sqlite3_stmt *st, int c, enum raw_kind kind)
{
	char buf[CELL_SIZE];
	if (kind == RAW_ADDRESS && sqlite3_column_type(st, c) == SQLITE_INTEGER) {
		snprintf(buf, sizeof(buf), "0x%" PRIx64, (uint64_t)sqlite3_column_int64(st, c));
		if (p->format == REPORT_JSON)
			report_json_string(p->out, buf);
		else
			fputs(buf, p->out);
		return;
	}
	report_value(p->out, p->format, st, c);
}

/* The time column @c's value in seconds since the run's start, as a
 * number (NULL: empty / null). */
static void since_start_value(const struct report_printer *p, sqlite3_stmt *st, int c)
{
	char buf[CELL_SIZE];
	if (sqlite3_column_type(st, c) == SQLITE_NULL) {
		if (p->format == REPORT_JSON)
			fputs("null", p->out);
		return;
	}
	column_time(sqlite3_column_int64(st, c), p->origin_ns, 9, buf, sizeof(buf));
	fputs(buf, p->out);
}

/* What comes before a value: in CSV a comma but first, in JSON the member's
 * @key too. */
static void raw_field(const struct report_printer *p, bool first, const char *key)
{
	if (p->format == REPORT_JSON) {
		fputs(first ? "" : ", ", p->out);
		report_json_string(p->out, key);
		fputs(": ", p->out);
	} else if (!first) {
		fputc(',', p->out);
	}
}

static long print_raw(struct report_printer *p, const char *name, sqlite3_stmt *st, int *rc)
{
	int nr_cols = sqlite3_column_count(st);
	long n = 0;
	bool json = p->format == REPORT_JSON;
	enum raw_kind *kinds = calloc((size_t)nr_cols + 1, sizeof(*kinds));
	char since[128];

	if (!kinds) {
		*rc = SQLITE_NOMEM;
		return 0;
	}
	for (int c = 0; c < nr_cols; c++)
		kinds[c] = raw_kind(sqlite3_column_name(st, c));
	if (json) {
		fprintf(p->out, "%s\n  ", p->nr_sections ? "," : "");
		report_json_string(p->out, name);
		fputs(": [", p->out);
	} else {
		if (p->nr_sections)
			fputc('\n', p->out);
		for (int c = 0; c < nr_cols; c++) {
			if (c)
				fputc(',', p->out);
			report_csv_string(p->out, sqlite3_column_name(st, c));
			if (kinds[c] == RAW_TIME) {
				since_start_name(sqlite3_column_name(st, c), since, sizeof(since));
				fprintf(p->out, ",%s", since);
			}
		}
		fputc('\n', p->out);
	}
	while (!limited(p, n) && (*rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (json)
			fprintf(p->out, "%s\n    {", n ? "," : "");
		for (int c = 0; c < nr_cols; c++) {
			raw_field(p, c == 0, sqlite3_column_name(st, c));
			raw_value(p, st, c, kinds[c]);
			if (kinds[c] == RAW_TIME) {
				since_start_name(sqlite3_column_name(st, c), since, sizeof(since));
				raw_field(p, false, since);
				since_start_value(p, st, c);
			}
		}
		fputs(json ? "}" : "\n", p->out);
		n++;
	}
	free(kinds);
	if (json)
		fputs(n ? "\n  ]" : "]", p->out);
	if (limited(p, n))
		p->nr_more = count_rest(p, st, n, rc);
	return n;
}

long report_print(struct report_printer *p, const char *name, const char *title, sqlite3_stmt *st, char **err)
{
	int rc = SQLITE_DONE;
	p->nr_more = 0;
	long n = p->format == REPORT_TEXT ? print_text(p, title, st, &rc) : print_raw(p, name, st, &rc);
	p->nr_sections++;
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		error_set(err, "%s", sqlite3_errmsg(sqlite3_db_handle(st)));
		return -EIO;
	}
	return n;
}

void report_print_unknown(struct report_printer *p, const char *name, const char *title, const char *why)
{
	p->nr_more = 0;
	if (p->format == REPORT_TEXT) {
		fprintf(p->out, "%s%s\n(unknown: %s)\n", p->nr_sections ? "\n" : "", title, why);
	} else if (p->format == REPORT_JSON) {
		fprintf(p->out, "%s\n  ", p->nr_sections ? "," : "");
		report_json_string(p->out, name);
		fputs(": null", p->out);
	} else {
		return; /* nothing printed: no blank line before the next */
	}
	p->nr_sections++;
}
