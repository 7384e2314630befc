-- Views: the named summaries of the public SQL interface (see mtx-db(5)).

-- Seed 001 Table 1: per thread, lifetime and time in each state, and the
-- not-running and blocked fractions of the lifetime.
CREATE VIEW thread_summary AS
-- Each lifetime's time per state: its thread_states rows (those within the
-- lifetime), and what mtx collect --detail added up instead of writing.
WITH spans AS (
	SELECT t.rowid AS life, s.state, SUM(s.end_ns - s.start_ns) AS ns
	FROM threads t JOIN thread_states s
		ON s.tid = t.tid AND s.start_ns >= t.start_ns AND s.end_ns <= t.end_ns
	GROUP BY t.rowid, s.state
	UNION ALL
	SELECT t.rowid, x.state, x.ns
	FROM threads t JOIN summarized_states x ON x.tid = t.tid AND x.life_ns = t.start_ns
)
SELECT t.tid, t.pid, t.name,
	t.end_ns - t.start_ns AS lifetime_ns,
	COALESCE(SUM(CASE WHEN s.state = 'running' THEN s.ns END), 0) AS running_ns,
	COALESCE(SUM(CASE WHEN s.state = 'runnable' THEN s.ns END), 0) AS runnable_ns,
	COALESCE(SUM(CASE WHEN s.state IN ('blocked', 'blocked_sync') THEN s.ns END), 0) AS blocked_ns,
	COALESCE(SUM(CASE WHEN s.state = 'blocked_sync' THEN s.ns END), 0) AS blocked_sync_ns,
	COALESCE(SUM(CASE WHEN s.state = 'blocked_io' THEN s.ns END), 0) AS blocked_io_ns,
	COALESCE(SUM(CASE WHEN s.state = 'sleeping' THEN s.ns END), 0) AS sleeping_ns,
	ROUND(100.0 * COALESCE(SUM(CASE WHEN s.state <> 'running' THEN s.ns END), 0)
		/ MAX(t.end_ns - t.start_ns, 1), 1) AS not_running_pct,
	ROUND(100.0 * COALESCE(SUM(CASE WHEN s.state IN ('blocked', 'blocked_sync', 'blocked_io', 'sleeping')
		THEN s.ns END), 0) / MAX(t.end_ns - t.start_ns, 1), 1) AS blocked_pct,
	ROUND(100.0 * COALESCE(SUM(CASE WHEN s.state = 'blocked_sync' THEN s.ns END), 0)
		/ MAX(t.end_ns - t.start_ns, 1), 1) AS blocked_sync_pct
FROM threads t
LEFT JOIN spans s ON s.life = t.rowid
GROUP BY t.rowid;

-- Seed 001 Table 2: per thread and operation, calls and blocking calls.
-- With mtx collect --detail, the ops it added up instead of writing too.
CREATE VIEW sync_usage AS
SELECT op.tid, o.kind, op.op,
	SUM(op.calls) AS calls,
	SUM(op.blocked) AS blocking_calls
FROM (SELECT tid, object_id, op, COUNT(*) AS calls, SUM(blocked) AS blocked FROM sync_ops
	GROUP BY tid, object_id, op
	UNION ALL
	SELECT tid, object_id, op, calls, 0 FROM summarized_sync_ops) op
JOIN sync_objects o ON o.id = op.object_id
GROUP BY op.tid, o.kind, op.op;

-- Seed 001 Figure 7 right: who hands the CPU to whom (next_tid 0 = idle).
-- With mtx collect --detail, the switches it added up instead of writing too.
CREATE VIEW switch_graph AS
SELECT from_tid, to_tid, prev_state, SUM(count) AS count
FROM (SELECT prev_tid AS from_tid, next_tid AS to_tid, prev_state, COUNT(*) AS count
	FROM switches GROUP BY prev_tid, next_tid, prev_state
	UNION ALL
	SELECT prev_tid, next_tid, prev_state, count FROM summarized_switches)
GROUP BY from_tid, to_tid, prev_state;

-- Per lock (mutex, rwlock, spinlock lifetime, or a semaphore's used as a
-- lock: sync_objects.used_as): how often it was asked for,
-- how often it was found held (contended) or made the asker block, the time
-- spent blocked on it and held, and the holder that made others wait most.
-- Hold times are counted on the op that acquired the lock; a cond wait's
-- re-acquisition of its mutex is counted on the cond (see sync_ops.hold_ns).
-- With mtx collect --detail, the ops it added up instead of writing count
-- too (none of them was contended: those stay rows).
CREATE VIEW lock_contention AS
SELECT o.id AS object_id, o.kind, o.addr, o.pid, o.name,
	s.ops, s.contended, s.blocked, s.total_wait_ns, s.max_wait_ns, s.total_hold_ns, s.max_hold_ns,
	top.holder_tid AS top_holder_tid, top.wait_ns AS top_holder_wait_ns
