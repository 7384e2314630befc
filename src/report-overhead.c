/*
 * src/report-overhead.c - `mtx report overhead`: seed 004's Tables I and
 * II. Per thread: its CPU time (running, from thread_totals), the time
 * mtx's instrumentation took of it, the CPU time without it, and the
 * overhead as a share of the latter; then where that time came from.
 *
 * Instrumentation time of a thread = what its sync ops' wrappers measured
 * (sync_ops.overhead_ns: lane-full waits and --inject-overhead's wait
 * included) + for each kernel-side source whose per-record cost was
 * calibrated at the run's start (meta cal_<source>_ns), the thread's
 * records of it times that cost; with what mtx collect --detail added up
 * (summarized_*) counted in. A source without calibration adds
 * nothing, and the second table says "not calibrated".
 *
 * The "all" row is the aggregate, Σ(cpu - without) / Σ without, as seed
 * 004's "Average" rows are: not the mean of the rows.
 */
#include "config.h"
#include "src/db.h"
#include "src/reports.h"

#include <stdlib.h>

/* The calibrated cost of one record of @source (meta cal_<source>_ns),
 * NULL when not calibrated. */
#define CAL(source) "(SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'cal_" source "_ns')"
/* Whether the calls were traced with uprobes (--functions), not -pg hooks. */
#define CALLS_BY_UPROBES "EXISTS (SELECT 1 FROM meta WHERE key = 'functions_pattern')"

/*
 * The kernel-side sources: X(name in meta cal_<name>_ns, label, SQL rows
 * (tid, n): each thread's records of it). A syscall is two records (enter
 * and exit), calibrated as one pair; a switch is charged to the thread
 * that left the CPU, a wakeup to the waker.
 */
#define KERNEL_SOURCES(X)                                                                                \
	X("syscalls", "syscall records",                                                                 \
	  "SELECT tid, SUM(n) AS n FROM (SELECT tid, COUNT(*) AS n FROM syscalls GROUP BY tid "          \
	  "UNION ALL SELECT tid, SUM(calls) FROM summarized_syscalls GROUP BY tid) GROUP BY tid")         \
	X("switches", "switch records",                                                                  \
	  "SELECT tid, SUM(n) AS n FROM (SELECT prev_tid AS tid, COUNT(*) AS n FROM switches "           \
	  "GROUP BY prev_tid UNION ALL SELECT prev_tid, SUM(count) FROM summarized_switches "            \
	  "GROUP BY prev_tid) GROUP BY tid")                                                             \
	X("wakeups", "wakeup records",                                                                   \
	  "SELECT waker_tid AS tid, COUNT(*) AS n FROM wakeups GROUP BY waker_tid")                      \
	X("samples", "samples", "SELECT tid, COUNT(*) AS n FROM samples GROUP BY tid")                   \
	X("hooks", "-pg hooks",                                                                          \
	  "SELECT tid, COUNT(*) AS n FROM calls WHERE NOT " CALLS_BY_UPROBES " GROUP BY tid")            \
	X("uprobes", "uprobes",                                                                          \
	  "SELECT tid, COUNT(*) AS n FROM calls WHERE " CALLS_BY_UPROBES " GROUP BY tid")

/* Rows (tid, ns): each thread's calibrated kernel-side cost. */
#define KERNEL_COST_ROWS                                                                   \
	"SELECT k.tid, SUM(k.n * k.cal) AS ns FROM ("                                       \
	KERNEL_SOURCES(KERNEL_COST_ROW) "SELECT NULL, 0, 0) k WHERE k.cal IS NOT NULL GROUP BY k.tid"
#define KERNEL_COST_ROW(source, label, rows) \
	"SELECT r.tid, r.n, " CAL(source) " AS cal FROM (" rows ") r UNION ALL "

