#!/bin/bash
# mtx export: Chrome trace-event JSON, folded stacks, CSV and JSON lines.
#  - chrome, on the hand-worked fixture (tests/fixtures/waits.sql) and on a
#    real run of clientserver: valid JSON; every event has ph, ts, pid and
#    tid; one X slice per sync op and per returned syscall, an instant per
#    CPU sample (profile.sql's leaf and stack by hand), one b/e pair
#    per thread state, each pair on its thread's track and in order; flow
#    starts and ends paired by id; --thread and --from/--to cut it down;
#    the same on a generated run of many chunks;
#  - folded, on tests/fixtures/profile.sql's samples (its header works
#    them out: main>work>hash twice, ...) and calls.sql's exact calls (self
#    times worked out there): the lines by hand, the counts adding up to
#    the samples in the run;
#  - csv round-trips through sqlite3's .import to the same rows; jsonl has
#    one valid object per row;
#  - bad input: one line, exit 2, no output file.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 > /dev/null || skip "sqlite3 (the CLI) is not installed"
cd "$TMP" || exit 1
fixture_dbs waits profile calls

# ev FILE WHERE - how many of FILE's trace events (e: each as json) match WHERE
ev() { j "$1" "(SELECT COUNT(*) FROM (SELECT value AS e FROM json_each(j, '\$.traceEvents')) WHERE $2)"; }

# check_chrome NAME DB - NAME.json must be a trace-event document of DB's
# rows (the whole run).
check_chrome() {
	local name=$1 db=$2 bad n want
	[ "$(j $name.json "json_valid(j)")" = 1 ] || { fail "$name: not valid JSON: $(head -c 200 $name.json)"; return; }
	bad=$(ev $name.json "json_type(e, '\$.ph') IS NOT 'text' OR json_type(e, '\$.ts') NOT IN ('integer', 'real')
		OR json_type(e, '\$.pid') IS NOT 'integer' OR json_type(e, '\$.tid') IS NOT 'integer'
		OR (json_extract(e, '\$.ph') = 'X' AND NOT json_extract(e, '\$.dur') >= 0)")
	[ "$bad" = 0 ] && pass "$name: every event has ph, ts, pid, tid; each X a dur >= 0" ||
		fail "$name: $bad events without ph, ts, pid or tid (or an X without dur)"
	n=$(ev $name.json "json_extract(e, '\$.ph') = 'X' AND json_extract(e, '\$.cat') = 'sync'")
	want=$(sql $db "SELECT COUNT(*) FROM sync_ops")
	[ "$n" = "$want" ] && pass "$name: $n sync op slices, one per sync_ops row" ||
		fail "$name: $n sync op slices, sync_ops has $want"
	n=$(ev $name.json "json_extract(e, '\$.ph') = 'X' AND json_extract(e, '\$.cat') = 'syscall'")
	want=$(sql $db "SELECT COUNT(*) FROM syscalls WHERE end_ns IS NOT NULL")
	[ "$n" = "$want" ] && pass "$name: $n syscall slices, one per returned syscall" ||
		fail "$name: $n syscall slices, $want syscalls returned"
	n=$(ev $name.json "json_extract(e, '\$.ph') = 'i' AND json_extract(e, '\$.cat') = 'sample'")
	want=$(sql $db "SELECT COUNT(*) FROM samples")
	[ "$n" = "$want" ] && pass "$name: $n sample instants, one per CPU sample" ||
		fail "$name: $n sample instants, the run has $want samples"
	# b/e: each b followed on its track by its e, nothing between
	j $name.json "(SELECT group_concat(x, char(10)) FROM (SELECT json_extract(value, '\$.ph') || ' ' ||
		json_extract(value, '\$.id') || ' ' || json_extract(value, '\$.tid') || ' ' ||
		json_extract(value, '\$.ts') || ' ' || json_extract(value, '\$.name') AS x FROM json_each(j, '\$.traceEvents')
		WHERE json_extract(value, '\$.ph') IN ('b', 'e')))" > states.txt
	bad=$(awk '$2 != $3 { n++ }
		$1 == "b" { if ($2 in name) n++; name[$2] = $5; since[$2] = $4 }
		$1 == "e" { if (!($2 in name) || name[$2] != $5 || $4 < since[$2]) n++; delete name[$2] }
		END { for (k in name) n++; print n + 0 }' states.txt)
	n=$(grep -c '^b ' states.txt) want=$(sql $db "SELECT COUNT(*) FROM thread_states")
	[ "$bad" = 0 ] && [ "$n" = "$want" ] && pass "$name: $n states, b and e paired on their thread's track" ||
		fail "$name: $n states ($want rows), $bad not paired"
	bad=$(j $name.json "(SELECT COUNT(*) FROM (SELECT json_extract(value, '\$.id') AS flow,
		SUM(json_extract(value, '\$.ph') = 's') AS s, SUM(json_extract(value, '\$.ph') = 'f') AS f
		FROM json_each(j, '\$.traceEvents') WHERE json_extract(value, '\$.ph') IN ('s', 'f') GROUP BY flow)
		WHERE s <> 1 OR f <> 1)")
	n=$(ev $name.json "json_extract(e, '\$.ph') = 's'")
	[ "$bad" = 0 ] && pass "$name: $n flows, each start with its end" || fail "$name: $bad flows unpaired"
}

