#!/bin/sh
# bench/sync-op-cost.sh - added cost of libmtx-preload.so per uncontended
# pthread_mutex_lock + pthread_mutex_unlock pair (goal: <= 60 ns).
#
# Usage: bench/sync-op-cost.sh [rounds=5] [pairs=2000000]
# Run from the build tree; BENCH and LIB override where the pieces are.
#
# Each round runs the loop plain, then preloaded with a live region that a
# collector process drains as mtx collect's pump does: when a writer wakes
# it at half a lane, and at least every millisecond (lanes of 65536
# records, the library's default): once with the default stamps (rdtsc, converted by the
# collector, where the kernel's clock is the TSC) and once with
# MTX_SYNC_CLOCK=monotonic (clock_gettime stamps), and once with the
# default stamps and each op's user stack (mtx collect --sync-stacks: a
# frame-pointer walk of the loop's few frames, and one frames record per
# op).
# Each run reports the median of 7 timed repetitions; this script prints
# the medians over the rounds and the differences.
set -eu
. "$(dirname "$0")/lib.sh"
rounds=${1:-5}
pairs=${2:-2000000}
BENCH=${BENCH:-./bench/sync-op-cost}
LIB=${LIB:-./collector/preload/.libs/libmtx-preload.so}
for f in "$BENCH" "$LIB"; do
	[ -e "$f" ] || { echo "sync-op-cost.sh: $f not found (build first, or set BENCH/LIB)" >&2; exit 1; }
done
case $LIB in /*) ;; *) LIB=$(pwd)/$LIB ;; esac

plain=""; traced=""; mono=""; stacks=""; lost=0
i=0
while [ "$i" -lt "$rounds" ]; do
	p=$("$BENCH" measure "$pairs" 7 | awk '/^ns_per_pair/ { print $2 }')
	out=$("$BENCH" collect "$LIB" 65536 1000 -- "$BENCH" measure "$pairs" 7 2>&1)
	t=$(printf '%s\n' "$out" | awk '/^ns_per_pair/ { print $2 }')
	l=$(printf '%s\n' "$out" | awk '/^records/ { print $4 }')
	lost=$((lost + l))
	out=$(MTX_SYNC_CLOCK=monotonic "$BENCH" collect "$LIB" 65536 1000 -- "$BENCH" measure "$pairs" 7 2>&1)
	m=$(printf '%s\n' "$out" | awk '/^ns_per_pair/ { print $2 }')
	l=$(printf '%s\n' "$out" | awk '/^records/ { print $4 }')
	lost=$((lost + l))
	out=$(SYNC_OP_COST_STACK_FRAMES=48 "$BENCH" collect "$LIB" 65536 1000 -- "$BENCH" measure "$pairs" 7 2>&1)
	k=$(printf '%s\n' "$out" | awk '/^ns_per_pair/ { print $2 }')
	l=$(printf '%s\n' "$out" | awk '/^records/ { print $4 }')
	lost=$((lost + l))
	printf 'round %d: plain %s ns/pair, preloaded %s ns/pair (clock_gettime stamps: %s; with stacks: %s), lost %s\n' \
		"$((i + 1))" "$p" "$t" "$m" "$k" "$l"
	plain="$plain $p"; traced="$traced $t"; mono="$mono $m"; stacks="$stacks $k"
	i=$((i + 1))
done
mp=$(printf '%s\n' $plain | median)
mt=$(printf '%s\n' $traced | median)
mm=$(printf '%s\n' $mono | median)
mk=$(printf '%s\n' $stacks | median)
printf 'median: plain %s ns/pair, preloaded %s ns/pair, added %s ns/pair (goal <= 60), records lost %s\n' \
	"$mp" "$mt" "$(echo "$mt $mp" | awk '{ printf "%.1f", $1 - $2 }')" "$lost"
printf 'with clock_gettime stamps instead: preloaded %s ns/pair, added %s ns/pair\n' \
	"$mm" "$(echo "$mm $mp" | awk '{ printf "%.1f", $1 - $2 }')"
printf 'with --sync-stacks (default stamps): preloaded %s ns/pair, added %s ns/pair (%s over no stacks)\n' \
	"$mk" "$(echo "$mk $mp" | awk '{ printf "%.1f", $1 - $2 }')" "$(echo "$mk $mt" | awk '{ printf "%.1f", $1 - $2 }')"
