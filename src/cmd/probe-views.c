/* src/cmd/probe-views.c - see probe-views.h. */
#include "config.h"
#include "src/cmd/probe-views.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int probe_view_format_parse(const char *text)
{
	static const char *const names[] = { [PV_TEXT] = "text", [PV_CSV] = "csv", [PV_JSON] = "json", [PV_DOT] = "dot" };
	for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (!strcmp(text, names[i]))
			return i;
	return -1;
}

const char *probe_view_event(const struct probe_run *run, int32_t e, char *buf, size_t size)
{
	const struct probe_event *ev = &run->events[e];
	const struct probe_thread *t = &run->threads[ev->thread];
	const struct probe_object *o = &run->objects[ev->object];
	snprintf(buf, size, "%s#%d (%" PRId64 ") %s %s %#" PRIx64, t->name, ev->k, t->tid, ev->op, o->kind,
		 (uint64_t)o->addr);
	return buf;
}

double probe_view_seconds(const struct probe_run *run, int64_t ns)
{
	return (double)(ns - run->origin_ns) / 1e9;
}

/* A name fit for a JSON string or a DOT label: no quote or backslash. */
static void put_clean(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(*s == '"' || *s == '\\' || (unsigned char)*s < 0x20 ? '_' : *s, out);
}

static void json_vertex(FILE *out, const struct probe_run *run, int32_t e)
{
	fprintf(out, "{\"tid\": %" PRId64 ", \"k\": %d}", probe_event_tid(run, e), probe_event_k(run, e));
}

/* DOT's name of event @e's node: e<index>, or t0 for the system thread. */
static const char *dot_node(int32_t e, char prefix, char *buf, size_t size)
{
	if (e < 0)
		snprintf(buf, size, "%ct0", prefix);
	else
		snprintf(buf, size, "%c%d", prefix, e);
	return buf;
}

void probe_view_hb(FILE *out, const struct probe_run *run, const struct probe_graph *g, int32_t thread,
		   enum probe_view_format format)
{
	char a[160], b[96];
	bool first = true;

