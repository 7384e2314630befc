/*
 * src/reports.c - the named reports and their queries (see reports.h).
 *
 * Text output must fit 80 columns, so each query selects few columns and
 * names them for report-format.c: *_ns are durations (start_ns, end_ns:
 * times), *_pct percentages, addr/callsite hex. Thread names come from the
 * latest lifetime of a tid (NAME_OF).
 */
#include "config.h"
#include "src/reports.h"
#include "src/columns.h"
#include "src/db.h"
#include "src/frames.h"
#include "src/thread-states.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The --from/--to window, whole run when not given. */
#define FROM_NS "COALESCE(:from, -9223372036854775807)"
#define TO_NS "COALESCE(:to, 9223372036854775807)"
/* An interval [s, e) clipped to the window, and its overlap test. */
#define CLIPPED(s, e) "(MIN(" e ", " TO_NS ") - MAX(" s ", " FROM_NS "))"
#define IN_WINDOW(s, e) "(" s " < " TO_NS " AND " e " > " FROM_NS ")"
#define THREAD_IS(col) "(:tid IS NULL OR " col " = :tid)"
/*
 * Where the rows of @table (intervals of one thread that never overlap:
 * thread_states, state_causes, wait_for) overlapping the window begin for
 * thread @tid: the last one begun by the window's start is the only one
 * begun before it that can reach into it. With this lower bound on
 * start_ns the (tid, start_ns) index reads the window's rows only, not all
 * of the thread's from its start (threads --from 10s --to 11s on the 10 M-
 * event bench run: 6.1 s).
 */
#define TILE_FROM(table, tid) TILE_FROM_AT(table, tid, FROM_NS)
/* The same for the rows that reach into a window beginning at @at. */
#define TILE_FROM_AT(table, tid, at)                                                                   \
	"COALESCE((SELECT MAX(b.start_ns) FROM " table " b WHERE b.tid = " tid " AND b.start_ns <= " at \
	"), -9223372036854775807)"
/* FROM-clause rows of @table (as TILE_FROM's, or syscalls) as @alias for
 * the window and --thread: per thread, the (tid, start_ns) index from
 * TILE_FROM on. */
#define WINDOW_ROWS(table, alias) WINDOW_ROWS_ENDING(table, alias, alias ".end_ns")
/* The same, for rows that end at @end (an expression of the row). */
#define WINDOW_ROWS_ENDING(table, alias, end) THREAD_ROWS(table, alias, TILE_FROM(table, "wt.tid"), TO_NS, end)
/* FROM-clause rows of @table as @alias, of the threads --thread keeps,
 * that begin in [@from, @to) (each bound one expression: SQLite's index
 * range takes one of each) and end at @end after the window's start. */
#define THREAD_ROWS(table, alias, from, to, end)                                                          \
	"(SELECT DISTINCT th.tid FROM threads th WHERE " THREAD_IS("th.tid") ") wt JOIN " table " " alias " ON " \
	alias ".tid = wt.tid AND " alias ".start_ns >= " from " AND " alias ".start_ns < " to " AND " end " > " \
	FROM_NS " "
/*
 * A window's whole buckets (run_buckets): they begin at INNER_FROM, the
 * first bucket start at or after the window's start, and end by INNER_TO,
 * the last bucket start by its end. INNER_FROM <= INNER_TO, and both are
 * the window's end when no bucket lies wholly inside it. The summaries of
 * the rows that begin in them are added up from the *_buckets tables; only
 * the rows that begin before INNER_FROM or from INNER_TO on are read.
 */
#define BUCKET_WIDTH "(SELECT b.width_ns FROM run_buckets b)"
#define INNER_FROM                                                                                     \
	"(SELECT MIN(CASE WHEN :from IS NULL OR :from <= b.origin_ns THEN b.origin_ns ELSE b.origin_ns + " \
	"(:from - b.origin_ns + b.width_ns - 1) / b.width_ns * b.width_ns END, " TO_NS ") FROM run_buckets b)"
#define INNER_TO                                                                                       \
	"(SELECT MAX(CASE WHEN :to IS NULL THEN 9223372036854775807 ELSE b.origin_ns + "                  \
	"(:to - b.origin_ns) / b.width_ns * b.width_ns END, " INNER_FROM ") FROM run_buckets b)"
/* Whether a *_buckets row as @alias is one of the window's whole buckets. */
#define INNER_BUCKET(alias) \
	"(" alias ".bucket_ns >= " INNER_FROM " AND " alias ".bucket_ns + " BUCKET_WIDTH " <= " INNER_TO ")"
/* WINDOW_ROWS's and WINDOW_ROWS_ENDING's rows that begin outside the
 * window's whole buckets. */
#define EDGE_ROWS(table, alias) EDGE_ROWS_ENDING(table, alias, alias ".end_ns")
#define EDGE_ROWS_ENDING(table, alias, end)                                                             \
	"(SELECT " alias ".* FROM " THREAD_ROWS(table, alias, TILE_FROM(table, "wt.tid"), INNER_FROM, end) \
	"UNION ALL SELECT " alias ".* FROM " THREAD_ROWS(table, alias, INNER_TO, TO_NS, end) ") " alias " "
/* --function: @name (a functions.name; NULL never matches) matches it. */
#define FUNCTION_IS(name) "(:function IS NULL OR " name " REGEXP :function)"
#define OBJECT_IS(id, addr) "(:object_id IS NULL OR " id " = :object_id) AND (:addr IS NULL OR " addr " = :addr)"
#define PCT(part, whole) "ROUND(100.0 * (" part ") / MAX(" whole ", 1), 1)"

/* The whole run (no --from/--to): a query reads the summary tables of
 * schema/derived.sql, added up once, instead of the recorded rows. */
#define WHOLE_RUN "(:from IS NULL AND :to IS NULL)"
#define WINDOWED "(:from IS NOT NULL OR :to IS NOT NULL)"

/* Seed 001 Table 1. Over a window, the states of each lifetime as rows
 * (tid, life_ns: the lifetime's start, state, ns): its whole buckets'
 * from thread_buckets, and at each end the states clipped to it. */
#define EDGE_STATES(lo, hi)                                                                             \
	"SELECT t.tid, t.start_ns, s.state, SUM(MIN(s.end_ns, " hi ") - MAX(s.start_ns, " lo ")) FROM threads t " \
	"JOIN thread_states s ON s.tid = t.tid "                                                           \
	/* one lower bound: SQLite's index range takes only one */                                         \
	"AND s.start_ns >= MAX(t.start_ns, " TILE_FROM_AT("thread_states", "t.tid", lo) ") "               \
	"AND s.start_ns < " hi " AND s.end_ns > " lo " AND s.end_ns <= t.end_ns "                          \
	"WHERE " THREAD_IS("t.tid") " AND " lo " < " hi " AND t.start_ns < " hi " AND t.end_ns > " lo " "          \
	"GROUP BY t.rowid, s.state"
/* Each lifetime's time in each state, named as thread_totals' columns
 * (src/thread-states.h), for THREAD_STATES(X): over the whole run, its
 * thread_totals row (a thread without states, an incomplete run's, seen
 * only doing other things, has a row, its times unknown); over a window,
 * its rows above. */
#define TOTAL_NS_COLUMN(e, name, total, pct, label, waiting) "CASE WHEN x.nr_states > 0 THEN x." total " END AS " total ", "
#define STATE_NS_COLUMN(e, name, total, pct, label, waiting) "TOTAL(CASE WHEN p.state = '" name "' THEN p.ns END) AS " total ", "
#define THREAD_STATES_NS                                                                                   \
	"SELECT x.tid, x.name, x.end_ns - x.start_ns AS lifetime_ns, " THREAD_STATES(TOTAL_NS_COLUMN)       \
	"x.start_ns AS t0 FROM thread_totals x "                                                            \
	"WHERE " WHOLE_RUN " AND (x.nr_states > 0 OR x.tid NOT IN (SELECT tid FROM main.threads)) AND "     \
	THREAD_IS("x.tid") " "                                                                              \
	"UNION ALL "                                                                                        \
	"SELECT t.tid, t.name, " CLIPPED("t.start_ns", "t.end_ns") " AS lifetime_ns, "                      \
	THREAD_STATES(STATE_NS_COLUMN) "t.start_ns AS t0 "                                                  \
	"FROM threads t JOIN ("                                                                             \
	"SELECT b.tid, b.life_ns, b.state, b.ns FROM thread_buckets b WHERE " WINDOWED " AND "              \
	THREAD_IS("b.tid") " AND " INNER_BUCKET("b") " "                                                    \
	"UNION ALL " EDGE_STATES(FROM_NS, INNER_FROM) " UNION ALL " EDGE_STATES(INNER_TO, TO_NS) ") "       \
	"p ON p.tid = t.tid AND p.life_ns = t.start_ns "                                                    \
	"WHERE " WINDOWED " AND " THREAD_IS("t.tid") " AND " IN_WINDOW("t.start_ns", "t.end_ns") " "        \
	"GROUP BY t.rowid"
#define PCT_COLUMN(e, name, total, pct, label, waiting) ", " PCT("r." total, "r.lifetime_ns") " AS " pct
#define NS_COLUMN(e, name, total, pct, label, waiting) ", r." total
static const struct mtx_query threads_queries[] = {
	{ "threads", "Threads: lifetime and the share of it spent in each state",
	  "SELECT r.tid, r.name, r.lifetime_ns" THREAD_STATES(PCT_COLUMN) " FROM (" THREAD_STATES_NS ") r "
	  "ORDER BY r.t0, r.tid" },
	{ 0 },
};

/* The queries that reports written in C read (src/cmd/report-phases.c):
 * found by query_find, never a section of their own. */
