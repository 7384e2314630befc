#!/bin/bash
# tests/e2e/test-incomplete.sh - runs whose collector did not finish, read
# by mtx info and mtx report (text, CSV, JSON): a killed collector's run and
# a run that filled a 512 KiB disk each say INCOMPLETE in one line and what
# they lack, show what was recorded (the threads alive when recording
# stopped too) with exit 0, leave unknown the figures the missing steps
# would have made right (blocking counts, holders, the critical path), and
# are never written to. A run being recorded says STILL RECORDING instead,
# and a reader that has it open does not change how mtx collect ends; a
# reader waits for a lock on the file. A complete run reads as before from
# a read-only mount, and from a full disk without its derived tables.
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1
have_python=$(command -v python3)

# rsql DB QUERY - as sql, without ever writing the file (the sqlite3 shell
# would checkpoint a killed run's WAL into it when it closes).
rsql() { sqlite3 -readonly -batch "$1" "$2"; }

# files DB - the file and its WAL, as they are now.
files() { cat "$1" "$1-wal" 2>/dev/null | md5sum; }

# check_incomplete NAME DB - every reader on an incomplete run.
check_incomplete() {
	local name=$1 db=$2 before
	before=$(files "$db")

	"$MTX" info "$db" > info.out 2> info.err || fail "$name: info exited $?: $(head -1 info.err)"
	[ "$(grep -c INCOMPLETE info.out)" = 1 ] && grep -q "^status *INCOMPLETE: .*; missing: thread ends, exit status" info.out &&
		pass "$name: info: $(grep INCOMPLETE info.out | cut -c1-100)..." ||
		fail "$name: info does not say INCOMPLETE and what is missing in one line: $(head -3 info.out)"
	grep -q "^exit status *unknown" info.out || fail "$name: info shows an exit status mtx never knew: $(grep '^exit' info.out)"
	grep -q "^lost *unknown" info.out || fail "$name: info shows loss counts the collector never wrote: $(grep '^lost' info.out)"

	# Text: the line first; a row per thread recorded, those alive at the
	# stop included (they have no threads row in the file).
	local tids
	tids=$(seen_tids "$db")
	"$MTX" report "$db" threads > threads.out 2> threads.err || fail "$name: report threads exited $?: $(head -1 threads.err)"
	head -1 threads.out | grep -q "^INCOMPLETE: .*; missing: " && [ "$(grep -c INCOMPLETE threads.out)" = 1 ] ||
		fail "$name: report threads does not begin with one INCOMPLETE line: $(head -1 threads.out)"
	local ops
	ops=$(rsql "$db" "SELECT COUNT(*) FROM sync_ops")
	[ "$ops" = 0 ] || grep -q "^(unknown: sync%, other%: " threads.out ||
		fail "$name: report threads does not say sync% is unknown"
	"$MTX" report "$db" threads --format csv > threads.csv 2> threads-csv.err ||
		fail "$name: report threads --format csv exited $?"
	[ "$(($(wc -l < threads.csv) - 1))" = "$tids" ] && pass "$name: report threads: $tids threads" ||
		fail "$name: report threads shows $(($(wc -l < threads.csv) - 1)) threads, the file records $tids"
	[ "$(grep -c INCOMPLETE threads-csv.err)" = 1 ] && ! grep -q INCOMPLETE threads.csv ||
		fail "$name: CSV: the INCOMPLETE line is not on stderr once"
	awk -F, 'NR > 1 && $6 != "" { bad = 1 } END { exit bad }' threads.csv ||
		fail "$name: report threads --format csv gives a sync share that was never resolved"

	# JSON: the calls all there, their blocking unknown (null), not 0.
	"$MTX" report "$db" sync --format json > sync.json 2> sync.err || fail "$name: report sync --format json exited $?"
	[ "$(grep -c INCOMPLETE sync.err)" = 1 ] && ! grep -q INCOMPLETE sync.json ||
		fail "$name: JSON: the INCOMPLETE line is not on stderr once: $(cat sync.err)"
	"$MTX" report "$db" waits --format json > waits.json 2> waits.err || fail "$name: report waits --format json exited $?"
	if [ -n "$have_python" ]; then
		python3 -c 'import json, sys
rows = json.load(open("sync.json"))["sync"]
assert sum(r["calls"] for r in rows) == int(sys.argv[1])
assert all(r["blocking"] is None and r["wait_ns"] is None and r["max_wait_ns"] is None for r in rows)' "$ops" &&
			pass "$name: report sync --format json: $ops calls, blocking null" ||
			fail "$name: report sync --format json: not every call, or blocking not null: $(head -c 300 sync.json)"
	fi
	if [ -n "$have_python" ] && [ "$ops" != 0 ]; then
		python3 -c 'import json
d = json.load(open("waits.json"))
assert d["waits.objects"] is None and isinstance(d["waits.other"], list)' &&
			pass "$name: report waits --format json: waits.objects null, waits.other shown" ||
			fail "$name: report waits --format json: $(head -c 300 waits.json)"
	fi

	# Syscalls need nothing after the exit: all of them.
	local calls
	calls=$(rsql "$db" "SELECT COUNT(*) FROM syscalls")
	"$MTX" report "$db" syscalls --format csv > syscalls.csv 2> /dev/null || fail "$name: report syscalls exited $?"
	[ "$(awk -F, 'NR > 1 { n += $4 } END { print n + 0 }' syscalls.csv)" = "$calls" ] ||
		fail "$name: report syscalls does not count the $calls syscalls recorded"

	# Nothing of the critical path can be known: said, and exit 1.
	"$MTX" report "$db" critical-path > path.out 2> path.err
	local status=$?
	[ $status = 1 ] && grep -q "^(unknown: the program's end was not recorded)" path.out && grep -q "cannot be shown" path.err &&
		pass "$name: report critical-path: unknown, exit 1" ||
		fail "$name: report critical-path: exit $status, $(head -3 path.out | tr '\n' ' ') $(cat path.err)"

	# mtx probe-effect keeps its results in complete runs only.
	"$MTX" probe-effect "$db" > /dev/null 2> probe.err
	[ $? = 1 ] || grep -q "results not stored: the run is incomplete" probe.err ||
		fail "$name: probe-effect: $(cat probe.err)"

	[ "$(files "$db")" = "$before" ] && pass "$name: the file was not written" || fail "$name: a reader wrote to the file"
	[ -z "$(rsql "$db" "SELECT value FROM meta WHERE key = 'derived_version'")" ] ||
		fail "$name: derived tables were stored in an incomplete run"
}

