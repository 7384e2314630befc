/*
 * src/browse-queries.c - the named queries only the browser runs: pages of
 * long histories (keyset paging on an index, so any page of a 10 M-row
 * table costs the same), the timeline's per-lane lookups, and summaries no
 * report prints yet. The browser's tables also show report sections
 * (src/reports.c); both are found with query_find().
 *
 * Paged queries come in pairs: NAME.next gives up to :limit rows after the
 * key (:k0, :k1) in ascending order, NAME.prev the rows before it in
 * descending order; each row's key is its columns key0, key1.
 */
#include "config.h"
#include "src/reports.h"

#include <stddef.h>

#define AFTER(a, b) "(" a ", " b ") > (:k0, :k1)"
#define BEFORE(a, b) "(" a ", " b ") < (:k0, :k1)"

/* One object's history, Figure 7 left, with the columns the
 * object.history report section shows as text, plus the keys; with
 * :blocked_only, only the ops that blocked. */
#define HISTORY_SELECT                                                                               \
	"SELECT op.start_ns, op.tid, " NAME_OF("op.tid") " AS name, op.op, op.blocked, op.wait_ns, " \
	"op.holder_tid AS holder, op.hold_ns, " FUNCTION_LABEL("hf") " AS function, "                \
	SOURCE_LABEL(OP_FRAME("file"), OP_FRAME("line")) " AS source, "                              \
	"op.start_ns AS key0, op.id AS key1 "                                                        \
	"FROM sync_ops op LEFT JOIN sync_objects ho ON ho.id = op.object_id " OP_FRAME_JOINS("op", "ho.pid") \
	"LEFT JOIN functions hf ON hf.id = " OP_FRAME("function_id") " WHERE op.object_id = :object_id AND " \
	"(NOT COALESCE(:blocked_only, 0) OR op.blocked) AND "
/* One thread's calls of one syscall. */
#define SYSCALL_SELECT                                                                           \
	"SELECT s.start_ns, s.end_ns - s.start_ns AS duration_ns, s.ret, s.fd, s.fd_kind, "      \
	"s.start_ns AS key0, s.rowid AS key1 FROM syscalls s "                                   \
	"WHERE s.tid = :tid AND s.name = :syscall AND "

/* The live view (ui/view-live.c, ui/live-tables.h): each figure over the
 * window between the last two answers of the collector (from the run's
 * start at the first), per thread alive, per object listed, and the
 * consultant's top-level hypotheses tested over it, refined to the
 * threads and (lock waits) the objects where they are true. */