static const struct mtx_query inner_queries[] = {
	/* threads' figures unrounded: tid, name, lifetime_ns, the ns of each state */
	{ "threads.ns", NULL, "SELECT r.tid, r.name, r.lifetime_ns" THREAD_STATES(NS_COLUMN) " FROM (" THREAD_STATES_NS
	  ") r ORDER BY r.t0, r.tid" },
	/* the browser's phases view: the table run_phases_table made */
	{ "phases.table", "Phases: the share of the threads' time in each state (Enter: search the phase)",
	  "SELECT * FROM temp.phase_report ORDER BY id" },
	{ 0 },
};

/*
 * FROM-clause sync_ops (as op) that overlap the window and begin in [@lo,
 * @hi), of the threads whose sync_totals rows (as x) match @threads. A
 * thread's calls can nest, so none bounds where those reaching into the
 * window begin but its longest (sync_totals.max_ns): on the (tid,
 * start_ns) index, from the window's start less that (REACHING_IN).
 */
#define OPS_BETWEEN(threads, lo, hi)                                                                    \
	"(SELECT x.tid, MAX(x.max_ns) AS longest FROM sync_totals x WHERE " threads " GROUP BY x.tid) wt " \
	"JOIN sync_ops op ON op.tid = wt.tid AND op.start_ns >= " lo " AND op.start_ns < " hi " AND "       \
	"op.end_ns > " FROM_NS " "
#define REACHING_IN "COALESCE(:from - wt.longest, -9223372036854775807)"
/* Those that begin outside the window's whole buckets (see INNER_FROM). */
#define EDGE_OPS(threads)                                                                        \
	"(SELECT op.* FROM " OPS_BETWEEN(threads, REACHING_IN, INNER_FROM) "UNION ALL SELECT op.* FROM " \
	OPS_BETWEEN(threads, INNER_TO, TO_NS) ") op "

/* Seed 001 Table 2. */
static const struct mtx_query sync_queries[] = {
	{ "sync", "Synchronization calls per thread and operation",
	  "SELECT r.tid, " NAME_OF("r.tid") " AS name, r.kind, r.op, r.calls, r.blocking, r.wait_ns, r.max_wait_ns "
	  "FROM ("
	  "SELECT x.tid, o.kind, x.op, SUM(x.calls) AS calls, SUM(x.blocked) AS blocking, "
	  "SUM(x.wait_ns) AS wait_ns, MAX(x.max_wait_ns) AS max_wait_ns "
	  "FROM sync_totals x JOIN sync_objects o ON o.id = x.object_id "
	  "WHERE " WHOLE_RUN " AND " THREAD_IS("x.tid") " AND " OBJECT_IS("o.id", "o.addr") " "
	  "GROUP BY x.tid, o.kind, x.op "
	  "UNION ALL "
	  /* per object first: an object looked up per op took 15% longer */
	  "SELECT w.tid, o.kind, w.op, SUM(w.calls), SUM(w.blocking), SUM(w.wait_ns), MAX(w.max_wait_ns) FROM ("
	  "SELECT b.tid, b.object_id, b.op, b.calls, b.blocked AS blocking, b.wait_ns, b.max_wait_ns "
	  "FROM sync_buckets b WHERE " WINDOWED " AND " THREAD_IS("b.tid") " AND " INNER_BUCKET("b") " "
	  "UNION ALL "
	  "SELECT op.tid, op.object_id, op.op, COUNT(*) AS calls, "
	  "SUM(op.blocked) AS blocking, SUM(op.wait_ns) AS wait_ns, MAX(op.wait_ns) AS max_wait_ns "
	  "FROM " EDGE_OPS(THREAD_IS("x.tid")) "WHERE " WINDOWED " GROUP BY op.tid, op.object_id, op.op) w "
	  "JOIN sync_objects o ON o.id = w.object_id WHERE " OBJECT_IS("o.id", "o.addr") " "
	  "GROUP BY w.tid, o.kind, w.op) r ORDER BY r.tid, r.kind, r.op" },
	/* The same sums per call site (sync_totals, sync_buckets and the ops
	 * at the window's ends), named as the object history names each op. */
	{ "sync.where", "Where the program made them: the function of its own code and its line",
	  "SELECT " FUNCTION_LABEL("f") " AS function, " SOURCE_LABEL(OP_FRAME("file"), OP_FRAME("line"))
	  " AS source, o.kind, w.op, SUM(w.calls) AS calls, SUM(w.blocking) AS blocking, SUM(w.wait_ns) AS wait_ns, "
	  "MAX(w.max_wait_ns) AS max_wait_ns FROM ("
	  "SELECT x.object_id, x.op, x.callsite, x.stack_id, x.calls, x.blocked AS blocking, x.wait_ns, x.max_wait_ns "
	  "FROM sync_totals x WHERE " WHOLE_RUN " AND " THREAD_IS("x.tid") " "
	  "UNION ALL SELECT b.object_id, b.op, b.callsite, b.stack_id, b.calls, b.blocked, b.wait_ns, b.max_wait_ns "
	  "FROM sync_buckets b WHERE " WINDOWED " AND " THREAD_IS("b.tid") " AND " INNER_BUCKET("b") " "
	  "UNION ALL SELECT op.object_id, op.op, op.callsite, op.stack_id, 1, op.blocked, op.wait_ns, op.wait_ns "
	  "FROM " EDGE_OPS(THREAD_IS("x.tid")) "WHERE " WINDOWED ") w "
	  "JOIN sync_objects o ON o.id = w.object_id " OP_FRAME_JOINS("w", "o.pid")
	  "LEFT JOIN functions f ON f.id = " OP_FRAME("function_id") " "
	  "WHERE " OBJECT_IS("o.id", "o.addr") " AND " FUNCTION_IS("f.name") " "
	  "GROUP BY function, source, o.kind, w.op ORDER BY wait_ns DESC, calls DESC, function, source, o.kind, w.op" },
	{ 0 },
};

/*
 * The per-object reports have a row per address (and process and kind): an
 * object destroyed and made again at its address (a new sync_objects row,
 * a lifetime) adds to the same row, which the text could not otherwise
 * tell from the first (pigz makes a job's condvar anew at a reused
 * address each time). The object report lists the lifetimes. They show the
 * pid: a forked child has its objects at its parent's addresses.
 */
#define SAME_ADDRESS "o.pid, o.addr, o.kind"

/* A lock's ops as rows of calls: over the whole run their sums in
 * sync_totals (x) and lock_holders (h), else those of the window's whole
 * buckets (sync_buckets, lock_holder_buckets) and of its ops at its ends,
 * added up per holder they found (win: one pass over them). */
#define LOCK_WINDOW                                                                                       \
	"win AS MATERIALIZED (SELECT op.object_id, op.holder_tid, COUNT(*) AS calls, "                    \
	"SUM(op.holder_tid IS NOT NULL OR op.blocked) AS contended, SUM(op.wait_ns) AS wait_ns, "           \
	"MAX(op.wait_ns) AS max_wait_ns, SUM(COALESCE(op.hold_ns, 0)) AS hold_ns FROM " EDGE_OPS("1")      \
	"WHERE " WINDOWED " GROUP BY op.object_id, op.holder_tid)"
#define LOCK_OPS                                                                                          \
	"(SELECT x.object_id, x.calls, x.contended, x.wait_ns, x.max_wait_ns, x.hold_ns FROM sync_totals x "  \
	"WHERE " WHOLE_RUN " UNION ALL SELECT b.object_id, b.calls, b.contended, b.wait_ns, b.max_wait_ns, "  \
	"b.hold_ns FROM sync_buckets b WHERE " WINDOWED " AND " INNER_BUCKET("b") " "                         \
	"UNION ALL SELECT object_id, calls, contended, wait_ns, max_wait_ns, hold_ns FROM win) x "
#define LOCK_HOLDERS                                                                                      \
	"(SELECT h.object_id, h.holder_tid, h.ops, h.wait_ns FROM lock_holders h WHERE " WHOLE_RUN " "       \
	"UNION ALL SELECT b.object_id, b.holder_tid, b.ops, b.wait_ns FROM lock_holder_buckets b WHERE "      \
	WINDOWED " AND " INNER_BUCKET("b") " "                                                               \
	"UNION ALL SELECT object_id, holder_tid, calls, wait_ns FROM win WHERE holder_tid IS NOT NULL) h "

/* Per lock: the sums of its ops, and the holder whose holding made others
 * wait longest (then most often, then the lowest tid), over all the
 * address's lifetimes: one pass over the holders, ranked per address.
 * Named as the address's first lifetime is. */
static const struct mtx_query locks_queries[] = {
	{ "locks", "Lock contention: waits, holds, and the holder that made others wait most",
	  "WITH " LOCK_WINDOW ", holders AS (SELECT " SAME_ADDRESS ", h.holder_tid, "
	  "ROW_NUMBER() OVER (PARTITION BY " SAME_ADDRESS " ORDER BY SUM(h.wait_ns) DESC, SUM(h.ops) DESC, "
	  "h.holder_tid) AS rank "
	  "FROM " LOCK_HOLDERS "JOIN sync_objects o ON o.id = h.object_id WHERE " OBJECT_IS("o.id", "o.addr") " "
	  "GROUP BY " SAME_ADDRESS ", h.holder_tid) "
	  "SELECT l.pid, l.addr, l.kind, l.ops, l.contended, l.wait_ns, l.max_wait_ns, l.hold_ns, h.holder_tid AS holder, "
	  NAME_OF("h.holder_tid") " AS holder_name, " OBJECT_LABEL_OF("l.first_id") " AS name "
	  "FROM (SELECT " SAME_ADDRESS ", SUM(x.calls) AS ops, SUM(x.contended) AS contended, "
	  "SUM(x.wait_ns) AS wait_ns, MAX(x.max_wait_ns) AS max_wait_ns, SUM(x.hold_ns) AS hold_ns, MIN(o.id) AS first_id "
	  "FROM sync_objects o JOIN " LOCK_OPS "ON x.object_id = o.id "
	  "WHERE " IS_LOCK("o") " AND " OBJECT_IS("o.id", "o.addr") " "
	  "GROUP BY " SAME_ADDRESS ") l "
	  "LEFT JOIN holders h ON h.pid IS l.pid AND h.addr = l.addr AND h.kind = l.kind AND h.rank = 1 "
	  "ORDER BY l.wait_ns DESC, l.ops DESC, l.first_id" },
	{ 0 },
};

