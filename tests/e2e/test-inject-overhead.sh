#!/bin/bash
# mtx collect --inject-overhead (seed 004 §5; SEEDS-MAP P1, P7): with a
# 20 us busy wait before every sync call, each philosopher's
# instrumentation time (mtx report overhead) grows by the number of sync
# calls it made - its own count (samples/selfcheck.h) - times 20 us,
# within 3% and 500 ns a call, over a run without the option, besides
# what its kernel records' cost grew by (it switches more); the kernel
# saw that time as the thread's running time. Limited to one thread by
# name (farm's
# worker-1), only that thread's calls wait; limited to some ops (op=),
# only those ops wait, as many as the program made. And on a CPU-bound program
# (ring, whose threads compute a fixed amount of their own CPU time), each
# thread's "CPU time without overhead" under 200 us of injected overhead
# comes back to the CPU time the same thread (by creation rank) had in
# the plain run, by its own clock (samples/selfcheck.h's cpu_ns): nearer
# to it than half the overhead injected into that thread (removing none,
# or twice, misses by all of it). How near (issue 28 asks 5%; 1.3-7.5%
# seen) is a figure of the machine's load, printed as a note, never a
# threshold. The program's output and exit status are the same as without
# mtx.
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1

PHILO=$(private_sample philosophers) || { fail "no copy of the philosophers sample"; finish; }
FARM=$(private_sample farm) || { fail "no copy of the farm sample"; finish; }

# report_rows DB - per thread "name instr_time_ns cpu_time_ns", from the report
report_rows() {
	"$MTX" report "$1" overhead --format csv 2> /dev/null |
		awk -F, 'NR > 1 && $1 != "" && $1 ~ /^[0-9]+$/ { print $2, $4, $3 }'
}

# Without syscall records: their cost is calibrated anew in each run, and
# its wobble is not what is tested here.
collect_same plain.db -e sched,sync -- "$PHILO" 5 80
MTX_SELFCHECK=$TMP/inj.sc collect_same inj.db -e sched,sync --inject-overhead 20us -- "$PHILO" 5 80
[ "$(sql inj.db "SELECT value FROM meta WHERE key = 'inject_overhead'")" = 20us ] ||
	fail "meta inject_overhead is not the option as given"
[ "$(sql inj.db "SELECT value FROM meta WHERE key = 'lost_sync'")" = 0 ] || fail "sync records were lost"

# The calls each thread made, as the program counted them (its own pid's).
import_selfcheck inj.sc inj.db
sql inj.db "CREATE TABLE calls_made AS SELECT t.name, SUM(o.count) AS n FROM sc_op o
	JOIN threads t ON t.tid = o.tid JOIN processes p ON p.pid = o.pid GROUP BY t.tid"