	if (format == PV_DOT) {
		fprintf(out, "digraph hb {\n  rankdir=LR;\n  node [shape=box, fontsize=10];\n");
		for (int32_t t = 0; t < run->nr_threads; t++) {
			if (!run->threads[t].nr_events || (thread >= 0 && t != thread))
				continue;
			fprintf(out, "  subgraph cluster_%d {\n    label=\"", t);
			put_clean(out, run->threads[t].name);
			fprintf(out, " (%" PRId64 ")\";\n", run->threads[t].tid);
			for (int32_t e = run->threads[t].first; e < run->threads[t].first + run->threads[t].nr_events; e++)
				fprintf(out, "    e%d [label=\"#%d %s %s %#" PRIx64 "%s\"];\n", e, run->events[e].k,
					run->events[e].op, run->objects[run->events[e].object].kind,
					(uint64_t)run->objects[run->events[e].object].addr,
					g->outcome[e] == PO_OK ? "" : " (fail)");
			fprintf(out, "  }\n");
		}
		for (int32_t e = 0; e < run->nr_events; e++) {
			if (thread >= 0 && run->events[e].thread != thread)
				continue;
			for (int32_t i = g->in_first[e]; i < g->in_first[e + 1]; i++) {
				int32_t src = g->in_src[i];
				char node[24];
				if (src < 0 || (thread >= 0 && run->events[src].thread != thread))
					fprintf(out, "  %s [label=\"%s\"];\n", dot_node(src, 'e', node, sizeof(node)),
						probe_event_label(run, src, b, sizeof(b)));
				fprintf(out, "  %s -> e%d [label=\"%s\"%s];\n", dot_node(src, 'e', node, sizeof(node)), e,
					hb_edge_name(g->in_kind[i]), g->in_kind[i] == PE_PROGRAM ? ", style=dotted" : "");
			}
		}
		fprintf(out, "}\n");
		return;
	}
	if (format == PV_JSON) {
		fprintf(out, "{\"vertices\": [");
		for (int32_t e = 0; e < run->nr_events; e++) {
			const struct probe_event *ev = &run->events[e];
			if (thread >= 0 && ev->thread != thread)
				continue;
			fprintf(out, "%s\n  {\"tid\": %" PRId64 ", \"k\": %d, \"op_id\": %" PRId64 ", \"op\": \"%s\", "
				     "\"kind\": \"%s\", \"object_addr\": \"0x%" PRIx64 "\", \"outcome\": \"%s\", \"ht_ns\": %" PRId64
				     ", \"edges_in\": [",
				first ? "" : ",", run->threads[ev->thread].tid, ev->k, ev->op_id, ev->op,
				run->objects[ev->object].kind, (uint64_t)run->objects[ev->object].addr,
				g->outcome[e] == PO_OK ? "ok" : "fail", ev->end_ns);
			first = false;
			for (int32_t i = g->in_first[e]; i < g->in_first[e + 1]; i++) {
				fprintf(out, "%s{\"from\": ", i > g->in_first[e] ? ", " : "");
				json_vertex(out, run, g->in_src[i]);
				fprintf(out, ", \"kind\": \"%s\"}", hb_edge_name(g->in_kind[i]));
			}
			fprintf(out, "]}");
		}
		fprintf(out, "\n], \"edges\": %" PRId64 "}\n", g->nr_edges);
		return;
	}
	if (format == PV_CSV) {
		fprintf(out, "tid,k,op_id,op,kind,object_addr,outcome,ht_ns,from_tid,from_k,edge\n");
		for (int32_t e = 0; e < run->nr_events; e++) {
			const struct probe_event *ev = &run->events[e];
			if (thread >= 0 && ev->thread != thread)
				continue;
			for (int32_t i = g->in_first[e]; i <= g->in_first[e + 1]; i++) {
				if (i == g->in_first[e + 1] && i > g->in_first[e])
					break; /* a vertex without edges still gets its row */
				fprintf(out, "%" PRId64 ",%d,%" PRId64 ",%s,%s,0x%" PRIx64 ",%s,%" PRId64 ",",
					run->threads[ev->thread].tid, ev->k, ev->op_id, ev->op, run->objects[ev->object].kind,
					(uint64_t)run->objects[ev->object].addr, g->outcome[e] == PO_OK ? "ok" : "fail", ev->end_ns);
				if (i < g->in_first[e + 1])
					fprintf(out, "%" PRId64 ",%d,%s\n", probe_event_tid(run, g->in_src[i]),
						probe_event_k(run, g->in_src[i]), hb_edge_name(g->in_kind[i]));
				else
					fprintf(out, ",,\n");
			}
		}
		return;
	}
	/* 80 columns: each edge in on a line of its own, under its vertex */
	fprintf(out, "G^I, the happened-before graph of the sync events: %d vertices, %" PRId64 " edges\n",
		run->nr_events, g->nr_edges);
	fprintf(out, "Under each vertex the edges into it (<-), program order left out.\n");
	fprintf(out, "%-18s %7s %-10s %-22s %-7s %10s\n", "vertex", "tid", "op", "object", "outcome", "ht (s)");
	for (int32_t e = 0; e < run->nr_events; e++) {
		const struct probe_event *ev = &run->events[e];
		char object[48];
		if (thread >= 0 && ev->thread != thread)
			continue;
		snprintf(object, sizeof(object), "%s %#" PRIx64, run->objects[ev->object].kind,
			 (uint64_t)run->objects[ev->object].addr);
		fprintf(out, "%-18s %7" PRId64 " %-10s %-22s %-7s %10.6f\n", probe_event_label(run, e, a, sizeof(a)),
			run->threads[ev->thread].tid, ev->op, object, g->outcome[e] == PO_OK ? "ok" : "fail",
			probe_view_seconds(run, ev->end_ns));
		for (int32_t i = g->in_first[e]; i < g->in_first[e + 1]; i++)
			if (g->in_kind[i] != PE_PROGRAM)
				fprintf(out, "  <- %s (%s)\n", probe_event_label(run, g->in_src[i], b, sizeof(b)),
					hb_edge_name(g->in_kind[i]));
	}
}