# The waits fixture as a killed collector leaves it, worker-b (102) seen
# only in its sync calls, syscalls and switches (the state it was in never
# ended): a row all the same, from the first thing it was seen doing (its
# lock at 1000250000) to the last (its nanosleep's end at 1000605000), its
# shares unknown.
"$BUILDDIR/tests/fixture-db" "$srcdir/tests/fixtures/waits.sql" unseen.db &&
	sql unseen.db "UPDATE meta SET value = '0' WHERE key = 'complete'; DELETE FROM meta WHERE key IN
	('start_ns', 'end_ns', 'threads_ended_ns'); DELETE FROM processes; DELETE FROM threads WHERE tid IN (100, 102);
	DELETE FROM thread_states WHERE tid = 102" || fail "could not make the waits fixture incomplete"
"$MTX" report unseen.db threads --format csv > unseen.csv 2> /dev/null || fail "unseen: report threads exited $?"
[ "$(grep '^102,' unseen.csv)" = "102,?,355000,,,,,," ] && [ "$(($(wc -l < unseen.csv) - 1))" = 3 ] &&
	pass "a thread seen only doing other things: a row, its shares unknown" ||
	fail "a thread seen only doing other things: $(cat unseen.csv)"

# A killed collector, once its file holds threads and sync calls.
collect_killed killed.db || fail "no killed run"
check_incomplete "killed collector" killed.db

# A run being recorded: each reader says so, with the collector's pid,
# shows what was committed, and exits 0; a reader that has the file open
# when the program ends does not change mtx collect's exit status (the
# program's) nor keep the run from being completed.
collect_live live.db || fail "live run: nothing committed"
"$MTX" info live.db > live-info.out 2>&1 || fail "live run: info exited $?"
grep -q "^status *STILL RECORDING: mtx collect (pid $LIVE_PID) is recording this run; shown: its first " live-info.out &&
	! grep -q INCOMPLETE live-info.out && pass "live run: info: $(grep '^status' live-info.out | cut -c1-100)..." ||
	fail "live run: info does not say STILL RECORDING with pid $LIVE_PID: $(head -3 live-info.out)"
"$MTX" report live.db threads > live-threads.out 2> live-threads.err || fail "live run: report threads exited $?"
head -1 live-threads.out | grep -q "^STILL RECORDING: mtx collect (pid $LIVE_PID) " &&
	grep -q "^Threads" live-threads.out && pass "live run: report threads, under the line" ||
	fail "live run: report threads: $(head -3 live-threads.out) $(cat live-threads.err)"
# sqlite3, reading, keeps the file open until told to end.
{ echo "SELECT COUNT(*) FROM meta;"; until [ -e reader-done ]; do sleep 0.1; done; } |
	sqlite3 -readonly live.db > reader.out &
reader=$!
for _ in $(seq 100); do [ -s reader.out ] && break; sleep 0.1; done
touch "$TMP/go"
wait $LIVE_PID
status=$?
touch reader-done
wait $reader
[ $status = 3 ] && pass "live run: mtx collect exits 3, as the program, a reader or not" ||
	fail "live run: mtx collect exited $status, the program 3: $(cat live.db.err)"
grep -q "stays in WAL mode: another program has it open" live.db.err && ! grep -v "stays in WAL mode" live.db.err | grep -q warning &&
	pass "live run: it says the file stays in WAL mode, as a reader had it open" ||
	fail "live run: mtx collect said: $(cat live.db.err)"
