#!/bin/bash
# tests/e2e/test-functions-paths.sh - programs whose path tracefs cannot
# take as it is (uprobe_events has no quoting: a newline ends a command,
# '#' begins a comment, whitespace separates arguments), under mtx collect
# --functions, on copies of tests/e2e/deeprecursion, which counts its own
# calls:
#  - a path built to inject commands (a newline, then a definition of a
#    probe group of its own, then a tab) defines no foreign group;
#  - with a newline, a tab, a space, a carriage return, byte 0xa0 (the
#    kernel's isspace counts it), '#', a control character or UTF-8 in its
#    path, or a path too long for one tracefs command (4065 bytes),
#    the program runs as it does alone (output, exit status) and is traced
#    all the same: every call it counted is in calls, all returned;
#  - the probes of each run are all removed afterwards, and none are left
#    by a run that fails before starting the program (which says so in
#    one line, however many newlines the path holds).
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1
PROG=$BUILDDIR/tests/e2e/deeprecursion
[ -x "$PROG" ] || { echo "FAIL: not built: $PROG"; exit 1; }
FOREIGN=mtxtest_foreign_$$
TRACEFS=/sys/kernel/tracing
FUNCTIONS='^(recurse|leaf)$'

# no_probes_of GROUP WHAT: fail if tracefs still has probes of GROUP (the
# collector's are removed by its closing child: wait for it, bounded).
no_probes_of() {
	for _ in $(seq 100); do
		grep -q "^[pr]:$1/" "$TRACEFS/uprobe_events" 2> /dev/null || [ -d "$TRACEFS/events/$1" ] || return 0
		sleep 0.1
	done
	fail "$2: probes of $1 left in $TRACEFS: $(grep "$1/" "$TRACEFS/uprobe_events" | head -2)"
	# do not leave them to the machine
	grep -o "^[pr]:$1/[a-z0-9_]*" "$TRACEFS/uprobe_events" | sed 's/^[pr]/-/' | while read -r probe; do
		echo "$probe" >> "$TRACEFS/uprobe_events"
	done
}

# check_path NAME PATH: copy the program to PATH, collect it, compare.
check_path() {
	local name=$1 path=$2 db="$TMP/$1.db" plain_status status mtx_pid want
	mkdir -p "${path%/*}" && cp "$PROG" "$path" || { fail "$name: cannot copy the program"; return; }
	"$path" 3 2 2 > "$db.plain" 2>&1
	plain_status=$?
	"$MTX" collect -q --functions "$FUNCTIONS" -o "$db" -- "$path" 3 2 2 > "$db.out" 2> "$db.err" &
	mtx_pid=$!
	wait $mtx_pid
	status=$?
	[ "$plain_status" = 3 ] || fail "$name: the program exited $plain_status alone, not 3"
	[ "$status" = "$plain_status" ] || fail "$name: exit $status under mtx, $plain_status alone: $(cat "$db.err")"
	cmp -s "$db.plain" "$db.out" || fail "$name: output differs under mtx"
	[ -s "$db.err" ] && fail "$name: mtx said: $(head -3 "$db.err")"
	want=$(sed -n 's/^recurse calls=\([0-9]*\) .*/\1/p; s/^leaf calls=\([0-9]*\)$/\1/p' "$db.plain" |
		awk '{ n += $1 } END { print n + 0 }')
	[ "$want" -gt 0 ] && [ -s "$db" ] && [ "$(sql "$db" "SELECT COUNT(*) FROM calls WHERE unfinished IS NULL")" = "$want" ] ||
		fail "$name: $(sql "$db" "SELECT COUNT(*) FROM calls WHERE unfinished IS NULL") calls returned, the program made $want"
	no_probes_of "$FOREIGN" "$name"
	no_probes_of "mtx_$mtx_pid" "$name"
}

# The path that defined a foreign group with mtx 0.1.0: its first line
# defined mtx's probe on $TMP/d/prog, the second one the foreign group's,
# and the third failed, leaving both.
mkdir -p "$TMP/d" && cp "$PROG" "$TMP/d/prog"
inject="$TMP/d/prog:0x0"$'\n'"p:$FOREIGN/e"$'\t'"$TMP/d/prog:0x0"$'\n'"/deeprecursion"
check_path injection "$inject"

check_path newline "$TMP/new"$'\n'"line/deeprecursion"
check_path tab "$TMP/with"$'\t'"tab/deeprecursion"
check_path space "$TMP/with space/deeprecursion"
check_path return "$TMP/carriage"$'\r'"return/deeprecursion"
check_path nbsp "$TMP/no"$'\xa0'"break/deeprecursion"
check_path hash "$TMP/hash#tag/deeprecursion"
check_path control "$TMP/ctl"$'\x01'"a/deeprecursion"
check_path utf8 "$TMP/caf"$'\xc3\xa9'"/deeprecursion"
# 4065 bytes: too long for one tracefs command with mtx's probe around it.
long=$TMP/long
while [ $((${#long} + 101)) -lt 4000 ]; do long=$long/$(printf '%0100d' 0); done
check_path long "$long/$(printf '%0*d' $((4065 - ${#long} - 15)) 0)/deeprecursion"

# A run that stops before the program (no function matches): one line,
# nothing run, no database, no probe.
"$MTX" collect --functions '^no_such_function$' -o none.db -- "$inject" 3 2 2 > none.out 2> none.err &
mtx_pid=$!
wait $mtx_pid
status=$?
[ "$status" = 1 ] || fail "no match: exit $status, not 1"
[ "$(wc -l < none.err)" = 1 ] && grep -q "no function of" none.err || fail "no match said: $(cat none.err)"
[ -s none.out ] && fail "no match: the program ran"
[ -e none.db ] && fail "no match: a database was left"
no_probes_of "$FOREIGN" "no match"
no_probes_of "mtx_$mtx_pid" "no match"

# Leave no closing collector of ours behind (bounded, as test-functions).
for _ in $(seq 600); do
	pgrep -f -- "-o $TMP/" > /dev/null || break
	sleep 0.1
done
[ "$FAILED" = 0 ] && pass "programs at paths tracefs cannot take are traced, and inject nothing"
finish
