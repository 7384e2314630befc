#!/bin/bash
# tests/tui/test-browse-diagnose.sh - the diagnose view (key 0) on the run of
# tests/fixtures/waits.sql, at 86x24: the findings first, then the search
# graph, the same nodes, values and findings as mtx diagnose prints
# (tests/fixtures/reports/diagnose.txt, worked out by hand in
# tests/e2e/test-report.sh); Enter on the first finding opens worker-a's
# thread view, Backspace comes back to it. A run recorded with
# --consultant shows its live search.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib.sh"

"$BUILDDIR/tests/fixture-db" "$srcdir/tests/fixtures/waits.sql" "$TMP/run.db" || { fail "fixture-db"; finish; }
browse_start 86x24 "$TMP/run.db"
wait_for "row 1 of"
keys 0; wait_for "Findings: why the threads lost time" && expect_screen diagnose
# every node of mtx diagnose's graph, with its status and value
"$MTX" diagnose "$TMP/run.db" 2> /dev/null | awk '$1 ~ /^[0-9]+$/ && ($2 == "true" || $2 == "false") { print $1, $2, $3 }' \
	> "$TMP/cli.txt"
screen | awk '$1 ~ /^[0-9]+$/ && ($2 == "true" || $2 == "false") { print $1, $2, $3 }' > "$TMP/view.txt"
[ -s "$TMP/cli.txt" ] && cmp -s "$TMP/cli.txt" "$TMP/view.txt" && pass "the view's graph is mtx diagnose's" ||
	fail "the view's graph differs from mtx diagnose's: $(diff "$TMP/cli.txt" "$TMP/view.txt" | head -5)"
keys Enter; wait_for "thread worker-a (101)" && pass "Enter on the first finding opens worker-a's view"
keys BSpace; wait_for "Findings: why the threads lost time" && pass "Backspace comes back to the findings"
keys q; wait_for "exit=0"

# A run recorded with --consultant, its search ended early (--search-time)
# while experiments observed: the view shows the live search, as mtx
# diagnose does, its findings marked unfinished.
if [ "$(id -u)" = 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 1 ]; then
	"$MTX" collect -q --consultant --search-time 1500ms -o "$TMP/live.db" -- "$BUILDDIR/tests/e2e/planted" cpu 1 3000 \
		> /dev/null 2> "$TMP/live.err" || fail "mtx collect --consultant: $(head -3 "$TMP/live.err")"
	"$MTX" diagnose "$TMP/live.db" --format json > "$TMP/live.json"
	first=$(j "$TMP/live.json" "json_extract(j, '\$.findings[0].focus')")
	browse_start 120x24 "$TMP/live.db"
	wait_for "row 1 of"
	keys 0
	if [ -n "$first" ] && wait_for "Findings of the search made live" &&
		screen | grep -F -- "$first (unfinished)" > /dev/null; then
		pass "a live run: the view shows the live search, its first finding $first unfinished"
	else
		fail "a live run: the view does not show the live search's first finding '$first' as unfinished"
	fi
	keys q; wait_for "exit=0"
else
	echo "SKIP (part): no perf access, no live run recorded"
fi
finish
