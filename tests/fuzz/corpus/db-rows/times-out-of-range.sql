-- fuzz-db-rows: times no clock gives, as far apart as int64 allows: the
-- analyses' arithmetic on them overflowed, and the time histograms indexed
-- past their buckets (src/derived/timeline.c now refuses it).
INSERT INTO meta VALUES ('start_ns', '1000'), ('complete', '1');
INSERT INTO processes VALUES (100, 1, 'app', 1000, 2000, 0);
INSERT INTO threads (tid, pid, name, start_ns, end_ns) VALUES
	(100, 100, 'main', -9223372036854775808, 9223372036854775807),
	(101, 100, 'worker', 1000, 2000);
INSERT INTO thread_states VALUES
	(100, -9223372036854775808, 9223372036854775807, 'running', 0, NULL, NULL),
	(101, 1000, 9223372036854775807, 'blocked_sync', NULL, NULL, 'futex');
INSERT INTO sync_objects (id, kind, addr, pid, created_ns) VALUES (1, 'mutex', 4096, 100, 1000);
INSERT INTO sync_ops (id, tid, object_id, op, start_ns, end_ns, blocked, wait_ns)
	VALUES (1, 101, 1, 'lock', 9223372036854775807, -9223372036854775808, 1, 9223372036854775807);
