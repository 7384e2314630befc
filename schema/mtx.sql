-- mtx run database (run.db), schema version 1.
--
-- This file is the format specification. One SQLite file holds one run of a
-- program under `mtx collect`. It is identified by PRAGMA application_id =
-- 0x6d747801 and versioned by PRAGMA user_version (1 here); a reader refuses a
-- newer version and migrates an older one (schema/migrations, none yet).
--
-- Conventions:
--  * Every time is an INTEGER count of nanoseconds on CLOCK_MONOTONIC, in a
--    column whose name ends in _ns. Kernel events (perf, use_clockid) and user
--    events (libmtx-preload.so) are stamped with the same clock, so they
--    interleave exactly.
--  * tid/pid are the kernel's numbers. A tid reused within one run gives a
--    second row in `threads` with a later start_ns.
--  * Intervals are half-open [start_ns, end_ns).
--  * Names here are the public interface: they are added to, never renamed
--    without a migration. mtx-db(5) documents every column.
--
-- Tables are created without secondary indexes; schema/indexes.sql adds them
-- when collection ends (loading first and indexing after is ~3x faster).

-- Facts about the run: command, start/end, kernel, cpus, clock, versions,
-- lost records per source (lost_<source>), complete (1 once finalized).
-- The steps after the program's exit each leave a key when done, so that a
-- run whose collector stopped early tells what it lacks: threads_ended_ns,
-- sync_resolved_ns, calls_closed_ns, names_written_ns (mtx-db(5)).
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT
);

