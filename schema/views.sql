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