const char *probe_view_event_short(const struct probe_run *run, int32_t e, char *buf, size_t size)
{
	char label[96];
	snprintf(buf, size, "%s %s %#" PRIx64, probe_event_label(run, e, label, sizeof(label)), run->events[e].op,
		 (uint64_t)run->objects[run->events[e].object].addr);
	return buf;
}

/* When event @e happened in the observed run (@sim NULL) or in @sim. */
static int64_t happened_ns(const struct probe_run *run, const struct probe_sim *sim, int32_t e)
{
	return sim ? sim->happen_ns[e] : run->events[e].end_ns;
}

/* The places (1-based) of @order (@n events, in the order they happened
 * in @sim, or as observed when NULL) whose events happened within @w:
 * [*lo, *hi], empty (*lo > *hi) when none did. */
static void ranks_within(const struct probe_run *run, const struct probe_sim *sim, const int32_t *order, int32_t n,
			 const struct probe_time_window *w, int32_t *lo, int32_t *hi)
{
	*lo = 1, *hi = 0;
	while (*lo <= n && happened_ns(run, sim, order[*lo - 1]) < w->from_ns)
		++*lo;
	for (*hi = *lo - 1; *hi < n && happened_ns(run, sim, order[*hi]) <= w->to_ns;)
		++*hi;
}

void probe_view_window(FILE *out, const struct probe_run *run, const struct probe_sim *sim,
		       const struct probe_verdict *v, int half, const struct probe_time_window *w)
{
	int32_t d = v->first >= 0 ? (v->sim_rank[v->first] ? v->sim_rank[v->first] : v->nr_sim + 1) : 1;
	int32_t ilo = d - half < 1 ? 1 : d - half, ihi = d + half, slo = ilo, shi = ihi;
	bool stuck_shown = v->cannot_execute;
	char a[160], b[160], ia[12];

	if (w) {
		ranks_within(run, NULL, v->by_obs, run->nr_events, w, &ilo, &ihi);
		ranks_within(run, sim, v->by_sim, v->nr_sim, w, &slo, &shi);
		stuck_shown = v->cannot_execute && run->events[v->first].end_ns >= w->from_ns &&
			      run->events[v->first].end_ns <= w->to_ns;
	}
	fprintf(out, "%5s %-32s %5s %s\n", "#", "instrumented (I)", "#", "simulated (S)");
	for (int32_t r = ilo < slo ? ilo : slo; r <= (ihi > shi ? ihi : shi); r++) {
		bool in_i = r >= ilo && r <= ihi && r <= run->nr_events, in_s = r >= slo && r <= shi && r <= v->nr_sim;
		if (!in_i && !in_s)
			continue;
		snprintf(ia, sizeof(ia), "%d", r);
		if (!in_s) { /* no blanks after the instrumented column */
			fprintf(out, "%5d %.32s\n", r, probe_view_event_short(run, v->by_obs[r - 1], a, sizeof(a)));
			continue;
		}
		fprintf(out, "%5s %-32.32s %5d %s%s\n", in_i ? ia : "",
			in_i ? probe_view_event_short(run, v->by_obs[r - 1], a, sizeof(a)) : "", r,
			probe_view_event_short(run, v->by_sim[r - 1], b, sizeof(b)),
			v->first >= 0 && v->by_sim[r - 1] == v->first ? "  <- e_d" : "");
	}
	if (stuck_shown)
		fprintf(out, "%5s %-32s %5d %s  <- e_d, cannot execute\n", "", "", v->nr_sim + 1,
			probe_view_event_short(run, v->first, b, sizeof(b)));
}

