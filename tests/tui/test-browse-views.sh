#!/bin/bash
# tests/tui/test-browse-views.sh - every view of mtx browse on the
# tests/fixtures/waits.sql run (three threads whose every interval is
# explained in that file), at 80x24, compared with the expected screens:
# threads, a thread's waits, objects and an object's history, waits bars,
# the timeline (jump, zoom, next event, following a wakeup, lane filters),
# switches, syscalls and a syscall's calls, calls, critical path, help,
# search, sort and filter; objects at long addresses; sorting, filtering
# and searching more rows than a view loads; the calls view of a sampled
# run and of exact calls; q and Q; an object opened from a wait; named
# objects (their names wherever objects are shown); screens below 80x24;
# and the file is left unchanged.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib.sh"

"$BUILDDIR/tests/fixture-db" "$srcdir/tests/fixtures/waits.sql" "$TMP/run.db" || { fail "fixture-db"; finish; }
before=$(md5sum < "$TMP/run.db")

browse_start 80x24 "$TMP/run.db"
wait_for "row 1 of 3" && expect_screen threads
keys j Enter; wait_for "thread worker-a (101)" && expect_screen thread-worker-a
keys Escape; wait_for "row 2 of 3"
keys s; wait_for "sorted by tid"; keys S; wait_for "sorted by tid" && expect_screen threads-sorted
keys /; type_text 'work.*-b'; keys Enter; wait_for "match 1 of 1 for 'work.*-b'"
keys f; type_text main; keys Enter; wait_for "(filtered)" && expect_screen threads-filtered
keys f Enter; wait_for "row 1 of 3"

keys 2; wait_for "objects" && expect_screen objects
keys Enter; wait_for "history" && expect_screen object-history
keys G; wait_for "row 4 of 4"; keys g; wait_for "row 1 of 4"
# End and Home as terminals send them (ESC [ 4 ~, ESC [ 1 ~, ESC O F, ESC O H):
# one key each, not Escape (back) and three more.
type_text $'\e[4~'; wait_for "row 4 of 4"; type_text $'\e[1~'; wait_for "row 1 of 4"
type_text $'\eOF'; wait_for "row 4 of 4"; type_text $'\eOH'; wait_for "row 1 of 4" && expect_screen object-history
keys Escape 3; wait_for "waits" && expect_screen waits
keys j j Enter; wait_for "thread worker-b (102)"
# An object opened from a thread's wait on it: its history, on that wait.
keys /; type_text 0x1000; keys Enter; wait_for "match 1 of 1 for '0x1000'"
keys Enter; wait_for "row 2 of 4 loaded" && expect_screen object-history-wait
keys q BSpace

keys 4; wait_for "lane 1 of 3" && expect_screen timeline
keys j j t; wait_for "jump to time"; type_text 300us; keys Enter
wait_for "at 300.00 us" && expect_screen timeline-wait
# Enter on a wait for a lock: the lock's history, on that wait; q: back.
keys Enter; wait_for "row 2 of 4 loaded" && expect_screen timeline-open-wait
keys q; wait_for "at 300.00 us"
keys w; wait_for "woken by worker-a (101)" && expect_screen timeline-wakeup
keys + + +; wait_for "2.15 us a column"; keys ']'; wait_for "op thread" && expect_screen timeline-zoomed
keys - - - f; wait_for "lanes of threads"; type_text 0x1000; keys Enter
wait_for "filter 0x1000" && expect_screen timeline-object
keys f; type_text main; keys Enter; wait_for "lane 1 of 1"
keys f Enter; wait_for "lane 1 of 3"

