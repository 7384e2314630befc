#!/bin/bash
# tests/tui/test-browse-levels.sh - the timeline of a lane too busy to read
# state by state (tests/fixtures/busy.sql), at 86x24: zoomed out it shows
# the state of each phase (running, sync, asleep, io), not the letters of
# its thousands of ops; it is drawn from timeline_levels, and looks the
# same as drawn from thread_states (a copy without the levels: the 86
# columns leave 64 for the plot, and the run's 4.19 ms then make a column
# 4^8 ns, a level's bucket); zoomed in past its finest level (here where
# the lane goes from asleep to reading, a read a column) it is read exactly
# again, and shows the letters; and a copy whose levels are blanked shows a
# blank lane, so the levels are what is drawn.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib.sh"

mkdir -p "$TMP/exact" "$TMP/altered"
"$BUILDDIR/tests/fixture-db" "$srcdir/tests/fixtures/busy.sql" "$TMP/run.db" || { fail "fixture-db"; finish; }
"$MTX" report "$TMP/run.db" threads >/dev/null 2>&1 || fail "mtx report could not build the derived tables"
[ "$(sql "$TMP/run.db" "SELECT COUNT(DISTINCT level) FROM timeline_levels WHERE tid = 301")" -ge 3 ] &&
	[ "$(sql "$TMP/run.db" "SELECT COUNT(*) FROM timeline_levels WHERE tid = 300")" = 0 ] &&
	pass "levels for the busy thread only" || fail "timeline_levels: $(sql "$TMP/run.db" "SELECT tid, level, COUNT(*) FROM timeline_levels GROUP BY 1, 2")"
cp "$TMP/run.db" "$TMP/exact/run.db"
sql "$TMP/exact/run.db" "DELETE FROM timeline_levels"
cp "$TMP/run.db" "$TMP/altered/run.db"
sql "$TMP/altered/run.db" "UPDATE timeline_levels SET buckets = zeroblob(length(buckets))"

browse_start 86x24 "$TMP/run.db"
keys 4; wait_for "lane 1 of 2" && expect_screen levels
keys j + + + + + +; wait_for "1.02 us a column"; keys t; wait_for "jump to time"; type_text 3.14ms; keys Enter
wait_for "at 3.14 ms" && expect_screen levels-zoomed
keys q; wait_for "exit=0"

browse_start 86x24 "$TMP/exact/run.db"
keys 4; wait_for "lane 1 of 2" && expect_screen levels

browse_start 86x24 "$TMP/altered/run.db"
keys 4; wait_for "lane 1 of 2" && expect_screen levels-altered
finish
