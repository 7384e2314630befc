#!/bin/bash
# bench/probe-removal.sh - does a probe cost nothing once removed (issue 30:
# "its per-call time returns to the pre-probe time after removal")?
# bench/probe-rate runs ~4 s of iterations (~60 us of its own work and a
# call of probed() each), printing every 100 ms how many iterations it did
# (PROBE_RATE_WINDOW_MS). Under mtx collect -e sched --control, the script
# puts an entry + return uprobe on probed() at ~1.2 s (mtx ctl probe add)
# and takes it away at ~2.4 s (probe del). From the program's windows and
# the probe's on_ns and off_ns in run.db, the time of one iteration:
#   before   windows ending before on_ns
#   during   windows wholly between on_ns and off_ns
#   after    windows beginning 100 ms after off_ns
# and the same over the same stretches of a plain run, in the same round.
# Usage: bench/probe-removal.sh [rounds=5]
# Run from the build tree, as root, on an idle machine. Prints each round
# and the medians; appends them to bench/results/probe-removal.txt unless
# RESULTS=- (or another file).
set -eu
. "$(dirname "$0")/lib.sh"
src=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-5}
MTX=${MTX:-./mtx}
PROG=${PROG:-./bench/probe-rate}
RESULTS=${RESULTS:-$src/bench/results/probe-removal.txt}
for f in "$MTX" "$PROG"; do
	[ -x "$f" ] || { echo "probe-removal.sh: $f not found (build first)" >&2; exit 1; }
done
work=$(mktemp -d /tmp/mtx-bench-removal.XXXXXX)
trap 'rm -rf "$work"' EXIT
turns=$(awk -v r="$("$PROG" --spins-per-us)" 'BEGIN { printf "%d", r * 60 }')
iters=100000 # ~4 s at ~40 us (the turns per us read low: ~40 us here)
export PROBE_RATE_WINDOW_MS=100

# per_iteration FILE FROM TO - us per iteration over the windows of FILE
# that lie within [FROM, TO] (ns, the program's clock).
per_iteration() {
	awk -v f="$2" -v t="$3" '$1 == "window" && $2 - $4 >= f && $2 <= t { n += $3; ns += $4 }
		END { if (n) printf "%.3f", ns / n / 1000; else print "nan" }' "$1"
}

run_round() {
	local r=$1 mpid on off first
	"$PROG" "$iters" "$turns" > "$work/plain"
	rm -f "$work/ctl.sock" "$work/r.db"
	"$MTX" collect -q -e sched --control "$work/ctl.sock" -o "$work/r.db" -- "$PROG" "$iters" "$turns" \
		> "$work/probed" &
	mpid=$!
	sleep 1.2
	"$MTX" ctl "$work/ctl.sock" probe add '^probed$' > /dev/null
	sleep 1.2
	"$MTX" ctl "$work/ctl.sock" probe del 1 > /dev/null
	wait "$mpid"
	on=$(sqlite3 "$work/r.db" "SELECT on_ns FROM instrumentation WHERE probe_id = 1")
	off=$(sqlite3 "$work/r.db" "SELECT off_ns FROM instrumentation WHERE probe_id = 1")
	# the plain run's stretches: the same offsets from its first window
	first=$(awk '$1 == "window" { printf "%.0f\n", $2 - $4; exit }' "$work/probed")
	pfirst=$(awk '$1 == "window" { printf "%.0f\n", $2 - $4; exit }' "$work/plain")
	awk -v r="$r" \
		-v b="$(per_iteration "$work/probed" 0 "$on")" \
		-v d="$(per_iteration "$work/probed" "$on" "$off")" \
		-v a="$(per_iteration "$work/probed" $((off + 100000000)) 99999999999999999)" \
		-v pb="$(per_iteration "$work/plain" 0 $((pfirst + on - first)))" \
		-v pa="$(per_iteration "$work/plain" $((pfirst + off - first + 100000000)) 99999999999999999)" \
		'BEGIN { printf "%-6s %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f\n", r, pb, pa, b, d, a, d - b, a / b }'
}

{
	echo "# probe-removal, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$src" rev-parse --short HEAD 2> /dev/null)," \
		"load $(cut -d' ' -f1 /proc/loadavg); us per iteration (~60 us of work + a call of probed())"
	echo "# plain_*: a run without mtx over the same stretches; before/during/after: under mtx collect -e sched," \
		"before mtx ctl probe add '^probed\$', while it is on, from 100 ms after probe del"
	printf '%-6s %10s %10s %10s %10s %10s %10s %10s\n' round plain_bef plain_aft before during after added_us after/bef
	for ((r = 1; r <= rounds; r++)); do
		run_round "$r"
	done | tee "$work/rounds"
	awk '{ n++; for (k = 2; k <= 8; k++) v[k, n] = $k }
		END { for (k = 2; k <= 8; k++) { for (i = 1; i <= n; i++) a[i] = v[k, i]
				for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
				m[k] = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
			printf "%-6s %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f\n", "median", m[2], m[3], m[4], m[5], m[6], m[7], m[8] }' \
		"$work/rounds"
} | if [ "$RESULTS" = - ]; then cat; else tee -a "$RESULTS"; fi
