#!/bin/bash
# tests/e2e/test-functions-depth.sh - calls nested deeper than the kernel
# keeps return probes (64 per thread) under mtx collect --functions, on
# tests/e2e/deeprecursion, which counts its own calls (recurse to depth
# 100, five times, in two threads; two calls of leaf at each level):
#  - the program's output and exit status are those it has alone;
#  - the calls table holds every call the program counted, nested as it
#    made them (recurse at depths 0..99, each leaf one level below a
#    recurse, TIMES of each per thread and depth), each inside its parent;
#  - the calls at depth 64 and deeper, and only those, are marked
#    return_probe_depth; meta lost_functions and calls_return_probe_depth
#    count them; one warning line says so;
#  - no call outlasts the run, and mtx report calls shows no time longer
#    than the run;
#  - at depth 63 (the deepest leaf is the 64th nested call) nothing is
#    lost, marked or warned about.
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1
PROG=$BUILDDIR/tests/e2e/deeprecursion
[ -x "$PROG" ] || { echo "FAIL: not built: $PROG"; exit 1; }
LIMIT=64 # the kernel's MAX_URETPROBE_DEPTH, as mtx-collect(1) documents it
DEPTH=100
TIMES=5
THREADS=2

# run_deep DB DEPTH: collect the program, compare with a plain run; the
# program's counts go to DB.plain, mtx's messages to DB.err.
run_deep() {
	local db=$1 depth=$2 plain_status status
	"$PROG" "$depth" "$TIMES" "$THREADS" > "$db.plain" 2>&1
	plain_status=$?
	[ "$plain_status" = 3 ] || fail "deeprecursion $depth exited $plain_status alone, not 3"
	"$MTX" collect --functions '^(recurse|leaf)$' -o "$db" -- "$PROG" "$depth" "$TIMES" "$THREADS" \
		> "$db.out" 2> "$db.err"
	status=$?
	[ "$status" = "$plain_status" ] || fail "deeprecursion $depth: exit $status under mtx, $plain_status alone"
	cmp -s "$db.plain" "$db.out" || fail "deeprecursion $depth: output differs under mtx"
}

# counted DB WHAT: a figure the program printed ("recurse calls", ...).
counted() {
	case $2 in
	recurse) sed -n 's/^recurse calls=\([0-9]*\) .*/\1/p' "$1.plain" ;;
	max_depth) sed -n 's/.* max_depth=\([0-9]*\)$/\1/p' "$1.plain" ;;
	leaf) sed -n 's/^leaf calls=\([0-9]*\)$/\1/p' "$1.plain" ;;
	esac
}

