#!/bin/bash
# tests/e2e/test-probe-determinism.sh - SEEDS-MAP P4: the same input gives
# the same output. mtx probe-effect runs twice on each run.db, and all it
# says and keeps must be the same to the byte, for each model: the text
# (with --inversions), --format json (with --inversions), the simulated
# timeline (--simulate-only, csv and json), --format dot, its exit status,
# and the rows it stored (probe_effect, sim_events, dumped whole). The
# second time it runs from another directory with glibc filling fresh and
# freed heap memory (MALLOC_PERTURB_), so that a result that depended on
# memory it never wrote, on the working directory or on addresses (ASLR
# moves them between the two runs) would differ.
# The runs: the hand-worked barber fixture and bench/gen-rundb's generated
# run (100 000 events, 50 threads on 4 CPUs: locks, cond waits,
# semaphores) need no perf; runs collected from samples/barber (mutexes,
# semaphores, timed waits, 22 threads on this machine's CPUs),
# samples/ring and samples/philosophers do: without perf access those are
# skipped (exit 77 once the first two have been compared).
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 (the CLI) is not installed"
cd "$TMP" || exit 1
mkdir elsewhere

# outputs DB DIR - everything mtx probe-effect says about DB, and then the
# rows it stored, into DIR (one file each).
outputs() {
	local db=$1 dir=$2 model
	mkdir -p "$dir"
	for model in smp up-prio; do
		"$MTX" probe-effect "$db" --model $model --inversions > "$dir/text.$model" 2>&1
		echo $? > "$dir/status.text.$model"
		"$MTX" probe-effect "$db" --model $model --inversions --format json > "$dir/json.$model" 2>&1
		echo $? > "$dir/status.json.$model"
		"$MTX" probe-effect "$db" --model $model --simulate-only --format csv > "$dir/csv.$model" 2>&1
		"$MTX" probe-effect "$db" --model $model --simulate-only --format json > "$dir/simjson.$model" 2>&1
		"$MTX" probe-effect "$db" --model $model --format dot > "$dir/dot.$model" 2>&1
		echo $? > "$dir/status.dot.$model"
		# what the last run of this model stored (the csv and dot runs
		# store nothing more than the json run did)
		sql "$db" "SELECT * FROM probe_effect WHERE model = '$model'" > "$dir/probe_effect.$model"
		sql "$db" "SELECT * FROM sim_events WHERE model = '$model' ORDER BY op_id" > "$dir/sim_events.$model"
	done
}

# same NAME DB - run outputs twice and compare; DB by its absolute path,
# so that the text, which names it, is the same from either directory.
same() {
	local name=$1 db=$TMP/$2 model bad=""
	outputs "$db" "$TMP/$name.1"
	(cd elsewhere && MALLOC_PERTURB_=165 outputs "$db" "$TMP/$name.2")
	for model in smp up-prio; do
		case "$(cat "$name.1/status.json.$model")" in 0 | 3) ;; *) bad="$bad $model: exit $(cat "$name.1/status.json.$model");" ;; esac
		grep -q '"verdict"' "$name.1/json.$model" || bad="$bad $model: no verdict;"
		[ "$(wc -l < "$name.1/sim_events.$model")" -gt 0 ] || bad="$bad $model: no sim_events stored;"
		[ "$(wc -l < "$name.1/csv.$model")" -gt 1 ] || bad="$bad $model: no simulated timeline;"
	done
	[ -z "$bad" ] || { fail "$name: not a result to compare:$bad $(head -2 "$name.1/json.smp")"; return; }
	if diff -r "$name.1" "$name.2" > "$name.diff"; then
		pass "$name: the same outputs, exit statuses and stored rows twice, both models" \
			"($(cat "$name.1/sim_events.smp" | wc -l) events; smp $(sed -n 's/.*"verdict": "\([a-z]*\)".*/\1/p' "$name.1/json.smp"))"
	else
		fail "$name: mtx probe-effect said or stored something else the second time:"
		head -20 "$name.diff"
	fi
}

"$BUILDDIR/tests/fixture-db" "$srcdir/tests/fixtures/probe-barber.sql" barber-fixture.db || fail "fixture-db"
same barber-fixture barber-fixture.db
"$BUILDDIR/bench/gen-rundb" gen.db 100000 > gen.out 2>&1 || fail "gen-rundb: $(tail -1 gen.out)"
same generated gen.db

if [ "$(id -u)" != 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 1 ]; then
	[ "$FAILED" = 0 ] && skip "not root and kernel.perf_event_paranoid > 1: no collected runs (the fixture and generated run agreed)"
	finish
fi
# collected NAME PROGRAM ARGS... - a run of the sample PROGRAM into NAME.db.
collected() {
	local name=$1 prog
	shift
	prog=$(private_sample "$1") || { fail "no copy of the sample $1"; return 1; }
	shift
	"$MTX" collect -q -o "$name.db" -- "$prog" "$@" > "$name.out" 2> "$name.err" ||
		{ fail "$name: mtx collect exited $?: $(head -3 "$name.err")"; return 1; }
}
collected barber barber && same barber barber.db
collected ring ring 3 40 20 && same ring ring.db
collected philosophers philosophers 5 80 && same philosophers philosophers.db
finish