/* The ops of the object (all, or only the thread's in the window):
 * sync_ops by object, on its (object_id, start_ns) index. */
#define OF_OBJECT "h.object_id IN (SELECT o.id FROM sync_objects o WHERE " OBJECT_IS("o.id", "o.addr") ")"
#define OBJECT_OPS "FROM sync_ops h WHERE " OF_OBJECT
#define HISTORY_OPS OF_OBJECT " AND " THREAD_IS("h.tid") " AND " IN_WINDOW("h.start_ns", "h.end_ns")
#define HISTORY_ROWS "FROM sync_ops h WHERE " HISTORY_OPS

/* Seed 001 Figure 7, left. */
static const struct mtx_query object_queries[] = {
	{ "object.lifetimes", "Object",
	  "SELECT id, kind, addr, pid, created_ns AS start_ns, destroyed_ns AS end_ns, "
	  "(SELECT COUNT(*) FROM sync_ops op WHERE op.object_id = o.id) AS ops, " OBJECT_LABEL("o") " AS name "
	  "FROM sync_objects o WHERE " OBJECT_IS("o.id", "o.addr") " ORDER BY o.id" },
	/* Lifetime by lifetime (the order of their ids): the (object_id,
	 * start_ns) index gives that order, so the rows stream, and text's
	 * first 1000 show at once. In time order across them, SQLite sorted
	 * every op first: 1.1 s for MariaDB's busiest mutex (489 k ops). */
	{ "object.history", "History: every operation, in time order per lifetime",
	  "SELECT h.start_ns, h.tid, " NAME_OF("h.tid") " AS name, h.op, h.blocked, h.wait_ns, "
	  "h.holder_tid AS holder, h.hold_ns, h.callsite, " FUNCTION_LABEL("hf") " AS function, "
	  SOURCE_LABEL(OP_FRAME("file"), OP_FRAME("line")) " AS source "
	  "FROM sync_ops h LEFT JOIN sync_objects ho ON ho.id = h.object_id " OP_FRAME_JOINS("h", "ho.pid")
	  "LEFT JOIN functions hf ON hf.id = " OP_FRAME("function_id") " "
	  "WHERE " HISTORY_OPS " ORDER BY h.object_id, h.start_ns, h.tid" },
	{ 0 },
};

/* Where the thread was when it gave up the CPU (the interval's cause). */
#define POSITION                                                                      \
	"CASE c.cause WHEN 'sync' THEN COALESCE(o.kind || ' ' || c.op, 'sync') "      \
	"WHEN 'syscall' THEN c.syscall WHEN 'sleep' THEN COALESCE(c.syscall, 'sleep') " \
	"ELSE c.cause END"
/* A tid as a name: @name is its thread's name expression. */
#define TID_LABEL(col, name) \
	"CASE WHEN " col " IS NULL THEN NULL WHEN " col " = 0 THEN '(idle)' " \
	"ELSE COALESCE(" name ", '(other)') END"
#define TID_NAME(col) TID_LABEL(col, NAME_OF(col))

/*
 * Seed 001 Figure 7, right. The browser's switches view runs it too, for its
 * first :limit rows (mtx report binds none: all of them): they are chosen
 * first, and only then is each thread's name (as NAME_OF: its last
 * lifetime's) looked up, once per thread. On a 10 M-event run the 14 k rows
 * with two NAME_OF lookups each took 60-70 ms before the browser could show
 * the first. Over a window it adds up the whole buckets (switch_buckets)
 * and the state_causes rows at the window's ends.
 */
static const struct mtx_query switches_queries[] = {
	{ "switches", "Who hands the CPU to whom, and where it was left",
	  "WITH names AS MATERIALIZED (" LATEST_NAMES ") "
	  "SELECT r.from_tid, n1.name AS from_name, r.to_tid, " TID_LABEL("r.to_tid", "n2.name") " AS to_name, "
	  "r.at, r.function, r.count "
	  "FROM (SELECT u.from_tid, u.to_tid, u.at, " FUNCTION_LABEL("f") " AS function, u.count FROM ("
	  "SELECT x.from_tid, x.to_tid, x.at, x.function_id, x.count FROM switch_totals x "
	  "WHERE " WHOLE_RUN " AND " THREAD_IS("x.from_tid") " "
	  "UNION ALL SELECT from_tid, to_tid, at, function_id, SUM(count) FROM ("
	  "SELECT x.from_tid, x.to_tid, x.at, x.function_id, x.count FROM switch_buckets x "
	  "WHERE " WINDOWED " AND " THREAD_IS("x.from_tid") " AND " INNER_BUCKET("x") " "
	  "UNION ALL "
	  "SELECT c.tid, c.next_tid, " POSITION ", c.function_id, 1 "
	  "FROM " EDGE_ROWS("state_causes", "c") "LEFT JOIN sync_objects o ON o.id = c.object_id "
	  "WHERE " WINDOWED " AND c.next_tid IS NOT NULL AND c.cause <> 'woken') "
	  "GROUP BY from_tid, to_tid, at, function_id) u LEFT JOIN functions f ON f.id = u.function_id "
	  "WHERE " FUNCTION_IS("f.name") " ORDER BY u.count DESC, u.from_tid, u.to_tid, u.at, function "
	  "LIMIT COALESCE(:limit, -1)) r "
	  "LEFT JOIN names n1 ON n1.tid = r.from_tid LEFT JOIN names n2 ON n2.tid = r.to_tid "
	  "ORDER BY r.count DESC, r.from_tid, r.to_tid, r.at, r.function" },
	{ 0 },
};

/* The waits of wait_for in the window, with their objects. */
#define WAIT_FOR_IN_WINDOW \
	WINDOW_ROWS("wait_for", "w") "LEFT JOIN sync_objects o ON o.id = w.object_id WHERE " OBJECT_IS("w.object_id", "o.addr")
#define WAITING "c.state NOT IN ('running', 'runnable')"
/* The summary rows (as x, columns @cols) of a --thread: over the whole
 * run, in @table; over a window, in its whole buckets of the *_buckets
 * table @buckets. */
#define SUMMARY_ROWS(cols, table, buckets)                                                                \
	"(SELECT " cols " FROM " table " b WHERE " WHOLE_RUN " AND " THREAD_IS("b.tid") " UNION ALL SELECT " \
	cols " FROM " buckets " b WHERE " WINDOWED " AND " THREAD_IS("b.tid") " AND " INNER_BUCKET("b") ") x "
#define WAIT_FOR_COLS "tid, object_id, waited_for_tid, relation, other_callsite, waits, wait_ns"
#define WAIT_COLS "tid, cause, syscall, fd_kind, ended_by, waker_tid, waits, wait_ns, max_wait_ns"
#define CPU_WAIT_COLS "tid, cause, next_tid, waits, wait_ns, max_wait_ns"
#define CHAIN_COLS "tid, object_id, chain, waits, wait_ns"
/* The waits as rows of n waits, ns long in all (mx the longest): over the
 * whole run the sums of the summary tables (wait_for_totals, wait_totals,
 * cpu_wait_totals); over a window the sums of its whole buckets
 * (wait_for_buckets, ...) and each recorded wait that began at its ends.
 * The queries group them as they grouped the recorded rows. */
#define WAIT_FOR_ROWS                                                                                  \
	"(SELECT x.tid, x.object_id, x.waited_for_tid, x.relation, x.other_callsite, x.waits AS n, "    \
	"x.wait_ns AS ns FROM " SUMMARY_ROWS(WAIT_FOR_COLS, "wait_for_totals", "wait_for_buckets") " UNION ALL "       \
	"SELECT w.tid, w.object_id, w.waited_for_tid, w.relation, w.other_callsite, 1 AS n, "          \
	"w.end_ns - w.start_ns AS ns FROM " EDGE_ROWS("wait_for", "w") "WHERE " WINDOWED ") w "
#define WAIT_ROWS                                                                                      \
	"(SELECT x.cause, x.syscall, x.fd_kind, x.ended_by, x.waker_tid, x.waits AS n, x.wait_ns AS ns, " \
	"x.max_wait_ns AS mx FROM " SUMMARY_ROWS(WAIT_COLS, "wait_totals", "wait_buckets") " UNION ALL "           \
	"SELECT c.cause, c.syscall, c.fd_kind, c.ended_by, c.waker_tid, 1 AS n, c.end_ns - c.start_ns AS ns, " \
	"c.end_ns - c.start_ns AS mx FROM " EDGE_ROWS("state_causes", "c") "WHERE " WINDOWED " AND "      \
	WAITING ") c "
#define CPU_WAIT_ROWS                                                                                  \
	"(SELECT x.cause, x.next_tid, x.waits AS n, x.wait_ns AS ns, x.max_wait_ns AS mx "               \
	"FROM " SUMMARY_ROWS(CPU_WAIT_COLS, "cpu_wait_totals", "cpu_wait_buckets") " UNION ALL "       \
	"SELECT c.cause, c.next_tid, 1 AS n, c.end_ns - c.start_ns AS ns, c.end_ns - c.start_ns AS mx "   \
	"FROM " EDGE_ROWS("state_causes", "c") "WHERE " WINDOWED " AND c.state = 'runnable') c "
