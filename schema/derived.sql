-- Derived tables: the analyses of mtx-report(1), computed from the recorded
-- tables (mtx.sql) once, when `mtx collect` ends, or by the first reader of a
-- run.db that lacks them (as TEMP tables when the file is read-only).
-- meta.derived_version says which version of these definitions a run.db
-- holds; src/derived/analysis.c drops and rebuilds them when it is older.
--
-- Every table here may be rebuilt at any time from the recorded ones; none
-- holds anything that is not in them.

-- Why each thread was not running: one row per non-running thread_states
-- interval, with what it waited for and what ended the wait.
CREATE TABLE state_causes (
	tid       INTEGER NOT NULL,
	start_ns  INTEGER NOT NULL,
	end_ns    INTEGER NOT NULL,
	state     TEXT NOT NULL,    -- as in thread_states
	-- sync: inside a sync op (object_id, op_id); syscall: inside another
	-- syscall (syscall, fd, fd_kind); sleep: a timed sleep; preempted: lost
	-- the CPU while runnable; woken: woken, waiting for a CPU; new: a new
	-- thread waiting for its first CPU; unknown
	cause     TEXT NOT NULL,
	object_id INTEGER,          -- sync_objects.id
	op_id     INTEGER,          -- sync_ops.id
	syscall   TEXT,             -- the syscall the thread was in
	fd        INTEGER,          -- its file descriptor argument, when it takes one
	fd_kind   TEXT,             -- file, pipe, socket, tty, eventfd, ... when known
	-- Who had the CPU instead: for an interval that began when the thread
	-- switched out, the task switched in (0 = idle); for woken, the traced
	-- thread running on the CPU where the wakee next ran, when there was one.
	next_tid  INTEGER,
	-- What ended a blocked/sleeping interval: thread (waker_tid), interrupt,
	-- timer, exit (the thread ended while waiting), or unknown.
	ended_by  TEXT,
	waker_tid INTEGER,
	op        TEXT,             -- sync_ops.op of op_id (saves readers a lookup)
	-- For an interval that began when the thread switched out, with
	-- collect --sample: the function it was in (functions.id; the innermost
	-- frame of its own code, not of a system library or mtx's).
	function_id INTEGER
);
-- Filled in (tid, start_ns) order, so this index is kept up to date as the
-- rows come (through src/row-queue.c), for less than it would
-- cost to build it afterwards (0.4 s against 0.9 s on the 1.6 M rows of a
-- 10 M-event run). The same for wait_for below.
CREATE INDEX state_causes_tid ON state_causes(tid, start_ns);

-- For whom each wait on a sync object waited: the lock's holder, or for
-- semaphores, condvars, barriers and joins the thread that woke the waiter;
-- and what that thread did during the wait.
CREATE TABLE wait_for (
	tid            INTEGER NOT NULL, -- the waiting thread
	start_ns       INTEGER NOT NULL, -- its blocked_sync interval
	end_ns         INTEGER NOT NULL,
	object_id      INTEGER,
	op_id          INTEGER,
	waited_for_tid INTEGER,          -- NULL when unknown (woken by an interrupt, ...)
	relation       TEXT NOT NULL,    -- holder, waker, or unknown
	-- What waited_for_tid did within [start_ns, end_ns).
	other_running_ns  INTEGER,
	other_runnable_ns INTEGER,
	other_blocked_ns  INTEGER,       -- blocked, blocked_sync, blocked_io, sleeping
	other_object_id   INTEGER,       -- the object it was itself blocked on longest then
	-- holder: where it took the lock (its last op on it before the wait);
	-- waker: where it woke us (its last op on the object by the wakeup,
	-- begun since the waiter's op, else the op it was in at the wakeup)
	other_callsite    INTEGER,
	-- The wait-for chain: the wait followed through the thread it waited
	-- for while that one was itself waiting, at most 8 links
	-- (src/derived/wait-chains.c): 'a > b > c', the threads' names; and the wait
	-- clipped along it.
	chain             TEXT,
	chain_ns          INTEGER
);
CREATE INDEX wait_for_tid ON wait_for(tid, start_ns);

-- The critical path: the chain of work and waits that ends at the program's
-- exit, walked back from there through the wakeup that ended each wait (and
-- the creation of each thread). Segments tile the run without overlap.
CREATE TABLE critical_path (
	seq       INTEGER PRIMARY KEY,  -- 1 at the run's start
	tid       INTEGER NOT NULL,
	start_ns  INTEGER NOT NULL,
	end_ns    INTEGER NOT NULL,
	state     TEXT NOT NULL,        -- the thread's state then
	object_id INTEGER,              -- the object waited through: the waker's segments within a wait on it, or the wait's own
	function_id INTEGER             -- innermost recorded call then, when calls exist
);

-- Time histograms (seeds 002/003): a fixed number of buckets per subject and
-- metric; the bucket width doubles whenever the run outgrows them, so the
-- size is bounded whatever the run length. A bucket whose value is 0 has no
-- row: most of a run with thousands of short threads would be zeros.
CREATE TABLE time_histograms (
	subject    TEXT NOT NULL,     -- thread or object
	subject_id INTEGER NOT NULL,  -- tid, or sync_objects.id
	metric     TEXT NOT NULL,     -- running_ns, blocked_ns, ops, syscalls, wait_ns, ...
	bucket     INTEGER NOT NULL,  -- 0 ..
	start_ns   INTEGER NOT NULL,
	width_ns   INTEGER NOT NULL,
	value      INTEGER NOT NULL
);

-- The time histograms' buckets: bucket 0 starts at origin_ns (the run's
-- start), each is width_ns long, and the run spans the first nr_buckets.
-- One row (none for a run without threads).
CREATE TABLE histogram_buckets (
	origin_ns  INTEGER NOT NULL,
	width_ns   INTEGER NOT NULL,
	nr_buckets INTEGER NOT NULL
);

-- Summaries: the whole run's totals that the threads, sync, locks and
-- switches reports show, added up once (src/derived/summaries.c, src/derived/state-causes.c).

-- Per thread lifetime (one row per threads row), the time of its
-- thread_states intervals that lie within the lifetime, by state.
CREATE TABLE thread_totals (
	tid              INTEGER NOT NULL,
	pid              INTEGER NOT NULL,
	name             TEXT,
	start_ns         INTEGER NOT NULL, -- as in threads
	end_ns           INTEGER,
	nr_states        INTEGER NOT NULL, -- intervals counted (none when end_ns is NULL)
	running_ns       INTEGER NOT NULL,
	runnable_ns      INTEGER NOT NULL,
	blocked_other_ns INTEGER NOT NULL, -- state blocked (not blocked_sync, blocked_io)
	blocked_sync_ns  INTEGER NOT NULL,
	blocked_io_ns    INTEGER NOT NULL,
	sleeping_ns      INTEGER NOT NULL
);

-- thread_totals' running and runnable time per CPU (thread_states.cpu: a
-- wait for a CPU on the one that then ran the thread), a row per lifetime
-- and CPU, and one more for what --detail added up (summarized_states):
-- add them up. mtx diagnose's /Machine.
CREATE TABLE cpu_totals (
	tid         INTEGER NOT NULL,
	life_ns     INTEGER NOT NULL, -- the lifetime's threads.start_ns
	cpu         INTEGER NOT NULL,
	running_ns  INTEGER NOT NULL,
	runnable_ns INTEGER NOT NULL
);