-- One row per process seen (the launched program and every descendant).
CREATE TABLE processes (
	pid         INTEGER NOT NULL,
	ppid        INTEGER,
	exe         TEXT,              -- comm at the last exec (16 bytes max, kernel's)
	start_ns    INTEGER,           -- fork (or first event seen)
	end_ns      INTEGER,           -- exit of its last thread, NULL if never seen
	exit_status INTEGER            -- exit code; 128+N when killed by signal N; NULL unknown
);

-- One row per thread lifetime.
CREATE TABLE threads (
	tid      INTEGER NOT NULL,
	pid      INTEGER NOT NULL,
	name     TEXT,                 -- last comm the thread had
	start_ns INTEGER NOT NULL,     -- creation (clone), or exec for the first thread;
	                               -- attached (collect -p): attach_ns for those alive then
	end_ns   INTEGER,              -- exit; end of run (or detach_ns) if still alive then
	attached INTEGER NOT NULL DEFAULT 0 -- 1: alive when mtx attached, begun before start_ns
);

-- Each thread's scheduling class: seed 004 simulates with priorities. One
-- row when the thread appeared (its clone, or the exec that started it),
-- as the collector read it, then one per change: those the program made
-- through the C library (libmtx-preload.so: pthread_setschedparam,
-- pthread_setschedprio, sched_setscheduler, sched_setparam, setpriority,
-- nice; sched_setaffinity and pthread_setaffinity_np for the affinity),
-- exact, and those made from outside (chrt -p, renice), seen at
-- the thread's next switch when sched_switch's prev_prio changed.
CREATE TABLE thread_sched (
	tid      INTEGER NOT NULL,
	ts_ns    INTEGER NOT NULL,     -- when it had that class: the read at the clone (ms
	                               -- late), the call's return, or the switch
	policy   TEXT NOT NULL,        -- SCHED_OTHER SCHED_FIFO SCHED_RR SCHED_BATCH SCHED_IDLE SCHED_DEADLINE
	priority INTEGER NOT NULL,     -- real-time priority (1-99), 0 for the other policies
	nice     INTEGER NOT NULL,     -- -20 .. 19
	cpus_allowed TEXT              -- its CPU affinity as the collector read it in /proc
	                               -- (Cpus_allowed_list: 0-3,6); NULL: not read
);

-- Each thread's lifetime tiled, without gap or overlap, into intervals of one
-- state: running, runnable (preempted or waiting for a CPU), blocked (waiting
-- in the kernel for something other than I/O or a timer, e.g. a futex),
-- blocked_sync (blocked on a known sync object: object_id), blocked_io
-- (uninterruptible sleep or an I/O syscall), sleeping (a timed sleep).
CREATE TABLE thread_states (
	tid       INTEGER NOT NULL,
	start_ns  INTEGER NOT NULL,
	end_ns    INTEGER NOT NULL,
	state     TEXT NOT NULL,
	cpu       INTEGER,             -- running: the CPU; runnable: the CPU that then ran it
	object_id INTEGER,             -- for blocked_sync: sync_objects.id
	syscall   TEXT                 -- the syscall the thread was in, when known
);

-- Every time a traced thread left a CPU (sched:sched_switch in its context).
-- prev_state is the kernel's letter: R (preempted, also preempt=1), S, D, ...
CREATE TABLE switches (
	ts_ns      INTEGER NOT NULL,
	cpu        INTEGER NOT NULL,
	prev_tid   INTEGER NOT NULL,
	prev_state TEXT NOT NULL,
	preempt    INTEGER NOT NULL,
	next_tid   INTEGER NOT NULL,    -- 0 is the idle task
	stack_id   INTEGER              -- stacks.id (--sample)
);

-- Wakeups of traced threads (sched:sched_waking, recorded system-wide so
-- wakeups by interrupts and other processes are seen). waker_tid 0 means the
-- wakeup came from interrupt context or the idle task.
CREATE TABLE wakeups (
	ts_ns      INTEGER NOT NULL,
	cpu        INTEGER NOT NULL,
	waker_tid  INTEGER NOT NULL,
	wakee_tid  INTEGER NOT NULL,
	target_cpu INTEGER
);

-- Seed 004's system thread T_0 on every CPU (the interrupts source, not
-- in the default set: -e ...,interrupts): hard interrupt handlers (irq:irq_handler_entry/exit), softirqs
-- (irq:softirq_entry/exit) and hrtimer expiries (timer:hrtimer_expire_entry
-- /exit), each entry paired with its exit on the same CPU, from the
-- program's start to the end of recording. They nest: a row may lie inside
-- another of the same CPU (an irq during a softirq). An interrupt whose
-- handler the kernel runs without an irq action (the local timer, IPIs)
-- has no irq row; the hrtimers it expires have theirs.
CREATE TABLE interrupts (
	cpu      INTEGER NOT NULL,
	start_ns INTEGER NOT NULL,
	end_ns   INTEGER NOT NULL,
	kind     TEXT NOT NULL,        -- irq, softirq, timer
	irq      INTEGER,              -- irq: its number; softirq: the vector; timer: NULL
	name     TEXT                  -- irq: its action's name (as /proc/interrupts);
	                               -- softirq: HI TIMER NET_TX NET_RX BLOCK IRQ_POLL TASKLET
	                               -- SCHED HRTIMER RCU; timer: the hrtimer's function
	                               -- (hrtimer_wakeup ends a sleep or timeout), or its
	                               -- address in hex when the kernel hides symbols
);

-- The tasks outside the traced processes that woke a traced thread (a
-- process writing to a pipe, a kernel thread), one row per tid, read from
-- /proc when the collector first saw it wake one (ms later).
CREATE TABLE other_tasks (
	tid  INTEGER NOT NULL,
	pid  INTEGER NOT NULL,
	comm TEXT                      -- its name then; NULL: it was gone
);

-- Syscalls of traced threads, enter and exit paired. end_ns/ret NULL when the
-- thread never returned (exit, exec, end of run). fd is the first argument
-- of the syscalls whose first argument is a file descriptor (read, write,
-- recvmsg, accept, close, ioctl, ...; not the *at calls, whose first is a
-- directory), else NULL. fd_kind is what that descriptor was, read from
-- /proc/<pid>/fd/<fd> while recording and kept only if no close of it came
-- between the syscall and that read; NULL when unknown. path is, read
-- alike, the file's path when the descriptor was one in the file system
-- (a regular file, a directory, a device, a named pipe or socket, a
-- terminal; "(deleted)" after it when it was removed), else NULL.
CREATE TABLE syscalls (
	tid      INTEGER NOT NULL,
	start_ns INTEGER NOT NULL,
	end_ns   INTEGER,
	nr       INTEGER NOT NULL,
	name     TEXT NOT NULL,
	ret      INTEGER,
	fd       INTEGER,              -- the descriptor argument, as passed (may be -1)
	fd_kind  TEXT,                 -- file dir pipe socket tty dev eventfd timerfd signalfd
	                               -- epoll inotify memfd pidfd anon (other anon_inode)
	path     TEXT                  -- the file's path, when fd_kind's descriptor had one
);

