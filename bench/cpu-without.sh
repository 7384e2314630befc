#!/bin/bash
# bench/cpu-without.sh - does 'mtx report overhead' give back the CPU time
# a thread has without mtx? Issue 28 (SEEDS-MAP P1): on a CPU-bound
# program, each thread's "CPU time without overhead" lies within 5% of
# the same thread's CPU time in plain runs (their median), by the
# program's own clock (samples/selfcheck.h's cpu_ns,
# CLOCK_THREAD_CPUTIME_ID). The tests check only that it comes nearer
# than half the injected overhead: a percentage on a shared machine is a
# figure of its load, measured here.
#
# samples/ring THREADS ROUNDS WORK_US: each ring thread computes a fixed
# amount of its own CPU time, so threads match across runs by creation
# rank. Interleaved RUNS times: a plain run, a run under mtx, and one
# under mtx --inject-overhead INJECT. Reported per mode: the median over
# runs of each thread's |without - plain median| / plain median, and the
# worst thread.
#
# Usage: bench/cpu-without.sh [-n RUNS] [-i INJECT] [-o RESULTS] [BUILDDIR]
#   RUNS     runs of each (default 5)
#   INJECT   --inject-overhead of the third mode (default 200us)
#   RESULTS  results file (default bench/results/cpu-without.txt; '-' for none)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
runs=5 inject=200us results=$here/results/cpu-without.txt
threads=3 rounds=200 work_us=500
while getopts n:i:o: opt; do
	case $opt in
	n) runs=$OPTARG ;;
	i) inject=$OPTARG ;;
	o) results=$OPTARG ;;
	*) echo "usage: $0 [-n RUNS] [-i INJECT] [-o RESULTS] [BUILDDIR]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
use_build cpu-without.sh "${1:-.}"
tmp=$(mktemp -d /tmp/mtx-cpu-without.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
ring=$build/samples/ring

# ring_cpu SCFILE - the ring threads' cpu_ns, one a line, by creation (tid) order
ring_cpu() {
	awk '$1 == "thread" && $4 == "role=ring" { split($3, t, "="); split($NF, c, "="); print t[2], c[2] }' "$1" |
		sort -n | cut -d' ' -f2
}

# without DB - the ring threads' "CPU time without overhead", by tid order
without() {
	"$MTX" report "$1" overhead --format csv 2> /dev/null |
		awk -F, 'NR > 1 && $1 ~ /^[0-9]+$/ && $2 ~ /^ring-/ { print $1, $5 }' | sort -n | cut -d' ' -f2
}

: > "$tmp/plain"
for mode in none inject; do : > "$tmp/$mode"; done
for i in $(seq "$runs"); do
	MTX_SELFCHECK=$tmp/p.sc "$ring" $threads $rounds $work_us > /dev/null
	ring_cpu "$tmp/p.sc" | paste -sd' ' >> "$tmp/plain"
	rm -f "$tmp/p.sc"
	"$MTX" collect -q -e sched,sync -o "$tmp/none.db" -- "$ring" $threads $rounds $work_us > /dev/null
	without "$tmp/none.db" | paste -sd' ' >> "$tmp/none"
	"$MTX" collect -q -e sched,sync --inject-overhead "$inject" -o "$tmp/inject.db" -- "$ring" $threads $rounds $work_us > /dev/null
	without "$tmp/inject.db" | paste -sd' ' >> "$tmp/inject"
done

# report MODE LABEL - per thread rank, the off% of each run against the
# plain runs' median; the median over runs, and the worst thread's
report() {
	awk -v label="$2" -v n="$threads" '
	function median(a, k,   i, j, t) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
	FNR == 1 { file++ }
	file == 1 { runs_p++; for (t = 1; t <= n; t++) p[t, runs_p] = $t; next }
	{ runs_m++; for (t = 1; t <= n; t++) m[t, runs_m] = $t }
	END {
		worst = 0; line = ""
		for (t = 1; t <= n; t++) {
			for (r = 1; r <= runs_p; r++) v[r] = p[t, r]
			pm = median(v, runs_p)
			for (r = 1; r <= runs_m; r++) { d = (m[t, r] - pm) / pm; w[r] = d < 0 ? -d : d }
			off = 100 * median(w, runs_m)
			line = line sprintf(" ring-%d %.1f%%", t - 1, off)
			if (off > worst) worst = off
		}
		printf "%-24s median off by thread:%s; worst %.1f%% (goal 5%%)\n", label, line, worst
	}' "$tmp/plain" "$tmp/$1"
}

out=$(
	echo "# bench/cpu-without.sh -n $runs -i $inject, ring $threads $rounds $work_us, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$here" rev-parse --short HEAD 2> /dev/null), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
	report none "mtx, nothing injected"
	report inject "mtx, $inject injected"
)
printf '%s\n' "$out"
[ "$results" = - ] || printf '%s\n\n' "$out" >> "$results"
