#!/bin/bash
# mtx collect -p PID, the oracle: tests/e2e/attachee, started without mtx,
# does exactly what the test tells it, when it tells it, and says so (the
# truth from outside mtx):
#   1. attachee starts T workers, each blocked on a gate of its own;
#   2. mtx collect -p attaches, and says "attached" on stderr;
#   3. round 1: each worker takes and releases the shared mutex exactly K
#      times (pthread_mutex_lock/unlock), then the program says "done 1";
#   4. SIGINT to mtx: it detaches and exits 0;
#   5. round 2, the same, then quit: the program exits 3 (its own status).
# run.db then holds round 1's sync ops, exactly K lock and K unlock per
# worker on that mutex, within the round, and nothing of round 2 (none
# after meta detach_ns); every thread alive at attach with attached = 1
# and start_ns = attach_ns; attach_ns < detach_ns, each on its side of the
# program's own clock reads around the rounds; the probes' tracefs group is
# gone (bounded wait: the closing child removes it, test-sync-uprobes.sh);
# and the program's output and status are those of a plain run driven the
# same way. Bad input: no such process, or both -p and a command, is
# refused with one line (a usage error's followed by the synopsis, as
# test-bad-input.sh allows). --duration ends an attach as SIGINT does.
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1
PROG=$BUILDDIR/tests/e2e/attachee
[ -x "$PROG" ] || { fail "not built: $PROG"; finish; }
T=4 K=1000
TRACEFS=/sys/kernel/tracing

# Processes this test started, ended on exit: mtx with SIGINT first (so
# that it detaches), the rest with SIGKILL.
MPID="" PIDS=()
gone() { ! kill -0 "$1" 2> /dev/null; }
cleanup() {
	if [ -n "$MPID" ] && ! gone "$MPID"; then
		kill -INT "$MPID" 2> /dev/null
		for _ in $(seq 100); do gone "$MPID" && break; sleep 0.1; done
		kill -KILL "$MPID" 2> /dev/null
	fi
	for p in "${PIDS[@]}"; do
		kill -KILL "$p" 2> /dev/null && wait "$p" 2> /dev/null
	done
	exec 3>&-
}
trap 'cleanup; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT

# start_attachee NAME - start the program, its commands from fd 3 (the
# fifo NAME.cmd), its stdout in NAME.out, stderr in NAME.err; its pid in
# APID.
start_attachee() {
	rm -f "$1.cmd"
	mkfifo "$1.cmd" || return 1
	"$PROG" "$T" "$K" < "$1.cmd" > "$1.out" 2> "$1.err" &
	APID=$!
	PIDS+=("$APID")
	# read-write: opens at once, and the program's open for reading too
	exec 3<> "$1.cmd"
}
say() { echo "$1" >&3; }
# wait_out NAME PATTERN - until the program's stdout holds PATTERN (or the
# program is gone); fail unless it does.
out_or_gone() { holds "$1.out" "$2" || gone "$APID"; }
wait_out() {
	wait_until out_or_gone "$1" "$2"
	holds "$1.out" "$2" && return 0
	fail "$1: the program did not print '$2' (stdout: $(tr '\n' ';' < "$1.out"), stderr: $(head -3 "$1.err"))"
	return 1
}
# end_attachee NAME - quit the program; its exit status in STATUS.
end_attachee() {
	say quit
	exec 3>&-
	STATUS=none
	if wait_until gone "$APID"; then
		wait "$APID"
		STATUS=$?
	else
		fail "$1: the program did not exit after quit"
	fi
}
# drive NAME - the same steps as the attached run below, without mtx.
drive() {
	start_attachee "$1" || return 1
	wait_out "$1" '^ready ' && say round && wait_out "$1" '^done 1 ' && say round && wait_out "$1" '^done 2 '
	end_attachee "$1"
}
# err_value NAME KEY FIELD - a field of the program's stderr line that
# begins with the two words KEY ("round 1")
err_value() { awk -v k="$2" -v f="$3" '$1 " " $2 == k { print $f }' "$1.err"; }

# uprobe_groups - the groups of the uprobes in tracefs, one a line: those
# uprobe_events names ("p:GROUP/EVENT PATH:OFFSET"), and mtx's systems in
# events/.
uprobe_groups() {
	local g
	{
		sed -n 's|^[a-z]:\([^/ ]*\)/.*|\1|p' "$TRACEFS/uprobe_events" 2> /dev/null
		for g in "$TRACEFS"/events/mtx_*; do [ -d "$g" ] && echo "${g##*/}"; done
	} | sort -u
}