-- One row per lifetime of a synchronization object in one process: an
-- address reused after destroy (or re-initialized) is a new row. For kind
-- signal, addr is the signal number; for kind thread, the pthread_t.
-- name and used_as were added after the first runs: a run.db without them
-- reads as if they were NULL (src/db.c), and readers then show the address.
CREATE TABLE sync_objects (
	id           INTEGER PRIMARY KEY,
	kind         TEXT NOT NULL,     -- mutex rwlock spinlock cond sem barrier signal thread
	addr         INTEGER NOT NULL,
	pid          INTEGER,
	created_ns   INTEGER,           -- init/create/open seen: its start; else first use
	destroyed_ns INTEGER,           -- destroy/join/close: its end; NULL if never
	-- Written when names are (meta names_written_ns): in a module's data,
	-- its symbol and the offset in it (log_mutex, ledger::accounts+0x30);
	-- elsewhere (heap, stack) where its lifetime began, as call sites are
	-- named ('init at bank.cc:41 in Bank::Bank()', 'first used at ...');
	-- SIGUSR1 for a signal, 'thread TID' for a thread. NULL: not known.
	name         TEXT,
	-- 'lock' for a semaphore used as a lock (binary, each post by the thread
	-- whose wait took it: sync_ops.holder_tid and hold_ns as for a mutex);
	-- set when the sync tables are resolved; NULL otherwise.
	used_as      TEXT
);

-- One row per synchronization operation (libmtx-preload.so). blocked,
-- wait_ns and holder_tid are joined in when the run is finalized; hold_ns
-- is written with a lock's acquiring op, once its thread released it, and
-- checked then (holder_tid and hold_ns on locks, and on semaphores used
-- as locks).
CREATE TABLE sync_ops (
	id         INTEGER PRIMARY KEY,
	tid        INTEGER NOT NULL,
	object_id  INTEGER NOT NULL,
	op         TEXT NOT NULL,
	start_ns   INTEGER NOT NULL,
	end_ns     INTEGER NOT NULL,
	blocked    INTEGER NOT NULL DEFAULT 0, -- the thread left the CPU blocked during it
	wait_ns    INTEGER NOT NULL DEFAULT 0, -- time blocked during it
	result     INTEGER,            -- 0, or the error: an errno (C11 calls: thrd_busy, ...)
	arg        INTEGER,            -- cond wait: the mutex's sync_objects.id; kill: pid; create/join: tid
	callsite   INTEGER,            -- return address in the caller
	holder_tid INTEGER,            -- lock ops: who held the lock when this one asked for it
	hold_ns    INTEGER,            -- acquiring lock ops: time until the matching unlock
	stack_id   INTEGER,            -- stacks.id (--sync-stacks)
	unfinished TEXT,               -- NULL: it returned (result set); else why not, result NULL:
	                               -- thread_exit (its thread ended inside it; end_ns is the
	                               -- thread's end), siglongjmp (a signal handler jumped out of
	                               -- it; end_ns is the jump)
	overhead_ns INTEGER,           -- what the wrapper added to its thread beyond the real call
	                               -- (before start_ns), lane-full waits and injected_ns
	                               -- included, time off a CPU taken out at the end;
	                               -- NULL: not measured (uprobes, older runs)
	injected_ns INTEGER            -- the part of overhead_ns that --inject-overhead added
);
-- The few ops the sync tables' passes look up once the run is written
-- (collector/sync/resolve.c): those that begin or end a lifetime, calls
-- that did not return, and wrappers slow enough to have been off a CPU.
-- Partial indexes, kept as rows come in: a scan of sync_ops each was a
-- second of a 4 M-op run's finish.
-- (Its ORs, not an IN list: that doubled the cost of an insert.)
CREATE INDEX sync_ops_lifetime ON sync_ops(object_id, start_ns)
	WHERE (op = 'init' OR op = 'create' OR op = 'open' OR op = 'destroy' OR op = 'join' OR op = 'close');