/* Per thread (tid, ns): the interrupt handlers that ran on its CPU while
 * it was running there (the thread the CPU's last switch before the
 * handler gave it to): time inside its running intervals that is not its
 * own execution (seed 004 advances a thread's clock only for that). */
#define IRQ_ROWS                                                                                          \
	"SELECT (SELECT w.next_tid FROM switches w WHERE w.cpu = i.cpu AND w.ts_ns <= i.start_ns "       \
	"ORDER BY w.ts_ns DESC LIMIT 1) AS tid, TOTAL(i.end_ns - i.start_ns) AS ns FROM interrupts i GROUP BY 1"

/* Per thread (tid, name, cpu_ns, instr_ns). */
#define PER_THREAD                                                                                       \
	"irq AS (" IRQ_ROWS "), "                                                                        \
	"cpu AS (SELECT x.tid, (SELECT y.name FROM thread_totals y WHERE y.tid = x.tid "                \
	"ORDER BY y.start_ns DESC LIMIT 1) AS name, "                                                    \
	"SUM(x.running_ns) - COALESCE((SELECT CAST(q.ns AS INTEGER) FROM irq q WHERE q.tid = x.tid), 0) " \
	"AS cpu_ns FROM thread_totals x GROUP BY x.tid), "                                               \
	"wrapper AS (SELECT tid, TOTAL(ns) AS ns FROM (SELECT tid, overhead_ns AS ns FROM sync_ops "      \
	"UNION ALL SELECT tid, overhead_ns FROM summarized_sync_ops) GROUP BY tid), "                     \
	"kernel AS (" KERNEL_COST_ROWS "), "                                                             \
	"per_thread AS (SELECT c.tid, c.name, c.cpu_ns, "                                                \
	"CAST(COALESCE(w.ns, 0) + COALESCE(k.ns, 0) AS INTEGER) AS instr_ns FROM cpu c "                 \
	"LEFT JOIN wrapper w ON w.tid = c.tid LEFT JOIN kernel k ON k.tid = c.tid)"

/* NULL (shown as '-') when the instrumentation time reaches the CPU time:
 * calibrated costs charged by count can exceed a thread's little CPU time,
 * and a percentage of nothing says nothing. */
#define OVERHEAD_PCT(instr, cpu) \
	"CASE WHEN (" cpu ") > (" instr ") THEN ROUND(100.0 * (" instr ") / ((" cpu ") - (" instr ")), 1) END"

/* Per thread, then the "all" row. */
#define THREADS_SQL                                                                                      \
	"WITH " PER_THREAD " "                                                                           \
	"SELECT tid, name, cpu_time_ns, instr_time_ns, cpu_without_ns, overhead_pct FROM ("             \
	"SELECT 0 AS part, tid, name, cpu_ns AS cpu_time_ns, instr_ns AS instr_time_ns, "                \
	"cpu_ns - instr_ns AS cpu_without_ns, " OVERHEAD_PCT("instr_ns", "cpu_ns") " AS overhead_pct "  \
	"FROM per_thread "                                                                               \
	"UNION ALL SELECT 1, NULL, 'all', SUM(cpu_ns), SUM(instr_ns), SUM(cpu_ns - instr_ns), "          \
	OVERHEAD_PCT("SUM(instr_ns)", "SUM(cpu_ns)") " FROM per_thread) "                                \
	"ORDER BY part, tid"

