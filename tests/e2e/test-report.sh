#!/bin/bash
# tests/e2e/test-report.sh - every report of 'mtx report' on the fixture
# run of tests/fixtures/waits.sql, compared with the output expected in
# tests/fixtures/reports/ (one file per command line; each figure in them
# is worked out from the fixture by hand, see its header and
# tests/unit/test-state-causes.c). Also: the formats, the filters, bad
# input, and that a read-only run.db is reported on without being changed.
# No perf needed: the fixture is made by tests/fixture-db.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 (the CLI) is not installed"
EXPECTED=$srcdir/tests/fixtures/reports
cd "$TMP" || exit 1

for f in waits profile calls reuse cxx-frames overhead external; do
	"$BUILDDIR/tests/fixture-db" "$srcdir/tests/fixtures/$f.sql" $f.db || { fail "fixture-db $f"; finish; }
done

# check NAME ARGS... - 'mtx report $DB ARGS' prints reports/NAME.txt
# (DB: waits.db unless given, as in DB=profile.db check ...; CMD: another
# command than report, as in CMD=diagnose check ...). With
# MTX_REPORT_UPDATE=1 a differing output replaces reports/NAME.txt instead
# (then read every changed line of its diff).
check() {
	local name=$1
	shift
	"$MTX" "${CMD:-report}" "${DB:-waits.db}" "$@" > "$name.out" 2> "$name.err"
	local status=$?
	if [ $status != 0 ]; then
		fail "report $* exited $status: $(head -1 "$name.err")"
	elif [ -n "${MTX_REPORT_UPDATE:-}" ] && ! cmp -s "$name.out" "$EXPECTED/$name.txt"; then
		cp "$name.out" "$EXPECTED/$name.txt"
		echo "updated reports/$name.txt: look at its diff"
	elif ! diff -u "$EXPECTED/$name.txt" "$name.out" > "$name.diff"; then
		fail "report $* differs from reports/$name.txt:"
		head -40 "$name.diff"
	else
		pass "report $*"
	fi
}

# -v on a run.db without derived tables says how long each step took.
cp waits.db verbose.db
if ! "$MTX" report -v verbose.db threads > verbose.out 2> verbose.err; then
	fail "report -v exited non-zero: $(head -1 verbose.err)"
elif ! diff -q "$EXPECTED/threads.txt" verbose.out > /dev/null; then
	fail "report -v threads differs from reports/threads.txt"
elif ! grep -q "derived tables: state_causes done at [0-9]* ms" verbose.err ||
	! grep -q "derived tables: indexed at [0-9]* ms" verbose.err; then
	fail "report -v did not time the derived tables' steps: $(cat verbose.err)"
elif ! grep -q "^mtx: report threads: [0-9]* ms$" verbose.err; then
	fail "report -v did not time the report's section: $(cat verbose.err)"
else
	pass "report -v times the derived build and the report"
