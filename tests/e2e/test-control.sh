#!/bin/bash
# mtx collect --control and mtx ctl (SEEDS-MAP S2), with the truth from the
# program itself: tests/e2e/ticker calls tick() once a millisecond and logs
# each call's CLOCK_MONOTONIC stamp (the clock of mtx's *_ns) inside it.
#  - a probe added at ~0.8 s and removed ~0.6 s later records exactly the
#    calls the program logged between its on_ns and off_ns (the replies'),
#    ±1 at each end, and none outside; its instrumentation row says so;
#  - 'source off syscalls' for a window: no syscalls row begins inside it,
#    though the program slept (a clock_nanosleep each tick) all along;
#  - what cannot be done is refused with one line and exit 1; the program's
#    output is its own; the probes are gone when mtx has exited.
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1
TICKER=$BUILDDIR/tests/e2e/ticker
TRACEFS=/sys/kernel/tracing

"$MTX" collect --control ctl.sock -o t.db -- "$TICKER" 3 > tick.out 2> mtx.err &
MPID=$!
ctl_ok() { "$MTX" ctl ctl.sock probe list > /dev/null 2>&1; }
wait_until ctl_ok || { fail "mtx ctl ctl.sock probe list never answered: $(head -3 mtx.err)"; finish; }
sleep 0.8
"$MTX" ctl --json ctl.sock probe add '^tick$' > add.json 2> add.err || fail "probe add: $(cat add.err)"
sleep 0.3
"$MTX" ctl --json ctl.sock source off syscalls > off.json 2> off.err || fail "source off syscalls: $(cat off.err)"
groups_on=$(grep -c "^[a-z]:mtx_$MPID/s1_" $TRACEFS/uprobe_events)
sleep 0.3
"$MTX" ctl --json ctl.sock source on syscalls > on.json 2> on.err || fail "source on syscalls: $(cat on.err)"
"$MTX" ctl --json ctl.sock probe del 1 > del.json 2> del.err || fail "probe del 1: $(cat del.err)"
# refused, one line each, exit 1
for cmd in "probe del 1" "probe del 7" "probe add ^no_such_function$" "source off sched" "source off nosuch" \
	"frobnicate"; do
	# shellcheck disable=SC2086
	"$MTX" ctl ctl.sock $cmd > refused.out 2> refused.err
	st=$?
	[ "$st" = 1 ] && [ ! -s refused.out ] && [ "$(wc -l < refused.err)" = 1 ] ||
		fail "mtx ctl '$cmd': exit $st, '$(cat refused.out refused.err | tr '\n' ';')' (not one line, exit 1)"
done
wait "$MPID"
st=$?
[ "$st" = 0 ] || fail "mtx collect exited $st: $(head -3 mtx.err)"
"$TICKER" 3 > plain.out
[ "$(tail -1 tick.out)" = "$(tail -1 plain.out)" ] && [ "$(wc -l < tick.out)" = "$(wc -l < plain.out)" ] &&
	pass "the program's output is as without mtx ($(tail -1 tick.out))" ||
	fail "the program printed '$(tail -1 tick.out)' under mtx, '$(tail -1 plain.out)' without"

