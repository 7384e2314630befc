#!/bin/bash
# tests/tui/test-browse-collect.sh - collect the client-server sample and
# walk every view of mtx browse on it as a user would: each main view opens
# and shows its rows, the drill-downs open (a thread, an object's history,
# a syscall's calls), the timeline moves, zooms and follows a wakeup, and
# quitting exits 0 with run.db unchanged.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib.sh"
require_perf

cd "$TMP" || exit 1
"$MTX" collect -q -o run.db -- "$SAMPLES/clientserver" > out.txt 2> err.txt || { fail "collect"; cat err.txt; finish; }
before=$(md5sum < run.db)
threads=$(sql run.db "SELECT COUNT(*) FROM threads")

browse_start 100x30 run.db
wait_for "row 1 of $threads" && pass "threads view: $threads threads"
keys /; type_text client-0; keys Enter; wait_for "client-0"
keys Enter; wait_for "thread client-0" && wait_for "Who waited on which sync object" && pass "thread view"
keys Escape 2; wait_for "mtx browse run.db: objects" && wait_for "sem" && pass "objects view lists the semaphores"
keys Enter; wait_for "history" && wait_for "loaded" && pass "object history opens"
keys G; wait_for "loaded"; keys g; wait_for "row 1 of"
keys 3; wait_for "running" && wait_for "client-0 (" && pass "waits view"
keys 4; wait_for "lane 1 of $threads" && pass "timeline: $threads lanes"
keys f; type_text client-0; keys Enter; wait_for "lane 1 of 1"
keys t; type_text 50ms; keys Enter; wait_for "at 50.00 ms"
keys + + ']'; wait_for "a column" && pass "timeline moves and zooms"
keys f Enter; wait_for "lane 1 of $threads"
keys 5; wait_for "from_tid" && pass "switches view"
keys 6; wait_for "syscall" && keys Enter && wait_for "loaded" && pass "syscalls view and a syscall's calls"
keys 7; wait_for "calls" && pass "calls view"
keys 8; wait_for "Critical path" && pass "critical path view"
keys '?'; wait_for "open what is selected" && pass "help"
keys q; wait_for "Critical path" && pass "q closes help"
keys q; wait_for "exit=0" && pass "quit: exit 0"
[ "$(md5sum < run.db)" = "$before" ] && pass "run.db unchanged" || fail "mtx browse changed run.db"
finish