static const struct mtx_query waits_queries[] = {
	{ "waits.objects", "Who waited on which sync object, and for whom: its holder or its waker",
	  "SELECT r.tid, r.thread, r.pid, r.addr, r.kind, r.waits, r.wait_ns, r.for_tid, r.for_name, r.relation, "
	  OBJECT_LABEL_OF("r.first_id") " AS name FROM ("
	  "SELECT w.tid, " NAME_OF("w.tid") " AS thread, o.pid, o.addr, o.kind, SUM(w.n) AS waits, SUM(w.ns) AS wait_ns, "
	  "w.waited_for_tid AS for_tid, " NAME_OF("w.waited_for_tid") " AS for_name, w.relation, MIN(o.id) AS first_id "
	  "FROM " WAIT_FOR_ROWS "LEFT JOIN sync_objects o ON o.id = w.object_id WHERE " OBJECT_IS("w.object_id", "o.addr") " "
	  "GROUP BY w.tid, " SAME_ADDRESS ", w.waited_for_tid, w.relation) r ORDER BY r.wait_ns DESC, r.addr, r.tid" },
	{ "waits.graph", "Wait-for graph: who waited for whom, edges weighted by the time waited",
	  "SELECT w.tid, " NAME_OF("w.tid") " AS name, w.waited_for_tid AS for_tid, "
	  NAME_OF("w.waited_for_tid") " AS for_name, SUM(w.n) AS waits, SUM(w.ns) AS wait_ns FROM " WAIT_FOR_ROWS
	  "LEFT JOIN sync_objects o ON o.id = w.object_id WHERE " OBJECT_IS("w.object_id", "o.addr")
	  " AND w.waited_for_tid IS NOT NULL GROUP BY w.tid, w.waited_for_tid ORDER BY wait_ns DESC, w.tid" },
	/* Where the holder took the lock, or where the waker woke the thread
	 * (wait_for.other_callsite), named in that thread's process: the call
	 * sites are added up first, then named. A joined thread wakes its
	 * joiner as it exits, where it has no op: "(exit)". */
	{ "waits.where", "Where it was: the function of the holder's lock, or of the waker's wakeup",
	  "SELECT g.for_tid, " NAME_OF("g.for_tid") " AS for_name, g.relation, "
	  "CASE WHEN g.kind = 'thread' AND g.other_callsite IS NULL THEN '(exit)' ELSE " FUNCTION_LABEL("f") " END "
	  "AS function, " SOURCE_LABEL("cs.file", "cs.line") " AS source, "
	  "SUM(g.n) AS waits, SUM(g.ns) AS wait_ns FROM ("
	  "SELECT o.pid, o.kind, w.waited_for_tid AS for_tid, w.relation, w.other_callsite, SUM(w.n) AS n, "
	  "SUM(w.ns) AS ns FROM " WAIT_FOR_ROWS "LEFT JOIN sync_objects o ON o.id = w.object_id "
	  "WHERE " OBJECT_IS("w.object_id", "o.addr") " AND w.waited_for_tid IS NOT NULL "
	  "GROUP BY o.pid, o.kind, w.waited_for_tid, w.relation, w.other_callsite) g "
	  "LEFT JOIN callsite_frames cs ON cs.pid = COALESCE(" OF_THREAD("pid", "g.for_tid") ", g.pid) "
	  "AND cs.addr = g.other_callsite "
	  "LEFT JOIN functions f ON f.id = cs.function_id WHERE " FUNCTION_IS("f.name") " "
	  "GROUP BY g.for_tid, g.relation, function, source ORDER BY wait_ns DESC, g.for_tid, function, source" },
	{ "waits.meanwhile", "What the thread waited for was doing meanwhile",
	  "SELECT r.waited_for_tid AS for_tid, " NAME_OF("r.waited_for_tid") " AS for_name, r.wait_ns, "
	  PCT("r.running_ns", "r.wait_ns") " AS running_pct, " PCT("r.runnable_ns", "r.wait_ns") " AS runnable_pct, "
	  PCT("r.blocked_ns", "r.wait_ns") " AS blocked_pct, "
	  "(SELECT ob.addr FROM sync_objects ob WHERE ob.id = r.blocked_on) AS blocked_on_addr, "
	  OBJECT_LABEL_OF("r.blocked_on") " AS blocked_on_name FROM ("
	  "SELECT w.waited_for_tid, SUM(w.end_ns - w.start_ns) AS wait_ns, SUM(w.other_running_ns) AS running_ns, "
	  "SUM(w.other_runnable_ns) AS runnable_ns, SUM(w.other_blocked_ns) AS blocked_ns, "
	  "(SELECT w2.other_object_id FROM wait_for w2 JOIN sync_objects ob ON ob.id = w2.other_object_id "
	  " WHERE w2.tid = w.tid AND w2.waited_for_tid = w.waited_for_tid GROUP BY w2.other_object_id "
	  " ORDER BY SUM(w2.other_blocked_ns) DESC LIMIT 1) AS blocked_on "
	  "FROM " WAIT_FOR_IN_WINDOW " AND w.waited_for_tid IS NOT NULL GROUP BY w.waited_for_tid) r "
	  "ORDER BY r.wait_ns DESC" },
	/* Each wait's chain (wait_for.chain, src/derived/wait-chains.c), added up:
	 * over the whole run their sums in wait_chain_totals. */
	{ "waits.chains", "Wait-for chains: who waited for whom, to the thread that was not waiting",
	  "SELECT r.chain, SUM(r.n) AS waits, SUM(r.ns) AS wait_ns FROM ("
	  "SELECT x.chain, x.waits AS n, x.wait_ns AS ns FROM "
	  SUMMARY_ROWS(CHAIN_COLS, "wait_chain_totals", "wait_chain_buckets")
	  "LEFT JOIN sync_objects o ON o.id = x.object_id WHERE " OBJECT_IS("x.object_id", "o.addr") " "
	  "UNION ALL "
	  "SELECT w.chain, 1 AS n, w.chain_ns AS ns FROM " EDGE_ROWS("wait_for", "w")
	  "LEFT JOIN sync_objects o ON o.id = w.object_id WHERE " OBJECT_IS("w.object_id", "o.addr") " AND "
	  WINDOWED ") r "
	  "GROUP BY r.chain ORDER BY wait_ns DESC, r.chain" },
	{ "waits.other", "Other waits: syscalls (with the kind of file), sleeps, and what ended them",
	  "SELECT c.cause, COALESCE(c.syscall, '-') AS syscall, COALESCE(c.fd_kind, '-') AS fd_kind, "
	  "c.ended_by, SUM(c.n) AS waits, SUM(c.ns) AS wait_ns, MAX(c.mx) AS max_wait_ns FROM " WAIT_ROWS
	  "WHERE c.cause <> 'sync' GROUP BY 1, 2, 3, 4 ORDER BY wait_ns DESC" },
	{ "waits.wakers", "Who ended the waits",
	  "SELECT c.ended_by, c.waker_tid, " TID_NAME("c.waker_tid") " AS waker_name, SUM(c.n) AS waits, "
	  "SUM(c.ns) AS wait_ns FROM " WAIT_ROWS "GROUP BY c.ended_by, c.waker_tid ORDER BY wait_ns DESC" },
	{ "waits.cpu", "Waits for a CPU: why runnable, and who ran instead",
	  "SELECT c.cause, SUM(c.n) AS waits, SUM(c.ns) AS wait_ns, MAX(c.mx) AS max_wait_ns, c.next_tid AS instead_tid, "
	  TID_NAME("c.next_tid") " AS instead_name FROM " CPU_WAIT_ROWS
	  "GROUP BY c.cause, c.next_tid ORDER BY wait_ns DESC LIMIT 20" },
	{ 0 },
};

/* The time a CPU sample stands for (1 when not recorded). */
#define SAMPLE_PERIOD_NS "COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'sample_period_ns'), 1)"
/*
 * The segments: over the whole run their sums from critical_path_totals
 * (n segments, ns long, from s to e), else over a window the sums of its
 * whole buckets (critical_path_buckets) and the segments at its two ends,
 * in one scan: their time clipped to the parts of the window outside those
 * buckets, and counted (n, s, e) if they begin outside them (else their
 * bucket counts them). The queries group them as they grouped
 * critical_path itself.
 */
#define EDGE_PART(s, e, from, to) "MAX(0, MIN(" e ", " to ") - MAX(" s ", " from "))"
#define AT_PATH_EDGE "(x.start_ns < " INNER_FROM " OR x.start_ns >= " INNER_TO ")"
#define PATH_ROWS(cols)                                                                                     \
	"(SELECT " cols ", x.segments AS n, x.path_ns AS ns, x.start_ns AS s, x.end_ns AS e "                \
	"FROM critical_path_totals x WHERE " WHOLE_RUN " UNION ALL "                                         \
	"SELECT " cols ", x.segments, x.path_ns, x.start_ns, x.end_ns FROM critical_path_buckets x "         \
	"WHERE " WINDOWED " AND " INNER_BUCKET("x") " UNION ALL "                                            \
	"SELECT " cols ", " AT_PATH_EDGE ", "                                                                \
	EDGE_PART("x.start_ns", "x.end_ns", FROM_NS, INNER_FROM) " + "                                       \
	EDGE_PART("x.start_ns", "x.end_ns", INNER_TO, TO_NS) ", "                                            \
	"CASE WHEN " AT_PATH_EDGE " THEN x.start_ns END, CASE WHEN " AT_PATH_EDGE " THEN x.end_ns END "     \
	"FROM critical_path x WHERE " WINDOWED " AND " IN_WINDOW("x.start_ns", "x.end_ns") " AND "            \
	"(x.start_ns < " INNER_FROM " OR x.end_ns > " INNER_TO ")) cp "
