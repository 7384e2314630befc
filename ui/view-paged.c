/*
 * ui/view-paged.c - a view of a long history read a page at a time with
 * keyset queries (NAME.next / NAME.prev of src/browse-queries.c), so it
 * opens, scrolls and jumps to either end as fast on 10 M rows as on 10:
 * one object's history, one thread's calls of a syscall.
 */
#define _GNU_SOURCE
#include "config.h"
#include "ui/views.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE_ROWS 200

struct paged_view {
	const char *query; /* the pair's base name */
	char *syscall;     /* owned copy of params.syscall */
};

/* Run NAME.next or NAME.prev after/before (@k0, @k1) into the table. */
static long paged_fetch(struct view *v, bool forward, int64_t k0, int64_t k1, char **err)
{
	const struct paged_view *p = v->priv;
	char name[64];
	sqlite3_stmt *st;
	snprintf(name, sizeof(name), "%s.%s", p->query, forward ? "next" : "prev");
	if (!(st = view_prepare(v, name, NULL, err)))
		return -EIO;
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":k0"), k0);
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":k1"), k1);
	sqlite3_bind_int(st, sqlite3_bind_parameter_index(st, ":limit"), PAGE_ROWS);
	if (v->table.nr_sections == 0 && table_add_section(&v->table, st, p->query, v->title) < 0) {
		sqlite3_finalize(st);
		return -ENOMEM;
	}
	long n = table_load(&v->table, 0, st, v->b->origin_ns, -1, !forward, NULL, err);
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

static int paged_load(struct view *v, char **err)
{
	return paged_reload(v, false, err);
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
	.page = paged_page,
	.reload = paged_reload,
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
	if (sqlite3_prepare_v2(b->db, "SELECT kind, addr FROM sync_objects WHERE id = ?", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, object_id);
		if (sqlite3_step(st) == SQLITE_ROW)
			snprintf(title, sizeof(title), "%s 0x%llx history", (const char *)sqlite3_column_text(st, 0),
				 (unsigned long long)sqlite3_column_int64(st, 1));
		sqlite3_finalize(st);
	}
	return paged_view_new(b, title, "object.history", &params, NULL);
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
