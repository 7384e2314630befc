-- Secondary indexes, created once when collection ends (see mtx.sql).
CREATE INDEX IF NOT EXISTS threads_tid ON threads(tid, start_ns);
CREATE INDEX IF NOT EXISTS thread_states_tid ON thread_states(tid, start_ns);
CREATE INDEX IF NOT EXISTS switches_prev ON switches(prev_tid, ts_ns);
CREATE INDEX IF NOT EXISTS switches_ts ON switches(ts_ns);
CREATE INDEX IF NOT EXISTS wakeups_wakee ON wakeups(wakee_tid, ts_ns);
CREATE INDEX IF NOT EXISTS syscalls_tid ON syscalls(tid, start_ns);
CREATE INDEX IF NOT EXISTS sync_ops_object ON sync_ops(object_id, start_ns);
CREATE INDEX IF NOT EXISTS sync_ops_tid ON sync_ops(tid, start_ns);
CREATE INDEX IF NOT EXISTS calls_tid ON calls(tid, start_ns);
CREATE INDEX IF NOT EXISTS samples_tid ON samples(tid, ts_ns);
CREATE INDEX IF NOT EXISTS stacks_parent ON stacks(parent_id);
CREATE INDEX IF NOT EXISTS callsites_addr ON callsites(pid, addr);
CREATE INDEX IF NOT EXISTS interrupts_cpu ON interrupts(cpu, start_ns);