/* The length of the whole path within the window: its segments tile it
 * without gap or overlap (mtx-db(5)), so its span clipped to the window. */
#define PATH_LENGTH \
	"(SELECT MAX(MIN(MAX(y.end_ns), " TO_NS ") - MAX(MIN(y.start_ns), " FROM_NS "), 1) FROM critical_path_totals y)"
#define PATH_SHARE PCT("SUM(cp.ns)", PATH_LENGTH)
static const struct mtx_query critical_path_queries[] = {
	{ "critical-path.summary", "Critical path: the chain of work and waits that ended at the program's exit",
	  "SELECT MIN(cp.s) AS start_ns, MAX(cp.e) AS end_ns, SUM(cp.ns) AS length_ns, "
	  "COALESCE(SUM(cp.n), 0) AS segments, COUNT(DISTINCT cp.tid) AS threads FROM " PATH_ROWS("x.tid")
	  "WHERE " THREAD_IS("cp.tid") },
	{ "critical-path.threads", "Its time per thread and state",
	  "SELECT cp.tid, " NAME_OF("cp.tid") " AS name, cp.state, SUM(cp.ns) AS path_ns, " PATH_SHARE " AS path_pct "
	  "FROM " PATH_ROWS("x.tid, x.state") "WHERE " THREAD_IS("cp.tid") " "
	  "GROUP BY cp.tid, cp.state ORDER BY path_ns DESC" },
	{ "critical-path.objects", "Its time spent waiting through each object (the waker's work counts)",
	  "SELECT r.pid, r.addr, r.kind, r.path_ns, r.path_pct, " OBJECT_LABEL_OF("r.first_id") " AS name FROM ("
	  "SELECT o.pid, o.addr, o.kind, SUM(cp.ns) AS path_ns, " PATH_SHARE " AS path_pct, MIN(o.id) AS first_id "
	  "FROM " PATH_ROWS("x.tid, x.object_id") "JOIN sync_objects o ON o.id = cp.object_id "
	  "WHERE " THREAD_IS("cp.tid") " GROUP BY " SAME_ADDRESS ") r ORDER BY r.path_ns DESC" },
	{ "critical-path.functions", "Its time per function (when calls were recorded)",
	  "SELECT f.name AS function, " BASENAME("f.module") " AS module, SUM(cp.ns) AS path_ns, " PATH_SHARE
	  " AS path_pct "
	  "FROM " PATH_ROWS("x.tid, x.function_id") "JOIN functions f ON f.id = cp.function_id "
	  "WHERE " THREAD_IS("cp.tid") " AND " FUNCTION_IS("f.name") " GROUP BY f.id "
	  "ORDER BY path_ns DESC" },
	/* A running segment as long as the sampling period or longer has its
	 * time shared among the leaf functions of the thread's samples within
	 * it, by count. Shorter ones are pooled per thread (key -1 - tid),
	 * their time shared among the samples in any of them: each is sampled
	 * with odds of its length to the period, so a path of 3 us segments
	 * (sysbench threads) has a sample in one of ~300, and taken one by
	 * one 93% of it was "(no sample)" although its samples were many. A
	 * long segment or a pool without a sample is "(no sample)" (fn -1), a
	 * sample without a user stack "[no stack]". Each share is the step of
	 * the running count's share, rounded down, so that a group's shares
	 * add up to its time exactly (not each rounded down on its own). */
	{ "critical-path.sampled", "Its running time per function its CPU samples were in (collect --sample)",
	  "WITH seg AS (SELECT x.tid, MAX(x.start_ns, " FROM_NS ") AS s, MIN(x.end_ns, " TO_NS ") AS e, "
	  "CASE WHEN MIN(x.end_ns, " TO_NS ") - MAX(x.start_ns, " FROM_NS ") < " SAMPLE_PERIOD_NS " "
	  "THEN -1 - x.tid ELSE x.seq END AS g "
	  "FROM critical_path x WHERE x.state = 'running' AND " THREAD_IS("x.tid") " AND "
	  IN_WINDOW("x.start_ns", "x.end_ns") " AND EXISTS (SELECT 1 FROM samples)), "
	  "len AS (SELECT g, SUM(e - s) AS ns FROM seg GROUP BY g), "
	  "hit AS (SELECT seg.g, st.function_id AS fn, COUNT(*) AS n FROM seg JOIN samples sm ON sm.tid = seg.tid "
	  "AND sm.ts_ns >= seg.s AND sm.ts_ns < seg.e LEFT JOIN stacks st ON st.id = sm.stack_id GROUP BY seg.g, fn), "
	  "cum AS (SELECT h.g, h.fn, h.n, SUM(h.n) OVER (PARTITION BY h.g ORDER BY h.fn) AS upto, "
	  "SUM(h.n) OVER (PARTITION BY h.g) AS total FROM hit h), "
	  "share AS (SELECT c.fn, l.ns * c.upto / c.total - l.ns * (c.upto - c.n) / c.total AS ns "
	  "FROM cum c JOIN len l ON l.g = c.g "
	  "UNION ALL SELECT -1, l.ns FROM len l WHERE NOT EXISTS (SELECT 1 FROM hit h WHERE h.g = l.g)) "
	  "SELECT CASE WHEN x.fn = -1 THEN '(no sample)' ELSE COALESCE(f.name, '[no stack]') END AS function, "
	  BASENAME("f.module") " AS module, SUM(x.ns) AS path_ns, " PCT("SUM(x.ns)", PATH_LENGTH) " AS path_pct "
	  "FROM share x LEFT JOIN functions f ON f.id = x.fn "
	  "WHERE " FUNCTION_IS("f.name") " GROUP BY x.fn ORDER BY path_ns DESC, function" },
	{ 0 },
};

/* Per thread and syscall, as perf trace -s: over the whole run the sums of
 * syscall_totals, else each call in the window. A call without an end (the
 * thread left in it, or its exit was lost) counts at its start, with no
 * time; one without a return value, in no error count. */
static const struct mtx_query syscalls_queries[] = {
	{ "syscalls", "System calls per thread: how many, how long, how many failed",
	  "SELECT r.tid, " NAME_OF("r.tid") " AS name, r.syscall, r.calls, r.errors, r.total_ns, r.max_ns FROM ("
	  "SELECT x.tid, x.syscall, x.calls, x.errors, x.total_ns, x.max_ns FROM syscall_totals x "
	  "WHERE " WHOLE_RUN " AND " THREAD_IS("x.tid") " "
	  "UNION ALL "
	  "SELECT s.tid, s.syscall, SUM(s.calls), SUM(s.errors), SUM(s.total_ns), MAX(s.max_ns) FROM ("
	  "SELECT b.tid, b.syscall, b.calls, b.errors, b.total_ns, b.max_ns FROM syscall_buckets b "
	  "WHERE " WINDOWED " AND " THREAD_IS("b.tid") " AND " INNER_BUCKET("b") " "
	  "UNION ALL "
	  "SELECT s.tid, s.name, 1, s.ret < 0, s.end_ns - s.start_ns, s.end_ns - s.start_ns "
	  "FROM " EDGE_ROWS_ENDING("syscalls", "s", "COALESCE(s.end_ns, s.start_ns + 1)")
	  "WHERE " WINDOWED ") s GROUP BY s.tid, s.syscall) r ORDER BY r.total_ns DESC, r.tid, r.syscall" },
	{ 0 },
};

static const struct mtx_query states_queries[] = {
	/* One value per column: why, the op, or the syscall, else the cause
	 * itself (preempted, woken, new, sleep, unknown); on, what it waited
	 * on: the object (its name, else its address), or the syscall's kind
	 * of file; ended_by, what ended it, and waker the thread that did;
	 * instead: who ran while the thread waited for a CPU. */
	{ "states", "Why each thread was not running, what ended each wait, who ran instead",
	  "SELECT c.start_ns, c.tid, c.state, c.end_ns - c.start_ns AS duration_ns, "
	  "CASE WHEN c.cause = 'sync' THEN COALESCE(c.op, 'sync') ELSE COALESCE(c.syscall, c.cause) END AS why, "
	  "CASE WHEN c.cause = 'sync' THEN " OBJECT_LABEL("o") " ELSE c.fd_kind END AS \"on\", c.ended_by, "
	  "CASE WHEN c.ended_by = 'thread' THEN c.waker_tid END AS waker, "
	  "CASE WHEN c.state = 'runnable' THEN c.next_tid END AS instead "
	  "FROM state_causes c LEFT JOIN sync_objects o ON o.id = c.object_id "
	  "WHERE " THREAD_IS("c.tid") " AND " IN_WINDOW("c.start_ns", "c.end_ns") " "
	  "ORDER BY c.tid, c.start_ns" },
	{ 0 },
};

/*
 * What the figures of a query need beyond the recorded rows, for a run
 * whose collector stopped early (enum run_phase, src/run-state.h): without
 * one of `rows` none of its rows can be known (a wait's "for whom" needs
 * the holders; the critical path, the program's end); without one of
 * `columns_need` the columns named in `columns` are unknown (NULL) and the
 * rest shown (a thread's share blocked on sync objects needs the sync
 * waits resolved; a function's name, the names written). A query not
 * listed shows only what was recorded as it was recorded (the thread
 * states, syscalls, switches, wakeups, sync calls).
 */