# --- chrome on the fixture: 6 ops, 3 returned syscalls, states; the
# worker-a unlock at 390 us hands the mutex to worker-b (a handoff flow)
"$MTX" export waits.db --format chrome -o waits.json 2> err.txt || fail "export chrome: $(head -1 err.txt)"
check_chrome waits waits.db
[ "$(ev waits.json "json_extract(e, '\$.name') = 'lock handoff' AND json_extract(e, '\$.ph') = 's'
	AND json_extract(e, '\$.tid') = 101 AND json_extract(e, '\$.ts') = 390")" = 1 ] &&
	pass "waits: worker-a hands the mutex to worker-b at 390 us" ||
	fail "waits: no handoff flow from worker-a at 390 us"
[ "$(ev waits.json "json_extract(e, '\$.name') = 'lock mutex' AND json_extract(e, '\$.tid') = 102
	AND json_extract(e, '\$.ts') = 250 AND json_extract(e, '\$.dur') = 140
	AND json_extract(e, '\$.args.holder_tid') = 101")" = 1 ] &&
	pass "waits: worker-b's lock, 250 us for 140 us, held by worker-a" ||
	fail "waits: worker-b's lock slice is not at 250 us for 140 us with holder 101"
"$MTX" export waits.db --format chrome --thread worker-a --from 250us --to 400us > cut.json 2> err.txt ||
	fail "export --thread --from --to: $(head -1 err.txt)"
bad=$(ev cut.json "json_extract(e, '\$.tid') NOT IN (0, 101) OR (json_extract(e, '\$.ph') = 'X' AND
	(json_extract(e, '\$.ts') > 400 OR json_extract(e, '\$.ts') + json_extract(e, '\$.dur') < 250))")
n=$(ev cut.json "json_extract(e, '\$.ph') <> 'M'")
[ "$bad" = 0 ] && [ "$n" -gt 0 ] && pass "cut: $n events of worker-a within 250-400 us" ||
	fail "cut: $bad of $n events outside worker-a or 250-400 us"

"$MTX" export profile.db --format chrome -o profile.json 2> err.txt || fail "export chrome profile.db: $(head -1 err.txt)"
[ "$(ev profile.json "json_extract(e, '\$.ph') = 'i' AND json_extract(e, '\$.tid') = 200 AND
	json_extract(e, '\$.name') = '[kernel]' AND json_extract(e, '\$.args.stack') = 'main;work;hash;[kernel]'")" = 1 ] &&
	pass "profile: main's sample in the kernel, its stack main;work;hash;[kernel]" ||
	fail "profile: no sample instant of main in [kernel] under main;work;hash"

# --- chrome on a real run
"$SAMPLES/clientserver" > plain.out 2>&1
"$MTX" collect -q --sample 499 -o cs.db -- "$SAMPLES/clientserver" > cs.out 2>&1 || fail "collect clientserver"
cmp -s plain.out cs.out || fail "clientserver's output differs under mtx"
"$MTX" export cs.db --format chrome -o cs.json 2> err.txt || fail "export chrome cs.db: $(head -1 err.txt)"
check_chrome cs cs.db

# --- chrome of a run of 150 000 events, ~25 MB: the two halves of each
# table go out in 1 MB chunks of whole rows, interleaved (cmd-export.c)
"$BUILDDIR/bench/gen-rundb" gen.db 150000 > gen.out 2>&1 || fail "gen-rundb: $(tail -1 gen.out)"
"$MTX" export gen.db --format chrome -o gen.json 2> err.txt || fail "export chrome gen.db: $(head -1 err.txt)"
check_chrome gen gen.db