# --- the attached run
start_attachee att || { fail "cannot start $PROG"; finish; }
wait_out att '^ready ' || finish
ATT_PID=$APID
uprobe_groups > groups.before
# (A background job starts with SIGINT ignored; env restores the default,
# as test-bad-input.sh does.)
env --default-signal=INT "$MTX" collect -p "$ATT_PID" -o attach.db > mtx.out 2> mtx.err &
MPID=$!
MERR=mtx.err
attached_or_gone() { holds "$MERR" '\<attached\>' || gone "$MPID"; }
wait_until attached_or_gone
if ! holds mtx.err '\<attached\>'; then
	fail "mtx collect -p $ATT_PID did not say attached: $(head -3 mtx.err)"
	finish
fi
pass "mtx collect -p: $(grep -m1 '\<attached\>' mtx.err)"
# The groups that came with the attach (another collector's, running
# beside this test, left out).
uprobe_groups > groups.during
comm -13 groups.before groups.during | while read -r g; do
	pid=${g#mtx_}
	[ "$pid" != "$MPID" ] && [ "$(cat "/proc/$pid/comm" 2> /dev/null)" = mtx ] || echo "$g"
done > groups.ours
[ -s groups.ours ] && pass "attached: uprobe groups $(tr '\n' ' ' < groups.ours)in $TRACEFS" ||
	fail "attached, but no uprobe group of this collector in $TRACEFS"
# cpu_times - "tid ns" per thread of the program: the CPU time the kernel
# counted (/proc/PID/task/TID/schedstat, field 1), read while every
# worker is blocked between rounds.
cpu_times() {
	local t
	for t in /proc/"$ATT_PID"/task/*; do echo "${t##*/} $(cut -d' ' -f1 "$t/schedstat")"; done | sort
}
cpu_times > cpu.before
say round
wait_out att '^done 1 '
cpu_times > cpu.after
kill -INT "$MPID"
if wait_until gone "$MPID"; then
	wait "$MPID"
	mst=$?
	# mtx exits only once the kernel removed its probes (mtx-collect(1), ATTACHING)
	left=$(uprobe_groups | grep -Fx -f groups.ours)
	[ -n "$left" ] && fail "uprobe groups $left still in $TRACEFS as mtx exited"
	[ "$mst" = 0 ] && pass "mtx collect -p exited 0 on SIGINT" ||
		fail "mtx collect -p exited $mst on SIGINT: $(grep -v '\<attached\>' mtx.err | head -3)"
else
	fail "mtx collect -p still runs after SIGINT"
fi
gone "$ATT_PID" && fail "the program is gone once mtx detached"
say round
wait_out att '^done 2 '
end_attachee att
att_status=$STATUS
[ -s mtx.out ] && echo "note: mtx collect -p wrote on stdout: $(head -3 mtx.out)"
echo "note: mtx collect -p said: $(tr '\n' ';' < mtx.err)"

# --- the same rounds, plain
drive plain
plain_status=$STATUS
[ "$plain_status" = 3 ] || fail "the plain run exited $plain_status, not 3: $(head -3 plain.err)"
[ "$att_status" = "$plain_status" ] && pass "the attached program exited $att_status, as without mtx" ||
	fail "the attached program exited $att_status, $plain_status without mtx"
cmp -s att.out plain.out && pass "the attached program's output is as without mtx" ||
	fail "the attached program's output differs: $(tr '\n' ';' < att.out) without mtx: $(tr '\n' ';' < plain.out)"
grep -q '^attachee:' att.err plain.err && fail "the program complained: $(grep -h '^attachee:' att.err plain.err | head -3)"

# --- run.db
[ -s attach.db ] || { fail "no attach.db"; finish; }
q() { sql attach.db "$1" 2>&1; }
[ "$(q "SELECT value FROM meta WHERE key = 'complete'")" = 1 ] && pass "attach.db is finalized (meta complete 1)" ||
	fail "attach.db is not finalized: meta complete is '$(q "SELECT value FROM meta WHERE key = 'complete'")'"
