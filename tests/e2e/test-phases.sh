#!/bin/bash
# Phases (SEEDS-MAP S9), with the truth from the program: tests/e2e/phased
# marks its phases with mtx_phase (collector/preload/mtx-phase.h) and logs
# CLOCK_MONOTONIC around each mark, and each worker's CLOCK_THREAD_CPUTIME_ID
# time in each phase (its workers wait at a barrier while the next phase is
# marked, so none runs across a boundary):
#  - the phases table has phase 0, the whole run, and one row per mark,
#    begun within 50 us of the program's clock reads around the mark, each
#    ending where the next begins, the last at the run's end;
#  - report threads --phase, by name or id, gives each worker's running
#    time in the phase within 2% (+2 ms) of the worker's own CPU time;
#  - report phases adds the threads' shares up per phase, and with --metric
#    gives a metric at a focus per phase (a lock the program takes in one
#    phase only has all its waits there); --phases-at cuts the run after
#    the fact;
#  - diagnose --phase searches the phase alone: a program CPU-bound in one
#    phase and waiting for a mutex in the next has each finding first in
#    its own phase, with the evidence's report over that phase;
#  - mtx ctl SOCK phase NAME marks a phase while the program runs, between
#    the test's clock reads around the command, and so does each signal
#    --phase-signal names, sent to the program with kill;
#  - a phase that is not there, or --phase with --from, is one line and
#    exit status 2.
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1
PROG="$BUILDDIR/tests/e2e/phased"

"$MTX" collect -q -o ph.db -- "$PROG" 2 300 200 > ph.out 2> ph.err || fail "collect exited $?: $(head -1 ph.err)"
[ -s ph.err ] && fail "mtx said: $(head -3 ph.err)"
lost=$(lost_records ph.db)
[ -z "$lost" ] || fail "the run lost records ($lost): the per-phase times below need every one"
main=$(sql ph.db "SELECT tid FROM threads WHERE tid = pid LIMIT 1")
read -r run_start run_end < <(sql ph.db "SELECT (SELECT value FROM meta WHERE key = 'start_ns'),
	(SELECT value FROM meta WHERE key = 'end_ns')" | tr '|' ' ')
[ "$(sql ph.db "SELECT id || ' ' || name || ' ' || start_ns || ' ' || end_ns || ' ' || source FROM phases WHERE id = 0")" = \
	"0 global $run_start $run_end run" ] && pass "phase 0 is the whole run" ||
	fail "phase 0: '$(sql ph.db "SELECT * FROM phases WHERE id = 0")', not the run $run_start-$run_end"
id=0 prev_end=""
while read -r _ name before after; do
	id=$((id + 1))
	row=$(sql ph.db "SELECT name || ' ' || start_ns || ' ' || end_ns || ' ' || source || ' ' || tid FROM phases WHERE id = $id")
	read -r pname start end source tid <<< "$row"
	if [ "$pname" != "$name" ] || [ "$source" != call ] || [ "$tid" != "$main" ]; then
		fail "phase $id is '$row', not $name marked by a call of thread $main"
	elif [ "$start" -lt $((before - 50000)) ] || [ "$start" -gt $((after + 50000)) ]; then
		fail "phase $name begins at $start, not within 50 us of the program's mark at $before-$after"
	else
		pass "phase $id '$name' begins at the program's mark (+$((start - before)) ns after its clock read before it)"
	fi
	[ -z "$prev_end" ] || [ "$prev_end" = "$start" ] || fail "phase $((id - 1)) ends at $prev_end, not where $name begins ($start)"
	prev_end=$end
done < <(grep '^mark ' ph.out)
[ "$id" = 2 ] || fail "the program logged $id marks, not 2: $(head -3 ph.out)"
[ "$prev_end" = "$run_end" ] || fail "the last phase ends at $prev_end, not at the run's end $run_end"
[ "$(sql ph.db "SELECT COUNT(*) FROM phases")" = 3 ] || fail "phases rows: $(sql ph.db "SELECT COUNT(*) FROM phases"), not 3"

# each worker's running time per phase against its own CPU clock
for phase in one 2; do
	k=$([ $phase = one ] && echo 1 || echo 2)
	"$MTX" report ph.db threads --phase $phase -f csv > threads.$k.csv 2> threads.err ||
		fail "report threads --phase $phase: $(head -1 threads.err)"
	checked=0
	while read -r _ tid _ own; do
		got=$(awk -F, -v t="$tid" '$1 == t { printf "%.0f", $3 * $4 / 100 }' threads.$k.csv)
		if [ -z "$got" ]; then
			fail "report threads --phase $phase has no row of worker $tid"
		elif [ "$(awk -v g="$got" -v o="$own" 'BEGIN { d = g - o; if (d < 0) d = -d; print (d <= 0.02 * o + 2e6) }')" = 1 ]; then
			checked=$((checked + 1))
		else
			fail "worker $tid ran $got ns in phase $phase by mtx, $own ns by its own CPU clock"
		fi
	done < <(awk -v k=$k '$1 == "cpu" && $3 == k' ph.out)
	[ "$checked" = 2 ] && pass "phase $phase: each worker's running time is its own CPU time within 2%"
done

"$MTX" report ph.db phases -f csv > phases.csv 2> phases.err || fail "report phases: $(head -1 phases.err)"
[ "$(cut -d, -f1-3 phases.csv | tr '\n' ' ')" = "id,name,source 0,global,run 1,one,call 2,two,call " ] &&
	pass "report phases lists phase 0 and the two marked" || fail "report phases: $(head -4 phases.csv | tr '\n' ' ')"
# its shares: the threads report's, weighted by each thread's time in the
# phase (whose shares are rounded to 0.1)
want=$(awk -F, 'NR > 1 { life += $3; run += $3 * $4 / 100 } END { printf "%.2f", 100 * run / life }' threads.1.csv)
got=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "running_pct") c = i; next } $1 == 1 { print $c }' phases.csv)
[ "$(awk -v g="${got:-x}" -v w="$want" 'BEGIN { d = g - w; print (g != "x" && d <= 0.1 && d >= -0.1) }')" = 1 ] &&
	pass "report phases: phase one's running share is the threads' ($got%)" ||
	fail "report phases: phase one's running share '$got'%, the threads report's add up to $want%"