# --- folded
"$MTX" export profile.db --format folded > folded.txt 2> err.txt || fail "export folded: $(head -1 err.txt)"
printf '%s\n' "[no user stack] 1" "main;work 1" "main;work;hash 2" "main;work;hash;[kernel] 1" \
	"start_thread;work 1" "start_thread;work;hash 3" "start_thread;work;hash;work 2" > want.txt
diff -u want.txt folded.txt > folded.diff && pass "folded samples: the stacks by hand" ||
	fail "folded samples differ from the hand-worked ones: $(cat folded.diff)"
sum=$(awk '{ n += $NF } END { print n }' folded.txt) want=$(sql profile.db "SELECT COUNT(*) FROM samples")
[ "$sum" = "$want" ] && pass "folded samples: $sum, the run's samples" || fail "folded: $sum of $want samples"
"$MTX" export profile.db --format folded --per-thread --thread main > main.txt 2> err.txt
[ "$(head -1 main.txt)" = "main-200;main;work 1" ] && [ "$(wc -l < main.txt)" = 3 ] &&
	pass "folded --per-thread --thread main: its three stacks under its name" ||
	fail "folded --per-thread --thread main: $(head -3 main.txt | tr '\n' '|')"
"$MTX" export calls.db --format folded --stacks calls > calls.txt 2> err.txt
printf '%s\n' "main 30000" "main;hash 20000" "main;work 30000" "main;work;hash 20000" > want.txt
diff -u want.txt calls.txt > calls.diff && pass "folded calls: self times by hand" ||
	fail "folded calls differ from the hand-worked self times: $(cat calls.diff)"
"$MTX" export calls.db --format folded --stacks calls --from 15us --to 50us > window.txt 2> err.txt
printf '%s\n' "main;work 15000" "main;work;hash 20000" > want.txt
diff -u want.txt window.txt > window.diff && pass "folded calls 15-50 us: the window's self times" ||
	fail "folded calls in 15-50 us: $(cat window.diff)"

# --- csv and jsonl
"$MTX" export cs.db --format csv --table sync_ops > ops.csv 2> err.txt || fail "export csv: $(head -1 err.txt)"
sqlite3 back.db ".import --csv ops.csv sync_ops" 2> err.txt || fail "sqlite3 .import: $(head -1 err.txt)"
cols="tid, object_id, op, start_ns, end_ns, blocked, wait_ns, result, arg, callsite, holder_tid, hold_ns, unfinished"
digest() { sqlite3 "$1" "SELECT COUNT(*), SUM(length(x)), group_concat(x, '') FROM (SELECT
	COALESCE($(echo "$cols" | sed 's/, /, '"''"') || '"'|'"' || COALESCE(/g'), '') AS x FROM sync_ops ORDER BY CAST(id AS INTEGER))" | md5sum; }
[ "$(digest cs.db)" = "$(digest back.db)" ] && pass "csv: sync_ops round-trips through sqlite3 .import" ||
	fail "csv: sync_ops read back differs"
"$MTX" export cs.db --format jsonl --table threads > threads.jsonl 2> err.txt
n=$(wc -l < threads.jsonl) want=$(sql cs.db "SELECT COUNT(*) FROM threads")
bad=$(while read -r line; do sqlite3 :memory: "SELECT json_valid('${line//\'/\'\'}') AND json_type('${line//\'/\'\'}', '\$.tid') = 'integer'"; done < threads.jsonl | grep -vc '^1$')
[ "$n" = "$want" ] && [ "$bad" = 0 ] && pass "jsonl: $n threads, one valid object each" ||
	fail "jsonl: $n lines for $want threads, $bad not valid"

# --- bad input: one line on stderr, exit 2, no file written
bad() {
	local what=$1 status
	shift
	rm -f bad.out
	"$MTX" export "$@" -o bad.out > /dev/null 2> bad.err
	status=$?
	if [ $status != 2 ] || [ -e bad.out ] || [ "$(grep -c '^mtx: ' bad.err)" != 1 ]; then
		fail "$what: exit $status, stderr: $(head -2 bad.err | tr '\n' ' ')"
	else
		pass "$what: $(head -1 bad.err)"
	fi
}
bad "no format" waits.db
bad "unknown format" waits.db --format chrom
bad "csv without a table" waits.db --format csv
bad "no such table" waits.db --format csv --table nope
bad "a table for chrome" waits.db --format chrome --table threads
bad "no such thread" waits.db --format chrome --thread nobody
bad "bad time" waits.db --format chrome --from soon
bad "bad stacks" profile.db --format folded --stacks maybe
finish
