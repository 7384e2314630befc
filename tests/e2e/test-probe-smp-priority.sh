#!/bin/bash
# tests/e2e/test-probe-smp-priority.sh - mtx probe-effect --model smp,
# the default, gives a thread that a sync call woke the CPU at once when
# it outranks the caller (SEEDS-MAP P4: each CPU runs the highest-priority
# ready thread; Linux's SCHED_FIFO preempts at once), once the call is
# done (src/probe/simulate.c, preempt_deferred). It used to let the caller
# run on until it blocked or its 3 ms slice ended. On one CPU, or with
# every CPU busy, the SMP model then departed from runs it should replay:
#  - tests/fixtures/probe-smp-preempt.sql, nothing to remove: smp must
#    give back the observed schedule (equal, exit 0, the model fits, each
#    event at its observed time); it had low take M before high;
#  - tests/fixtures/probe-barber.sql with nothing removed: smp must give
#    the observed times (it had customer-1 post the mutex at 115 us, not
#    120, the barber 10 us late);
#  - the barber with 10 us removed from customer-2#1: equal (as up-prio,
#    worked by hand in the fixture); smp called it divergent, because the
#    barber, kept 10 us off the CPU, came late to the mutex.
# up-prio replays both runs exactly: checked first, as the reference; if
# that fails the test is a hard error (99).
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 (the CLI) is not installed"
cd "$TMP" || exit 1
hard() { echo "ERROR: $*"; exit 99; }
for f in smp-preempt barber; do
	"$BUILDDIR/tests/fixture-db" "$srcdir/tests/fixtures/probe-$f.sql" $f.db || hard "fixture-db $f"
done

# times DB MODEL - "tid#k@simulated us" in the simulated order; "observed"
# as MODEL: the same with the observed times, in the observed order.
times() {
	local model=$2 col=12 key=1
	[ "$model" = observed ] && model=up-prio col=11 key=2
	"$MTX" probe-effect "$1" --model $model --simulate-only --format csv 2> /dev/null |
		awk -F, -v col=$col -v key=$key 'NR > 1 { print $key, $3 "#" $4 "@" ($col % 1000000000) / 1000 }' |
		sort -n | cut -d' ' -f2 | tr '\n' ' ' | sed 's/ $//'
}

# The reference: up-prio gives back both runs, nothing removed.
sql barber.db "UPDATE sync_ops SET overhead_ns = NULL"
for db in smp-preempt barber; do
	"$MTX" probe-effect $db.db --model up-prio --format json > $db-up.json; status=$?
	[ $status = 0 ] && [ "$(json_fields $db-up.json '$.verdict' '$.model_fits')" = "equal 1" ] &&
		[ "$(times $db.db up-prio)" = "$(times $db.db observed)" ] && [ -n "$(times $db.db observed)" ] ||
		hard "$db, up-prio, nothing removed: not the observed run (exit $status): $(cat $db-up.json)"
	pass "$db, up-prio, nothing removed: the observed run, each event at its time"
done

# smp on the same runs.
for db in smp-preempt barber; do
	"$MTX" probe-effect $db.db --model smp --format json > $db-smp.json; status=$?
	got="$status $(json_fields $db-smp.json '$.verdict' '$.model_fits')"
	[ "$got" = "0 equal 1" ] && pass "$db, smp, nothing removed: equal, the model fits" ||
		fail "$db, smp, nothing removed: exit, verdict, model fits '$got', not '0 equal 1': $(json_fields $db-smp.json \
			'$.model_departs_at.tid' '$.model_departs_at.k')"
	got=$(times $db.db smp) want=$(times $db.db observed)
	[ "$got" = "$want" ] && pass "$db, smp, nothing removed: each event at its observed time" ||
		fail "$db, smp, nothing removed: simulated '$got', observed '$want'"
done
sql barber.db "UPDATE sync_ops SET overhead_ns = 10000 WHERE id = 9"
"$MTX" probe-effect barber.db --model up-prio > /dev/null; status=$?
[ $status = 0 ] || hard "barber, up-prio, 10 us removed: exit $status, not 0 (test-probe-barber.sh)"
"$MTX" probe-effect barber.db --model smp --format json > keep-smp.json; status=$?
got="$status $(json_fields keep-smp.json '$.verdict' '$.first_divergent.tid' '$.first_divergent.k')"
[ "$got" = "0 equal  " ] && pass "barber, smp, 10 us removed: equal, as up-prio" ||
	fail "barber, smp, 10 us removed: exit, verdict, e_d '$got', not equal as up-prio (worked by hand)"
finish
