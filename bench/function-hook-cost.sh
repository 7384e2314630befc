#!/bin/bash
# bench/function-hook-cost.sh - ns per traced call: libmtx-preload.so's -pg
# and -finstrument-functions hooks against uftrace on the same binaries
# (goal: the hook path <= 50 ns per call, half of uftrace's).
#
# Usage: cd BUILD && ../bench/function-hook-cost.sh [rounds=5] [threads rounds depth]
#        (hooktree's arguments, default "1 300 10": 1.3 M calls on one worker)
# Environment: MTX, SAMPLES_DIR, BENCH (bench/sync-op-cost), LIB, RESULTS
# (default bench/results/function-hook-cost.txt in the source tree; - for none),
# MTX_BASE (another build's mtx: adds base-hooks-* and base-mtx-*, the same
# runs with that build's library and collector, interleaved with the rest),
# LIB_BASE (default: the library next to MTX_BASE).
#
# Every round runs each kind once, in this order, on samples/hooktree built
# plain, with -pg (hooktree-pg) and with -finstrument-functions
# (hooktree-finstr):
#   plain        hooktree                     (the calls, uninstrumented)
#   pg, finstr   the builds alone             (glibc's mcount / empty hooks)
#   hooks-*      the build with the library preloaded and a live call region
#                drained every ms (`sync-op-cost collect-calls`): the hook
#                path and nothing else of mtx
#   uftrace-*    `uftrace record --no-libcall` of the build
#   mtx-*        `mtx collect -q -e sched,sync` of the build: end to end,
#                calls rows written to run.db included
#   base-*       hooks-* and mtx-* with MTX_BASE's build (when set)
# Each run reports the time its calls took from inside the program
# (HOOKTREE_NS: wall, and the process's CPU time meanwhile, which a busy
# second CPU disturbs less) and the script times the whole command. ns per call =
# (median of the kind - median of plain) / calls, both ways; "best" is the
# same from the fastest run of each (on a shared machine the least
# disturbed one).
set -u
. "$(dirname "$0")/lib.sh"
src=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-5}
shift || true
args=${*:-1 300 10}
MTX=${MTX:-./mtx}
SAMPLES_DIR=${SAMPLES_DIR:-./samples}
BENCH=${BENCH:-./bench/sync-op-cost}
LIB=${LIB:-./collector/preload/.libs/libmtx-preload.so}
RESULTS=${RESULTS:-$src/bench/results/function-hook-cost.txt}
MTX_BASE=${MTX_BASE:-}
if [ -n "$MTX_BASE" ]; then
	LIB_BASE=${LIB_BASE:-$(dirname "$MTX_BASE")/collector/preload/.libs/libmtx-preload.so}
	for f in "$MTX_BASE" "$LIB_BASE"; do
		[ -e "$f" ] || { echo "function-hook-cost.sh: $f not found (build the base first)" >&2; exit 1; }
	done
fi
for f in "$MTX" "$BENCH" "$LIB" "$SAMPLES_DIR/hooktree" "$SAMPLES_DIR/hooktree-pg" "$SAMPLES_DIR/hooktree-finstr"; do
	[ -e "$f" ] || { echo "function-hook-cost.sh: $f not found (build first)" >&2; exit 1; }
