#!/bin/bash
# Seed 004's oracle on its own ground (SEEDS-MAP P4): one CPU, fixed
# priorities, input from another process at fixed instants. The truth is
# tests/e2e/fifo1's own order (an atomic counter in its wrappers) in runs
# without mtx. Under mtx with 100 us injected into every sync call, the
# program's chunks of work drift and its reader takes the lock elsewhere;
# the simulation of seed 004's model (up-prio: one CPU, priorities),
# with the overhead taken out, the interrupts given back to T_0 and the
# reader's waits ended at the feeder's instants, must give the order of
# the run without mtx: up to the first divergent event as the verdict
# requires, and here, where each thread's own path is the same whatever
# the order, to the end. With nothing injected, mtx's own overhead may
# or may not move the order: if the verdict is "equal" the run's order
# must be the program's own, and the simulation must give it either way.
. "$(dirname "$0")/lib.sh"
require_perf
alone_with_timing
cd "$TMP" || exit 1
PROG="$BUILDDIR/tests/e2e/fifo1"
rounds=8

# run_fifo1 OUT [mtx collect options...]: fifo1 with its feeder (never
# under mtx), its order as "thread#k" lines in OUT.
run_fifo1() {
	local out=$1 rc
	shift
	rm -f data start
	mkfifo data start
	"$PROG" --feed data start $rounds &
	if [ $# -gt 0 ]; then
		"$MTX" collect -q "$@" -- "$PROG" data start $rounds > log.txt 2> err.txt
	else
		"$PROG" data start $rounds > log.txt 2> err.txt
	fi
	rc=$?
	wait
	[ $rc = 77 ] && skip "$(cat err.txt)"
	[ $rc = 0 ] || { fail "fifo1 ${*:+under mtx }exited $rc: $(head -1 err.txt)"; finish; }
	awk '{ print $2 "#" $3 }' log.txt > "$out"
}

# simulated DB MODEL OUT: the simulated order of DB's lock and unlock
# calls, numbered per thread as fifo1 numbers them.
simulated() {
	sql "$1" "SELECT tid || ' ' || name FROM threads" > names.txt
	"$MTX" probe-effect --model "$2" --simulate-only --format csv "$1" > sim.csv 2> sim.err ||
		fail "probe-effect --simulate-only on $1 exited $?: $(head -1 sim.err)"
	awk -F, 'NR == FNR { name[$1] = $2; next }
		FNR > 1 && ($6 == "lock" || $6 == "unlock") { print name[$3] "#" ++n[$3] }' \
		FS=' ' names.txt FS=, sim.csv > "$3"
}

# The truth: the order two of three runs without mtx agree on (another
# program's real-time thread, such as a collector's drain in a parallel
# test, can hold CPU 0 for milliseconds and move one run's order).
for i in 1 2 3; do
	run_fifo1 plain$i.seq
	[ "$(wc -l < plain$i.seq)" = $((2 * (5 * rounds + 5) + 2 * rounds)) ] ||
		fail "run $i without mtx logged $(wc -l < plain$i.seq) calls"
done
if cmp -s plain1.seq plain2.seq || cmp -s plain1.seq plain3.seq; then
	cp plain1.seq plain.seq
elif cmp -s plain2.seq plain3.seq; then
	cp plain2.seq plain.seq
else
	fail "three runs without mtx gave three orders: fifo1's order is not reproducible here"
	finish
fi

# 100 us injected: the instrumented order departs from the truth ...
run_fifo1 inst.seq -e sched,wakeups,sync,interrupts --inject-overhead 100us -o inj.db
cmp -s plain.seq inst.seq && fail "100 us an op left fifo1's order as it was: the oracle had nothing to undo"
"$MTX" probe-effect --model up-prio --format json inj.db > verdict.json 2> verdict.err
rc=$?
[ $rc = 3 ] && grep -q '"verdict": "divergent"' verdict.json &&
	pass "the verdict with 100 us injected: divergent (the instrumented order is not the program's)" ||
	fail "the verdict with 100 us injected: exit $rc, $(head -c 80 verdict.json)$(head -1 verdict.err)"
# ... and the simulation takes it back, up to e_d and past it.
simulated inj.db up-prio sim.seq
upto=$(sed -n 's/.*"order_sim": \([0-9]*\).*/\1/p' verdict.json)
# e_d's place among the lock and unlock calls (main's creates and joins are not among them)
before=$(awk -F, -v upto="${upto:-0}" 'FNR > 1 && $1 < upto && ($6 == "lock" || $6 == "unlock")' sim.csv | wc -l)
cmp -s <(head -n "$before" plain.seq) <(head -n "$before" sim.seq) &&
	pass "the simulated order equals fifo1's own without mtx for the $before calls before e_d" ||
	fail "the simulated order departs from fifo1's own before e_d:" \
		"$(diff <(head -n "$before" plain.seq) <(head -n "$before" sim.seq) | head -4 | tr '\n' ' ')"
cmp -s plain.seq sim.seq &&
	pass "and to the end: all $(wc -l < sim.seq) calls, where the instrumented order differs" ||
	fail "the simulated order departs from fifo1's own after e_d: $(diff plain.seq sim.seq | head -4 | tr '\n' ' ')"

# Nothing injected: two runs must hold, of at most five, as for the truth
# above: another task can hold CPU 0 for milliseconds in one run and move
# its order there, and where perf does not record that task (this
# machine's pid 1 agent, test-external found) neither the verdict nor the
# simulation can see it. (Once in CI the host kept that up for the three
# runs this allowed before.)
good=0
for i in 1 2 3 4 5; do
	run_fifo1 inst0.seq -e sched,wakeups,sync,interrupts -o none$i.db
	"$MTX" probe-effect --model up-prio none$i.db > none.txt 2>&1
	rc=$?
	simulated none$i.db up-prio sim0.seq
	case $rc in
	0) why=$(cmp -s plain.seq inst0.seq || echo "the verdict is equal, but the order is not fifo1's own:" \
		"$(diff plain.seq inst0.seq | head -4 | tr '\n' ' ')") ;;
	3) why=""
	   echo "note: run $i, with nothing injected mtx moved the order: $(grep -m1 Verdict none.txt)" ;;
	*) why="probe-effect exited $rc: $(head -1 none.txt)" ;;
	esac
	cmp -s plain.seq sim0.seq || why="$why the simulated order departs: $(diff plain.seq sim0.seq | head -4 | tr '\n' ' ')"
	if [ -z "$why" ]; then
		good=$((good + 1))
	else
		echo "note: run $i with nothing injected: $why"
	fi
	[ $good = 2 ] && break
done
[ $good = 2 ] &&
	pass "with nothing injected, in two runs: an equal verdict only where the order is fifo1's own, the simulated order its own" ||
	fail "with nothing injected, $good of $i runs had an equal verdict only with fifo1's own order and simulated it"
finish
