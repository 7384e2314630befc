#!/bin/bash
# tests/e2e/test-progress.sh - after the program's exit mtx collect says
# what it is doing and how far it is: on a terminal one status line on
# stderr, rewritten in place and cleared at the end, with every other line
# printed whole above it; step lines with -v; nothing with -q, and nothing
# of it when stderr is not a terminal. script(1) gives mtx a terminal.
. "$(dirname "$0")/lib.sh"
require_perf
command -v script > /dev/null || skip "script (util-linux) is not installed: no terminal to test on"
cd "$TMP" || exit 1
prog=$SAMPLES/philosophers

# on_tty OUT CMD - run mtx collect CMD on a terminal, what it wrote there
# in OUT (the program's output goes to /dev/null).
on_tty() {
	local out=$1
	shift
	on_terminal 80 sh -c '"$@" > /dev/null' sh "$@" > "$out"
}

# shown OUT - each line of OUT as the terminal leaves it shown: what
# follows the last "erase the line" (\r ESC [K) on it.
shown() { sed 's/.*\r\x1b\[K//' "$1"; }

# The steps as collector/collect.h declares them, in order.
steps=$(sed -n 's/^[[:space:]]*X(COLLECT_[A-Z]*, "\([^"]*\)").*/\1/p' "$srcdir/collector/collect.h")
nr=$(printf '%s\n' "$steps" | wc -l)
[ "$nr" -ge 4 ] || fail "found $nr steps in collector/collect.h"

on_tty tty.out "$MTX" collect -o p.db -- "$prog" 3 20 || fail "mtx collect on a terminal exited $?"
i=0
printf '%s\n' "$steps" | while IFS= read -r step; do
	i=$((i + 1))
	grep -aqF "finishing p.db, $i/$nr: $step" tty.out || echo "step $i/$nr ($step) was never shown"
done > missing.txt
[ -s missing.txt ] && fail "progress line: $(head -1 missing.txt)" || pass "progress line shows the $nr steps in order"
# Each line the terminal keeps is whole: a status line was erased before
# any other was printed, and the last was cleared.
shown tty.out | grep -a "finishing" > left.txt && fail "a progress line was left on the terminal: $(head -1 left.txt)"
grep -aq "^mtx: recorded [0-9]* threads" <(shown tty.out) || fail "the 'recorded' line was not printed whole: $(cat -v tty.out | head -3)"
# What is after the last newline, as shown: nothing.
[ -z "$(tail -c 300 tty.out | tr '\n' '\001' | sed 's/.*\x01//' | shown /dev/stdin)" ] &&
	pass "progress line cleared at the end" ||
	fail "the terminal's last line is not clear: $(tail -c 100 tty.out | cat -v)"

# -v: step lines too, each after its step.
on_tty verbose.out "$MTX" collect -v -o v.db -- "$prog" 3 20 || fail "mtx collect -v exited $?"
shown verbose.out | grep -aq "^mtx: sync tables finished [0-9]* ms after the program's exit" &&
	shown verbose.out | grep -aq "^mtx: functions named [0-9]* ms after the program's exit" &&
	pass "-v prints a line per step" || fail "-v printed no step lines: $(shown verbose.out | head -5)"

# -q: nothing at all, on a terminal too.
on_tty quiet.out "$MTX" collect -q -o q.db -- "$prog" 3 20 || fail "mtx collect -q exited $?"
[ -s quiet.out ] && fail "-q on a terminal printed: $(cat -v quiet.out | head -c 200)" || pass "-q prints nothing on a terminal"

# Not a terminal: the status lines only, no progress line, no \r.
"$MTX" collect -o n.db -- "$prog" 3 20 > /dev/null 2> notty.err < /dev/null || fail "mtx collect exited $?"
grep -q "finishing" notty.err && fail "a progress line went to a stderr that is no terminal"
grep -q $'\r' notty.err && fail "a carriage return went to a stderr that is no terminal"
grep -q "^mtx: recorded [0-9]* threads" notty.err && pass "not a terminal: status lines only" ||
	fail "not a terminal: no 'recorded' line: $(head -3 notty.err)"
finish
