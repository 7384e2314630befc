/*
 * src/report-instrumentation.c - `mtx report instrumentation`: what was
 * recorded when (SEEDS-MAP S2, S6): each window in which a source or a
 * probe set was on, why it went on and off (start/budget, user/user), a
 * probe's calls, its calibrated cost per call and the share of one CPU
 * those calls cost over its window.
 */
#include "config.h"
#include "src/reports.h"

/* A window still open at the end lasts until the run's last event. */
#define WINDOW_END "COALESCE(i.off_ns, (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'end_ns'))"

const struct mtx_query instrumentation_queries[] = {
	{ "instrumentation", "What was recorded when: sources and probes, their windows, calls and cost",
	  "SELECT i.kind, i.target, i.probe_id AS id, i.functions, i.on_ns AS start_ns, " WINDOW_END " AS end_ns, "
	  "i.reason || COALESCE('/' || i.off_reason, '') AS reason, i.hits AS calls, i.cost_ns AS call_cost_ns, "
	  "CASE WHEN i.hits IS NOT NULL AND i.cost_ns IS NOT NULL THEN ROUND(100.0 * i.hits * i.cost_ns / "
	  "MAX(1, " WINDOW_END " - i.on_ns), 2) END AS cost_pct "
	  "FROM instrumentation i ORDER BY i.on_ns, i.id" },
	{ 0 },
};
