#!/bin/bash
# mtx's exact calls agree with uftrace's on the same binaries: hooktree
# built with -pg and with -finstrument-functions, run once under
# 'mtx collect' and once under 'uftrace record'; the calls per function
# must be equal (uftrace's kernel events, "linux:...", left aside). Skips
# only when uftrace is not installed and cannot be (Debian: apt-get install
# uftrace), or cannot record here.
. "$(dirname "$0")/lib.sh"
require_perf
if ! command -v uftrace >/dev/null; then
	[ "$(id -u)" = 0 ] && command -v apt-get >/dev/null &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q uftrace >/dev/null 2>&1
	command -v uftrace >/dev/null || skip "uftrace is not installed and could not be (apt-get install uftrace)"
fi
ARGS="2 40 5"

for build in pg finstr; do
	name=hooktree-$build
	prog=$SAMPLES/$name
	[ -x "$prog" ] || { fail "$name: sample not built ($prog)"; continue; }
	mkdir -p "$TMP/$build"
	# shellcheck disable=SC2086
	if ! (cd "$TMP/$build" && uftrace record --no-libcall -d "$TMP/$build.uftrace" "$prog" $ARGS \
		> /dev/null 2> "$TMP/$build.uftrace.err"); then
		# a machine where uftrace cannot record is not our failure
		skip "uftrace cannot record $name here: $(head -1 "$TMP/$build.uftrace.err")"
	fi
	uftrace report -d "$TMP/$build.uftrace" -f call --no-pager 2>/dev/null |
		awk 'NR > 2 && $2 !~ /:/ { print $2 "," $1 }' | sort > "$TMP/$build.uftrace.csv"
	# shellcheck disable=SC2086
	(cd "$TMP/$build" && "$MTX" collect -q -o "$TMP/$build.db" -- "$prog" $ARGS > /dev/null 2>&1) ||
		fail "$name: mtx collect failed"
	sql "$TMP/$build.db" "SELECT f.name || ',' || COUNT(*) FROM calls c JOIN functions f ON f.id = c.function_id GROUP BY f.name" |
		sort > "$TMP/$build.mtx.csv"
	[ -s "$TMP/$build.uftrace.csv" ] || fail "$name: uftrace reported no function"
	if cmp -s "$TMP/$build.uftrace.csv" "$TMP/$build.mtx.csv"; then
		pass "$name: calls per function equal uftrace's ($(tr '\n' ' ' < "$TMP/$build.mtx.csv"))"
	else
		fail "$name: calls per function differ from uftrace's"
		diff "$TMP/$build.uftrace.csv" "$TMP/$build.mtx.csv" | head -10
	fi
done
finish