[ "$(rsql live.db "SELECT COUNT(*) FROM meta WHERE key IN ('complete', 'derived_version') AND value != '0'")" = 2 ] &&
	"$MTX" info live.db 2>&1 | grep -q "^status *complete$" && pass "live run: complete, with its derived tables" ||
	fail "live run: not complete once recorded: $("$MTX" info live.db 2>&1 | grep status)"

# The pid in the file is a collector's only if that process started by
# the run's start: one that started later took the pid of a dead one.
cp killed.db later.db && cp killed.db-wal later.db-wal 2> /dev/null
sleep 600 &
other=$!
now=$(date +%s)
sql later.db "UPDATE meta SET value = '$other' WHERE key = 'collector_pid';
	UPDATE meta SET value = '$((now - 100))' WHERE key = 'start_realtime_s'" || fail "could not edit later.db"
"$MTX" info later.db 2>&1 | grep -q "^status *INCOMPLETE: " && pass "a pid taken by a later process: INCOMPLETE" ||
	fail "a pid taken by a later process: $("$MTX" info later.db 2>&1 | grep status)"
sql later.db "UPDATE meta SET value = '$((now + 100))' WHERE key = 'start_realtime_s'"
"$MTX" info later.db 2>&1 | grep -q "^status *STILL RECORDING: mtx collect (pid $other) " &&
	pass "the same process, started before the run: STILL RECORDING" ||
	fail "a live process started before the run: $("$MTX" info later.db 2>&1 | grep status)"
kill $other
wait $other 2> /dev/null

# A full disk: 2 MiB hold the first commits of a run of about 5 MB.
mkdir -p small
if mount -t tmpfs -o size=2m tmpfs small 2> /dev/null; then
	"$MTX" collect -q -o small/run.db -- "$SAMPLES/philosophers" 5 800 > /dev/null 2>&1
	[ "$(rsql small/run.db "SELECT COUNT(*) FROM thread_states")" = 0 ] &&
		echo "note: the disk filled before the first commit: nothing was recorded"
	check_incomplete "full disk" small/run.db
	umount small
else
	echo "note: cannot mount a small tmpfs here; the full-disk case was not run"
fi

# A complete run on a read-only mount: as from the writable file, not
# incomplete; and on a full disk without its derived tables.
"$MTX" collect -q -o done.db -- "$SAMPLES/philosophers" 3 100 > /dev/null || fail "collect done.db"
for r in threads sync locks; do
	"$MTX" report done.db $r > "done-$r.out" 2> /dev/null || fail "report done.db $r"
done
# A reader that finds the file locked (as by mtx collect writing the
# derived tables) waits for the lock, says so after a second, and reads on.
cp done.db locked.db
{ echo "BEGIN EXCLUSIVE; SELECT 'locked';"; until [ -e unlock ]; do sleep 0.1; done; echo "COMMIT;"; } |
	sqlite3 locked.db > locker.out &
locker=$!
for _ in $(seq 100); do [ -s locker.out ] && break; sleep 0.1; done
"$MTX" info locked.db > locked-info.out 2> locked-info.err &
info=$!
for _ in $(seq 100); do grep -q "waiting for .*/locked.db: another program holds a lock on it" locked-info.err && break; sleep 0.1; done
touch unlock
wait $info
status=$?
wait $locker
[ $status = 0 ] && grep -q "^status *complete$" locked-info.out && grep -q "waiting for" locked-info.err &&
	pass "a locked file: info waits, says so, and reads it once unlocked" ||
	fail "a locked file: info exited $status: $(cat locked-info.err) $(head -2 locked-info.out)"

mkdir -p ro full
if mount -t tmpfs -o size=64m tmpfs ro 2> /dev/null; then
	# without its derived tables: built for the reading, not stored
	cp done.db ro/ && sqlite3 ro/done.db "DELETE FROM meta WHERE key = 'derived_version'" && mount -o remount,ro ro
	"$MTX" info ro/done.db > ro-info.out 2>&1 && grep -q "^status *complete$" ro-info.out && ! grep -q INCOMPLETE ro-info.out &&
		pass "read-only mount: info says complete" || fail "read-only mount: info: $(head -3 ro-info.out)"
	for r in threads sync locks; do
		"$MTX" report ro/done.db $r > "ro-$r.out" 2> ro.err && cmp -s "ro-$r.out" "done-$r.out" &&
			pass "read-only mount: report $r as from the writable file" ||
			fail "read-only mount: report $r differs or failed: $(head -1 ro.err)"
	done
	umount ro
fi
if mount -t tmpfs -o size=4m tmpfs full 2> /dev/null; then
	cp done.db full/ && sqlite3 full/done.db "DELETE FROM meta WHERE key = 'derived_version'" &&
		dd if=/dev/zero of=full/fill bs=64k 2> /dev/null
	"$MTX" report full/done.db threads > full-threads.out 2> full.err && cmp -s full-threads.out done-threads.out &&
		pass "full disk, complete run without derived tables: report threads ($(tail -1 full.err))" ||
		fail "full disk, complete run: report threads differs or failed: $(cat full.err)"
	umount full
fi
finish
