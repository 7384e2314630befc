#!/bin/bash
# tests/e2e/test-probe-effect.sh - mtx probe-effect (seed 004, issue 28)
# against what the programs themselves saw, each with its own oracle:
#  - ring (samples/ring.c), a token ring whose order is forced: at injected
#    overheads 0, 200us and 1ms its output, exit status and own order of
#    takes are those of a plain run, 'mtx report hb' has exactly the edges
#    the ring has by construction, the verdict is "equal" (exit 0), each
#    thread's ops carry the injected amount (sync_ops.injected_ns), and
#    'mtx report overhead' puts ops x 1ms more into each thread's
#    instr_time than in the run without injection (within 3%);
#  - race2 (samples/race2.c), race-a against race-b for mutex M: with
#    500us injected on race-a the program under mtx reports the winner it
#    reports plainly (race-a) and the verdict is "equal"; with 30ms on
#    race-a it reports race-b, and the verdict is "divergent" (exit 3) at
#    race-a's lock of M: first_divergent's tid is race-a's, its
#    object_addr M's (the program writes M's address itself);
#  - barber --leave (samples/barber.c): at injected overheads 0, 200us,
#    1ms and 10ms, when the verdict is "equal" the customers served, in
#    order, are those of the plain runs; when it is "divergent", where the
#    run's path parts from the plain runs' (the program logs each
#    customer's decision and each haircut under the room's mutex) is not
#    in the trustworthy prefix: the locks that decided the first
#    differing decisions are first_divergent's event or later in the
#    simulated total order (sim_events.order_sim).
# The races are decided by margins of several ms of CPU time; when the
# machine is so loaded that plain runs do not decide them as designed, the
# runs are retried, and as a last resort that part is skipped (exit 77 if
# nothing failed), never asserted on noise.
. "$(dirname "$0")/lib.sh"
require_perf
"$MTX" probe-effect --help > /dev/null 2>&1 || skip "this build has no 'mtx probe-effect' (issue 28)"
"$MTX" collect --help 2>&1 | grep -q -- --inject-overhead ||
	skip "this build's mtx collect has no --inject-overhead (issue 28)"
cd "$TMP" || exit 1
SKIPPED=""

# json FILE PATH - a value of the JSON object in FILE (empty when absent).
json() { sqlite3 -batch :memory: "SELECT json_extract(readfile('$1'), '$2')"; }

# whats SELFCHECK - the program's own events, in its order, one a line.
whats() {
	awk '$1 == "order" { for (i = 2; i <= NF; i++) if ($i ~ /^what=/) print substr($i, 6) }' "$1"
}

# ns DURATION - 200us, 1ms, 30ms in nanoseconds.
ns() {
	case $1 in
	*us) echo $((${1%us} * 1000)) ;;
	*ms) echo $((${1%ms} * 1000000)) ;;
	*) echo 0 ;;
	esac
}

# plain NAME PROGRAM ARGS... - run the program alone: NAME.out (stdout and
# stderr), NAME.status, NAME.sc (its self-check, order lines included).
plain() {
	local name=$1
	shift
	rm -f "$name.sc"
	MTX_SELFCHECK=$TMP/$name.sc "$@" > "$name.out" 2>&1
	echo $? > "$name.status"
}

# traced NAME INJECT PROGRAM ARGS... - the same under mtx collect, with
# --inject-overhead INJECT unless INJECT is 0, into NAME.db; then
# mtx probe-effect NAME.db --format json into NAME.json (NAME.pe: its exit
# status). mtx must say nothing (-q) and record everything.
traced() {
	local name=$1 inject=$2 opts=()
	shift 2
	[ "$inject" = 0 ] || opts=(--inject-overhead "$inject")
	rm -f "$name.sc" "$name.db"
	MTX_SELFCHECK=$TMP/$name.sc "$MTX" collect -q "${opts[@]}" -o "$name.db" -- "$@" > "$name.out" 2> "$name.err"
	echo $? > "$name.status"
	[ -s "$name.err" ] && fail "$name: mtx collect said: $(head -3 "$name.err")"
	[ -s "$name.db" ] || { fail "$name: no database"; return 1; }
	[ "$(sql "$name.db" "SELECT SUM(value) FROM meta WHERE key LIKE 'lost_%'")" = 0 ] ||
		fail "$name: records lost"
	"$MTX" probe-effect "$name.db" --format json > "$name.json" 2> "$name.pe.err"
	echo $? > "$name.pe"
	return 0
}