static const struct {
	const char *name;
	unsigned rows, columns_need;
	const char *columns;
} query_needs[] = {
	{ "threads", 0, RUN_SYNC, "sync_pct other_pct" },
	{ "threads.ns", 0, RUN_SYNC, "blocked_sync_ns blocked_other_ns" },
	{ "sync", 0, RUN_SYNC, "blocking wait_ns max_wait_ns" },
	{ "sync.where", 0, RUN_SYNC | RUN_NAMES, "function source blocking wait_ns max_wait_ns" },
	{ "locks", 0, RUN_SYNC, "contended wait_ns max_wait_ns hold_ns holder holder_name" },
	{ "object.lifetimes", 0, RUN_SYNC, "end_ns" },
	{ "object.history", 0, RUN_SYNC, "blocked wait_ns holder hold_ns" },
	{ "switches", 0, RUN_NAMES, "function" },
	{ "waits.objects", RUN_SYNC, 0, NULL },
	{ "waits.graph", RUN_SYNC, 0, NULL },
	{ "waits.where", RUN_SYNC, RUN_NAMES, "function source" },
	{ "waits.meanwhile", RUN_SYNC, 0, NULL },
	{ "waits.chains", RUN_SYNC, 0, NULL },
	{ "critical-path.summary", RUN_ENDS, 0, NULL },
	{ "critical-path.threads", RUN_ENDS, 0, NULL },
	{ "critical-path.objects", RUN_ENDS | RUN_SYNC, 0, NULL },
	{ "critical-path.functions", RUN_ENDS | RUN_NAMES | RUN_CALLS, 0, NULL },
	{ "critical-path.sampled", RUN_ENDS | RUN_NAMES, 0, NULL },
	{ "histogram.objects", RUN_SYNC, 0, NULL },
	{ "flat", RUN_NAMES, 0, NULL },
	{ "calls", RUN_NAMES | RUN_CALLS, 0, NULL },
	/* the browser's (src/browse-queries.c) */
	{ "objects", 0, RUN_SYNC, "blocked wait_ns max_wait_ns hold_ns" },
	{ "object.history.next", 0, RUN_SYNC, "blocked wait_ns holder hold_ns" },
	{ "object.history.prev", 0, RUN_SYNC, "blocked wait_ns holder hold_ns" },
	{ "timeline.op_at", 0, RUN_SYNC, "blocked wait_ns" },
};

/* The rows of the queries that can give millions, counted (query_count_sql). */
static const struct { const char *name, *sql; } query_counts[] = {
	/* Over the whole run each state_causes row was added up once, in
	 * wait_totals (waits) or cpu_wait_totals (runnable): stepping through
	 * the 1.6 M rows of a 10 M-event run to count them took 2 s. */
	{ "states", "SELECT CASE WHEN " WHOLE_RUN " THEN "
		    "(SELECT COALESCE(SUM(x.waits), 0) FROM wait_totals x WHERE " THREAD_IS("x.tid") ") + "
		    "(SELECT COALESCE(SUM(x.waits), 0) FROM cpu_wait_totals x WHERE " THREAD_IS("x.tid") ") "
		    /* a plain scan, or one thread's rows by the (tid, start_ns) index */
		    "WHEN :tid IS NULL THEN (SELECT COUNT(*) FROM state_causes c WHERE "
		    IN_WINDOW("c.start_ns", "c.end_ns") ") "
		    "ELSE (SELECT COUNT(*) FROM state_causes c WHERE c.tid = :tid AND "
		    IN_WINDOW("c.start_ns", "c.end_ns") ") END" },
	/* Stepping through the rest of a busy lock's history looked up each
	 * op's thread name: 1.5 s for MariaDB's 489 k ops on one mutex. Over
	 * the whole run for every thread, the (object_id, start_ns) index
	 * alone counts them, without reading the rows for their end_ns. */
	{ "object.history",
	  "SELECT CASE WHEN " WHOLE_RUN " AND :tid IS NULL THEN (SELECT COUNT(*) " OBJECT_OPS ") "
	  "ELSE (SELECT COUNT(*) " HISTORY_ROWS ") END" },
};

/*
 * Over a window, the run's histogram buckets that overlap it, whole (their
 * width is the run's: the table keeps no finer ones), the first shown
 * first; histogram_buckets gives their origin, width and number. A metric
 * with nothing in the window has no rows there (no zeros are stored), so
 * it is left out.
 */
#define FIRST_BUCKET                                                                                    \
	"(SELECT CASE WHEN :from IS NULL THEN 0 ELSE MAX(0, (:from - g.origin_ns) / g.width_ns) END "      \
	"FROM histogram_buckets g)"
#define BUCKET_IN_WINDOW(h) "(" h ".bucket >= " FIRST_BUCKET " AND " h ".start_ns < " TO_NS ")"
#define SHOWN_BUCKET(h) "(" h ".bucket - " FIRST_BUCKET ")"
/* How many: up to the last that begins before :to. */
#define NR_SHOWN_BUCKETS                                                                                \
	"(SELECT MAX(0, MIN(g.nr_buckets, CASE WHEN :to IS NULL THEN g.nr_buckets "                          \
	"ELSE (:to - g.origin_ns + g.width_ns - 1) / g.width_ns END) - " FIRST_BUCKET ") FROM histogram_buckets g)"
static const struct mtx_query histogram_queries[] = {
	{ "histogram.buckets", "Time histograms: buckets from the run's start",
	  "SELECT n AS buckets, CASE WHEN n > 0 THEN width_ns END AS width_ns, CASE WHEN n > 0 THEN start_ns END AS start_ns "
	  "FROM (SELECT COALESCE(" NR_SHOWN_BUCKETS ", 0) AS n, MAX(g.width_ns) AS width_ns, "
	  "MAX(g.origin_ns + " FIRST_BUCKET " * g.width_ns) AS start_ns FROM histogram_buckets g)" },
	{ "histogram.threads", "Per thread, over time",
	  "SELECT h.subject_id AS tid, " NAME_OF("h.subject_id") " AS name, h.metric, MAX(h.value) AS peak, "
	  "sparkline(" SHOWN_BUCKET("h") ", h.value, " NR_SHOWN_BUCKETS ") AS over_time FROM time_histograms h "
	  "WHERE h.subject = 'thread' AND " THREAD_IS("h.subject_id") " AND :object_id IS NULL AND :addr IS NULL "
	  "AND " BUCKET_IN_WINDOW("h") " GROUP BY h.subject_id, h.metric ORDER BY h.subject_id, h.metric" },
	/* The lifetimes of an address add up bucket by bucket in the
	 * aggregates (a GROUP BY per bucket first took 3 times as long). The
	 * busiest objects come first (most ops, then most time waited on
	 * them), each with its metrics together: the first rows of a run with
	 * thousands of objects are its hot ones, not the first created. Not
	 * by wait first: idle workers' condvar waits would come first. Ties
	 * go by the address's first lifetime, over both metrics: one lifetime
	 * may have had ops and another the waits. */
	{ "histogram.objects", "Per synchronization object, over time",
	  "SELECT pid, addr, kind, metric, peak, over_time, " OBJECT_LABEL_OF("first_id") " AS name FROM ("
	  "SELECT o.pid, o.addr, o.kind, h.metric, sparkline_peak(" SHOWN_BUCKET("h") ", h.value) AS peak, "
	  "sparkline(" SHOWN_BUCKET("h") ", h.value, " NR_SHOWN_BUCKETS ") AS over_time, "
	  "SUM(h.value) AS total, MIN(o.id) AS first_id "
	  "FROM time_histograms h JOIN sync_objects o ON o.id = h.subject_id "
	  "WHERE h.subject = 'object' AND " OBJECT_IS("o.id", "o.addr") " AND :tid IS NULL AND "
	  BUCKET_IN_WINDOW("h") " "
	  "GROUP BY " SAME_ADDRESS ", h.metric) "
	  "ORDER BY SUM(CASE metric WHEN 'ops' THEN total ELSE 0 END) OVER (PARTITION BY pid, addr, kind) DESC, "
	  "SUM(CASE metric WHEN 'wait_ns' THEN total ELSE 0 END) OVER (PARTITION BY pid, addr, kind) DESC, "
	  "MIN(first_id) OVER (PARTITION BY pid, addr, kind), metric" },
	{ 0 },
};

/*
 * Profiles (mtx collect --sample): flat and calls. Samples are grouped by
 * (thread, leaf stack) first, so the walks up the stacks are per distinct
 * stack, not per sample. A function counts once per sample in its total,
 * however often it recurs on the stack.
 */
#define SAMPLES_CTE                                                                                  \
	"s AS (SELECT tid, stack_id, COUNT(*) AS n FROM samples WHERE " THREAD_IS("tid") " AND ts_ns >= " \
	FROM_NS " AND ts_ns < " TO_NS " GROUP BY tid, stack_id), "                                       \
	"walk(tid, leaf, node, n) AS (SELECT tid, stack_id, stack_id, n FROM s WHERE stack_id IS NOT NULL " \
	"UNION ALL SELECT w.tid, w.leaf, st.parent_id, w.n FROM walk w JOIN stacks st ON st.id = w.node "  \
	"WHERE st.parent_id IS NOT NULL), "                                                              \
	"wf AS (SELECT w.tid, w.leaf, w.node, w.n, st.function_id AS fn, ps.function_id AS caller "       \
	"FROM walk w JOIN stacks st ON st.id = w.node LEFT JOIN stacks ps ON ps.id = st.parent_id), "    \
	"leaf_fn AS (SELECT s.tid, st.function_id AS fn, SUM(s.n) AS n FROM s JOIN stacks st "           \
	"ON st.id = s.stack_id GROUP BY 1, 2)"

