#!/bin/bash
# Calls already running when their probe goes in (SEEDS-MAP S3, seed 002
# §5.6): tests/e2e/longcall's main is inside outer(), which calls inner()
# about every ms, when
#   A. mtx collect -p attaches with --functions '^(outer|inner)$', and
#   B. mtx ctl probe add '^(outer|inner)$' puts the probes on a program
#      mtx started.
# The truth is the program's own: it stamps outer's first and last
# statement, and each inner call's entry after SIGUSR1, which the test
# sends before the probes go in. run.db must then hold:
#   - exactly one outer row, retroactive = 1, begun at the instant the
#     probes went on (meta attach_ns; the probe's instrumentation.on_ns),
#     ended by its real return: after the program's last stamp in outer,
#     and before main's next step (the openat of the stamps file);
#   - as many non-retroactive inner rows as the program stamped after that
#     instant (+-1), each the child of the outer row; at most one inner
#     row retroactive (a thread stopped inside inner);
# and the program exits 0 with its usual output line.
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1
PROG=$BUILDDIR/tests/e2e/longcall
[ -x "$PROG" ] || { fail "not built: $PROG"; finish; }
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -KILL "$p" 2> /dev/null; done; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
gone() { ! kill -0 "$1" 2> /dev/null; }

# check NAME DB T0 - the oracle's checks of run NAME (stamps NAME.stamps,
# output NAME.out) recorded in DB, the probes on at T0.
check() {
	local name=$1 db=$2 t0=$3 exit_ns entry_ns outer rows want got opened
	q() { sql "$db" "$1" 2>&1; }
	entry_ns=$(awk '$1 == "outer_entry" { print $2 }' "$name.stamps")
	exit_ns=$(awk '$1 == "outer_exit" { print $2 }' "$name.stamps")
	[[ "$t0" =~ ^[0-9]+$ && "$entry_ns" =~ ^[0-9]+$ && "$exit_ns" =~ ^[0-9]+$ ]] ||
		{ fail "$name: no probe instant ('$t0') or no stamps of outer in $name.stamps"; return; }
	[ "$entry_ns" -lt "$t0" ] && [ "$t0" -lt "$exit_ns" ] ||
		{ fail "$name: the probes went on at $t0, not while outer ran [$entry_ns, $exit_ns]"; return; }
	rows=$(q "SELECT c.id, c.retroactive, c.start_ns, COALESCE(c.end_ns, ''), COALESCE(c.unfinished, '')
		FROM calls c JOIN functions f ON f.id = c.function_id WHERE f.name = 'outer'")
	if [ "$(echo "$rows" | grep -c .)" != 1 ]; then
		fail "$name: not exactly one outer row: $(echo "$rows" | tr '\n' ';')"
		return
	fi
	IFS='|' read -r outer retro start end unfinished <<< "$rows"
	[ "$retro" = 1 ] && [ "$start" = "$t0" ] && pass "$name: outer is retroactive, begun at the probes' instant $t0" ||
		fail "$name: outer row retroactive=$retro start_ns=$start, not 1 and $t0"
	opened=$(q "SELECT MIN(start_ns) FROM syscalls WHERE name IN ('openat', 'open') AND start_ns > $exit_ns")
	if [ -z "$unfinished" ] && [[ "$end" =~ ^[0-9]+$ ]] && [ "$end" -ge "$exit_ns" ] &&
		[[ "$opened" =~ ^[0-9]+$ ]] && [ "$end" -le "$opened" ]; then
		pass "$name: outer ended by its return, $((end - exit_ns)) ns after its last statement, before main's openat"
	else
		fail "$name: outer's end_ns '$end' (unfinished '$unfinished') not between its last statement" \
			"$exit_ns and main's next openat '$opened'"
	fi
	want=$(awk -v t="$t0" '$1 == "inner" && $2 >= t' "$name.stamps" | wc -l)
	got=$(q "SELECT COUNT(*) FROM calls c JOIN functions f ON f.id = c.function_id
		WHERE f.name = 'inner' AND NOT c.retroactive AND c.parent_id = $outer")
	[ "$want" -gt 100 ] && [ $((got - want)) -le 1 ] && [ $((want - got)) -le 1 ] &&
		pass "$name: $got inner rows, children of outer; the program stamped $want after the instant" ||
		fail "$name: $got inner rows under outer, the program stamped $want after the instant"
	got=$(q "SELECT COUNT(*) FROM calls c JOIN functions f ON f.id = c.function_id
		WHERE f.name = 'inner' AND (c.parent_id IS NOT $outer OR c.retroactive)")
	[ "$got" -le 1 ] || fail "$name: $got inner rows retroactive or not under outer"
	holds "$name.out" '^longcall: [0-9]* inner calls$' && [ "$(wc -l < "$name.out")" = 1 ] &&
		pass "$name: the program's output is its usual line" || fail "$name: the program printed $(head -3 "$name.out")"
}

# outer runs until SIGUSR2 (at most 60 s): it ends 1 s after the probes
# are in, however long mtx took to start (a collector that ran before may
# still be having its uprobes removed, which stalls a new one's).
# --- A. attach
"$PROG" 60 A.stamps > A.out 2> A.err &
APID=$!
PIDS+=("$APID")
sleep 0.5
kill -USR1 "$APID"
"$MTX" collect -q -p "$APID" --functions '^(outer|inner)$' -o A.db 2> A.mtx &
MPID=$!
PIDS+=("$MPID")
attached() { holds A.mtx '\<attached\>' || gone "$MPID"; }
wait_until attached
sleep 1
kill -USR2 "$APID"
wait "$APID"
st=$?
wait "$MPID"
mst=$?
[ "$mst" = 0 ] || fail "A: mtx collect -p exited $mst: $(head -3 A.mtx)"
[ "$st" = 0 ] && pass "A: the attached program exited 0" || fail "A: the attached program exited $st: $(head -3 A.err)"
check A A.db "$(sql A.db "SELECT value FROM meta WHERE key = 'attach_ns'")"
stops=$(sql A.db "SELECT value FROM meta WHERE key = 'catch_up_stops'")
[ "$stops" = 1 ] && echo "note: A: stopped $(sql A.db "SELECT value FROM meta WHERE key = 'catch_up_stopped_ns'") ns" ||
	fail "A: meta catch_up_stops is '$stops', not 1"

# --- B. mtx ctl probe add on a program mtx started
"$MTX" collect -q --control B.sock -o B.db -- "$PROG" 60 B.stamps > B.out 2> B.err &
MPID=$!
PIDS+=("$MPID")
prog_pid() { BPID=$(pgrep -P "$MPID" -x longcall); [ -n "$BPID" ] || gone "$MPID"; }
wait_until prog_pid
sleep 0.5
[ -n "$BPID" ] && kill -USR1 "$BPID"
sleep 0.5
"$MTX" ctl B.sock probe add '^(outer|inner)$' > B.ctl 2>&1 || fail "B: mtx ctl probe add failed: $(head -3 B.ctl)"
sleep 1
[ -n "$BPID" ] && kill -USR2 "$BPID"
wait "$MPID"
mst=$?
[ "$mst" = 0 ] && pass "B: mtx collect and its program exited 0" || fail "B: mtx collect exited $mst: $(head -3 B.err)"
check B B.db "$(sql B.db "SELECT on_ns FROM instrumentation WHERE kind = 'probe' AND probe_id = 1")"
# The probes of B's collector go in its closing child after it exits: wait
# for them to be gone (bounded), so that a program started after this test
# (a rerun's) does not map longcall while they are in, which would stall
# their removal until its outer() returned (the kernel waits for pending
# return probes).
no_group() { ! grep -q "^[a-z]:mtx_$MPID/" /sys/kernel/tracing/uprobe_events 2> /dev/null; }
wait_until no_group || echo "note: B's uprobes still in tracefs at the end"
finish
