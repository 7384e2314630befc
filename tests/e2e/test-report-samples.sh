#!/bin/bash
# tests/e2e/test-report-samples.sh - the analyses on real runs whose
# behaviour is known (see each sample's header):
#  - mtx collect builds the derived tables (meta.derived_version), the same
#    rows as the first report builds from the finished file;
#  - client-server: each client waits, above all, for its own dedicated
#    server thread: its most frequent wait-for chain is "client-i > rs-j"
#    (one wait per request; by wait time a long wait for the busy main
#    server can come first on a loaded machine), a different rs-j for
#    every client, through the semaphore the two share;
#  - philosophers: each philosopher's blocked_sync time equals the wait of
#    its blocked ops, in the threads report's terms (CSV);
#  - signals: a wait that a sender's signal interrupted (main's, on its
#    semaphores) names where the sender woke it: the function that sends
#    the signals, though its op is on the signal, not the semaphore;
#  - every waiting interval has a cause, and the woken ones a waker;
#  - the summary tables equal the sums of the rows they stand
#    for, and the reports that read them say the same as a window over the
#    whole run (which adds up the recorded rows).
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1

"$MTX" collect -q -o cs.db -- "$SAMPLES/clientserver" 6 40 > cs.out || fail "collect clientserver"
[ "$(sql cs.db "SELECT value FROM meta WHERE key = 'derived_version'")" -ge 1 ] 2>/dev/null ||
	fail "mtx collect left no derived tables"
cp cs.db cs-later.db
sql cs-later.db "DELETE FROM meta WHERE key = 'derived_version'"
"$MTX" report cs-later.db threads > /dev/null 2> later.err || fail "report on a copy: $(cat later.err)"
differ=
for t in $(sed -n 's/^CREATE TABLE \([a-z_]*\) .*/\1/p' "$srcdir/schema/derived.sql"); do
	cols=$(sql cs.db "SELECT group_concat(name) FROM pragma_table_info('$t')")
	[ -n "$cols" ] || { differ="$differ $t(missing)"; continue; }
	[ "$(sql cs.db "SELECT * FROM $t ORDER BY $cols")" = "$(sql cs-later.db "SELECT * FROM $t ORDER BY $cols")" ] ||
		differ="$differ $t"
done
[ -z "$differ" ] && pass "mtx collect's derived tables are the first report's" ||
	fail "derived tables built by mtx collect differ from a later build:$differ"

pairs=
for tid in $(sql cs.db "SELECT tid FROM threads WHERE name LIKE 'client-%' ORDER BY tid"); do
	"$MTX" report cs.db waits --thread "$tid" --format csv > "w$tid.csv" 2> "w$tid.err" ||
		{ fail "report waits --thread $tid: $(cat "w$tid.err")"; continue; }
	# The chains section's row with the most waits (ties: the first).
	chain=$(awk -F, '/^chain,waits,wait_ns$/ { on = 1; next }
		on && NF == 0 { exit }
		on && $2 > most { most = $2; top = $1 }
		END { print top }' "w$tid.csv")
	name=$(sql cs.db "SELECT name FROM threads WHERE tid = $tid")
	case "$chain" in
		"$name > rs-"*) ;;
		*) fail "$name's top wait-for chain is '$chain', not its server thread"; continue ;;
	esac
	rs=${chain##* > }
	# The two share the semaphore the client waited on most.
	shared=$(sql cs.db "SELECT COUNT(DISTINCT op.tid) FROM sync_ops op
		JOIN threads t ON t.tid = op.tid AND t.name IN ('$name', '$rs')
		WHERE op.object_id = (SELECT object_id FROM wait_for WHERE tid = $tid
			GROUP BY object_id ORDER BY COUNT(*) DESC LIMIT 1)")
	[ "$shared" = 2 ] || fail "$name and $rs do not share the semaphore $name waited on most often"
	pairs="$pairs$rs "
done
n=$(echo $pairs | wc -w)
distinct=$(echo $pairs | tr ' ' '\n' | sort -u | wc -l)
[ "$n" = 6 ] && [ "$distinct" = 6 ] && pass "6 clients wait for 6 distinct servers: $pairs" ||
	fail "clients' servers: '$pairs' ($n found, $distinct distinct)"

"$MTX" collect -q -o ph.db -- "$SAMPLES/philosophers" 5 > ph.out || fail "collect philosophers"
"$MTX" report ph.db threads --format csv > threads.csv || fail "report threads"
# sync_pct of each philosopher, against its ops' wait over its lifetime.
while IFS=, read -r tid name lifetime running runnable sync io sleep other; do
	case "$name" in philo-*) ;; *) continue ;; esac
	want=$(sql ph.db "SELECT ROUND(100.0 * SUM(wait_ns) / $lifetime, 1) FROM sync_ops WHERE tid = $tid")
	[ "$sync" = "$want" ] || fail "$name: sync_pct $sync, its ops waited $want% of its lifetime"
	# Six shares rounded to 0.1 each: within 0.3 of 100.
	total=$(awk "BEGIN { print $running + $runnable + $sync + $io + $sleep + $other }")
	awk "BEGIN { exit !($total >= 99.7 && $total <= 100.3) }" || fail "$name: shares add up to $total"
