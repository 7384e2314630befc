#!/bin/bash
# tests/tui/test-browse-search.sh - filter and search see every row of a
# history, not only the page loaded: on a lock whose history (6004 ops) is
# thirty times the 200 rows a page holds, f keeps the rows of the whole
# history and says how many (SQL's count on the same run.db), G goes to the
# last of them; / finds an op 5000 in, counts its matches as SQL does, and
# n and N wrap round the ends and say so; b keeps the ops that blocked
# (SQL's count, with and without a filter), where the cursor was.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib.sh"
command -v sqlite3 > /dev/null || skip "no sqlite3 shell to add ops to the fixture"

# tests/fixtures/waits.sql and 6000 more ops on its mutex (object 1, 0x1000)
# from 460 us on, 50 ns apart: main, worker-a and worker-b in turn, lock and
# unlock in turn, every 7th lock blocked; op 5000's call site is 0xbeef, in
# the function eat_beef (the history shows the function, not the address).
"$BUILDDIR/tests/fixture-db" "$srcdir/tests/fixtures/waits.sql" "$TMP/run.db" || { fail "fixture-db"; finish; }
sql "$TMP/run.db" "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 5999)
	INSERT INTO sync_ops (id, tid, object_id, op, start_ns, end_ns, blocked, wait_ns, result, arg,
			      callsite, holder_tid, hold_ns)
	SELECT 100 + i, 100 + i % 3, 1, CASE i % 2 WHEN 0 THEN 'lock' ELSE 'unlock' END,
	       1000460000 + i * 50, 1000460000 + i * 50 + 10, i % 14 = 0, CASE i % 14 WHEN 0 THEN 5 ELSE 0 END,
	       0, NULL, CASE i WHEN 5000 THEN 48879 ELSE 2048 + i % 2 * 16 END, NULL, NULL FROM n;
	INSERT INTO functions (id, name, module) VALUES (9, 'eat_beef', '/app');
	INSERT INTO callsites (pid, addr, function_id) VALUES (100, 48879, 9);
	DELETE FROM meta WHERE key = 'derived_version'" || { fail "could not add ops to the fixture"; finish; }

# ops WHERE - how many of the mutex's ops SQL finds (op: sync_ops, t: threads).
ops() { sql "$TMP/run.db" "SELECT COUNT(*) FROM sync_ops op JOIN threads t USING (tid) WHERE op.object_id = 1 AND $1"; }
# start_of WHERE ORDER - the start, as the browser shows it, of the first op in ORDER.
start_of() {
	sql "$TMP/run.db" "SELECT printf('%d.%06d', (op.start_ns - 1000000000) / 1000000000,
		(op.start_ns - 1000000000) % 1000000000 / 1000) FROM sync_ops op JOIN threads t USING (tid)
		WHERE op.object_id = 1 AND $1 ORDER BY $2 LIMIT 1"
}
# line N - line N of the screen (1: the title).
line() { screen | sed -n "$1p"; }

browse_start 80x24 "$TMP/run.db"
wait_for "row 1 of 3" 60
keys 2 Enter; wait_for "row 1 of 200 loaded"

# f: the rows of all the history that match, counted.
want=$(ops "t.name = 'worker-b'")
[ "$want" -gt 1000 ] || fail "the fixture has only $want ops of worker-b"
keys f; type_text worker-b; keys Enter
wait_for "row 1 of 200 loaded; $want rows match 'worker-b'" && pass "filter: $want rows, as SQL counts"
[ "$(screen | sed -n 3,23p | awk '{ print $3 }' | sort -u)" = worker-b ] && pass "filter: only worker-b's rows shown" ||
	fail "filter: rows of other threads shown"
keys G; wait_for "row 200 of 200 loaded; $want rows match"
last=$(start_of "t.name = 'worker-b'" "op.start_ns DESC, op.id DESC")
[ "$(line 23 | awk '{ print $1 }')" = "$last" ] && pass "filter: G shows the last of them ($last)" ||
	{ fail "filter: G does not end at worker-b's last op ($last)"; screen | sed 's/^/  | /'; }
keys f Enter; wait_for "row 1 of 200 loaded  "

# /: a row 5000 ops in, then around the end to itself.
keys /; type_text eat_beef; keys Enter
wait_for "match 1 of 1 for 'eat_beef'" && screen | grep -q " eat_beef " && pass "search: found op 5000, past the page" ||
	{ fail "search: the eat_beef op is not on the screen"; screen | sed 's/^/  | /'; }
keys n; wait_for "search hit the bottom, continued at the top: match 1 of 1 for 'eat_beef'" &&
	pass "search: wraps at the end, and says so"
keys g /; type_text 'worker-a.*unlock'; keys Enter
want=$(ops "t.name = 'worker-a' AND op.op = 'unlock'")
wait_for "match 1 of $want for 'worker-a.*unlock'" && pass "search: $want matches, as SQL counts"
keys N; wait_for "search hit the top, continued at the bottom: match $want of $want for"
# The match is on the screen, and no later one: the last on the screen is it.
[ "$(screen | grep -E "worker-a +unlock" | tail -n 1 | awk '{ print $1 }')" = \
	"$(start_of "t.name = 'worker-a' AND op.op = 'unlock'" "op.start_ns DESC")" ] &&
	pass "search: N from the first match goes to the last" || { fail "search: N did not reach the last match"; screen | sed 's/^/  | /'; }
keys N; wait_for "match $((want - 1)) of $want for"
keys n n; wait_for "search hit the bottom, continued at the top: match 1 of $want for"

# b: the ops that blocked, of all the history, from where the cursor was.
want=$(ops "op.blocked")
keys b; wait_for "only the ops that blocked (b: all)"
keys j; wait_for "; $want blocked ops (b: all)" && pass "blocked only: $want ops, as SQL counts"
[ "$(screen | sed -n 3,23p | awk '{ print $5 }' | sort -u)" = 1 ] && pass "blocked only: only blocked ops shown" ||
	fail "blocked only: ops that did not block are shown"
want=$(ops "op.blocked AND t.name = 'worker-b'")
keys f; type_text worker-b; keys Enter; wait_for "; $want blocked ops match 'worker-b'" &&
	pass "blocked only and a filter: $want ops, as SQL counts"
keys b; wait_for "all ops"
keys q; wait_for "mtx browse run.db: objects"
keys q; wait_for "exit=0"
finish