static const struct mtx_query flat_queries[] = {
	/* mtx_pct: the samples in mtx's own code (collector/profile.c folds
	 * it into the call the program made, "[mtx] pthread_mutex_lock"). */
	{ "flat.summary", "CPU samples (mtx collect --sample) and how their stacks were walked",
	  "SELECT COUNT(*) AS samples, (SELECT value FROM meta WHERE key = 'sample_hz') AS hz, "
	  "COUNT(DISTINCT sm.tid) AS threads, SUM(sm.unwind = 'fp') AS frame_pointers, "
	  "SUM(sm.unwind = 'dwarf') AS dwarf, SUM(sm.stack_id IS NULL) AS no_stack, "
	  PCT("TOTAL(instr(f.name, '" FRAME_MTX_PREFIX "') = 1)", "COUNT(*)") " AS mtx_pct "
	  "FROM samples sm LEFT JOIN stacks st ON st.id = sm.stack_id LEFT JOIN functions f ON f.id = st.function_id "
	  "WHERE " THREAD_IS("sm.tid") " AND sm.ts_ns >= " FROM_NS " AND sm.ts_ns < " TO_NS },
	{ "flat", "Flat profile per thread: samples in the function itself, and with its callees",
	  "WITH " SAMPLES_CTE ", "
	  "total AS (SELECT tid, SUM(n) AS n FROM s GROUP BY tid), "
	  "incl AS (SELECT tid, fn, SUM(n) AS n FROM (SELECT DISTINCT tid, leaf, fn, n FROM wf) GROUP BY 1, 2) "
	  "SELECT i.tid, " NAME_OF("i.tid") " AS thread, " FUNCTION_LABEL("f") " AS function, COALESCE(l.n, 0) AS self, "
	  PCT("COALESCE(l.n, 0)", "t.n") " AS self_pct, " PCT("i.n", "t.n") " AS total_pct "
	  "FROM incl i JOIN total t ON t.tid = i.tid JOIN functions f ON f.id = i.fn "
	  "LEFT JOIN leaf_fn l ON l.tid = i.tid AND l.fn = i.fn "
	  "WHERE " FUNCTION_IS("f.name") " "
	  "ORDER BY i.tid, self DESC, i.n DESC, function" },
	{ 0 },
};

/* The call graph's nodes (tid, fn, self_ns, total_ns, count) and edges
 * (tid, caller, callee, self_ns, children_ns, count), from the calls table
 * when it has rows, else from the samples (count: samples then). With
 * --from/--to, a call counts with its time inside the window (clipped, as
 * its children's), as the samples count those taken inside it. A call of
 * a function by itself adds nothing to its total, nor children to its
 * edge (as gprof): that time is its caller's already, once per level. */
#define CALLS_END "COALESCE(c.end_ns, (SELECT MAX(t.end_ns) FROM threads t WHERE t.tid = c.tid))"
#define CALL_GRAPH_CTE                                                                                    \
	"exact AS (SELECT EXISTS (SELECT 1 FROM calls) AS yes), "                                         \
	SAMPLES_CTE ", "                                                                                  \
	"e AS (SELECT tid, leaf, caller, fn, n, MAX(node = leaf) AS at_leaf FROM wf "                     \
	"WHERE caller IS NOT NULL GROUP BY tid, leaf, caller, fn), "                                      \
	"c AS (SELECT c.id, c.tid, c.function_id AS fn, c.parent_id, " CLIPPED("c.start_ns", CALLS_END) " AS dur " \
	"FROM calls c WHERE " THREAD_IS("c.tid") " AND " IN_WINDOW("c.start_ns", CALLS_END) "), "         \
	"cs AS (SELECT c.*, c.dur - COALESCE((SELECT SUM(k.dur) FROM c k WHERE k.parent_id = c.id), 0) "  \
	"AS self, p.fn AS caller FROM c LEFT JOIN c p ON p.id = c.parent_id), "                           \
	"nodes AS (SELECT x.tid, x.fn, COALESCE(l.n, 0) * " SAMPLE_PERIOD_NS " AS self_ns, "              \
	"SUM(x.n) * " SAMPLE_PERIOD_NS " AS total_ns, SUM(x.n) AS count "                                 \
	"FROM (SELECT DISTINCT tid, leaf, fn, n FROM wf) x LEFT JOIN leaf_fn l ON l.tid = x.tid "         \
	"AND l.fn = x.fn WHERE NOT (SELECT yes FROM exact) GROUP BY x.tid, x.fn "                         \
	"UNION ALL SELECT tid, fn, SUM(self), SUM(CASE WHEN caller IS fn THEN 0 ELSE dur END), COUNT(*) " \
	"FROM cs WHERE (SELECT yes FROM exact) GROUP BY tid, fn), "                                       \
	"edges AS (SELECT tid, caller, fn AS callee, SUM(n * at_leaf) * " SAMPLE_PERIOD_NS " AS self_ns, " \
	"SUM(n * (1 - at_leaf)) * " SAMPLE_PERIOD_NS " AS children_ns, SUM(n) AS count FROM e "           \
	"WHERE NOT (SELECT yes FROM exact) GROUP BY tid, caller, fn "                                     \
	"UNION ALL SELECT tid, caller, fn, SUM(self), SUM(CASE WHEN caller IS fn THEN 0 ELSE dur - self END), " \
	"COUNT(*) FROM cs "                                                                               \
	"WHERE caller IS NOT NULL AND (SELECT yes FROM exact) GROUP BY tid, caller, fn), "                \
	"thread_ns AS (SELECT tid, SUM(n) * " SAMPLE_PERIOD_NS " AS ns FROM s "                           \
	"WHERE NOT (SELECT yes FROM exact) GROUP BY tid "                                                 \
	"UNION ALL SELECT tid, SUM(dur) FROM cs WHERE parent_id IS NULL AND (SELECT yes FROM exact) "     \
	"GROUP BY tid), "                                                                                 \
	"ranked AS (SELECT n.*, " FUNCTION_LABEL("f") " AS name, ROW_NUMBER() OVER (PARTITION BY n.tid "  \
	"ORDER BY n.total_ns DESC, n.self_ns DESC, f.name) AS idx FROM nodes n JOIN functions f ON f.id = n.fn)"

/* The run's span, as meta has it. */
#define RUN_START "(SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'start_ns')"
#define RUN_END "(SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'end_ns')"

static const struct mtx_query calls_queries[] = {
	{ "calls.source", "Call graph per thread (gprof style), built from",
	  "SELECT CASE WHEN EXISTS (SELECT 1 FROM calls) THEN 'exact calls' ELSE 'cpu samples' END AS source, "
	  "CASE WHEN EXISTS (SELECT 1 FROM calls) THEN (SELECT COUNT(*) FROM calls) "
	  "ELSE (SELECT COUNT(*) FROM samples) END AS count, "
	  "(SELECT value FROM meta WHERE key = 'sample_hz') AS hz" },
	{ "calls", "Each function [index] with its callers above and its callees below",
	  "WITH " CALL_GRAPH_CTE ", "
	  "lines AS ("
	  " SELECT r.tid, r.idx AS entry, r.fn AS primary_fn, 1 AS part, 0 AS rank, r.idx, "
	  PCT("r.total_ns", "(SELECT ns FROM thread_ns t WHERE t.tid = r.tid)") " AS total_pct, "
	  " r.self_ns, r.total_ns - r.self_ns AS children_ns, r.count, '[' || r.idx || '] ' || r.name AS function "
	  " FROM ranked r"
	  " UNION ALL SELECT e.tid, r.idx, r.fn, 0, -e.count, NULL, NULL, e.self_ns, e.children_ns, e.count, "
	  " '    ' || o.name || ' [' || o.idx || ']' FROM edges e JOIN ranked r ON r.tid = e.tid AND r.fn = e.callee "
	  " JOIN ranked o ON o.tid = e.tid AND o.fn = e.caller"
	  " UNION ALL SELECT e.tid, r.idx, r.fn, 2, -e.count, NULL, NULL, e.self_ns, e.children_ns, e.count, "
	  " '    ' || o.name || ' [' || o.idx || ']' FROM edges e JOIN ranked r ON r.tid = e.tid AND r.fn = e.caller "
	  " JOIN ranked o ON o.tid = e.tid AND o.fn = e.callee) "
	  "SELECT l.tid, l.idx AS 'index', l.total_pct, l.self_ns, l.children_ns, l.count, l.function "
	  "FROM lines l JOIN functions f ON f.id = l.primary_fn "
	  "WHERE " FUNCTION_IS("f.name") " "
	  "ORDER BY l.tid, l.entry, l.part, l.rank, l.function" },
	/* instrumentation_functions: the functions each probe row covered */
	{ "calls.coverage", "Functions probed for part of the run only: their counts hold then",
	  "SELECT x.name AS function, COUNT(*) AS windows, "
	  "SUM(COALESCE(i.off_ns, " RUN_END ") - i.on_ns) AS probed_ns, "
	  PCT("SUM(COALESCE(i.off_ns, " RUN_END ") - i.on_ns)", RUN_END " - " RUN_START) " AS coverage_pct "
	  "FROM instrumentation_functions x JOIN instrumentation i ON i.id = x.instrumentation_id "
	  "WHERE " FUNCTION_IS("x.name") " "
	  "GROUP BY x.name HAVING SUM(COALESCE(i.off_ns, " RUN_END ") - i.on_ns) < " RUN_END " - " RUN_START " "
	  "ORDER BY coverage_pct, x.name" },
	{ "calls.caught_up", "Calls already running when their probe went in: their time counts from then",
	  "SELECT c.tid, f.name AS function, COUNT(*) AS calls, SUM(c.end_ns - c.start_ns) AS time_ns "
	  "FROM calls c JOIN functions f ON f.id = c.function_id "
	  "WHERE c.retroactive AND " FUNCTION_IS("f.name") " "
	  "GROUP BY c.tid, f.name ORDER BY c.tid, f.name" },
	{ 0 },
};