fi
check threads threads
# phase 0 alone (the fixture marks none): the threads above, weighted by lifetime;
# cut at 300 us, each part the threads report over its window
check phases phases
check phases-at phases --phases-at 300us
check sync sync
check locks locks
# 300-400 us: worker-b's lock (250-390 us: begun before the window, found
# from its start less worker-b's longest call) and worker-a's unlock.
check locks-window locks --from 300us --to 400us
check object object 0x1000
# mtx diagnose: the threads' lifetimes are 1000 + 800 + 800 = 2600 us, in
# which they ran 270 + 740 + 490 = 1500 us (CPUbound 0.58 > 0.30), waited for
# a CPU 30 + 10 + 70 = 110 us (0.04), on I/O 50 us (0.02), and were in a
# lock's calls 1 + 140 = 141 us (0.05): CPUbound alone holds; refined along
# /Process: pid 100 (0.58), then main 270/1000 = 0.27 (false), worker-a
# 740/800 = 0.925 and worker-b 490/800 = 0.6125. Those two hold 1230 of the
# 1500 us, under 90%: they are singled out, the findings, with 740/2600 =
# 28.5% and 490/2600 = 18.8%. The root's four children are tested first
# (priority 1, by name), then /Process/100 (0.58 - 0.30), then its threads
# by name: 8 tests. No samples: no /Code; CPUbound is not searched by CPU
# (/Machine: ExcessiveCPUWait only, false here).
CMD=diagnose check diagnose
CMD=diagnose check diagnose-flip --set PC_CPUThreshold=0.95
# report metric, the same figures: at / over the run's 1000 us, cpu 1500 us
# (rate 1.5 threads at once, normalized 1500/2600 = 0.5769), sync_wait 141
# us, io_wait 50, cpu_wait 110; io_ops 1 read of 10 bytes (1000 and 10000
# a second of the run, 384.6 and 3846.2 a second of the threads'
# lifetimes). worker-a (800 us of life): cpu 740 (0.925), sync_wait 1 us
# (0.00125), io_wait 50, cpu_wait 10, its read (1250 a thread-second). At
# the mutex 0x1000, the two lock calls 1 + 140 = 141 us of all 2600.
check metric metric
check metric-thread-csv metric --focus /Process/100/worker-a --format csv
check metric-object-json metric sync_wait --focus /SyncObject/mutex/0x1000 --format json
# On a CPU (/Machine): cpu1 ran main 80 + 90 and worker-b 40 + 100 + 350:
# 660 us (0.2538 of the 2600); each wait for a CPU is on the CPU that then
# ran the thread: cpu1 holds main's 20 + 10 and worker-b's 60 + 10 = 100
# us (0.0385), cpu0 worker-a's 10. worker-b alone on cpu0: none.
check metric-machine-csv metric cpu_wait --focus /Machine/cpu1 --format csv
check metric-machine metric cpu --focus /Machine/cpu1
check metric-machine-thread metric cpu --focus '/Machine/cpu0,/Process/100/worker-b' --format csv
# At a function, inclusive, by samples (tests/fixtures/profile.sql): main
# runs 9 ms, hash on 3 of its 4 samples' stacks: 6.75 ms; worker runs 8.5
# ms, hash on 5 of its 7 samples: 6.07 ms; 12.82 ms of the 18.5 ms of
# their lifetimes (0.6931), over the run's 10 ms (1.2821). worker alone:
# 6.07 of 8.5 ms (0.7143).
DB=profile.db check metric-code metric cpu --focus /Code/app/hash
DB=profile.db check metric-code-thread metric cpu --focus /Code/app/hash,/Process/200/worker
# mtx diagnose along the call graph of those stacks: main called work,
# work hash, hash [kernel], start_thread work; hash>work (the recursion)
# goes back up a path from main and is dropped. CPUbound at / 17.5/18.5 =
# 0.95; from the root to the outermost functions: main 9 ms (0.49),
# start_thread 6 of worker's 7 samples, 7.29 ms (0.39); then work 9 +
# 7.29 = 16.29 ms (0.88), reached from both, one node; then hash 12.82 ms
# (0.69) and [kernel] 2.25 ms (0.12, false). hash is refined along
# /Process, spread over main (6.75/10 = 0.68) and worker (6.07/8.5 =
# 0.71), which hold all of it: the one finding is hash in the process,
# 69.3%. By module, then function (callgraph_search=0), no function
# refines another: main, work, hash and start_thread are four findings.
DB=profile.db CMD=diagnose check diagnose-calls
DB=profile.db CMD=diagnose check diagnose-modules --set callgraph_search=0
# G^I: main creates worker-a and -b (create edges), worker-a's unlock at
# 390 us hands the mutex to worker-b's lock (lock), its exit ends the join.
check hb hb
# A C++ program's ops, switches and waits where its own code made them
# (tests/fixtures/cxx-frames.sql): never in an inlined header's function.
DB=cxx-frames.db check object-cxx-csv object 0x4000 --format csv
DB=cxx-frames.db check sync-cxx sync
DB=cxx-frames.db check waits-cxx waits
DB=cxx-frames.db check switches-cxx switches
check object-by-id object 1
check object-limit object 0x1000 --limit 2
check switches switches
check states states
check states-window states --from 300us --to 400us
# From 300 to 400 us, the waits of main (200-900) and worker-b (250-390)
# and main's state then began before the window: each thread's rows are
# read from its last one begun by the window's start (TILE_FROM), not
# from the window's start. main: 100% sync; worker-a: read 300-350,
# runnable 350-360, running 360-400; worker-b: sync to 390, runnable.
check threads-window threads --from 300us --to 400us
check waits-window waits --from 300us --to 400us
check switches-window switches --from 300us --to 400us
# main's join (200-905) and worker-b's lock (250-390) began before the
# window: a thread's calls are read from the window's start less its
# longest (sync_totals.max_ns), as calls can nest.
check sync-window sync --from 300us --to 400us
check waits waits
check waits-worker-b waits --thread worker-b
# --function keeps the where-section's rows of the matching functions:
# take_m (worker-a took M there), not finish (its exit op).
check waits-function waits --function '^take'
check critical-path critical-path
check histogram histogram
# 300-400 us: the 32 us buckets 9-12 (288-416 us), whole, shown from the
# first: worker-b blocked to 390, runnable to 400, then running (16 us of
# bucket 12); worker-a read 300-350, runnable 350-360, then running.
check histogram-window histogram --from 300us --to 400us
check threads-csv threads --format csv
check sync-json sync --format json --thread 102
# One address, two lifetimes (tests/fixtures/reuse.sql): a row for the
# address in each per-object report, its lifetimes added up; by id, one.
DB=reuse.db check locks-reuse locks
DB=reuse.db check locks-reuse-id locks --object 2
DB=reuse.db check waits-reuse waits
DB=reuse.db check critical-path-reuse critical-path
DB=reuse.db check histogram-reuse histogram --object 0x2000
DB=reuse.db check object-reuse object 0x2000
# What was on when (tests/fixtures/waits.sql's instrumentation rows, by
# hand: probe 1's 50 calls at 2 us over its 400 us window are 25% of a CPU)
check instrumentation instrumentation

