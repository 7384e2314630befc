#!/bin/bash
# tests/e2e/test-probe-sim.sh - mtx report hb and mtx probe-effect on the
# hand-worked fixtures tests/fixtures/probe-*.sql (each says at its top
# what must come out, worked out by hand): every happened-before rule, a
# mutex race that removing the overhead flips (divergent, exit 3) and does
# not flip without it (equal, exit 0), seed 004 Fig. 8's inversion that is
# no divergence, the trustworthy prefix's span, --window, the results kept
# in run.db (G^S's edges too), old and read-only files, and bad input. No perf needed: the fixtures are made by tests/fixture-db.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 (the CLI) is not installed"
cd "$TMP" || exit 1
for f in hb-rules mutex-flip fig8 up-prio t0; do
	"$BUILDDIR/tests/fixture-db" "$srcdir/tests/fixtures/probe-$f.sql" $f.db || { fail "fixture-db $f"; finish; }
done

# json FILE KEY - the number or string after "KEY": in FILE (first one).
json() { grep -o "\"$2\": [^,}]*" "$1" | head -1 | sed -e 's/^[^:]*: //' -e 's/"//g'; }

# expect_json FILE KEY VALUE WHAT
expect_json() {
	local got
	got=$(json "$1" "$2")
	[ "$got" = "$3" ] && pass "$4: $2 = $3" || fail "$4: $2 is '$got', not '$3'"
}

# --- G^I: every edge rule of SEEDS-MAP P3, as worked out by hand
"$MTX" report hb-rules.db hb --format csv > hb.csv 2> hb.err || fail "report hb --format csv: $(cat hb.err)"
awk -F, 'NR > 1 && $11 != "program" && $11 != "" { print $1 "," $2 "," $9 "," $10 "," $11 }' hb.csv | sort > edges.got
sort "$srcdir/tests/fixtures/reports/probe-hb-edges.txt" > edges.want
if diff -u edges.want edges.got > edges.diff; then
	pass "report hb: the edges of each rule (trylock, broadcast, barrier, rwlock, sem, create/join, kill)"
else
	fail "report hb edges differ from reports/probe-hb-edges.txt:"; cat edges.diff
fi
[ "$(awk -F, 'NR > 1 && $11 == "program"' hb.csv | wc -l)" = 24 ] && pass "report hb: 24 program-order edges" ||
	fail "report hb: $(awk -F, 'NR > 1 && $11 == "program"' hb.csv | wc -l) program-order edges, not 24"
"$MTX" report hb-rules.db hb --format json > hb.json && expect_json hb.json edges 53 "report hb --format json"
"$MTX" report hb-rules.db hb --thread tb > hb-tb.txt || fail "report hb --thread tb"
[ "$(grep -c '^tb#' hb-tb.txt)" = 3 ] && ! grep -q '^ta#' hb-tb.txt && pass "report hb --thread tb: its 3 events" ||
	fail "report hb --thread tb: $(cat hb-tb.txt)"
grep -A1 '^tb#1 ' hb-tb.txt | tr -s ' ' | tr '\n' '|' | grep -q '^tb#1 602 trylock mutex 0xa000 fail 0.000020| <- ta#1 (held)|$' &&
	pass "report hb: a failed trylock, after the lock that held it" ||
	fail "report hb: tb#1 is not a failure after ta#1: $(grep -A1 '^tb#1' hb-tb.txt)"
"$MTX" report hb-rules.db hb --format dot > hb.dot && grep -q '^digraph hb {' hb.dot && grep -q 'label="signal"' hb.dot &&
	pass "report hb --format dot" || fail "report hb --format dot: $(head -3 hb.dot)"
# Nothing removed, every thread on a CPU of its own: the simulation must
# replay the observed order exactly.
"$MTX" probe-effect hb-rules.db --format json > rules.json
status=$?
[ $status = 0 ] && expect_json rules.json verdict equal "rules, nothing removed" && expect_json rules.json inversions 0 "rules" ||
	fail "probe-effect on the rules fixture exited $status: $(cat rules.json)"