CREATE INDEX sync_ops_unfinished ON sync_ops(unfinished) WHERE unfinished IS NOT NULL;
CREATE INDEX sync_ops_slow_wrapper ON sync_ops(overhead_ns) WHERE overhead_ns > 2000;

-- Functions named by calls, stacks and sync call sites: one row per
-- (name, module, file, line). An inlined function is a row of its own.
CREATE TABLE functions (
	id     INTEGER PRIMARY KEY,
	name   TEXT NOT NULL,      -- symbol; [unknown] (no symbol), [kernel], [vdso], ...
	module TEXT,               -- path of the executable or library
	file   TEXT,               -- declaration file (DWARF), NULL without debug info
	line   INTEGER             -- declaration line
);

-- Exact function invocations (uprobes on mtx collect --functions, or the
-- -pg / -finstrument-functions hooks), one row per call, entry and return
-- paired per thread. ids follow entry order; a call's callees have it as
-- parent_id. A call whose return was never seen is closed at the moment
-- that made it impossible, and says which in unfinished.
CREATE TABLE calls (
	id          INTEGER PRIMARY KEY,
	tid         INTEGER NOT NULL,
	function_id INTEGER NOT NULL,  -- functions.id
	parent_id   INTEGER,           -- the calling call's id, NULL at depth 0
	depth       INTEGER NOT NULL,  -- 0: outermost recorded call of its thread
	start_ns    INTEGER NOT NULL,  -- entry
	end_ns      INTEGER,           -- return, or when it was closed unfinished
	unfinished  TEXT,              -- NULL: it returned; else thread_exit (its thread
	                               -- exited, or crashed), exec, run_end (the run
	                               -- ended first), caller_returned (a call below
	                               -- it returned first, e.g. by longjmp),
	                               -- return_probe_depth (past the kernel's 64
	                               -- pending return probes per thread: its
	                               -- return is never seen; end_ns is an upper
	                               -- bound), probe_removed (mtx ctl probe del
	                               -- took its probe away first)
	retroactive INTEGER NOT NULL DEFAULT 0 -- 1: already running when its probe went in
	                               -- (found on its thread's stack, mtx collect -p,
	                               -- mtx ctl probe add): start_ns is that instant,
	                               -- not its entry, which came earlier
);

-- The run's phases (mtx-collect(1), PHASES): each begins where the program
-- called mtx_phase(name), where --phase-signal's signal was sent to it, or
-- where mtx ctl SOCK phase NAME came, and ends where the next one begins or
-- the run ends; they do not overlap. Phase 0 is the whole run, always there.
CREATE TABLE phases (
	id       INTEGER PRIMARY KEY, -- 0: the whole run; then 1, 2, ... in time order
	name     TEXT NOT NULL,       -- as marked (mtx_phase: its first 24 bytes), or
	                              -- phase-<id>; 0 is global
	start_ns INTEGER NOT NULL,
	end_ns   INTEGER NOT NULL,
	source   TEXT NOT NULL,       -- run (phase 0), call, signal or ctl
	tid      INTEGER              -- call: the thread that called; signal: the
	                              -- thread or process it was sent to
);

-- What mtx collect --detail added up instead of writing (collector/detail.h):
-- the rows that began at or after meta.detail_until_ns of the kinds a heavy
-- program makes by the million. thread_summary and switch_graph add them in.
CREATE TABLE summarized_states (
	tid       INTEGER NOT NULL,
	life_ns   INTEGER NOT NULL,  -- the thread lifetime's threads.start_ns
	state     TEXT NOT NULL,     -- running or runnable
	cpu       INTEGER,           -- thread_states.cpu's (NULL: a runnable that did not run)
	intervals INTEGER NOT NULL,
	ns        INTEGER NOT NULL   -- their time in all
);

