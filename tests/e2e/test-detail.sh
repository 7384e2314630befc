#!/bin/bash
# mtx collect --detail (collector/detail.h): past a budget of rows, running
# and runnable intervals, switches and syscalls that did not block are
# added up rather than written, and the totals stay those of every event.
# The truth is the program's own: tests/e2e/yielder's threads each call
# sched_yield() exactly YIELDS times and read the kernel's count of their
# context switches (getrusage) just before they end. With a budget spent
# early (--detail 2000), run.db must hold:
#   - meta detail_until_ns within the run, and summarized rows of each kind;
#   - per thread, exactly YIELDS sched_yield calls, rows and summarized
#     together (and so in the derived syscall_totals the syscalls report reads);
#   - per thread, at least the switches the kernel counted (switch_graph),
#     and as many switches as running intervals ended (+-2: the first and
#     last), which two different tables of detail.c must agree on;
#   - each thread's states in thread_summary tiling its lifetime exactly
#     (so no interval, blocked or not, was lost or counted twice);
#   - no summarizable row that began after the cutoff;
#   - each thread's running time, and its runnable time that ended on a
#     CPU, put on its CPUs, rows and added up (mtx diagnose's /Machine),
#     adding up to thread_summary's;
# mtx info and the reports say the run was summarized, and the probe-effect
# check, which needs every event, refuses it; the program's output
# and exit status are as without mtx; --detail all keeps every row; a bad
# --detail is refused.
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1
PROG=$BUILDDIR/tests/e2e/yielder
[ -x "$PROG" ] || { fail "not built: $PROG"; finish; }
T=4 Y=20000

"$PROG" $T $Y > plain.out 2> /dev/null
plain=$?
"$MTX" collect -q --detail 2000 -o d.db -- "$PROG" $T $Y > mtx.out 2> mtx.err
st=$?
[ "$st" = "$plain" ] && [ "$st" = 0 ] && cmp -s plain.out mtx.out &&
	pass "the program's output and exit status are as without mtx" ||
	fail "exit $st (plain $plain), output $(head -1 mtx.out) (plain $(head -1 plain.out))"
q() { sql d.db "$1" 2>&1; }
until_ns=$(q "SELECT value FROM meta WHERE key = 'detail_until_ns'")
span=$(q "SELECT MIN(start_ns) < $until_ns AND $until_ns < MAX(end_ns) FROM threads" 2> /dev/null)
[ "$span" = 1 ] && pass "meta detail_until_ns $until_ns falls within the run" ||
	fail "meta detail_until_ns '$until_ns' is not within the run"
for k in states switches syscalls; do
	n=$(q "SELECT value FROM meta WHERE key = 'summarized_$k'")
	[ "${n:-0}" -gt 0 ] 2> /dev/null && pass "$n $k added up" || fail "meta summarized_$k is '$n'"
done