keys 5; wait_for "switches" && expect_screen switches
keys 6; wait_for "syscalls" && expect_screen syscalls
keys Enter; wait_for "futex of main" && expect_screen syscall-calls
keys 7; wait_for "No calls or samples" && expect_screen calls
keys 8; wait_for "Critical path" && expect_screen critical-path
keys '?'; wait_for "open what is selected" && expect_screen help
keys Escape Tab; wait_for "mtx browse run.db: phases"; keys Tab; wait_for "mtx browse run.db: diagnose"
keys Tab; wait_for "mtx browse run.db: probe-effect"
keys Tab; wait_for "mtx browse run.db: threads"
# q closes help and drill-downs, back to where you were, and quits only
# from a main view; Q quits from anywhere.
keys j '?'; wait_for "open what is selected"; keys q; wait_for "row 2 of 3" && pass "q closes help"
keys Enter; wait_for "thread worker-a (101)"; keys j j q; wait_for "row 2 of 3" && pass "q closes a drill-down"
keys q; wait_for "exit=0" && pass "q in a main view quits"
browse_start 80x24 "$TMP/run.db"
wait_for "row 1 of 3"; keys 2 Enter; wait_for "history"; keys Q; wait_for "exit=0" && pass "Q quits from a drill-down"

# Objects at addresses as long as a real program's: the objects view fits
# 80 columns only one blank apart (81 wide two apart), and still shows its
# last column, threads.
cp "$TMP/run.db" "$TMP/wide.db"
if ! command -v sqlite3 > /dev/null; then
	echo "skip: objects at long addresses (no sqlite3 shell)"
elif ! sqlite3 "$TMP/wide.db" "UPDATE sync_objects SET addr = addr + 94266034667520"; then
	fail "could not move the fixture's objects"
else
	browse_start 80x24 "$TMP/wide.db"
	wait_for "row 1 of 3"; keys 2; wait_for "objects" && expect_screen objects-wide
	keys q; wait_for "exit=0"
fi

# Named objects (sync_objects.name, as a collection writes it): the name
# in the objects view, the history's title, the timeline's detail line
# and a thread's waits, the address beside it where it fits.
cp "$TMP/run.db" "$TMP/named.db"
if ! command -v sqlite3 > /dev/null; then
	echo "skip: named objects (no sqlite3 shell)"
elif ! sqlite3 "$TMP/named.db" "UPDATE sync_objects SET name = 'log_mutex' WHERE id = 1;
		UPDATE sync_objects SET name = 'thread 101' WHERE id = 2"; then
	fail "could not name the fixture's objects"
else
	browse_start 80x24 "$TMP/named.db"
	wait_for "row 1 of 3"; keys j j Enter; wait_for "thread worker-b (102)" && expect_screen thread-worker-b-named
	keys Escape 2; wait_for "objects" && expect_screen objects-named
	keys Enter; wait_for "history" && expect_screen object-history-named
	keys Escape 4 j j t; wait_for "jump to time"; type_text 300us; keys Enter
	wait_for "at 300.00 us" && expect_screen timeline-named
	keys Q; wait_for "exit=0"
fi

# More threads than a view loads (1000): sorting asks the database for
# the first rows in the new order, not the loaded ones reordered. With
# 1200 more threads (tids 1000-2199, after the fixture's three), the
# largest tid is 2199, though only tids up to 1996 were loaded.
cp "$TMP/run.db" "$TMP/many.db"
if ! command -v sqlite3 > /dev/null; then
	echo "skip: more threads than a view loads (no sqlite3 shell)"
elif ! sqlite3 "$TMP/many.db" "WITH RECURSIVE n(i) AS (SELECT 1000 UNION ALL SELECT i + 1 FROM n WHERE i < 2199)
		INSERT INTO threads (tid, pid, name, start_ns, end_ns) SELECT i, 100, 'extra', 1000500000, 1000600000 FROM n;
		INSERT INTO thread_states SELECT tid, start_ns, end_ns, 'running', 0, NULL, NULL FROM threads WHERE tid >= 1000;
		DELETE FROM meta WHERE key = 'derived_version'"; then
	fail "could not add threads to the fixture"
