#!/bin/bash
# bench/sample-overhead.sh - what CPU sampling (mtx collect --sample HZ)
# costs a CPU-bound program, against the plain run and against perf.
#
# One invocation runs, interleaved and in an order that rotates with each
# repetition (so drift of a shared machine hits all alike), N times each:
#   plain        PROGRAM
#   sched        mtx collect -q -e sched -- PROGRAM          (mtx's minimum)
#   sched+fp     mtx collect -q -e sched --sample HZ -- PROGRAM  (frame pointers)
#   sched+dwarf  mtx collect -q -e sched --sample HZ --call-graph dwarf -- PROGRAM
#   all          mtx collect -q -- PROGRAM                    (default sources)
#   all+fp       mtx collect -q --sample HZ -- PROGRAM
#   perf-fp      perf record -q -F HZ -g -- PROGRAM           (if perf exists)
#   perf-dwarf   perf record -q -F HZ --call-graph dwarf -- PROGRAM
# and prints the median wall time of each, its ratio to plain, the ratio
# of each +fp/+dwarf kind to the same kind without sampling (the cost of
# the sampling itself), of each dwarf kind to its fp kind, the samples
# recorded, and for mtx's dwarf kind the samples unwound per second of the
# collector's unwinding time (meta unwind_dwarf / unwind_ns), and the same
# ratios again for CPU time (user + system of the collector and the program
# together), which a shared machine disturbs far less, and the same for
# the program's own time (own_ms: exec to exit, from run.db's processes
# row; the plain run's wall time; none for perf). Then the fixed
# start-up + tear-down cost of each, from the same kinds around /bin/true,
# and the ratios net of it. (perf unwinds its dwarf samples later, in perf
# report; mtx unwinds while the program runs.)
#
# Usage: bench/sample-overhead.sh [-n REPS] [-z HZ] [-o RESULTS] [PROGRAM ARGS...]
#   REPS     repetitions (default 7); HZ (default 999)
#   RESULTS  tab-separated results (default bench/results/sample-overhead.txt;
#            '-' for none)
#   PROGRAM  default: the farm sample, 2 workers, 1200 tasks (~1 s of CPU
#            per worker), from ./samples (run from the build folder).
# Environment: MTX (default ./mtx), PERF (default perf).
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
kinds=(plain sched sched+fp sched+dwarf all all+fp)
command -v "$PERF" >/dev/null && kinds+=(perf-fp perf-dwarf) || echo "sample-overhead: no perf, its rows are left out" >&2
work=$(mktemp -d /tmp/mtx-sample-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

run_kind() { # KIND PROGRAM... : run it one way
	local kind=$1
	shift
	case $kind in
	plain) "$@" > /dev/null 2> "$work/err" ;;
	sched) "$MTX" collect -q -e sched -o "$work/run.db" -- "$@" > /dev/null 2> "$work/err" ;;
	sched+fp) "$MTX" collect -q -e sched --sample "$hz" -o "$work/run.db" -- "$@" > /dev/null 2> "$work/err" ;;
	sched+dwarf) "$MTX" collect -q -e sched --sample "$hz" --call-graph dwarf -o "$work/run.db" -- "$@" > /dev/null 2> "$work/err" ;;
	all) "$MTX" collect -q -o "$work/run.db" -- "$@" > /dev/null 2> "$work/err" ;;
	all+fp) "$MTX" collect -q --sample "$hz" -o "$work/run.db" -- "$@" > /dev/null 2> "$work/err" ;;
	perf-fp) "$PERF" record -q -F "$hz" -g -o "$work/perf.data" -- "$@" > /dev/null 2> "$work/err" ;;
	perf-dwarf) "$PERF" record -q -F "$hz" --call-graph dwarf -o "$work/perf.data" -- "$@" > /dev/null 2> "$work/err" ;;
	esac
}