# Seed 004's external events (tests/fixtures/external.sql): what woke
# each thread from outside, one case of the view's each.
DB=external.db check external external
DB=external.db check external-thread-csv external --thread 3102 --format csv
# Seed 004's Table I (tests/fixtures/overhead.sql): the "all" row is
# Σ(cpu - without) / Σ without, 8.7%, not the mean of the rows.
DB=overhead.db check overhead overhead
DB=overhead.db check overhead-csv overhead --format csv
# overhead_case DB SQL ROWS EXPECTED WHAT - the overhead fixture changed
# by SQL into DB: its CSV report's rows matching ROWS (grep -E) must be
# EXPECTED.
overhead_case() {
	local got
	cp overhead.db "$1"
	if ! sqlite3 "$1" "$2"; then
		fail "could not change the overhead fixture for: $5"
		return
	fi
	got=$("$MTX" report "$1" overhead --format csv 2> /dev/null | grep -E "$3")
	[ "$got" = "$4" ] && pass "overhead: $5" || fail "overhead: $5: got $got"
}
# A calibrated source adds its records' cost to each thread: Philo.1's
# two switch records at 500 ns each, 1 us more of instr_time.
overhead_case calibrated.db "INSERT INTO meta VALUES ('cal_switches_ns', '500')" '^(2101,|,all,|switch records,)' \
	"$(printf '2101,Philo.1,29964934,9923016,20041918,49.5\n,all,543055150,43462756,499592394,8.7\nswitch records,2,500,1000,calibrated at the start')" \
	"a calibrated source's records count per thread"
# Interrupt handlers that ran while a thread ran are not its CPU time:
# 2 ms of them on CPU 0 after the fixture's switch from Philo.1 to Philo.3
# take 2 ms off Philo.3's cpu_time and cpu_without.
overhead_case irq.db "INSERT INTO interrupts VALUES (0, 1050000000, 1052000000, 'irq', 36, 'virtio0')" '^2103,' \
	"2103,Philo.3,159459044,8398598,151060446,5.6" "interrupt time inside a thread's running time is taken out"
# Costs past a thread's CPU time (Philo.1's two switch records at 15 ms
# each, 30 ms more than its 20.04 ms without) give no percentage, not a
# huge or negative one.
overhead_case overcharged.db "INSERT INTO meta VALUES ('cal_switches_ns', '15000000')" '^2101,' \
	"2101,Philo.1,29964934,39922016,-9957082," "no percentage when instrumentation reaches the CPU time"
# A run.db made before mtx recorded interrupts (no table) reads as one
# without any.
cp overhead.db noirq.db
sqlite3 noirq.db "DROP TABLE interrupts" &&
	diff <("$MTX" report overhead.db overhead 2>&1) <("$MTX" report noirq.db overhead 2>&1) > noirq.diff &&
	pass "overhead: a run.db without the interrupts table reads as one without interrupts" ||
	fail "overhead on a run.db without interrupts: $(head -3 noirq.diff)"
# --cycles, seed 004's unit: at a TSC of 1 GHz a cycle is a ns, and the
# table is the paper's Table I, cycle for cycle (the fixture's header).
cp overhead.db cycles.db
sqlite3 cycles.db "INSERT INTO meta VALUES ('tsc_hz', '1000000000')"
DB=cycles.db check overhead-cycles overhead --cycles
# At 3 GHz every duration is three times its ns, in every row of both
# tables (x_ns headed x_cycles), and the percentages are the same.
cp overhead.db cycles3.db
sqlite3 cycles3.db "INSERT INTO meta VALUES ('tsc_hz', '3000000000')"
"$MTX" report cycles3.db overhead --format csv > ns.csv 2> /dev/null
"$MTX" report cycles3.db overhead --cycles --format csv > cycles.csv 2> /dev/null
if [ "$(wc -l < ns.csv)" -gt 10 ] && [ "$(wc -l < ns.csv)" = "$(wc -l < cycles.csv)" ] &&
	paste -d '|' ns.csv cycles.csv | awk -F'|' '{ n = split($1, a, ","); split($2, b, ",")
		for (i = 1; i <= n; i++) if (a[i] != b[i] && !(a[i] ~ /^[0-9]+$/ && b[i] == 3 * a[i]) &&
			!(a[i] ~ /_ns$/ && b[i] == substr(a[i], 1, length(a[i]) - 3) "_cycles")) bad = bad " " NR ":" i }
		END { if (bad != "") { print "cells:" bad; exit 1 } }'; then
	pass "overhead --cycles: each duration x 3 at 3 GHz, the rest the same"
