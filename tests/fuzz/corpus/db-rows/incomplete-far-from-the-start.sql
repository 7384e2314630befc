-- fuzz-db-rows: an incomplete run whose start (meta start_ns) is as far as
-- can be from where recording stopped: the one line that says so measured
-- the distance in int64, which overflowed (src/run-state.c).
INSERT INTO meta VALUES ('start_ns', '-9223372036854775808'), ('complete', '0');
INSERT INTO threads (tid, pid, name, start_ns, end_ns) VALUES (100, 100, 'main', 1000, 2000);
INSERT INTO thread_states VALUES (100, 1000, 2000, 'running', 0, NULL, NULL);