attach_ns=$(q "SELECT value FROM meta WHERE key = 'attach_ns'")
detach_ns=$(q "SELECT value FROM meta WHERE key = 'detach_ns'")
r1_begin=$(err_value att "round 1" 3) r1_end=$(err_value att "round 1" 4) r2_begin=$(err_value att "round 2" 3)
mutex=$(awk '$1 == "mutex" { print $2 }' att.err)
workers=$(awk '$1 == "worker" && $3 == "tid" { print $4 }' att.err | sort -n)
[ "$(echo "$workers" | grep -c .)" = "$T" ] || { fail "the program did not give its $T workers' tids"; finish; }
ints() { for v in "$@"; do [[ "$v" =~ ^[0-9]+$ ]] || return 1; done; }
if ! ints "$attach_ns" "$detach_ns"; then
	fail "meta attach_ns '$attach_ns' and detach_ns '$detach_ns' are not both numbers of ns"
	finish
fi
ints "$r1_begin" "$r1_end" "$r2_begin" "$mutex" || { fail "the program's stderr lacks its rounds' times or mutex"; finish; }
# mtx said attached before the test began round 1, and exited before round 2.
if [ "$attach_ns" -lt "$detach_ns" ] && [ "$attach_ns" -le "$r1_begin" ] && [ "$r1_end" -le "$detach_ns" ] &&
	[ "$detach_ns" -le "$r2_begin" ]; then
	pass "meta attach_ns $attach_ns <= round 1 [$r1_begin, $r1_end] <= detach_ns $detach_ns <= round 2 $r2_begin"
else
	fail "meta attach_ns $attach_ns, detach_ns $detach_ns: not around round 1 [$r1_begin, $r1_end]" \
		"and before round 2 ($r2_begin), the program's clock reads"
fi