else
	fail "overhead --cycles at 3 GHz: $(paste -d '|' ns.csv cycles.csv | head -3)"
fi
"$MTX" report cycles3.db overhead --cycles --format json > cycles.json 2> /dev/null &&
	grep -q '"cpu_time_cycles": 89894802' cycles.json && pass "overhead --cycles --format json" ||
	fail "overhead --cycles --format json: $(head -3 cycles.json)"
# Without the TSC's rate: one line, exit 1; on another report: exit 2.
"$MTX" report overhead.db overhead --cycles > nocycles.out 2> nocycles.err
status=$?
[ $status = 1 ] && [ ! -s nocycles.out ] && [ "$(wc -l < nocycles.err)" = 1 ] && grep -q 'meta tsc_hz' nocycles.err &&
	pass "overhead --cycles without the TSC's rate: one line, exit 1" ||
	fail "overhead --cycles without tsc_hz: exit $status, $(cat nocycles.out nocycles.err)"
"$MTX" report overhead.db threads --cycles > /dev/null 2>&1
status=$?
[ $status = 2 ] && pass "threads --cycles: exit 2" || fail "threads --cycles: exit $status, not 2"
# A run.db made before mtx measured overhead says so in one line, exit 1.
"$MTX" report waits.db overhead > unmeasured.out 2> unmeasured.err
status=$?
[ $status = 1 ] && [ ! -s unmeasured.out ] && [ "$(wc -l < unmeasured.err)" = 1 ] &&
	grep -q "overhead was not measured in that run" unmeasured.err &&
	pass "overhead: a run without it says it was not measured" ||
	fail "overhead on a run without it: exit $status, $(cat unmeasured.err)"
# A joined thread wakes its joiner as it exits, where it records no op:
# without worker-a's exit op, main's join was woken at "(exit)".
cp waits.db noexit.db
if ! sqlite3 noexit.db "DELETE FROM sync_ops WHERE id = 8; DELETE FROM meta WHERE key = 'derived_version'"; then
	fail "could not remove the waits fixture's exit op"
else
	DB=noexit.db check waits-noexit waits --thread main
fi
# A cond wait woken by the unlock of its mutex: worker-b's wait for M
# made a wait on cond C (0x2000) with M as its mutex, and worker-a's
# unlock of M moved to end 1 us before the wakeup (as the release is
# stamped before the call wakes), in drop_m. Its where-row names drop_m,
# as the unlocker's last op on C would be named (it has none).
cp waits.db condwait.db
if ! sqlite3 condwait.db "INSERT INTO sync_objects (id, kind, addr, pid, created_ns) VALUES (4, 'cond', 8192, 100, 1000000000);
	UPDATE sync_ops SET object_id = 4, op = 'wait', arg = 1, holder_tid = NULL, hold_ns = NULL WHERE id = 4;
	UPDATE thread_states SET object_id = 4 WHERE tid = 102 AND state = 'blocked_sync';
	UPDATE sync_ops SET start_ns = 1000388000, end_ns = 1000389000 WHERE id = 5;
	INSERT INTO functions (id, name, module) VALUES (3, 'drop_m', '/app');
	INSERT INTO callsites (pid, addr, function_id) VALUES (100, 2064, 3);
	DELETE FROM meta WHERE key = 'derived_version'"; then
	fail "could not make the waits fixture's lock wait a cond wait"
else
	where=$("$MTX" report condwait.db waits --thread worker-b --format csv 2> /dev/null |
		awk 'BEGIN { RS = "" } /^for_tid,for_name,relation,function,/ { print }')
	[ "$where" = "$(printf 'for_tid,for_name,relation,function,source,waits,wait_ns\n101,worker-a,waker,drop_m,,1,140000')" ] &&
		pass "waits: a cond wait woken by its mutex's unlocker is where that unlock was" ||
		fail "waits: a cond wait woken by its mutex's unlocker gave where $where"
fi
# The histogram's objects come busiest first, not in the order they were
# made: one more op on worker-a's thread object (0xa, id 2) ties it with
# M (0x1000: 4 ops), and its 700 us of join wait beat M's 140 us.
cp waits.db busy.db
if ! sqlite3 busy.db "INSERT INTO sync_ops (id, tid, object_id, op, start_ns, end_ns, blocked, wait_ns, result, arg,
		callsite) VALUES (9, 100, 2, 'detach', 1000910000, 1000910000, 0, 0, 0, NULL, 1072);
		DELETE FROM meta WHERE key = 'derived_version'"; then
	fail "could not add an op to the waits fixture"
