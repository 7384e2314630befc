#!/bin/bash
# bench/export-speed.sh - how long 'mtx export' takes on a large run.db and
# how much memory it holds: the Chrome trace-event JSON and Perfetto's
# protobuf of every row, and the CSV of the sync_ops table.
#
# bench/gen-rundb writes a synthetic EVENTS-event run.db (65 threads, a
# lock- and condvar-heavy server; see bench/gen-rundb.c) with its derived
# tables, kept as /tmp/mtx-export-speed-EVENTS.db and reused by later
# invocations (delete it after changing gen-rundb). Then RUNS times each
# export, interleaved, into a scratch file: wall and CPU time, peak RSS
# (GNU time), and the file's size. Medians.
#
# MTX_BASE=OTHER/mtx adds that build's chrome and perfetto exports
# (base-chrome, base-perfetto), interleaved with this build's.
#
# Usage: [MTX_BASE=OTHER/mtx] bench/export-speed.sh [-n RUNS] [-e EVENTS] [-o RESULTS] [BUILDDIR]
#   RUNS     timed runs of each (default 3)
#   EVENTS   events in the database (default 10000000; ~1 min to generate,
#            the JSON is ~2 GB: have 4 GB free in /tmp)
#   RESULTS  results file (default bench/results/export-speed.txt; '-': none)
# Needs GNU time (/usr/bin/time). It asserts nothing about timings.
set -u
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
runs=3
events=10000000
results="$here/results/export-speed.txt"
while getopts "n:e:o:h" opt; do
	case $opt in
	n) runs=$OPTARG ;;
	e) events=$OPTARG ;;
	o) results=$OPTARG ;;
	*) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
use_build export-speed.sh "${1:-.}"
[ -x /usr/bin/time ] || { echo "export-speed.sh: needs GNU time (apt-get install time)" >&2; exit 1; }

db=/tmp/mtx-export-speed-$events.db
if [ ! -s "$db" ]; then
	echo "generating $db ..." >&2
	"$build/bench/gen-rundb" "$db" "$events" > /dev/null && "$build/bench/gen-rundb" --derive "$db" > /dev/null ||
		{ rm -f "$db"; echo "export-speed.sh: gen-rundb failed" >&2; exit 1; }
fi
out=$(mktemp /tmp/mtx-export-speed.XXXXXX)
trap 'rm -f "$out" "$out.time"' EXIT

kinds=(chrome perfetto csv)
[ -n "${MTX_BASE:-}" ] && kinds+=(base-chrome base-perfetto)
declare -A wall cpu rss size
for ((r = 0; r < runs; r++)); do
	for k in "${kinds[@]}"; do
		mtx=$MTX
		case $k in base-*) mtx=$MTX_BASE ;; esac
		case ${k#base-} in
		chrome) set -- --format chrome ;;
		perfetto) set -- --format perfetto ;;
		csv) set -- --format csv --table sync_ops ;;
		esac
		/usr/bin/time -f "%e %U %S %M" -o "$out.time" "$mtx" export "$db" "$@" -o "$out" ||
			{ echo "export-speed.sh: $mtx export $* failed" >&2; exit 1; }
		read -r e u s m < "$out.time"
		wall[$k]+="$e "
		cpu[$k]+="$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }') "
		rss[$k]+="$m "
		size[$k]=$(stat -c %s "$out")
	done
done

{
	echo "# export-speed.sh $(date -u +%Y-%m-%dT%H:%MZ) commit $(git -C "$here" rev-parse --short HEAD 2> /dev/null)" \
		"load $(cut -d' ' -f1-3 /proc/loadavg)"
	rows=$(sqlite3 "$db" "SELECT (SELECT COUNT(*) FROM thread_states) + (SELECT COUNT(*) FROM sync_ops) +
		(SELECT COUNT(*) FROM syscalls) + (SELECT COUNT(*) FROM wakeups)")
	echo "# $db: $events events, $rows rows exported as events; $runs runs each, medians"
	printf '%-13s %9s %9s %9s %10s\n' format wall_s cpu_s rss_mb file_mb
	for k in "${kinds[@]}"; do
		printf '%-13s %9.2f %9.2f %9.1f %10.1f\n' "$k" "$(tr ' ' '\n' <<< "${wall[$k]}" | grep . | median)" \
			"$(tr ' ' '\n' <<< "${cpu[$k]}" | grep . | median)" \
			"$(tr ' ' '\n' <<< "${rss[$k]}" | grep . | median | awk '{ print $1 / 1024 }')" \
			"$(awk -v b="${size[$k]}" 'BEGIN { print b / 1048576 }')"
	done
	echo
} | if [ "$results" = - ]; then cat; else tee -a "$results"; fi
