-- The results of `mtx probe-effect` (src/probe/verdict.c), kept in run.db
-- when the file can be written: created on its first run, a model's rows
-- replaced by each later run of that model. Like the derived tables they
-- can be made again at any time from the recorded ones. A run.db whose
-- probe_effect predates a column added here gets it (ALTER TABLE ADD
-- COLUMN, NULL in the old rows) when probe_store next writes: see
-- verdict.c's probe_store.

-- One row per model: the verdict of seed 004's Theorem 1.
CREATE TABLE IF NOT EXISTS probe_effect (
	model               TEXT NOT NULL,  -- smp or up-prio
	verdict             TEXT NOT NULL,  -- equal (G^S = G^I) or divergent
	events              INTEGER NOT NULL, -- vertices: completed sync ops
	nr_cpus             INTEGER NOT NULL, -- CPUs simulated
	e_d_tid             INTEGER,        -- the first divergent event (tid, k), NULL when equal
	e_d_k               INTEGER,
	e_d_op_id           INTEGER,        -- its sync_ops.id
	prefix_events       INTEGER NOT NULL, -- the trustworthy prefix: events before e_d (all when equal)
	inversions          INTEGER NOT NULL, -- timestamp inversions in the prefix (seed 004 Fig. 8)
	overhead_ns         INTEGER,        -- sum of sync_ops.overhead_ns; NULL when not recorded
	overhead_removed_ns INTEGER NOT NULL, -- of which removed from the threads' segments
	params              TEXT            -- the model and what it was given, a JSON object
);

-- One row per event and model: when it happened observed and simulated,
-- and its place in each total order.
CREATE TABLE IF NOT EXISTS sim_events (
	model       TEXT NOT NULL,
	op_id       INTEGER NOT NULL,  -- sync_ops.id
	tid         INTEGER NOT NULL,
	k           INTEGER NOT NULL,  -- 1 for the thread's first event
	ht_obs_ns   INTEGER NOT NULL,  -- observed: sync_ops.end_ns
	ht_sim_ns   INTEGER,           -- simulated; NULL when it could not execute
	order_obs   INTEGER NOT NULL,  -- 1-based place in the observed total order
	order_sim   INTEGER,           -- in the simulated one; NULL when it could not execute
	outcome_sim INTEGER            -- 1 succeeded, 0 failed (a trylock, a timed wait)
);

-- One row per edge of G^S, the simulated happened-before graph, and model
-- (src/probe/hb.h's rules): from (tid, k) to (tid, k). T_0, the system
-- thread (an interrupt, a timer, another process), is tid 0, k 0.
CREATE TABLE IF NOT EXISTS sim_edges (
	model    TEXT NOT NULL,
	from_tid INTEGER NOT NULL,
	from_k   INTEGER NOT NULL,
	to_tid   INTEGER NOT NULL,
	to_k     INTEGER NOT NULL,
	kind     TEXT NOT NULL,    -- program, lock, held, post, signal, ... (hb_edge_name)
	observed INTEGER NOT NULL  -- 1 when G^I has the same edge, 0 when only G^S does
);