else
	order=$("$MTX" report busy.db histogram --format csv 2> /dev/null |
		awk -F, '$1 == "pid" && $2 == "addr" { on = 1; next } on && $2 != last { printf "%s ", $2; last = $2 }')
	[ "$order" = "0xa 0x1000 0xb " ] && pass "histogram: objects by ops, then wait" ||
		fail "histogram's objects in the order '$order', not 0xa 0x1000 0xb"
fi
# An address's metrics stay together, ops first, even when one lifetime
# had its ops and another its waits: 0xa's ops moved to a later lifetime
# (id 4) while the join wait stays on id 2.
cp waits.db lifetimes.db
if ! sqlite3 lifetimes.db "INSERT INTO sync_objects (id, kind, addr, pid, created_ns) VALUES (4, 'thread', 10, 100, 1000905000);
		UPDATE sync_ops SET object_id = 4 WHERE object_id = 2; DELETE FROM meta WHERE key = 'derived_version'"; then
	fail "could not split the waits fixture's thread object"
else
	order=$("$MTX" report lifetimes.db histogram --format csv 2> /dev/null | awk -F, '$2 == "0xa" { printf "%s ", $4 }')
	[ "$order" = "ops wait_ns " ] && pass "histogram: an address's metrics together, ops first, across lifetimes" ||
		fail "histogram: 0xa's metrics in the order '$order', not ops wait_ns"
fi
# Numbers too wide for 80 columns with two blanks between columns get one
# (and, in a file, are cut no more than text: test-report-ux.sh).
cp reuse.db wide.db
if ! sqlite3 wide.db "UPDATE sync_totals SET calls = calls * 1000000; UPDATE sync_objects SET addr = 0x55d0c0c04600"; then
	fail "could not widen the reuse fixture's numbers"
else
	DB=wide.db check locks-wide locks
fi
# A forked child has its objects at its parent's addresses: the second
# lifetime made the child's, the two rows are told apart by their pid.
cp reuse.db forked.db
if ! sqlite3 forked.db "UPDATE sync_objects SET pid = 300 WHERE id = 2"; then
	fail "could not give the reuse fixture's second lifetime to another process"
else
	DB=forked.db check locks-forked locks
	# The child's ops (made to overlap the parent's in time) follow the
	# parent's: the history goes lifetime by lifetime.
	sqlite3 forked.db "UPDATE sync_ops SET start_ns = start_ns - 460000, end_ns = end_ns - 460000 WHERE object_id = 2;
		UPDATE sync_objects SET created_ns = created_ns - 460000 WHERE id = 2" &&
		DB=forked.db check object-forked object 0x2000
fi
# Objects named as mtx collect names them (sync_objects.name): each report
# shows the name; object (and --object) takes it as well as the address.
# A name no object has, or objects at two addresses share, is an error.
cp waits.db named.db
if ! sqlite3 named.db "UPDATE sync_objects SET name = 'm_lock' WHERE id = 1;
		UPDATE sync_objects SET name = 'thread 101' WHERE id = 2"; then
	fail "could not name the waits fixture's objects"
else
	DB=named.db check locks-named locks
	DB=named.db check object-named object m_lock
	DB=named.db check waits-named waits --object 'thread 101'
	DB=named.db check states-named states --thread worker-b
	if "$MTX" report named.db object nosuch > nosuch.out 2> nosuch.err || [ -s nosuch.out ] ||
		[ "$(wc -l < nosuch.err)" != 1 ] || ! grep -q "'nosuch': no object has that name" nosuch.err; then
		fail "object nosuch: $(cat nosuch.err)"
	else
		pass "object nosuch: one line, and an error"
	fi
	sqlite3 named.db "UPDATE sync_objects SET name = 'm_lock' WHERE id = 3"
	if "$MTX" report named.db object m_lock > twice.out 2> twice.err ||
		! grep -q "'m_lock': objects at several addresses have that name (0xb, 0x1000)" twice.err; then
		fail "object named twice: $(cat twice.err)"
	else
		pass "object m_lock, named twice: an error that lists both"
	fi
fi
# A run.db from before names lacks the columns: it reads as ever (names
# are the addresses), whether its derived tables are rebuilt into the file
# or, read-only, as temporary tables. (Its views go: they use the table.)
cp waits.db old.db
if ! sqlite3 old.db "DROP VIEW lock_contention; DROP VIEW object_history; DROP VIEW sync_usage;
		DROP VIEW sync_op_functions;
		CREATE TABLE before_names (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, addr INTEGER NOT NULL,
			pid INTEGER, created_ns INTEGER, destroyed_ns INTEGER);
		INSERT INTO before_names SELECT id, kind, addr, pid, created_ns, destroyed_ns FROM sync_objects;
		DROP TABLE sync_objects; ALTER TABLE before_names RENAME TO sync_objects;
		DELETE FROM meta WHERE key = 'derived_version'"; then
	fail "could not make the waits fixture a run.db of before names"
