#!/bin/bash
# tests/e2e/test-report-samples.sh - the analyses on real runs whose
# behaviour is known (see each sample's header):
#  - mtx collect builds the derived tables (meta.derived_version);
#  - client-server: each client waits, above all, for its own dedicated
#    server thread: its top wait-for chain is "client-i > rs-j", a
#    different rs-j for every client, through a semaphore the two share;
#  - philosophers: each philosopher's blocked_sync time equals the wait of
#    its blocked ops, in the threads report's terms (CSV);
#  - every waiting interval has a cause, and the woken ones a waker.
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1

"$MTX" collect -q -o cs.db -- "$SAMPLES/clientserver" 6 40 > cs.out || fail "collect clientserver"
[ "$(sql cs.db "SELECT value FROM meta WHERE key = 'derived_version'")" -ge 1 ] 2>/dev/null ||
	fail "mtx collect left no derived tables"

pairs=
for tid in $(sql cs.db "SELECT tid FROM threads WHERE name LIKE 'client-%' ORDER BY tid"); do
	"$MTX" report cs.db waits --thread "$tid" --format csv > "w$tid.csv" 2> "w$tid.err" ||
		{ fail "report waits --thread $tid: $(cat "w$tid.err")"; continue; }
	# The first row of the chains section is the chain with the most wait.
	chain=$(awk -F, '/^chain,waits,wait_ns$/ { getline; print $1; exit }' "w$tid.csv")
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
			GROUP BY object_id ORDER BY SUM(end_ns - start_ns) DESC LIMIT 1)")
	[ "$shared" = 2 ] || fail "$name and $rs do not share the semaphore $name waited on most"
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

for db in cs.db ph.db; do
	n=$(sql $db "SELECT COUNT(*) FROM thread_states WHERE state <> 'running'")
	c=$(sql $db "SELECT COUNT(*) FROM state_causes")
	[ "$n" = "$c" ] || fail "$db: $n non-running intervals but $c state_causes rows"
	u=$(sql $db "SELECT COUNT(*) FROM state_causes WHERE state = 'blocked_sync' AND (cause <> 'sync' OR op_id IS NULL)")
	[ "$u" = 0 ] || fail "$db: $u blocked_sync intervals without their op"
done
finish
