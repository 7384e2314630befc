#!/bin/bash
# tests/tui/test-browse-live.sh - mtx browse --live SOCK while mtx collect
# --control SOCK records tests/e2e/phased (PHASED_HOLD_MS: see test-live.sh),
# as a user would watch it: while its workers take one mutex in turns, the
# consultant's search finds the lock waits, at / and at the program's mutex
# (the address the program logs); while they wait at the last barrier and
# the main thread sleeps, the threads show so, each by its tid; when the
# run is over the view says so and keeps its figures, and q quits, exit 0.
# Then under mtx collect --consultant: the collector's own search, down to
# the mutex tests/e2e/planted takes.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1
PROG="$BUILDDIR/tests/e2e/phased"

# wait_match REGEX [SECONDS] - until a line of the screen matches REGEX
# (extended); prints the first such line.
wait_match() {
	local i=0
	while [ $i -lt $((${2:-20} * 20)) ]; do
		screen | grep -Em1 -- "$1" && return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

PHASED_HOLD_MS=8000 "$MTX" collect -q --control live.sock -o live.db -- "$PROG" 3 300 1500 lock \
	> live.out 2> live.err &
mpid=$!
wait_until test -S live.sock || fail "mtx collect --control never opened live.sock: $(head -3 live.err)"
browse_start 100x40 --live live.sock
wait_for "mtx browse live.sock: live" && wait_for "The consultant over the last second" &&
	pass "the live view opens on the run"
# one screen with the mutex's node true, and the node at / of that screen
for _ in $(seq 400); do
	screen > search.txt
	found=$(grep -Em1 '^true +[0-9.]+ +0\.2 +ExcessiveSyncWaitingTime +/SyncObject/mutex/0x[0-9a-f]+' search.txt) && break
	sleep 0.05
done
at_root=$(grep -Ec '^true +[0-9.]+ +0\.2 +ExcessiveSyncWaitingTime +/$' search.txt)

# the workers at the last barrier, the main thread asleep (the program's
# own log says where and who, once it holds)
held() { grep -q '^hold ' live.out && [ "$(grep -c '^enter ' live.out)" = 3 ]; }
wait_until held || fail "the program never held: $(head -3 live.err)"
addr=$(awk '$1 == "lock" { print $2 }' live.out)
[ -n "$found" ] && [ "${found##*/}" = "$addr" ] && [ "$at_root" = 1 ] &&
	pass "the search found the lock waits at / and at the program's mutex $addr" ||
	fail "the search's lock finding: '$found' (/ true: $at_root), the program's mutex $addr"
pid=$(pgrep -f "^$PROG 3 300 1500 lock")
shown=0
for tid in $(awk '$1 == "enter" { print $2 }' live.out); do
	wait_match "^ *$tid +phased +blocked " 5 > /dev/null && shown=$((shown + 1)) ||
		fail "worker $tid is not shown blocked at the barrier"
done
wait_match "^ *$pid +phased +sleeping " 5 > /dev/null && [ $shown = 3 ] &&
	pass "the three workers blocked at the barrier, the main thread $pid sleeping" ||
	fail "the main thread $pid is not shown sleeping"
wait $mpid || fail "collect --control exited $?: $(head -1 live.err)"
wait_for "the collector has gone: the run is over" 10 && wait_for "ExcessiveSyncWaitingTime" &&
	pass "the run over, the view says so and keeps its figures"
keys q
wait_for "exit=0" && pass "q quits: exit 0"

# With mtx collect --consultant, the collector's own search in place of
# the view's outline: tests/e2e/planted's threads take one mutex in hog();
# the search refines the lock waits down to that mutex (the address the
# program reports), each node under the node that made it.
PLANTED="$BUILDDIR/tests/e2e/planted"
"$MTX" collect -q --consultant --control pc.sock -o pc.db -- "$PLANTED" lock 4 8000 > pc.out 2> pc.err &
mpid=$!
wait_until test -S pc.sock || fail "mtx collect --consultant --control never opened pc.sock: $(head -3 pc.err)"
browse_start 120x60 --live pc.sock
wait_for "The consultant's search as it runs" && pass "--consultant: the live view shows the collector's search"
found=$(wait_match '^true +[0-9.]+ +0\.2 +ExcessiveSyncWaitingTime +(/Code/planted/hog,)?(/Process/[0-9]+(/[^,]+)?,)?/SyncObject/mutex/0x[0-9a-f]+$' 20)
wait $mpid || fail "collect --consultant exited $?: $(head -1 pc.err)"
addr=$(awk '$1 == "lock" { print $2 }' pc.err)
[ -n "$found" ] && [ "${found##*/}" = "$addr" ] &&
	pass "--consultant: the search, indented under its parents, true at the program's mutex $addr" ||
	fail "--consultant: the mutex's node '$found', the program's mutex $addr"
keys q
wait_for "exit=0" && pass "q quits: exit 0"
finish
