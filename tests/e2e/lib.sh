# tests/e2e/lib.sh - shared by the end-to-end tests (sourced).
# Automake runs each test with srcdir set and from the build directory.
set -u
: "${srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
# Absolute: tests cd into their scratch directory.
srcdir=$(cd "$srcdir" && pwd)
BUILDDIR=${BUILDDIR:-$(pwd)}
MTX=${MTX:-$BUILDDIR/mtx}
SAMPLES=${SAMPLES:-$BUILDDIR/samples}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mtx-e2e.XXXXXX")
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
FAILED=0

fail() { echo "FAIL: $*"; FAILED=1; }
pass() { echo "ok: $*"; }
skip() { echo "SKIP: $*"; exit 77; }
finish() { [ "$FAILED" = 0 ] && exit 0 || exit 1; }

# fixture_dbs NAME... - tests/fixtures/NAME.sql into NAME.db each, in the
# current directory; the test ends failed when one cannot be made.
fixture_dbs() {
	local f
	for f in "$@"; do
		"$BUILDDIR/tests/fixture-db" "$srcdir/tests/fixtures/$f.sql" "$f.db" || { fail "fixture-db $f"; finish; }
	done
}

# sql DB QUERY - one value (or rows, '|'-separated) from a run database.
sql() { sqlite3 -batch "$1" "$2"; }

# j FILE EXPR - EXPR over the JSON document in FILE (as column j), by SQLite.
j() { sqlite3 :memory: "SELECT $2 FROM (SELECT CAST(readfile('$1') AS TEXT) AS j)" 2>&1; }
# fact FILE KEY - the value of a "KEY VALUE" line a program printed.
fact() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }

# wait_until COMMAND... - until COMMAND succeeds (bounded: 120 s, then 1);
# holds FILE PATTERN - whether FILE holds PATTERN.
wait_until() {
	local i=0
	until "$@"; do
		i=$((i + 1))
		[ $i -lt 2400 ] || return 1
		sleep 0.05
	done
}
holds() { grep -q "$2" "$1" 2> /dev/null; }

# on_terminal COLS CMD... - run CMD with a terminal COLS columns wide as
# its stdin, stdout and stderr (script(1) makes one), and print what it
# wrote there as written, but for the terminal's "\r\n" line ends (made
# "\n"); CMD's exit status.
on_terminal() {
	local cols=$1
	shift
	script -q -e -c "stty cols $cols; $(printf '%q ' "$@")" /dev/null < /dev/null | sed 's/\r$//'
	return "${PIPESTATUS[0]}"
}

# private_sample NAME - copy the sample NAME into $TMP and print the copy's
# path: test-bad-input.sh ends stray runs with pkill -f $SAMPLES/<name>,
# which must not hit another test's runs when make check runs in parallel.
private_sample() {
	[ -x "$SAMPLES/$1" ] || { echo "FAIL: not built: $SAMPLES/$1" >&2; return 1; }
	cp "$SAMPLES/$1" "$TMP/$1" || return 1
	echo "$TMP/$1"
}

# collect_killed DB - a killed collector's run in DB: collect philosophers
# and SIGKILL mtx collect once DB holds thread states and sync calls, then
# end the program (it goes on, untraced).
collect_killed() {
	local prog pid
	prog=$(private_sample philosophers) || return 1
	"$MTX" collect -q -o "$1" -- "$prog" 5 1000000 > /dev/null &
	pid=$!
	for _ in $(seq 300); do
		[ "$(sqlite3 -readonly "$1" "SELECT (SELECT COUNT(*) FROM thread_states) > 0 AND
			(SELECT COUNT(*) FROM sync_ops) > 0" 2> /dev/null)" = 1 ] && break
		sleep 0.1
	done
	{ kill -KILL $pid; wait $pid; } 2> /dev/null
	pkill -f "$prog"
	return 0
}

# seen_tids DB - how many threads DB saw doing anything (without writing
# it): the readers of an incomplete run show one row each.
seen_tids() {
	sqlite3 -readonly -batch "$1" "SELECT COUNT(*) FROM (SELECT tid FROM threads UNION SELECT tid FROM thread_states
		UNION SELECT tid FROM syscalls UNION SELECT tid FROM sync_ops UNION SELECT prev_tid FROM switches
		UNION SELECT tid FROM samples)"
}

# collect_live DB - start mtx collect -o DB in the background on a program
# that runs until the file $TMP/go exists, then exits 3; return once DB
# holds committed thread states, with the collector's pid in LIVE_PID (the
# caller waits for it).
collect_live() {
	rm -f "$TMP/go"
	"$MTX" collect -o "$1" -- sh -c "until [ -e '$TMP/go' ]; do sleep 0.02; done; exit 3" > /dev/null 2> "$1.err" &
	LIVE_PID=$!
	for _ in $(seq 300); do
		[ "$(sqlite3 -readonly "$1" "SELECT COUNT(*) > 0 FROM thread_states" 2> /dev/null)" = 1 ] && return 0
		sleep 0.1
	done
	return 1
}

