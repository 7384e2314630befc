/*
 * ui/view-phases.c - the run's phases (src/phases.h), each with the share
 * of its threads' time in each state, as mtx report FILE phases shows
 * them. Enter on a phase searches it alone: the diagnose view over its
 * window, as mtx diagnose --phase does (one search per phase).
 */
#include "config.h"
#include "src/phases.h"
#include "ui/views.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static int phases_load(struct view *v, char **err)
{
	struct run_phases *p = v->priv;
	int rc;
	run_phases_free(p);
	if ((rc = run_phases_load(v->b->db, NULL, p, err)) || (rc = run_phases_table(v->b->db, p, v->b->missing, err)))
		return rc;
	rc = view_load_query(v, "phases.table", 1000, err);
	return rc < 0 ? rc : 0;
}

static enum reaction phases_act(struct view *v, enum action a)
{
	const struct run_phases *p = v->priv;
	const char *cell = view_cell(v, "id");
	char title[96];
	if (a != ACT_OPEN)
		return REACT_UNHANDLED;
	for (size_t i = 0; cell && i < p->n; i++) {
		const struct phase_row *ph = &p->v[i];
		if (ph->id != strtoll(cell, NULL, 10) || ph->end_ns <= ph->start_ns)
			continue;
		snprintf(title, sizeof(title), "diagnose: phase %lld %s", (long long)ph->id, ph->name);
		v->pushed = ph->id ? diagnose_phase_view_new(v->b, ph->start_ns, ph->end_ns, title)
				   : diagnose_view_new(v->b);
		return v->pushed ? REACT_PUSH : REACT_REDRAW;
	}
	return REACT_NONE;
}

static void phases_free(struct view *v)
{
	if (v->priv)
		run_phases_free(v->priv);
	free(v->priv);
	v->priv = NULL;
}

static const struct view_ops phases_view_ops = {
	.name = "phases",
	.load = phases_load,
	.act = phases_act,
	.free = phases_free,
};

struct view *phases_view_new(struct browse *b)
{
	struct run_phases *p = calloc(1, sizeof(*p));
	struct view *v = p ? view_new(b, &phases_view_ops, "phases", NULL) : NULL;
	if (!v) {
		free(p);
		return NULL;
	}
	v->priv = p;
	return v;
}
