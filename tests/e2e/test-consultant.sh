#!/bin/bash
# mtx collect --consultant: the Performance Consultant's search while the
# program runs (SEEDS-MAP S8), on test-diagnose.sh's planted programs
# (tests/e2e/planted), each run long enough for the live search to conclude:
#   - the program's output and exit status are as without mtx;
#   - the live search, kept in run.db and shown by mtx diagnose, finds the
#     planted cause where the offline search of the same run finds it (the
#     same hypothesis at the same focus), and that focus is the program's
#     own: the mutex it reports and hog() for the lock, crunch() for the
#     CPU, the writing thread for the small synced writes; for the crowd of
#     threads, ExcessiveCPUWait, and at the CPU taskset pinned them to;
#   - the syscalls went on for the I/O hypotheses and off again, both with
#     reason consultant, and no uprobe of mtx is left in tracefs;
#   - a budget too small for them refuses the syscalls: the I/O nodes stay
#     untested, and no syscall is recorded;
#   - --search-time ends the search (and the syscalls) while the program
#     runs on;
#   - a threshold set above the program's own share of lock waiting
#     (--consultant-set) makes the node false;
#   - mtx diagnose --offline searches the finished run without replacing
#     the live search; bad options are refused.
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1
PROG=$BUILDDIR/tests/e2e/planted
[ -x "$PROG" ] || { fail "not built: $PROG"; finish; }

# first FILE WHY [HYPOTHESIS] - the first finding of kind WHY (and that
# hypothesis): "hypothesis focus"
first() { j "$1" "(SELECT json_extract(f.value, '\$.hypothesis') || ' ' || json_extract(f.value, '\$.focus')
	FROM json_each(j, '\$.findings') f WHERE json_extract(f.value, '\$.why') = '$2'
	AND json_extract(f.value, '\$.hypothesis') LIKE '${3:-%}' ORDER BY f.key LIMIT 1)"; }
# where FILE WHY KEY - that finding's where.KEY
where() { j "$1" "(SELECT json_extract(f.value, '\$.where.$3') FROM json_each(j, '\$.findings') f
	WHERE json_extract(f.value, '\$.why') = '$2' ORDER BY f.key LIMIT 1)"; }

COLLECTORS= # the pids of the runs' collectors: their uprobes are mtx_PID/...

# live NAME [MTX OPTION...] -- ARGS... - record planted ARGS under
# --consultant into NAME.db; NAME.json the live search, NAME.off.json the
# offline one; the output must be the program's ("planted MODE: done").
live() {
	local name=$1 opts=() st
	shift
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	${NICE:+nice -n $NICE} ${PIN:+taskset -c $PIN} "$MTX" collect --consultant "${opts[@]}" -o "$name.db" -- "$PROG" "$@" \
		> "$name.out" 2> "$name.err" &
	COLLECTORS+=" $!"
	wait $!
	st=$?
	[ "$st" = 0 ] && [ "$(cat "$name.out")" = "planted $1: done" ] ||
		fail "$name: exit $st, output '$(head -1 "$name.out")'"
	"$MTX" diagnose "$name.db" --format json > "$name.json" 2> "$name.derr" ||
		fail "$name: mtx diagnose failed: $(head -3 "$name.derr")"
	"$MTX" diagnose "$name.db" --offline --format json > "$name.off.json" 2> "$name.derr" ||
		fail "$name: mtx diagnose --offline failed: $(head -3 "$name.derr")"
	[ "$(j "$name.json" "json_extract(j, '\$.search')")" = live ] ||
		fail "$name: mtx diagnose did not show the live search"
}

# same NAME WHY WHAT [HYPOTHESIS] - the live search's first finding of kind
# WHY (and HYPOTHESIS) is the offline one's of that hypothesis. (Not of
# any: two findings of a kind can tie on their share, as an I/O wait at
# fdatasync and its TooManySmallIOOps at the file do, and the tie goes
# either way between two readings of the clock.)
same() {
	local l o
	l=$(first "$1.json" "$2" "${4:-}")
	o=$(first "$1.off.json" "$2" "${l%% *}")
	if [ -n "$l" ] && [ "$l" = "$o" ]; then
		pass "$1: live, $3: $l, as offline"
	else
		fail "$1: live '$l', offline '$o' ($(grep -h 'consultant\|TRUE' "$1.err" | tr '\n' ' '))"
	fi
}

# --- a hot lock inside hog()
live lock -- lock 4 10000
same lock sync "the lock wait"
addr=$(fact lock.err lock)
got="$(where lock.json sync object.address) $(where lock.json sync function)"
[ "$got" = "$addr hog" ] && pass "lock: at the program's mutex $addr, in hog()" ||
	fail "lock: at '$got', not '$addr hog'"
