/*
 * ui/table.c - see table.h.
 */
#include "config.h"
#include "ui/table.h"
#include "ui/display.h"
#include "src/grow.h"
#include "src/match.h"
#include "src/error.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CELL_MAX 256

static struct table_row *new_rows(struct table *t, size_t n, bool at_front)
{
	struct table_row *more = grow_array(t->rows, &t->cap, t->nr_rows + n, sizeof(*t->rows), 64);
	if (!more)
		return NULL;
	t->rows = more;
	if (at_front)
		memmove(t->rows + n, t->rows, t->nr_rows * sizeof(*t->rows));
	struct table_row *r = at_front ? t->rows : t->rows + t->nr_rows;
	memset(r, 0, n * sizeof(*r));
	t->nr_rows += n;
	return r;
}

static void add_text_row(struct table *t, int section, enum row_type type, const char *text)
{
	struct table_row *r = new_rows(t, 1, false);
	if (!r)
		return;
	r->type = type;
	r->section = section;
	r->cells = calloc(1, sizeof(char *));
	if (r->cells)
		r->cells[0] = strdup(text);
}

int table_add_columns(struct table *t, const char *name, const char *title, const char *const *columns, int n)
{
	struct table_section *more = realloc(t->sections, (size_t)(t->nr_sections + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	t->sections = more;
	struct table_section *s = &t->sections[t->nr_sections];
	memset(s, 0, sizeof(*s));
	s->name = strdup(name);
	s->title = strdup(title ? title : name);
	s->nr_cols = n;
	s->names = calloc((size_t)n, sizeof(char *));
	s->headers = calloc((size_t)n, sizeof(char *));
	s->kinds = calloc((size_t)n, sizeof(*s->kinds));
	s->left = calloc((size_t)n, sizeof(bool));
	s->widths = calloc((size_t)n, sizeof(int));
	s->sort_col = -1;
	s->key_cols[0] = s->key_cols[1] = -1;
	if (!s->names || !s->headers || !s->kinds || !s->left || !s->widths)
		return -ENOMEM;
	for (int c = 0; c < n; c++) {
		char h[128];
		s->names[c] = strdup(columns[c]);
		s->kinds[c] = column_kind(s->names[c]);
		column_header(s->names[c], h, sizeof(h));
		s->headers[c] = strdup(h);
		s->widths[c] = (int)strlen(h);
		if (!strcmp(s->names[c], "key0") || !strcmp(s->names[c], "key1"))
			s->key_cols[s->names[c][3] - '0'] = c;
		else
			s->nr_shown = c + 1;
	}
	int index = t->nr_sections++;
	if (!t->sticky_header) {
		if (index > 0)
			add_text_row(t, index, ROW_NOTE, "");
		add_text_row(t, index, ROW_TITLE, s->title);
		add_text_row(t, index, ROW_HEADER, "");
	}
	return index;
}

int table_add_section(struct table *t, sqlite3_stmt *st, const char *name, const char *title)
{
	int n = sqlite3_column_count(st);
	const char **columns = calloc((size_t)(n ? n : 1), sizeof(char *));
	if (!columns)
		return -ENOMEM;
	for (int c = 0; c < n; c++)
		columns[c] = sqlite3_column_name(st, c);
	int rc = table_add_columns(t, name, title, columns, n);
	free(columns);
	return rc;
}

void table_add_cells(struct table *t, int section, const char *const *cells)
{
	struct table_section *s = &t->sections[section];
	struct table_row *r = new_rows(t, 1, false);
	if (!r)
		return;
	r->type = ROW_DATA;
	r->section = section;
	r->cells = calloc((size_t)s->nr_cols, sizeof(char *));
	r->values = calloc((size_t)s->nr_cols, sizeof(double));
	if (!r->cells || !r->values)
		return;
	for (int c = 0; c < s->nr_cols; c++) {
		char *end;
		double v = strtod(cells[c], &end);
		bool number = *cells[c] && !*end, none = !strcmp(cells[c], "-");
		r->cells[c] = strdup(cells[c]);
		/* "-" (nothing) sorts and aligns as a NULL of a query does */
		r->values[c] = number ? v : none ? -INFINITY : NAN;
		s->left[c] |= !number && !none;
		if ((int)strlen(cells[c]) > s->widths[c])
			s->widths[c] = (int)strlen(cells[c]);
	}
}

void table_add_note(struct table *t, int section, const char *text)
{
	add_text_row(t, section, ROW_NOTE, text);
}

static void fill_row(struct table_row *r, struct table_section *s, sqlite3_stmt *st, int64_t origin_ns)
{
	char buf[CELL_MAX];
	r->type = ROW_DATA;
	r->cells = calloc((size_t)s->nr_cols, sizeof(char *));
	r->values = calloc((size_t)s->nr_cols, sizeof(double));
	if (!r->cells || !r->values)
		return;
	for (int c = 0; c < s->nr_cols; c++) {
		int type = sqlite3_column_type(st, c);
		column_cell(st, c, s->kinds[c], origin_ns, buf, sizeof(buf));
		r->cells[c] = strdup(buf);
		r->values[c] = type == SQLITE_INTEGER || type == SQLITE_FLOAT ? sqlite3_column_double(st, c)
			       : type == SQLITE_NULL ? -INFINITY : NAN;
		if (type == SQLITE_TEXT)
			s->left[c] = true;
	}
	for (int k = 0; k < 2; k++)
		if (s->key_cols[k] >= 0)
			r->key[k] = sqlite3_column_int64(st, s->key_cols[k]);
}

/* Widen @s's columns to @r's cells. */
static void fit_row(struct table_section *s, const struct table_row *r)
{
	for (int c = 0; c < s->nr_cols && r->cells; c++) {
		int len = r->cells[c] ? (int)strlen(r->cells[c]) : 0;
		if (len > s->widths[c])
			s->widths[c] = len;
	}
}

/* Whether @m matches @r's text (no @m: every row). */
static bool row_matches(const struct table *t, const struct table_row *r, const struct mtx_match *m)
{
	char text[4096];
	if (!m)
		return true;
	table_row_text(t, r, text, sizeof(text));
	return match_test(m, text);
}

long table_load(struct table *t, int section, sqlite3_stmt *st, int64_t origin_ns, long max_rows, bool at_front,
		const struct mtx_match *keep, char **err)
{
	struct table_section *s = &t->sections[section];
	long n = 0;
	int rc;
	while ((max_rows < 0 || n < max_rows) && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct table_row *r = new_rows(t, 1, at_front);
		if (!r)
			return -ENOMEM;
		r->section = section;
		fill_row(r, s, st, origin_ns);
		if (!row_matches(t, r, keep)) {
			table_drop(t, 1, at_front);
			continue;
		}
		fit_row(s, r);
		n++;
	}
	if (n == max_rows)
		return n;
	if (rc != SQLITE_DONE) {
		error_set(err, "%s", sqlite3_errmsg(sqlite3_db_handle(st)));
		return -EIO;
	}
	return n;
}

static void free_row(struct table_row *r, const struct table *t)
{
	int n = r->type == ROW_DATA ? t->sections[r->section].nr_cols : 1;
	for (int c = 0; c < n && r->cells; c++)
		free(r->cells[c]);
	free(r->cells);
	free(r->values);
}

void table_drop(struct table *t, size_t n, bool front)
{
	if (n > t->nr_rows)
		n = t->nr_rows;
	size_t first = front ? 0 : t->nr_rows - n;
	for (size_t i = first; i < first + n; i++)
		free_row(&t->rows[i], t);
	if (front)
		memmove(t->rows, t->rows + n, (t->nr_rows - n) * sizeof(*t->rows));
	t->nr_rows -= n;
}

bool table_more(struct table *t, int section, sqlite3_stmt *st, int64_t origin_ns, const struct mtx_match *keep)
{
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct table_row r = { .section = section };
		if (!keep)
			return true;
		fill_row(&r, &t->sections[section], st, origin_ns);
		bool match = row_matches(t, &r, keep);
		free_row(&r, t);
		if (match)
			return true;
	}
	return false;
}

static const struct table_section *sort_section;

static int compare_rows(const void *a, const void *b)
{
	const struct table_row *x = a, *y = b;
	int c = sort_section->sort_col, order = 0;
	double u = x->values[c], v = y->values[c];
	if (!isnan(u) && !isnan(v))
		order = u < v ? -1 : u > v;
	else
		order = strcmp(x->cells[c], y->cells[c]);
	return sort_section->sort_desc ? -order : order;
}

void table_sort(struct table *t, int section)
{
	const struct table_section *s = &t->sections[section];
	size_t first = 0, n = 0;
	if (s->sort_col < 0)
		return;
	for (size_t i = 0; i < t->nr_rows; i++)
		if (t->rows[i].section == section && t->rows[i].type == ROW_DATA) {
			if (!n)
				first = i;
			n++;
		}
	/* A section's data rows are contiguous: its title and header come first.
	 * An empty table's rows may be NULL, which qsort must not be given. */
	if (n < 2)
		return;
	sort_section = s;
	qsort(t->rows + first, n, sizeof(*t->rows), compare_rows);
}

/* Add cell @c's @text to the row text in @buf (@used bytes so far): cells
 * two blanks apart, as they are drawn. Returns the bytes used then. */
static size_t add_cell_text(char *buf, size_t size, size_t used, int c, const char *text)
{
	/* memcpy, not snprintf: a search formats every row of a history. */
	for (int part = c ? 0 : 1; part < 2; part++) {
		const char *p = part ? (text ? text : "") : "  ";
		size_t n = strlen(p);
		if (n > size - 1 - used)
			n = size - 1 - used;
		memcpy(buf + used, p, n);
		used += n;
	}
	buf[used] = 0;
	return used;
}

void table_row_text(const struct table *t, const struct table_row *row, char *buf, size_t size)
{
	size_t used = 0;
	int n = row->type == ROW_DATA ? t->sections[row->section].nr_shown : 1;
	buf[0] = 0;
	for (int c = 0; c < n && row->cells; c++)
		used = add_cell_text(buf, size, used, c, row->cells[c]);
}

void table_step_text(const struct table *t, int section, sqlite3_stmt *st, int64_t origin_ns, char *buf, size_t size)
{
	const struct table_section *s = &t->sections[section];
	char cell[CELL_MAX];
	size_t used = 0;
	buf[0] = 0;
	for (int c = 0; c < s->nr_shown; c++) {
		column_cell(st, c, s->kinds[c], origin_ns, cell, sizeof(cell));
		used = add_cell_text(buf, size, used, c, cell);
	}
}

void table_filter(struct table *t, const struct mtx_match *m)
{
	for (size_t i = 0; i < t->nr_rows; i++) {
		struct table_row *r = &t->rows[i];
		if (r->type == ROW_DATA)
			r->hidden = !row_matches(t, r, m);
	}
}

/* One line of @s's columns in @widths, @gap_width blanks apart (as
 * column_fit laid them out): @cells, or the headers when NULL. */
static void format_line(const struct table_section *s, const int *widths, int gap_width, char *const *cells,
			char *buf, size_t size)
{
	size_t used = 0;
	buf[0] = 0;
	for (int c = 0, first = 1; c < s->nr_shown && used + 1 < size; c++) {
		const char *text = cells ? cells[c] : s->headers[c];
		int w = widths[c], len = (int)strlen(text), n;
		const char *gap = first ? "" : gap_width > 1 ? "  " : " ";
		const char *arrow = display_glyph_text(s->sort_desc ? GLYPH_DESCENDING : GLYPH_ASCENDING);
		if (w == COLUMN_LEFT_OUT)
			continue;
		first = 0;
		if (!cells && c == s->sort_col && len < w && s->left[c]) /* the sort column: an arrow after its name */
			n = snprintf(buf + used, size - used, "%s%s%s%*s", gap, text, arrow, w - len - 1, "");
		else if (!cells && c == s->sort_col && len < w)
			n = snprintf(buf + used, size - used, "%s%*s%s%s", gap, w - len - 1, "", text, arrow);
		else if (len > w)
			n = snprintf(buf + used, size - used, "%s%.*s~", gap, w - 1, text);
		else if (s->left[c])
			n = snprintf(buf + used, size - used, "%s%-*s", gap, w, text);
		else
			n = snprintf(buf + used, size - used, "%s%*s", gap, w, text);
		if (n < 0)
			break;
		used += (size_t)n < size - used ? (size_t)n : size - used - 1;
	}
}

void table_draw(const struct table *t, int y, int height, int width, size_t top, size_t sel)
{
	char line[4096];
	int **widths = calloc((size_t)t->nr_sections, sizeof(int *));
	int *gaps = calloc((size_t)t->nr_sections + 1, sizeof(int)); /* + 1: never calloc(0) */
	if (!widths || !gaps) {
		free(widths);
		free(gaps);
		return;
	}
	for (int i = 0; i < t->nr_sections; i++) {
		const struct table_section *s = &t->sections[i];
		widths[i] = malloc((size_t)(s->nr_cols ? s->nr_cols : 1) * sizeof(int));
		if (widths[i]) {
			memcpy(widths[i], s->widths, (size_t)s->nr_cols * sizeof(int));
			/* room for the sort column's arrow */
			if (s->sort_col >= 0 && widths[i][s->sort_col] <= (int)strlen(s->headers[s->sort_col]))
				widths[i][s->sort_col] = (int)strlen(s->headers[s->sort_col]) + 1;
			gaps[i] = column_fit(widths[i], s->left, s->headers, s->nr_shown, width, true);
		}
	}
	if (t->sticky_header && t->nr_sections > 0 && height > 0) {
		format_line(&t->sections[0], widths[0], gaps[0], NULL, line, sizeof(line));
		display_text(y++, 0, width, STYLE_HEADER, true, line);
		height--;
	}
	for (size_t i = top; i < t->nr_rows && height > 0; i++) {
		const struct table_row *r = &t->rows[i];
		const struct table_section *s = &t->sections[r->section];
		enum display_style style = i == sel ? STYLE_SELECTED : STYLE_NORMAL;
		if (r->hidden)
			continue;
		switch (r->type) {
		case ROW_DATA:
			if (!widths[r->section] || !r->cells)
				continue;
			format_line(s, widths[r->section], gaps[r->section], r->cells, line, sizeof(line));
			break;
		case ROW_HEADER:
			format_line(s, widths[r->section], gaps[r->section], NULL, line, sizeof(line));
			style = STYLE_HEADER;
			break;
		case ROW_TITLE:
			style = STYLE_HEADER;
			/* fall through */
		case ROW_NOTE:
			snprintf(line, sizeof(line), "%s", r->cells && r->cells[0] ? r->cells[0] : "");
			break;
		}
		display_text(y++, 0, width, style, i == sel, line);
		height--;
	}
	for (int i = 0; i < t->nr_sections; i++)
		free(widths[i]);
	free(widths);
	free(gaps);
}

void table_clear(struct table *t)
{
	for (size_t i = 0; i < t->nr_rows; i++)
		free_row(&t->rows[i], t);
	for (int i = 0; i < t->nr_sections; i++) {
		struct table_section *s = &t->sections[i];
		for (int c = 0; c < s->nr_cols; c++) {
			free(s->names[c]);
			free(s->headers[c]);
		}
		free(s->names);
		free(s->headers);
		free(s->kinds);
		free(s->left);
		free(s->widths);
		free(s->name);
		free(s->title);
	}
	free(t->sections);
	free(t->rows);
	bool sticky = t->sticky_header;
	memset(t, 0, sizeof(*t));
	t->sticky_header = sticky;
}
