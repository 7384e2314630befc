#!/bin/bash
# thread_sched (SEEDS-MAP P2): each thread's scheduling class as mtx read
# it when the thread appeared is the one the thread read itself
# (tests/e2e/schedclass, run under nice 5): the main thread and a thread
# created with default attributes SCHED_OTHER 0 nice 5, a thread created
# SCHED_RR priority 7 through its attributes SCHED_RR 7 nice 5.
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1

PROG=$BUILDDIR/tests/e2e/schedclass
nice -n 5 "$MTX" collect -q -e sched -o run.db -- "$PROG" > out.txt 2> err.txt ||
	{ fail "collect exited $?: $(head -1 err.txt)"; finish; }
n=0
while read -r _ tid policy priority nice; do
	tid=${tid#tid=} policy=${policy#policy=} priority=${priority#priority=} nice=${nice#nice=}
	n=$((n + 1))
	got=$(sql run.db "SELECT policy || ' ' || priority || ' ' || nice FROM thread_sched WHERE tid = $tid")
	[ "$got" = "$policy $priority $nice" ] &&
		pass "thread $tid: $got" ||
		fail "thread $tid read itself as $policy $priority $nice; thread_sched has '$got'"
done < <(grep '^sched ' out.txt)
grep -q "rr unavailable" out.txt && echo "note: SCHED_RR was refused here; only the inherited class is checked"
[ "$n" -ge 2 ] || fail "the program printed $n classes, not 2 or 3"
# nice 5 on top of the test's own (make check may itself run under nice)
want_nice=$(($(nice) + 5))
[ $want_nice -le 19 ] || want_nice=19
grep -q "policy=SCHED_RR priority=7 nice=$want_nice" out.txt || grep -q "rr unavailable" out.txt ||
	fail "the SCHED_RR thread did not read itself as SCHED_RR 7 nice $want_nice: $(cat out.txt)"
finish