"$MTX" report ph.db phases --phases-at 100ms,200ms -f csv > at.csv 2> at.err || fail "--phases-at: $(head -1 at.err)"
[ "$(awk -F, 'NR > 1 { print $1 "," $2 "," $3 "," $5 }' at.csv | tr '\n' ' ')" = \
	"0,global,run,0.000000000 1,phase-1,at,0.000000000 2,phase-2,at,0.100000000 3,phase-3,at,0.200000000 " ] &&
	pass "--phases-at 100ms,200ms cuts the run in three" || fail "--phases-at: $(cat at.csv | tr '\n' ' ')"

# bad input: one line (a bad command line's also says the usage), exit 2
bad=0
for args in "threads --phase three" "threads --phase 7" "threads --phase one --from 1ms" \
	"phases --phases-at 200ms,100ms" "phases --phases-at 1h"; do
	"$MTX" report ph.db $args > bad.out 2> bad.err
	st=$?
	[ $st = 2 ] && [ "$(grep -vc '^usage: ' bad.err)" = 1 ] && [ ! -s bad.out ] || {
		fail "report $args: exit $st, '$(cat bad.out bad.err | tr '\n' ';')' (not one line, exit 2)"
		bad=1
	}
done
[ $bad = 0 ] && pass "a phase not in the run, or a window given twice, is one line and exit 2"

# diagnose --phase: phase one is CPU-bound (four spinners on two CPUs),
# phase two waits for one mutex (each spins 1 ms at a time under it). The
# mutex is unfair: one worker keeps it to its end while the rest wait, so
# the workers run one after another, and with four of them the phase's
# waits (0+1+2+3 = 6 turns) outweigh its running (4 turns) by half; with three
# they were 3 turns against 3, and noise decided which came first.
"$MTX" collect -q -o lock.db -- "$PROG" 4 300 200 lock > lock.out 2> lock.err || fail "collect lock: $(head -1 lock.err)"
addr=$(awk '$1 == "lock" { print $2 }' lock.out)
for phase in one two; do
	"$MTX" diagnose lock.db --phase $phase -f json > d.$phase.json 2> d.err || fail "diagnose --phase $phase: $(head -1 d.err)"
done
# (on a loaded machine, make -j2 check's, the spinners wait for a CPU as
# long as they run: their running share fell under CPUbound's threshold
# there, but they run or wait for a CPU all phase long, and never for a lock)
whys1=$(sqlite3 :memory: "SELECT group_concat(value ->> 'why', ' ') FROM json_each(readfile('d.one.json'), '$.findings')")
read -r name1 < <(json_fields d.one.json '$.phase.name')
read -r why2 obj2 see2 < <(json_fields d.two.json '$.findings[0].why' '$.findings[0].where.object.address' '$.findings[0].see')
case " $whys1 " in
*" sync "*) fail "diagnose --phase one: a lock wait found where there is none ($whys1)" ;;
*" cpu "* | *" cpu_wait "*) [ "$name1" = one ] && pass "diagnose --phase one: cpu found, no lock wait ($whys1)" ||
	fail "diagnose --phase one: the search is of phase '$name1'" ;;
*) fail "diagnose --phase one: neither cpu nor cpu_wait found ($whys1)" ;;
esac
if [ "$why2" = sync ] && [ "$obj2" = "$addr" ]; then
	pass "diagnose --phase two: sync first, on the program's mutex $addr"
else
	fail "diagnose --phase two: first finding '$why2' on '$obj2', not sync on the mutex $addr"
