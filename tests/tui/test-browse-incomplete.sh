#!/bin/bash
# tests/tui/test-browse-incomplete.sh - mtx browse on runs whose collector
# did not finish: under the title, on every view, a line says INCOMPLETE
# and what the run lacks; the views show what was recorded (the threads
# alive when recording stopped too) and say which of their figures are
# unknown; the file is left unchanged. On a run made from
# tests/fixtures/waits.sql as a killed collector leaves it, the screens are
# compared whole; then a killed collector's run, a run being recorded
# (STILL RECORDING) and a full disk's, and a complete run on a read-only
# mount, which says nothing of the kind.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1

# The fixture as a collector killed near its end leaves it: main and
# worker-b still alive (no threads rows), no process rows, the sync tables
# not resolved (no blocked_sync, no holders), meta complete 0 and no totals.
"$BUILDDIR/tests/fixture-db" "$srcdir/tests/fixtures/waits.sql" fixture.db || { fail "fixture-db"; finish; }
sql fixture.db "UPDATE meta SET value = '0' WHERE key = 'complete'; DELETE FROM meta WHERE key IN ('start_ns', 'end_ns');
	DELETE FROM processes; DELETE FROM threads WHERE tid IN (100, 102);
	UPDATE thread_states SET state = 'blocked', object_id = NULL WHERE state = 'blocked_sync';
	UPDATE sync_ops SET blocked = 0, wait_ns = 0, holder_tid = NULL, hold_ns = NULL;" || fail "could not make the fixture incomplete"
before=$(md5sum < fixture.db)
browse_start 80x24 fixture.db
wait_for "row 1 of 3" && expect_screen incomplete-threads
keys 2; wait_for "mtx browse fixture.db: objects" && expect_screen incomplete-objects
keys 8; wait_for "Critical path" && expect_screen incomplete-critical-path
keys q; wait_for "exit=0" && pass "incomplete fixture: quit, exit 0"
[ "$(md5sum < fixture.db)" = "$before" ] && pass "incomplete fixture: unchanged" || fail "mtx browse changed the fixture"

# browse_collected NAME DB - the line, a row per thread recorded, the
# objects' unknown columns when sync calls were recorded, exit 0.
browse_collected() {
	local name=$1 db=$2 before tids ops
	before=$(cat "$db" "$db-wal" 2> /dev/null | md5sum)
	tids=$(seen_tids "$db")
	ops=$(sqlite3 -readonly "$db" "SELECT COUNT(*) FROM sync_ops")
	browse_start 80x24 "$db"
	wait_for "INCOMPLETE: " && pass "$name: $(screen | sed -n 2p)"
	[ "$tids" = 0 ] || { wait_for "row 1 of $tids" && pass "$name: $tids threads"; }
	if [ "$ops" != 0 ]; then
		keys 2; wait_for "(unknown: blocked, wait, max_wait, hold" && pass "$name: objects: their waits unknown"
	fi
	keys q; wait_for "exit=0"
	[ "$(cat "$db" "$db-wal" 2> /dev/null | md5sum)" = "$before" ] || fail "$name: mtx browse changed the file"
}

collect_killed killed.db || fail "no killed run"
browse_collected "killed collector" killed.db

# A run being recorded: the line says so, with the collector's pid; the
# collector ends as the program does.
collect_live live.db || fail "live run: nothing committed"
browse_start 80x24 live.db
wait_for "STILL RECORDING: mtx collect (pid $LIVE_PID)" && pass "live run: $(screen | sed -n 2p)"
keys q; wait_for "exit=0"
touch "$TMP/go"
wait $LIVE_PID
status=$?
[ $status = 3 ] && pass "live run: mtx collect exits 3, as the program" || fail "live run: mtx collect exited $status"

mkdir -p small ro
if mount -t tmpfs -o size=2m tmpfs small 2> /dev/null; then
	"$MTX" collect -q -o small/run.db -- "$SAMPLES/philosophers" 5 800 > /dev/null 2>&1
	browse_collected "full disk" small/run.db
	umount small
fi

"$MTX" collect -q -o done.db -- "$SAMPLES/philosophers" 3 100 > /dev/null || fail "collect done.db"
threads=$(sql done.db "SELECT COUNT(*) FROM threads")
if mount -t tmpfs -o size=64m tmpfs ro 2> /dev/null; then
	cp done.db ro/ && mount -o remount,ro ro
	browse_start 80x24 ro/done.db
	wait_for "row 1 of $threads" && ! screen | grep -q INCOMPLETE && pass "read-only mount: a complete run, as such"
	keys q; wait_for "exit=0"
	umount ro
fi
finish