#define SOURCES_SQL                                                                                      \
	"SELECT 'sync wrapper' AS source, CAST(TOTAL(n) AS INTEGER) AS count, "                          \
	"CAST(TOTAL(ns) / MAX(TOTAL(n), 1) AS INTEGER) AS per_unit_ns, "                                 \
	"CAST(TOTAL(ns) AS INTEGER) AS total_ns, "                                                       \
	"'measured: TSC in the wrapper' AS how FROM (SELECT COUNT(overhead_ns) AS n, "                   \
	"TOTAL(overhead_ns - injected_ns) AS ns FROM sync_ops UNION ALL SELECT "                         \
	"TOTAL(IIF(overhead_ns IS NULL, 0, calls)), TOTAL(overhead_ns - injected_ns) "                   \
	"FROM summarized_sync_ops) "                                                                     \
	"UNION ALL SELECT 'injected', COUNT(*), CAST(TOTAL(injected_ns) / MAX(COUNT(*), 1) AS INTEGER), " \
	"CAST(TOTAL(injected_ns) AS INTEGER), "                                                          \
	"CASE WHEN COUNT(*) = 0 THEN 'none' "                                                            \
	"ELSE printf('%.2f us x %d ops', TOTAL(injected_ns) / COUNT(*) / 1000.0, COUNT(*)) END "         \
	"FROM sync_ops WHERE injected_ns > 0 "                                                           \
	"UNION ALL SELECT 'lane-full stalls', CAST(TOTAL(waits) AS INTEGER), "                           \
	"CAST(TOTAL(wait_ns) / MAX(TOTAL(waits), 1) AS INTEGER), CAST(TOTAL(wait_ns) AS INTEGER), "      \
	"'measured (in the wrapper''s)' FROM collector_waits "                                           \
	KERNEL_SOURCES(SOURCE_ROW)
#define SOURCE_ROW(source, label, rows)                                                            \
	"UNION ALL SELECT '" label "', (SELECT CAST(TOTAL(r.n) AS INTEGER) FROM (" rows ") r), "      \
	CAL(source) ", " CAL(source) " * (SELECT SUM(r.n) FROM (" rows ") r), "                       \
	"CASE WHEN " CAL(source) " IS NULL THEN 'not calibrated' ELSE 'calibrated at the start' END "

const struct mtx_query overhead_queries[] = {
	{ "overhead", "Instrumentation overhead per thread", THREADS_SQL },
	{ "overhead.sources", "Where it comes from", SOURCES_SQL },
	{ 0 },
};

/* --cycles: the same tables in TSC cycles, seed 004's unit, at the TSC's
 * rate the collector measured (meta tsc_hz); each x_ns column becomes
 * x_cycles, rounded. */
#define TSC_HZ "(SELECT CAST(value AS REAL) FROM meta WHERE key = 'tsc_hz')"
#define CYCLES(col) "CAST(ROUND(" col "_ns * " TSC_HZ " / 1e9) AS INTEGER) AS " col "_cycles"

const struct mtx_query overhead_cycles_queries[] = {
	{ "overhead", "Instrumentation overhead per thread, in TSC cycles",
	  "SELECT tid, name, " CYCLES("cpu_time") ", " CYCLES("instr_time") ", " CYCLES("cpu_without") ", "
	  "overhead_pct FROM (" THREADS_SQL ") ORDER BY tid IS NULL, tid" },
	{ "overhead.sources", "Where it comes from, in TSC cycles",
	  "SELECT source, count, " CYCLES("per_unit") ", " CYCLES("total") ", how FROM (" SOURCES_SQL ")" },
	{ 0 },
};

const char *report_overhead_no_cycles(sqlite3 *db)
{
	if (db_query_int(db, "SELECT COUNT(*) FROM meta WHERE key = 'tsc_hz' AND CAST(value AS INTEGER) > 0", 0) == 0)
		return "--cycles: the run does not know its TSC's rate (meta tsc_hz): it was recorded before mtx "
		       "kept it, or its sync calls were not stamped with the TSC";
	return NULL;
}

const char *report_overhead_unmeasured(sqlite3 *db)
{
	if (!db_has_column(db, "sync_ops", "overhead_ns") ||
	    db_query_int(db, "SELECT COUNT(*) FROM meta WHERE key = 'overhead_measured' AND value = '1'", 0) == 0)
		return "overhead was not measured in that run (recorded before mtx measured it, "
		       "or its sync ops traced with uprobes)";
	return NULL;
}