# CPU time: each worker's running intervals in the run against the CPU
# time the kernel counted for it over round 1 (it ran nowhere else
# between the attach and the detach), within 2% + 1 ms, and 20 us an
# interval: a running interval spans switch-in record to sched_switch,
# the kernel's count the whole switch and perf's records in it (5-15 us
# each here)
join cpu.before cpu.after | while read -r tid before after; do
	echo "$workers" | grep -qx "$tid" || continue
	read -r ran n < <(q "SELECT COALESCE(SUM(end_ns - start_ns), 0), COUNT(*) FROM thread_states
		WHERE tid = $tid AND state = 'running'" | tr '|' ' ')
	kernel=$((after - before))
	diff=$((ran > kernel ? ran - kernel : kernel - ran))
	[ "$kernel" -gt 2000000 ] && [ "$diff" -le $((kernel / 50 + 1000000 + n * 20000)) ] &&
		echo "ok $tid ran $ran ns in $n intervals, kernel $kernel ns" ||
		echo "bad $tid ran $ran ns in $n intervals, kernel $kernel ns"
done > cpu.check
if [ "$(grep -c '^ok' cpu.check)" = "$T" ]; then
	pass "running time per worker = the kernel's CPU time ±(2% + 1 ms + 20 us an interval)" \
		"($(head -1 cpu.check | cut -d' ' -f3-))"
else
	fail "running time per worker against the kernel's schedstat: $(grep -v '^ok' cpu.check | tr '\n' ';')"
fi

# sync ops: round 1's, exactly, and nothing else
expected=$(for tid in $workers; do printf '%s|lock|%s\n%s|unlock|%s\n' "$tid" "$K" "$tid" "$K"; done)
actual=$(q "SELECT tid, op, COUNT(*) FROM sync_ops GROUP BY tid, op ORDER BY tid, op")
[ "$actual" = "$expected" ] && pass "sync_ops: $K lock and $K unlock per worker, nothing else" ||
	fail "sync_ops per tid and op are $(echo "$actual" | tr '\n' ' '), not $(echo "$expected" | tr '\n' ' ')"
total=$(q "SELECT COUNT(*) FILTER (WHERE op = 'lock') || ' ' || COUNT(*) FILTER (WHERE op = 'unlock') FROM sync_ops")
[ "$total" = "$((T * K)) $((T * K))" ] || fail "sync_ops hold $total lock and unlock ops, not $((T * K)) each"
late=$(q "SELECT COUNT(*) FROM sync_ops WHERE end_ns > $detach_ns OR start_ns > $detach_ns OR start_ns < $attach_ns")
[ "$late" = 0 ] && pass "no sync op outside [attach_ns, detach_ns]" ||
	fail "$late sync ops outside [attach_ns $attach_ns, detach_ns $detach_ns] (round 2's?)"
outside=$(q "SELECT COUNT(*) FROM sync_ops WHERE start_ns < $r1_begin OR end_ns > $r1_end OR start_ns > end_ns")
[ "$outside" = 0 ] || fail "$outside sync ops outside round 1 [$r1_begin, $r1_end], as the program read the clock"
bad=$(q "SELECT COUNT(*) FROM sync_ops WHERE result IS NOT 0 OR unfinished IS NOT NULL")
[ "$bad" = 0 ] || fail "$bad sync ops did not return 0 (result, unfinished)"
obj=$(q "SELECT o.kind || ' ' || o.addr || ' ' || IFNULL(o.pid, 'NULL') FROM sync_objects o
	WHERE o.id IN (SELECT DISTINCT object_id FROM sync_ops)")
[ "$obj" = "mutex $mutex $ATT_PID" ] && pass "every sync op is on the program's mutex ($mutex)" ||
	fail "the sync ops' objects are '$(echo "$obj" | tr '\n' ';')', not the one mutex at $mutex of pid $ATT_PID"

# threads: every one alive at attach (main and the workers), attached
expected=$( (echo "$ATT_PID"; echo "$workers") | sort -n | tr '\n' ' ')
actual=$(q "SELECT tid FROM threads WHERE pid = $ATT_PID ORDER BY tid" | tr '\n' ' ')
[ "$actual" = "$expected" ] || fail "threads of pid $ATT_PID: $actual, not $expected"
actual=$(q "SELECT tid FROM threads WHERE pid = $ATT_PID AND attached = 1 AND start_ns = $attach_ns ORDER BY tid" |
	tr '\n' ' ')
[ "$actual" = "$expected" ] && pass "threads $expected: attached = 1, start_ns = attach_ns" ||
	fail "threads attached = 1 with start_ns = attach_ns: '$actual', not $expected" \
		"($(q "SELECT tid || ':' || attached || ':' || start_ns FROM threads WHERE pid = $ATT_PID" | tr '\n' ' '))"

# --- no probe left: none of the groups that came with the attach (checked
# not to be empty), and no group of a collector that no longer runs, in
# events/ or uprobe_events. Once seen clean it is not looked at again
# (test-sync-uprobes.sh: another test may kill a collector of its own on
# purpose).
stale_groups() {
	local g pid
	uprobe_groups | while read -r g; do
		pid=${g#mtx_}
		if grep -Fqx "$g" groups.ours || { [ "$g" != "$pid" ] && [ "$(cat "/proc/$pid/comm" 2> /dev/null)" != mtx ]; }; then
			echo "$g"
		fi
	done
}
no_stale() { [ -z "$(stale_groups)" ]; }
if wait_until no_stale; then
	pass "no uprobe left in $TRACEFS (events/, uprobe_events)"
else
	fail "uprobes left behind: $(stale_groups | tr '\n' ' '): $(grep '^[a-z]:mtx_' "$TRACEFS/uprobe_events" | head -3)"
fi

# --- bad input
# The synopsis mtx adds to a usage error's line (test-bad-input.sh: "one
# line, plus, for usage errors, the synopsis").
"$MTX" collect --frobnicate /bin/true > /dev/null 2> usage.err
tail -n +2 usage.err > synopsis
# one_line NAME WHAT - NAME.status is neither 0 nor timeout's 124, stdout
# empty, stderr one line (and, after a usage error's, the synopsis).
one_line() {
	local st
	st=$(cat "$1.status")
	tail -n +2 "$1.err" > "$1.rest"
	if [ "$st" = 0 ] || [ "$st" = 124 ] || [ -s "$1.out" ] || [ "$(head -1 "$1.err" | grep -c .)" != 1 ] ||
		{ [ -s "$1.rest" ] && { [ "$st" != 2 ] || ! cmp -s "$1.rest" synopsis; }; }; then
		fail "$2: exit $st, stdout '$(head -2 "$1.out")', stderr '$(head -3 "$1.err" | tr '\n' ';')'" \
			"(not one line and a non-zero exit)"
	else
		pass "$2: exit $st: $(head -1 "$1.err")"
	fi
}
timeout -k 10 -s INT 60 "$MTX" collect -p 999999999 -o none.db > none.out 2> none.err
echo $? > none.status
one_line none "mtx collect -p 999999999 (no such process)"
sleep 600 &
SPID=$!
PIDS+=("$SPID")
timeout -k 10 -s INT 60 "$MTX" collect -p "$SPID" -o both.db -- true > both.out 2> both.err
echo $? > both.status
one_line both "mtx collect -p PID -- true (both)"

# --- --duration ends an attach as SIGINT does (on the sleep above)
timeout -k 10 -s INT 120 "$MTX" collect -p "$SPID" --duration 1 -o dur.db > dur.out 2> dur.err
st=$?
if [ "$st" != 0 ]; then
	fail "mtx collect -p PID --duration 1 exited $st: $(tr '\n' ';' < dur.err)"
elif gone "$SPID"; then
	fail "the process is gone after mtx collect -p PID --duration 1"
elif [ "$(sql dur.db "SELECT value FROM meta WHERE key = 'complete'")" != 1 ] ||
	[ "$(sql dur.db "SELECT (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'attach_ns') <
		(SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'detach_ns')")" != 1 ]; then
	fail "mtx collect -p PID --duration 1: dur.db not finalized, or not attach_ns < detach_ns"
else
	pass "mtx collect -p PID --duration 1 exited 0, the process runs on, dur.db finalized"
fi
kill -KILL "$SPID" 2> /dev/null
wait "$SPID" 2> /dev/null

# --- --functions attached: round 1's calls of attachee_work, exactly K per
# worker, each once (no record twice through inherited events), none of
# round 2's
# attached_round NAME [OPTION...] - attach mtx collect -p OPTION... -o
# NAME.db to the program started as NAME, run one round, detach with
# SIGINT; fail unless it said attached (then return 1) and exited 0.
attached_round() {
	local name=$1
	shift
	env --default-signal=INT "$MTX" collect -p "$APID" "$@" -o "$name.db" > "$name.mtx.out" 2> "$name.mtx.err" &
	MPID=$! MERR=$name.mtx.err
	wait_until attached_or_gone
	if ! holds "$MERR" '\<attached\>'; then
		fail "mtx collect -p $* did not say attached: $(head -3 "$MERR")"
		return 1
	fi
	say round
	wait_out "$name" '^done 1 '
	kill -INT "$MPID"
	wait_until gone "$MPID" && wait "$MPID" || fail "mtx collect -p $* did not exit 0 on SIGINT"
}
start_attachee fn || { fail "cannot start $PROG"; finish; }
wait_out fn '^ready ' || finish
if attached_round fn --functions '^attachee_work$'; then
	say round
	wait_out fn '^done 2 '
	expected=$(for tid in $(awk '$1 == "worker" && $3 == "tid" { print $4 }' fn.err | sort -n); do
		echo "$tid|$K"; done)
	actual=$(sql fn.db "SELECT c.tid, COUNT(*) FROM calls c JOIN functions f ON f.id = c.function_id
		WHERE f.name = 'attachee_work' AND c.unfinished IS NULL GROUP BY c.tid ORDER BY c.tid")
	[ -n "$expected" ] && [ "$actual" = "$expected" ] &&
		pass "--functions attached: $K calls of attachee_work per worker, as the program made them" ||
		fail "--functions attached: calls per tid $(echo "$actual" | tr '\n' ' '), not $(echo "$expected" | tr '\n' ' ')"
	dup=$(sql fn.db "SELECT COUNT(*) FROM (SELECT 1 FROM switches GROUP BY ts_ns, prev_tid HAVING COUNT(*) > 1)")
	[ "$dup" = 0 ] || fail "$dup context switches recorded twice"
fi
end_attachee fn

# --- a lock held since before the attach: the main thread holds the mutex
# when mtx attaches and lets it go 100 ms into the round; each worker's
# first lock waited for it (the holder mtx reports), the main thread's
# unlock takes nothing (no hold is invented), and the mutex's creation is
# not known (created_ns NULL)
start_attachee held || { fail "cannot start $PROG"; finish; }
wait_out held '^ready ' && say hold && wait_out held '^held' || finish
if attached_round held; then
	first=$(sql held.db "SELECT COUNT(*) FROM sync_ops s WHERE op = 'lock' AND blocked = 1 AND holder_tid = $APID
		AND start_ns = (SELECT MIN(start_ns) FROM sync_ops WHERE tid = s.tid AND op = 'lock')")
	main=$(sql held.db "SELECT group_concat(op) FROM sync_ops WHERE tid = $APID")
	created=$(sql held.db "SELECT IFNULL(created_ns, 'NULL') FROM sync_objects WHERE kind = 'mutex'")
	[ "$first" = "$T" ] && [ "$main" = unlock ] && [ "$created" = NULL ] &&
		pass "a lock held at the attach: the $T first locks waited for the main thread, its unlock took nothing" ||
		fail "a lock held at the attach: $first of $T first locks blocked with the main thread as holder," \
			"the main thread's ops '$main' (not 'unlock'), created_ns $created (not NULL)"
fi
end_attachee held
finish
