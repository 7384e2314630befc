#!/bin/bash
# mtx collect --defer-writes (seed 004 §4.1: the trace is shipped at the
# end, so that no I/O of the tracer perturbs the run; SEEDS-MAP P1): while
# the program runs, run.db gains no row - read live, as any reader can,
# while the program waits at a gate after its work, where a run without
# the option has committed rows - and after the exit it holds every sync
# call the program counted itself (samples/selfcheck.h), with meta
# defer_writes = 1. The program's output and exit status are those of a
# plain run.
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1

PHILO=$(private_sample philosophers) || { fail "no copy of the philosophers sample"; finish; }
collect_same same.db --defer-writes -- "$PHILO" 5 100
[ "$(sql same.db "SELECT COUNT(*) FROM sync_ops")" -gt 0 ] || fail "no sync op in the deferred run"

mkfifo gate || { fail "mkfifo"; finish; }
rows() { sql "$1" "SELECT (SELECT COUNT(*) FROM sync_ops) + (SELECT COUNT(*) FROM thread_states)" 2> /dev/null; }
has_rows() { [ "$(rows "$1")" -gt 0 ] 2> /dev/null; }
# gated DB OPTS...: collect philosophers then a wait on the gate, in the
# background; returns once the philosophers are done.
gated() {
	local db=$1
	shift
	rm -f "$db.out"
	MTX_SELFCHECK=$TMP/$db.sc "$MTX" collect -q "$@" -o "$db" -- \
		sh -c "'$PHILO' 5 100 > '$TMP/$db.out'; cat '$TMP/gate' > /dev/null" &
	collector=$!
	wait_until holds "$db.out" "meals" || fail "$db: the program never finished its work"
}
open_gate() { echo > gate; wait "$collector" || fail "$1: mtx collect exited $?"; }

# Without the option, rows are committed while the program runs.
gated live.db
wait_until has_rows live.db && pass "without --defer-writes: $(rows live.db) rows readable during the run" ||
	fail "without --defer-writes no row was readable during the run"
open_gate live.db

# With it, none: the run is over, the collector has had its rounds, and
# their commits (every 0.5 s without the option) come and go; the meta
# written before the program started is there.
gated deferred.db --defer-writes
sleep 2
[ "$(sql deferred.db "SELECT COUNT(*) FROM meta" 2> /dev/null)" -gt 0 ] 2> /dev/null ||
	fail "--defer-writes: the start-up meta was not readable"
n=$(rows deferred.db)
[ "$n" = 0 ] && pass "--defer-writes: no row written during the run" ||
	fail "--defer-writes: $n rows written during the run"
open_gate deferred.db

# After the exit, every call the program counted.
[ "$(sql deferred.db "SELECT value FROM meta WHERE key = 'defer_writes'")" = 1 ] || fail "meta defer_writes is not 1"
import_selfcheck deferred.db.sc deferred.db
diff <(sql deferred.db "SELECT tid, SUM(count) FROM sc_op GROUP BY tid ORDER BY tid") \
	<(sql deferred.db "SELECT tid, COUNT(*) FROM sync_ops WHERE tid IN (SELECT tid FROM sc_op)
		GROUP BY tid ORDER BY tid") > counts.diff &&
	pass "--defer-writes: each thread's sync ops are the calls it counted" ||
	fail "--defer-writes: sync ops differ from the program's own counts: $(head -5 counts.diff)"
finish
