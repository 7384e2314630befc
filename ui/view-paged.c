/*
 * ui/view-paged.c - a view of a long history read a page at a time with
 * keyset queries (NAME.next / NAME.prev of src/browse-queries.c), so it
 * opens, scrolls and jumps to either end as fast on 10 M rows as on 10:
 * one object's history, one thread's calls of a syscall.
 */
#define _GNU_SOURCE
#include "config.h"
#include "ui/views.h"
#include "src/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE_ROWS 200

struct paged_view {
	const char *query;  /* the pair's base name */
	char *syscall;      /* owned copy of params.syscall */
	bool has_blocked;   /* its rows can be narrowed to the blocked ones (:blocked_only) */
	bool blocked_only;
	long total;         /* the rows the filter and blocked_only keep, of all; -1: not counted */
	bool anchored;      /* the next load starts at the row of key anchor, not at the first */
	int64_t anchor[2];
};

/* NAME.next (@forward) or NAME.prev from the key (@k0, @k1), at most
 * @limit rows (-1: all), with the view's section made for its columns. */
static sqlite3_stmt *prepare_page(struct view *v, bool forward, int64_t k0, int64_t k1, int limit, char **err)
{
	const struct paged_view *p = v->priv;
	char name[64];
	sqlite3_stmt *st;
	snprintf(name, sizeof(name), "%s.%s", p->query, forward ? "next" : "prev");
	if (!(st = view_prepare(v, name, NULL, err)))
		return NULL;
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":k0"), k0);
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":k1"), k1);
	sqlite3_bind_int(st, sqlite3_bind_parameter_index(st, ":limit"), limit);
	if (p->has_blocked)
		sqlite3_bind_int(st, sqlite3_bind_parameter_index(st, ":blocked_only"), p->blocked_only);
	if (v->table.nr_sections == 0 && table_add_section(&v->table, st, p->query, v->title) < 0) {
		sqlite3_finalize(st);
		error_set(err, "out of memory");
		return NULL;
	}
	return st;
}

/* Load the rows after/before (@k0, @k1) into the table, a page of those
 * the filter keeps (it may read far to find them). */
static long paged_fetch(struct view *v, bool forward, int64_t k0, int64_t k1, char **err)
{
	sqlite3_stmt *st = prepare_page(v, forward, k0, k1, v->filter ? -1 : PAGE_ROWS, err);
	if (!st)
		return -EIO;
	long n = table_load(&v->table, 0, st, v->b->origin_ns, PAGE_ROWS, !forward, v->filter, err);
	sqlite3_finalize(st);
	return n;
}

static long paged_page(struct view *v, bool forward, char **err)
{
	size_t n = v->table.nr_rows;
	if (n == 0)
		return 0;
	const struct table_row *edge = &v->table.rows[forward ? n - 1 : 0];
	return paged_fetch(v, forward, edge->key[0], edge->key[1], err);
}

static int paged_reload(struct view *v, bool to_end, char **err)
{
	long n = to_end ? paged_fetch(v, false, INT64_MAX, INT64_MAX, err)
			: paged_fetch(v, true, INT64_MIN, INT64_MIN, err);
	if (n == 0)
		view_message(v->b, "no rows");
	return n < 0 ? (int)n : 0;
}

/* Whether the filter and @m (NULL: any row) match @st's current row. */
static bool row_kept(const struct view *v, sqlite3_stmt *st, const struct mtx_match *m)
{
	char text[4096];
	if (!v->filter && !m)
		return true;
	table_step_text(&v->table, 0, st, v->b->origin_ns, text, sizeof(text));
	return (!v->filter || match_test(v->filter, text)) && (!m || match_test(m, text));
}

/* Whether key @k comes after key @stop (@forward) or before it. */
static bool past(const int64_t k[2], const int64_t stop[2], bool forward)
{
	int order = k[0] != stop[0] ? (k[0] > stop[0] ? 1 : -1) : k[1] != stop[1] ? (k[1] > stop[1] ? 1 : -1) : 0;
	return forward ? order > 0 : order < 0;
}

/* The key (@key) of the first row after @from (@forward; else before it),
 * not past @stop (NULL: the end), that the filter and @m match: 1, or 0
 * when there is none, or -EIO with @err. */
