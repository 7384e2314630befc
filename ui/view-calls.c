/*
 * ui/view-calls.c - per-thread call trees. The first level lists the
 * threads that have exact calls (uprobes, -pg hooks) or CPU samples; Enter
 * (or Right) expands a node, Left collapses it. A thread's tree is built
 * when it is first expanded, from its calls when it has any (counts, self
 * and total time) and otherwise from its samples (self and total samples),
 * and the title says which.
 */
#define _GNU_SOURCE
#include "config.h"
#include "ui/views.h"
#include "src/timefmt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
	int64_t function_id; /* -1: a thread (tid in function_id's place) */
	int parent, first_child, next_sibling, depth;
	int64_t count;       /* calls, or samples ending here */
	int64_t total;       /* ns (calls) or samples, this node and below */
	int64_t self;
	bool expanded, built, from_samples;
	char *label;
};

struct calls_view {
	struct node *nodes;
	int nr_nodes;
};

static int add_node(struct calls_view *cv, int parent, int64_t function_id, int depth)
{
	struct node *more = realloc(cv->nodes, (size_t)(cv->nr_nodes + 1) * sizeof(*more));
	if (!more)
		return -1;
	cv->nodes = more;
	struct node *n = &cv->nodes[cv->nr_nodes];
	memset(n, 0, sizeof(*n));
	n->function_id = function_id;
	n->parent = parent;
	n->first_child = n->next_sibling = -1;
	n->depth = depth;
	if (parent >= 0) {
		n->next_sibling = cv->nodes[parent].first_child;
		cv->nodes[parent].first_child = cv->nr_nodes;
	}
	return cv->nr_nodes++;
}

/* The child of @parent for @function_id, made if missing. */
static int child_for(struct calls_view *cv, int parent, int64_t function_id)
{
	for (int c = cv->nodes[parent].first_child; c >= 0; c = cv->nodes[c].next_sibling)
		if (cv->nodes[c].function_id == function_id)
			return c;
	return add_node(cv, parent, function_id, cv->nodes[parent].depth + 1);
}

/* @name for thread @tid. */
static sqlite3_stmt *prepare(struct view *v, const char *name, int64_t tid)
{
	struct mtx_query_params p = { .tid = tid, .has_tid = true };
	return view_prepare(v, name, &p, NULL);
}

/* A thread's tree from its exact calls: a stack of nodes by depth. */
static int build_from_calls(struct view *v, int thread)
{
	struct calls_view *cv = v->priv;
	sqlite3_stmt *st = prepare(v, "calls.of_thread", cv->nodes[thread].function_id);
	int path[256];
	if (!st)
		return -EIO;
	path[0] = thread;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int depth = sqlite3_column_int(st, 1);
		if (depth < 0 || depth >= 255)
			continue;
		int node = child_for(cv, path[depth], sqlite3_column_int64(st, 0));
		if (node < 0)
			break;
		int64_t ns = sqlite3_column_int64(st, 3) - sqlite3_column_int64(st, 2);
		cv->nodes[node].count++;
		cv->nodes[node].total += ns;
		cv->nodes[node].self += ns;
		if (depth > 0)
			cv->nodes[path[depth]].self -= ns; /* the caller's own time excludes it */
		else
			cv->nodes[thread].total += ns;
		path[depth + 1] = node;
	}
	sqlite3_finalize(st);
	return 0;
}

/* The root-first path of @stack_id into @path; its length (max 256). */
static int stack_path(struct view *v, int64_t stack_id, int64_t *path)
{
	sqlite3_stmt *st = prepare(v, "calls.stack", 0);
	int n = 0;
	int64_t rev[256];
	while (st && n < 256) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":k0"), stack_id);
		if (sqlite3_step(st) != SQLITE_ROW)
			break;
		rev[n++] = sqlite3_column_int64(st, 1);
		if (sqlite3_column_type(st, 0) == SQLITE_NULL)
			break;
		stack_id = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	for (int i = 0; i < n; i++)
		path[i] = rev[n - 1 - i];
	return n;
}