# --- the probe's window against the program's own stamps
on=$(json_fields add.json '$.on_ns') off=$(json_fields del.json '$.off_ns') id=$(json_fields add.json '$.id')
[ "$id" = 1 ] || fail "probe add answered id '$id', not 1: $(cat add.json)"
logged=$(awk -v on="$on" -v off="$off" '/^[0-9]+$/ && $1 >= on && $1 <= off { n++ } END { print n + 0 }' tick.out)
read -r calls first last < <(sql t.db "SELECT COUNT(*), MIN(c.start_ns), MAX(c.start_ns) FROM calls c
	JOIN functions f ON f.id = c.function_id WHERE f.name = 'tick'" | tr '|' ' ')
if [ "$logged" -lt 100 ]; then
	fail "the program logged only $logged ticks in the probe's window [$on, $off]"
elif [ $((calls - logged)) -le 2 ] && [ $((logged - calls)) -le 2 ]; then
	pass "probe 1 recorded $calls calls of tick; the program logged $logged in [on_ns, off_ns]"
else
	fail "probe 1 recorded $calls calls of tick, the program logged $logged in [$on, $off]"
fi
[ "$first" -ge "$on" ] && [ "$last" -le "$off" ] && pass "no call recorded outside [on_ns, off_ns]" ||
	fail "calls recorded from $first to $last, outside [$on, $off]"
row=$(sql t.db "SELECT kind, target, probe_id, functions, on_ns, off_ns, reason, hits FROM instrumentation
	WHERE kind = 'probe'")
[ "$row" = "probe|^tick\$|1|1|$on|$off|user|$calls" ] && pass "instrumentation: $row" ||
	fail "instrumentation's probe row is '$row', not probe|^tick\$|1|1|$on|$off|user|$calls"
hits=$(json_fields del.json '$.hits')
[ "$hits" = "$calls" ] || fail "probe del said $hits calls, run.db holds $calls"
[ "$groups_on" -ge 2 ] || fail "no s1_ probes of mtx_$MPID in $TRACEFS/uprobe_events while probe 1 was on"
gone() { ! grep -q "^[a-z]:mtx_$MPID/" $TRACEFS/uprobe_events; }
wait_until gone && pass "no probe of mtx_$MPID left in $TRACEFS" ||
	fail "probes of mtx_$MPID left: $(grep "mtx_$MPID/" $TRACEFS/uprobe_events | head -3)"

# --- the syscalls source's window off
soff=$(json_fields off.json '$.off_ns') son=$(json_fields on.json '$.on_ns')
inside=$(sql t.db "SELECT COUNT(*) FROM syscalls WHERE start_ns > $soff AND start_ns < $son")
slept=$(awk -v a="$soff" -v b="$son" '/^[0-9]+$/ && $1 > a && $1 < b { n++ } END { print n + 0 }' tick.out)
after=$(sql t.db "SELECT COUNT(*) FROM syscalls WHERE start_ns > $son")
if [ "$slept" -lt 100 ]; then
	fail "the program ticked only $slept times while syscalls were off"
elif [ "$inside" = 0 ] && [ "$after" -gt 0 ]; then
	pass "syscalls off for $slept ticks: no syscall row began then, $after after it was on again"
else
	fail "syscalls off [$soff, $son]: $inside rows began inside, $after after"
fi
windows=$(sql t.db "SELECT group_concat(IFNULL(off_ns, 'end'), ',') FROM instrumentation
	WHERE kind = 'source' AND target = 'syscalls' ORDER BY on_ns")
[ "$windows" = "$soff,end" ] || fail "the syscalls windows end at '$windows', not $soff,end"

# --- source off sync, through libmtx-preload.so (a word of its region):
# philosophers locks and unlocks all along; no sync op begins in the
# window, ops come before and after it
PHIL=$(private_sample philosophers) || finish
"$MTX" collect -q --control ps.sock -o ps.db -- "$PHIL" 5 30000 > /dev/null 2> ps.err &
MPID=$!
ps_ok() { "$MTX" ctl ps.sock probe list > /dev/null 2>&1; }
wait_until ps_ok || fail "mtx ctl ps.sock never answered: $(head -3 ps.err)"
sleep 0.3
"$MTX" ctl --json ps.sock source off sync > soff.json 2> soff.err || fail "source off sync: $(cat soff.err)"
sleep 0.3
"$MTX" ctl --json ps.sock source on sync > son.json 2> son.err || fail "source on sync: $(cat son.err)"
wait "$MPID" || fail "mtx collect (philosophers) exited $?: $(head -3 ps.err)"
soff=$(json_fields soff.json '$.off_ns') son=$(json_fields son.json '$.on_ns')
read -r before inside after < <(sql ps.db "SELECT COUNT(*) FILTER (WHERE start_ns < $soff),
	COUNT(*) FILTER (WHERE start_ns > $soff AND start_ns < $son), COUNT(*) FILTER (WHERE start_ns > $son)
	FROM sync_ops" | tr '|' ' ')
[ "$inside" = 0 ] && [ "$before" -gt 0 ] && [ "$after" -gt 0 ] &&
	pass "sync off for $(((son - soff) / 1000000)) ms: no op began then ($before before, $after after)" ||
	fail "sync off [$soff, $son]: $inside ops began inside ($before before, $after after)"

# --- --overhead-budget: hotcold calls hot() in a tight loop (probed, a
# whole CPU of uprobe hits) and cold() every 10 ms (a fraction of 1%):
# hot goes off (reason budget, said in one warning), cold stays on, and
# every call of each is recorded while its probe was on, cold's all of
# the program's own count
HOTCOLD=$BUILDDIR/tests/e2e/hotcold
"$MTX" collect --functions '^(hot|cold)$' --overhead-budget 5 -o b.db -- "$HOTCOLD" 1 > b.out 2> b.err ||
	fail "collect --overhead-budget 5 exited $?: $(head -3 b.err)"
"$HOTCOLD" 1 > b.plain
cmp -s b.out b.plain || fail "hotcold printed '$(cat b.out)' under mtx, '$(cat b.plain)' without"
rows=$(sql b.db "SELECT target || ' ' || reason || ' ' || IFNULL(off_reason, 'on') || ' ' ||
	(off_ns IS NULL) FROM instrumentation WHERE kind = 'probe' ORDER BY target" | tr '\n' ',')
[ "$rows" = "cold start on 1,hot start budget 0," ] && pass "--overhead-budget 5: hot off (budget), cold on" ||
	fail "--overhead-budget 5: the probes' rows are '$rows', not cold on to the end and hot off for the budget"
[ "$(grep -c 'probe [0-9]* (hot) off at .* over the 5.0% budget' b.err)" = 1 ] ||
	fail "the budget's removal of hot was not said once: $(cat b.err)"
cold=$(sed -n 's/.*cold \([0-9]*\)$/\1/p' b.out)
read -r cold_calls hot_calls hot_hits outside < <(sql b.db "SELECT
	(SELECT COUNT(*) FROM calls c JOIN functions f ON f.id = c.function_id WHERE f.name = 'cold'),
	(SELECT COUNT(*) FROM calls c JOIN functions f ON f.id = c.function_id WHERE f.name = 'hot'),
	(SELECT hits FROM instrumentation WHERE target = 'hot'),
	(SELECT COUNT(*) FROM calls c JOIN functions f ON f.id = c.function_id JOIN instrumentation i ON i.target = f.name
	 WHERE c.start_ns < i.on_ns OR c.start_ns > IFNULL(i.off_ns, c.start_ns))" | tr '|' ' ')
[ "$cold_calls" = "$cold" ] && [ "$hot_calls" = "$hot_hits" ] && [ "$outside" = 0 ] &&
	pass "cold: $cold_calls calls, as the program made; hot: $hot_calls before it went off" ||
	fail "cold $cold_calls calls (the program made $cold), hot $hot_calls (hits $hot_hits), $outside outside their windows"
# the calls report says hot was probed for its window only
want=$(sql b.db "SELECT 'hot,1,' || (off_ns - on_ns) FROM instrumentation WHERE target = 'hot'")
got=$("$MTX" report b.db calls --format csv 2> /dev/null | grep '^hot,1,' | cut -d, -f1-3)
[ -n "$want" ] && [ "$got" = "$want" ] && pass "report calls: hot probed $(echo "$want" | cut -d, -f3) ns of the run" ||
	fail "report calls' coverage of hot is '$got', not '$want'"
# --rates-from b.db: hot's rate there (its calls over the run) predicts
# over 5%: never probed (an empty window, budget), said; cold probed
"$MTX" collect --functions '^(hot|cold)$' --overhead-budget 5 --rates-from b.db -o r.db -- "$HOTCOLD" 1 > r.out 2> r.err ||
	fail "collect --rates-from exited $?: $(head -3 r.err)"
rows=$(sql r.db "SELECT target || ' ' || IFNULL(off_ns = on_ns, 0) || ' ' || IFNULL(off_reason, 'on') FROM instrumentation
	WHERE kind = 'probe' ORDER BY target" | tr '\n' ',')
hot=$(sql r.db "SELECT COUNT(*) FROM calls c JOIN functions f ON f.id = c.function_id WHERE f.name = 'hot'")
[ "$rows" = "cold 0 on,hot 1 budget," ] && [ "$hot" = 0 ] && grep -q "not probed: hot, whose calls in b.db" r.err &&
	pass "--rates-from b.db: hot not probed (its rate there predicts over 5%), cold probed" ||
	fail "--rates-from b.db: rows '$rows', $hot calls of hot, said: $(cat r.err)"
finish
