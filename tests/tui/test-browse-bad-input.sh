#!/bin/bash
# tests/tui/test-browse-bad-input.sh - mtx browse refuses what it cannot
# show with one line and a non-zero exit, and gives the terminal back on
# every way out: a missing file, a file that is not a run database, one of
# a newer schema, a truncated one, no terminal, TERM=dumb, a bad command
# line; a terminal below 40x10 is told so until it grows; SIGTERM and
# SIGSEGV while browsing leave the terminal in its normal mode.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib.sh"

"$BUILDDIR/tests/fixture-db" "$srcdir/tests/fixtures/waits.sql" "$TMP/run.db" || { fail "fixture-db"; finish; }

# one_line_error NAME EXPECTED-STATUS CMD... - exit status and one line on
# stderr (for a usage error, 2: that line and the synopsis).
one_line_error() {
	local name=$1 want=$2
	shift 2
	"$@" > "$TMP/out" 2> "$TMP/err" < /dev/null
	local rc=$?
	local lines=1
	[ "$want" = 2 ] && lines=2
	if [ "$rc" = "$want" ] && [ "$(wc -l < "$TMP/err")" = $lines ] && [ ! -s "$TMP/out" ]; then
		pass "$name: exit $rc, '$(head -n 1 "$TMP/err")'"
	else
		fail "$name: exit $rc (want $want), stderr:"
		sed 's/^/  | /' "$TMP/err"
	fi
}

one_line_error "missing file" 1 "$MTX" browse "$TMP/nothing.db"
echo "not a database" > "$TMP/text.db"
one_line_error "not a database" 1 "$MTX" browse "$TMP/text.db"
cp "$TMP/run.db" "$TMP/newer.db"
sqlite3 "$TMP/newer.db" "PRAGMA user_version = 99"
one_line_error "newer schema" 1 "$MTX" browse "$TMP/newer.db"
head -c 8192 "$TMP/run.db" > "$TMP/cut.db"
one_line_error "truncated" 1 "$MTX" browse "$TMP/cut.db"
one_line_error "no terminal" 1 "$MTX" browse "$TMP/run.db"
# Without a file, run.db where it runs, as mtx info and mtx report take it.
mkdir -p "$TMP/none"
(cd "$TMP/none" && one_line_error "no file, no run.db" 1 "$MTX" browse)
grep -q "no run.db here" "$TMP/err" || fail "no file, no run.db: not said: $(cat "$TMP/err")"
(cd "$TMP" && one_line_error "no file: run.db, no terminal" 1 "$MTX" browse)
grep -q "terminal" "$TMP/err" || fail "no file: run.db was not taken: $(cat "$TMP/err")"
one_line_error "bad option" 2 "$MTX" browse --colour "$TMP/run.db"

# In a terminal: TERM=dumb is refused with one line.
session 80x24 "env TERM=dumb $MTX browse $TMP/run.db; echo exit=\$?; sleep 600"
wait_for "exit=1" && screen | grep -q "TERM is unset or 'dumb'" && pass "TERM=dumb refused" ||
	fail "TERM=dumb: no clear message"

# Too small: says its minimum whole on one line, however narrow, and draws
# the view once the terminal is large enough.
browse_start 30x8 "$TMP/run.db"
wait_for "needs at least 40x10, is 30x8" && [ "$(screen | grep -c .)" = 1 ] && pass "30x8 told in one line"
tm resize-window -t t -x 12 -y 8
wait_for "needs 40x10" && pass "12x8 told"
tm resize-window -t t -x 40 -y 10
wait_for "row 1 of 3" && pass "redrawn at 40x10"
keys q
wait_for "exit=0"

# Killed while browsing: the shell after it finds the terminal sane (echo
# and canonical mode back on), for SIGTERM and for a crash (SIGSEGV).
for sig in TERM SEGV; do
	session 80x24 \
		"env TERM=xterm-256color $MTX browse $TMP/run.db; echo exit=\$? tty: \$(stty -a | tr ' ;' '\n\n' | grep -x -e echo -e icanon | tr '\n' ' ').; sleep 600"
	wait_for "row 1 of 3" || continue
	pkill -"$sig" -f "^$MTX browse $TMP/run.db"
	# One line, printed once stty has answered: "exit=N tty: icanon echo ."
	if wait_for " ." && screen | grep -Eq "(^| )echo( |$)" && screen | grep -Eq "(^| )icanon( |$)"; then
		pass "SIG$sig: terminal restored ($(screen | grep -o 'exit=[0-9]*'))"
	else
		fail "SIG$sig: terminal not restored"
	fi
done
finish