-- Per thread, object, op and call site: the sync_ops added up.
CREATE TABLE sync_totals (
	tid         INTEGER NOT NULL,
	object_id   INTEGER NOT NULL,
	op          TEXT NOT NULL,
	callsite    INTEGER,          -- sync_ops.callsite
	stack_id    INTEGER,          -- sync_ops.stack_id
	calls       INTEGER NOT NULL, -- COUNT(*)
	blocked     INTEGER NOT NULL, -- SUM(blocked)
	contended   INTEGER NOT NULL, -- ops that found a holder or blocked
	wait_ns     INTEGER NOT NULL, -- SUM(wait_ns)
	max_wait_ns INTEGER NOT NULL,
	hold_ns     INTEGER NOT NULL, -- SUM(hold_ns), 0 when none
	max_hold_ns INTEGER NOT NULL,
	max_ns      INTEGER NOT NULL, -- MAX(end_ns - start_ns): the longest call
	total_ns    INTEGER NOT NULL  -- SUM(end_ns - start_ns): the calls' time
);

-- Per lock and holder: the ops that found that thread holding the lock
-- (sync_ops.holder_tid), and how long they waited.
CREATE TABLE lock_holders (
	object_id  INTEGER NOT NULL,
	holder_tid INTEGER NOT NULL,
	ops        INTEGER NOT NULL,
	wait_ns    INTEGER NOT NULL
);