-- Switches that did not block (the thread left the CPU runnable).
CREATE TABLE summarized_switches (
	prev_tid   INTEGER NOT NULL,
	next_tid   INTEGER NOT NULL,
	prev_state TEXT NOT NULL,
	count      INTEGER NOT NULL
);

-- Syscalls in which the thread did not wait.
CREATE TABLE summarized_syscalls (
	tid      INTEGER NOT NULL,
	life_ns  INTEGER NOT NULL,   -- the thread lifetime's threads.start_ns
	nr       INTEGER NOT NULL,
	name     TEXT,
	calls    INTEGER NOT NULL,
	errors   INTEGER NOT NULL,   -- calls that returned < 0
	returned INTEGER NOT NULL,   -- calls that returned (the others: end_ns NULL)
	total_ns INTEGER NOT NULL,   -- the time of those that returned
	max_ns   INTEGER NOT NULL
);

-- Sync ops that began at or after meta.detail_until_ns and neither blocked
-- nor found their lock held (the others stay sync_ops rows, as do calls
-- that did not return, wrappers slower than 2 us and the ops that begin
-- or end a lifetime), added up per thread, object, op and call site
-- (collector/sync/summary.h). sync_usage and lock_contention add them in.
CREATE TABLE summarized_sync_ops (
	tid         INTEGER NOT NULL,
	object_id   INTEGER NOT NULL,
	op          TEXT NOT NULL,
	callsite    INTEGER,          -- as sync_ops.callsite
	stack_id    INTEGER,          -- as sync_ops.stack_id
	calls       INTEGER NOT NULL,
	errors      INTEGER NOT NULL, -- calls whose result was not 0
	hold_ns     INTEGER NOT NULL, -- SUM(hold_ns) of the ops that took a lock, 0 when none
	max_hold_ns INTEGER NOT NULL,
	max_ns      INTEGER NOT NULL, -- the longest call, end_ns - start_ns
	total_ns    INTEGER NOT NULL, -- the calls' time in all
	overhead_ns INTEGER,          -- SUM(overhead_ns); NULL: not measured
	injected_ns INTEGER,          -- SUM(injected_ns); NULL: not measured
	first_ns    INTEGER NOT NULL, -- the first one's start_ns
	last_ns     INTEGER NOT NULL  -- the last one's end_ns
);

-- The last search of mtx diagnose (the Performance Consultant,
-- src/derived/consultant.h), kept when the file can be written: its search
-- history graph, one row per node (a hypothesis tested at a focus) and per
-- edge (a refinement). Empty until mtx diagnose runs on the file; or the
-- search mtx collect --consultant made live (meta pc_search: live, offline).
CREATE TABLE pc_nodes (
	id         INTEGER PRIMARY KEY, -- 0: the root, TopLevelHypothesis at /
	hypothesis TEXT NOT NULL,       -- CPUbound, ExcessiveSyncWaitingTime, ...
	why        TEXT,                -- cpu, sync, io, cpu_wait; NULL at the root
	focus      TEXT NOT NULL,       -- /Code/app/hog,/Process/4242/worker (4243), ...; / the whole program
	status     TEXT NOT NULL,       -- true, false, untested (past max_tests)
	value      REAL,                -- the metric over the focus's thread time (bytes per op
	threshold  REAL,                -- for TooManySmallIOOps), and the threshold it was tested against
	share      REAL,                -- the metric over all the threads' time
	tested     INTEGER              -- in which order it was tested (1..), NULL never
);
CREATE TABLE pc_edges (
	parent INTEGER NOT NULL,        -- pc_nodes.id
	child  INTEGER NOT NULL,
	kind   TEXT NOT NULL            -- why (a child hypothesis) or where (a finer focus)
);