# verdict NAME - the verdict of NAME.json, checked against the exit status
# of mtx probe-effect (0 equal, 3 divergent); prints it.
verdict() {
	local v pe
	v=$(json "$1.json" '$.verdict' 2> /dev/null)
	pe=$(cat "$1.pe")
	case "$pe/$v" in
	0/equal | 3/divergent) ;;
	*) fail "$1: mtx probe-effect exited $pe with verdict '$v': $(head -2 "$1.pe.err")" ;;
	esac
	echo "$v"
}

# ---------------------------------------------------------------- ring
# ring_ops SELFCHECK - "tid,ops": the sync calls each thread counted itself.
ring_ops() {
	awk '$1 == "op" { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } n[v["tid"]] += v["count"] }
		END { for (t in n) print t "," n[t] }' "$1"
}

# instr_time DB - "tid,instr_time_ns" per thread from mtx report overhead
# (JSON: whichever section has rows with a tid and an instr_time column).
instr_time() {
	"$MTX" report "$1" overhead --format json > "$1.overhead.json" 2> "$1.overhead.err" ||
		{ fail "$1: mtx report overhead: $(head -1 "$1.overhead.err")"; return; }
	sqlite3 -batch :memory: "SELECT json_extract(r.value, '\$.tid') || ',' || c.value
		FROM json_each(readfile('$1.overhead.json')) s, json_each(s.value) r, json_each(r.value) c
		WHERE json_type(r.value) = 'object' AND json_extract(r.value, '\$.tid') IS NOT NULL
		AND c.key = 'instr_time_ns'"
}

# ring_edges DB N - G^I ('mtx report DB hb --format json') against the
# ring's edges, known by construction (SEEDS-MAP P3): program order; main's
# k-th create -> ring-<k>'s first event; ring-<i>'s wait of round r <- the
# post of ring-<i-1> in round r (ring-0's: ring-<N-1>'s in round r-1, main's
# start post in round 0); each ring thread's last event -> main's join of
# it. Exactly these, nothing missing or extra.
ring_edges() {
	local db=$1 n=$2 missing extra
	"$MTX" report "$db" hb --format json > "$db.hb.json" 2> "$db.hb.err" ||
		{ fail "$db: mtx report hb: $(head -1 "$db.hb.err")"; return; }
	sqlite3 -batch "$db.hb.db" <<SQL
ATTACH '$db' AS run;
CREATE TABLE v AS SELECT json_extract(x.value, '\$.tid') AS tid, json_extract(x.value, '\$.k') AS k,
	json_extract(x.value, '\$.op') AS op FROM json_each(readfile('$db.hb.json'), '\$.vertices') x;
CREATE TABLE got AS SELECT json_extract(e.value, '\$.from.tid') AS ftid, json_extract(e.value, '\$.from.k') AS fk,
	json_extract(x.value, '\$.tid') AS tid, json_extract(x.value, '\$.k') AS k, json_extract(e.value, '\$.kind') AS kind
	FROM json_each(readfile('$db.hb.json'), '\$.vertices') x, json_each(x.value, '\$.edges_in') e;
CREATE TABLE ring AS SELECT tid, CAST(substr(name, 6) AS INTEGER) AS i FROM run.threads WHERE name LIKE 'ring-%';
CREATE TABLE main AS SELECT tid FROM run.threads WHERE name = 'ring';
CREATE TABLE want(ftid, fk, tid, k, kind);
INSERT INTO want SELECT tid, k - 1, tid, k, 'program' FROM v WHERE k > 1;
INSERT INTO want SELECT m.tid, c.k, r.tid, 1, 'create' FROM main m, ring r,
	(SELECT k, ROW_NUMBER() OVER (ORDER BY k) - 1 AS i FROM v WHERE op = 'create') c WHERE c.i = r.i;
INSERT INTO want SELECT r.tid, (SELECT MAX(k) FROM v WHERE v.tid = r.tid), m.tid, j.k, 'exit' FROM main m, ring r,
	(SELECT k, ROW_NUMBER() OVER (ORDER BY k) - 1 AS i FROM v WHERE op = 'join') j WHERE j.i = r.i;
INSERT INTO want SELECT p.tid, CASE WHEN w.i > 0 THEN w.k + 1 ELSE w.k - 1 END, w.tid, w.k, 'post'
	FROM (SELECT r.tid, r.i, v.k FROM ring r JOIN v USING (tid) WHERE v.op = 'wait') w
	JOIN ring p ON p.i = (w.i + $n - 1) % $n WHERE NOT (w.i = 0 AND w.k = 1);
INSERT INTO want SELECT m.tid, (SELECT k FROM v WHERE v.tid = m.tid AND op = 'post'), r.tid, 1, 'post'
	FROM main m, ring r WHERE r.i = 0;
SQL
	missing=$(sql "$db.hb.db" "SELECT COUNT(*) FROM (SELECT * FROM want EXCEPT SELECT * FROM got)")
	extra=$(sql "$db.hb.db" "SELECT COUNT(*) FROM (SELECT * FROM got EXCEPT SELECT * FROM want)")
	if [ "$missing" = 0 ] && [ "$extra" = 0 ] && [ "$(sql "$db.hb.db" "SELECT COUNT(*) FROM want")" -gt 0 ]; then
		pass "$db: G^I has exactly the ring's edges ($(sql "$db.hb.db" "SELECT COUNT(*) FROM want"))"
	else
		fail "$db: G^I's edges differ from the ring's: $missing missing, $extra extra (from tid k, to tid k, kind):"
		sql "$db.hb.db" "SELECT 'missing', * FROM (SELECT * FROM want EXCEPT SELECT * FROM got) LIMIT 4"
		sql "$db.hb.db" "SELECT 'extra', * FROM (SELECT * FROM got EXCEPT SELECT * FROM want) LIMIT 4"
	fi
}

