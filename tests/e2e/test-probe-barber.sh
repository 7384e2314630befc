#!/bin/bash
# tests/e2e/test-probe-barber.sh - mtx probe-effect on seed 004's sleeping
# barber with 1 chair (Fig. 10), tests/fixtures/probe-barber.sql: a
# one-CPU run by priority whose simulated timelines, orders, G^S and
# verdicts are worked out by hand in the fixture's header, and checked here
# against that work, not against what mtx printed once:
#  - 35 us removed from customer-2's first op: he reaches the waiting
#    room's mutex while customer-1 is still in the chair, before the
#    barber is up: divergent (exit 3) at customer-2#1, 4 events
#    trustworthy; the whole simulated order, its times (up-prio), G^I's
#    and G^S's edges, and the results kept in run.db;
#  - 10 us removed: the order stays (up-prio: equal, exit 0, the times);
#  - nothing removed: up-prio gives back the observed run, every event at
#    its observed time.
# --model smp on the same one CPU must give the same orders and verdicts
# (SEEDS-MAP P4: each CPU runs the highest-priority ready thread). What it
# gets wrong today is in test-probe-smp-priority.sh (an expected failure).
# No perf needed: the fixture is made by tests/fixture-db.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 (the CLI) is not installed"
cd "$TMP" || exit 1
"$BUILDDIR/tests/fixture-db" "$srcdir/tests/fixtures/probe-barber.sql" barber.db || { fail "fixture-db"; finish; }

# in_edges FILE WHICH - first_divergent's edges_WHICH in FILE: "tid#k:kind".
in_edges() {
	sqlite3 -batch :memory: "SELECT group_concat(e, ' ') FROM (SELECT json_extract(value, '\$.tid') || '#' ||
		json_extract(value, '\$.k') || ':' || json_extract(value, '\$.kind') AS e
		FROM json_each(readfile('$1'), '\$.first_divergent.edges_$2') ORDER BY e)"
}

# expect WHAT GOT WANT
expect() {
	[ "$2" = "$3" ] && pass "$1: $3" || fail "$1: got '$2', want '$3'"
}

# short TID - the fixture's threads as the header names them.
SHORT='function short(t) { return t == 901 ? "B" : t == 911 ? "C1" : t == 912 ? "C2" : t }'

# timeline DB MODEL - the simulated order, each event "C2#1@145" (us from
# the run's start), from --simulate-only --format csv; "order" without
# the times. Fails unless mtx exits 0 and numbers the rows 1, 2, ...
timeline() {
	local status
	"$MTX" probe-effect "$1" --model "$2" --simulate-only --format csv > "$1.$2.csv" 2> "$1.$2.err"
	status=$?
	[ $status = 0 ] || fail "$1 --model $2 --simulate-only: exit $status: $(head -1 "$1.$2.err")"
	awk -F, -v times="${3:-times}" "$SHORT"'
		NR > 1 { if ($1 != NR - 1) bad = 1
			 printf "%s%s#%s", sep, short($3), $4; sep = " "
			 if (times == "times") printf "@%d", ($12 - 5000000000) / 1000 }
		END { if (bad) print " (order_sim not 1, 2, ...)" }' "$1.$2.csv"
}

# edges DB MODEL I|S - the edges of G^I or G^S other than program order,
# from --format dot (all 16 events are in its window): "C1#3>C2#1" sorted.
edges() {
	"$MTX" probe-effect "$1" --model "$2" --format dot > "$1.$2.dot" 2> /dev/null
	awk -v g="$3" "$SHORT"'
		$0 ~ "^ *" g "[0-9]+ \\[label=\"" {
			split($0, a, "\""); split(a[2], b, "\\\\n"); id = $1
			split(b[1], nk, "#"); name = nk[1]
			t = name == "barber" ? 901 : name == "customer-1" ? 911 : name == "customer-2" ? 912 : name
			node[id] = short(t) "#" nk[2] }
		$0 ~ "^ *" g "[0-9]+ -> " g "[0-9]+ " && $0 !~ /label="program"/ {
			print node[$1] ">" node[$3] }' "$1.$2.dot" | sort | tr '\n' ' ' | sed 's/ $//'
}

# The hand-worked results (the fixture's header).
OBS_ORDER="C1#1 C1#2 B#1 C1#3 B#2 B#3 C1#4 B#4 C2#1 C2#2 B#5 C2#3 B#6 B#7 C2#4 B#8"
OBS_TIMES="C1#1@105 C1#2@110 B#1@110 C1#3@120 B#2@170 B#3@175 C1#4@175 B#4@180 C2#1@300 C2#2@305 B#5@305 C2#3@315 B#6@365 B#7@370 C2#4@370 B#8@375"
GI_EDGES="B#3>C1#4 B#4>C2#1 B#7>C2#4 C1#2>B#1 C1#3>B#2 C2#2>B#5 C2#3>B#6"
FLIP_TIMES="C1#1@105 C1#2@110 B#1@110 C1#3@120 C2#1@145 C2#2@150 C2#3@155 B#2@170 B#3@175 C1#4@175 B#4@180 B#5@280 B#6@340 B#7@345 C2#4@345 B#8@350"
FLIP_ORDER=$(echo "$FLIP_TIMES" | sed 's/@[0-9]*//g')
GS_EDGES="B#3>C1#4 B#4>B#6 B#7>C2#4 C1#2>B#1 C1#3>C2#1 C2#2>B#5 C2#3>B#2"
KEEP_TIMES="C1#1@105 C1#2@110 B#1@110 C1#3@120 B#2@170 B#3@175 C1#4@175 B#4@180 C2#1@290 C2#2@295 B#5@295 C2#3@305 B#6@355 B#7@360 C2#4@360 B#8@365"

