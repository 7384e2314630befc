#!/bin/bash
# Bad input and faults: one clear line, a non-zero exit, nothing recorded
# lost; the traced program's exit status is mtx's; Ctrl-C and a killed
# collector leave a database that opens.
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1

# expect STATUS PATTERN CMD... - CMD exits STATUS and its stderr is one
# line (plus, for usage errors, the synopsis) matching PATTERN.
expect() {
	local want=$1 pattern=$2; shift 2
	"$@" > out.txt 2> err.txt
	local got=$?
	if [ "$got" != "$want" ]; then
		fail "'$*' exited $got, not $want ($(head -1 err.txt))"
	elif ! head -1 err.txt | grep -Eq "$pattern"; then
		fail "'$*' said '$(head -1 err.txt)', expected /$pattern/"
	else
		pass "$* -> $got: $(head -1 err.txt)"
	fi
}

expect 2 "unknown command" "$MTX" frobnicate
expect 2 "unknown option" "$MTX" --frobnicate
expect 2 "unknown option" "$MTX" collect --frobnicate ./x
expect 2 "no program" "$MTX" collect
expect 2 "unknown event source" "$MTX" collect -e sched,bogus /bin/true
expect 2 "option .--thread. needs a value" "$MTX" report run.db waits --thread
expect 2 "inject-overhead takes a duration" "$MTX" collect --inject-overhead 0 /bin/true
expect 2 "inject-overhead takes a duration" "$MTX" collect --inject-overhead 2s /bin/true
expect 2 "'calls' is not a scope mtx can inject into: only sync calls" "$MTX" collect --inject-overhead 20us:calls /bin/true
expect 2 "'all' is not a scope mtx can inject into" "$MTX" collect --inject-overhead 20us:all /bin/true
expect 2 "op= takes ops as sync_ops.op names them.*not 'lokc'" "$MTX" collect --inject-overhead 20us:op=lock,lokc /bin/true
expect 2 "op= takes ops .*not 'setsched'" "$MTX" collect --inject-overhead 20us:op=setsched /bin/true
expect 2 "tid= takes a thread id" "$MTX" collect --inject-overhead 20us:tid=main /bin/true
expect 2 "a thread name has 1 to 15" "$MTX" collect --inject-overhead 20us:thread= /bin/true
expect 2 "needs the sync source" "$MTX" collect -e sched --inject-overhead 20us /bin/true
expect 127 "no such program" "$MTX" collect -o a.db ./does-not-exist
[ -e a.db ] && fail "a database was left behind for a missing program"
printf 'echo hi\n' > not-exec.sh
expect 126 "not an executable" "$MTX" collect -o a.db ./not-exec.sh
expect 1 "cannot create|No such file|Permission" "$MTX" collect -o /nonexistent-dir/run.db /bin/true

# No permission for perf/tracefs: an unprivileged user is told what to do.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 777 "$TMP"
	expect 1 "(permission|not permitted).*(root|perf_event_paranoid|CAP_PERFMON)" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$MTX" collect -o "$TMP/nobody.db" /bin/true
	[ -e "$TMP/nobody.db" ] && fail "a database was left behind after a permission failure"
fi

# The program's exit status is mtx's, and its output is untouched.
"$MTX" collect -q -o st.db -- "$SAMPLES/forkexec" 5 > st.out 2> st.err
status=$?
[ "$status" = 5 ] || fail "exit status $status, not the program's 5"
"$SAMPLES/forkexec" 5 > st.plain
cmp -s st.out st.plain || fail "stdout differs under mtx"
[ -s st.err ] && fail "mtx -q wrote to stderr: $(head -1 st.err)"
"$MTX" collect -q -o sig.db -- sh -c 'kill -TERM $$'
[ $? = 143 ] || fail "a program killed by SIGTERM should give 128+15"
[ "$(sql sig.db "SELECT exit_status FROM processes WHERE ppid IS NULL")" = 143 ] || fail "processes.exit_status is not 143"

# An existing output is kept as .old, never destroyed.
"$MTX" collect -q -o keep.db /bin/true
echo marker > keep.db.marker
"$MTX" collect -q -o keep.db /bin/true
[ -f keep.db.old ] || fail "the previous run.db was not kept as run.db.old"
"$MTX" info keep.db.old > /dev/null || fail "run.db.old does not open"

# mtx info on bad files.
expect 1 "No such file" "$MTX" info missing.db
echo "just text, not a database at all......................................................." > text.db
expect 1 "not an mtx database" "$MTX" info text.db
sqlite3 other.db "CREATE TABLE t(x); INSERT INTO t VALUES (1);"
expect 1 "not an mtx database" "$MTX" info other.db
cp keep.db newer.db && sqlite3 newer.db "PRAGMA user_version = 99"
expect 1 "newer mtx" "$MTX" info newer.db
cp keep.db corrupt.db
size=$(stat -c %s corrupt.db)
dd if=/dev/urandom of=corrupt.db bs=1 seek=$((size / 2)) count=$((size / 4)) conv=notrunc 2>/dev/null
"$MTX" info corrupt.db > /dev/null 2> corrupt.err
[ $? != 0 ] && grep -q corrupt corrupt.err || fail "a corrupt database was not reported as corrupt"

# Ctrl-C: a SIGINT sent to mtx reaches the program; the run is finalized.
# (A background job starts with SIGINT ignored; env restores the default,
# as an interactive shell's foreground job would have it.)
env --default-signal=INT "$MTX" collect -q -o int.db -- sleep 30 &
pid=$!
for _ in $(seq 50); do [ -s int.db ] && break; sleep 0.1; done
sleep 0.3
kill -INT $pid
wait $pid
status=$?
[ "$status" = 130 ] || fail "after SIGINT mtx exited $status, not 130 (the program's)"
[ "$(sql int.db "SELECT value FROM meta WHERE key = 'complete'")" = 1 ] || fail "interrupted run not finalized"

# A full disk: the program still runs to its end with its own output, mtx
# says so in one line and exits non-zero, and the file opens. 768 KiB: an
# empty run (its schema, in the WAL: ~370 KiB since the phases table, which
# 512 KiB no longer held) fits, iobound's 3 MB do not.
mkdir -p small
if mount -t tmpfs -o size=768k tmpfs small 2>/dev/null; then
	"$MTX" collect -q -o small/run.db -- "$SAMPLES/iobound" 3 > full.out 2> full.err
	status=$?
	"$SAMPLES/iobound" 3 > full.plain
	cmp -s full.out full.plain || fail "the program's output changed when the disk filled"
	[ "$status" != 0 ] || fail "mtx exited 0 although the disk was full"
	grep -q "disk is full" full.err || fail "no 'disk is full' message: $(head -1 full.err)"
	[ "$(wc -l < full.err)" = 1 ] || fail "the full disk took more than one line: $(cat full.err)"
	# What it says was kept is what the file holds, counted by sqlite3.
	kept=$(sed -n 's/.*the \([0-9]*\) rows committed before are kept.*/\1/p' full.err)
	grep -q "nothing could be kept" full.err && kept=0
	held=0
	for t in $(sqlite3 small/run.db "SELECT name FROM sqlite_master WHERE type = 'table'"); do
		held=$((held + $(sqlite3 small/run.db "SELECT COUNT(*) FROM \"$t\"")))
	done
	[ -n "$kept" ] && [ "$kept" = "$held" ] ||
		fail "the full disk: mtx said '$(cat full.err)', the file holds $held rows"
	umount small
else
	echo "note: cannot mount a small tmpfs here; the full-disk case was not run"
fi
finish