else
	browse_start 80x24 "$TMP/many.db"
	wait_for "row 1 of the first 1000" 60
	keys s; wait_for "sorted by tid, descending"
	[ "$(screen | sed -n 3p | awk '{ print $1 }')" = 2199 ] && pass "sorted past the rows loaded" ||
		{ fail "sorting more threads than loaded: the first row is not tid 2199"; screen | sed 's/^/  | /'; }
	[ "$(screen | sed -n 2p | awk '{ print $1 }')" = "tid▼" ] && pass "the sort column marked, descending" ||
		fail "the header does not mark tid as the sort column, descending: $(screen | sed -n 2p)"
	# A filter asks the database too: the fixture's workers (101, 102)
	# were not among the rows loaded (2199 down to 1200); cleared, the
	# first 1000 come back in the order chosen.
	keys f; type_text worker; keys Enter; wait_for "row 1 of 2 (filtered)"
	[ "$(screen | sed -n 3,4p | awk '{ print $1 }' | tr '\n' ' ')" = "102 101 " ] && pass "filtered past the rows loaded" ||
		{ fail "filtering more threads than loaded: not the workers 102 and 101"; screen | sed 's/^/  | /'; }
	keys f; keys Enter; wait_for "row 1 of the first 1000"
	[ "$(screen | sed -n 3p | awk '{ print $1 }')" = 2199 ] && pass "filter cleared: the first rows in the order chosen" ||
		{ fail "filter cleared: the first row is not tid 2199"; screen | sed 's/^/  | /'; }
	# So does a search: it finds the workers past the rows loaded, and
	# from then on the view holds every row, in the same order.
	keys /; type_text worker; keys Enter; wait_for "match 1 of 2 for 'worker'"
	screen | grep -q "^ *102 *worker-b" && pass "search: found past the rows loaded" ||
		{ fail "search: worker-b (102) is not on the screen"; screen | sed 's/^/  | /'; }
	keys n; wait_for "match 2 of 2 for 'worker'"; keys n
	wait_for "search hit the bottom, continued at the top: match 1 of 2 for 'worker'"
	keys g; wait_for "row 1 of 1203"
	keys q; wait_for "exit=0"
fi

# The calls view of a run with samples (tests/fixtures/profile.sql): each
# thread's count first, its tree once opened.
if "$BUILDDIR/tests/fixture-db" "$srcdir/tests/fixtures/profile.sql" "$TMP/profile.db"; then
	browse_start 80x24 "$TMP/profile.db"
	wait_for "row 1 of 2"; keys 7; wait_for "main (200): 4 samples" && expect_screen calls-samples
	keys Enter; wait_for "- main (200)" && expect_screen calls-samples-open
	keys q; wait_for "exit=0"
else
	fail "fixture-db profile"
fi

# Exact calls (tests/fixtures/calls.sql): times as durations, to the right.
if "$BUILDDIR/tests/fixture-db" "$srcdir/tests/fixtures/calls.sql" "$TMP/calls.db"; then
	browse_start 80x24 "$TMP/calls.db"
	wait_for "calls.db: threads"; keys 7; wait_for "main (300): 4 calls"
	keys Enter; wait_for "- main (300)"; keys j Enter; wait_for "work app" && expect_screen calls-exact
	keys q; wait_for "exit=0"
else
	fail "fixture-db calls"
fi

# Below 80x24: the views fit what they can (a third of the width for
# lane labels, the legend on fewer lines, the breadcrumb cut on the left).
browse_start 40x10 "$TMP/run.db"
wait_for "row 1 of 3" && expect_screen small-threads
keys 4; wait_for "lane 1 of 3" && expect_screen small-timeline
keys 2 Enter; wait_for "row 1 of 4 loaded" && expect_screen small-history
keys Q; wait_for "exit=0"

[ "$(md5sum < "$TMP/run.db")" = "$before" ] && pass "run.db unchanged" || fail "mtx browse changed run.db"
finish
