-- Views: the named summaries of the public SQL interface (see mtx-db(5)).

-- Seed 001 Table 1: per thread, lifetime and time in each state, and the
-- not-running and blocked fractions of the lifetime.
CREATE VIEW thread_summary AS
SELECT t.tid, t.pid, t.name,
	t.end_ns - t.start_ns AS lifetime_ns,
	SUM(CASE WHEN s.state = 'running' THEN s.end_ns - s.start_ns ELSE 0 END) AS running_ns,
	SUM(CASE WHEN s.state = 'runnable' THEN s.end_ns - s.start_ns ELSE 0 END) AS runnable_ns,
	SUM(CASE WHEN s.state IN ('blocked', 'blocked_sync') THEN s.end_ns - s.start_ns ELSE 0 END) AS blocked_ns,
	SUM(CASE WHEN s.state = 'blocked_sync' THEN s.end_ns - s.start_ns ELSE 0 END) AS blocked_sync_ns,
	SUM(CASE WHEN s.state = 'blocked_io' THEN s.end_ns - s.start_ns ELSE 0 END) AS blocked_io_ns,
	SUM(CASE WHEN s.state = 'sleeping' THEN s.end_ns - s.start_ns ELSE 0 END) AS sleeping_ns,
	ROUND(100.0 * SUM(CASE WHEN s.state <> 'running' THEN s.end_ns - s.start_ns ELSE 0 END)
		/ MAX(t.end_ns - t.start_ns, 1), 1) AS not_running_pct,
	ROUND(100.0 * SUM(CASE WHEN s.state IN ('blocked', 'blocked_sync', 'blocked_io', 'sleeping')
		THEN s.end_ns - s.start_ns ELSE 0 END) / MAX(t.end_ns - t.start_ns, 1), 1) AS blocked_pct,
	ROUND(100.0 * SUM(CASE WHEN s.state = 'blocked_sync' THEN s.end_ns - s.start_ns ELSE 0 END)
		/ MAX(t.end_ns - t.start_ns, 1), 1) AS blocked_sync_pct
FROM threads t
LEFT JOIN thread_states s
	ON s.tid = t.tid AND s.start_ns >= t.start_ns AND s.end_ns <= t.end_ns
GROUP BY t.rowid;

-- Seed 001 Table 2: per thread and operation, calls and blocking calls.
CREATE VIEW sync_usage AS
SELECT op.tid, o.kind, op.op,
	COUNT(*) AS calls,
	SUM(op.blocked) AS blocking_calls
FROM sync_ops op JOIN sync_objects o ON o.id = op.object_id
GROUP BY op.tid, o.kind, op.op;

-- Seed 001 Figure 7 right: who hands the CPU to whom (next_tid 0 = idle).
CREATE VIEW switch_graph AS
SELECT prev_tid AS from_tid, next_tid AS to_tid, prev_state, COUNT(*) AS count
FROM switches
GROUP BY prev_tid, next_tid, prev_state;

-- Per lock (mutex, rwlock, spinlock lifetime): how often it was asked for,
-- how often it was found held (contended) or made the asker block, the time
-- spent blocked on it and held, and the holder that made others wait most.
-- Hold times are counted on the op that acquired the lock; a cond wait's
-- re-acquisition of its mutex is counted on the cond (see sync_ops.hold_ns).
CREATE VIEW lock_contention AS
SELECT o.id AS object_id, o.kind, o.addr, o.pid,
	COUNT(op.id) AS ops,
	COALESCE(SUM(op.holder_tid IS NOT NULL OR op.blocked), 0) AS contended,
	COALESCE(SUM(op.blocked), 0) AS blocked,
	COALESCE(SUM(op.wait_ns), 0) AS total_wait_ns,
	COALESCE(MAX(op.wait_ns), 0) AS max_wait_ns,
	COALESCE(SUM(op.hold_ns), 0) AS total_hold_ns,
	COALESCE(MAX(op.hold_ns), 0) AS max_hold_ns,
	(SELECT h.holder_tid FROM sync_ops h WHERE h.object_id = o.id AND h.holder_tid IS NOT NULL
		GROUP BY h.holder_tid ORDER BY SUM(h.wait_ns) DESC, COUNT(*) DESC, h.holder_tid
		LIMIT 1) AS top_holder_tid,
	(SELECT SUM(h.wait_ns) FROM sync_ops h WHERE h.object_id = o.id AND h.holder_tid =
		(SELECT h2.holder_tid FROM sync_ops h2 WHERE h2.object_id = o.id AND h2.holder_tid IS NOT NULL
		 GROUP BY h2.holder_tid ORDER BY SUM(h2.wait_ns) DESC, COUNT(*) DESC, h2.holder_tid
		 LIMIT 1)) AS top_holder_wait_ns
FROM sync_objects o JOIN sync_ops op ON op.object_id = o.id
WHERE o.kind IN ('mutex', 'rwlock', 'spinlock')
GROUP BY o.id;

-- Seed 001 Figure 7 left: the history of each object, one row per op.
-- Filter on object_id (or addr and pid) and order by start_ns.
CREATE VIEW object_history AS
SELECT op.object_id, o.kind, o.addr, o.pid, op.start_ns, op.end_ns, op.tid, op.op,
	op.blocked, op.wait_ns, op.holder_tid, op.hold_ns, op.result, op.arg, op.callsite
FROM sync_ops op JOIN sync_objects o ON o.id = op.object_id;
