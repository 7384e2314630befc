/*
 * ui/view-report.c - a view of one or more named queries (report
 * sections), e.g. the threads, objects, switches and syscalls views and a
 * thread's waits. Enter opens what the selected row names: an object's
 * history (id or addr column), a thread (tid column), a syscall's calls.
 */
#define _GNU_SOURCE
#include "config.h"
#include "ui/views.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A summary bigger than this is cut, with a note (the views page nothing):
 * the switches of a 10 M-event run (14 k rows) took 20-40 ms to sort and
 * load at 5000 rows. */
#define REPORT_VIEW_MAX_ROWS 1000

struct report_view {
	const char *const *queries; /* names, NULL-terminated */
};

static int report_load(struct view *v, char **err)
{
	const struct report_view *r = v->priv;
	int n = 0;
	while (r->queries[n])
		n++;
	v->table.sticky_header = n == 1;
	for (int i = 0; i < n; i++) {
		int rc = view_load_query(v, r->queries[i], REPORT_VIEW_MAX_ROWS, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static bool parse_int(const char *text, int64_t *v)
{
	char *end;
	if (!text || !*text || !strcmp(text, "-"))
		return false;
	*v = strtoll(text, &end, 0);
	return !*end;
}

/* The section name of the selected row. */
static const char *selected_section(const struct view *v)
{
	const struct table_row *r = view_selected(v);
	return r ? v->table.sections[r->section].name : "";
}

/* A thread's waits on the object at @addr: its history, on the first of
 * them (one the row's thread held the lock through, first). */
static struct view *open_wait(struct view *v, int64_t addr)
{
	struct mtx_query_params p = v->params;
	int64_t holder = -1;
	p.addr = addr;
	p.has_addr = true;
	parse_int(view_cell(v, "for_tid"), &holder);
	struct view *next = history_view_of_wait(v, "object.first_wait", &p, holder);
	return next ? next : history_view_for_addr(v->b, addr);
}

static enum reaction report_act(struct view *v, enum action a)
{
	int64_t id, tid;
	struct view *next = NULL;
	const char *section = selected_section(v);

	if (a != ACT_OPEN)
		return REACT_UNHANDLED;
	if (!strcmp(section, "syscalls") && parse_int(view_cell(v, "tid"), &tid))
		next = syscall_list_view_new(v->b, tid, view_cell(v, "name"), view_cell(v, "syscall"));
	else if (!strcmp(section, "objects") && parse_int(view_cell(v, "id"), &id))
		next = history_view_new(v->b, id);
	else if (!strcmp(section, "waits.objects") && v->params.has_tid && parse_int(view_cell(v, "addr"), &id))
		next = open_wait(v, id);
	else if (parse_int(view_cell(v, "addr"), &id))
		next = history_view_for_addr(v->b, id);
	else if (parse_int(view_cell(v, "tid"), &tid) || parse_int(view_cell(v, "for_tid"), &tid) ||
		 parse_int(view_cell(v, "from_tid"), &tid))
		next = thread_view_new(v->b, tid);
	if (!next) {
		if (!v->b->message)
			view_message(v->b, "nothing to open here");
		return REACT_REDRAW;
	}
	v->pushed = next;
	return REACT_PUSH;
}

static void report_free(struct view *v)
{
	free(v->priv);
}

static const struct view_ops report_view_ops = {
	.name = "report",
	.load = report_load,
	.act = report_act,
	.free = report_free,
};

struct view *report_view_new(struct browse *b, const char *title, const char *const *queries,
			     const struct mtx_query_params *params)
{
	struct report_view *r = calloc(1, sizeof(*r));
	struct view *v = r ? view_new(b, &report_view_ops, title, params) : NULL;
	if (!v) {
		free(r);
		return NULL;
	}
	r->queries = queries;
	v->priv = r;
	return v;
}

struct view *thread_view_new(struct browse *b, int64_t tid)
{
	static const char *const queries[] = {
		"sync", "waits.objects", "waits.where", "waits.chains", "waits.other", "waits.wakers", "waits.cpu", NULL,
	};
	struct mtx_query_params p = { .tid = tid, .has_tid = true };
	char title[128];
	sqlite3_stmt *st;
	const char *name = NULL;
	if (sqlite3_prepare_v2(b->db, "SELECT " NAME_OF("?"), -1,
			       &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, tid);
		if (sqlite3_step(st) == SQLITE_ROW)
			name = (const char *)sqlite3_column_text(st, 0);
		snprintf(title, sizeof(title), "thread %s (%lld)", name ? name : "?", (long long)tid);
		sqlite3_finalize(st);
	} else {
		snprintf(title, sizeof(title), "thread %lld", (long long)tid);
	}
	return report_view_new(b, title, queries, &p);
}

struct view *threads_view_new(struct browse *b)
{
	static const char *const q[] = { "threads", NULL };
	return report_view_new(b, "threads", q, NULL);
}

struct view *objects_view_new(struct browse *b)
{
	static const char *const q[] = { "objects", NULL };
	return report_view_new(b, "objects", q, NULL);
}

struct view *switches_view_new(struct browse *b)
{
	static const char *const q[] = { "switches", NULL };
	return report_view_new(b, "switches", q, NULL);
}

struct view *syscalls_view_new(struct browse *b)
{
	static const char *const q[] = { "syscalls", NULL };
	return report_view_new(b, "syscalls", q, NULL);
}

struct view *critical_path_view_new(struct browse *b)
{
	static const char *const q[] = { "critical-path.summary", "critical-path.threads", "critical-path.objects",
					 "critical-path.functions", "critical-path.sampled", NULL };
	return report_view_new(b, "critical path", q, NULL);
}