# collect_same DB OPTION... -- PROGRAM [ARGS...] - run PROGRAM plain, then
# under mtx collect -q OPTION... -o DB; fail unless the exit status and the
# output are the same and mtx said nothing.
collect_same() {
	local db=$1 opts=() status plain_status
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	"$@" > "$db.plain" 2>&1
	plain_status=$?
	"$MTX" collect -q "${opts[@]}" -o "$db" -- "$@" > "$db.out" 2> "$db.err"
	status=$?
	[ "$status" = "$plain_status" ] || fail "exit $status under mtx ${opts[*]}, $plain_status without"
	cmp -s "$db.plain" "$db.out" || fail "output differs under mtx ${opts[*]}"
	[ -s "$db.err" ] && fail "mtx ${opts[*]} said: $(head -3 "$db.err")"
	return 0
}

# alone_with_timing - wait until no other test that called it runs, and
# hold that until this one ends. For the tests whose truth is timing:
# test-probe-oracle's program keeps CPU 0 busy at SCHED_FIFO for a second
# at a time, and with a SCHED_FIFO loop busy on CPU 0 a collection's start
# took a second, even with mtx kept to CPU 1 (the kernel's own work on
# that CPU waits); test-faults gives a program 3 s under timeout.
alone_with_timing() {
	exec 9> "${TMPDIR:-/tmp}/mtx-e2e-timing.lock"
	# (a program a test left running holds it too: wait no more than 5 min)
	flock -w 300 9 || echo "note: another timing test still holds ${TMPDIR:-/tmp}/mtx-e2e-timing.lock; going on"
}

# lost_records DB - the run's losses ("lost_sched=70 ..."), empty when it
# lost nothing: a truth test's comparison needs every record (mtx collect
# -q does not say them).
lost_records() {
	sql "$1" "SELECT group_concat(key || '=' || value, ' ') FROM meta
		WHERE (key LIKE 'lost\_%' ESCAPE '\' OR key = 'events_lost') AND value != '0'"
}

# json_fields FILE PATH... - values of the JSON object in FILE (mtx's
# --format json), one line, space-separated; a missing one is empty. Paths
# as SQLite's json_extract takes them: '$.first_divergent.tid'.
json_fields() {
	local f=$1 q="" sep=""
	shift
	for p in "$@"; do
		q="$q$sep COALESCE(json_extract(j, '$p'), '')"
		sep=" || ' ' ||"
	done
	sqlite3 -batch :memory: "SELECT $q FROM (SELECT readfile('$f') AS j)"
}

# Skip (77) only when this machine cannot trace at all: not root and perf
# locked down. Anything else that fails is a real failure.
require_perf() {
	command -v sqlite3 >/dev/null || skip "sqlite3 (the CLI) is not installed"
	if [ "$(id -u)" != 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 1 ]; then
		skip "not root and kernel.perf_event_paranoid > 1: no perf access"
	fi
}

# import_selfcheck SC DB - load a samples/selfcheck.h file into tables
# sc_thread(pid, tid, role, nvcsw, nivcsw, ts_before, ts_after, cpu_ns),
# sc_op(pid, tid, kind, op, count), and calltree's sc_call(pid, tid, caller,
# callee, count) and sc_open(pid, tid, count) of DB (a scratch copy, never
# run.db).
import_selfcheck() {
	awk '$1 == "thread" { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		print v["pid"] "," v["tid"] "," v["role"] "," v["nvcsw"] "," v["nivcsw"] "," v["ts_before"] "," v["ts_after"] "," v["cpu_ns"] }' \
		"$1" > "$TMP/sc_thread.csv"
	awk '$1 == "op" { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		print v["pid"] "," v["tid"] "," v["kind"] "," v["op"] "," v["count"] }' \
		"$1" > "$TMP/sc_op.csv"
	# calltree's calls per (caller, callee), and calls that never returned.
	awk '$1 == "call" { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		print v["pid"] "," v["tid"] "," v["caller"] "," v["callee"] "," v["count"] }' \
		"$1" > "$TMP/sc_call.csv"
	awk '$1 == "open" { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		print v["pid"] "," v["tid"] "," v["count"] }' \
		"$1" > "$TMP/sc_open.csv"
	sqlite3 -batch "$2" <<SQL
CREATE TABLE sc_thread(pid INTEGER, tid INTEGER, role TEXT, nvcsw INTEGER, nivcsw INTEGER, ts_before INTEGER, ts_after INTEGER, cpu_ns INTEGER);
CREATE TABLE sc_op(pid INTEGER, tid INTEGER, kind TEXT, op TEXT, count INTEGER);
CREATE TABLE sc_call(pid INTEGER, tid INTEGER, caller TEXT, callee TEXT, count INTEGER);
CREATE TABLE sc_open(pid INTEGER, tid INTEGER, count INTEGER);
.mode csv
.import $TMP/sc_thread.csv sc_thread
.import $TMP/sc_op.csv sc_op
.import $TMP/sc_call.csv sc_call
.import $TMP/sc_open.csv sc_open
SQL
}