/* Whether the run recorded the event source @name (meta events; 1 for a
 * run that does not say, as the fixtures). */
#define SOURCE_RECORDED(name) \
	"COALESCE((SELECT ',' || value || ',' LIKE '%," name ",%' FROM meta WHERE key = 'events'), 1)"
#define NEEDS_SYNC "SELECT " SOURCE_RECORDED("sync"), \
	"synchronization calls (the sync source of mtx collect -e, on by default)"
#define NEEDS_SYSCALLS "SELECT " SOURCE_RECORDED("syscalls"), \
	"system calls (the syscalls source of mtx collect -e, on by default)"
#define NEEDS_NOTHING NULL, NULL /* what every run records */
/* external_events: a view of the runs recorded since it exists */
#define NEEDS_EXTERNAL                                                                                   \
	"SELECT " SOURCE_RECORDED("wakeups") " AND EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'external_events')", \
	"wakeups and interrupts (the wakeups and interrupts sources of mtx collect -e, on by default; a run.db " \
	"of an mtx older than the interrupts source has neither)"
#define NEEDS_SAMPLES "SELECT " SOURCE_RECORDED("samples"), "CPU samples (mtx collect --sample HZ)"
/* exact calls: --functions, or a -pg / -finstrument-functions build */
#define NEEDS_CALLS \
	"SELECT " SOURCE_RECORDED("samples") " OR " SOURCE_RECORDED("functions") " OR EXISTS (SELECT 1 FROM calls)", \
	"function calls or CPU samples (mtx collect --functions REGEX or --sample HZ, or a -pg build)"

/* instrumentation: a table of the runs recorded since it exists */
#define NEEDS_INSTRUMENTATION \
	"SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'instrumentation')", \
	"the instrumentation table (a run.db of an mtx older than mtx ctl has none)"

static const struct mtx_report reports[] = {
	{ "threads", "lifetime and time in each state, per thread", NULL, threads_queries, NEEDS_NOTHING },
	{ "sync", "synchronization calls and blocking calls per thread and op", NULL, sync_queries, NEEDS_SYNC },
	{ "locks", "contention per lock, with the holders that made others wait", NULL, locks_queries, NEEDS_SYNC },
	{ "object", "one object's history: time, thread, op, blocked", "OBJECT", object_queries, NEEDS_SYNC },
	{ "switches", "who hands the CPU to whom, at which code", NULL, switches_queries, NEEDS_NOTHING },
	{ "states", "each interval a thread was not running: why, and what ended it", NULL, states_queries, NEEDS_NOTHING },
	{ "syscalls", "system calls per thread: how many, how long, how many failed", NULL, syscalls_queries,
	  NEEDS_SYSCALLS },
	{ "waits", "what threads waited on, for how long, for whom, woken by whom", NULL, waits_queries, NEEDS_NOTHING },
	{ "critical-path", "the chain of work and waits that bounded wall time", NULL, critical_path_queries, NEEDS_NOTHING },
	{ "histogram", "per thread and object metrics over time, in doubling buckets", NULL, histogram_queries,
	  NEEDS_NOTHING },
	{ "flat", "flat profile per thread: self and total share of the CPU samples", NULL, flat_queries, NEEDS_SAMPLES },
	{ "calls", "call graph per thread (gprof style), from exact calls or samples", NULL, calls_queries, NEEDS_CALLS },
	{ "overhead", "per thread: CPU time, mtx's share of it, and where that came from", NULL, overhead_queries,
	  NEEDS_NOTHING },
	{ "external", "what woke the threads from outside: interrupts, timers, other processes", NULL,
	  external_queries, NEEDS_EXTERNAL },
	{ "instrumentation", "what was recorded when: sources and mtx ctl's probes, calls, cost", NULL,
	  instrumentation_queries, NEEDS_INSTRUMENTATION },
};

const char *query_count_sql(const char *name)
{
	for (size_t i = 0; i < sizeof(query_counts) / sizeof(query_counts[0]); i++)
		if (!strcmp(query_counts[i].name, name))
			return query_counts[i].sql;
	return NULL;
}

const struct mtx_report *report_find(const char *name)
{
	for (size_t i = 0; i < sizeof(reports) / sizeof(reports[0]); i++)
		if (!strcmp(reports[i].name, name))
			return &reports[i];
	return NULL;
}

const char *report_unavailable(sqlite3 *db, const struct mtx_report *r)
{
	const char *why = NULL;
	if (r->queries == overhead_queries || r->queries == overhead_cycles_queries)
		why = report_overhead_unmeasured(db);
	if (!why && r->queries == overhead_cycles_queries)
		why = report_overhead_no_cycles(db);
	return why;
}

const struct mtx_query *report_in_cycles(const struct mtx_report *r)
{
	return r->queries == overhead_queries ? overhead_cycles_queries : NULL;
}

const struct mtx_report *report_table(int *nr)
{
	*nr = (int)(sizeof(reports) / sizeof(reports[0]));
	return reports;
}

const struct mtx_query *query_find(const char *name)
{
	for (size_t i = 0; i < sizeof(reports) / sizeof(reports[0]); i++)
		for (const struct mtx_query *q = reports[i].queries; q->name; q++)
			if (!strcmp(q->name, name))
				return q;
	for (const struct mtx_query *q = browse_query_table(); q->name; q++)
		if (!strcmp(q->name, name))
			return q;
	for (const struct mtx_query *q = inner_queries; q->name; q++)
		if (!strcmp(q->name, name))
			return q;
	return NULL;
}

/* @q's row of query_needs, or -1. */
static int needs_of(const struct mtx_query *q)
{
	for (size_t i = 0; i < sizeof(query_needs) / sizeof(query_needs[0]); i++)
		if (!strcmp(query_needs[i].name, q->name))
			return (int)i;
	return -1;
}

unsigned query_unknown(const struct mtx_query *q, unsigned missing)
{
	int i = missing ? needs_of(q) : -1;
	return i < 0 ? 0 : query_needs[i].rows & missing;
}

unsigned query_unknown_columns(const struct mtx_query *q, unsigned missing)
{
	int i = missing ? needs_of(q) : -1;
	return i < 0 ? 0 : query_needs[i].columns_need & missing;
}

/* The columns query_unknown_columns speaks of. */
static const char *unknown_columns(const struct mtx_query *q)
{
	int i = needs_of(q);
	return i < 0 || !query_needs[i].columns ? "" : query_needs[i].columns;
}

/* Whether @name is a word of the space-separated @list. */
static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, " ");
		if (len == n && !strncmp(p, name, n))
			return true;
		p += len;
		p += strspn(p, " ");
	}
	return false;
}

char *query_sql(sqlite3 *db, const struct mtx_query *q, unsigned missing)
{
	bool no_rows = query_unknown(q, missing), masked = query_unknown_columns(q, missing);
	sqlite3_stmt *st = NULL;
	char *sql = NULL;
	size_t size = 0;
	FILE *f;

	if (!no_rows && !masked)
		return strdup(q->sql);
	/* The columns' names are the statement's. */
	if (sqlite3_prepare_v2(db, q->sql, -1, &st, NULL) != SQLITE_OK || !(f = open_memstream(&sql, &size))) {
		sqlite3_finalize(st);
		return NULL;
	}
	fputs("SELECT ", f);
	for (int c = 0; c < sqlite3_column_count(st); c++) {
		const char *name = sqlite3_column_name(st, c);
		char *quoted = sqlite3_mprintf("\"%w\"", name); /* as an identifier */
		fprintf(f, "%s%s%s", c ? ", " : "", masked && listed(unknown_columns(q), name) ? "NULL AS " : "q.",
			quoted ? quoted : name);
		sqlite3_free(quoted);
	}
	fprintf(f, " FROM (%s) q%s", q->sql, no_rows ? " WHERE 0" : "");
	sqlite3_finalize(st);
	if (fclose(f)) {
		free(sql);
		return NULL;
	}
	return sql;
}

char *query_note(const struct mtx_query *q, unsigned missing, bool headers)
{
	unsigned rows = query_unknown(q, missing), cols = query_unknown_columns(q, missing);
	char *note = NULL, head[128];
	size_t size = 0;
	FILE *f;

	if ((!rows && !cols) || !(f = open_memstream(&note, &size)))
		return NULL;
	fputs("unknown: ", f);
	for (const char *p = unknown_columns(q); !rows && *p;) {
		size_t len = strcspn(p, " ");
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)len, p);
		if (headers)
			column_header(name, head, sizeof(head));
		fputs(headers ? head : name, f);
		p += len;
		p += strspn(p, " ");
		fputs(*p ? ", " : ": ", f);
	}
	fputs(run_phase_unknown(rows ? rows : cols), f);
	if (fclose(f)) {
		free(note);
		return NULL;
	}
	return note;
}

void query_bind(sqlite3_stmt *st, const struct mtx_query_params *p)
{
	int idx;
#define X(field, param, option)                                          \
	if ((idx = sqlite3_bind_parameter_index(st, param)))              \
		db_bind_int_or_null(st, idx, p->field, p->has_##field);
	QUERY_INT_PARAMS(X)
#undef X
#define X(field, param, option)                                          \
	if ((idx = sqlite3_bind_parameter_index(st, param)))              \
		db_bind_text_or_null(st, idx, p->field);
	QUERY_TEXT_PARAMS(X)
#undef X
}