static int scan_for(struct view *v, const struct mtx_match *m, bool forward, const int64_t from[2],
		    const int64_t *stop, int64_t key[2], char **err)
{
	sqlite3_stmt *st = prepare_page(v, forward, from[0], from[1], -1, err);
	const struct table_section *s;
	int rc, found = 0;
	if (!st)
		return -EIO;
	s = &v->table.sections[0];
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t k[2] = { sqlite3_column_int64(st, s->key_cols[0]), sqlite3_column_int64(st, s->key_cols[1]) };
		if (stop && past(k, stop, forward))
			break;
		if (row_kept(v, st, m)) {
			key[0] = k[0], key[1] = k[1];
			found = 1;
			break;
		}
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		error_set(err, "%s", sqlite3_errmsg(v->b->db));
		found = -EIO;
	}
	sqlite3_finalize(st);
	return found;
}

/* Rows shown above a row that a search or a wait opens on. */
#define CONTEXT_ROWS 3

/* Load the rows around the first one at @key or after it, that one
 * selected, near the top. */
static int load_at(struct view *v, const int64_t key[2], char **err)
{
	table_clear(&v->table);
	long after = paged_fetch(v, true, key[0], key[1] - 1, err);
	long before = after < 0 ? after : paged_fetch(v, false, key[0], key[1], err);
	if (before < 0)
		return (int)before;
	v->sel = (size_t)before < v->table.nr_rows ? (size_t)before : v->table.nr_rows ? v->table.nr_rows - 1 : 0;
	v->top = v->sel > CONTEXT_ROWS ? v->sel - CONTEXT_ROWS : 0;
	return 0;
}

static int paged_find(struct view *v, const struct mtx_match *m, bool backward, bool from_selected, bool *wrapped,
		      char **err)
{
	const struct table_row *r = view_selected(v);
	const int64_t edge = backward ? INT64_MAX : INT64_MIN, start[2] = { edge, edge };
	int64_t from[2] = { edge, edge }, at[2], key[2];
	if (r) {
		from[0] = at[0] = r->key[0];
		from[1] = at[1] = r->key[1];
		if (from_selected) /* from the key just before (after) the selected row's */
			from[1] += backward ? 1 : -1;
	}
	int rc = scan_for(v, m, !backward, from, NULL, key, err);
	if (rc == 0 && r) {
		*wrapped = true;
		rc = scan_for(v, m, !backward, start, at, key, err);
	}
	if (rc > 0 && load_at(v, key, err))
		rc = -EIO;
	return rc;
}

static int paged_count(struct view *v, const struct mtx_match *m, long *total, long *rank, char **err)
{
	const struct table_row *r = view_selected(v);
	int64_t at[2] = { r ? r->key[0] : INT64_MIN, r ? r->key[1] : INT64_MIN };
	sqlite3_stmt *st = prepare_page(v, true, INT64_MIN, INT64_MIN, -1, err);
	const struct table_section *s;
	int rc;
	*total = *rank = 0;
	if (!st)
		return -EIO;
	s = &v->table.sections[0];
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!row_kept(v, st, m))
			continue;
		int64_t k[2] = { sqlite3_column_int64(st, s->key_cols[0]), sqlite3_column_int64(st, s->key_cols[1]) };
		++*total;
		*rank += r && !past(k, at, true);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		error_set(err, "%s", sqlite3_errmsg(v->b->db));
		return -EIO;
	}
	return 0;
}

/* The first page, or the rows around the anchor; with a filter or only
 * the blocked ops, how many of all the rows they keep, once (the status
 * line says it on every frame). */
static int paged_load(struct view *v, char **err)
{
	struct paged_view *p = v->priv;
	long rank;
	p->total = -1;
	if ((v->filter || p->blocked_only) && paged_count(v, NULL, &p->total, &rank, err))
		return -EIO;
	if (!p->anchored)
		return paged_reload(v, false, err);
	p->anchored = false;
	return load_at(v, p->anchor, err);
}

/* b: only the blocked ops, or all again, the selection kept in time. */
static enum reaction paged_act(struct view *v, enum action a)
{
	struct paged_view *p = v->priv;
	const struct table_row *r = view_selected(v);
	if (a != ACT_BLOCKED_ONLY || !p->has_blocked)
		return REACT_UNHANDLED;
	p->blocked_only = !p->blocked_only;
	if (r) {
		p->anchored = true;
		p->anchor[0] = r->key[0];
		p->anchor[1] = r->key[1];
	}
	view_reload(v);
	if (!v->b->message)
		view_message(v->b, p->blocked_only ? "only the ops that blocked (b: all)" : "all ops");
	return REACT_REDRAW;
}

