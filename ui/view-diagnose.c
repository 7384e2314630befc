/*
 * ui/view-diagnose.c - the Performance Consultant's search (mtx diagnose,
 * src/derived/consultant.h) with its default thresholds, over the whole
 * run or one phase of it (the phases view's Enter): the findings first,
 * then the search history graph, each node under the one that led to it.
 * Enter on a node opens its evidence: the lock's history for a sync
 * object, the thread's view for a thread.
 */
#include "config.h"
#include "src/derived/consultant.h"
#include "ui/views.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Node @id's row in @section, @depth deep. */
static void add_node(struct view *v, const struct pc_search *s, int section, int id, int depth)
{
	const struct pc_node *n = pc_node(s, (size_t)id);
	char node[24], value[32], threshold[32] = "-", share[32] = "-", *label = NULL, *focus = pc_focus_name(s, &n->focus);
	snprintf(node, sizeof(node), "%d", id);
	if (id && n->status != PC_UNTESTED)
		snprintf(share, sizeof(share), "%.1f%%", 100 * n->share);
	if (id)
		snprintf(threshold, sizeof(threshold), "%g", n->threshold);
	if (asprintf(&label, "%*s%s %s", 2 * depth, "", pc_hypothesis_name(n->hypothesis), focus ? focus : "?") < 0)
		label = NULL;
	const char *cells[] = { node, pc_status_name(n->status), pc_value_text(n, value, sizeof(value)), threshold, share,
				label ? label : "?" };
	table_add_cells(&v->table, section, cells);
	free(label);
	free(focus);
}

struct diagnose_view {
	struct pc_window window;
	bool phase; /* the search is of the window only */
	struct pc_search *s;
};

static int diagnose_load(struct view *v, char **err)
{
	struct diagnose_view *d = v->priv;
	static const char *const finding_cols[] = { "node", "rank", "share", "why", "hypothesis and focus" };
	static const char *const node_cols[] = { "node", "status", "value", "threshold", "share", "hypothesis and focus" };
	struct pc_tunables t;
	struct pc_search *s = NULL;
	int *order, *depths, rc, findings, graph, unfinished = 0;
	size_t shown;
	pc_tunables_default(&t);
	/* the live search, as mtx diagnose shows it; else the run searched */
	char *why_not = NULL;
	const bool live = !d->phase && pc_search_kept_live(v->b->db) && !pc_search_stored(v->b->db, &s, &why_not);
	free(why_not);
	if (!live && (rc = pc_search_run(v->b->db, &t, d->phase ? &d->window : NULL, &s, err)))
		return rc;
	pc_search_free(d->s);
	d->s = s;
	v->table.sticky_header = false; /* two sections, each with its title */
	findings = table_add_columns(&v->table, "findings",
				     live ? "Findings of the search made live (Enter: the evidence; mtx diagnose)"
					  : "Findings: why the threads lost time, where (Enter: the evidence; mtx diagnose)",
				     finding_cols, 5);
	if (findings < 0)
		return -ENOMEM;
	for (size_t r = 0; r < pc_nr_findings(s); r++) {
		const struct pc_node *n = pc_node(s, (size_t)pc_finding(s, r));
		char node[24], rank[24], share[32], *label = NULL, *focus = pc_focus_name(s, &n->focus);
		snprintf(node, sizeof(node), "%d", n->id);
		snprintf(rank, sizeof(rank), "%zu", r + 1);
		snprintf(share, sizeof(share), "%.1f%%", 100 * n->share);
		const bool refined = pc_finding_refined(s, r);
		unfinished += !refined;
		if (asprintf(&label, "%s %s%s", pc_hypothesis_name(n->hypothesis), focus ? focus : "?",
			     refined ? "" : " (unfinished)") < 0)
			label = NULL;
		const char *cells[] = { node, rank, share, pc_why_name(pc_hypothesis_why(n->hypothesis)),
					label ? label : "?" };
		table_add_cells(&v->table, findings, cells);
		free(label);
		free(focus);
	}
	if (!pc_nr_findings(s))
		table_add_note(&v->table, findings, "(none: no hypothesis held at any focus)");
	if (unfinished)
		table_add_note(&v->table, findings,
			       "(unfinished: the search ended before it refined them; mtx diagnose --offline does)");
	/* rows go after the last section's title */
	graph = table_add_columns(&v->table, "search", "The search: each hypothesis tested at each focus",
				  node_cols, 6);
	order = calloc(pc_nr_nodes(s), sizeof(*order));
	depths = calloc(pc_nr_nodes(s), sizeof(*depths));
	rc = graph < 0 || !order || !depths ? -ENOMEM : pc_graph_order(s, order, depths, &shown);
	for (size_t i = 0; !rc && i < shown; i++)
		add_node(v, s, graph, order[i], depths[i]);
	free(order);
	free(depths);
	return rc;
}

static enum reaction diagnose_act(struct view *v, enum action a)
{
	const struct pc_search *s = ((const struct diagnose_view *)v->priv)->s;
	const char *cell = view_cell(v, "node");
	struct pc_where w;
	if (a != ACT_OPEN)
		return REACT_UNHANDLED;
	if (!s || !cell)
		return REACT_NONE;
	long id = strtol(cell, NULL, 10);
	if (id <= 0 || (size_t)id >= pc_nr_nodes(s))
		return REACT_NONE;
	pc_where(s, pc_node(s, (size_t)id), &w);
	if (w.object_addr)
		v->pushed = history_view_for_addr(v->b, w.object_addr);
	else if (w.tid)
		v->pushed = thread_view_new(v->b, w.tid);
	else
		return REACT_NONE;
	return v->pushed ? REACT_PUSH : REACT_REDRAW;
}

static void diagnose_free(struct view *v)
{
	struct diagnose_view *d = v->priv;
	if (d)
		pc_search_free(d->s);
	free(d);
	v->priv = NULL;
}

static const struct view_ops diagnose_view_ops = {
	.name = "diagnose",
	.load = diagnose_load,
	.act = diagnose_act,
	.free = diagnose_free,
};

/* The search over @window (NULL: the whole run), titled @title. */
static struct view *diagnose_view_over(struct browse *b, const struct pc_window *window, const char *title)
{
	struct diagnose_view *d = calloc(1, sizeof(*d));
	struct view *v = d ? view_new(b, &diagnose_view_ops, title, NULL) : NULL;
	if (!v) {
		free(d);
		return NULL;
	}
	if (window)
		d->window = *window, d->phase = true;
	v->priv = d;
	return v;
}

struct view *diagnose_view_new(struct browse *b)
{
	return diagnose_view_over(b, NULL, "diagnose");
}

struct view *diagnose_phase_view_new(struct browse *b, int64_t from_ns, int64_t to_ns, const char *title)
{
	const struct pc_window window = { from_ns, to_ns };
	return diagnose_view_over(b, &window, title);
}