done
command -v uftrace >/dev/null || { echo "function-hook-cost.sh: uftrace not installed (apt-get install uftrace)" >&2; exit 1; }
abs() { case $1 in /*) echo "$1" ;; *) echo "$(pwd)/$1" ;; esac; }
MTX=$(abs "$MTX"); BENCH=$(abs "$BENCH"); LIB=$(abs "$LIB"); SAMPLES_DIR=$(abs "$SAMPLES_DIR")
[ -n "$MTX_BASE" ] && MTX_BASE=$(abs "$MTX_BASE") && LIB_BASE=$(abs "$LIB_BASE")
TMP=$(mktemp -d /tmp/function-hook-cost.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1 # -pg programs write gmon.out here

KINDS="plain pg finstr hooks-pg hooks-finstr uftrace-pg uftrace-finstr mtx-pg mtx-finstr"
[ -n "$MTX_BASE" ] && KINDS="$KINDS base-hooks-pg base-hooks-finstr base-mtx-pg base-mtx-finstr"
run_kind() {
	local kind=$1 build
	case $kind in
	plain) build=hooktree ;;
	*pg) build=hooktree-pg ;;
	*finstr) build=hooktree-finstr ;;
	esac
	local prog=$SAMPLES_DIR/$build
	# shellcheck disable=SC2086
	case $kind in
	plain|pg|finstr) HOOKTREE_NS=1 "$prog" $args ;;
	hooks-*) HOOKTREE_NS=1 "$BENCH" collect-calls "$LIB" 262144 1000 -- "$prog" $args ;;
	base-hooks-*) HOOKTREE_NS=1 "$BENCH" collect-calls "$LIB_BASE" 262144 1000 -- "$prog" $args ;;
	uftrace-*) rm -rf ud; HOOKTREE_NS=1 uftrace record --no-libcall -d ud "$prog" $args ;;
	mtx-*) HOOKTREE_NS=1 "$MTX" collect -q -e sched,sync -o run.db -- "$prog" $args ;;
	base-mtx-*) HOOKTREE_NS=1 "$MTX_BASE" collect -q -e sched,sync -o run.db -- "$prog" $args ;;
	esac
}

calls=""
for r in $(seq "$rounds"); do
	for kind in $KINDS; do
		t0=$(now_us)
		run_kind "$kind" > out.txt 2> err.txt || echo "round $r: $kind failed: $(head -1 err.txt)" >&2
		t1=$(now_us)
		ns=$(awk '/^hooktree: calls=/ { sub("ns=", "", $3); print $3 }' err.txt)
		cpu=$(awk '/^hooktree: calls=/ { sub("cpu_ns=", "", $4); print $4 }' err.txt)
		calls=$(awk '/^hooktree: calls=/ { sub("calls=", "", $2); print $2 }' err.txt)
		lost=$(awk '/^records/ { print $4 }' err.txt)
		echo "$((t1 - t0))" >> "wall.$kind"
		echo "$ns" >> "in.$kind"
		echo "$cpu" >> "cpu.$kind"
		[ -n "$lost" ] && [ "$lost" != 0 ] && echo "round $r: $kind lost $lost records" >&2
	done
	echo "round $r done" >&2
done

report() {
	echo "# function-hook-cost: $(date -u +%Y-%m-%dT%H:%MZ) commit $(git -C "$src" rev-parse --short HEAD 2>/dev/null)" \
		"load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "# hooktree $args: $calls calls per run, $rounds rounds, medians${MTX_BASE:+; base-*: $MTX_BASE}"
	printf '%-16s %12s %12s %16s %14s %16s %13s\n' kind in-prog_ms wall_ms in-prog_ns/call wall_ns/call \
		best_in-prog_ns cpu_ns/call
	local pin pw pbest pcpu
	pin=$(median < in.plain); pw=$(median < wall.plain); pbest=$(sort -n in.plain | head -1)
	pcpu=$(median < cpu.plain)
	for kind in $KINDS; do
		local min mw best mcpu
		min=$(median < "in.$kind"); mw=$(median < "wall.$kind"); best=$(sort -n "in.$kind" | head -1)
		mcpu=$(median < "cpu.$kind")
		awk -v k="$kind" -v i="$min" -v w="$mw" -v pi="$pin" -v pw="$pw" -v n="$calls" -v b="$best" -v pb="$pbest" \
			-v c="$mcpu" -v pc="$pcpu" 'BEGIN {
			printf "%-16s %12.1f %12.1f %16.1f %14.1f %16.1f %13.1f\n", k, i / 1e6, w / 1e3, (i - pi) / n,
				(w - pw) * 1e3 / n, (b - pb) / n, (c - pc) / n }'
	done
}
if [ "$RESULTS" = - ]; then
	report
else
	report | tee "$RESULTS"
fi
