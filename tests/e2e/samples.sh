# tests/e2e/samples.sh - run a sample plainly and under 'mtx collect' and
# check the run against what the sample reports about itself (sourced after
# lib.sh by test-collect-samples.sh and test-sync-uprobes.sh).
#
# check_sample NAME ARGS... runs $SAMPLES/NAME$SAMPLE_SUFFIX: the program's
# output and exit status are identical; run.db holds exactly the threads the
# sample created; each thread's states tile its lifetime; each thread's
# switches equal the kernel's own counters (voluntary + nonvoluntary context
# switches read by the thread itself just before it exits); and its sync
# operations, per thread, kind and op, equal the counts the sample kept.
# iobound's reads and writes also name their descriptor, of the right kind.
# check_calls DB CHECK compares exact calls with the counts of a sample that
# writes "call" lines (calltree, cxxcalls); check_list_functions checks what
# --list-functions lists; check_fork_calls, calls across a fork.
# COLLECT_OPTS: more options for mtx collect (words, split on spaces).
: "${SAMPLE_SUFFIX:=}"
: "${COLLECT_OPTS:=}"

# name and arguments: small problem sizes, the tests run them twice each.
# handlers is checked the same way by test-signal-handlers.sh, with more.
SAMPLE_RUNS="
philosophers 5
clientserver 6
crossroad 8
farm 3
barber 12 3
barber --leave
ring 3 40
race2 1000 50000
forkexec 5
iobound 3
signals 3
c11threads 4
"

