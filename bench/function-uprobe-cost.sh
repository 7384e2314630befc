#!/bin/bash
# bench/function-uprobe-cost.sh - what an exactly traced call costs: one
# small function (bench/call-loop's bench_callee) called in a loop, plain,
# under 'mtx collect -e sched --functions ^bench_callee$', and under
# 'perf record' of the same pair of tracefs uprobes (entry, fetching the
# return address as mtx's does, and return), defined here in a group of
# its own. ns per traced call = traced - plain, from the loop's own timing
# (the median of RUNS timed runs inside each process, so start-up and
# tear-down of the tools are not counted).
#
# Usage: bench/function-uprobe-cost.sh [rounds=5] [calls=200000] [runs=5]
# Run from the build tree, as root. Each round runs the three in a row;
# this prints each round, then the medians over the rounds, the calls
# recorded and the calls lost by each tool (summed over the rounds).
set -eu
. "$(dirname "$0")/lib.sh"
rounds=${1:-5}
calls=${2:-200000}
runs=${3:-5}
MTX=${MTX:-./mtx}
PERF=${PERF:-perf}
LOOP=${LOOP:-./bench/call-loop}
for f in "$MTX" "$LOOP"; do
	[ -x "$f" ] || { echo "function-uprobe-cost.sh: $f not found (build first)" >&2; exit 1; }
done
command -v "$PERF" >/dev/null || { echo "function-uprobe-cost.sh: perf not found" >&2; exit 1; }
tracefs=/sys/kernel/tracing
[ -w "$tracefs/uprobe_events" ] || mount -t tracefs nodev "$tracefs" 2>/dev/null || true
[ -w "$tracefs/uprobe_events" ] || { echo "function-uprobe-cost.sh: $tracefs/uprobe_events not writable" >&2; exit 1; }

work=$(mktemp -d /tmp/mtx-bench-fn.XXXXXX)
group=mtxbench_$$
loop=$(realpath "$LOOP")
cleanup() {
	printf -- '-:%s/entry\n-:%s/ret\n' "$group" "$group" >> "$tracefs/uprobe_events" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

# The file offset of bench_callee: its address in the executable PT_LOAD.
addr=$(nm "$loop" | awk '$3 == "bench_callee" { print $1 }')
offset=
while read -r type off va _ sz _ flags; do
	[ "$type" = LOAD ] && [[ $flags == *E* ]] || continue
	if (( 16#$addr >= va && 16#$addr < va + sz )); then
		offset=$(printf '0x%x' $(( 16#$addr - va + off )))
	fi
done < <(readelf -lW "$loop")
[ -n "$offset" ] || { echo "function-uprobe-cost.sh: bench_callee not found in $loop" >&2; exit 1; }
printf 'p:%s/entry %s:%s ret=+0(%%sp):u64\nr:%s/ret %s:%s\n' "$group" "$loop" "$offset" "$group" "$loop" "$offset" \
	>> "$tracefs/uprobe_events"

ns() { awk '/^ns_per_call/ { w = $2 } /^cpu_ns_per_call/ { c = $2 } END { print w, c }'; }
perf_stats() { # DATA -> "samples lost"
	"$PERF" report -D -i "$1" 2>/dev/null | awk '
		/PERF_RECORD_SAMPLE/ { ev++ }
		/PERF_RECORD_LOST/ { if (match($0, /lost:[0-9]+/)) lost += substr($0, RSTART + 5, RLENGTH - 5) }
		END { printf "%d %d\n", ev, lost }'
}

tp=""; tm=""; tf=""; cp=""; cm=""; cf=""
mtx_calls=0; mtx_lost=0; perf_samples=0; perf_lost=0
want=$((calls * runs))
i=0
while [ "$i" -lt "$rounds" ]; do
	read -r a ca <<< "$("$LOOP" "$calls" "$runs" | ns)"
	read -r b cb <<< "$("$MTX" collect -q -e sched --functions '^bench_callee$' -o "$work/run.db" -- "$LOOP" "$calls" "$runs" | ns)"
	mtx_calls=$((mtx_calls + $(sqlite3 "$work/run.db" "SELECT COUNT(*) FROM calls")))
	mtx_lost=$((mtx_lost + $(sqlite3 "$work/run.db" "SELECT value FROM meta WHERE key = 'lost_functions'")))
	rm -f "$work/run.db" "$work/run.db.old"
	read -r c cc <<< "$("$PERF" record -q -e "$group:entry" -e "$group:ret" -o "$work/perf.data" -- "$LOOP" "$calls" "$runs" 2>/dev/null | ns)"
	read -r s l <<< "$(perf_stats "$work/perf.data")"
	perf_samples=$((perf_samples + s)); perf_lost=$((perf_lost + l))
	rm -f "$work/perf.data" "$work/perf.data.old"
	printf 'round %d: ns/call wall (cpu): plain %s (%s), mtx %s (%s), perf %s (%s)\n' "$((i + 1))" "$a" "$ca" "$b" "$cb" "$c" "$cc"
	tp="$tp $a"; tm="$tm $b"; tf="$tf $c"; cp="$cp $ca"; cm="$cm $cb"; cf="$cf $cc"
	i=$((i + 1))
done
report() { # WHAT PLAIN MTX PERF (lists of figures)
	local mp mm mf
	mp=$(printf '%s\n' $2 | median); mm=$(printf '%s\n' $3 | median); mf=$(printf '%s\n' $4 | median)
	printf 'median %s: plain %s ns/call; mtx %s (+%s per traced call); perf record %s (+%s); mtx/perf added cost %s\n' \
		"$1" "$mp" "$mm" "$(echo "$mm $mp" | awk '{ printf "%.1f", $1 - $2 }')" \
		"$mf" "$(echo "$mf $mp" | awk '{ printf "%.1f", $1 - $2 }')" \
		"$(echo "$mm $mf $mp" | awk '{ printf "%.2f", ($1 - $3) / ($2 - $3) }')"
}
report wall "$tp" "$tm" "$tf"
report cpu "$cp" "$cm" "$cf"
printf 'calls made %d per tool; mtx: %d calls rows, %d hits lost; perf: %d samples (%d calls), %d lost\n' \
	"$((want * rounds))" "$mtx_calls" "$mtx_lost" "$perf_samples" "$((perf_samples / 2))" "$perf_lost"