/* A thread's tree from its samples: each stack's count on every node of its path. */
static int build_from_samples(struct view *v, int thread)
{
	struct calls_view *cv = v->priv;
	sqlite3_stmt *st = prepare(v, "calls.samples_of_thread", cv->nodes[thread].function_id);
	int64_t path[256];
	if (!st)
		return -EIO;
	cv->nodes[thread].from_samples = true;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t samples = sqlite3_column_int64(st, 1);
		int n = stack_path(v, sqlite3_column_int64(st, 0), path), node = thread;
		cv->nodes[thread].total += samples;
		for (int i = 0; i < n && node >= 0; i++) {
			node = child_for(cv, node, path[i]);
			if (node < 0)
				break;
			cv->nodes[node].total += samples;
			cv->nodes[node].from_samples = true;
			if (i == n - 1) {
				cv->nodes[node].self += samples;
				cv->nodes[node].count += samples;
			}
		}
	}
	sqlite3_finalize(st);
	return 0;
}

static void label_node(struct view *v, struct node *n)
{
	sqlite3_stmt *st = prepare(v, "calls.function", 0);
	const char *name = NULL, *module = NULL;
	if (st) {
		sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":k0"), n->function_id);
		if (sqlite3_step(st) == SQLITE_ROW) {
			name = (const char *)sqlite3_column_text(st, 0);
			module = (const char *)sqlite3_column_text(st, 1);
		}
	}
	const char *base = module ? strrchr(module, '/') : NULL;
	if (asprintf(&n->label, "%s%s%s", name ? name : "?", module ? " " : "", base ? base + 1 : module ? module : "") < 0)
		n->label = NULL;
	sqlite3_finalize(st);
}

/* Children in descending total order (insertion sort of the sibling list). */
static void sort_children(struct calls_view *cv, int parent)
{
	int sorted = -1;
	for (int c = cv->nodes[parent].first_child, next; c >= 0; c = next) {
		next = cv->nodes[c].next_sibling;
		int *link = &sorted;
		while (*link >= 0 && cv->nodes[*link].total >= cv->nodes[c].total)
			link = &cv->nodes[*link].next_sibling;
		cv->nodes[c].next_sibling = *link;
		*link = c;
	}
	cv->nodes[parent].first_child = sorted;
}

static void add_rows(struct view *v, int section, int node, int64_t thread_total)
{
	struct calls_view *cv = v->priv;
	for (int c = node; c >= 0; c = cv->nodes[c].next_sibling) {
		struct node *n = &cv->nodes[c];
		char label[512], count[32], self[32], total[32], pct[16], id[32];
		bool samples = n->from_samples;
		if (n->function_id >= 0 && !n->label)
			label_node(v, n);
		snprintf(label, sizeof(label), "%*s%s %s", 2 * n->depth, "",
			 n->first_child >= 0 || !n->built ? (n->expanded ? "-" : "+") : " ", n->label ? n->label : "?");
		snprintf(count, sizeof(count), "%lld", (long long)n->count);
		if (n->depth == 0 && !n->built) {
			/* a thread's calls or samples are read when it is first opened */
			snprintf(self, sizeof(self), "-");
			snprintf(total, sizeof(total), "-");
		} else if (samples) {
			snprintf(self, sizeof(self), "%lld", (long long)n->self);
			snprintf(total, sizeof(total), "%lld", (long long)n->total);
		} else {
			timefmt_duration((uint64_t)(n->self > 0 ? n->self : 0), self, sizeof(self));
			timefmt_duration((uint64_t)n->total, total, sizeof(total));
		}
		snprintf(pct, sizeof(pct), "%.1f",
			 n->depth == 0 ? 100.0 : thread_total ? 100.0 * (double)n->total / (double)thread_total : 0.0);
		snprintf(id, sizeof(id), "%d", c);
		const char *cells[] = { label, count, self, total, pct, id };
		table_add_cells(&v->table, section, cells);
		if (n->expanded)
			add_rows(v, section, n->first_child, n->depth == 0 ? n->total : thread_total);
	}
}

