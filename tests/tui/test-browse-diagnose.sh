#!/bin/bash
# tests/tui/test-browse-diagnose.sh - the diagnose view (key 0) on the run of
# tests/fixtures/waits.sql, at 86x24: the findings first, then the search
# graph, the same nodes, values and findings as mtx diagnose prints
# (tests/fixtures/reports/diagnose.txt, worked out by hand in
# tests/e2e/test-report.sh); Enter on the first finding opens worker-a's
# thread view, Backspace comes back to it.
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
finish