# the program's own counts, per thread
awk '$1 == "thread" { print $2 "|" $4 "|" $6 }' mtx.err > truth.txt
[ "$(wc -l < truth.txt)" = $T ] || { fail "the program did not report its $T threads: $(head -3 mtx.err)"; finish; }
sql d.db "CREATE TABLE truth (tid INTEGER, yields INTEGER, switches INTEGER)"
sqlite3 -batch d.db ".import truth.txt truth"
bad=$(q "SELECT t.tid || ': ' || COALESCE((SELECT COUNT(*) FROM syscalls s WHERE s.tid = t.tid AND s.name = 'sched_yield'), 0)
	|| ' rows + ' || COALESCE((SELECT SUM(calls) FROM summarized_syscalls x WHERE x.tid = t.tid AND x.name = 'sched_yield'), 0)
	|| ' added up' FROM truth t WHERE t.yields <> COALESCE((SELECT COUNT(*) FROM syscalls s WHERE s.tid = t.tid
	AND s.name = 'sched_yield'), 0) + COALESCE((SELECT SUM(calls) FROM summarized_syscalls x WHERE x.tid = t.tid
	AND x.name = 'sched_yield'), 0)")
[ -z "$bad" ] && pass "each thread's $Y sched_yield calls, rows and added up" || fail "sched_yield calls: $bad, not $Y"
"$MTX" report d.db syscalls --format csv > syscalls.csv 2> /dev/null
bad=$(awk -F, -v y=$Y 'NR > 1 && $0 ~ /sched_yield/ { n++; if ($4 != y) print }
	END { if (n != '$T') print n " threads" }' syscalls.csv)
[ -z "$bad" ] && pass "report syscalls: $Y sched_yield calls a thread" ||
	fail "report syscalls: $bad ($(head -2 syscalls.csv | tr '\n' ';'))"
bad=$(q "SELECT t.tid || ': ' || COALESCE(SUM(g.count), 0) || ' recorded, kernel ' || t.switches
	FROM truth t LEFT JOIN switch_graph g ON g.from_tid = t.tid GROUP BY t.tid
	HAVING COALESCE(SUM(g.count), 0) < t.switches")
[ -z "$bad" ] && pass "switch_graph holds every switch the kernel counted" || fail "switches: $bad"
bad=$(q "SELECT t.tid || ': ' || sw || ' switches, ' || ri || ' running intervals' FROM (SELECT t.tid,
	(SELECT SUM(count) FROM switch_graph g WHERE g.from_tid = t.tid) AS sw,
	(SELECT COUNT(*) FROM thread_states s WHERE s.tid = t.tid AND s.state = 'running')
	+ COALESCE((SELECT SUM(intervals) FROM summarized_states x WHERE x.tid = t.tid AND x.state = 'running'), 0) AS ri
	FROM truth t) t WHERE ABS(sw - ri) > 2")
[ -z "$bad" ] && pass "switches and running intervals agree, rows and added up" || fail "$bad"
bad=$(q "SELECT tid || ': lifetime ' || lifetime_ns || ', states ' || (running_ns + runnable_ns + blocked_ns
	+ blocked_io_ns + sleeping_ns) FROM thread_summary WHERE lifetime_ns <> running_ns + runnable_ns + blocked_ns
	+ blocked_io_ns + sleeping_ns")
[ -z "$bad" ] && pass "thread_summary: each thread's states tile its lifetime" || fail "thread_summary: $bad"
late=$(q "SELECT (SELECT COUNT(*) FROM thread_states WHERE state IN ('running', 'runnable') AND start_ns >= $until_ns)
	+ (SELECT COUNT(*) FROM switches WHERE prev_state IN ('R', 'R+') AND ts_ns >= $until_ns)")
[ "$late" = 0 ] && pass "no summarizable row begins after the cutoff" || fail "$late summarizable rows after the cutoff"
bad=$(q "SELECT s.tid || ': running ' || s.running_ns || ', on its CPUs ' || c.ns FROM thread_summary s
	JOIN (SELECT tid, SUM(ns) AS ns FROM (SELECT tid, end_ns - start_ns AS ns FROM thread_states
	WHERE state = 'running' AND cpu IS NOT NULL UNION ALL SELECT tid, ns FROM summarized_states
	WHERE state = 'running' AND cpu IS NOT NULL) GROUP BY tid) c ON c.tid = s.tid WHERE c.ns <> s.running_ns")
runnable=$(q "SELECT (SELECT COUNT(*) FROM summarized_states WHERE state = 'runnable' AND cpu IS NOT NULL) > 0
	AND (SELECT COUNT(*) FROM summarized_states WHERE state = 'running' AND cpu IS NULL) = 0")
[ -z "$bad" ] && [ "$runnable" = 1 ] && pass "each thread's running time is on its CPUs, rows and added up" ||
	fail "running time by CPU: $bad (runnable by CPU, none running without: $runnable)"
"$MTX" info d.db > info.txt 2>&1
grep -q '^detail  *every event a row for the first' info.txt && pass "mtx info: $(grep '^detail' info.txt)" ||
	fail "mtx info says nothing of the detail: $(head -20 info.txt | tr '\n' ';')"
"$MTX" report d.db threads > threads.txt 2>&1
head -1 threads.txt | grep -q '^note: every event is a row for the first' && pass "report threads: $(head -1 threads.txt)" ||
	fail "report threads does not say the run was summarized: $(head -2 threads.txt)"

# the probe-effect check needs every event: it refuses, in one line
"$MTX" probe-effect d.db > pe.out 2> pe.err
st=$?
[ $st = 1 ] && [ "$(wc -l < pe.err)" = 1 ] && grep -q 'record it with --detail all' pe.err && [ ! -s pe.out ] &&
	pass "probe-effect refuses a summarized run: $(cat pe.err)" || fail "probe-effect on a summarized run: exit $st, $(cat pe.err)"

# --detail all: every row, and no note
"$MTX" collect -q --detail all -o all.db -- "$PROG" $T 2000 > /dev/null 2>&1
[ "$(sql all.db "SELECT value FROM meta WHERE key = 'detail_rows'")" = 0 ] &&
	[ -z "$(sql all.db "SELECT value FROM meta WHERE key = 'detail_until_ns'")" ] &&
	[ "$(sql all.db "SELECT COUNT(*) FROM summarized_states")" = 0 ] &&
	pass "--detail all: every event a row" || fail "--detail all summarized something"
# bad input: one line, exit 2
"$MTX" collect --detail lots -o bad.db -- "$PROG" 1 1 > bad.out 2> bad.err
[ $? = 2 ] && grep -q "^mtx: --detail takes a number of rows" bad.err && [ ! -e bad.db ] &&
	pass "--detail lots: $(head -1 bad.err)" || fail "--detail lots: $(cat bad.err)"
finish