else
	DB=old.db check locks locks
	chmod a-w old.db
	sqlite3 old.db "SELECT COUNT(*) FROM meta WHERE key = 'derived_version'" | grep -qx 1 ||
		fail "the derived tables of the run.db of before names were not kept in the file"
	DB=old.db check object object 0x1000
	DB=old.db check waits waits
fi
# Profiles: tests/fixtures/profile.sql (samples) and calls.sql (exact calls).
DB=profile.db check flat flat
DB=profile.db check flat-worker-csv flat --thread worker --format csv
DB=profile.db check flat-window flat --from 1.5ms --to 4ms
DB=profile.db check calls calls
# A function without a symbol is "[unknown]" in every module: shown with
# its module's file name (hash's symbol taken away).
cp profile.db unknown.db
if ! sqlite3 unknown.db "UPDATE functions SET name = '[unknown]' WHERE id = 3"; then
	fail "could not take hash's symbol away"
else
	DB=unknown.db check flat-unknown flat --thread main
fi
DB=profile.db check critical-path-sampled critical-path
# Segments shorter than the sampling period are pooled per thread: with a
# 6 ms period both of main's (0-5 and 6-10 ms) are, and its 9 ms of running
# go to its 4 samples: hash 2 (4.5 ms), work and [kernel] 1 each (2.25 ms).
cp profile.db pooled.db
if ! sqlite3 pooled.db "UPDATE meta SET value = '6000000' WHERE key = 'sample_period_ns'"; then
	fail "could not lengthen the profile fixture's sampling period"
else
	DB=pooled.db check critical-path-pooled critical-path
fi
# The shares of a segment add up to its time exactly: 5 ms + 1 ns among
# main's 4 samples (hash 2, work 1, [kernel] 1) do not divide evenly.
cp profile.db odd.db
if ! sqlite3 odd.db "UPDATE critical_path SET end_ns = end_ns + 1 WHERE seq = 1"; then
	fail "could not lengthen the profile fixture's first path segment"
else
	shares=$("$MTX" report odd.db critical-path --format csv 2> /dev/null |
		awk 'BEGIN { RS = "" } { last = $0 } END { print last }' |
		awk -F, 'NR > 1 { ns += $3 } END { print ns }')
	[ "$shares" = 9000001 ] && pass "critical-path: the sampled shares add up to the running time" ||
		fail "critical-path: the sampled shares add up to '$shares' ns, not the path's 9000001 ns of running"
fi
# 2-5 ms: 3 samples, 1 ms each (hash, [kernel], work); 6-8 ms: none.
DB=profile.db check critical-path-sampled-window critical-path --from 2ms --to 8ms
DB=profile.db check calls-hash calls --thread main --function '^hash$'
DB=calls.db check calls-exact calls
# The filters of the function reports, in the other formats too.
DB=profile.db check flat-function-json flat --function '^(hash|work)$' --format json
# switches --function: main's one switch, given the stack main>work>hash
# (id 3), left the CPU in hash, its innermost program frame.
cp profile.db switch-stack.db
if ! sqlite3 switch-stack.db "UPDATE switches SET stack_id = 3; DELETE FROM meta WHERE key = 'derived_version'"; then
	fail "could not give the profile fixture's switch a stack"
else
	in_hash=$("$MTX" report switch-stack.db switches --function '^hash$' --format csv 2> /dev/null | tail -n +2)
	in_work=$("$MTX" report switch-stack.db switches --function '^work$' --format csv 2> /dev/null | tail -n +2)
	[ "$in_hash" = "200,main,0,(idle),clock_nanosleep,hash,1" ] && [ -z "$in_work" ] &&
		pass "switches --function keeps the switches left in a matching function" ||
		fail "switches --function: '^hash$' gave '$in_hash', '^work$' gave '$in_work'"
fi
DB=profile.db check calls-window-csv calls --from 1.5ms --to 4ms --format csv
DB=calls.db check calls-exact-window calls --from 15us --to 50us
DB=calls.db check calls-exact-hash-json calls --function '^hash$' --format json

# The whole-run reports read the summary tables; a window that covers the
# whole run adds up the recorded rows instead, and must give the same.
for r in threads sync locks switches; do
	"$MTX" report waits.db $r > whole.out 2>&1
	"$MTX" report waits.db $r --from 0 --to 100000s > window.out 2>&1
	diff -u whole.out window.out > window.diff && pass "report $r: summary = a window over the whole run" ||
		{ fail "report $r over a whole-run window differs from its summary:"; head -20 window.diff; }