fi
case "$see2" in *"--phase 2") ;; *) fail "diagnose --phase two: its evidence '$see2' is not the phase's" ;; esac
# the phase table of a metric at a focus: the mutex is only taken in phase two
"$MTX" report lock.db phases --metric sync_wait --focus "/SyncObject/mutex/$addr" -f csv > pt.csv 2> pt.err ||
	fail "report phases --metric: $(head -1 pt.err)"
read -r w0 w1 w2 < <(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "sync_wait_ns") c = i; next }
	{ v[$1] = $c } END { printf "%.0f %.0f %.0f\n", v[0], v[1], v[2] }' pt.csv)
whole=$("$MTX" report lock.db metric sync_wait --focus "/SyncObject/mutex/$addr" -f csv 2> /dev/null |
	awk -F, 'NR == 2 { print $4 }')
if [ "$w1" = 0 ] && [ "$w2" -gt 0 ] && [ "$w2" = "$w0" ] && [ "$w0" = "${whole:-x}" ]; then
	pass "report phases --metric sync_wait at the mutex: 0 in phase one, all of the run's $w0 ns in phase two"
else
	fail "report phases --metric sync_wait at the mutex: $w0 ns in the run, $w1 in one, $w2 in two" \
		"(report metric: ${whole:-none})"
fi
m2=$("$MTX" report lock.db metric sync_wait --focus "/SyncObject/mutex/$addr" --phase two -f csv 2> /dev/null |
	awk -F, 'NR == 2 { print $4 }')
[ "$m2" = "$w2" ] && pass "report metric --phase two: the phase table's $m2 ns" ||
	fail "report metric --phase two: '$m2' ns, the phase table's $w2"
n=$(sql lock.db "SELECT COUNT(*) FROM pc_nodes")
[ "$n" = 0 ] || fail "diagnose --phase kept its search in pc_nodes ($n rows), the whole run's place"

# mtx ctl SOCK phase NAME, while the program runs
"$MTX" collect -q --control ctl.sock -o ctl.db -- "$PROG" 2 1500 100 > ctl.out 2> ctl.err &
mpid=$!
ctl_ok() { "$MTX" ctl ctl.sock probe list > /dev/null 2>&1; }
wait_until ctl_ok || fail "mtx ctl ctl.sock never answered: $(head -3 ctl.err)"
sleep 0.3
t0=$("$PROG" now)
"$MTX" ctl ctl.sock phase the middle > mark.out 2> mark.err || fail "mtx ctl phase: $(cat mark.out mark.err)"
t1=$("$PROG" now)
wait $mpid || fail "collect --control exited $?: $(head -1 ctl.err)"
read -r start source < <(sql ctl.db "SELECT start_ns, source FROM phases WHERE name = 'the middle'" | tr '|' ' ')
if [ "${source:-}" != ctl ]; then
	fail "no phase 'the middle' marked by ctl: $(sql ctl.db "SELECT * FROM phases" | tr '\n' ';')"
elif [ "$start" -lt "$t0" ] || [ "$start" -gt "$t1" ]; then
	fail "phase 'the middle' begins at $start, not between the test's clock reads around mtx ctl ($t0-$t1)"
else
	order=$(sql ctl.db "SELECT group_concat(name, ',') FROM (SELECT name FROM phases WHERE id > 0 ORDER BY id)")
	[ "$order" = "one,the middle,two" ] && pass "mtx ctl phase: 'the middle' between one and two, when it was sent" ||
		fail "phases in order: $order, not one,the middle,two"
fi
# --phase-signal: each USR2 sent to the program (which ignores it) begins a phase
cp "$PROG" phased-sig
"$MTX" collect -q --phase-signal USR2 -o sig.db -- sh -c "trap '' USR2; exec '$TMP/phased-sig' 2 1500 100" \
	> sig.out 2> sig.err &
mpid=$!
prog_pid() { pid=$(pgrep -f "^$TMP/phased-sig 2"); }
wait_until prog_pid || fail "phased never started under --phase-signal: $(head -3 sig.err)"
sleep 0.3
sent=()
for i in 1 2; do
	t0=$("$PROG" now)
	kill -USR2 "$pid"
	sent+=("$t0 $("$PROG" now)")
	sleep 0.1
done
wait $mpid || fail "collect --phase-signal exited $?: $(head -1 sig.err)"
i=0
while read -r start tid; do
	read -r t0 t1 <<< "${sent[$i]:-0 0}"
	i=$((i + 1))
	if [ "$tid" != "$pid" ] || [ "$start" -lt "$t0" ] || [ "$start" -gt "$t1" ]; then
		fail "signal phase $i: begins at $start for task $tid, not between the test's clock reads around kill" \
			"($t0-$t1) for $pid"
	fi
done < <(sql sig.db "SELECT start_ns, tid FROM phases WHERE source = 'signal' ORDER BY id" | tr '|' ' ')
[ "$i" = 2 ] && pass "--phase-signal USR2: a phase each time kill sent it, begun then" ||
	fail "--phase-signal USR2: $i signal phases, not 2: $(sql sig.db "SELECT * FROM phases" | tr '\n' ';')"
finish