# Equal, so G^S's edges kept in the file are G^I's, rule for rule.
sql hb-rules.db "SELECT to_tid || ',' || to_k || ',' || from_tid || ',' || from_k || ',' || kind FROM sim_edges
	WHERE model = 'smp' AND kind != 'program'" | sort > sim-edges.got
if diff -u edges.want sim-edges.got > sim-edges.diff &&
	[ "$(sql hb-rules.db "SELECT COUNT(*), SUM(observed) FROM sim_edges WHERE model = 'smp'")" = "53|53" ]; then
	pass "rules: sim_edges holds the 53 edges of G^S = G^I, each observed"
else
	fail "rules: sim_edges differs from reports/probe-hb-edges.txt:"; cat sim-edges.diff
fi

# --- two threads, one mutex, an overhead that decided the order
"$MTX" probe-effect mutex-flip.db --format json > flip.json 2> flip.err
status=$?
[ $status = 3 ] && pass "flip: exit 3 (divergent)" || fail "flip: exit $status, not 3: $(cat flip.err)"
expect_json flip.json verdict divergent flip
expect_json flip.json tid 100 "flip first_divergent"
expect_json flip.json k 1 "flip first_divergent"
expect_json flip.json op lock "flip first_divergent"
expect_json flip.json object_addr 4096 "flip first_divergent"
expect_json flip.json observed_ns 1000201000 "flip first_divergent"
expect_json flip.json simulated_ns 1000100000 "flip first_divergent"
expect_json flip.json trustworthy_events 0 "flip first_divergent"
expect_json flip.json overhead_removed_ns 80000 flip
"$MTX" probe-effect mutex-flip.db > flip.txt; status=$?
wide=$(awk 'length > 80' flip.txt)
[ -z "$wide" ] && pass "flip: text fits 80 columns" || fail "flip: text wider than 80 columns: $wide"
[ $status = 3 ] && grep -q '^Verdict: G^S != G^I from event #1 ' flip.txt &&
	grep -q '^ *1 worker-b#1 lock 0x1000 *1 worker-a#1 lock 0x1000  <- e_d$' flip.txt &&
	grep -q '^  No event before it' flip.txt &&
	pass "flip: text verdict and the orders side by side" || fail "flip text: $(cat flip.txt)"
"$MTX" probe-effect mutex-flip.db --format dot > flip.dot; status=$?
[ $status = 3 ] && grep -q 'I3 -> I0 \[label="lock", color=red' flip.dot && grep -q 'S1 -> S2 \[label="lock", color=red' flip.dot &&
	pass "flip: dot marks the differing edges red" || fail "flip dot: $(cat flip.dot)"
[ "$(sql mutex-flip.db "SELECT verdict, e_d_tid, e_d_k, prefix_events FROM probe_effect WHERE model = 'smp'")" = "divergent|100|1|0" ] &&
	[ "$(sql mutex-flip.db "SELECT COUNT(*), SUM(order_sim IS NOT NULL) FROM sim_events WHERE model = 'smp'")" = "4|4" ] &&
	pass "flip: results kept in probe_effect and sim_events" || fail "flip: results not kept: $(sql mutex-flip.db 'SELECT * FROM probe_effect')"