-- What was recorded when: a row per window in which a source or a probe
-- set was on (mtx collect --control, mtx ctl): the sources from the start,
-- until switched off; each 'mtx ctl probe add' until its 'probe del' or
-- the end. Rates and shares of a source or function mean something only
-- inside its windows.
CREATE TABLE instrumentation (
	id          INTEGER PRIMARY KEY,
	kind        TEXT NOT NULL,     -- source, probe
	target      TEXT NOT NULL,     -- the source's name (--events), the probe's [LIB:]REGEX
	probe_id    INTEGER,           -- probe: the number mtx ctl gave it
	functions   INTEGER,           -- probe: how many functions it put probes on
	on_ns       INTEGER NOT NULL,
	off_ns      INTEGER,           -- NULL: on until the end of the run
	reason      TEXT NOT NULL,     -- start (mtx collect's options), user (mtx ctl), consultant
	off_reason  TEXT,              -- user, consultant, budget (--overhead-budget); NULL:
	                               -- on until the end
	hits        INTEGER,           -- probe: the calls it recorded (entries)
	cost_ns     INTEGER            -- probe: the calibrated cost of one call's two
	                               -- hits (meta cal_uprobes_ns), NULL if unknown
);

-- The functions each probe row of instrumentation put probes on.
CREATE TABLE instrumentation_functions (
	instrumentation_id INTEGER NOT NULL, -- instrumentation.id
	name               TEXT NOT NULL,    -- as functions.name has it
	module             TEXT              -- the file it is in
);

-- Deduplicated call paths; a stack is its leaf row, parents toward the root.
-- One row per code address reached from one parent row; a function inlined
-- at that address gets rows of its own between the parent and the row of
-- the innermost function (same addr). A run of frames of libmtx-preload.so
-- (mtx's own cost) is one function, '[mtx] ' and the wrapper the program
-- called ('[mtx] pthread_mutex_lock'): each of their rows has the row above
-- the run as its parent.
CREATE TABLE stacks (
	id          INTEGER PRIMARY KEY,
	parent_id   INTEGER,           -- the caller's row, NULL at the outermost frame
	function_id INTEGER NOT NULL,
	pid         INTEGER,           -- the process whose address space addr is in
	addr        INTEGER,           -- leaf: the sampled address; callers: return address - 1
	file        TEXT,              -- where in its function addr is (DWARF): for a row with
	line        INTEGER            -- a function inlined below it, that call; NULL unknown
);

-- CPU samples (mtx collect --sample HZ): one per 1/HZ s of CPU time of a thread.
CREATE TABLE samples (
	ts_ns    INTEGER NOT NULL,
	tid      INTEGER NOT NULL,
	cpu      INTEGER,
	stack_id INTEGER,              -- the leaf's stacks.id; NULL: no user frame
	unwind   TEXT                  -- how the stack was walked: fp (frame pointers) or dwarf (CFI over a stack copy)
);

-- Executable mappings of the traced processes (PERF_RECORD_MMAP2), as
-- mapped at ts_ns; a forked child inherits its parent's. Enough to name
-- any code address of the run again later (with the same files).
CREATE TABLE maps (
	pid        INTEGER NOT NULL,
	ts_ns      INTEGER NOT NULL,
	start_addr INTEGER NOT NULL,
	end_addr   INTEGER NOT NULL,
	pgoff      INTEGER NOT NULL,   -- file offset of start_addr
	path       TEXT NOT NULL,      -- file, or [vdso], [anon...], ...
	build_id   TEXT,               -- hex, from the kernel; NULL if it gave none
	symbols    TEXT                -- symtab, debuginfo, dynsym (stripped), none, missing, changed
);

-- How long each thread of the program waited for the collector (its lane of
-- the preload library full, or no lane free): time of the program's that is
-- mtx's. One row per thread that waited (a thread may have two: its sync
-- lane and its call lane).
CREATE TABLE collector_waits (
	tid     INTEGER NOT NULL,
	pid     INTEGER NOT NULL,
	wait_ns INTEGER NOT NULL,
	waits   INTEGER NOT NULL
);

-- The function of each sync_ops.callsite (by process: sync_objects.pid).
-- Which of its frames is the program's own: the derived table callsite_frames.
CREATE TABLE callsites (
	pid         INTEGER NOT NULL,
	addr        INTEGER NOT NULL,  -- as in sync_ops.callsite
	function_id INTEGER NOT NULL,  -- the innermost function at addr - 1
	stack_id    INTEGER            -- its stacks row: the frames at addr - 1, the innermost
	                               -- first, up to the function that holds them (parent NULL)
);
