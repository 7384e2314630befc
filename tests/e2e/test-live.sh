#!/bin/bash
# mtx ctl SOCK live (collector/live.h): the run so far, asked while it runs,
# with the truth from the program and /proc. tests/e2e/phased, with
# PHASED_HOLD_MS, spins in phase one, takes one mutex in turns in phase two
# (each worker measuring its time inside pthread_mutex_lock by its own
# clock), then its workers log and wait at a last barrier (logging when they
# went in) while the main thread sleeps. Asked then, when nothing changes
# but those waits:
#  - the threads listed are those of /proc/PID/task; the workers are
#    blocked, the main thread sleeping;
#  - each worker's running time is its own CPU time (CLOCK_THREAD_CPUTIME_ID)
#    within 2% (+2 ms), and its lock waits its own measure within 2% (+2 ms);
#  - the barrier's time in its ops is the workers' waits in it so far, up to
#    the answer's now, by the times they went in (the program's clock, the
#    same as mtx's), within 1% (+1 ms each): waits still going on count;
#  - without --json, mtx ctl says the answer's summary; after the run, one
#    line says that nothing answers, exit 1.
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1
PROG="$BUILDDIR/tests/e2e/phased"
N=3

PHASED_HOLD_MS=6000 "$MTX" collect -q --control live.sock -o live.db -- "$PROG" $N 200 200 lock \
	> live.out 2> live.err &
mpid=$!
entered() { [ "$(grep -c '^enter ' live.out 2> /dev/null)" = $N ]; }
wait_until entered || fail "the workers never reached the last barrier: $(head -3 live.err)"
pid=$(pgrep -f "^$PROG $N 200 200 lock")
sleep 1 # the collector's stream passes the workers' going in
"$MTX" ctl --json live.sock live > live.json 2> ctl.err || fail "mtx ctl --json live: $(cat ctl.err)"
tasks=$(ls "/proc/$pid/task" 2> /dev/null | sort -n | tr '\n' ' ')
"$MTX" ctl live.sock live > live.txt 2> ctl.err || fail "mtx ctl live: $(cat ctl.err)"
wait $mpid || fail "collect --control exited $?: $(head -1 live.err)"
lost=$(lost_records live.db)
[ -z "$lost" ] || fail "the run lost records ($lost): the totals below need every one"

threads() { sqlite3 -batch :memory: "SELECT $1 FROM json_each(readfile('live.json'), '\$.threads') $2"; }
listed=$(threads "value ->> 'tid'" "ORDER BY 1" | tr '\n' ' ')
[ -n "$tasks" ] && [ "$listed" = "$tasks" ] && pass "the threads listed are /proc/$pid/task's ($tasks)" ||
	fail "threads listed '$listed', /proc/$pid/task has '$tasks'"
states=$(threads "group_concat(DISTINCT value ->> 'state')" "WHERE value ->> 'tid' != $pid")
main=$(threads "value ->> 'state'" "WHERE value ->> 'tid' = $pid")
[ "$states" = blocked ] && [ "$main" = sleeping ] &&
	pass "the workers are blocked at the barrier, the main thread sleeping" ||
	fail "the workers' states '$states' (not blocked), the main thread's '$main' (not sleeping)"

# each worker's running time and lock waits against its own clocks
checked=0
for tid in $(awk '$1 == "enter" { print $2 }' live.out); do
	own_cpu=$(awk -v t="$tid" '$1 == "cpu" && $2 == t { s += $4 } END { printf "%.0f", s }' live.out)
	own_wait=$(awk -v t="$tid" '$1 == "wait" && $2 == t { print $3 }' live.out)
	read -r cpu wait < <(threads "value ->> 'running_ns', value ->> 'lock_wait_ns'" "WHERE value ->> 'tid' = $tid" |
		tr '|' ' ')
	if awk -v a="${cpu:-x}" -v b="$own_cpu" -v c="${wait:-x}" -v d="$own_wait" 'function off(x, y) {
		return x - y > 0.02 * y + 2e6 || y - x > 0.02 * y + 2e6 }
		BEGIN { exit (a == "x" || c == "x" || off(a, b) || off(c, d)) }'; then
		checked=$((checked + 1))
	else
		fail "worker $tid: running $cpu ns and lock waits $wait ns by mtx, $own_cpu and $own_wait by its own clocks"
	fi
done
[ $checked = $N ] && pass "each worker's running time and lock waits are its own, within 2%"

# the waits going on at the barrier, to the answer's now
barrier=$(awk '$1 == "hold" { print $2 }' live.out)
read -r now op_ns < <(sqlite3 -batch :memory: "SELECT j ->> '\$.now_ns', (SELECT value ->> 'op_ns'
	FROM json_each(j, '\$.objects') WHERE value ->> 'address' = '$barrier') FROM (SELECT readfile('live.json') AS j)" |
	tr '|' ' ')
want=$(awk -v now="${now:-0}" '$1 == "enter" { s += now - $3 } END { printf "%.0f", s }' live.out)
if awk -v g="${op_ns:-x}" -v w="$want" -v n=$N 'BEGIN { d = g - w; if (d < 0) d = -d; exit (g == "x" || d > 0.01 * w + n * 1e6) }'; then
	pass "the barrier's waits going on count to now: $op_ns ns, the workers' $want ns since they went in"
else
	fail "the barrier $barrier: ${op_ns:-no} ns in its ops by mtx, $want ns since the workers went in (now $now)"
fi

grep -Eq "^[0-9.]+ s into the run: $((N + 1)) threads alive, 0 ended; [0-9]+ sync ops$" live.txt &&
	pass "mtx ctl live: $(cat live.txt)" || fail "mtx ctl live said '$(cat live.txt)'"
"$MTX" ctl live.sock live > gone.out 2> gone.err
st=$?
[ $st = 1 ] && [ ! -s gone.out ] && [ "$(wc -l < gone.err)" = 1 ] &&
	pass "after the run: exit 1, $(cat gone.err)" || fail "after the run: exit $st, '$(cat gone.out gone.err)'"
finish
