#!/bin/bash
# mtx report NAME --compare BASE: two runs of philosophers, 5 x 40 and
# 5 x 80 meals, whose threads count their own sync calls (samples/
# selfcheck.h): the sync report's rows, matched by thread name, kind and op
# (the tids differ), give both runs' counts, each the program's own, and
# the change between them, within what the meals allow for the forks'
# locks; a run compared with itself changes nothing; what cannot be
# compared is refused.
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1

# run N MEALS - philosophers 5 MEALS into N.db, its own counts in N.sc
run() {
	MTX_SELFCHECK=$TMP/$1.sc "$MTX" collect -q -o "$1.db" -- "$SAMPLES/philosophers" 5 "$2" > "$1.out" 2> "$1.err" ||
		fail "collect $1: $(head -1 "$1.err")"
	cp "$1.db" "$1-sc.db" && import_selfcheck "$1.sc" "$1-sc.db"
}
run base 40
run new 80
cmp -s base.out <("$SAMPLES/philosophers" 5 40) || fail "philosophers' output differs under mtx"

"$MTX" report new.db sync --compare base.db --format csv > sync.csv 2> err.txt ||
	fail "report sync --compare: $(head -1 err.txt)"
[ "$(head -1 sync.csv)" = "name,kind,op,base_calls,calls,calls_change_pct,base_blocking,blocking,blocking_change_pct,base_wait_ns,wait_ns,wait_change_pct,base_max_wait_ns,max_wait_ns,max_wait_change_pct" ] &&
	pass "sync --compare: base_ and change columns for each figure" || fail "sync --compare's header: $(head -1 sync.csv)"
# the programs' own counts per thread name, kind and op
counts() {
	sql "$1-sc.db" "SELECT t.name || ',' || s.kind || ',' || s.op || ',' || SUM(s.count) FROM sc_op s
		JOIN (SELECT DISTINCT tid, name FROM threads) t ON t.tid = s.tid GROUP BY t.name, s.kind, s.op"
}
counts base | sort > base.counts
counts new | sort > new.counts
join -t, -j1 <(awk -F, '{ print $1 ":" $2 ":" $3 "," $4 }' base.counts | sort) \
	<(awk -F, '{ print $1 ":" $2 ":" $3 "," $4 }' new.counts | sort) > want.txt
checked=0 bad=0
while IFS=, read -r key was now; do
	IFS=: read -r name kind op <<< "$key"
	row=$(awk -F, -v n="$name" -v k="$kind" -v o="$op" '$1 == n && $2 == k && $3 == o { print $4 "," $5 "," $6 }' sync.csv)
	change=$(awk -v a="$was" -v b="$now" 'BEGIN { if (a) printf "%.4f", 100 * (b - a) / a }')
	checked=$((checked + 1))
	# the change to 0.1 (a half rounds either way)
	if ! awk -F, -v a="$was" -v b="$now" -v c="$change" '{ exit !($1 == a && $2 == b &&
		(c == "" ? $3 == "" : $3 != "" && $3 - c <= 0.0501 && c - $3 <= 0.0501)) }' <<< "$row"; then
		bad=$((bad + 1))
		echo "  $name $kind $op: the program's $was and $now ($change%), the report's '$row'"
	fi
done < want.txt
[ "$checked" -ge 10 ] && [ "$bad" = 0 ] && pass "sync --compare: $checked rows, both runs' counts the programs' own" ||
	fail "sync --compare: $bad of $checked rows differ from the programs' counts"
locks=$(awk -F, '$1 ~ /^philo-/ && $2 == "mutex" && $3 == "lock" { print $6 }' sync.csv | sort -n | tr '\n' ' ')
# a meal is one lock, and a second when the trylock of the other fork
# fails: 40 to 80 locks in the base run, 80 to 160 in the new one, a
# change of 0% to +300% whatever the contention (it was +68.6% to +155.6%
# in one run, +50% to +150% in most)
awk -v l="$locks" 'BEGIN { n = split(l, v, " "); for (i = 1; i <= n; i++) if (v[i] < 0 || v[i] > 300) exit 1; exit n != 5 }' &&
	pass "sync --compare: each philosopher's locks up by 0% to 300%, as its meals allow: $locks" ||
	fail "sync --compare: the philosophers' lock changes are '$locks'"

# a run against itself: every change 0 or none, both columns the same
"$MTX" report new.db threads --compare new.db --format csv > self.csv 2> err.txt
bad=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[i] = $i; next }
	{ for (i = 1; i <= NF; i++) if (h[i] ~ /_change_pct$/ && $i != "" && $i != "0.0") n++ } END { print n + 0 }' self.csv)
[ "$bad" = 0 ] && [ "$(wc -l < self.csv)" -ge 6 ] && pass "threads --compare with itself: no change" ||
	fail "threads --compare with itself: $bad changes"

# refused: one line, exit 2
for args in "new.db waits --compare base.db" "new.db sync --compare base.db --thread philo-0" \
	"new.db sync --compare nosuch.db"; do
	# shellcheck disable=SC2086
	"$MTX" report $args > bad.out 2> bad.err
	st=$?
	[ $st = 2 ] && [ ! -s bad.out ] && [ "$(grep -c '^mtx: ' bad.err)" = 1 ] && pass "refused: $(head -1 bad.err)" ||
		fail "report $args: exit $st, $(head -2 bad.err | tr '\n' ' ')"
done
finish