-- Per thread, the thread that got the CPU when it left it, and where it
-- was then (the switches report's "at", and with collect --sample the
-- function it was in): how many times. From the state_causes rows with a
-- next_tid, except cause woken.
CREATE TABLE switch_totals (
	from_tid    INTEGER NOT NULL,
	to_tid      INTEGER NOT NULL,
	at          TEXT,
	count       INTEGER NOT NULL,
	function_id INTEGER          -- as state_causes.function_id; NULL unknown
);

-- Per thread and syscall name, the syscalls added up (the browser's syscalls
-- view). Like SQL's SUM and MAX, errors is NULL when no call has a ret, and
-- total_ns and max_ns when none has an end_ns.
CREATE TABLE syscall_totals (
	tid      INTEGER NOT NULL,
	syscall  TEXT NOT NULL,     -- syscalls.name
	calls    INTEGER NOT NULL,  -- COUNT(*)
	errors   INTEGER,           -- SUM(ret < 0)
	total_ns INTEGER,           -- SUM(end_ns - start_ns)
	max_ns   INTEGER            -- MAX(end_ns - start_ns)
);

-- Per thread, the state_causes rows of its waits (state not running or
-- runnable) added up by cause, syscall, fd_kind, ended_by and waker_tid (the
-- waits report's other waits and wakers, a thread's view in the browser).
CREATE TABLE wait_totals (
	tid         INTEGER NOT NULL,
	cause       TEXT NOT NULL,
	syscall     TEXT,
	fd_kind     TEXT,
	ended_by    TEXT,
	waker_tid   INTEGER,
	waits       INTEGER NOT NULL, -- COUNT(*)
	wait_ns     INTEGER NOT NULL, -- SUM(end_ns - start_ns)
	max_wait_ns INTEGER NOT NULL  -- MAX(end_ns - start_ns)
);

