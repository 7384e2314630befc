#!/bin/bash
# bench/browse-speed.sh - how fast mtx browse answers on a large run.db:
# the time to its first screen, each key's time to its next frame, and the
# memory it holds, on a big database and, as the baseline of the same
# invocation, on a small one (a run of samples/clientserver when root, else
# the tests/fixtures/waits.sql run): the figures should not depend on size.
#
# The browser itself reports the times (MTX_BROWSE_TIMING=FILE: "start MS"
# for the first frame after the command started, "key ACTION MS" from each
# key's arrival to its frame on screen; see ui/browse.c). tmux drives it at
# 100x30 with one scripted walk through every view (scrolling, paging, both
# ends, search, an object's history, the timeline's moves, zooms from the
# whole run down to tens of microseconds a column, events and wakeups),
# waiting for each frame before the next key. RSS is the
# process's VmHWM (peak) at the end.
#
# Usage: bench/browse-speed.sh [-n RUNS] [-d DB] [-o RESULTS] [BUILDDIR]
#   RUNS     starts timed (default 5), and walks (default 1 per database)
#   DB       the big run.db (default: bench/gen-rundb's 10 M-event one,
#            generated into /tmp/browse-speed-10M.db if missing, ~2 min)
#   RESULTS  results file (default bench/results/browse-speed.txt; '-': none)
# Needs tmux and sqlite3. It asserts nothing about timings.
set -u
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/.." && pwd)
runs=5
db=
results="$here/results/browse-speed.txt"
while getopts "n:d:o:h" opt; do
	case $opt in
	n) runs=$OPTARG ;;
	d) db=$OPTARG ;;
	o) results=$OPTARG ;;
	h) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
use_build browse-speed "${1:-.}"
command -v tmux >/dev/null || { echo "browse-speed: needs tmux" >&2; exit 1; }
work=$(mktemp -d /tmp/mtx-browse-speed.XXXXXX)
sock=mtx-browse-speed-$$
tm() { tmux -L "$sock" "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$work"' EXIT

if [ -z "$db" ]; then
	db=/tmp/browse-speed-10M.db
	if [ ! -s "$db" ]; then
		echo "browse-speed: generating $db" >&2
		"$build/bench/gen-rundb" "$db" 10000000 >&2 && "$build/bench/gen-rundb" --derive "$db" >&2 || exit 1
	fi
fi
small=$work/small.db
if [ "$(id -u)" = 0 ]; then
	(cd "$work" && "$MTX" collect -q -o small.db -- "$build/samples/clientserver" >/dev/null)
else
	"$build/tests/fixture-db" "$srcdir/tests/fixtures/waits.sql" "$small"
fi

# lines FILE - its line count (0 if missing).
lines() { [ -f "$1" ] && wc -l < "$1" || echo 0; }

# wait_lines FILE N - until FILE has N lines (120 s at most: a first
# frame on a database without derived tables waits for their build).
wait_lines() {
	local i=0
	while [ "$(lines "$1")" -lt "$2" ] && [ $i -lt 24000 ]; do
		sleep 0.005
		i=$((i + 1))
	done
}

# start DB LOG - a browser on DB in a fresh tmux session, logging to LOG.
start() {
	tm kill-server 2>/dev/null
	sock=mtx-browse-speed-$$-$RANDOM
	tm -f /dev/null new-session -d -s b -x 100 -y 30 \
		"env MTX_BROWSE_TIMING=$2 LC_ALL=C.UTF-8 TERM=xterm-256color $MTX browse $1; sleep 600"
	wait_lines "$2" 1
}

# The walk: tmux key names; 'P:key' opens a prompt (its frame comes after
# the Enter that ends it), 'T:text' types text at a prompt.
walk=(j j j j j j j j j j NPage NPage NPage NPage NPage G g P:/ T:rs Enter n n N
	s s S P:f T:client Enter P:f Enter Enter Escape
	2 j j j Enter NPage NPage NPage NPage G g PPage Escape
	3 j j j Enter Escape
	4 l l l l l l l l l l + + + + + - - ']' ']' ']' '[' j j j w l l h h P:t T:0.5s Enter G g NPage PPage
	+ + + + + + + + + l l h h - - - - - - - - -
	5 j j j 6 j j Enter NPage G Escape 7 8 Tab Tab BTab '?' NPage Escape 1 q)

# walk_db DB LOG - the walk on DB; prints its VmHWM in kB.
walk_db() {
	start "$1" "$2"
	local pid n
	pid=$(pgrep -n -f "^$MTX browse $1")
	for k in "${walk[@]}"; do
		n=$(lines "$2")
		case $k in
		T:*) tm send-keys -t b -l "${k#T:}"; continue ;; # a prompt's text: no frame yet
		P:*) tm send-keys -t b "${k#P:}"; sleep 0.1; continue ;; # the prompt is up
		q) awk '/VmHWM/ { print $2 }' "/proc/$pid/status"; tm send-keys -t b q; return ;;
		esac
		tm send-keys -t b "$k"
		wait_lines "$2" $((n + 1))
	done
}

# pct P < values - the P-th percentile (nearest rank).
pct() { sort -n | awk -v p="$1" '{ v[NR] = $1 } END { if (NR) { i = int((p * NR + 99) / 100); if (i < 1) i = 1; print v[i] } }'; }

report() { # report NAME DB
	local name=$1 file=$2 starts=() log rss
	for i in $(seq "$runs"); do
		log=$work/$name-start-$i.log
		start "$file" "$log"
		starts+=("$(awk '$1 == "start" { print $2 }' "$log")")
		tm send-keys -t b q
	done
	log=$work/$name-walk.log
	rss=$(walk_db "$file" "$log")
	local keys_ms
	keys_ms=$(awk '$1 == "key" { print $3 }' "$log")
	printf '%s\tstart_ms\t%s\n' "$name" "$(printf '%s\n' "${starts[@]}" | median)"
	printf '%s\tkeys\t%s\n' "$name" "$(printf '%s\n' "$keys_ms" | wc -l)"
	for p in 50 90 99 100; do
		printf '%s\tkey_p%s_ms\t%s\n' "$name" "$p" "$(printf '%s\n' "$keys_ms" | pct $p)"
	done
	printf '%s\trss_mb\t%s\n' "$name" "$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')"
	# the slowest actions, by their worst time
	awk '$1 == "key" { if ($3 > m[$2]) m[$2] = $3 } END { for (a in m) print m[a], a }' "$log" | sort -rn | head -5 |
		awk -v n="$name" '{ printf "%s\tslowest\t%s %s ms\n", n, $2, $1 }'
}

events=$(sqlite3 "$db" "SELECT (SELECT COUNT(*) FROM thread_states) + (SELECT COUNT(*) FROM switches) +
	(SELECT COUNT(*) FROM wakeups) + (SELECT COUNT(*) FROM syscalls) + (SELECT COUNT(*) FROM sync_ops)")
{
	echo "# mtx browse speed, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$srcdir" rev-parse --short HEAD 2>/dev/null), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "# big: $db ($events rows of states, switches, wakeups, syscalls, sync ops; $(du -m "$db" | cut -f1) MB)"
	echo "# small (baseline): $( [ "$(id -u)" = 0 ] && echo "a run of samples/clientserver" || echo "tests/fixtures/waits.sql")"
	echo "# start: median of $runs; keys: one walk of ${#walk[@]} steps through every view; ms"
	echo "db	what	value"
	report small "$small"
	report big "$db"
} | tee "$work/results.txt"
[ "$results" = - ] || cp "$work/results.txt" "$results"
