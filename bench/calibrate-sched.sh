#!/bin/bash
# bench/calibrate-sched.sh - is 'mtx calibrate --only sched' steady and of
# the right size? SEEDS-MAP P8's oracle: over RUNS runs its coefficient of
# variation is below 25%, and its mean lies within [0.5, 2] x the latency
# of one switch that 'perf bench sched pipe' reports on the same machine.
#
# Interleaved RUNS times: mtx calibrate --only sched (20000 rounds), and
# perf bench sched pipe of LOOPS round trips, pinned to the CPU mtx pins
# its threads to (taskset -c), as processes (perf's default) and as
# threads (-T, like mtx's). A round trip on one CPU is two switches, each
# with a pipe write and read, so perf's latency of a switch is its
# usecs/op / 2. The oracle compares with the processes' figure; the
# threads' one is shown beside it (no address-space switch, like mtx's).
#
# Usage: bench/calibrate-sched.sh [-n RUNS] [-l LOOPS] [-o RESULTS] [BUILDDIR]
#   RUNS     runs of each (default 5)
#   LOOPS    perf bench sched pipe round trips a run (default 200000)
#   RESULTS  results file (default bench/results/calibrate-sched.txt; '-' for none)
# As root for SCHED_FIFO (the figure's line says which class it had).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
runs=5 loops=200000 results=$here/results/calibrate-sched.txt
while getopts n:l:o: opt; do
	case $opt in
	n) runs=$OPTARG ;;
	l) loops=$OPTARG ;;
	o) results=$OPTARG ;;
	*) echo "usage: $0 [-n RUNS] [-l LOOPS] [-o RESULTS] [BUILDDIR]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
use_build calibrate-sched.sh "${1:-.}"
command -v perf > /dev/null || { echo "calibrate-sched.sh: no perf (linux-perf) for perf bench" >&2; exit 1; }
tmp=$(mktemp -d /tmp/mtx-cal-sched.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# ns - a duration as mtx prints it ("1.74 us", "812 ns", "1.20 ms") in ns.
ns() {
	awk -v v="$1" -v u="$2" 'BEGIN { printf "%.0f\n", v * (u == "ms" ? 1e6 : u == "us" ? 1e3 : 1) }'
}

# pipe_us [-T] - perf bench sched pipe's usecs/op, pinned to $cpu.
pipe_us() {
	taskset -c "$cpu" perf bench sched pipe "$@" -l "$loops" 2> /dev/null | awk '/usecs\/op/ { print $1 }'
}

out=$(
	echo "# bench/calibrate-sched.sh -n $runs -l $loops, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$here" rev-parse --short HEAD 2> /dev/null), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(uname -r)"
	: > "$tmp/mtx"
	: > "$tmp/proc"
	: > "$tmp/thr"
	for i in $(seq "$runs"); do
		line=$("$MTX" calibrate --only sched) || { echo "calibrate-sched.sh: mtx calibrate failed: $line" >&2; exit 1; }
		read -r v u < <(printf '%s\n' "$line" | sed -E 's/^context switch \+ wakeup +([0-9.]+) (ns|us|ms) .*/\1 \2/')
		cpu=$(printf '%s\n' "$line" | sed -E 's/.*pinned to cpu ([0-9]+).*/\1/')
		ns "$v" "$u" >> "$tmp/mtx"
		p=$(pipe_us)
		t=$(pipe_us -T)
		echo "$p" >> "$tmp/proc"
		echo "$t" >> "$tmp/thr"
		echo "run $i: $line"
		echo "run $i: perf bench sched pipe on cpu $cpu: $p usecs/op (processes), $t usecs/op (threads, -T)"
	done
	awk -v runs="$runs" '
		FILENAME ~ /mtx$/ { m[++nm] = $1; sm += $1 }
		FILENAME ~ /proc$/ { sp += $1; np++ }
		FILENAME ~ /thr$/ { st += $1; nt++ }
		END {
			mean = sm / nm
			for (i = 1; i <= nm; i++) var += (m[i] - mean) ^ 2
			sd = nm > 1 ? sqrt(var / (nm - 1)) : 0
			cv = 100 * sd / mean
			sw_p = 1000 * sp / np / 2
			sw_t = 1000 * st / nt / 2
			ratio = mean / sw_p
			printf "mtx calibrate --only sched: mean %.0f ns, sd %.0f ns, CV %.1f%% over %d runs (goal < 25%%): %s\n",
				mean, sd, cv, nm, (cv < 25 ? "met" : "NOT MET")
			printf "perf bench sched pipe, pinned: %.0f ns a switch as processes, %.0f ns as threads (usecs/op / 2)\n",
				sw_p, sw_t
			printf "mtx / perf (processes): %.2f (goal 0.5 to 2): %s; mtx / perf (threads): %.2f\n",
				ratio, (ratio >= 0.5 && ratio <= 2 ? "met" : "NOT MET"), mean / sw_t
		}' "$tmp/mtx" "$tmp/proc" "$tmp/thr"
) || exit 1
printf '%s\n' "$out"
[ "$results" = - ] || printf '%s\n\n' "$out" >> "$results"