/* Rebuild the rows from the tree, keeping the selected node selected. */
static void refresh_rows(struct view *v, int keep)
{
	static const char *const columns[] = { "function", "count", "self", "total", "thread_pct", "key0" };
	struct calls_view *cv = v->priv;
	table_clear(&v->table);
	int section = table_add_columns(&v->table, "calls", "calls", columns, 6);
	if (section < 0)
		return;
	int first_thread = -1;
	for (int i = cv->nr_nodes - 1; i >= 0; i--)
		if (cv->nodes[i].depth == 0)
			first_thread = i; /* threads were added in order: link them as siblings */
	add_rows(v, section, first_thread, 0);
	/* Counts, durations ("2.28 ms") and shares, all to the right. */
	for (int c = 1; c <= 4; c++)
		v->table.sections[section].left[c] = false;
	for (size_t i = 0; i < v->table.nr_rows; i++)
		if (v->table.rows[i].type == ROW_DATA && atoi(v->table.rows[i].cells[5]) == keep)
			v->sel = i;
}

static int calls_load(struct view *v, char **err)
{
	struct calls_view *cv = v->priv;
	sqlite3_stmt *st = view_prepare(v, "calls.threads", NULL, err);
	int prev = -1;
	if (!st)
		return -EIO;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int n = add_node(cv, -1, sqlite3_column_int64(st, 0), 0);
		if (n < 0)
			break;
		const char *name = (const char *)sqlite3_column_text(st, 1);
		int64_t calls = sqlite3_column_int64(st, 2), samples = sqlite3_column_int64(st, 3);
		if (asprintf(&cv->nodes[n].label, "%s (%lld): %lld %s", name ? name : "?",
			     (long long)sqlite3_column_int64(st, 0), (long long)(calls ? calls : samples),
			     calls ? "calls" : "samples") < 0)
			cv->nodes[n].label = NULL;
		cv->nodes[n].from_samples = calls == 0;
		cv->nodes[n].count = calls ? calls : samples;
		if (prev >= 0)
			cv->nodes[prev].next_sibling = n;
		prev = n;
	}
	sqlite3_finalize(st);
	if (!cv->nr_nodes) {
		int section = table_add_columns(&v->table, "calls", "calls", (const char *const[]){ "function" }, 1);
		if (section >= 0)
			table_add_note(&v->table, section,
				       "No calls or samples in this run: collect with --sample HZ (or --functions REGEX).");
		return 0;
	}
	refresh_rows(v, 0);
	return 0;
}

static int selected_node(const struct view *v)
{
	const char *id = view_cell(v, "key0");
	return id ? atoi(id) : -1;
}

static enum reaction calls_act(struct view *v, enum action a)
{
	struct calls_view *cv = v->priv;
	int node = selected_node(v);
	if (node < 0 || (a != ACT_OPEN && a != ACT_RIGHT && a != ACT_LEFT))
		return REACT_UNHANDLED;
	struct node *n = &cv->nodes[node];
	if (a == ACT_LEFT && !n->expanded && n->parent >= 0) {
		refresh_rows(v, n->parent); /* Left on a closed node: to its parent */
		return REACT_REDRAW;
	}
	if (a == ACT_LEFT || (a == ACT_OPEN && n->expanded)) {
		n->expanded = false;
	} else {
		if (n->depth == 0 && !n->built) {
			int rc = n->from_samples ? build_from_samples(v, node) : build_from_calls(v, node);
			n = &cv->nodes[node]; /* the array may have moved */
			if (rc)
				view_message(v->b, "cannot read this thread's calls");
		}
		n->built = true;
		sort_children(cv, node);
		for (int c = n->first_child; c >= 0; c = cv->nodes[c].next_sibling) {
			cv->nodes[c].built = true;
			sort_children(cv, c);
		}
		n->expanded = true;
	}
	refresh_rows(v, node);
	return REACT_REDRAW;
}

static void calls_free(struct view *v)
{
	struct calls_view *cv = v->priv;
	for (int i = 0; i < cv->nr_nodes; i++)
		free(cv->nodes[i].label);
	free(cv->nodes);
	free(cv);
}

static const struct view_ops calls_view_ops = {
	.name = "calls",
	.load = calls_load,
	.act = calls_act,
	.free = calls_free,
};

struct view *calls_view_new(struct browse *b)
{
	struct calls_view *cv = calloc(1, sizeof(*cv));
	struct view *v = cv ? view_new(b, &calls_view_ops, "calls", NULL) : NULL;
	if (!v) {
		free(cv);
		return NULL;
	}
	v->priv = cv;
	return v;
}