FROM sync_objects o
JOIN (SELECT object_id, SUM(ops) AS ops, SUM(contended) AS contended, SUM(blocked) AS blocked,
		SUM(total_wait_ns) AS total_wait_ns, MAX(max_wait_ns) AS max_wait_ns,
		SUM(total_hold_ns) AS total_hold_ns, MAX(max_hold_ns) AS max_hold_ns
	FROM (SELECT object_id, COUNT(*) AS ops,
			SUM(holder_tid IS NOT NULL OR blocked) AS contended,
			SUM(blocked) AS blocked,
			SUM(wait_ns) AS total_wait_ns, MAX(wait_ns) AS max_wait_ns,
			COALESCE(SUM(hold_ns), 0) AS total_hold_ns, COALESCE(MAX(hold_ns), 0) AS max_hold_ns
		FROM sync_ops GROUP BY object_id
		UNION ALL
		SELECT object_id, SUM(calls), 0, 0, 0, 0, SUM(hold_ns), MAX(max_hold_ns)
		FROM summarized_sync_ops GROUP BY object_id)
	GROUP BY object_id) s ON s.object_id = o.id
-- Each object's holders ranked by the wait they caused (then how often,
-- then tid), computed once per object rather than once per op.
LEFT JOIN (SELECT object_id, holder_tid, wait_ns FROM
		(SELECT object_id, holder_tid, SUM(wait_ns) AS wait_ns,
			ROW_NUMBER() OVER (PARTITION BY object_id
				ORDER BY SUM(wait_ns) DESC, COUNT(*) DESC, holder_tid) AS rank
		 FROM sync_ops WHERE holder_tid IS NOT NULL GROUP BY object_id, holder_tid)
	WHERE rank = 1) top ON top.object_id = o.id
WHERE o.kind IN ('mutex', 'rwlock', 'spinlock') OR o.used_as = 'lock';

-- Seed 001 Figure 7 left: the history of each object, one row per op.
-- Filter on object_id (or addr and pid) and order by start_ns.
CREATE VIEW object_history AS
SELECT op.object_id, o.kind, o.addr, o.pid, o.name, op.start_ns, op.end_ns, op.tid, op.op,
	op.blocked, op.wait_ns, op.holder_tid, op.hold_ns, op.result, op.arg, op.callsite
FROM sync_ops op JOIN sync_objects o ON o.id = op.object_id;

-- The function each sync op was called from (sync_ops.callsite named).
CREATE VIEW sync_op_functions AS
SELECT op.id AS op_id, op.tid, op.callsite, f.id AS function_id, f.name AS function, f.module, f.file, f.line
FROM sync_ops op JOIN sync_objects o ON o.id = op.object_id
JOIN callsites c ON c.pid = o.pid AND c.addr = op.callsite
JOIN functions f ON f.id = c.function_id;

-- Seed 004's external events, T_0's as the traced threads saw them: each
-- wakeup of a traced thread by interrupt context (waker_tid 0) or by a
-- task outside the traced processes (other_tasks: the collector knew it
-- was not traced, even if the run ended before the threads rows were
-- written), with what woke it. kind: timer, irq
-- or softirq (the innermost handler of the interrupts table running on
-- that CPU then: a timer for a sleep's or timeout's end), interrupt
-- (interrupt context with no recorded handler: an IPI, irq work, or a run
-- without the interrupts source), other-process (waker_pid, waker_comm:
-- other_tasks). Handlers are looked for up to 20 ms back: a softirq
-- yields after 2 ms (MAX_SOFTIRQ_TIME), hard handlers are far shorter.
CREATE VIEW external_events AS
SELECT w.ts_ns, w.cpu, w.wakee_tid, w.waker_tid,
	CASE WHEN w.waker_tid <> 0 THEN 'other-process' ELSE COALESCE(i.kind, 'interrupt') END AS kind,
	o.pid AS waker_pid,
	o.comm AS waker_comm,
	i.irq, i.name, i.start_ns AS interrupt_start_ns, i.end_ns AS interrupt_end_ns
FROM wakeups w
LEFT JOIN other_tasks o ON o.tid = w.waker_tid AND w.waker_tid <> 0
LEFT JOIN interrupts i ON w.waker_tid = 0 AND i.rowid = (SELECT x.rowid FROM interrupts x
	WHERE x.cpu = w.cpu AND x.start_ns <= w.ts_ns AND x.start_ns >= w.ts_ns - 20000000
	AND x.end_ns >= w.ts_ns ORDER BY x.start_ns DESC LIMIT 1)
WHERE w.waker_tid = 0 OR o.tid IS NOT NULL;
