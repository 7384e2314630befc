#!/bin/bash
# bench/probe-cost.sh - does mtx predict what a function probe costs, and
# does --overhead-budget hold (SEEDS-MAP S6)? bench/probe-rate calls
# probed() once per ~60 us of its own work (a fixed number of loop turns)
# and cold() once per 1000 of them; its loop's wall time is timed inside
# it, in the same invocation:
#   plain       without mtx
#   probed      mtx collect -e sched --functions '^probed$': the measured
#               slowdown (probed - plain) / plain against the predicted,
#               calls x meta.cal_uprobes_ns / plain (the calibrated cost of
#               a traced call, entry and return, times the calls made)
#   budget      --functions '^(probed|cold)$' --overhead-budget 5: the
#               slowdown must stay within 5% + 2 points
# Usage: bench/probe-cost.sh [rounds=5] [iterations=40000]
# Run from the build tree, as root, on an idle machine. Prints each round
# and the medians.
set -eu
. "$(dirname "$0")/lib.sh"
rounds=${1:-5}
iters=${2:-40000}
MTX=${MTX:-./mtx}
PROG=${PROG:-./bench/probe-rate}
for f in "$MTX" "$PROG"; do
	[ -x "$f" ] || { echo "probe-cost.sh: $f not found (build first)" >&2; exit 1; }
done
work=$(mktemp -d /tmp/mtx-bench-probe.XXXXXX)
trap 'rm -rf "$work"' EXIT
turns=$(awk -v r="$("$PROG" --spins-per-us)" 'BEGIN { printf "%d", r * 60 }')
loop_ns() { awk '/^loop_ns/ { print $2 }' "$1"; }
printf '%-5s %12s %12s %12s %10s %10s %10s %10s\n' round plain_ms probed_ms budget_ms measured% predicted% ratio budget%
for ((r = 1; r <= rounds; r++)); do
	"$PROG" "$iters" "$turns" > "$work/plain"
	"$MTX" collect -q -e sched --functions '^probed$' -o "$work/p.db" -- "$PROG" "$iters" "$turns" > "$work/probed"
	"$MTX" collect -q -e sched --functions '^(probed|cold)$' --overhead-budget 5 -o "$work/b.db" -- \
		"$PROG" "$iters" "$turns" > "$work/budget" 2> "$work/budget.err"
	cost=$(sqlite3 "$work/p.db" "SELECT value FROM meta WHERE key = 'cal_uprobes_ns'")
	awk -v r="$r" -v p="$(loop_ns "$work/plain")" -v q="$(loop_ns "$work/probed")" -v b="$(loop_ns "$work/budget")" \
		-v n="$iters" -v c="$cost" 'BEGIN {
		m = 100 * (q - p) / p; pr = 100 * n * c / p
		printf "%-5d %12.1f %12.1f %12.1f %10.1f %10.1f %10.2f %10.1f\n", r, p / 1e6, q / 1e6, b / 1e6, m, pr, pr / m,
			100 * (b - p) / p }'
done | tee "$work/rounds"
awk 'function median(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	{ n++; for (k = 2; k <= 9; k++) v[k, n] = $k }
	END { for (k = 2; k <= 9; k++) { for (i = 1; i <= n; i++) a[i] = v[k, i]; m[k] = median(a, n) }
		printf "%-5s %12.1f %12.1f %12.1f %10.1f %10.1f %10.2f %10.1f\n", "median", m[2], m[3], m[4], m[5], m[6], m[7], m[8] }' \
	"$work/rounds"
