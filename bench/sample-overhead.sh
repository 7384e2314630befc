#!/bin/bash
# bench/sample-overhead.sh - what CPU sampling (mtx collect --sample HZ)
# costs a CPU-bound program, against the plain run and against perf.
#
# One invocation runs, interleaved and in an order that rotates with each
# repetition (so drift of a shared machine hits all alike), N times each:
#   plain        PROGRAM
#   sched        mtx collect -q -e sched -- PROGRAM          (mtx's minimum)
#   sched+sample mtx collect -q -e sched --sample HZ -- PROGRAM
#   all          mtx collect -q -- PROGRAM                    (default sources)
#   all+sample   mtx collect -q --sample HZ -- PROGRAM
#   perf         perf record -q -F HZ -g -- PROGRAM           (if perf exists)
# and prints the median wall time of each, its ratio to plain, the ratio
# of each +sample kind to the same kind without sampling (the cost of the
# sampling itself), and the samples recorded. Then the fixed start-up +
# tear-down cost of each, from the same kinds around /bin/true, and the
# ratios net of it.
#
# Usage: bench/sample-overhead.sh [-n REPS] [-z HZ] [-o RESULTS] [PROGRAM ARGS...]
#   REPS     repetitions (default 7); HZ (default 999)
#   RESULTS  tab-separated results (default bench/results/sample-overhead.txt;
#            '-' for none)
#   PROGRAM  default: the farm sample, 2 workers, 1200 tasks (~1 s of CPU
#            per worker), from ./samples (run from the build folder).
# With MTX_BASE set to another build's mtx (e.g. main's), one more kind,
# sched+sample@base, runs that build the same way, to compare two versions
# of sampling in one invocation. Each kind's CPU time (user + system of the
# program and the collector, from bash's time) is reported too: it does not
# grow while the machine is busy with others.
# Environment: MTX (default ./mtx), MTX_BASE (none), PERF (default perf).
# Needs root. Reports only; asserts nothing.
set -u
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
reps=7
hz=999
results="$here/results/sample-overhead.txt"
while getopts "n:z:o:h" opt; do
	case $opt in
	n) reps=$OPTARG ;;
	z) hz=$OPTARG ;;
	o) results=$OPTARG ;;
	h) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- ./samples/farm 2 1200
MTX=${MTX:-$(pwd)/mtx}
PERF=${PERF:-perf}
[ -x "$MTX" ] || { echo "sample-overhead: no mtx binary (set MTX=)" >&2; exit 1; }
kinds=(plain sched sched+sample all all+sample ${MTX_BASE:+sched+sample@base})
command -v "$PERF" >/dev/null && kinds+=(perf) || echo "sample-overhead: no perf, its column is left out" >&2
work=$(mktemp -d /tmp/mtx-sample-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

TIMEFORMAT='%3U %3S'
run_one() { # KIND REP PROGRAM... : one timed run, a line "kind rep prog us samples status cpu_us" in $work/runs
	local kind=$1 rep=$2 prog=$3 t0 t1 rc samples=0
	shift 2
	rm -f "$work/run.db" "$work/run.db.old" "$work/perf.data"
	t0=$(now_us)
	{ time one_kind "$kind" "$@"; } 2> "$work/cpu"
	rc=$?
	t1=$(now_us)
	[ -f "$work/run.db" ] && samples=$(sqlite3 "$work/run.db" "SELECT COUNT(*) FROM samples" 2> /dev/null || echo 0)
	[ $rc = 0 ] || { echo "sample-overhead: $kind run of $* exited $rc: $(head -1 "$work/err")" >&2; }
	echo "$kind $rep $(basename "$prog") $((t1 - t0)) $samples $rc $(awk '{ printf "%d", ($1 + $2) * 1e6 }' "$work/cpu")" >> "$work/runs"
}

one_kind() { # KIND PROGRAM...
	local kind=$1
	shift
	case $kind in
	plain) "$@" > /dev/null 2> "$work/err" ;;
	sched) "$MTX" collect -q -e sched -o "$work/run.db" -- "$@" > /dev/null 2> "$work/err" ;;
	sched+sample) "$MTX" collect -q -e sched --sample "$hz" -o "$work/run.db" -- "$@" > /dev/null 2> "$work/err" ;;
	all) "$MTX" collect -q -o "$work/run.db" -- "$@" > /dev/null 2> "$work/err" ;;
	all+sample) "$MTX" collect -q --sample "$hz" -o "$work/run.db" -- "$@" > /dev/null 2> "$work/err" ;;
	sched+sample@base) "$MTX_BASE" collect -q -e sched --sample "$hz" -o "$work/run.db" -- "$@" > /dev/null 2> "$work/err" ;;
	perf) "$PERF" record -q -F "$hz" -g -o "$work/perf.data" -- "$@" > /dev/null 2> "$work/err" ;;
	esac
}

for prog in "$*" /bin/true; do
	read -r -a cmd <<< "$prog"
	for kind in "${kinds[@]}"; do run_one "$kind" 0 "${cmd[@]}"; done # warm-up
done
: > "$work/runs"
for ((rep = 1; rep <= reps; rep++)); do
	echo "sample-overhead: repetition $rep of $reps" >&2
	for prog in "$*" /bin/true; do
		read -r -a cmd <<< "$prog"
		for ((k = 0; k < ${#kinds[@]}; k++)); do
			run_one "${kinds[$(((k + rep) % ${#kinds[@]}))]}" "$rep" "${cmd[@]}"
		done
	done
done

med() { awk -v k="$1" -v p="$2" -v c="$3" '$1 == k && $3 == p { print $c }' "$work/runs" | median; }
prog=$(basename "${1}")
{
	echo "# mtx sample overhead, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null), $(nproc) CPUs, kernel $(uname -r)"
	echo "# program: $*; $reps interleaved repetitions; medians; HZ=$hz; net = (t - t(/bin/true)) / (plain - plain(/bin/true))"
	printf "kind\tms\tratio_to_plain\tratio_to_same_without_sampling\tnet_ratio\tsamples\tfixed_ms\tcpu_ms\tcpu_ratio_to_plain\n"
	p=$(med plain "$prog" 4)
	p0=$(med plain true 4)
	pc=$(med plain "$prog" 7)
	for kind in "${kinds[@]}"; do
		t=$(med "$kind" "$prog" 4)
		t0=$(med "$kind" true 4)
		base=${kind%+sample}
		b=$(med "$base" "$prog" 4)
		s=$(med "$kind" "$prog" 5)
		c=$(med "$kind" "$prog" 7)
		awk -v k="$kind" -v t="$t" -v p="$p" -v b="$b" -v t0="$t0" -v p0="$p0" -v s="$s" -v c="$c" -v pc="$pc" \
			-v same="$([ "$base" != "$kind" ] && echo 1 || echo 0)" 'BEGIN {
			printf "%s\t%.1f\t%.3f\t%s\t%.3f\t%d\t%.1f\t%.1f\t%.3f\n", k, t / 1000, t / p, same ? sprintf("%.3f", t / b) : "-",
				(t - t0) / (p - p0), s, (t0 - p0) / 1000, c / 1000, pc ? c / pc : 0 }'
	done
} > "$work/results"
grep '^#' "$work/results"
grep -v '^#' "$work/results" | column -t -s $'\t'
if [ "$results" != - ]; then
	mkdir -p "$(dirname "$results")"
	cp "$work/results" "$results"
	echo "results written to $results"
fi