# --- 35 us removed from customer-2#1: seed 004's Fig. 10
for model in up-prio smp; do
	"$MTX" probe-effect barber.db --model $model --format json > flip-$model.json 2> flip-$model.err
	status=$?
	expect "flip $model: exit status" $status 3
	# customer-2 (912), k 1, sem_wait on mutex (0x9300), #5 simulated, at
	# 300 us observed and 145 us simulated, 4 events trustworthy
	expect "flip $model: verdict, first divergent event" "$(json_fields flip-$model.json '$.verdict' \
		'$.first_divergent.tid' '$.first_divergent.k' '$.first_divergent.op' '$.first_divergent.kind' \
		'$.first_divergent.object_addr' '$.first_divergent.order_sim' '$.first_divergent.observed_ns' \
		'$.first_divergent.simulated_ns' '$.first_divergent.trustworthy_events')" \
		"divergent 912 1 wait sem 37632 5 5000300000 5000145000 4"
	expect "flip $model: e_d's edges in G^I" "$(in_edges flip-$model.json observed)" "901#4:post"
	expect "flip $model: e_d's edges in G^S" "$(in_edges flip-$model.json simulated)" "911#3:post"
	expect "flip $model: overhead removed, inversions, model fits" \
		"$(json_fields flip-$model.json '$.overhead_removed_ns' '$.inversions' '$.model_fits')" "35000 0 1"
	expect "flip $model: simulated order" "$(timeline barber.db $model order)" "$FLIP_ORDER"
	expect "flip $model: G^I's edges" "$(edges barber.db $model I)" "$GI_EDGES"
	expect "flip $model: G^S's edges" "$(edges barber.db $model S)" "$GS_EDGES"
	# kept in run.db: the verdict, and each event's place in both orders
	expect "flip $model: probe_effect row" "$(sql barber.db "SELECT verdict, nr_cpus, e_d_tid, e_d_k, e_d_op_id, prefix_events,
		inversions, overhead_removed_ns FROM probe_effect WHERE model = '$model'")" "divergent|1|912|1|9|4|0|35000"
	got=$(sql barber.db "SELECT group_concat(e, ' ') FROM (SELECT CASE tid WHEN 901 THEN 'B' WHEN 911 THEN 'C1'
		ELSE 'C2' END || '#' || k AS e FROM sim_events WHERE model = '$model' ORDER BY order_sim)")
	expect "flip $model: sim_events by order_sim" "$got" "$FLIP_ORDER"
	got=$(sql barber.db "SELECT group_concat(e, ' ') FROM (SELECT CASE tid WHEN 901 THEN 'B' WHEN 911 THEN 'C1'
		ELSE 'C2' END || '#' || k AS e FROM sim_events WHERE model = '$model' ORDER BY order_obs)")
	expect "flip $model: sim_events by order_obs" "$got" "$OBS_ORDER"
done
expect "flip up-prio: simulated timeline" "$(timeline barber.db up-prio)" "$FLIP_TIMES"
"$MTX" probe-effect barber.db --model up-prio > flip.txt
grep -q '^Verdict: G^S != G^I from event #5 ' flip.txt && grep -q '^  Events #1-#4 are trustworthy' flip.txt &&
	pass "flip up-prio: the text verdict" || fail "flip up-prio text: $(cat flip.txt)"

# --- 10 us removed: customer-2 still comes after the barber took the unit
cp barber.db keep.db
sql keep.db "UPDATE sync_ops SET overhead_ns = 10000 WHERE id = 9"
"$MTX" probe-effect keep.db --model up-prio --format json > keep.json; status=$?
expect "keep up-prio: exit status, verdict, inversions, overhead removed" \
	"$status $(json_fields keep.json '$.verdict' '$.inversions' '$.overhead_removed_ns')" "0 equal 0 10000"
expect "keep up-prio: simulated timeline" "$(timeline keep.db up-prio)" "$KEEP_TIMES"
expect "keep up-prio: G^S's edges" "$(edges keep.db up-prio S)" "$GI_EDGES"

# --- nothing removed: the observed run comes back
cp barber.db none.db
sql none.db "UPDATE sync_ops SET overhead_ns = NULL"
for model in up-prio smp; do
	"$MTX" probe-effect none.db --model $model --format json > none-$model.json; status=$?
	expect "none $model: exit status, verdict, inversions, model fits" \
		"$status $(json_fields none-$model.json '$.verdict' '$.inversions' '$.model_fits')" "0 equal 0 1"
	expect "none $model: simulated order" "$(timeline none.db $model order)" "$OBS_ORDER"
done
expect "none up-prio: simulated timeline (the observed one)" "$(timeline none.db up-prio)" "$OBS_TIMES"
finish