static void dot_cluster(FILE *out, const struct probe_run *run, const struct probe_graph *g,
			const struct probe_graph *other, const struct probe_verdict *v, const bool *shown, char prefix,
			const char *title)
{
	char b[96];
	fprintf(out, "  subgraph cluster_%c {\n    label=\"%s\";\n", prefix, title);
	for (int32_t e = 0; e < run->nr_events; e++) {
		if (!shown[e])
			continue;
		fprintf(out, "    %c%d [label=\"", prefix, e);
		put_clean(out, probe_event_label(run, e, b, sizeof(b)));
		fprintf(out, "\\n%s %#" PRIx64 "%s\"%s];\n", run->events[e].op,
			(uint64_t)run->objects[run->events[e].object].addr, g->outcome[e] == PO_OK ? "" : " (fail)",
			e == v->first ? ", color=red, penwidth=2" : "");
	}
	for (int32_t e = 0; e < run->nr_events; e++) {
		if (!shown[e])
			continue;
		for (int32_t i = g->in_first[e]; i < g->in_first[e + 1]; i++) {
			int32_t src = g->in_src[i];
			bool differs = !hb_has_edge(other, src, e);
			char node[24];
			if (src >= 0 && !shown[src])
				continue;
			if (src < 0)
				fprintf(out, "    %s [label=\"T_0\"];\n", dot_node(src, prefix, node, sizeof(node)));
			fprintf(out, "    %s -> %c%d [label=\"%s\"%s%s];\n", dot_node(src, prefix, node, sizeof(node)), prefix,
				e, hb_edge_name(g->in_kind[i]), g->in_kind[i] == PE_PROGRAM ? ", style=dotted" : "",
				differs ? ", color=red, fontcolor=red" : "");
		}
	}
	fprintf(out, "  }\n");
}

void probe_view_dot(FILE *out, const struct probe_run *run, const struct probe_sim *sim, const struct probe_graph *gi,
		    const struct probe_graph *gs, const struct probe_verdict *v, int half,
		    const struct probe_time_window *w)
{
	bool *shown = calloc((size_t)run->nr_events + 1, sizeof(*shown));
	int32_t d = v->first >= 0 && v->sim_rank[v->first] ? v->sim_rank[v->first] : v->first >= 0 ? v->nr_sim : 1;
	int32_t lo = v->first >= 0 ? d - half : 1, hi = v->first >= 0 ? d + half : 2 * half;
	if (!shown)
		return;
	if (w) {
		for (int32_t e = 0; e < run->nr_events; e++) {
			int64_t o = run->events[e].end_ns, s = sim->happen_ns[e];
			shown[e] = (o >= w->from_ns && o <= w->to_ns) || (s >= 0 && s >= w->from_ns && s <= w->to_ns);
		}
		fprintf(out, "// G^I and G^S (mtx probe-effect): the events that happened from %.6f s to %.6f s\n"
			     "// in either run; edges in one graph and not in the other are red; the first\n"
			     "// divergent event, if any, has a red frame.\n",
			probe_view_seconds(run, w->from_ns), probe_view_seconds(run, w->to_ns));
	} else {
		for (int32_t r = lo < 1 ? 1 : lo; r <= hi && r <= v->nr_sim; r++)
			shown[v->by_sim[r - 1]] = true;
		if (v->first >= 0)
			shown[v->first] = true;
		fprintf(out, "// G^I and G^S (mtx probe-effect): events %d-%d of the simulated order; edges in one graph\n"
			     "// and not in the other are red; the first divergent event, if any, has a red frame.\n",
			lo < 1 ? 1 : lo, hi < v->nr_sim ? hi : v->nr_sim);
	}
	fprintf(out, "digraph probe_effect {\n  rankdir=LR;\n  node [shape=box, fontsize=10];\n");
	dot_cluster(out, run, gi, gs, v, shown, 'I', "G^I (instrumented)");
	dot_cluster(out, run, gs, gi, v, shown, 'S', "G^S (simulated)");
	fprintf(out, "}\n");
	free(shown);
}

