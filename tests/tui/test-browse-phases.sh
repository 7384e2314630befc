#!/bin/bash
# tests/tui/test-browse-phases.sh - the phases view (key 9) on the run of
# tests/fixtures/waits.sql cut into two phases at 300 us (rows put in its
# phases table, as mtx ctl would have marked them), at 86x24: the phases'
# rows with the shares mtx report phases gives; Enter on the second opens
# the search of that phase alone, the graph mtx diagnose --phase 2
# prints; Backspace comes back.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib.sh"

"$BUILDDIR/tests/fixture-db" "$srcdir/tests/fixtures/waits.sql" "$TMP/run.db" || { fail "fixture-db"; finish; }
sql "$TMP/run.db" "INSERT INTO phases SELECT 0, 'global', s, e, 'run', NULL FROM (SELECT
	(SELECT value FROM meta WHERE key = 'start_ns') AS s, (SELECT value FROM meta WHERE key = 'end_ns') AS e);
	INSERT INTO phases SELECT 1, 'early', start_ns, start_ns + 300000, 'ctl', NULL FROM phases WHERE id = 0;
	INSERT INTO phases SELECT 2, 'late', start_ns + 300000, end_ns, 'ctl', NULL FROM phases WHERE id = 0" ||
	{ fail "cannot mark the fixture's phases"; finish; }
browse_start 86x24 "$TMP/run.db"
wait_for "row 1 of"
keys 9; wait_for "mtx browse run.db: phases" && wait_for "running% runnable%" && expect_screen phases
# each phase's shares as mtx report phases gives them (running% .. other%)
"$MTX" report "$TMP/run.db" phases 2> /dev/null | awk '$1 ~ /^[0-9]+$/ { $4 = $5 = $6 = ""; print }' | tr -s ' ' > "$TMP/cli.txt"
screen | awk '$1 ~ /^[0-9]+$/ { $4 = $5 = $6 = ""; print }' | tr -s ' ' > "$TMP/view.txt"
[ "$(wc -l < "$TMP/cli.txt")" = 3 ] && cmp -s "$TMP/cli.txt" "$TMP/view.txt" &&
	pass "the view's phases and shares are mtx report phases'" ||
	fail "the view's phases differ from mtx report phases': $(diff "$TMP/cli.txt" "$TMP/view.txt" | head -5)"
keys j j Enter; wait_for "diagnose: phase 2 late" && wait_for "Findings: why the threads lost time"
"$MTX" diagnose "$TMP/run.db" --phase 2 2> /dev/null |
	awk '$1 ~ /^[0-9]+$/ && ($2 == "true" || $2 == "false") { print $1, $2, $3 }' > "$TMP/cli.txt"
screen | awk '$1 ~ /^[0-9]+$/ && ($2 == "true" || $2 == "false") { print $1, $2, $3 }' > "$TMP/view.txt"
[ -s "$TMP/cli.txt" ] && cmp -s "$TMP/cli.txt" "$TMP/view.txt" && pass "Enter searches the phase: mtx diagnose --phase 2's graph" ||
	fail "the phase's search differs from mtx diagnose --phase 2's: $(diff "$TMP/cli.txt" "$TMP/view.txt" | head -5)"
keys BSpace; wait_for "mtx browse run.db: phases" && pass "Backspace comes back to the phases"
keys q; wait_for "exit=0"
finish