#define LIVE_WINDOW                                                                                     \
	"WITH cur AS (SELECT * FROM live_snapshot ORDER BY seq DESC LIMIT 1), "                         \
	"prev AS (SELECT p.* FROM live_snapshot p JOIN cur ON p.seq = cur.seq - 1), "                   \
	"win AS (SELECT cur.running_ns - COALESCE(prev.running_ns, 0) AS running, "                     \
	"cur.runnable_ns - COALESCE(prev.runnable_ns, 0) AS runnable, "                                 \
	"cur.blocked_io_ns - COALESCE(prev.blocked_io_ns, 0) AS io, "                                   \
	"cur.lock_wait_ns - COALESCE(prev.lock_wait_ns, 0) AS lock_wait, "                              \
	"NULLIF(cur.running_ns + cur.runnable_ns + cur.blocked_io_ns + cur.sleeping_ns + cur.blocked_ns " \
	"- COALESCE(prev.running_ns + prev.runnable_ns + prev.blocked_io_ns + prev.sleeping_ns "        \
	"+ prev.blocked_ns, 0), 0) AS life FROM cur LEFT JOIN prev), "                                  \
	"d AS (SELECT t.tid, t.pid, t.name, t.state, t.running_ns AS total_cpu_ns, "                    \
	LIVE_DELTA("running_ns") " AS running, " LIVE_DELTA("runnable_ns") " AS runnable, "              \
	LIVE_DELTA("blocked_io_ns") " AS io, " LIVE_DELTA("sleeping_ns") " AS sleeping, "               \
	LIVE_DELTA("blocked_ns") " AS blocked, " LIVE_DELTA("lock_wait_ns") " AS lock_wait, "          \
	LIVE_DELTA("lock_ops") " AS lock_ops FROM live_threads t JOIN cur ON t.seq = cur.seq "         \
	"LEFT JOIN live_threads p ON p.seq = cur.seq - 1 AND p.tid = t.tid), "                          \
	"dl AS (SELECT *, NULLIF(running + runnable + io + sleeping + blocked, 0) AS life FROM d), "    \
	/* an object listed now but not in the answer before: its window unknown */                     \
	"o AS (SELECT x.kind, x.address, x.ops AS total_ops, x.op_ns AS total_in_ops_ns, "              \
	"CASE WHEN prev.seq IS NULL THEN x.ops ELSE x.ops - p.ops END AS ops, "                         \
	"CASE WHEN prev.seq IS NULL THEN x.op_ns ELSE x.op_ns - p.op_ns END AS in_ops_ns, "             \
	"CASE WHEN prev.seq IS NULL THEN x.lock_wait_ns ELSE x.lock_wait_ns - p.lock_wait_ns END "      \
	"AS lock_wait_ns FROM live_objects x JOIN cur ON x.seq = cur.seq LEFT JOIN prev "               \
	"LEFT JOIN live_objects p ON p.seq = cur.seq - 1 AND p.id = x.id) "
#define LIVE_DELTA(c) "(t." c " - COALESCE(p." c ", 0))"
/* The refinements of a node shown at most, of each hierarchy. */
#define LIVE_NODES "8"
/* A node's value: its why's time over @life. */
#define LIVE_VALUE(x, life)                                                                            \
	"(CASE h.why WHEN 'cpu' THEN " x ".running WHEN 'sync' THEN " x ".lock_wait WHEN 'io' THEN " x \
	".io ELSE " x ".runnable END * 1.0 / " life ")"