# the syscalls, for the I/O hypotheses only, on and off by the consultant
rows=$(sqlite3 lock.db "SELECT reason || '/' || COALESCE(off_reason, '-') FROM instrumentation
	WHERE target = 'syscalls'")
[ "$rows" = consultant/consultant ] && pass "lock: syscalls switched on and off by the consultant" ||
	fail "lock: the syscalls' windows: '$rows'"
outside=$(sqlite3 lock.db "SELECT COUNT(*) FROM syscalls s WHERE NOT EXISTS (SELECT 1 FROM instrumentation i
	WHERE i.target = 'syscalls' AND s.start_ns >= i.on_ns AND s.start_ns < COALESCE(i.off_ns, s.start_ns + 1))")
[ "$outside" = 0 ] && pass "lock: no syscall recorded outside the consultant's window" ||
	fail "lock: $outside syscalls outside it"
left=
for pid in $COLLECTORS; do
	left+=$(grep "mtx_$pid/" /sys/kernel/tracing/uprobe_events 2> /dev/null)
done
[ -z "$left" ] && pass "no uprobe of these runs left in tracefs" || fail "uprobes left in tracefs: $left"

# --- a threshold above the program's own share of lock waiting flips the
# node at / (concluded false after a shortened sufficientTime)
live high --consultant-set PC_SyncThreshold=0.95 --consultant-set sufficientTime=2 -- lock 4 4000
share=$(awk '$1 == "wait_ns" { w = $2 } $1 == "thread_ns" { t = $2 } END { if (t) printf "%.4f", w / t }' high.err)
node=$(j high.json "(SELECT json_extract(n.value, '\$.status') || ' ' || json_extract(n.value, '\$.threshold')
	FROM json_each(j, '\$.nodes') n WHERE json_extract(n.value, '\$.hypothesis') = 'ExcessiveSyncWaitingTime'
	AND json_extract(n.value, '\$.focus') = '/')")
if awk -v s="$share" 'BEGIN { exit !(s > 0.2 && s < 0.95) }' && [ "$node" = "false 0.95" ]; then
	pass "--consultant-set: the program waited $share of its time, at threshold 0.95 the node is false"
else
	fail "--consultant-set: the program's share $share, the node at / '$node'"
fi

# --- CPU-bound in crunch()
live cpu -- cpu 2 9000
same cpu cpu "the CPU"
[ "$(where cpu.json cpu function)" = crunch ] && pass "cpu: in crunch()" ||
	fail "cpu: in '$(where cpu.json cpu function)', not crunch()"

# --- more runnable threads than CPUs
live crowd -- crowd 4 2500
same crowd cpu_wait "the wait for a CPU"
# pinned (taskset) to the last CPU this test may use: at that CPU
pin=$(awk '/^Cpus_allowed_list/ { n = split($2, r, "[,-]"); print r[n] }' /proc/self/status)
PIN=$pin live pinned -- crowd 4 2500
same pinned cpu_wait "the wait for a CPU"
[ "$(where pinned.json cpu_wait cpu)" = "$pin" ] && pass "pinned: live, at cpu$pin" ||
	fail "pinned: live at '$(where pinned.json cpu_wait cpu)', not cpu$pin"

# --- small synced writes (at nice -10, as test-diagnose.sh: the writer
# waits for a CPU after each write as long as for the write on a loaded
# machine)
file=$(mktemp "$BUILDDIR/tests/e2e/planted-io.XXXXXX")
NICE=-10 live io -- io-small "$file" 80000
file=$(realpath "$file") && rm -f "$file"
same io io "the I/O"
same io io "the I/O wait" ExcessiveIOBlockingTime
[ "$(j io.json "(SELECT json_extract(f.value, '\$.where.function') FROM json_each(j, '\$.findings') f
	WHERE json_extract(f.value, '\$.hypothesis') = 'ExcessiveIOBlockingTime' ORDER BY f.key LIMIT 1)")" = fdatasync ] &&
	pass "io: live, the wait in fdatasync(), where the thread blocked" ||
	fail "io: live, the wait not in fdatasync(): $(first io.json io ExcessiveIOBlockingTime)"
# the file's I/O wait is what the syscalls showed: none past their window
# (a sync under way when they went off is seen no more)
window=$(sqlite3 io.db "SELECT COALESCE(off_ns, (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'end_ns')) - on_ns
	FROM instrumentation WHERE target = 'syscalls'")
"$MTX" report io.db metric io_wait --focus "/File$file" --format csv > io-file.csv 2>&1
file_wait=$(awk -F, 'NR == 2 { print $(NF - 2) }' io-file.csv)
[ "${file_wait:-0}" -gt 0 ] && [ "$file_wait" -le "${window:-0}" ] &&
	pass "io: the file's I/O wait $file_wait ns, within the syscalls' window of $window ns" ||
	fail "io: the file's I/O wait '$file_wait' ns, the syscalls' window '$window' ns ($(tail -1 io-file.csv))"
small=$(first io.json io TooManySmallIOOps)
[ "${small##*,}" = "/File$file" ] && pass "io: live, too many small I/O ops at the file written" ||
	fail "io: live, TooManySmallIOOps '$small', not at /File$file"

# --- a budget the syscalls do not fit: the I/O hypotheses stay untested
file=$(mktemp "$BUILDDIR/tests/e2e/planted-io.XXXXXX")
live small --overhead-budget 0.0001 -- io-small "$file" 10000
rm -f "$file"
io_nodes=$(j small.json "(SELECT group_concat(DISTINCT json_extract(n.value, '\$.status')) FROM json_each(j, '\$.nodes') n
	WHERE json_extract(n.value, '\$.why') = 'io')")
windows=$(sqlite3 small.db "SELECT COUNT(*) FROM instrumentation WHERE target = 'syscalls'")
calls=$(sqlite3 small.db "SELECT COUNT(*) FROM syscalls")
if [ "$io_nodes" = untested ] && [ "$windows" = 0 ] && [ "$calls" = 0 ] && holds small.err "refused"; then
	pass "budget: syscalls refused, the I/O hypotheses untested, no syscall recorded"
else
	fail "budget: I/O nodes '$io_nodes', $windows syscalls windows, $calls syscalls ($(grep consultant small.err))"
fi

# --- --search-time: the search ends, the program runs on
live short --search-time 1500ms -- cpu 1 5000
off=$(sqlite3 short.db "SELECT (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'end_ns') - off_ns
	FROM instrumentation WHERE target = 'syscalls'")
[ -n "$off" ] && [ "$off" -gt 2000000000 ] && pass "--search-time: the syscalls off $((off / 1000000)) ms before the end" ||
	fail "--search-time: the syscalls off '$off' ns before the end"
# ended while its experiments observed (the collector says how many): the
# findings are unfinished; the io search above ended with none observing
observing=$(sed -n 's/.*(\([0-9]*\) still observing at the end.*/\1/p' short.err)
short_refined=$(j short.json "(SELECT MIN(json_extract(f.value, '\$.refined')) FROM json_each(j, '\$.findings') f)")
io_refined=$(j io.json "(SELECT group_concat(DISTINCT json_extract(f.value, '\$.refined')) FROM json_each(j, '\$.findings') f)")
io_observing=$(sed -n 's/.*(\([0-9]*\) still observing at the end.*/\1/p' io.err)
if [ "${observing:-0}" -gt 0 ] && [ "$short_refined" = 0 ] && [ "$io_observing" = 0 ] && [ "$io_refined" = 1 ] &&
	"$MTX" diagnose short.db | grep -q "unfinished: mtx diagnose short.db --offline"; then
	pass "--search-time: $observing experiments still observing, the findings unfinished; the io ones refined"
else
	fail "refined: short '$short_refined' ($observing observing), io '$io_refined' ($io_observing observing)"
fi

# --- mtx ctl SOCK live: the search as it stands, while the program runs
"$MTX" collect -q --consultant --control "$TMP/ctl.sock" -o ctl.db -- "$PROG" cpu 1 6000 > /dev/null 2>&1 &
pid=$!
COLLECTORS+=" $pid"
seen=
for _ in $(seq 150); do
	"$MTX" ctl --json "$TMP/ctl.sock" live > live.json 2> /dev/null &&
		seen=$(j live.json "(SELECT group_concat(json_extract(n.value, '\$.status') || ' ' ||
			json_extract(n.value, '\$.hypothesis') || ' ' || json_extract(n.value, '\$.focus'), ';')
			FROM json_each(j, '\$.search') n WHERE json_extract(n.value, '\$.depth') = 1)")
	[[ "$seen" == *"true CPUbound /"* ]] && break
	sleep 0.1
done
wait $pid
if [[ "$seen" == *"true CPUbound /"* ]] && [[ "$seen" == *"ExcessiveSyncWaitingTime /"* ]]; then
	pass "mtx ctl live: the search while it runs ($seen)"
else
	fail "mtx ctl live: the search's first nodes: '$seen'"
fi

# --- the offline search does not replace the live one
"$MTX" diagnose lock.db --offline > /dev/null 2>&1
[ "$(sqlite3 lock.db "SELECT value FROM meta WHERE key = 'pc_search'")" = live ] &&
	"$MTX" diagnose lock.db | head -1 | grep -q "made live" &&
	pass "diagnose --offline leaves the live search kept" || fail "the live search was replaced"

# --- bad options
"$MTX" collect --search-time 5s -o bad.db -- "$PROG" cpu 1 10 > /dev/null 2> bad.err
[ $? = 2 ] && holds bad.err "needs it" && pass "--search-time without --consultant refused" ||
	fail "--search-time alone: $(cat bad.err)"
"$MTX" collect --consultant --search-time soon -o bad.db -- "$PROG" cpu 1 10 > /dev/null 2> bad.err
[ $? = 2 ] && pass "--search-time soon refused" || fail "--search-time soon: $(cat bad.err)"
"$MTX" collect --consultant --consultant-set PC_Nothing=1 -o bad.db -- "$PROG" cpu 1 10 > /dev/null 2> bad.err
[ $? = 2 ] && pass "--consultant-set of no tunable refused" || fail "--consultant-set PC_Nothing=1: $(cat bad.err)"
"$MTX" collect --consultant -e sched -o bad.db -- "$PROG" cpu 1 10 > /dev/null 2> bad.err
[ $? = 2 ] && pass "--consultant without the sync source refused" || fail "--consultant -e sched: $(cat bad.err)"
[ -e bad.db ] && fail "a refused command wrote bad.db"
finish
