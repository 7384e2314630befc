-- fuzz-db-rows: a run whose start (meta start_ns, the origin of the times
-- reports show) is as far as can be from its times: a time relative to it
-- overflowed int64 (src/columns.c).
INSERT INTO meta VALUES ('start_ns', '-9223372036854775808'), ('complete', '1');
INSERT INTO processes VALUES (100, 1, 'app', 1000, 2000, 0);
INSERT INTO threads (tid, pid, name, start_ns, end_ns) VALUES (100, 100, 'main', 1000, 2000);
INSERT INTO thread_states VALUES (100, 1000, 2000, 'running', 0, NULL, NULL);
