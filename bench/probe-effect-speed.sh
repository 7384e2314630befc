#!/bin/bash
# bench/probe-effect-speed.sh - how fast 'mtx probe-effect' answers on a
# large run (issue 28: at least 1 M events/s for the simulation).
#
# bench/gen-rundb writes a synthetic EVENTS-event run.db (65 threads, 4
# CPUs, locks, cond waits, semaphores). Then RUNS times, each on a fresh
# copy: 'mtx probe-effect' on a read-only copy (load, G^I, the model check
# and the simulation without overhead, G^S, the verdict; nothing stored),
# and on a writable one (the same, and its results stored in the file).
# Reported: medians of wall and user time, and sync events per second of
# wall time end to end; and, from 'probe-effect -v', the read of the run
# and the simulation without the overhead on their own (the model check's
# simulation takes about as long).
#
# Usage: bench/probe-effect-speed.sh [-n RUNS] [-e EVENTS] [-o RESULTS] [BUILDDIR]
#   RUNS     timed runs of each (default 3)
#   EVENTS   events in the generated run (default 10000000; ~0.7 GB in /tmp, twice with the copy)
#   RESULTS  results file (default bench/results/probe-effect-speed.txt; '-' for none)
set -u
here=$(cd "$(dirname "$0")" && pwd)
runs=3 events=10000000 results=$here/results/probe-effect-speed.txt
while getopts n:e:o: opt; do
	case $opt in
	n) runs=$OPTARG ;;
	e) events=$OPTARG ;;
	o) results=$OPTARG ;;
	*) echo "usage: $0 [-n RUNS] [-e EVENTS] [-o RESULTS] [BUILDDIR]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
build=${1:-.}
mtx=$build/mtx gen=$build/bench/gen-rundb
for f in "$mtx" "$gen"; do
	[ -x "$f" ] || { echo "probe-effect-speed.sh: $f not found (build first)" >&2; exit 1; }
done
db=/tmp/mtx-pe-speed-$$.db copy=/tmp/mtx-pe-speed-$$-copy.db
trap 'chmod 644 "$copy" 2> /dev/null; rm -f "$db" "$db"-* "$copy" "$copy"-*' EXIT
"$gen" "$db" "$events" > /dev/null 2>&1 || { echo "probe-effect-speed.sh: gen-rundb failed" >&2; exit 1; }
sync_events=$(sqlite3 "$db" "SELECT COUNT(*) FROM sync_ops")

# time_one MODE: wall and user seconds of one probe-effect on a fresh copy
time_one() {
	rm -f "$copy" "$copy"-*
	cp "$db" "$copy"
	[ "$1" = readonly ] && chmod 444 "$copy"
	/usr/bin/time -f "%e %U" -o /tmp/mtx-pe-speed-$$.t "$mtx" probe-effect -v "$copy" > /dev/null \
		2> /tmp/mtx-pe-speed-$$.v
	status=$?
	chmod 644 "$copy"
	{ [ $status = 0 ] || [ $status = 3 ]; } || { echo "probe-effect-speed.sh: mtx probe-effect exited $status" >&2; exit 1; }
	# wall, user, the read's ms, the simulation's ms
	printf '%s %s %s\n' "$(tail -1 /tmp/mtx-pe-speed-$$.t)" \
		"$(sed -n 's/.*events of .* threads in \([0-9.]*\) ms$/\1/p' /tmp/mtx-pe-speed-$$.v)" \
		"$(sed -n 's/.*without the overhead: .* simulated in \([0-9.]*\) ms.*/\1/p' /tmp/mtx-pe-speed-$$.v)"
	rm -f /tmp/mtx-pe-speed-$$.t /tmp/mtx-pe-speed-$$.v
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

out=$(
	echo "# bench/probe-effect-speed.sh -n $runs -e $events, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$here" rev-parse --short HEAD 2> /dev/null), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "# $events generated events, $sync_events sync events; medians of $runs runs"
	for mode in readonly stored; do
		: > /tmp/mtx-pe-speed-$$.all
		for _ in $(seq "$runs"); do time_one $mode >> /tmp/mtx-pe-speed-$$.all; done
		wall=$(cut -d' ' -f1 /tmp/mtx-pe-speed-$$.all | median)
		user=$(cut -d' ' -f2 /tmp/mtx-pe-speed-$$.all | median)
		read_ms=$(cut -d' ' -f3 /tmp/mtx-pe-speed-$$.all | median)
		sim_ms=$(cut -d' ' -f4 /tmp/mtx-pe-speed-$$.all | median)
		rm -f /tmp/mtx-pe-speed-$$.all
		awk -v m=$mode -v w="$wall" -v u="$user" -v n="$sync_events" -v r="$read_ms" -v s="$sim_ms" \
			'BEGIN { printf "%-9s wall %6.2f s  user %6.2f s  %5.2f M sync events/s end to end;" \
				" read %.2f s; simulation %.2f s, %.1f M events/s\n", m, w, u, n / w / 1e6, r / 1e3, s / 1e3,
				(s > 0 ? n / s / 1e3 : 0) }'
	done
)
echo "$out"
[ "$results" = - ] || { echo "$out"; echo; } >> "$results"