done < <(tail -n +2 threads.csv)
grep -q "^[0-9]*,philo-" threads.csv && pass "philosophers' sync share equals their ops' wait" ||
	fail "no philosopher in the threads report: $(head -3 threads.csv)"

"$MTX" collect -q -o sig.db -- "$SAMPLES/signals" > sig.out || fail "collect signals"
waker=$(sql sig.db "SELECT COUNT(*) FROM wait_for WHERE relation = 'waker'")
# A join is woken by the joined thread's exit, where it has no op. Before
# the signal rule about a third of these had no call site; the margin is
# for a wakeup stamped before its op by the two clocks' skew.
nowhere=$(sql sig.db "SELECT COUNT(*) FROM wait_for w JOIN sync_objects o ON o.id = w.object_id
	WHERE w.relation = 'waker' AND o.kind <> 'thread' AND w.other_callsite IS NULL")
sent=$(sql sig.db "SELECT COUNT(*) FROM wait_for w JOIN sync_objects o ON o.id = w.object_id
	JOIN callsites c ON c.pid = o.pid AND c.addr = w.other_callsite JOIN functions f ON f.id = c.function_id
	WHERE o.kind = 'sem' AND f.name LIKE 'send_one%'")
[ "$waker" -gt 100 ] && [ "$nowhere" -le $((waker / 100)) ] && [ "$sent" -gt 0 ] &&
	pass "signals: $sent semaphore waits woken where the signal was sent, $nowhere of $waker waker waits unplaced" ||
	fail "signals: $sent waits placed in send_one, $nowhere of $waker waker waits without a call site"

for db in cs.db ph.db; do
	n=$(sql $db "SELECT COUNT(*) FROM thread_states WHERE state <> 'running'")
	c=$(sql $db "SELECT COUNT(*) FROM state_causes")
	[ "$n" = "$c" ] || fail "$db: $n non-running intervals but $c state_causes rows"
	u=$(sql $db "SELECT COUNT(*) FROM state_causes WHERE state = 'blocked_sync' AND (cause <> 'sync' OR op_id IS NULL)")
	[ "$u" = 0 ] || fail "$db: $u blocked_sync intervals without their op"

	# Each summary table against the GROUP BY it stands for (EXCEPT both
	# ways: no row missing, none extra).
	for pair in \
		"SELECT tid, object_id, op, calls, blocked, contended, wait_ns, max_wait_ns, hold_ns, max_hold_ns, max_ns FROM sync_totals|SELECT tid, object_id, op, COUNT(*), SUM(blocked), SUM(holder_tid IS NOT NULL OR blocked), SUM(wait_ns), MAX(wait_ns), COALESCE(SUM(hold_ns), 0), COALESCE(MAX(hold_ns), 0), MAX(end_ns - start_ns) FROM sync_ops GROUP BY tid, object_id, op" \
		"SELECT object_id, holder_tid, ops, wait_ns FROM lock_holders|SELECT object_id, holder_tid, COUNT(*), SUM(wait_ns) FROM sync_ops WHERE holder_tid IS NOT NULL GROUP BY object_id, holder_tid" \
		"SELECT tid, start_ns, nr_states, running_ns, runnable_ns, blocked_other_ns, blocked_sync_ns, blocked_io_ns, sleeping_ns FROM thread_totals|SELECT t.tid, t.start_ns, COUNT(s.tid), $(for st in running runnable blocked blocked_sync blocked_io sleeping; do printf "TOTAL(CASE WHEN s.state = '%s' THEN s.end_ns - s.start_ns END), " $st; done | sed 's/, $//') FROM threads t LEFT JOIN thread_states s ON s.tid = t.tid AND s.start_ns >= t.start_ns AND s.end_ns <= t.end_ns GROUP BY t.rowid" \
		"SELECT from_tid, to_tid, at, count FROM switch_totals|SELECT c.tid, c.next_tid, CASE c.cause WHEN 'sync' THEN COALESCE(o.kind || ' ' || op.op, 'sync') WHEN 'syscall' THEN c.syscall WHEN 'sleep' THEN COALESCE(c.syscall, 'sleep') ELSE c.cause END, COUNT(*) FROM state_causes c LEFT JOIN sync_ops op ON op.id = c.op_id LEFT JOIN sync_objects o ON o.id = c.object_id WHERE c.next_tid IS NOT NULL AND c.cause <> 'woken' GROUP BY 1, 2, 3" \
		"SELECT tid, syscall, calls, errors, total_ns, max_ns FROM syscall_totals|SELECT tid, name, COUNT(*), SUM(ret < 0), SUM(end_ns - start_ns), MAX(end_ns - start_ns) FROM syscalls GROUP BY tid, name" \
		"SELECT tid, cause, syscall, fd_kind, ended_by, waker_tid, waits, wait_ns, max_wait_ns FROM wait_totals|SELECT tid, cause, syscall, fd_kind, ended_by, waker_tid, COUNT(*), SUM(end_ns - start_ns), MAX(end_ns - start_ns) FROM state_causes WHERE state NOT IN ('running', 'runnable') GROUP BY tid, cause, syscall, fd_kind, ended_by, waker_tid" \
		"SELECT tid, cause, next_tid, waits, wait_ns, max_wait_ns FROM cpu_wait_totals|SELECT tid, cause, next_tid, COUNT(*), SUM(end_ns - start_ns), MAX(end_ns - start_ns) FROM state_causes WHERE state = 'runnable' GROUP BY tid, cause, next_tid" \
		"SELECT tid, object_id, waited_for_tid, relation, other_callsite, waits, wait_ns FROM wait_for_totals|SELECT tid, object_id, waited_for_tid, relation, other_callsite, COUNT(*), SUM(end_ns - start_ns) FROM wait_for GROUP BY tid, object_id, waited_for_tid, relation, other_callsite" \
		"SELECT tid, object_id, chain, waits, wait_ns FROM wait_chain_totals|SELECT tid, object_id, chain, COUNT(*), SUM(chain_ns) FROM wait_for GROUP BY tid, object_id, chain" \
		"SELECT tid, state, object_id, function_id, segments, path_ns, start_ns, end_ns FROM critical_path_totals|SELECT tid, state, object_id, function_id, COUNT(*), SUM(end_ns - start_ns), MIN(start_ns), MAX(end_ns) FROM critical_path GROUP BY tid, state, object_id, function_id" \
		"SELECT tid, start_ns, end_ns, object_id, op_id FROM wait_for|SELECT tid, start_ns, end_ns, object_id, op_id FROM state_causes WHERE cause = 'sync' AND state NOT IN ('running', 'runnable')"; do
		table=${pair%%|*}
		sums=${pair#*|}
		n=$(sql $db "SELECT (SELECT COUNT(*) FROM ($table EXCEPT $sums)) + (SELECT COUNT(*) FROM ($sums EXCEPT $table))")
		rows=$(sql $db "SELECT COUNT(*) FROM ($table)")
		name=${table##* FROM }
		[ "$n" = 0 ] && pass "$db: $name equals the sums of its rows ($rows rows)" ||
			fail "$db: $name: $n rows differ from the sums of the recorded rows ($rows rows)"
	done
	for r in threads sync locks switches syscalls waits critical-path; do
		"$MTX" report $db $r --format csv > whole.csv 2>&1
		"$MTX" report $db $r --format csv --from 0 --to 100000s > window.csv 2>&1
		cmp -s whole.csv window.csv || fail "$db: report $r differs from the same over a whole-run window"
	done
	# Over a window a report adds up the buckets wholly inside it
	# (*_buckets) and reads the rows only at its ends: the same as reading
	# every row (a copy whose one bucket is wider than the run), over
	# windows that cut buckets, one within a bucket and one from the start.
	cp $db rows.db
	sql rows.db "UPDATE run_buckets SET width_ns = 1000000000000000000"
	span=$(sql $db "SELECT MAX(COALESCE(end_ns, start_ns)) - MIN(start_ns) FROM threads")
	width=$(sql $db "SELECT width_ns FROM run_buckets")
	for r in syscalls threads sync locks waits switches critical-path; do
		for w in "$((span / 3)) $((2 * span / 3))" "$((width + width / 4)) $((width + width / 2))" "0 $((span / 2))"; do
			set -- $w
			"$MTX" report $db $r --format csv --from ${1}ns --to ${2}ns > buckets.csv 2>&1
			"$MTX" report rows.db $r --format csv --from ${1}ns --to ${2}ns > rows.csv 2>&1
			cmp -s buckets.csv rows.csv && [ -s rows.csv ] ||
				fail "$db: report $r from $1 to $2 ns differs when added up from its buckets"
		done
		pass "$db: report $r over windows: its buckets and edges give what its rows give"
	done
done
finish