RING="$SAMPLES/ring"
RING_ARGS=(3 40 20)
plain ring.plain "$RING" "${RING_ARGS[@]}"
[ "$(cat ring.plain.status)" = 0 ] || fail "ring exited $(cat ring.plain.status) on its own"
whats ring.plain.sc > ring.plain.order
[ "$(wc -l < ring.plain.order)" = 120 ] || fail "ring logged $(wc -l < ring.plain.order) takes, not 3 x 40"

for inject in 0 200us 1ms; do
	name=ring-$inject
	traced "$name" "$inject" "$RING" "${RING_ARGS[@]}" || continue
	[ "$(cat "$name.status")" = "$(cat ring.plain.status)" ] ||
		fail "$name: exit status $(cat "$name.status") under mtx, $(cat ring.plain.status) without"
	cmp -s ring.plain.out "$name.out" || fail "$name: ring's output differs under mtx"
	whats "$name.sc" | cmp -s - ring.plain.order || fail "$name: ring's own order of takes differs"
	ring_edges "$name.db" 3
	v=$(verdict "$name")
	[ "$v" = equal ] && pass "$name: verdict equal, exit 0" || fail "$name: a forced order called '$v'"
	[ "$(json "$name.json" '$.events')" -ge 240 ] 2> /dev/null ||
		fail "$name: probe-effect saw $(json "$name.json" '$.events') events, not the ring's 240 and more"

	# The injected delay, on every op of every thread: what the program
	# counted x the amount (the wait is at least the amount, and within 3%).
	amount=$(ns "$inject")
	cp "$name.db" "$name.check.db"
	ring_ops "$name.sc" > "$name.ops.csv"
	sqlite3 -batch "$name.check.db" <<SQL