# G^S as the fixture works it out: a#1 -> a#2, a#2 -> b#1 (b takes M after
# a's unlock), b#1 -> b#2; only the lock edge is not in G^I.
got=$(sql mutex-flip.db "SELECT from_tid, from_k, to_tid, to_k, kind, observed FROM sim_edges WHERE model = 'smp'
	ORDER BY to_tid, to_k, from_tid, from_k" | tr '\n' ' ')
want="100|1|100|2|program|1 100|2|101|1|lock|0 101|1|101|2|program|1 "
[ "$got" = "$want" ] && pass "flip: sim_edges holds G^S, the lock edge marked as not observed" ||
	fail "flip: sim_edges is '$got', not '$want'"
got=$(sql mutex-flip.db "SELECT json_extract(params, '$.model'), json_extract(params, '$.cpus'),
	json_extract(params, '$.overhead_removed_ns') FROM probe_effect WHERE model = 'smp'")
[ "$got" = "smp|2|80000" ] && pass "flip: probe_effect.params names the model, its CPUs and the overhead removed" ||
	fail "flip: probe_effect.params gives '$got': $(sql mutex-flip.db 'SELECT params FROM probe_effect')"
# A run.db whose results predate sim_edges and params: both added, the
# other model's row kept.
cp mutex-flip.db older.db
sql older.db "ALTER TABLE probe_effect DROP COLUMN params; DROP TABLE sim_edges;
	INSERT INTO probe_effect (model, verdict, events, nr_cpus, prefix_events, inversions, overhead_removed_ns)
	VALUES ('up-prio', 'equal', 4, 1, 4, 0, 0)"
"$MTX" probe-effect older.db > /dev/null 2> older.err; status=$?
[ $status = 3 ] && [ ! -s older.err ] &&
	[ "$(sql older.db "SELECT model, params IS NULL FROM probe_effect ORDER BY model" | tr '\n' ' ')" = "smp|0 up-prio|1 " ] &&
	[ "$(sql older.db "SELECT COUNT(*) FROM sim_edges WHERE model = 'smp'")" = 3 ] &&
	pass "older results: params and sim_edges added, the other model's row kept" ||
	fail "older results: exit $status: $(cat older.err) $(sql older.db 'SELECT model, params FROM probe_effect')"
"$MTX" probe-effect mutex-flip.db --simulate-only --format csv > flip.csv; status=$?
# the simulated timeline worked out in the fixture: a#1 100, a#2 130, b#1 150, b#2 200 us
want="1,3,100,1,1000100000 2,4,100,2,1000130000 3,1,101,1,1000150000 4,2,101,2,1000200000"
got=$(awk -F, 'NR > 1 { printf "%s%s,%s,%s,%s,%s", sep, $1, $2, $3, $4, $12; sep = " " }' flip.csv)
[ $status = 0 ] && [ "$got" = "$want" ] && pass "flip: --simulate-only csv, the simulated order and times" ||
	fail "flip --simulate-only (exit $status): got '$got', want '$want'"

# A trustworthy prefix: worker-b first inits two mutexes, at 10 us and at
# 20 us, the second's wrapper adding 5 us. Simulated, they happen at 10
# and 15 us, before a#1 at 100 us, which is still e_d (#3); b's lock asks
# at 145 us, after a's unlock at 130. So: #1-#2 trustworthy, simulated
# 10-15 us, observed 10-20 us.
cp mutex-flip.db prefix.db
sql prefix.db "INSERT INTO sync_objects (id, kind, addr, pid, created_ns, destroyed_ns) VALUES
		(2, 'mutex', 8192, 100, 1000010000, NULL), (3, 'mutex', 12288, 100, 1000020000, NULL);
	INSERT INTO sync_ops (id, tid, object_id, op, start_ns, end_ns, blocked, wait_ns, result, arg, holder_tid,
		overhead_ns, injected_ns) VALUES
		(5, 101, 2, 'init', 1000010000, 1000010000, 0, 0, 0, NULL, NULL, 0, 0),
		(6, 101, 3, 'init', 1000020000, 1000020000, 0, 0, 0, NULL, NULL, 5000, 0)"
"$MTX" probe-effect prefix.db --format json > prefix.json; status=$?
got=$(grep -o '"trustworthy": {[^}]*}' prefix.json)
want='"trustworthy": {"events": 2, "from_ns": 1000010000, "to_ns": 1000015000, "observed_from_ns": 1000010000, "observed_to_ns": 1000020000}'
[ $status = 3 ] && [ "$got" = "$want" ] && expect_json prefix.json trustworthy_events 2 prefix &&
	expect_json prefix.json order_sim 3 prefix && pass "prefix: the trustworthy span in JSON" ||
	fail "prefix: exit $status, got '$got', want '$want'"
"$MTX" probe-effect prefix.db > prefix.txt
grep -q '^  Events #1-#2 are trustworthy: simulated 0.000010-0.000015 s,$' prefix.txt &&
	grep -q '^  observed 0.000010-0.000020 s. From #3 on the program may take$' prefix.txt &&
	pass "prefix: the trustworthy span in text" || fail "prefix text: $(cat prefix.txt)"
# --window 150us-250us: observed, b#3 (150), b#4 (200), a#1 (201), a#2
# (231), #3-#6 of the observed order; simulated, only b#4 (195), #6.
"$MTX" probe-effect prefix.db --window 0.00015s-250us > window.txt; status=$?
want="    # instrumented (I)                     # simulated (S)
    3 worker-b#3 lock 0x1000
    4 worker-b#4 unlock 0x1000
    5 worker-a#1 lock 0x1000
    6 worker-a#2 unlock 0x1000             6 worker-b#4 unlock 0x1000"
got=$(sed -n '/^ *# instrumented/,/^$/p' window.txt | sed '$d')
[ $status = 3 ] && [ "$got" = "$want" ] && pass "--window: each order's events within it, by their own run's times" ||
	fail "--window (exit $status): got
$got"
# The two inits only (10 and 20 us observed, 10 and 15 simulated): nodes
# 2 and 3 in each graph, the program-order edge between them.
"$MTX" probe-effect prefix.db --window 10us-20us --format dot > window.dot; status=$?
[ $status = 3 ] && [ "$(grep -c '^    [IS][0-9]* \[label=' window.dot)" = 4 ] &&
	grep -q '^    I2 -> I3 ' window.dot && grep -q '^    S2 -> S3 ' window.dot &&
	grep -q '^// G^I and G^S (mtx probe-effect): the events that happened from 0.000010 s to 0.000020 s$' window.dot &&
	pass "--window --format dot: the events within it" || fail "--window dot (exit $status): $(cat window.dot)"
"$MTX" probe-effect prefix.db --window 1e-5s-2e-5 --format dot | cmp -s - window.dot &&
	pass "--window 1e-5s-2e-5: the dash between the times, not in them" || fail "--window 1e-5s-2e-5 differs from 10us-20us"
# Equal, with a window: the orders side by side all the same.
"$MTX" probe-effect fig8.db --window 40us-60us > window-eq.txt; status=$?
[ $status = 0 ] && grep -q '^ *1 philo-4#1 lock 0x7100$' window-eq.txt && grep -q '^ *2 philo-4#2 unlock 0x7100$' window-eq.txt &&
	[ "$(grep -c 'philo-' window-eq.txt)" = 2 ] && pass "--window on an equal run: the orders side by side" ||
	fail "--window on fig8 (exit $status): $(cat window-eq.txt)"
# Bad windows: one line, exit 2.
for w in abc 2s-1s 1s- -1s-2s 5ms-6ms; do
	"$MTX" probe-effect prefix.db --window "$w" > bad.out 2> bad.err; status=$?
	[ $status = 2 ] && [ "$(wc -l < bad.err)" = 1 ] && [ ! -s bad.out ] && pass "--window $w: one line, exit 2" ||
		fail "--window $w: exit $status: $(cat bad.out bad.err)"
done
grep -q 'no event happened in it; they did from 0.000010 s to 0.000231 s' bad.err &&
	pass "--window beyond the run says when the events happened" || fail "--window 5ms-6ms: $(cat bad.err)"

# Equal: every event is trustworthy (fig8's times, worked out in its fixture).
"$MTX" probe-effect fig8.db --format json > fig8-span.json
want='"trustworthy": {"events": 4, "from_ns": 3000045000, "to_ns": 3000120000, "observed_from_ns": 3000105000, "observed_to_ns": 3000120000}'
[ "$(grep -o '"trustworthy": {[^}]*}' fig8-span.json)" = "$want" ] && pass "fig8: equal, all four events trustworthy, their span" ||
	fail "fig8 span: $(cat fig8-span.json)"
"$MTX" probe-effect mutex-flip.db --format json > flip-span.json
want='"trustworthy": {"events": 0, "from_ns": null, "to_ns": null, "observed_from_ns": null, "observed_to_ns": null}'
[ "$(grep -o '"trustworthy": {[^}]*}' flip-span.json)" = "$want" ] && pass "flip: no trustworthy event, no span" ||
	fail "flip span: $(cat flip-span.json)"

# The same run with no overhead recorded: the observed order stands.
cp mutex-flip.db none.db
sql none.db "UPDATE sync_ops SET overhead_ns = NULL, injected_ns = NULL; DROP TABLE probe_effect; DROP TABLE sim_events;
	DROP TABLE sim_edges"
"$MTX" probe-effect none.db --format json > none.json; status=$?
[ $status = 0 ] && expect_json none.json verdict equal "no overhead" && expect_json none.json inversions 0 "no overhead" ||
	fail "no overhead: exit $status: $(cat none.json)"
# An old run.db, without the columns at all, and read-only: still read, nothing written.
cp mutex-flip.db old.db
sql old.db "ALTER TABLE sync_ops RENAME TO x; CREATE TABLE sync_ops AS SELECT id, tid, object_id, op, start_ns,
	end_ns, blocked, wait_ns, result, arg, callsite, holder_tid, hold_ns, stack_id, unfinished FROM x;
	DROP TABLE x; DROP TABLE probe_effect; DROP TABLE sim_events; DROP TABLE sim_edges"
chmod 444 old.db
before=$(md5sum < old.db)
"$MTX" probe-effect old.db > old.txt 2> old.err; status=$?
[ $status = 0 ] && grep -q '^  before mtx measured it), so the simulation removed nothing$' old.txt && [ "$(wc -l < old.err)" = 1 ] &&
	grep -q 'read-only' old.err && [ "$(md5sum < old.db)" = "$before" ] &&
	pass "old, read-only run.db: equal, says nothing was removed, a one-line note, file unchanged" ||
	fail "old run.db: exit $status: $(cat old.txt old.err)"

# --- seed 004 Fig. 8: the timestamp order changes, the partial order does not
for model in smp up-prio; do
	"$MTX" probe-effect fig8.db --model $model --format json --inversions > fig8-$model.json; status=$?
	[ $status = 0 ] && expect_json fig8-$model.json verdict equal "fig8 $model" &&
		expect_json fig8-$model.json inversions 1 "fig8 $model" ||
		fail "fig8 $model: exit $status: $(cat fig8-$model.json)"
done
grep -q '"inversion_pairs": \[\[{"tid": 702, "k": 1}, {"tid": 704, "k": 2}\]\]' fig8-smp.json &&
	pass "fig8: the inverted pair is philo-2#1, philo-4#2" || fail "fig8 pairs: $(cat fig8-smp.json)"

# --- seed 004's model: one CPU, priorities, preemption (thread_sched)
"$MTX" probe-effect up-prio.db --model up-prio --simulate-only --format csv > up.csv; status=$?
want="1,801,1,4000110000 2,801,2,4000115000 3,802,1,4000150000 4,802,2,4000160000"
got=$(awk -F, 'NR > 1 { printf "%s%s,%s,%s,%s", sep, $1, $3, $4, $12; sep = " " }' up.csv)
[ $status = 0 ] && [ "$got" = "$want" ] && pass "up-prio: high preempts low at its input, as observed" ||
	fail "up-prio timeline (exit $status): got '$got', want '$want'"
"$MTX" probe-effect up-prio.db --model up-prio > /dev/null; status=$?
[ $status = 0 ] && pass "up-prio: equal with nothing removed" || fail "up-prio: exit $status, not 0"
sql up-prio.db "UPDATE sync_ops SET overhead_ns = 60000 WHERE id = 3"
"$MTX" probe-effect up-prio.db --model up-prio --format json > up.json; status=$?
[ $status = 3 ] && expect_json up.json tid 802 "up-prio, 60 us removed" && expect_json up.json simulated_ns 4000070000 "up-prio" &&
	expect_json up.json model_fits true "up-prio" || fail "up-prio with overhead: exit $status: $(cat up.json)"

# --- T_0 and the scheduler's cost: an interrupt at its time, a wait that
# another process ended at its instant, 10 us a switch (see the fixture)
"$MTX" probe-effect t0.db --model up-prio --simulate-only --format csv > t0.csv; status=$?
want="1,902,1,5000715000 2,902,2,5000718000 3,901,1,5001050000 4,901,2,5001060000"
got=$(awk -F, 'NR > 1 { printf "%s%s,%s,%s,%s", sep, $1, $3, $4, $12; sep = " " }' t0.csv)
[ $status = 0 ] && [ "$got" = "$want" ] && pass "T_0: the interrupt, the writer's instant and the switches, as worked out" ||
	fail "T_0 timeline (exit $status): got '$got', want '$want'"
"$MTX" probe-effect t0.db --model up-prio > t0.txt; status=$?
[ $status = 0 ] && grep -q '^T_0: 1 interrupt took 100.00 us from the threads,$' t0.txt && grep -q 'a context switch costs 10.0 us' t0.txt &&
	grep -q '^  1 wait that another process or a device ended ends at its observed time$' t0.txt &&
	pass "T_0: equal, and the output says what T_0 held" || fail "T_0 (exit $status): $(head -6 t0.txt)"

# --- a generated run of 100 000 events (50 threads on 4 CPUs, locks, cond
# waits, semaphores): each model gives a verdict, no crash. A cond wait
# that released its mutex woke a waiter that preempted the waiting thread
# inside its own function, which then blocked while on the ready list.
"$BUILDDIR/bench/gen-rundb" gen.db 100000 > gen.out 2>&1 || fail "gen-rundb: $(tail -1 gen.out)"
for model in smp up-prio; do
	"$MTX" probe-effect gen.db --model $model --format json > gen.json 2> gen.err; status=$?
	{ [ $status = 0 ] || [ $status = 3 ]; } && grep -q '"verdict"' gen.json &&
		pass "generated run, $model: a verdict (exit $status)" ||
		fail "generated run, $model: exit $status: $(head -1 gen.err)"
done

# --- bad input: one line, exit 1; bad command lines: exit 2
printf '' > empty.sql
"$BUILDDIR/tests/fixture-db" empty.sql empty.db
cp mutex-flip.db nosync.db && sql nosync.db "DELETE FROM sync_ops"
echo "not a database" > notdb.db
for f in empty nosync notdb missing; do
	"$MTX" probe-effect $f.db > bad.out 2> bad.err; status=$?
	[ $status = 1 ] && [ "$(wc -l < bad.err)" = 1 ] && [ ! -s bad.out ] && pass "bad input $f: one line, exit 1" ||
		fail "bad input $f: exit $status: $(cat bad.out bad.err)"
done
for args in "--model cfs" "--format xml" "--simulate-only --format dot" "a.db b.db" "--bogus" \
	"--window 1s-2s --format json" "--window 1s-2s --simulate-only" "--window"; do
	# shellcheck disable=SC2086
	"$MTX" probe-effect $args > bad.out 2> bad.err; status=$?
	[ $status = 2 ] && pass "bad command line '$args': exit 2" || fail "bad command line '$args': exit $status"
done
"$MTX" report hb-rules.db hb --format xml > /dev/null 2>&1; status=$?
[ $status = 2 ] && pass "report hb --format xml: exit 2" || fail "report hb --format xml: exit $status"
finish