# check_nesting DB DEPTH: the calls are the program's, nested as it made
# them, none outlasting its caller or the run.
check_nesting() {
	local db=$1 depth=$2 bad
	[ "$(sql "$db" "SELECT COUNT(*) FROM calls c JOIN functions f ON f.id = c.function_id
		WHERE f.name = 'recurse'")" = "$(counted "$db" recurse)" ] || fail "$db: not every recurse call recorded"
	[ "$(sql "$db" "SELECT COUNT(*) FROM calls c JOIN functions f ON f.id = c.function_id
		WHERE f.name = 'leaf'")" = "$(counted "$db" leaf)" ] || fail "$db: not every leaf call recorded"
	[ "$(sql "$db" "SELECT MAX(depth) + 1 FROM calls c JOIN functions f ON f.id = c.function_id
		WHERE f.name = 'recurse'")" = "$(counted "$db" max_depth)" ] || fail "$db: recurse not as deep as the program's"
	# TIMES calls of recurse per thread at each depth 0..depth-1, two of
	# leaf one level below each, whose parent is a recurse.
	bad=$(sql "$db" "WITH n AS (SELECT c.tid, c.depth, f.name, COUNT(*) AS k FROM calls c
		JOIN functions f ON f.id = c.function_id GROUP BY 1, 2, 3)
		SELECT COUNT(*) FROM n WHERE NOT ((name = 'recurse' AND depth < $depth AND k = $TIMES)
		OR (name = 'leaf' AND depth BETWEEN 1 AND $depth AND k = 2 * $TIMES))")
	[ "$bad" = 0 ] || fail "$db: $bad (thread, depth, function) groups do not have the program's calls"
	bad=$(sql "$db" "SELECT COUNT(*) FROM calls c JOIN functions f ON f.id = c.function_id
		LEFT JOIN calls p ON p.id = c.parent_id LEFT JOIN functions pf ON pf.id = p.function_id
		WHERE (c.depth > 0 AND (pf.name IS NOT 'recurse' OR p.depth <> c.depth - 1 OR p.tid <> c.tid))
		OR (c.depth = 0 AND (c.parent_id IS NOT NULL OR f.name <> 'recurse'))")
	[ "$bad" = 0 ] || fail "$db: $bad calls whose caller is not the program's"
	bad=$(sql "$db" "SELECT COUNT(*) FROM calls c JOIN calls p ON p.id = c.parent_id
		WHERE c.start_ns < p.start_ns OR c.end_ns > p.end_ns")
	[ "$bad" = 0 ] || fail "$db: $bad calls outlast their caller"
	bad=$(sql "$db" "SELECT COUNT(*) FROM calls WHERE end_ns IS NULL OR end_ns < start_ns
		OR start_ns < (SELECT value FROM meta WHERE key = 'start_ns')
		OR end_ns > (SELECT value FROM meta WHERE key = 'end_ns')")
	[ "$bad" = 0 ] || fail "$db: $bad calls outside the run"
}

# Past the depth.
run_deep deep.db "$DEPTH"
check_nesting deep.db "$DEPTH"
bad=$(sql deep.db "SELECT COUNT(*) FROM calls WHERE (depth < $LIMIT) <> (unfinished IS NULL)
	OR (depth >= $LIMIT AND unfinished IS NOT 'return_probe_depth')")
[ "$bad" = 0 ] || fail "deep: $bad calls not marked return_probe_depth exactly from depth $LIMIT on: $(sql deep.db \
	"SELECT depth, unfinished, COUNT(*) FROM calls GROUP BY 1, 2 HAVING (depth < $LIMIT) <> (unfinished IS NULL) LIMIT 3")"
marked=$(sql deep.db "SELECT COUNT(*) FROM calls WHERE unfinished = 'return_probe_depth'")
# Per recursion: recurse at depths 64..99, and leaf twice at each depth
# 64..100.
[ "$marked" = $((THREADS * TIMES * ((DEPTH - LIMIT) + 2 * (DEPTH - LIMIT + 1)))) ] ||
	fail "deep: $marked calls marked return_probe_depth"
[ "$(sql deep.db "SELECT value FROM meta WHERE key = 'lost_functions'")" = "$marked" ] ||
	fail "deep: lost_functions is $(sql deep.db "SELECT value FROM meta WHERE key = 'lost_functions'"), not $marked"
[ "$(sql deep.db "SELECT value FROM meta WHERE key = 'calls_return_probe_depth'")" = "$marked" ] ||
	fail "deep: meta calls_return_probe_depth is not $marked"
[ "$(grep -c 'warning:' deep.db.err)" = 1 ] && grep -q "^mtx: warning: $marked calls nested deeper than $LIMIT" deep.db.err ||
	fail "deep: not one warning about the depth: $(cat deep.db.err)"

# mtx report calls: no figure longer than the run (times in ns, in CSV).
duration=$(sql deep.db "SELECT value FROM meta WHERE key = 'duration_ns'")
"$MTX" report deep.db calls --format csv > report.csv 2> report.err || fail "report calls: $(cat report.err)"
longest=$(awk -F, '$1 ~ /^[0-9]+$/ { for (i = 4; i <= 5; i++) if ($i + 0 > max) max = $i + 0 } END { printf "%.0f\n", max }' report.csv)
[ "$longest" -gt 0 ] && [ "$longest" -le "$duration" ] ||
	fail "report calls: a time of $longest ns in a run of $duration ns"

# At the depth: nothing lost.
run_deep edge.db $((LIMIT - 1))
check_nesting edge.db $((LIMIT - 1))
[ "$(sql edge.db "SELECT COUNT(*) FROM calls WHERE unfinished IS NOT NULL")" = 0 ] ||
	fail "edge: calls marked unfinished at depth $((LIMIT - 1))"
[ "$(sql edge.db "SELECT value FROM meta WHERE key = 'lost_functions'")" = 0 ] || fail "edge: lost_functions is not 0"
grep -q 'warning:' edge.db.err && fail "edge: mtx warned: $(cat edge.db.err)"

[ "$FAILED" = 0 ] && pass "calls past the kernel's depth of return probes"
finish