-- Per thread, its runnable state_causes rows added up by cause and next_tid
-- (the waits report's waits for a CPU).
CREATE TABLE cpu_wait_totals (
	tid         INTEGER NOT NULL,
	cause       TEXT NOT NULL,
	next_tid    INTEGER,
	waits       INTEGER NOT NULL,
	wait_ns     INTEGER NOT NULL,
	max_wait_ns INTEGER NOT NULL
);

-- Per waiting thread, the wait_for rows added up by object, the thread
-- waited for, relation and other_callsite (the waits report's objects and
-- graph).
CREATE TABLE wait_for_totals (
	tid            INTEGER NOT NULL,
	object_id      INTEGER,
	waited_for_tid INTEGER,
	relation       TEXT NOT NULL,
	other_callsite INTEGER,          -- as in wait_for
	waits          INTEGER NOT NULL, -- COUNT(*)
	wait_ns        INTEGER NOT NULL  -- SUM(end_ns - start_ns)
);

-- Per waiting thread, object and wait-for chain, its wait_for rows added up
-- (the waits report's chains section over the whole run).
CREATE TABLE wait_chain_totals (
	tid       INTEGER NOT NULL,
	object_id INTEGER,
	chain     TEXT,             -- as in wait_for
	waits     INTEGER NOT NULL,
	wait_ns   INTEGER NOT NULL  -- SUM(wait_for.chain_ns)
);

-- Per thread, state, object and function: the critical_path segments added
-- up (the critical-path report without a window, the browser's view of it).
CREATE TABLE critical_path_totals (
	tid         INTEGER NOT NULL,
	state       TEXT NOT NULL,
	object_id   INTEGER,
	function_id INTEGER,
	segments    INTEGER NOT NULL, -- COUNT(*)
	path_ns     INTEGER NOT NULL, -- SUM(end_ns - start_ns)
	start_ns    INTEGER NOT NULL, -- MIN(start_ns)
	end_ns      INTEGER NOT NULL  -- MAX(end_ns)
);

-- Per busy thread, its states and events at coarser resolutions, for the
-- browser's zoomed-out timeline (src/derived/timeline-levels.c): level L cuts time
-- into buckets of 4^L ns from 0; each bucket gets the state that covered most
-- of it and its event (the kind of its first sync op, else a syscall that
-- began in it), as one byte: the codes are in src/derived/timeline-levels.h and
-- mtx-db(5). A thread has the levels down to buckets as long as its mean state.
CREATE TABLE timeline_levels (
	tid      INTEGER NOT NULL,
	level    INTEGER NOT NULL,
	start_ns INTEGER NOT NULL,  -- the first bucket's start
	buckets  BLOB NOT NULL,     -- one byte per bucket from start_ns on, at most 4096
	PRIMARY KEY (tid, level, start_ns)
) WITHOUT ROWID;

-- The run's time buckets: from origin_ns (the first thread's start), each
-- width_ns long (1 us times a power of two, so that the run spans at most
-- 32). One row. The *_buckets tables hold the summaries per bucket of the
-- rows that begin in it (bucket_ns: the bucket's start), so that a report
-- over a --from/--to window adds up the buckets wholly inside it and reads
-- the recorded rows only at its two ends.
CREATE TABLE run_buckets (
	origin_ns INTEGER NOT NULL,
	width_ns  INTEGER NOT NULL
);

-- thread_totals per bucket, a row per lifetime (life_ns: its threads.start_ns),
-- bucket and state: the time of its states within the bucket (clipped to it).
CREATE TABLE thread_buckets (
	tid       INTEGER NOT NULL,
	life_ns   INTEGER NOT NULL,
	bucket_ns INTEGER NOT NULL,
	state     TEXT NOT NULL,
	ns        INTEGER NOT NULL
);

-- sync_totals per bucket (the columns the sync and locks reports add up
-- over a window), over the ops that began in it.
CREATE TABLE sync_buckets (
	tid         INTEGER NOT NULL,
	object_id   INTEGER NOT NULL,
	op          TEXT NOT NULL,
	callsite    INTEGER,
	stack_id    INTEGER,
	bucket_ns   INTEGER NOT NULL,
	calls       INTEGER NOT NULL,
	blocked     INTEGER NOT NULL,
	contended   INTEGER NOT NULL,
	wait_ns     INTEGER NOT NULL,
	max_wait_ns INTEGER NOT NULL,
	hold_ns     INTEGER NOT NULL
);

-- lock_holders per bucket, over the ops that began in it.
CREATE TABLE lock_holder_buckets (
	object_id  INTEGER NOT NULL,
	holder_tid INTEGER NOT NULL,
	bucket_ns  INTEGER NOT NULL,
	ops        INTEGER NOT NULL,
	wait_ns    INTEGER NOT NULL
);

-- wait_totals and cpu_wait_totals per bucket, over the intervals that
-- began in it.
CREATE TABLE wait_buckets (
	tid         INTEGER NOT NULL,
	cause       TEXT NOT NULL,
	syscall     TEXT,
	fd_kind     TEXT,
	ended_by    TEXT,
	waker_tid   INTEGER,
	bucket_ns   INTEGER NOT NULL,
	waits       INTEGER NOT NULL,
	wait_ns     INTEGER NOT NULL,
	max_wait_ns INTEGER NOT NULL
);
CREATE TABLE cpu_wait_buckets (
	tid         INTEGER NOT NULL,
	cause       TEXT NOT NULL,
	next_tid    INTEGER,
	bucket_ns   INTEGER NOT NULL,
	waits       INTEGER NOT NULL,
	wait_ns     INTEGER NOT NULL,
	max_wait_ns INTEGER NOT NULL
);

-- wait_for_totals and wait_chain_totals per bucket, over the waits that
-- began in it.
CREATE TABLE wait_for_buckets (
	tid            INTEGER NOT NULL,
	object_id      INTEGER,
	waited_for_tid INTEGER,
	relation       TEXT NOT NULL,
	other_callsite INTEGER,
	bucket_ns      INTEGER NOT NULL,
	waits          INTEGER NOT NULL,
	wait_ns        INTEGER NOT NULL
);
CREATE TABLE wait_chain_buckets (
	tid       INTEGER NOT NULL,
	object_id INTEGER,
	chain     TEXT,
	bucket_ns INTEGER NOT NULL,
	waits     INTEGER NOT NULL,
	wait_ns   INTEGER NOT NULL
);

-- syscall_totals per bucket: the calls that began in it.
CREATE TABLE syscall_buckets (
	tid       INTEGER NOT NULL,
	syscall   TEXT NOT NULL,
	bucket_ns INTEGER NOT NULL,
	calls     INTEGER NOT NULL,
	errors    INTEGER,
	total_ns  INTEGER,
	max_ns    INTEGER
);

-- switch_totals per bucket: the switches that began in it (the state_causes
-- rows of switch_totals that began in it).
CREATE TABLE switch_buckets (
	from_tid    INTEGER NOT NULL,
	to_tid      INTEGER NOT NULL,
	at          TEXT,
	bucket_ns   INTEGER NOT NULL,
	count       INTEGER NOT NULL,
	function_id INTEGER
);

-- critical_path_totals per bucket: path_ns the time of the segments within
-- the bucket (clipped to it); segments, start_ns and end_ns of those that
-- begin in it (start_ns and end_ns NULL when none does).
CREATE TABLE critical_path_buckets (
	tid         INTEGER NOT NULL,
	state       TEXT NOT NULL,
	object_id   INTEGER,
	function_id INTEGER,
	bucket_ns   INTEGER NOT NULL,
	segments    INTEGER NOT NULL,
	path_ns     INTEGER NOT NULL,
	start_ns    INTEGER,
	end_ns      INTEGER
);

-- Where in the program's own code each recorded stack is (src/derived/program-frames.c):
-- for each stacks row that has, at or above it, a frame of the program's own
-- code, the innermost such frame. A frame is not the program's when its
-- function is in a library of the system (under /lib, /usr/lib), in mtx's
-- libmtx-preload.so, in no file ([vdso], [kernel]), or declared in a header of
-- the system (/usr/include, /usr/lib/gcc), even if its code was inlined into
-- the program or instantiated in it (std::mutex::lock, __gthread_mutex_lock,
-- std::vector<T>::emplace_back). A sync op with a stack (collect
-- --sync-stacks) was called from its stack's frame here, else from its call
-- site's (callsite_frames).
CREATE TABLE stack_frames (
	stack_id    INTEGER PRIMARY KEY, -- stacks.id
	function_id INTEGER NOT NULL,    -- functions.id of that frame
	file        TEXT,                -- where in that function the stack is (stacks.file
	line        INTEGER              -- and line of the frame's row); NULL unknown
);

-- The same for each sync call site (callsites): the program's frame among
-- the frames at the call site (callsites.stack_id: the function that holds
-- the call and those inlined there); when none is the program's (a call
-- made by a library of the system), the function that holds the call, the
-- library's function the program called (std::thread::join,
-- std::unique_lock<std::mutex>::unlock: not __gthread_mutex_unlock inlined
-- into it); in a run.db from before callsites.stack_id, the innermost one.
CREATE TABLE callsite_frames (
	pid         INTEGER NOT NULL,
	addr        INTEGER NOT NULL,    -- as in callsites and sync_ops.callsite
	function_id INTEGER NOT NULL,    -- functions.id
	file        TEXT,                -- where in that function the call is; NULL unknown
	line        INTEGER
);

-- Indexes last: analysis_build creates everything above, fills the tables,
-- then runs the rest of this file (from this comment on).
CREATE INDEX sync_totals_object ON sync_totals(object_id);
CREATE INDEX lock_holders_object ON lock_holders(object_id, wait_ns);
CREATE INDEX time_histograms_subject ON time_histograms(subject, subject_id, metric, bucket);
CREATE INDEX switch_totals_count ON switch_totals(count); -- the browser's first rows (the switches report's query)
CREATE INDEX callsite_frames_addr ON callsite_frames(pid, addr);
