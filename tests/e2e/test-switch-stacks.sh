#!/bin/bash
# mtx collect --sample: each switch out of a traced thread carries the user
# call stack it left the CPU in (switches.stack_id), and the switches report
# names the function it was in next to the cause. On the philosophers
# sample: a thread blocked in a fork's lock left the CPU in take_forks, or in
# philosopher where frame pointers cannot show take_forks (its last call, a
# jump; or a leaf without a frame of its own); a thread sleeping in
# nanosleep left it in think (or philosopher, the same way); main waiting
# in pthread_join left it in main. Without
# --sample nothing of this is recorded; the program's output and status
# never change.
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1

PHILO=$(private_sample philosophers) || { fail "no copy of the philosophers sample"; finish; }

# Forks are fought over in most runs, not all: on a busy machine the
# philosophers may happen to take turns, or wait only for their second
# fork (whose lock, take_forks' last call, shows as philosopher's). Up to
# three runs, for one with a switch in take_forks' first lock to check.
for try in 1 2 3; do
	rm -f run.db
	collect_same run.db --sample 999 -- "$PHILO" 5 40
	[ "$(sql run.db "SELECT COUNT(*) FROM switch_totals x JOIN functions f ON f.id = x.function_id
		WHERE x.at = 'mutex lock' AND f.name = 'take_forks'")" != 0 ] && break
done
"$MTX" report run.db switches > report.txt 2> report.err || fail "mtx report switches failed: $(head -3 report.err)"
grep -q ' function ' report.txt || fail "the switches report has no function column: $(head -2 report.txt)"

# Every switch of a traced thread has a stack, but a thread's last one, at
# its exit (no user memory left to walk).
switches=$(sql run.db "SELECT COUNT(*) FROM switches")
nostack=$(sql run.db "SELECT COUNT(*) FROM switches WHERE stack_id IS NULL")
threads=$(sql run.db "SELECT COUNT(*) FROM threads")
[ "$switches" -gt 0 ] || fail "no switches recorded"
[ "$nostack" -le "$threads" ] || fail "$nostack of $switches switches have no stack ($threads threads)"
dangling=$(sql run.db "SELECT COUNT(*) FROM switches w LEFT JOIN stacks s ON s.id = w.stack_id
	WHERE w.stack_id IS NOT NULL AND s.id IS NULL")
[ "$dangling" = 0 ] || fail "$dangling switches name a stack that is not in stacks"

# where [-optional] AT ALLOWED... - every switch left at AT was in one of
# ALLOWED (the first is expected at least once). -optional: AT may not
# happen in every run.
where() {
	local optional=0 at list n bad first firsts
	[ "$1" = -optional ] && { optional=1; shift; }
	at=$1
	shift
	first=$1
	list=$(printf "'%s'," "$@")
	list=${list%,}
	n=$(sql run.db "SELECT COALESCE(SUM(count), 0) FROM switch_totals WHERE at = '$at'")
	bad=$(sql run.db "SELECT COALESCE(f.name, '(none)') || ': ' || SUM(x.count) FROM switch_totals x
		LEFT JOIN functions f ON f.id = x.function_id
		WHERE x.at = '$at' AND (f.name IS NULL OR f.name NOT IN ($list)) GROUP BY f.name")
	firsts=$(sql run.db "SELECT COALESCE(SUM(x.count), 0) FROM switch_totals x
		JOIN functions f ON f.id = x.function_id WHERE x.at = '$at' AND f.name = '$first'")
	if [ "$n" = 0 ] && [ "$optional" = 1 ]; then
		pass "no switch left at '$at' in this run"
	elif [ "$n" = 0 ]; then
		fail "no switch left at '$at'; the switches were left at: $(sql run.db "SELECT at || ' ' ||
			SUM(count) FROM switch_totals GROUP BY at" | tr '\n' ',') sync ops: $(sql run.db \
			"SELECT COUNT(*) || ', lost ' || (SELECT value FROM meta WHERE key = 'lost_sync') FROM sync_ops")"
	elif [ -n "$bad" ]; then
		fail "switches at '$at' (of $n) in other functions than $*: $bad"
	elif [ "$firsts" = 0 ]; then
		fail "no switch at '$at' in $first (of $n)"
	else
		pass "$n switches at '$at', in $* ($firsts in $first)"
	fi
}
where "mutex lock" take_forks philosopher
where clock_nanosleep philosopher think
# The C library keeps no frame pointers in sem_wait and pthread_join: the
# function comes from the op's call site, take_forks (sem_wait is in a
# loop there: never a tail call) and main. The butler blocks only when all
# seats are taken, which a run may not see.
where -optional "sem wait" take_forks
where "thread join" main

# Without --sample: no stacks on switches, no function in the report.
"$MTX" collect -q -o plain.db -- "$PHILO" 5 10 > nosample.out 2>&1 || fail "collect without --sample failed"
[ "$(sql plain.db "SELECT COUNT(stack_id) FROM switches")" = 0 ] || fail "switches have stacks without --sample"
"$MTX" report plain.db switches > plain-report.txt 2>&1 || fail "mtx report switches failed without --sample"
[ "$(sql plain.db "SELECT COUNT(function_id) FROM switch_totals")" = 0 ] ||
	fail "switch_totals names functions without --sample"
finish
