#!/bin/sh
# bench/sync-op-cost.sh - added cost of libmtx-preload.so per uncontended
# pthread_mutex_lock + pthread_mutex_unlock pair (goal: <= 60 ns).
#
# Usage: bench/sync-op-cost.sh [rounds=5] [pairs=2000000]
# Run from the build tree; BENCH and LIB override where the pieces are.
# BASE=DIR (another build tree, e.g. a worktree of main) adds the same runs
# with that build's bench/sync-op-cost and library, interleaved round by
# round: two versions compared in one invocation.
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
BASE=${BASE:-}
for f in "$BENCH" "$LIB" ${BASE:+"$BASE/bench/sync-op-cost" "$BASE/collector/preload/.libs/libmtx-preload.so"}; do
	[ -e "$f" ] || { echo "sync-op-cost.sh: $f not found (build first, or set BENCH/LIB/BASE)" >&2; exit 1; }
done
case $LIB in /*) ;; *) LIB=$(pwd)/$LIB ;; esac
[ -z "$BASE" ] || BASE=$(cd "$BASE" && pwd)

# run BENCH LIB [ENV=VALUE] - ns per pair of one preloaded run; adds its
# losses to $lost.
run() {
	out=$(env ${3:-} "$1" collect "$2" 65536 1000 -- "$1" measure "$pairs" 7 2>&1)
	lost=$((lost + $(printf '%s\n' "$out" | awk '/^records/ { print $4 }')))
	printf '%s\n' "$out" | awk '/^ns_per_pair/ { print $2 }'
}

# report NAME PLAIN TRACED MONO STACKS - the medians of one build.
report() {
	mp=$(printf '%s\n' $2 | median)
	mt=$(printf '%s\n' $3 | median)
	mm=$(printf '%s\n' $4 | median)
	mk=$(printf '%s\n' $5 | median)
	printf '%smedian: plain %s ns/pair, preloaded %s ns/pair, added %s ns/pair (goal <= 60)\n' \
		"$1" "$mp" "$mt" "$(echo "$mt $mp" | awk '{ printf "%.1f", $1 - $2 }')"
	printf '%swith clock_gettime stamps instead: preloaded %s ns/pair, added %s ns/pair\n' \
		"$1" "$mm" "$(echo "$mm $mp" | awk '{ printf "%.1f", $1 - $2 }')"
	printf '%swith --sync-stacks (default stamps): preloaded %s ns/pair, added %s ns/pair (%s over no stacks)\n' \
		"$1" "$mk" "$(echo "$mk $mp" | awk '{ printf "%.1f", $1 - $2 }')" "$(echo "$mk $mt" | awk '{ printf "%.1f", $1 - $2 }')"
}

plain=""; traced=""; mono=""; stacks=""; bt=""; bm=""; bk=""; lost=0
i=0
while [ "$i" -lt "$rounds" ]; do
	p=$("$BENCH" measure "$pairs" 7 | awk '/^ns_per_pair/ { print $2 }')
	t=$(run "$BENCH" "$LIB")
	m=$(run "$BENCH" "$LIB" MTX_SYNC_CLOCK=monotonic)
	k=$(run "$BENCH" "$LIB" SYNC_OP_COST_STACK_FRAMES=48)
	printf 'round %d: plain %s ns/pair, preloaded %s ns/pair (clock_gettime stamps: %s; with stacks: %s), lost %s\n' \
		"$((i + 1))" "$p" "$t" "$m" "$k" "$lost"
	plain="$plain $p"; traced="$traced $t"; mono="$mono $m"; stacks="$stacks $k"
	if [ -n "$BASE" ]; then
		t=$(run "$BASE/bench/sync-op-cost" "$BASE/collector/preload/.libs/libmtx-preload.so")
		m=$(run "$BASE/bench/sync-op-cost" "$BASE/collector/preload/.libs/libmtx-preload.so" MTX_SYNC_CLOCK=monotonic)
		k=$(run "$BASE/bench/sync-op-cost" "$BASE/collector/preload/.libs/libmtx-preload.so" SYNC_OP_COST_STACK_FRAMES=48)
		printf 'round %d, base: preloaded %s ns/pair (clock_gettime stamps: %s; with stacks: %s), lost %s\n' \
			"$((i + 1))" "$t" "$m" "$k" "$lost"
		bt="$bt $t"; bm="$bm $m"; bk="$bk $k"
	fi
	i=$((i + 1))
done
report "" "$plain" "$traced" "$mono" "$stacks"
[ -z "$BASE" ] || report "base ($BASE): " "$plain" "$bt" "$bm" "$bk"
echo "records lost: $lost"