done

# syscalls, on the fixture with two more calls of worker-a: a read that
# failed (EAGAIN), and the exit it never returned from. Over a window
# (calls that overlap it, whole), main's futex begun before it counts.
"$BUILDDIR/tests/fixture-db" "$srcdir/tests/fixtures/waits.sql" syscalls.db &&
	sqlite3 syscalls.db "INSERT INTO syscalls (tid, start_ns, end_ns, nr, name, ret, fd, fd_kind) VALUES
		(101, 1000360000, 1000361000, 0, 'read', -11, 3, 'pipe'), (101, 1000899000, NULL, 60, 'exit', NULL, NULL, NULL)" ||
	fail "syscalls.db"
DB=syscalls.db check syscalls syscalls
DB=syscalls.db check syscalls-window syscalls --from 300us --to 400us
DB=syscalls.db check syscalls-exit syscalls --from 898us
"$MTX" report syscalls.db syscalls > whole.out 2>&1
"$MTX" report syscalls.db syscalls --from 0 --to 100000s > window.out 2>&1
diff -u whole.out window.out > window.diff && pass "report syscalls: summary = a window over the whole run" ||
	{ fail "report syscalls over a whole-run window differs from its summary:"; head -20 window.diff; }

# Threads that share a name are told apart by tid on the wait-for chains,
# over the whole run (src/derived/wait-chains.c) as over a window (SQL): worker-b
# renamed worker-a.
"$BUILDDIR/tests/fixture-db" "$srcdir/tests/fixtures/waits.sql" shared.db &&
	sqlite3 shared.db "UPDATE threads SET name = 'worker-a' WHERE name = 'worker-b'" || fail "shared.db"
for window in "" "--from 0 --to 100000s"; do
	# shellcheck disable=SC2086 # the window is two options or none
	"$MTX" report shared.db waits $window --format csv 2>&1 | sed -n '/^chain,/,/^$/p' > shared.out
	printf '%s\n' "chain,waits,wait_ns" "main > worker-a (101),1,700000" "worker-a (102) > worker-a (101),1,140000" "" |
		diff -u - shared.out > shared.diff && pass "chains of threads sharing a name ${window:-(whole run)}" ||
		{ fail "chains of threads sharing a name ${window:-(whole run)}:"; cat shared.diff; }
done

# --limit: the first N rows of each section and how many were left out;
# CSV and JSON print the same rows and say it on stderr.
rows=$(($(wc -l < "$EXPECTED/states.txt") - 2))
# (Columns are sized to the rows shown: compare with the spacing squeezed.)
"$MTX" report waits.db states --limit 3 | tr -s ' ' > limit.out 2> limit.err || fail "states --limit 3: $(cat limit.err)"
{ head -5 "$EXPECTED/states.txt"; echo "... $((rows - 3)) more rows (--limit 0 for all)"; } | tr -s ' ' > limit.want
diff -u limit.want limit.out > limit.diff && pass "states --limit 3" || { fail "states --limit 3:"; cat limit.diff; }
"$MTX" report waits.db states --limit 3 --format csv > limit.csv 2> limit.err
[ "$(wc -l < limit.csv)" = 4 ] && grep -q "$((rows - 3)) more rows" limit.err && [ "$(wc -l < limit.err)" = 1 ] &&
	pass "states --limit 3 --format csv" || fail "states --limit 3 --format csv: $(cat limit.csv limit.err)"
"$MTX" report waits.db states --limit "$rows" > limit.out 2>&1
diff -q "$EXPECTED/states.txt" limit.out > /dev/null || fail "states --limit $rows (all of them) differs from states"
# states counts the rows it leaves out from the summary tables (whole run)
# or with COUNT(*) (a window): the count must be the rows not printed.
for args in "" "--thread worker-b" "--from 300us --to 400us" "--thread worker-b --from 300us --to 400us"; do
	# shellcheck disable=SC2086 # $args is words on purpose
	all=$(("$("$MTX" report waits.db states $args --format csv --limit 0 | wc -l)" - 1))
	# shellcheck disable=SC2086
	last=$("$MTX" report waits.db states $args --limit 1 2>&1 | tail -1)
	[ "$all" -gt 1 ] && [ "$last" = "... $((all - 1)) more row$([ "$all" = 2 ] || echo s) (--limit 0 for all)" ] &&
		pass "states $args --limit 1: counts the $((all - 1)) rows left out" ||
		fail "states $args --limit 1: $all rows in all, but: $last"
done