CREATE TABLE sc_ops(tid INTEGER, ops INTEGER);
.mode csv
.import $name.ops.csv sc_ops
SQL
	[ "$(sql "$name.check.db" "SELECT COUNT(*) FROM sc_ops")" = 4 ] ||
		fail "$name: ring reported the ops of $(sql "$name.check.db" "SELECT COUNT(*) FROM sc_ops") threads, not 4"
	bad=$(sql "$name.check.db" "SELECT COUNT(*) FROM sc_ops c WHERE NOT (
		(SELECT TOTAL(injected_ns) FROM sync_ops o WHERE o.tid = c.tid) BETWEEN c.ops * $amount AND c.ops * $amount * 1.03)")
	if [ "$bad" = 0 ]; then
		pass "$name: injected_ns is ops x $inject for each thread"
	else
		fail "$name: injected_ns differs from the program's ops x $inject for $bad threads"
		sql "$name.check.db" "SELECT c.tid, c.ops, (SELECT TOTAL(injected_ns) FROM sync_ops o WHERE o.tid = c.tid) FROM sc_ops c"
	fi
	instr_time "$name.db" | sed "s/^/$inject,/" >> ring.instr.csv
	sql "$name.db" "SELECT '$inject,' || tid || ',' || CAST(TOTAL(overhead_ns) AS INTEGER) FROM sync_ops GROUP BY tid" \
		>> ring.wrappers.csv
	sql "$name.check.db" "SELECT '$inject,' || t.name || ',' || c.ops || ',' || c.tid FROM sc_ops c JOIN threads t USING (tid)" >> ring.threads.csv
done

# instr_time grows by the injected ops x amount, per thread (matched by
# name), at 1ms: 3% of that (2.4 ms) also covers what else the wrapper
# measures, which a preemption inside it can swell by a time slice. The
# rest of instr_time, its kernel records' calibrated cost, grows too when
# the waits make the thread switch more: that part (instr_time less the
# wrappers' overhead_ns) is taken out, as in test-inject-overhead.sh (the
# main thread's 13 ms once grew 0.8 ms more on a loaded make check).
if [ ! -s ring.instr.csv ]; then
	fail "ring: mtx report overhead --format json gave no instr_time_ns per tid"
else
	sqlite3 -batch :memory: <<SQL > ring.instr.out
CREATE TABLE instr(inject TEXT, tid INTEGER, ns INTEGER);
CREATE TABLE wrappers(inject TEXT, tid INTEGER, ns INTEGER);
CREATE TABLE thr(inject TEXT, name TEXT, ops INTEGER, tid INTEGER);
.mode csv
.import ring.instr.csv instr
.import ring.wrappers.csv wrappers
.import ring.threads.csv thr
.mode list
SELECT t.name, t.ops, i.ns - b.ns, (i.ns - iw.ns) - (b.ns - bw.ns),
	ABS((iw.ns - bw.ns) - t.ops * 1000000) <= 0.03 * t.ops * 1000000
FROM thr t JOIN instr i ON i.inject = t.inject AND i.tid = t.tid
JOIN wrappers iw ON iw.inject = t.inject AND iw.tid = t.tid
JOIN thr t0 ON t0.inject = '0' AND t0.name = t.name
JOIN instr b ON b.inject = '0' AND b.tid = t0.tid
JOIN wrappers bw ON bw.inject = '0' AND bw.tid = t0.tid
WHERE t.inject = '1ms';
SQL
	n=$(wc -l < ring.instr.out)
	bad=$(grep -c '|0$' ring.instr.out)
	if [ "$n" = 4 ] && [ "$bad" = 0 ]; then
		pass "ring: instr_time grows by ops x 1ms (3%) for each of its 4 threads, besides its kernel records"
	else
		fail "ring: instr_time against ops x 1ms (thread|ops|growth|of it kernel records|ok): $(tr '\n' ' ' < ring.instr.out)"
		for db in ring-0.db ring-1ms.db; do	# what else the wrappers counted, at most
			echo "$db: largest overhead_ns - injected_ns of one op: $(sql "$db" "SELECT t.name || ' ' || o.op || ' ' ||
				(o.overhead_ns - o.injected_ns) FROM sync_ops o JOIN threads t USING (tid)
				ORDER BY o.overhead_ns - o.injected_ns DESC LIMIT 1")"
		done
	fi
fi

# ---------------------------------------------------------------- race2
RACE="$SAMPLES/race2"
winner() { sed -n 's/^race2: M taken first by //p' "$1"; }
m_addr() { awk '$1 == "object" && $2 == "name=M" { sub(/^addr=/, "", $3); print $3 }' "$1"; }