# One timed run: a line "kind rep prog us samples status unwound/s cpu_ms" in
# $work/runs. cpu_ms is the user + system time of the run's whole process
# tree (collector and program): on a shared machine it moves far less than
# the wall time does.
run_one() { # KIND REP PROGRAM...
	local kind=$1 rep=$2 prog=$3 t0 t1 rc samples=0 rate=0 cpu
	shift 2
	rm -f "$work/run.db" "$work/run.db.old" "$work/perf.data"
	t0=$(now_us)
	{ TIMEFORMAT='%3U %3S'; time run_kind "$kind" "$@"; } 2> "$work/time"
	rc=$?
	t1=$(now_us)
	cpu=$(awk '{ printf "%d", ($1 + $2) * 1000 }' "$work/time")
	[ -f "$work/run.db" ] && samples=$(sqlite3 "$work/run.db" "SELECT COUNT(*) FROM samples" 2> /dev/null || echo 0)
	[ -f "$work/run.db" ] && rate=$(sqlite3 "$work/run.db" "SELECT COALESCE(CAST(1e9 * (SELECT value FROM meta WHERE key = 'unwind_dwarf')
		/ (SELECT value FROM meta WHERE key = 'unwind_ns') AS INTEGER), 0)" 2> /dev/null || echo 0)
	# The program's own life (exec to exit, run.db's processes row), without
	# the collector's start-up and its work after the exit; the plain run's
	# is its wall time.
	own=$((t1 - t0))
	[ -f "$work/run.db" ] && own=$(sqlite3 "$work/run.db" "SELECT (end_ns - start_ns) / 1000 FROM processes
		ORDER BY start_ns LIMIT 1" 2> /dev/null || echo 0)
	[ $rc = 0 ] || { echo "sample-overhead: $kind run of $* exited $rc: $(head -1 "$work/err")" >&2; }
	echo "$kind $rep $(basename "$prog") $((t1 - t0)) $samples $rc ${rate:-0} ${cpu:-0} ${own:-0}" >> "$work/runs"
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
	printf "kind\tms\tratio_to_plain\tratio_to_same_without_sampling\tdwarf_to_fp\tnet_ratio\tsamples\tunwound_per_s\tfixed_ms\tcpu_ms\tcpu_to_plain\tcpu_to_same_without_sampling\tcpu_dwarf_to_fp\town_ms\town_to_plain\town_to_same_without_sampling\n"
	p=$(med plain "$prog" 4)
	p0=$(med plain true 4)
	for kind in "${kinds[@]}"; do
		t=$(med "$kind" "$prog" 4)
		t0=$(med "$kind" true 4)
		base=${kind%+*}
		b=$(med "$base" "$prog" 4)
		s=$(med "$kind" "$prog" 5)
		r=$(med "$kind" "$prog" 7)
		fp=$t
		c=$(med "$kind" "$prog" 8)
		cp=$(med plain "$prog" 8)
		cb=$(med "$base" "$prog" 8)
		cfp=$c
		o=$(med "$kind" "$prog" 9)
		ob=$(med "$base" "$prog" 9)
		case $kind in *dwarf) fp=$(med "${kind%dwarf}fp" "$prog" 4) cfp=$(med "${kind%dwarf}fp" "$prog" 8) ;; esac
		awk -v k="$kind" -v t="$t" -v p="$p" -v b="$b" -v t0="$t0" -v p0="$p0" -v s="$s" -v r="$r" -v fp="$fp" \
			-v c="$c" -v cp="$cp" -v cb="$cb" -v cfp="$cfp" -v o="$o" -v ob="$ob" \
			-v same="$([ "$base" != "$kind" ] && echo 1 || echo 0)" 'BEGIN {
			printf "%s\t%.1f\t%.3f\t%s\t%s\t%.3f\t%d\t%d\t%.1f\t%d\t%.3f\t%s\t%s\t%.1f\t%s\t%s\n", k, t / 1000, t / p,
				same ? sprintf("%.3f", t / b) : "-", k ~ /dwarf$/ ? sprintf("%.3f", t / fp) : "-",
				(t - t0) / (p - p0), s, r, (t0 - p0) / 1000, c, c / cp, same ? sprintf("%.3f", c / cb) : "-",
				k ~ /dwarf$/ ? sprintf("%.3f", c / cfp) : "-", o / 1000, k ~ /^perf/ ? "-" : sprintf("%.3f", o / p),
				same && k !~ /^perf/ ? sprintf("%.3f", o / ob) : "-" }'
	done
} > "$work/results"
grep '^#' "$work/results"
grep -v '^#' "$work/results" | column -t -s $'\t'
if [ "$results" != - ]; then
	mkdir -p "$(dirname "$results")"
	cp "$work/results" "$results"
	echo "results written to $results"
fi