# Every report of --list runs on the fixture (the ones above and any new one).
for r in $("$MTX" report --list | awk '{ print $1 }'); do
	arg= db=waits.db
	[ "$r" = object ] && arg=1
	[ "$r" = overhead ] && db=overhead.db # waits.db was made before it was measured
	"$MTX" report $db "$r" $arg > /dev/null 2> list.err || fail "report $r: $(head -1 list.err)"
	[ -f "$EXPECTED/$r.txt" ] || fail "report $r has no expected output in tests/fixtures/reports/"
done

# Text fits 80 columns, but for the numbers made too wide for them, and
# the C++ names, the states' ten columns (states, limit) and the search's
# foci (diagnose), which a file gets whole.
wide=$(cat $(ls ./*.out | grep -v -e '-csv\.' -e '-json\.' -e '^\./locks-wide\.' -e '^\./sync-cxx\.' -e '^\./states' -e '^\./limit\.' \
	-e '^\./diagnose') |
	awk 'length > 80' | head -1)
[ -z "$wide" ] || fail "a text line is wider than 80 columns: $wide"

# JSON parses, with the rows and raw values.
if command -v python3 >/dev/null; then
	python3 -c 'import json,sys; d=json.load(open("sync-json.out")); r=d["sync"]; assert len(r)==2 and r[0]["op"]=="lock" and r[0]["wait_ns"]==140000, r' ||
		fail "sync --format json is not the expected JSON"
	for f in flat-function-json calls-exact-hash-json; do
		python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$f.out" || fail "$f.out is not JSON"
	done
fi

# Bad input: one line on stderr, exit 2, nothing on stdout.
bad() {
	local what=$1
	shift
	"$MTX" report "$@" > bad.out 2> bad.err
	local status=$?
	if [ $status != 2 ] || [ -s bad.out ] || [ "$(grep -c '^mtx: ' bad.err)" != 1 ]; then
		fail "$what: exit $status, stderr: $(head -2 bad.err | tr '\n' ' ')"
	else
		pass "$what: $(head -1 bad.err)"
	fi
}
bad "unknown report" waits.db nosuch
bad "unknown metric" waits.db metric cpuu
bad "a focus not in the run" waits.db metric --focus /Process/100/nobody
bad "a focus of no hierarchy" waits.db metric --focus /Nowhere/cpu0
bad "a metric not kept at the focus" waits.db metric cpu_wait --focus /SyncObject/mutex
bad "two nodes of one hierarchy" waits.db metric --focus /Process/100 --focus /Process/100/main
bad "--focus on another report" waits.db threads --focus /
bad "missing report" waits.db
bad "filter the report cannot apply" waits.db locks --thread 100
bad "no thread of that name" waits.db waits --thread nobody
bad "bad time" waits.db states --from soon
bad "bad pattern" waits.db critical-path --function '('
bad "bad pattern (flat)" profile.db flat --function '('
bad "bad time (calls)" profile.db calls --to later
bad "object without its argument" waits.db object
bad "unknown format" waits.db threads --format xml
bad "negative limit" waits.db states --limit -1
bad "limit not a number" waits.db states --limit many

"$MTX" report nonexistent.db threads > /dev/null 2> missing.err
[ $? = 1 ] && [ "$(wc -l < missing.err)" = 1 ] || fail "missing file: $(cat missing.err)"

# A damaged run.db: one line saying so, exit 1 (the damage is found while
# reading, as reports do not read every page up front).
cp waits.db corrupt.db
size=$(stat -c %s corrupt.db)
dd if=/dev/zero of=corrupt.db bs=1024 seek=$((size / 2048)) count=$((size / 4096)) conv=notrunc 2>/dev/null
"$MTX" report corrupt.db states > /dev/null 2> corrupt.err
status=$?
[ $status = 1 ] && [ "$(wc -l < corrupt.err)" -le 2 ] && grep -q "corrupt" corrupt.err ||
	fail "damaged database: exit $status, said: $(cat corrupt.err)"
head -c $((size / 2)) waits.db > truncated.db
"$MTX" report truncated.db threads > /dev/null 2> truncated.err
[ $? = 1 ] && [ "$(wc -l < truncated.err)" = 1 ] && grep -q "corrupt" truncated.err ||
	fail "truncated database: said: $(cat truncated.err)"

# A read-only run.db without derived tables: reported on, left unchanged.
"$BUILDDIR/tests/fixture-db" "$srcdir/tests/fixtures/waits.sql" ro.db
chmod 444 ro.db
before=$(md5sum < ro.db)
"$MTX" report ro.db waits --thread worker-b > ro.out 2> ro.err || fail "read-only: $(cat ro.err)"
diff -q ro.out "$EXPECTED/waits-worker-b.txt" > /dev/null || fail "read-only report differs"
[ "$(md5sum < ro.db)" = "$before" ] || fail "the read-only database was changed"

finish