# race_small: 500us on race-a leaves race-a first and the run "equal".
# Each attempt is a plain run and, when that one is decided as designed
# (race-a first), a traced one.
race_small() {
	local plain_a=0 traced_b=0
	for _ in 1 2 3 4; do
		plain race.plain "$RACE"
		[ "$(winner race.plain.out)" = race-a ] || continue
		plain_a=$((plain_a + 1))
		traced race-small 500us:thread=race-a "$RACE" || return
		[ "$(cat race-small.status)" = 0 ] || fail "race-small: exit status $(cat race-small.status) under mtx"
		if [ "$(winner race-small.out)" != race-a ]; then
			traced_b=$((traced_b + 1))
			continue
		fi
		cmp -s race.plain.out race-small.out || fail "race-small: race2's output differs under mtx"
		[ "$(verdict race-small)" = equal ] && pass "race2 with 500us on race-a: race-a first, as plain; verdict equal" ||
			fail "race2 with 500us on race-a: race-a first, as plain, but the verdict is not equal"
		return
	done
	if [ "$plain_a" -gt 0 ] && [ "$traced_b" = "$plain_a" ]; then
		fail "race2: race-b won each of $traced_b runs with 500us on race-a, race-a each plain run before"
	else
		SKIPPED="$SKIPPED race2-small (plain runs: race-a first $plain_a times of 4)"
	fi
}

# race_large: 30ms on race-a makes race-b win: "divergent" at race-a's lock.
race_large() {
	local tid addr got_tid got_addr op
	for _ in 1 2 3 4; do
		plain race.plain "$RACE"
		[ "$(winner race.plain.out)" = race-a ] || continue
		traced race-large 30ms:thread=race-a "$RACE" || return
		[ "$(cat race-large.status)" = 0 ] || fail "race-large: exit status $(cat race-large.status) under mtx"
		[ "$(winner race-large.out)" = race-b ] || continue
		head -1 race.plain.out | cmp -s - <(head -1 race-large.out) || fail "race-large: race2's first line differs"
		pass "race2 with 30ms on race-a: race-b first (race-a plain)"
		if [ "$(verdict race-large)" != divergent ]; then
			fail "race2 with 30ms on race-a: the order changed, the verdict is not divergent"
			return
		fi
		tid=$(sql race-large.db "SELECT tid FROM threads WHERE name = 'race-a'")
		addr=$(m_addr race-large.sc)
		[ -z "$addr" ] || addr=$(printf '%d' "$addr") # an integer, as the JSON contract says
		got_tid=$(json race-large.json '$.first_divergent.tid')
		got_addr=$(json race-large.json '$.first_divergent.object_addr')
		op=$(json race-large.json '$.first_divergent.op')
		[ -n "$tid" ] && [ "$got_tid" = "$tid" ] || fail "race-large: first divergent event in tid '$got_tid', not race-a's ($tid)"
		[ -n "$addr" ] && [ "$got_addr" = "$addr" ] || fail "race-large: first divergent event on object '$got_addr', not M ($addr)"
		case $op in *unlock) fail "race-large: first divergent op is '$op', not race-a's lock" ;; *lock) ;;
		*) fail "race-large: first divergent op is '$op', not race-a's lock" ;; esac
		[ "$got_tid" = "$tid" ] && [ "$got_addr" = "$addr" ] && pass "race2 with 30ms on race-a: divergent at race-a's $op of M"
		return
	done
	SKIPPED="$SKIPPED race2-large (no attempt of 4 with race-a first plain and race-b first traced)"
}

race_small
race_large

# ---------------------------------------------------------------- barber --leave
BARBER="$SAMPLES/barber"
served() { sed -n 's/^served //p' "$1"; }

# barber_reference: three plain runs that agree on who is served, in order.
barber_reference() {
	local i
	for _ in 1 2 3 4; do
		for i in 1 2 3; do
			plain barber.plain$i "$BARBER" --leave
		done
		if [ "$(cat barber.plain1.status barber.plain2.status barber.plain3.status)" = "$(printf '0\n0\n0')" ] &&
			[ "$(served barber.plain1.out)" = "$(served barber.plain2.out)" ] &&
			[ "$(served barber.plain1.out)" = "$(served barber.plain3.out)" ]; then
			return 0
		fi
	done
	return 1
}