static void timeline_row(FILE *out, const struct probe_run *run, const struct probe_sim *sim,
			 const struct probe_verdict *v, enum probe_view_format format, int32_t e, bool first)
{
	const struct probe_event *ev = &run->events[e];
	const char *oi = ev->outcome == PO_OK ? "ok" : "fail";
	const char *os = !v->sim_rank[e] ? "-" : sim->outcome[e] == PO_OK ? "ok" : "fail";
	char a[160], rank[16] = "-", sim_s[32] = "-";
	if (v->sim_rank[e])
		snprintf(rank, sizeof(rank), "%d", v->sim_rank[e]);
	if (format == PV_CSV) {
		fprintf(out, "%s,%d,%" PRId64 ",%d,%" PRId64 ",%s,%s,0x%" PRIx64 ",%s,%s,%" PRId64 ",",
			v->sim_rank[e] ? rank : "", v->obs_rank[e], run->threads[ev->thread].tid, ev->k, ev->op_id, ev->op,
			run->objects[ev->object].kind, (uint64_t)run->objects[ev->object].addr, oi, v->sim_rank[e] ? os : "",
			ev->end_ns);
		if (v->sim_rank[e])
			fprintf(out, "%" PRId64, sim->happen_ns[e]);
		fprintf(out, "\n");
	} else if (format == PV_JSON) {
		fprintf(out, "%s\n  {\"order_sim\": %s, \"order_obs\": %d, \"tid\": %" PRId64 ", \"k\": %d, \"op_id\": %" PRId64
			     ", \"op\": \"%s\", \"kind\": \"%s\", \"object_addr\": %" PRIu64 ", \"outcome_obs\": \"%s\", ",
			first ? "" : ",", v->sim_rank[e] ? rank : "null", v->obs_rank[e], run->threads[ev->thread].tid, ev->k,
			ev->op_id, ev->op, run->objects[ev->object].kind, (uint64_t)run->objects[ev->object].addr, oi);
		if (v->sim_rank[e])
			fprintf(out, "\"outcome_sim\": \"%s\", \"observed_ns\": %" PRId64 ", \"simulated_ns\": %" PRId64 "}",
				os, ev->end_ns, sim->happen_ns[e]);
		else
			fprintf(out, "\"outcome_sim\": null, \"observed_ns\": %" PRId64 ", \"simulated_ns\": null}",
				ev->end_ns);
	} else {
		if (v->sim_rank[e])
			snprintf(sim_s, sizeof(sim_s), "%.6f", probe_view_seconds(run, sim->happen_ns[e]));
		fprintf(out, "%6s %6d  %-44.44s %12.6f %12s  %s/%s\n", rank, v->obs_rank[e],
			probe_view_event(run, e, a, sizeof(a)), probe_view_seconds(run, ev->end_ns), sim_s, oi, os);
	}
}

void probe_view_timeline(FILE *out, const struct probe_run *run, const struct probe_sim *sim,
			 const struct probe_verdict *v, enum probe_view_format format)
{
	bool first = true;
	if (format == PV_CSV)
		fprintf(out, "order_sim,order_obs,tid,k,op_id,op,kind,object_addr,outcome_obs,outcome_sim,observed_ns,"
			     "simulated_ns\n");
	else if (format == PV_JSON)
		fprintf(out, "[");
	else
		fprintf(out, "%6s %6s  %-44s %12s %12s  %s\n", "#S", "#I", "event", "observed s", "simulated s",
			"outcome I/S");
	/* the simulated order, then what never executed, in observed order */
	for (int32_t r = 0; r < v->nr_sim; r++, first = false)
		timeline_row(out, run, sim, v, format, v->by_sim[r], first);
	for (int32_t i = 0; i < run->nr_events; i++)
		if (!v->sim_rank[v->by_obs[i]]) {
			timeline_row(out, run, sim, v, format, v->by_obs[i], first);
			first = false;
		}
	if (format == PV_JSON)
		fprintf(out, "\n]\n");
}
