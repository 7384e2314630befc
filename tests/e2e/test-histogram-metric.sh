#!/bin/bash
# mtx report FILE histogram --metric M --focus F (SEEDS-MAP S5): a metric
# of the Performance Consultant at a focus over time.
#  - busy windows: tests/e2e/planted busywin keeps one thread asleep 200
#    ms, busy 200 ms, asleep, busy, and logs each busy window and its CPU
#    time (CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID). At that thread, each
#    bucket wholly inside a window is busy: its cpu plus cpu_wait is the
#    bucket's width (+-1%); each bucket wholly outside both is idle (cpu
#    under 1% of it); the buckets' cpu is at least the thread's own CPU
#    time (-2%, -2 ms: each of thousands of switches under load stamped a
#    little apart from the CPU clock) and at most the wall time of its busy
#    windows (+2 ms);
#  - the folding rule (seed 003 section 2.2): 64 buckets of 10 ms at first
#    double until the run's span fits, k times, k = the least with
#    64 * 10 ms * 2^k past the span;
#  - every metric's buckets add up to report metric's total at the same
#    focus, exactly: on the busywin run at /, and on the hand-worked
#    fixture (tests/fixtures/waits.sql) at its mutex;
#  - past --detail's budget the buckets that lack added-up rows say so
#    (null), from meta detail_until_ns on, the others not (philosophers);
#  - bad input: one error line, exit 2.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 > /dev/null || skip "sqlite3 (the CLI) is not installed"
cd "$TMP" || exit 1
fixture_dbs waits

"$MTX" collect -q -o busy.db -- "$BUILDDIR/tests/e2e/planted" busywin 1 200 > out.txt 2> prog.txt ||
	fail "collect planted busywin: $(tail -2 prog.txt)"
grep -q 'planted busywin: done' out.txt || fail "planted busywin: $(cat out.txt)"
tid=$(awk '$1 == "busy_tid" { print $2 }' prog.txt)
pid=$(sql busy.db "SELECT pid FROM threads WHERE tid = $tid")
[ -n "$pid" ] || fail "the busy thread $tid is not in the run"

# hist DB METRIC [ARGS...] - "bucket start_ns width_ns value" per bucket
hist() {
	local db=$1 m=$2
	shift 2
	"$MTX" report "$db" histogram --metric "$m" "$@" -f csv 2> err.txt |
		awk -F, 'NR > 1 { print $1, $2, $3, ($4 == "" ? "null" : $4) }'
}

