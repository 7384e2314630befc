#!/bin/sh
# bench/sync-uprobe-cost.sh - what an uncontended pthread_mutex_lock +
# pthread_mutex_unlock pair costs under 'mtx collect -e sched,sync' with
# the uprobe fallback (a static program) and with libmtx-preload.so (the
# same loop linked dynamically), against both plain runs.
#
# Usage: bench/sync-uprobe-cost.sh [rounds=5] [pairs=200000]
# Run from the build tree, as root. Each round runs the four in a row; each
# run prints the median of 5 timed repetitions; this prints the medians
# over the rounds, the added ns per pair, and the records lost.
set -eu
. "$(dirname "$0")/lib.sh"
rounds=${1:-5}
pairs=${2:-200000}
MTX=${MTX:-./mtx}
DYN=${DYN:-./bench/lock-pairs}
STATIC=${STATIC:-./bench/lock-pairs-static}
for f in "$MTX" "$DYN" "$STATIC"; do
	[ -x "$f" ] || { echo "sync-uprobe-cost.sh: $f not found (build first)" >&2; exit 1; }
done
db=$(mktemp -u /tmp/mtx-bench-XXXXXX.db)
ns() { awk '/^ns_per_pair/ { print $2 }'; }
lost_of() { sqlite3 "$db" "SELECT COALESCE(SUM(value), 0) FROM meta WHERE key LIKE 'lost_%'"; }

pd=""; ps=""; tp=""; tu=""; lost=0
i=0
while [ "$i" -lt "$rounds" ]; do
	a=$("$DYN" "$pairs" 5 | ns)
	b=$("$STATIC" "$pairs" 5 | ns)
	c=$("$MTX" collect -q -e sched,sync -o "$db" -- "$DYN" "$pairs" 5 | ns)
	lost=$((lost + $(lost_of))); rm -f "$db" "$db.old"
	d=$("$MTX" collect -q -e sched,sync -o "$db" -- "$STATIC" "$pairs" 5 | ns)
	[ "$(sqlite3 "$db" "SELECT value FROM meta WHERE key = 'sync_method'")" = uprobes ] ||
		{ echo "sync-uprobe-cost.sh: the static loop was not traced with uprobes" >&2; exit 1; }
	lost=$((lost + $(lost_of))); rm -f "$db" "$db.old"
	printf 'round %d: plain %s / static %s ns/pair, preload %s, uprobes %s ns/pair\n' \
		"$((i + 1))" "$a" "$b" "$c" "$d"
	pd="$pd $a"; ps="$ps $b"; tp="$tp $c"; tu="$tu $d"
	i=$((i + 1))
done
mpd=$(printf '%s\n' $pd | median); mps=$(printf '%s\n' $ps | median)
mtp=$(printf '%s\n' $tp | median); mtu=$(printf '%s\n' $tu | median)
printf 'median: plain %s ns/pair (static: %s); preload %s ns/pair (+%s); uprobes %s ns/pair (+%s, %s x preload'"'"'s added cost); records lost %s\n' \
	"$mpd" "$mps" "$mtp" "$(echo "$mtp $mpd" | awk '{ printf "%.1f", $1 - $2 }')" \
	"$mtu" "$(echo "$mtu $mps" | awk '{ printf "%.1f", $1 - $2 }')" \
	"$(echo "$mtu $mps $mtp $mpd" | awk '{ printf "%.0f", ($1 - $2) / ($3 - $4) }')" "$lost"
