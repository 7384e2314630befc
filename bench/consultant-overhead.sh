#!/bin/bash
# bench/consultant-overhead.sh - what the live search of mtx collect
# --consultant costs the program, against its budget (SEEDS-MAP S8: the
# slowdown at most the budget + 2 points).
#
# For each program, interleaved round by round in one invocation:
#   plain       the program alone
#   cheap       mtx collect -q -e sched,wakeups,sync (what the consultant
#               starts from: no syscalls, no samples)
#   mtx         mtx collect -q (the default sources, syscalls included)
#   consultant  mtx collect --consultant --overhead-budget BUDGET
# each REPS times. The program's own time is measured by /usr/bin/time
# around it (inside mtx collect: exec to exit, without mtx's start-up or
# its work after the exit). Reported: the medians, the slowdown of each
# against plain in points, the consultant's counts line and its findings
# (of its last run).
#
# Programs: sysbench mutex (4 threads), sysbench threads (4 threads, yields
# and locks: syscalls by the million, which the budget must refuse or
# switch off), pigz -9 -p 2 and xz -T2 -3 of generated text, and the
# planted small synced writes (tests/e2e/planted io-small: the syscalls go
# on for the I/O hypotheses).
#
# Usage: bench/consultant-overhead.sh [-n REPS] [-b BUDGET] [-o RESULTS]
#   REPS     repetitions (default 5)
#   BUDGET   --overhead-budget, % of a CPU (default 5)
#   RESULTS  where the output is appended (default bench/results/
#            consultant-overhead.txt next to this script; '-' for none)
# Environment: MTX (default ./mtx). Run it from the build folder, as root,
# on an idle machine. It asserts nothing: it only reports.
set -u
here=$(cd "$(dirname "$0")" && pwd)
reps=5
budget=5
results="$here/results/consultant-overhead.txt"
while getopts "n:b:o:h" opt; do
	case $opt in
	n) reps=$OPTARG ;;
	b) budget=$OPTARG ;;
	o) results=$OPTARG ;;
	h) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) exit 2 ;;
	esac
done
MTX=${MTX:-$(pwd)/mtx}
PLANTED=$(pwd)/tests/e2e/planted
[ -x "$MTX" ] || { echo "consultant-overhead: no mtx binary (set MTX=)" >&2; exit 1; }
[ -x "$PLANTED" ] || { echo "consultant-overhead: build tests/e2e/planted first (make check TESTS=)" >&2; exit 1; }
for tool in sysbench pigz xz /usr/bin/time; do
	command -v "$tool" > /dev/null || { echo "consultant-overhead: needs $tool" >&2; exit 1; }
done

work=$(mktemp -d /tmp/mtx-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
head -c 150000000 /dev/urandom | base64 > "$work/text"
head -c 20000000 "$work/text" > "$work/text-small"

programs=(
	"sysbench mutex --threads=4 --mutex-num=64 --mutex-locks=600000 run"
	"sysbench threads --threads=4 --time=0 --events=5000 run"
	"pigz -9 -p 2 -c $work/text"
	"xz -T2 -3 -c $work/text-small"
	"$PLANTED io-small $work/io 20000"
)
names=("sysbench-mutex" "sysbench-threads" "pigz" "xz" "planted-io-small")
kinds=(plain cheap mtx consultant)

# run KIND PROGRAM... - the program's own seconds, into $work/t
run() {
	local kind=$1
	shift
	case $kind in
	plain) /usr/bin/time -f %e -o "$work/t" "$@" > /dev/null 2>&1 ;;
	cheap) "$MTX" collect -q -e sched,wakeups,sync -o "$work/run.db" -- /usr/bin/time -f %e -o "$work/t" "$@" \
		> /dev/null 2> "$work/err" ;;
	mtx) "$MTX" collect -q -o "$work/run.db" -- /usr/bin/time -f %e -o "$work/t" "$@" > /dev/null 2> "$work/err" ;;
	consultant) "$MTX" collect --consultant --overhead-budget "$budget" -o "$work/run.db" -- \
		/usr/bin/time -f %e -o "$work/t" "$@" > /dev/null 2> "$work/err"
		grep "consultant:" "$work/err" | tail -1 > "$work/said"
		grep "TRUE" "$work/err" | head -2 >> "$work/said" ;;
	esac
	rm -f "$work/io"
	tail -1 "$work/t"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

{
	echo "# consultant-overhead.sh $(date -u +%Y-%m-%dT%H:%MZ) commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null)" \
		"reps $reps budget $budget% load $(cut -d' ' -f1-3 /proc/loadavg)"
	printf "%-18s %8s %8s %8s %8s %9s %8s %9s\n" program plain_s cheap_s mtx_s consult_s cheap_pts mtx_pts cons_pts
	for p in "${!programs[@]}"; do
		read -r -a cmd <<< "${programs[$p]}"
		for kind in "${kinds[@]}"; do : > "$work/$kind.s"; done
		run plain "${cmd[@]}" > /dev/null # warm-up: caches, files
		for ((rep = 0; rep < reps; rep++)); do
			for ((k = 0; k < ${#kinds[@]}; k++)); do
				kind=${kinds[$(((k + rep) % ${#kinds[@]}))]}
				run "$kind" "${cmd[@]}" >> "$work/$kind.s"
			done
		done
		pl=$(median < "$work/plain.s")
		ch=$(median < "$work/cheap.s")
		mt=$(median < "$work/mtx.s")
		co=$(median < "$work/consultant.s")
		pts() { awk -v a="$1" -v b="$pl" 'BEGIN { print 100 * (a / b - 1) }'; }
		printf "%-18s %8.2f %8.2f %8.2f %8.2f %+9.1f %+8.1f %+9.1f\n" "${names[$p]}" "$pl" "$ch" "$mt" "$co" \
			"$(pts "$ch")" "$(pts "$mt")" "$(pts "$co")"
		sed 's/^/    /' "$work/said"
	done
} | if [ "$results" = - ]; then cat; else tee -a "$results"; fi
