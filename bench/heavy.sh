#!/bin/bash
# bench/heavy.sh - mtx against perf record on heavy real programs (issue 29):
# sysbench threads at two sizes, sysbench mutex, pigz, stress-ng's
# priority-inheritance mutexes and a tight contended lock loop
# (bench/contended-loop: 3 threads, 2 M pairs each), each run plain, under
# `mtx collect` (default sources) and under `perf record` of the same kernel
# events, interleaved in
# one invocation by bench/collect-overhead.sh, which reports the whole
# command's wall time, the program's own run, mtx's tail after the exit,
# events, lost records, file bytes and peak RSS.
#
# Usage: cd BUILD && sudo [MTX_BASE=OTHER/mtx] ../bench/heavy.sh [-n REPS] [-o RESULTS] [-s N]
#   MTX_BASE another build to run alongside (collect-overhead.sh's base)
#   REPS     repetitions (default 3)
#   RESULTS  default bench/results/heavy.txt
#   N        sysbench threads' larger --events (default 20000; the smaller
#            is always 2000)
# Needs sysbench, pigz and stress-ng (apt-get install sysbench pigz stress-ng).
set -u
here=$(cd "$(dirname "$0")" && pwd)
reps=3
results="$here/results/heavy.txt"
big=20000
while getopts "n:o:s:h" opt; do
	case $opt in
	n) reps=$OPTARG ;;
	o) results=$OPTARG ;;
	s) big=$OPTARG ;;
	h) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) exit 2 ;;
	esac
done
for p in sysbench pigz stress-ng; do
	command -v $p >/dev/null || { echo "heavy: needs $p (apt-get install $p)" >&2; exit 1; }
done

# pigz's input: 64 MiB of compressible text, made once.
input=/tmp/mtx-heavy-pigz.in
if [ ! -s $input ]; then
	seq 1 12000000 | head -c 67108864 >$input
fi

exec "$here/collect-overhead.sh" -n "$reps" -k "plain,mtx,perf${MTX_BASE:+,base}" -o "$results" \
	"$(command -v sysbench)" mutex --mutex-num=64 --mutex-locks=50000 --threads=4 run --- \
	"$(command -v sysbench)" threads --threads=4 --time=0 --events=2000 run --- \
	"$(command -v sysbench)" threads --threads=4 --time=0 --events="$big" run --- \
	"$(command -v pigz)" -p 2 -c -k $input --- \
	"$(command -v stress-ng)" --mutex 2 -t 3 --- \
	"$PWD/bench/contended-loop" 3 2000000
