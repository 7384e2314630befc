#!/bin/bash
# tests/e2e/test-inject-latency.sh - SEEDS-MAP P7's oracle for mtx collect
# --inject-overhead: a program that times its own calls sees each recorded
# call take longer by the injected amount. tests/e2e/oplatency locks and
# unlocks a mutex 2000 times, uncontended, timing each call by
# CLOCK_MONOTONIC itself, and prints the median of each. Under mtx collect
# with --inject-overhead 20us both calls are recorded sync ops, so both
# wait: each median must be 20 us (within 1 us) above the same median
# under mtx collect without the option. The collector must have recorded
# each of the 4000 calls on that mutex, with injected_ns of at least
# 20 us each (none without the option). Medians: a preemption in a few
# calls does not move them, so this is no timing threshold on a loaded
# machine.
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1
PROG=$BUILDDIR/tests/e2e/oplatency
OPS=2000
[ -x "$PROG" ] || { fail "not built: $PROG"; finish; }

# field FILE KEY - KEY=value in the program's output line.
field() { tr ' ' '\n' < "$1" | sed -n "s/^$2=//p"; }

# run NAME OPTION... - oplatency under mtx collect -q OPTION... into
# NAME.db; its output in NAME.out. mtx must say nothing and lose nothing.
run() {
	local name=$1 status
	shift
	"$MTX" collect -q "$@" -o "$name.db" -- "$PROG" $OPS > "$name.out" 2> "$name.err"
	status=$?
	[ $status = 0 ] || fail "$name: exit $status under mtx: $(head -3 "$name.err")"
	[ -s "$name.err" ] && fail "$name: mtx collect said: $(head -3 "$name.err")"
	[ "$(field "$name.out" ops)" = $OPS ] || fail "$name: oplatency printed '$(cat "$name.out")'"
	[ "$(sql "$name.db" "SELECT SUM(value) FROM meta WHERE key LIKE 'lost_%'")" = 0 ] ||
		fail "$name: records lost"
}

# ops NAME - "op count min(injected_ns)" per op on the program's mutex.
ops() {
	local addr
	addr=$(printf '%d' "$(field "$1.out" mutex)")
	sql "$1.db" "SELECT o.op || ' ' || COUNT(*) || ' ' || MIN(COALESCE(o.injected_ns, 0)) FROM sync_ops o
		JOIN sync_objects s ON s.id = o.object_id WHERE s.addr = $addr GROUP BY o.op ORDER BY o.op"
}

"$PROG" $OPS > plain.out || fail "oplatency failed on its own"
run base
run inj --inject-overhead 20us
[ "$FAILED" = 0 ] || finish

got=$(ops base | tr '\n' ' ')
[ "$got" = "lock $OPS 0 unlock $OPS 0 " ] && pass "without the option: each of the $OPS locks and unlocks recorded, none waited" ||
	fail "without the option: recorded (op count least injected_ns) '$got'"
# the wait is CPU time on the records' clock: at least the amount
got=$(ops inj | awk -v n=$OPS '{ printf "%s %s %s ", $1, ($2 == n ? "all" : $2), ($3 >= 20000 ? "waited" : $3) }')
[ "$got" = "lock all waited unlock all waited " ] && pass "with 20us: each of the $OPS locks and unlocks recorded, each waited 20 us" ||
	fail "with 20us: recorded (op count least injected_ns) '$(ops inj | tr '\n' ' ')'"

for op in lock unlock; do
	plain=$(field plain.out ${op}_median_ns) base=$(field base.out ${op}_median_ns) inj=$(field inj.out ${op}_median_ns)
	rise=$((inj - base))
	echo "note: $op median: $plain ns without mtx, $base ns under mtx, $inj ns with 20us injected"
	if [ $rise -ge 19000 ] && [ $rise -le 21000 ]; then
		pass "$op: the program's own median latency rose by $rise ns for 20 us injected (within 1 us)"
	else
		fail "$op: the program's own median latency rose by $rise ns ($base -> $inj), not 20 us within 1 us"
	fi
done
finish
