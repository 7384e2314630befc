/*
 * src/cmd/probe-views.h - how mtx probe-effect and mtx report hb show the
 * probe-effect analysis (src/probe/): the happened-before graph as text,
 * JSON or DOT (seed 004 Figs. 2, 11), the observed and simulated orders
 * side by side around the first divergent event (Figs. 8-10), and G^I
 * with G^S in DOT, their differing edges in red.
 */
#ifndef MTX_CMD_PROBE_VIEWS_H
#define MTX_CMD_PROBE_VIEWS_H

#include "src/probe/hb.h"
#include "src/probe/run.h"
#include "src/probe/simulate.h"
#include "src/probe/verdict.h"

#include <stdint.h>
#include <stdio.h>

enum probe_view_format { PV_TEXT, PV_CSV, PV_JSON, PV_DOT };

/* probe_view_format_parse - text, csv, json or dot; -1 for another. */
int probe_view_format_parse(const char *text);

/* probe_view_seconds - time @ns as seconds since the run's start, as the
 * other reports show times. */
double probe_view_seconds(const struct probe_run *run, int64_t ns);

/* probe_view_event - "name#k (tid) op kind 0xaddr" of event @e into @buf. */
const char *probe_view_event(const struct probe_run *run, int32_t e, char *buf, size_t size);
/* probe_view_event_short - "name#k op 0xaddr", for columns. */
const char *probe_view_event_short(const struct probe_run *run, int32_t e, char *buf, size_t size);

/*
 * probe_view_hb - print @g, the graph of the observed run, as text (one
 * line per vertex with its incoming edges other than program order), JSON
 * or DOT; only the vertices of thread row @thread when it is >= 0 (and
 * the edges into them).
 */
void probe_view_hb(FILE *out, const struct probe_run *run, const struct probe_graph *g, int32_t thread,
		   enum probe_view_format format);

/* A time window of the views (mtx probe-effect --window): the events that
 * happened from from_ns to to_ns (CLOCK_MONOTONIC ns, both included). */
struct probe_time_window {
	int64_t from_ns, to_ns;
};

/* probe_view_window - the two total orders side by side, numbered: around
 * e_d (or from the start when the graphs are equal), @half rows each
 * side; or, when @w is not NULL, the events of each order that happened
 * within @w in that run (@sim's times for the simulated one). */
void probe_view_window(FILE *out, const struct probe_run *run, const struct probe_sim *sim,
		       const struct probe_verdict *v, int half, const struct probe_time_window *w);

/* probe_view_dot - G^I and G^S as two clusters of one DOT graph, the
 * events within @half places of e_d in the simulated order (the first
 * 2 * @half when equal), or, when @w is not NULL, those that happened
 * within @w in either run; edges in one graph and not the other in red. */
void probe_view_dot(FILE *out, const struct probe_run *run, const struct probe_sim *sim, const struct probe_graph *gi,
		    const struct probe_graph *gs, const struct probe_verdict *v, int half,
		    const struct probe_time_window *w);

/* probe_view_timeline - one row per event in the simulated order (then
 * those that never executed): orders, tids, ops, observed and simulated
 * times, outcomes; text, CSV or JSON (an array). */
void probe_view_timeline(FILE *out, const struct probe_run *run, const struct probe_sim *sim,
			 const struct probe_verdict *v, enum probe_view_format format);

#endif
