#!/bin/bash
# Sync ops made by signal handlers in the middle of their thread's own ops
# are all recorded, each once and intact; nested handlers too; and a
# siglongjmp out of a traced call is recorded as such.
#  - samples/handlers (check_sample: exact counts per thread and op, output,
#    status, states, switches, nothing lost), then what its top promises:
#    every jump out of a sem_wait and out of a raise is a call that never
#    returned, unfinished 'siglongjmp', ending at the jump, the waits blocked
#    on their semaphore; each nested handler's post comes right after the
#    raise it ran inside;
#  - tests/e2e/jumpanywhere: jumps out of anything, at 20 kHz: nothing lost
#    or rejected, and the calls the program counted minus those recorded
#    come to between 0 and the number of jumps.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/samples.sh"
require_perf

threads=3 jumps=10
# every event a row: the checks below walk the states, switches and ops
COLLECT_OPTS="--detail all" check_sample handlers $threads 100 5000 $jumps
db=$TMP/handlers.check.db
[ -s "$db" ] || finish

# Per worker: $jumps waits and $jumps raises left by the jump, no other.
got=$(sql "$db" "SELECT COUNT(*) FROM sc_thread t WHERE t.role = 'worker' AND
	(SELECT COUNT(*) FROM sync_ops s JOIN sync_objects o ON o.id = s.object_id WHERE s.tid = t.tid
	 AND o.kind = 'sem' AND s.op = 'wait' AND s.unfinished = 'siglongjmp' AND s.result IS NULL) = $jumps AND
	(SELECT COUNT(*) FROM sync_ops s JOIN sync_objects o ON o.id = s.object_id WHERE s.tid = t.tid
	 AND o.kind = 'signal' AND s.op = 'raise' AND s.unfinished = 'siglongjmp' AND s.result IS NULL) = $jumps")
[ "$got" = $threads ] || fail "workers with $jumps waits and $jumps raises left by siglongjmp: $got of $threads"
other=$(sql "$db" "SELECT COUNT(*) FROM sync_ops WHERE unfinished IS NOT NULL AND NOT
	((op = 'wait' OR op = 'raise') AND unfinished = 'siglongjmp')")
[ "$other" = 0 ] || fail "$other other ops recorded as unfinished"
nulls=$(sql "$db" "SELECT COUNT(*) FROM sync_ops WHERE (result IS NULL) <> (unfinished IS NOT NULL)")
[ "$nulls" = 0 ] || fail "$nulls ops whose result and unfinished disagree"

# The jumps out of a wait: each blocked on the semaphore until main's
# pthread_kill, which comes before the jump's end.
bad=$(sql "$db" "SELECT COUNT(*) FROM sync_ops s WHERE s.unfinished = 'siglongjmp' AND s.op = 'wait'
	AND (NOT s.blocked OR s.end_ns <= s.start_ns OR NOT EXISTS (SELECT 1 FROM sync_ops k
	 WHERE k.op = 'pthread_kill' AND k.arg = s.tid AND k.start_ns BETWEEN s.start_ns AND s.end_ns))")
[ "$bad" = 0 ] || fail "$bad waits left by siglongjmp not blocked until main's pthread_kill"
[ "$(sql "$db" "SELECT COUNT(*) FROM sync_ops WHERE op = 'pthread_kill'")" = $((threads * jumps)) ] ||
	fail "main's pthread_kill calls: $(sql "$db" "SELECT COUNT(*) FROM sync_ops WHERE op = 'pthread_kill'")"
# Each raise that returned ran the nested handler inside it: raise is
# stamped before its call, and the next op its thread stamped is that
# handler's post.
bad=$(sql "$db" "SELECT COUNT(*) FROM sync_ops r WHERE r.op = 'raise' AND r.unfinished IS NULL
	AND COALESCE((SELECT p.op FROM sync_ops p WHERE p.tid = r.tid AND p.start_ns >= r.start_ns
	 AND p.id <> r.id ORDER BY p.start_ns LIMIT 1), '') <> 'post'")
[ "$bad" = 0 ] || fail "$bad raises not followed by the nested handler's post"
[ "$FAILED" = 0 ] && pass "handlers: exact counts, $((threads * jumps * 2)) calls left by siglongjmp"

# Jumps from anywhere.
prog=$BUILDDIR/tests/e2e/jumpanywhere
MTX_SELFCHECK=$TMP/ja.sc "$MTX" collect -q -o "$TMP/ja.db" -- "$prog" 300 20000 2> "$TMP/ja.err"
status=$?
[ "$status" = 0 ] || fail "jumpanywhere: exit $status ($(head -2 "$TMP/ja.err"))"
n=$(sed -n 's/^jumps //p' "$TMP/ja.err")
import_selfcheck "$TMP/ja.sc" "$TMP/ja.db"
[ "$(sql "$TMP/ja.db" "SELECT SUM(value) FROM meta WHERE key LIKE 'lost_%'")" = 0 ] ||
	fail "jumpanywhere: records lost: $(sql "$TMP/ja.db" "SELECT key, value FROM meta WHERE key LIKE 'lost_%' AND value > 0")"
# (sync_usage: the ops --detail added up past its budget counted too)
recorded="COALESCE((SELECT u.calls FROM sync_usage u WHERE u.tid = c.tid AND u.kind = c.kind AND u.op = c.op), 0)"
short=$(sql "$TMP/ja.db" "SELECT SUM(c.count - $recorded) FROM sc_op c")
below=$(sql "$TMP/ja.db" "SELECT COUNT(*) FROM sc_op c WHERE c.count < $recorded")
left=$(sql "$TMP/ja.db" "SELECT COUNT(*) FROM sync_ops WHERE unfinished = 'siglongjmp'")
if [ -z "$n" ] || [ "$n" -lt 100 ]; then
	fail "jumpanywhere: only '$n' jumps"
elif [ "$below" != 0 ] || [ "$short" -lt 0 ] || [ "$short" -gt "$n" ]; then
	fail "jumpanywhere: $n jumps, counted calls minus recorded ops $short, ops recorded more often than called: $below"
elif [ "$left" -lt 1 ]; then
	fail "jumpanywhere: no op recorded as left by siglongjmp in $n jumps"
else
	pass "jumpanywhere: $n jumps, $left ops left by them, $short counted calls not entered"
fi
finish