static const struct mtx_query browse_queries[] = {
	/* From the per (thread, object, op) sums of schema/derived.sql. */
	{ "objects", "Synchronization objects: operations, waits and holds, most waited-on first",
	  "SELECT o.id, o.addr, o.kind, COALESCE(SUM(x.calls), 0) AS ops, COALESCE(SUM(x.blocked), 0) AS blocked, "
	  "COALESCE(SUM(x.wait_ns), 0) AS wait_ns, COALESCE(MAX(x.max_wait_ns), 0) AS max_wait_ns, "
	  "COALESCE(SUM(x.hold_ns), 0) AS hold_ns, COUNT(DISTINCT x.tid) AS threads, " OBJECT_LABEL("o") " AS name "
	  "FROM sync_objects o LEFT JOIN sync_totals x ON x.object_id = o.id "
	  "WHERE o.kind NOT IN ('thread', 'signal') GROUP BY o.id ORDER BY wait_ns DESC, ops DESC, o.id" },
	{ "object.history.next", NULL, HISTORY_SELECT AFTER("op.start_ns", "op.id")
	  " ORDER BY op.start_ns, op.id LIMIT :limit" },
	{ "object.history.prev", NULL, HISTORY_SELECT BEFORE("op.start_ns", "op.id")
	  " ORDER BY op.start_ns DESC, op.id DESC LIMIT :limit" },
	/* The op a wait is of, to open its object's history on it: a thread's
	 * wait under the timeline's cursor, or its first blocked op on the
	 * object at :addr, one whose holder was :holder first. */
	{ "object.wait_at", NULL,
	  "SELECT op.object_id, op.start_ns, op.id FROM state_causes c JOIN sync_ops op ON op.id = c.op_id "
	  "WHERE c.tid = :tid AND c.start_ns <= :from AND c.end_ns > :from ORDER BY c.start_ns DESC LIMIT 1" },
	{ "object.first_wait", NULL,
	  "SELECT op.object_id, op.start_ns, op.id FROM sync_ops op JOIN sync_objects o ON o.id = op.object_id "
	  "WHERE o.addr = :addr AND op.tid = :tid AND op.blocked "
	  "ORDER BY op.holder_tid IS :holder DESC, op.start_ns, op.id LIMIT 1" },
	{ "syscalls.list.next", NULL, SYSCALL_SELECT AFTER("s.start_ns", "s.rowid")
	  " ORDER BY s.start_ns, s.rowid LIMIT :limit" },
	{ "syscalls.list.prev", NULL, SYSCALL_SELECT BEFORE("s.start_ns", "s.rowid")
	  " ORDER BY s.start_ns DESC, s.rowid DESC LIMIT :limit" },
	/* The timeline: its lanes, then per lane and window. */
	{ "timeline.lanes", NULL,
	  "SELECT t.tid, t.name, t.start_ns, t.end_ns FROM threads t ORDER BY t.start_ns, t.tid" },
	/* The states overlapping [:from, :to): from the one holding :from on. */
	{ "timeline.states", NULL,
	  "SELECT s.start_ns, s.end_ns, s.state FROM thread_states s WHERE s.tid = :tid AND "
	  "s.start_ns >= COALESCE((SELECT MAX(x.start_ns) FROM thread_states x WHERE x.tid = :tid "
	  "AND x.start_ns <= :from), :from) AND s.start_ns < :to ORDER BY s.start_ns LIMIT :limit" },
	/* A busy lane's level for a column of 2 * 4^:level ns or more: the
	 * coarsest it has at or below :level (NULL: none, read it exactly). */
	{ "timeline.level", NULL,
	  "SELECT MAX(x.level) FROM timeline_levels x WHERE x.tid = :tid AND x.level <= :level" },
	/* The rows of that level overlapping [:from, :to): from the one holding :from on. */
	{ "timeline.level_rows", NULL,
	  "SELECT x.start_ns, x.buckets FROM timeline_levels x WHERE x.tid = :tid AND x.level = :level "
	  "AND x.start_ns >= COALESCE((SELECT MAX(y.start_ns) FROM timeline_levels y WHERE y.tid = :tid "
	  "AND y.level = :level AND y.start_ns <= :from), :from) AND x.start_ns < :to ORDER BY x.start_ns" },
	{ "timeline.state_at", NULL,
	  "SELECT s.start_ns, s.end_ns, s.state FROM thread_states s WHERE s.tid = :tid AND s.start_ns <= :from "
	  "ORDER BY s.start_ns DESC LIMIT 1" },
	/* The lane's first :limit events (sync ops, with their object's kind,
	 * and syscalls) in [:from, :to), in time order. */
	{ "timeline.events", NULL,
	  "SELECT e.start_ns, e.kind FROM (SELECT * FROM (SELECT op.start_ns, o.kind FROM sync_ops op "
	  "JOIN sync_objects o ON o.id = op.object_id WHERE op.tid = :tid AND op.start_ns >= :from "
	  "AND op.start_ns < :to ORDER BY op.start_ns LIMIT :limit) UNION ALL SELECT * FROM "
	  "(SELECT s.start_ns, 'syscall' FROM syscalls s WHERE s.tid = :tid AND s.start_ns >= :from "
	  "AND s.start_ns < :to ORDER BY s.start_ns LIMIT :limit)) e ORDER BY e.start_ns LIMIT :limit" },
	/* What the detail line says about the cursor. */
	{ "timeline.cause_at", NULL,
	  "SELECT c.state, c.start_ns, c.end_ns, c.cause, " OBJECT_LABEL("o") " AS object, o.kind, op.op, "
	  "c.syscall, c.fd_kind, c.ended_by, c.waker_tid, " NAME_OF("c.waker_tid") " AS waker_name "
	  "FROM state_causes c LEFT JOIN sync_objects o ON o.id = c.object_id "
	  "LEFT JOIN sync_ops op ON op.id = c.op_id WHERE c.tid = :tid AND c.start_ns <= :from "
	  "ORDER BY c.start_ns DESC LIMIT 1" },
	{ "timeline.op_at", NULL,
	  "SELECT o.kind, op.op, " OBJECT_LABEL("o") " AS object, op.blocked, op.wait_ns FROM sync_ops op "
	  "JOIN sync_objects o ON o.id = op.object_id WHERE op.tid = :tid AND op.start_ns >= :from "
	  "AND op.start_ns < :to ORDER BY op.start_ns LIMIT 1" },
	/* The selected thread's next and previous event: a state change or a sync op. */
	{ "timeline.next_event", NULL,
	  "SELECT MIN(COALESCE(a, b), COALESCE(b, a)) FROM "
	  "(SELECT (SELECT s.start_ns FROM thread_states s WHERE s.tid = :tid AND s.start_ns > :from "
	  "ORDER BY s.start_ns LIMIT 1) AS a, (SELECT op.start_ns FROM sync_ops op WHERE op.tid = :tid "
	  "AND op.start_ns > :from ORDER BY op.start_ns LIMIT 1) AS b)" },
	{ "timeline.prev_event", NULL,
	  "SELECT MAX(COALESCE(a, b), COALESCE(b, a)) FROM "
	  "(SELECT (SELECT s.start_ns FROM thread_states s WHERE s.tid = :tid AND s.start_ns < :from "
	  "ORDER BY s.start_ns DESC LIMIT 1) AS a, (SELECT op.start_ns FROM sync_ops op WHERE op.tid = :tid "
	  "AND op.start_ns < :from ORDER BY op.start_ns DESC LIMIT 1) AS b)" },
	/* The wakeup that ended the wait holding :from: the last one of the
	 * thread at or before the wait's end. */
	{ "timeline.wakeup", NULL,
	  "SELECT w.ts_ns, w.waker_tid FROM wakeups w WHERE w.wakee_tid = :tid AND w.ts_ns <= :to "
	  "AND w.ts_ns >= :from ORDER BY w.ts_ns DESC LIMIT 1" },
	/* Lanes kept by an object filter: the threads that operated on it. */
	{ "timeline.object_threads", NULL,
	  "SELECT DISTINCT op.tid FROM sync_ops op JOIN sync_objects o ON o.id = op.object_id "
	  "WHERE o.addr = :addr OR o.id = :object_id" },
	/* Call trees: the threads that have calls or samples, then one
	 * thread's calls in start order (depth gives the nesting), or its
	 * samples per stack and the stacks' rows (trie nodes: parent, function). */
	{ "calls.threads", NULL,
	  "SELECT t.tid, " NAME_OF("t.tid") " AS name, "
	  "(SELECT COUNT(*) FROM calls c WHERE c.tid = t.tid) AS calls, "
	  "(SELECT COUNT(*) FROM samples s WHERE s.tid = t.tid) AS samples "
	  "FROM (SELECT DISTINCT tid FROM threads) t WHERE calls > 0 OR samples > 0 ORDER BY t.tid" },
	{ "calls.of_thread", NULL,
	  "SELECT c.function_id, c.depth, c.start_ns, COALESCE(c.end_ns, "
	  "(SELECT MAX(th.end_ns) FROM threads th WHERE th.tid = c.tid)) AS end_ns "
	  "FROM calls c WHERE c.tid = :tid ORDER BY c.start_ns, c.depth" },
	{ "calls.samples_of_thread", NULL,
	  "SELECT s.stack_id, COUNT(*) FROM samples s WHERE s.tid = :tid AND s.stack_id IS NOT NULL "
	  "GROUP BY s.stack_id" },
	{ "calls.stack", NULL, "SELECT st.parent_id, st.function_id FROM stacks st WHERE st.id = :k0" },
	{ "calls.function", NULL,
	  "SELECT f.name, f.module FROM functions f WHERE f.id = :k0" },
	{ "live.search", "The consultant over the last second: hypotheses at /, refined where true",
	  LIVE_WINDOW ", top AS (SELECT h.ord, h.why, h.hypothesis, h.threshold, " LIVE_VALUE("win", "win.life")
	  " AS value FROM live_thresholds h, win), "
	  /* the true threads and lock objects under each true node, the first
	   * LIVE_NODES of each by value, then how many more */
	  "refined AS (SELECT top.ord, top.threshold, top.hypothesis, v.value, v.focus, v.level, "
	  "ROW_NUMBER() OVER (PARTITION BY top.ord, v.level ORDER BY v.value DESC, v.focus) AS pos, "
	  "COUNT(*) OVER (PARTITION BY top.ord, v.level) AS n FROM top JOIN ("
	  "SELECT h.ord, " LIVE_VALUE("dl", "dl.life") " AS value, '  /Process/' || dl.pid || '/' || dl.name || ' (' || "
	  "dl.tid || ')' AS focus, 1 AS level FROM live_thresholds h, dl UNION ALL "
	  "SELECT h.ord, o.lock_wait_ns * 1.0 / win.life, '  /SyncObject/' || o.kind || '/' || o.address, 2 "
	  "FROM live_thresholds h, o, win WHERE h.why = 'sync') v ON v.ord = top.ord "
	  "WHERE top.value >= top.threshold AND v.value >= top.threshold) "
	  "SELECT status, CASE WHEN value IS NULL THEN '' ELSE printf('%.2f', value) END AS value, threshold, "
	  "hypothesis, focus FROM ("
	  "SELECT CASE WHEN value >= threshold THEN 'true' ELSE 'false' END AS status, value, threshold, "
	  "hypothesis, '/' AS focus, ord, 0 AS level, 0 AS pos FROM top UNION ALL "
	  "SELECT 'true', value, threshold, hypothesis, focus, ord, level, pos FROM refined WHERE pos <= " LIVE_NODES
	  " UNION ALL SELECT 'true', NULL, threshold, hypothesis, '  ... and ' || (n - " LIVE_NODES ") || ' more "
	  "' || CASE level WHEN 1 THEN 'threads' ELSE 'objects' END, ord, level, pos FROM refined "
	  "WHERE pos = " LIVE_NODES " + 1) ORDER BY ord, level, pos" },
	{ "live.graph", "The consultant's search as it runs (mtx collect --consultant): each experiment, refined "
	  "where true",
	  "SELECT status, CASE WHEN value IS NULL THEN '' ELSE printf('%.2f', value) END AS value, "
	  "COALESCE(threshold, '') AS threshold, hypothesis, printf('%*s', 2 * depth, '') || focus AS focus "
	  "FROM live_search WHERE seq = (SELECT MAX(seq) FROM live_snapshot) ORDER BY pos" },
	{ "live.threads", "Threads alive: their time in each state over the last second",
	  LIVE_WINDOW "SELECT tid, name, state, 100.0 * running / life AS running_pct, "
	  "100.0 * runnable / life AS runnable_pct, 100.0 * lock_wait / life AS lock_pct, "
	  "100.0 * io / life AS io_pct, 100.0 * sleeping / life AS sleep_pct, 100.0 * blocked / life AS blocked_pct, "
	  "lock_ops, total_cpu_ns FROM dl ORDER BY running + lock_wait DESC, tid" },
	{ "live.objects", "The busiest sync objects: their ops over the last second (-: just listed)",
	  LIVE_WINDOW "SELECT kind, address, ops, in_ops_ns, lock_wait_ns, total_ops, total_in_ops_ns FROM o "
	  "ORDER BY in_ops_ns DESC NULLS LAST, total_in_ops_ns DESC, address" },
	{ 0 },
};

const struct mtx_query *browse_query_table(void)
{
	return browse_queries;
}