# --- the busy windows, at the busy thread
hist busy.db cpu --focus "/Process/$pid/$tid" --buckets 64 --bucket-width 10ms > cpu.txt
hist busy.db cpu_wait --focus "/Process/$pid/$tid" --buckets 64 --bucket-width 10ms > wait.txt
[ "$(wc -l < cpu.txt)" = 64 ] || fail "cpu at the busy thread: $(wc -l < cpu.txt) buckets, not 64: $(head -1 err.txt)"
bad=$(awk 'FNR == NR && $1 == "busy" { s[++n] = $2; e[n] = $3; next }
	FILENAME == ARGV[2] { wait[$1] = $4; next }
	{ b = $2; end = $2 + $3; inside = 0; outside = 1
	  for (i = 1; i <= n; i++) { if (b >= s[i] && end <= e[i]) inside = 1; if (end > s[i] && b < e[i]) outside = 0 }
	  if (inside) { busy++; d = $4 + wait[$1] - $3; if (d < 0) d = -d; if (d > $3 / 100) { bad++; print "bucket " $1 ": cpu " $4 " + cpu_wait " wait[$1] " of " $3 > "/dev/stderr" } }
	  if (outside && b > s[1] - 150000000) { idle++; if ($4 > $3 / 100) { bad++; print "bucket " $1 ": cpu " $4 " while asleep" > "/dev/stderr" } } }
	END { print bad + 0, busy + 0, idle + 0 }' prog.txt wait.txt cpu.txt 2> bad.txt)
read -r nbad nbusy nidle <<< "$bad"
[ "$nbad" = 0 ] && [ "$nbusy" -ge 10 ] && [ "$nidle" -ge 4 ] &&
	pass "busywin: $nbusy buckets inside its busy windows full (cpu + cpu_wait), $nidle outside idle" ||
	fail "busywin: $nbad of $nbusy busy and $nidle idle buckets wrong: $(head -3 bad.txt)"
sum=$(awk '{ s += $4 } END { print s + 0 }' cpu.txt)
own=$(awk '$1 == "busy_cpu_ns" { print $2 }' prog.txt)
busy=$(awk '$1 == "busy" { s += $3 - $2 } END { print s + 0 }' prog.txt)
# running is at least its CPU time (which leaves out what the hypervisor
# stole and interrupts took, several % on a loaded VM), and at most the
# wall time it was busy, plus 2 ms for starting and ending
awk -v a="$sum" -v cpu="$own" -v busy="$busy" 'BEGIN { exit !(a >= cpu * 0.98 - 2000000 && a <= busy + 2000000) }' &&
	pass "busywin: its buckets' cpu $sum ns, between its own CPU time $own ns and its busy time $busy ns" ||
	fail "busywin: its buckets' cpu $sum ns, not between its own CPU time $own ns and its busy time $busy ns"

# --- the folding rule: 64 x 10 ms doubled k times until the span fits
span=$(sql busy.db "SELECT MAX(end_ns) - MIN(start_ns) FROM thread_totals")
want=$(awk -v s="$span" 'BEGIN { w = 10000000; k = 0; while (64 * w <= s) { w *= 2; k++ } print k, w }')
"$MTX" report busy.db histogram --metric cpu --buckets 64 --bucket-width 10ms -f json > fold.json
got=$(sqlite3 :memory: "SELECT json_extract(j, '\$.folds') || ' ' || json_extract(j, '\$.width_ns')
	FROM (SELECT CAST(readfile('fold.json') AS TEXT) AS j)" 2>&1)
[ "$got" = "$want" ] && pass "folding: a span of $span ns in 64 buckets of 10 ms: $want (folds, width)" ||
	fail "folding: a span of $span ns: got '$got', want '$want'"

# --- every metric adds up to report metric's total at the same focus
# same DB FOCUS... - each metric's buckets against its total
same() {
	local db=$1 m total sum bad=0 args=()
	shift
	for f in "$@"; do args+=(--focus "$f"); done
	for m in $("$MTX" report metric --list | awk 'NR > 1 && /^[a-z]/ { print $1 }'); do
		total=$("$MTX" report "$db" metric "$m" "${args[@]}" -f csv 2> /dev/null | awk -F, 'NR == 2 { print $4 }')
		[ -n "$total" ] || continue # not kept along this focus
		sum=$(hist "$db" "$m" "${args[@]}" --buckets 16 --bucket-width 1us | awk '{ s += $4 } END { print s + 0 }')
		[ "$sum" = "$total" ] || { bad=1; echo "$db $* $m: buckets $sum, total $total" >&2; }
		echo "$m=$sum"
	done
	return $bad
}
line=$(same busy.db 2> bad.txt | tr '\n' ' ') && pass "busywin at /: $line" ||
	fail "busywin at /: $(head -2 bad.txt)"
line=$(same waits.db /SyncObject/mutex 2> bad.txt | tr '\n' ' ') && grep -q 'sync_wait=[1-9]' <<< "$line" &&
	pass "waits.db at its mutexes: $line" || fail "waits.db at its mutexes: $line $(head -2 bad.txt)"

# --- past --detail's budget: the buckets that lack rows say so
"$MTX" collect -q --detail 2000 -o cut.db -- "$SAMPLES/philosophers" > /dev/null 2>&1 ||
	fail "collect --detail 2000 philosophers"
until=$(sql cut.db "SELECT value FROM meta WHERE key = 'detail_until_ns'")
hist cut.db cpu --buckets 32 > cut.txt
bad=$(awk -v u="$until" '($2 + $3 > u) != ($4 == "null") { n++ } END { print n + 0 }' cut.txt)
nulls=$(grep -c ' null$' cut.txt)
[ -n "$until" ] && [ "$bad" = 0 ] && [ "$nulls" -gt 0 ] &&
	pass "--detail 2000: the $nulls buckets from detail_until_ns on are null, the others not" ||
	fail "--detail 2000 (until '$until'): $bad buckets wrongly null or not, $nulls null"

# --- bad input
for args in "--metric cpu --buckets 3" "--metric cpu --buckets 0" "--metric nope" "--metric cpu --bucket-width x" \
	"--metric cpu --focus /SyncObject/mutex" "--metric cpu --focus /Code/nope" "--buckets 8"; do
	# shellcheck disable=SC2086
	"$MTX" report busy.db histogram $args > bad.out 2> bad.err
	rc=$?
	[ $rc = 2 ] && [ "$(grep -c '^mtx: ' bad.err)" = 1 ] && [ ! -s bad.out ] &&
		pass "$args: exit 2, $(grep '^mtx: ' bad.err)" || fail "$args: exit $rc: $(head -2 bad.err)"
done
finish