static void paged_status(const struct view *v, char *buf, size_t size)
{
	const struct paged_view *p = v->priv;
	size_t rows = 0, index = 0;
	for (size_t i = 0; i < v->table.nr_rows; i++)
		if (v->table.rows[i].type == ROW_DATA && !v->table.rows[i].hidden) {
			rows++;
			index += i <= v->sel;
		}
	int n = snprintf(buf, size, "row %zu of %zu loaded", index, rows);
	if (p->total >= 0 && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, "; %ld %s%s%s%s", p->total, p->blocked_only ? "blocked ops" : "rows",
			 v->filter ? " match '" : " (b: all)", v->filter ? v->filter_text : "", v->filter ? "'" : "");
}

static void paged_free(struct view *v)
{
	struct paged_view *p = v->priv;
	free(p->syscall);
	free(p);
}

static const struct view_ops paged_view_ops = {
	.name = "paged",
	.load = paged_load,
	.act = paged_act,
	.page = paged_page,
	.reload = paged_reload,
	.find = paged_find,
	.count = paged_count,
	.status = paged_status,
	.free = paged_free,
};

static struct view *paged_view_new(struct browse *b, const char *title, const char *query,
				   const struct mtx_query_params *params, const char *syscall)
{
	struct paged_view *p = calloc(1, sizeof(*p));
	struct view *v = p ? view_new(b, &paged_view_ops, title, params) : NULL;
	if (!v) {
		free(p);
		return NULL;
	}
	p->query = query;
	p->syscall = syscall ? strdup(syscall) : NULL;
	v->params.syscall = p->syscall;
	v->priv = p;
	return v;
}

struct view *history_view_new(struct browse *b, int64_t object_id)
{
	struct mtx_query_params params = { .object_id = object_id, .has_object_id = true };
	char title[128] = "object";
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(b->db, "SELECT kind, addr, name FROM sync_objects WHERE id = ?", -1, &st, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_int64(st, 1, object_id);
		if (sqlite3_step(st) == SQLITE_ROW) {
			const char *name = (const char *)sqlite3_column_text(st, 2);
			snprintf(title, sizeof(title), "%s %s%s0x%llx%s history", (const char *)sqlite3_column_text(st, 0),
				 name ? name : "", name ? " (" : "", (unsigned long long)sqlite3_column_int64(st, 1),
				 name ? ")" : "");
		}
		sqlite3_finalize(st);
	}
	struct view *v = paged_view_new(b, title, "object.history", &params, NULL);
	if (v)
		((struct paged_view *)v->priv)->has_blocked = true;
	return v;
}

struct view *history_view_at(struct browse *b, int64_t object_id, int64_t start_ns, int64_t op_id)
{
	struct view *v = history_view_new(b, object_id);
	struct paged_view *p = v ? v->priv : NULL;
	if (p) {
		p->anchored = true;
		p->anchor[0] = start_ns;
		p->anchor[1] = op_id;
	}
	return v;
}

struct view *history_view_of_wait(struct view *from, const char *query, const struct mtx_query_params *params,
				  int64_t holder)
{
	sqlite3_stmt *st = view_prepare(from, query, params, NULL);
	struct view *v = NULL;
	if (st) {
		sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":holder"), holder);
		if (sqlite3_step(st) == SQLITE_ROW)
			v = history_view_at(from->b, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
					    sqlite3_column_int64(st, 2));
	}
	sqlite3_finalize(st);
	return v;
}

struct view *history_view_for_addr(struct browse *b, int64_t addr)
{
	sqlite3_stmt *st;
	int64_t id = -1, lifetimes = 0;
	if (sqlite3_prepare_v2(b->db, "SELECT MIN(id), COUNT(*) FROM sync_objects WHERE addr = ?", -1, &st, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_int64(st, 1, addr);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
			id = sqlite3_column_int64(st, 0);
			lifetimes = sqlite3_column_int64(st, 1);
		}
		sqlite3_finalize(st);
	}
	if (id < 0) {
		view_message(b, "no object at 0x%llx", (unsigned long long)addr);
		return NULL;
	}
	if (lifetimes > 1)
		view_message(b, "0x%llx had %lld lifetimes; this is the first (the objects view lists each)",
			     (unsigned long long)addr, (long long)lifetimes);
	return history_view_new(b, id);
}

struct view *syscall_list_view_new(struct browse *b, int64_t tid, const char *thread_name, const char *syscall)
{
	struct mtx_query_params params = { .tid = tid, .has_tid = true };
	char title[128];
	if (!syscall)
		return NULL;
	snprintf(title, sizeof(title), "%s of %s (%lld)", syscall, thread_name ? thread_name : "?", (long long)tid);
	return paged_view_new(b, title, "syscalls.list", &params, syscall);
}