check_sample() {
	local name=$1; shift
	local prog="$SAMPLES/$name$SAMPLE_SUFFIX" db="$TMP/$name.db" check="$TMP/$name.check.db"
	[ -x "$prog" ] || { fail "$name: sample not built ($prog)"; return; }
	rm -f "$TMP/$name.plain.sc" "$TMP/$name.mtx.sc" "$check" # from an earlier run of the same sample

	local plain_status mtx_status try
	# barber --leave prints who was served and who left, which 10 ms
	# margins decide: a VM that stalls a thread for longer changes it,
	# plain or traced. So a second pair of runs, never a third.
	for try in 1 2; do
		rm -f "$TMP/$name.plain.sc" "$TMP/$name.mtx.sc"
		MTX_SELFCHECK="$TMP/$name.plain.sc" "$prog" "$@" > "$TMP/$name.plain.out" 2>/dev/null
		plain_status=$?
		# shellcheck disable=SC2086
		MTX_SELFCHECK="$TMP/$name.mtx.sc" "$MTX" collect -q $COLLECT_OPTS -o "$db" -- "$prog" "$@" > "$TMP/$name.mtx.out" 2>"$TMP/$name.mtx.err"
		mtx_status=$?
		cmp -s "$TMP/$name.plain.out" "$TMP/$name.mtx.out" && break
		[ "$try" = 1 ] && [ "$name $*" = "barber --leave" ] && echo "note: $name $*: output differs under mtx, runs again" ||
			break
	done

	[ "$plain_status" = "$mtx_status" ] || fail "$name: exit status $mtx_status under mtx, $plain_status without"
	cmp -s "$TMP/$name.plain.out" "$TMP/$name.mtx.out" || fail "$name: output differs under mtx"
	[ -s "$db" ] || { fail "$name: no database ($(head -1 "$TMP/$name.mtx.err"))"; return; }

	cp "$db" "$check"
	import_selfcheck "$TMP/$name.mtx.sc" "$check"

	local complete lost
	complete=$(sql "$check" "SELECT value FROM meta WHERE key = 'complete'")
	[ "$complete" = 1 ] || fail "$name: run not marked complete"
	lost=$(sql "$check" "SELECT SUM(value) FROM meta WHERE key LIKE 'lost_%'")
	[ "$lost" = 0 ] || fail "$name: $lost records lost"

	# Thread counts: the tids the sample reported are exactly the traced ones.
	local missing extra
	missing=$(sql "$check" "SELECT COUNT(DISTINCT tid) FROM sc_thread WHERE tid NOT IN (SELECT tid FROM threads)")
	extra=$(sql "$check" "SELECT COUNT(DISTINCT tid) FROM threads WHERE tid NOT IN (SELECT tid FROM sc_thread)")
	[ "$missing" = 0 ] && [ "$extra" = 0 ] || fail "$name: threads differ ($missing missing, $extra extra)"
	[ "$(sql "$check" "SELECT COUNT(DISTINCT tid) FROM sc_thread")" -gt 0 ] || fail "$name: the sample reported no thread"

	# Tiling: states sum to each lifetime, and each interval starts where
	# the previous one ended.
	local bad_sum bad_gap
	bad_sum=$(sql "$check" "SELECT COUNT(*) FROM threads t WHERE t.end_ns - t.start_ns <> (SELECT TOTAL(end_ns - start_ns) FROM thread_states s WHERE s.tid = t.tid AND s.start_ns >= t.start_ns AND s.end_ns <= t.end_ns)")
	bad_gap=$(sql "$check" "SELECT COUNT(*) FROM (SELECT tid, start_ns, LAG(end_ns) OVER (PARTITION BY tid ORDER BY start_ns) AS prev_end FROM thread_states) WHERE prev_end IS NOT NULL AND prev_end <> start_ns")
	[ "$bad_sum" = 0 ] && [ "$bad_gap" = 0 ] || fail "$name: states do not tile lifetimes ($bad_sum sums, $bad_gap gaps)"

	# Context switches: the kernel's count lies between the switches
	# recorded before the thread's two timestamps around the read. The
	# launched program's first thread also carries the switches it made
	# before its exec, where tracing began: meta root_switches_at_exec, read
	# between root_switches_read_from_ns and _to_ns, by which time the trace
	# may already hold a switch of its own — hence a low and a high bound.
	# The low bound gives one switch more: the kernel raises the counter
	# the read sees before the tracepoint stamps the switch, and a vCPU
	# preempted in between can stamp it after the read (seen once, cxxcalls
	# under a loaded make check: kernel 3, 2 before exec, 2 recorded).
	local bad_csw
	sql "$check" "CREATE TABLE sc_csw AS SELECT c.tid, c.role, c.nvcsw + c.nivcsw AS kernel, 0 AS pre_low, 0 AS pre_high,
		(SELECT COUNT(*) FROM switches s WHERE s.prev_tid = c.tid AND s.ts_ns < c.ts_before) AS before,
		(SELECT COUNT(*) FROM switches s WHERE s.prev_tid = c.tid AND s.ts_ns < c.ts_after) AS after
		FROM sc_thread c WHERE c.nvcsw >= 0;
		UPDATE sc_csw SET
		pre_low = (SELECT value FROM meta WHERE key = 'root_switches_at_exec') - 1 - (SELECT COUNT(*) FROM switches s WHERE s.prev_tid = sc_csw.tid AND s.ts_ns < (SELECT value FROM meta WHERE key = 'root_switches_read_to_ns')),
		pre_high = (SELECT value FROM meta WHERE key = 'root_switches_at_exec') - (SELECT COUNT(*) FROM switches s WHERE s.prev_tid = sc_csw.tid AND s.ts_ns < (SELECT value FROM meta WHERE key = 'root_switches_read_from_ns'))
		WHERE tid = (SELECT MIN(pid) FROM processes WHERE ppid IS NULL) AND role <> 'exec-main'"
	bad_csw=$(sql "$check" "SELECT COUNT(*) FROM sc_csw WHERE NOT (before <= kernel - pre_low AND kernel - pre_high <= after)")
	if [ "$bad_csw" != 0 ]; then
		fail "$name: switch counts differ from the kernel's for $bad_csw threads"
		sql "$check" "SELECT * FROM sc_csw WHERE NOT (before <= kernel - pre_low AND kernel - pre_high <= after) LIMIT 5"
	fi
	# Sync operations: per thread, kind and op, run.db holds exactly the
	# calls the sample counted (both directions: nothing missing, nothing
	# extra). The sample counts only the calls it makes itself; its
	# mtx_phase calls (kind phase, op mark) are phases rows.
	local bad_ops
	sql "$check" "CREATE TABLE sc_cmp AS
		SELECT tid, kind, op, SUM(sc) AS sc, SUM(db) AS db FROM (
			SELECT tid, kind, op, count AS sc, 0 AS db FROM sc_op
			UNION ALL SELECT tid, kind, op, 0, calls FROM sync_usage
			UNION ALL SELECT tid, 'phase', 'mark', 0, COUNT(*) FROM phases WHERE source = 'call' GROUP BY tid)
		GROUP BY tid, kind, op"
	bad_ops=$(sql "$check" "SELECT COUNT(*) FROM sc_cmp WHERE sc <> db")
	if [ "$bad_ops" != 0 ]; then
		fail "$name: sync op counts differ from the sample's for $bad_ops (thread, kind, op)"
		sql "$check" "SELECT * FROM sc_cmp WHERE sc <> db LIMIT 8"
	fi
	[ "$(sql "$check" "SELECT COUNT(*) FROM sc_op")" -gt 0 ] || fail "$name: the sample reported no sync op"

	# User and kernel time stamps interleave: a thread calls and returns
	# from a sync function while it is on a CPU, so every op's start and end
	# fall inside a running interval of its thread. States tile a thread's
	# life, so the ones holding an instant are the last few to start by
	# then (several only where zero-length ones meet): four are looked at,
	# an index seek each, not every earlier state (millions of ops).
	local off_cpu
	off_cpu=$(sql "$check" "SELECT COUNT(*) FROM sync_ops o WHERE
		NOT EXISTS (SELECT 1 FROM (SELECT state, end_ns FROM thread_states s WHERE s.tid = o.tid
			AND s.start_ns <= o.start_ns ORDER BY s.start_ns DESC LIMIT 4)
			WHERE state = 'running' AND end_ns >= o.start_ns)
		OR NOT EXISTS (SELECT 1 FROM (SELECT state, end_ns FROM thread_states s WHERE s.tid = o.tid
			AND s.start_ns <= o.end_ns ORDER BY s.start_ns DESC LIMIT 4)
			WHERE state = 'running' AND end_ns >= o.end_ns)")
	[ "$off_cpu" = 0 ] || fail "$name: $off_cpu sync ops start or end while their thread is off the CPU"

	# The join: each thread's blocked_sync time is the wait of its ops.
	local bad_wait
	bad_wait=$(sql "$check" "SELECT COUNT(*) FROM threads t WHERE
		(SELECT TOTAL(wait_ns) FROM sync_ops o WHERE o.tid = t.tid AND o.start_ns >= t.start_ns AND o.end_ns <= t.end_ns) <>
		(SELECT TOTAL(end_ns - start_ns) FROM thread_states s WHERE s.tid = t.tid AND s.state = 'blocked_sync'
			AND s.start_ns >= t.start_ns AND s.end_ns <= t.end_ns)")
	[ "$bad_wait" = 0 ] || fail "$name: blocked_sync time differs from the ops' wait for $bad_wait threads"

	[ "$name" = iobound ] && check_iobound_fds "$check"
	[ "$FAILED" = 0 ] && pass "$name $*"
}

# iobound's bulk reads and writes (the (thread, call, fd) groups of 100 rows
# or more) carry their descriptor and, where the collector could tell, its
# kind: writers write their files, readers read their files and write the
# pipe, the consumer reads the pipe. A kind may be unknown, never wrong:
# the collector reads /proc up to a poll interval (100 ms) after the calls,
# by when iobound's short phases may have closed the file, or even put the
# pipe under the same number (which the collector must notice).
check_iobound_fds() {
	local db=$1 no_fd wrong
	sql "$db" "CREATE TABLE sc_fd AS
		SELECT t.name AS thread, s.name AS call, s.fd, s.fd_kind AS kind, COUNT(*) AS n
		FROM syscalls s JOIN threads t ON t.tid = s.tid AND s.start_ns BETWEEN t.start_ns AND t.end_ns
		WHERE s.name IN ('read', 'write') GROUP BY 1, 2, 3, 4;
		CREATE TABLE sc_fd_want AS
		SELECT thread, call, fd, CASE WHEN thread = 'consumer' OR (thread LIKE 'reader-%' AND call = 'write')
			THEN 'pipe' ELSE 'file' END AS kind
		FROM sc_fd GROUP BY 1, 2, 3 HAVING SUM(n) >= 100"
	no_fd=$(sql "$db" "SELECT TOTAL(n) FROM sc_fd WHERE fd IS NULL")
	wrong=$(sql "$db" "SELECT COUNT(*) FROM sc_fd g JOIN sc_fd_want w USING (thread, call, fd) WHERE g.kind <> w.kind")
	[ "$no_fd" = 0.0 ] || fail "iobound: $no_fd reads or writes without their fd"
	[ "$(sql "$db" "SELECT COUNT(*) FROM sc_fd_want")" -ge 4 ] || fail "iobound: its bulk reads and writes are missing"
	if [ "$wrong" != 0 ]; then
		fail "iobound: $wrong (thread, call, fd) groups with a wrong fd_kind"
		sql "$db" "SELECT g.*, w.kind AS want FROM sc_fd g JOIN sc_fd_want w USING (thread, call, fd) WHERE g.kind <> w.kind LIMIT 8"
	fi
}

# check_calls DB CHECK [LIKE] - the calls of DB against the sample's own
# counts (CHECK: a copy of DB with the self-check imported). Unfinished calls
# must be exactly the ones the sample left open, marked thread_exit. With
# LIKE (an SQL LIKE pattern), only calls of the functions it matches are
# compared, a caller it does not match counting as '-' (a -pg build, where
# every function of the program is recorded).
check_calls() {
	local db=$1 check=$2 like=${3:-%} bad
	[ "$(sql "$db" "SELECT value FROM meta WHERE key = 'lost_functions'")" = 0 ] || fail "$db: function hits lost"
	[ "$(sql "$db" "SELECT value FROM meta WHERE key = 'calls_unmatched_returns'")" = 0 ] ||
		fail "$db: returns without their entry"
	[ "$(sql "$db" "SELECT COUNT(*) FROM calls")" -gt 0 ] || { fail "$db: no calls recorded"; return; }
	# Per thread and (caller, callee), both ways: nothing missing or extra.
	sql "$check" "CREATE TABLE cmp_calls AS
		SELECT tid, caller, callee, SUM(sc) AS sc, SUM(db) AS db FROM (
			SELECT tid, caller, callee, count AS sc, 0 AS db FROM sc_call
			UNION ALL SELECT c.tid, CASE WHEN pf.name LIKE '$like' THEN pf.name ELSE '-' END, f.name, 0,
				COUNT(*) FROM calls c
			JOIN functions f ON f.id = c.function_id
			LEFT JOIN calls p ON p.id = c.parent_id LEFT JOIN functions pf ON pf.id = p.function_id
			WHERE f.name LIKE '$like'
			GROUP BY 1, 2, 3)
		GROUP BY 1, 2, 3"
	bad=$(sql "$check" "SELECT COUNT(*) FROM cmp_calls WHERE sc <> db")
	if [ "$bad" != 0 ]; then
		fail "$db: calls differ from the sample's for $bad (thread, caller, callee)"
		sql "$check" "SELECT * FROM cmp_calls WHERE sc <> db LIMIT 8"
	fi
	[ "$(sql "$check" "SELECT COUNT(*) FROM sc_call")" -gt 0 ] || fail "$db: the sample reported no call"
	# Nesting: a child is its parent's thread, one level deeper, inside it.
	bad=$(sql "$db" "SELECT COUNT(*) FROM calls c LEFT JOIN calls p ON p.id = c.parent_id WHERE
		(p.id IS NULL AND (c.parent_id IS NOT NULL OR c.depth <> 0)) OR
		(p.id IS NOT NULL AND (p.tid <> c.tid OR c.depth <> p.depth + 1 OR c.start_ns < p.start_ns
			OR c.end_ns > p.end_ns)) OR c.end_ns < c.start_ns")
	[ "$bad" = 0 ] || fail "$db: $bad calls not nested in their parent"
	# Unfinished: exactly the sample's open calls, per thread.
	bad=$(sql "$check" "SELECT COUNT(*) FROM (SELECT tid, SUM(n) AS n FROM (
		SELECT tid, count AS n FROM sc_open UNION ALL
		SELECT tid, -COUNT(*) FROM calls WHERE unfinished = 'thread_exit' GROUP BY tid) GROUP BY tid) WHERE n <> 0")
	[ "$bad" = 0 ] || fail "$db: unfinished calls differ from the sample's open ones for $bad threads"
	bad=$(sql "$db" "SELECT COUNT(*) FROM calls WHERE unfinished IS NOT NULL AND unfinished <> 'thread_exit'")
	[ "$bad" = 0 ] || fail "$db: $bad calls closed for another reason than their thread's end"
}

# check_list_functions PROG PATTERN NAME... - mtx collect --list-functions
# PATTERN -- PROG lists exactly the functions NAME... (in any order) and
# says how many; its stderr is left in list.err.
check_list_functions() {
	local prog=$1 pattern=$2 want
	shift 2
	want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
	"$MTX" collect --list-functions "$pattern" -- "$prog" > list.out 2> list.err ||
		fail "--list-functions '$pattern' exited $?"
	[ "$(head -n -1 list.out | awk '{ print $1 }' | sort | tr '\n' ' ')" = "$want" ] ||
		fail "--list-functions '$pattern' listed: $(cat list.out)"
	[ "$(tail -1 list.out)" = "$# functions match '$pattern'" ] || fail "--list-functions count line: $(tail -1 list.out)"
}

# check_fork_calls PROGRAM OPTION... - run tests/e2e/forkcalls (PROGRAM:
# its plain or -pg build) alone and under mtx collect OPTION...: same
# output and status, and each of its two processes shows main > work >
# leaf, every return matched (the child's calls begin at the fork).
check_fork_calls() {
	local prog=$1 db got
	shift
	db="$TMP/$(basename "$prog").db"
	collect_same "$db" "$@" -- "$prog"
	[ "$(sql "$db" "SELECT value FROM meta WHERE key = 'calls_unmatched_returns'")" = 0 ] ||
		fail "$prog: returns without their entry in the forked child"
	got=$(sql "$db" "SELECT GROUP_CONCAT(chain, ' ') FROM (SELECT GROUP_CONCAT(f.name, '>') AS chain
		FROM (SELECT * FROM calls WHERE unfinished IS NULL ORDER BY tid, depth) c
		JOIN functions f ON f.id = c.function_id GROUP BY c.tid)")
	[ "$got" = "main>work>leaf main>work>leaf" ] || fail "$prog: the calls of its two processes are '$got'"
}