# parting REF RUN - where RUN's path parts from REF's (their MTX_SELFCHECK
# files): at the first position where the customers' decisions (in the
# order taken) or the haircuts (in the order given) differ, the events
# REF and RUN have there, as RUN made them: "tid ts what" (a decision or a
# haircut is logged under the room's mutex, right after the lock).
# Nothing when the runs agree.
parting() {
	awk '$1 != "order" { next }
		{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		  w = v["what"]; at = v["tid"] " " v["ts"] }
		w ~ /^barber:serve:/ {
			c = substr(w, 14)
			if (FNR == NR) ref_serve[rs++] = c; else { run_serve[ns++] = c; serve_at[c] = at }
			next }
		{ split(w, p, ":"); c = p[1]
		  if (FNR == NR) ref_arr[ra++] = c ":" p[2]; else { run_arr[na++] = c ":" p[2]; arr_at[c] = at } }
		END {
			for (k = 0; k < ra || k < na; k++)
				if (ref_arr[k] != run_arr[k]) {
					split(ref_arr[k], p, ":"); if (p[1] in arr_at) print arr_at[p[1]], p[1] ":decides"
					split(run_arr[k], p, ":"); if (p[1] in arr_at) print arr_at[p[1]], run_arr[k]
					break
				}
			for (k = 0; k < rs || k < ns; k++)
				if (ref_serve[k] != run_serve[k]) {
					if (ref_serve[k] in serve_at) print serve_at[ref_serve[k]], "serve:" ref_serve[k]
					if (k < ns) print serve_at[run_serve[k]], "serve:" run_serve[k]
					break
				}
		}' "$1" "$2"
}

# sim_place DB MODEL TID TS - the place in the simulated total order of
# the lock TID took last by TS (the one that decided what it logged then);
# 0 when the simulation could not execute it.
sim_place() {
	sql "$1" "SELECT COALESCE(s.order_sim, 0) FROM sync_ops o JOIN sim_events s ON s.op_id = o.id AND s.model = '$2'
		WHERE o.tid = $3 AND o.op = 'lock' AND o.end_ns <= $4 ORDER BY o.end_ns DESC LIMIT 1"
}

if barber_reference; then
	reference=$(served barber.plain1.out)
	for inject in 0 200us 1ms 10ms; do
		name=barber-$inject
		traced "$name" "$inject" "$BARBER" --leave || continue
		[ "$(cat "$name.status")" = 0 ] || fail "$name: exit status $(cat "$name.status") under mtx"
		v=$(verdict "$name")
		got=$(served "$name.out")
		case $v in
		equal)
			if [ "$got" = "$reference" ]; then
				cmp -s barber.plain1.out "$name.out" || fail "$name: output differs under mtx"
				pass "$name: equal, and served as plain: $got"
			else
				fail "$name: verdict equal, but served '$got' under mtx, '$reference' plain"
			fi ;;
		divergent)
			# Seed 004's Theorem 1: the events before e_d (in the simulated
			# order) are the uninstrumented run's, so whatever the program
			# decided differently from its plain runs was decided at e_d or
			# after. (e_d's observed time proves nothing: an instrumented
			# thread can come late to an event that it reaches first in the
			# simulation, as the barber to his lock with 5ms injected.)
			ed=$(json "$name.json" '$.first_divergent.order_sim')
			model=$(json "$name.json" '$.model')
			parting barber.plain1.sc "$name.sc" > "$name.parting"
			if [ ! -s "$name.parting" ]; then
				pass "$name: divergent, served as plain ($got): no decision to place e_d against"
				continue
			fi
			[ -n "$ed" ] || { fail "$name: divergent without first_divergent.order_sim"; continue; }
			bad=""
			while read -r tid ts what; do
				place=$(sim_place "$name.db" "$model" "$tid" "$ts")
				[ -n "$place" ] && { [ "$place" = 0 ] || [ "$place" -ge "$ed" ]; } ||
					bad="$bad $what (lock #${place:-none})"
			done < "$name.parting"
			if [ -z "$bad" ]; then
				pass "$name: divergent (served '$got', plain '$reference'), at #$ed or before what the program decided differently"
			else
				fail "$name: divergent from simulated event #$ed, but decided differently in the trustworthy prefix:$bad"
			fi ;;
		esac
	done
else
	SKIPPED="$SKIPPED barber (4 rounds of 3 plain runs never agreed on who is served)"
fi

if [ -n "$SKIPPED" ]; then
	echo "not decided on this machine (too loaded?):$SKIPPED"
	[ "$FAILED" = 0 ] && skip "parts not run:$SKIPPED"
fi
finish