report_rows plain.db > plain.rows
report_rows inj.db > inj.rows
# A thread's wrapper time in a run: the sum of its ops' overhead_ns. The
# rest of its instr_time is its kernel records' calibrated cost, which
# grows too when the injected wait makes the threads switch more (by a few
# percent of the injection on a loaded machine): that part is taken out.
wrappers() { sql "$1" "SELECT TOTAL(o.overhead_ns) FROM sync_ops o JOIN threads t ON t.tid = o.tid
	WHERE t.name = '$2'" | cut -d. -f1; }
checked=0
while read -r name n; do
	before=$(awk -v t="$name" '$1 == t { print $2 }' plain.rows)
	read -r after cpu < <(awk -v t="$name" '$1 == t { print $2, $3 }' inj.rows)
	if [ -z "$before" ] || [ -z "$after" ]; then
		fail "$name: no row in the overhead report (before: '$before', after: '$after')"
		continue
	fi
	checked=$((checked + 1))
	wrap_before=$(wrappers plain.db "$name") wrap_after=$(wrappers inj.db "$name")
	[ "$before" -ge "$wrap_before" ] && [ "$after" -ge "$wrap_after" ] ||
		fail "$name: instr_time $before / $after ns holds less than its wrappers' $wrap_before / $wrap_after ns"
	g=$((after - before)) kernel=$(((after - wrap_after) - (before - wrap_before)))
	# grown by n x 20 us within 3%, besides its kernel records, and 500 ns
	# a call: the two runs' wrappers differ that much a call by themselves
	# (a thread with 22 calls moved by 14 us under the sanitizers, 3.2%);
	# the busy wait ran on the CPU
	if awk -v g=$((g - kernel)) -v want=$((n * 20000)) -v n="$n" \
		'BEGIN { d = g - want; if (d < 0) d = -d; exit !(d <= 0.03 * want + 500 * n) }'; then
		pass "$name: instr_time grew by $g ns for $n calls x 20 us ($kernel ns of it kernel records)"
	else
		fail "$name: instr_time grew by $g ns, $kernel ns of it kernel records, not $n calls x 20 us = $((n * 20000)) ns (within 3% and 500 ns a call)"
	fi
	[ "$cpu" -ge $((n * 20000)) ] || fail "$name: ran $cpu ns in all, less than its $n x 20 us of injected wait"
done < <(sql inj.db "SELECT name || ' ' || n FROM calls_made")
[ "$checked" = 6 ] || fail "checked $checked threads, not the 6 of philosophers 5"

# The TSC's rate that --cycles converts by, kept when the library stamps
# with the TSC: each thread's cycles are its ns at that rate.
if [ "$(sql inj.db "SELECT value FROM meta WHERE key = 'sync_stamps'")" = tsc ]; then
	hz=$(sql inj.db "SELECT value FROM meta WHERE key = 'tsc_hz'")
	"$MTX" report inj.db overhead --format csv 2> /dev/null | awk -F, 'NR > 1 && $1 ~ /^[0-9]+$/' > ns.rows
	"$MTX" report inj.db overhead --cycles --format csv 2> /dev/null | awk -F, 'NR > 1 && $1 ~ /^[0-9]+$/' > cycles.rows
	if [ -n "$hz" ] && [ "$hz" -gt 0 ] && [ -s ns.rows ] && paste -d, ns.rows cycles.rows | awk -F, -v hz="$hz" '
		{ for (i = 3; i <= 5; i++) { want = $i * hz / 1e9; d = $(i + 6) - want; if (d < -1 || d > 1) bad = 1 } }
		END { exit bad }'; then
		pass "meta tsc_hz $hz: report overhead --cycles gives each thread's ns at that rate"
	else
		fail "tsc_hz '$hz': --cycles rows do not follow: $(paste -d, ns.rows cycles.rows | head -2)"
	fi
	echo "note: meta tsc_hz $hz; /proc/cpuinfo says $(grep -m1 'cpu MHz' /proc/cpuinfo)"
fi

# Only the threads named worker-1, from its rename on (its first act).
MTX_SELFCHECK=$TMP/scoped.sc collect_same scoped.db --inject-overhead 20us:sync:thread=worker-1 -- "$FARM" 3 40
import_selfcheck scoped.sc scoped.db
calls=$(sql scoped.db "SELECT SUM(o.count) FROM sc_op o JOIN threads t ON t.tid = o.tid WHERE t.name = 'worker-1'")
got=$(sql scoped.db "SELECT COUNT(*) FROM sync_ops op JOIN threads t ON t.tid = op.tid
	WHERE t.name = 'worker-1' AND op.injected_ns >= 20000")
others=$(sql scoped.db "SELECT COUNT(*) FROM sync_ops op JOIN threads t ON t.tid = op.tid
	WHERE t.name != 'worker-1' AND op.injected_ns != 0")
[ -n "$calls" ] && [ "$calls" -gt 0 ] && [ "$got" = "$calls" ] && [ "$others" = 0 ] &&
	pass "thread=worker-1: its $calls calls waited, no other thread's" ||
	fail "thread=worker-1: $got of its $calls calls waited; $others calls of other threads did"

# Only some ops (op=lock,post): each thread's locks and posts waited, as
# many as it says it made, and nothing else did, its trylocks (another op,
# though on the same mutexes), unlocks and waits included.
MTX_SELFCHECK=$TMP/ops.sc collect_same ops.db -e sched,sync --inject-overhead 20us:op=lock,post -- "$PHILO" 5 40
import_selfcheck ops.sc ops.db
bad=$(sql ops.db "WITH made AS (SELECT tid, SUM(count) AS n FROM sc_op WHERE op IN ('lock', 'post')
		AND pid IN (SELECT pid FROM processes) GROUP BY tid),
	waited AS (SELECT tid, COUNT(*) AS n FROM sync_ops WHERE op IN ('lock', 'post') AND injected_ns >= 20000
		GROUP BY tid)
	SELECT m.tid || ': ' || m.n || ' made, ' || COALESCE(w.n, 0) || ' waited' FROM made m
	LEFT JOIN waited w ON w.tid = m.tid WHERE COALESCE(w.n, 0) != m.n")
threads=$(sql ops.db "SELECT COUNT(DISTINCT tid) FROM sync_ops WHERE op IN ('lock', 'post') AND injected_ns >= 20000")
others=$(sql ops.db "SELECT COUNT(*) FROM sync_ops WHERE op NOT IN ('lock', 'post') AND injected_ns != 0")
trylocks=$(sql ops.db "SELECT COUNT(*) FROM sync_ops WHERE op = 'trylock'")
[ -z "$bad" ] && [ "$threads" -ge 5 ] && [ "$others" = 0 ] &&
	pass "op=lock,post: every lock and post waited, in $threads threads; none of the other ops ($trylocks trylocks)" ||
	fail "op=lock,post: ${bad:-counts match}; $threads threads waited; $others other ops waited"

# CPU time without overhead against the plain run's own clock. Both runs
# append to ring.sc; the plain run's pid is the one run.db does not know.
RING=$(private_sample ring) || { fail "no copy of the ring sample"; finish; }
MTX_SELFCHECK=$TMP/ring.sc collect_same ring.db -e sched,sync --inject-overhead 200us -- "$RING" 3 200 500
import_selfcheck ring.sc ring.db
"$MTX" report ring.db overhead --format csv 2> /dev/null |
	awk -F, 'NR > 1 && $1 ~ /^[0-9]+$/ { print $1 "," $5 }' > ring.without
sql ring.db "CREATE TABLE without(tid INTEGER, ns INTEGER)"
sqlite3 -batch ring.db ".mode csv" ".import $TMP/ring.without without"
# rank: the ring threads' creation order within each run
compared=0
while IFS='|' read -r rank plain without injected; do
	compared=$((compared + 1))
	off=$(awk -v p="$plain" -v w="$without" 'BEGIN { printf "%.1f", (p > 0 ? 100 * (w - p) / p : 0) }')
	if awk -v p="$plain" -v w="$without" -v i="$injected" 'BEGIN { d = w - p; if (d < 0) d = -d
		exit !(p > 0 && i > 0 && d < 0.5 * i) }'; then
		pass "ring thread $rank: $without ns without overhead, $plain ns of CPU in the plain run ($injected ns injected)"
	else
		fail "ring thread $rank: $without ns without overhead, $plain ns of CPU in the plain run:" \
			"not nearer than half the $injected ns injected"
	fi
	echo "note: ring thread $rank: CPU time without overhead $off% off the plain run's"
done < <(sql ring.db "WITH ranked AS (SELECT s.tid, s.pid, s.cpu_ns, (s.pid IN (SELECT pid FROM processes)) AS traced,
		ROW_NUMBER() OVER (PARTITION BY s.pid ORDER BY s.tid) AS rank FROM sc_thread s WHERE s.role = 'ring')
	SELECT p.rank, p.cpu_ns, w.ns, (SELECT COALESCE(SUM(injected_ns), 0) FROM sync_ops WHERE tid = m.tid)
	FROM ranked p JOIN ranked m ON m.rank = p.rank AND m.traced AND NOT p.traced
	JOIN without w ON w.tid = m.tid ORDER BY p.rank")
[ "$compared" = 3 ] || fail "compared $compared ring threads, not 3"
finish
