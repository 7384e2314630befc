#!/bin/bash
# mtx calibrate (SEEDS-MAP P8, seed 004 4.2): --only sched prints one line
# with a positive figure, the two medians it is the difference of, and the
# class the two threads really had (SCHED_FIFO 99/98 where chrt may use it,
# SCHED_OTHER otherwise: checked as root and as nobody); every round is
# counted or discarded; bad command lines exit 2 with one line (and the
# synopsis); a collected run has meta cal_sched_switch_ns > 0 and says how
# it was obtained. No timing is asserted: bench/calibrate-sched.sh checks
# the figure's stability and size.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
# The figures mtx calibrate keeps (collector/cal-store.h) go here, not to
# the machine's /var/lib/mtx; writable by the run as nobody below.
chmod 711 "$TMP" && mkdir -m 1777 "$TMP/cal" || exit 1
export MTX_CALIBRATION=$TMP/cal/calibration

# Both threads go on the lowest CPU mtx may use; without taskset there is
# nothing to check beforehand, and mtx says itself if it cannot.
if command -v taskset > /dev/null; then
	cpu=$(taskset -cp $$ | sed 's/.*: *//; s/[-,].*//')
	taskset -c "$cpu" true 2> /dev/null || skip "cannot pin a thread to CPU $cpu (taskset -c $cpu fails)"
fi

LINE='^context switch \+ wakeup  ([0-9.]+) (ns|us|ms)  \(post with waiter [0-9.]+ (ns|us|ms) - post without [0-9.]+ (ns|us|ms); 2 threads pinned to cpu [0-9]+, (SCHED_FIFO 99/98|SCHED_OTHER nice -?[0-9]+/-?[0-9]+); n=([0-9]+)(, ([0-9]+) rounds? discarded)?\)$'

# check_sched LABEL [PREFIX...] - run PREFIX mtx calibrate --only sched
# --rounds 3000 and check its line; the class must be SCHED_FIFO exactly
# when PREFIX chrt -f 1 can run a program.
check_sched() {
	local label=$1 want status n discarded
	shift
	if "$@" chrt -f 1 true 2> /dev/null; then want="SCHED_FIFO 99/98"; else want="SCHED_OTHER nice"; fi
	"$@" "$MTX" calibrate --only sched --rounds 3000 > out.txt 2> err.txt
	status=$?
	if [ "$(wc -l < out.txt)" != 1 ]; then
		fail "$label: $(wc -l < out.txt) lines, not 1: $(cat out.txt err.txt)"
	elif grep -q "no clear figure" out.txt && [ $status = 1 ] && [ "$want" != "SCHED_FIFO 99/98" ]; then
		# SCHED_OTHER may not preempt the poster in half the rounds
		pass "$label: $(cat out.txt)"
	elif [ $status != 0 ]; then
		fail "$label: exit $status: $(cat out.txt err.txt)"
	elif ! grep -Eq "$LINE" out.txt; then
		fail "$label: not the expected line: $(cat out.txt)"
	elif ! grep -q ", $want" out.txt; then
		fail "$label: expected $want: $(cat out.txt)"
	elif [ -s err.txt ]; then
		fail "$label: said on stderr: $(head -1 err.txt)"
	else
		n=$(sed -E "s@$LINE@\6@" out.txt)
		discarded=$(sed -E "s@$LINE@\8@" out.txt)
		if [ $((n + ${discarded:-0})) != 3000 ]; then
			fail "$label: n=$n and ${discarded:-0} discarded are not the 3000 rounds"
		elif ! awk -v f="$(sed -E "s@$LINE@\1@" out.txt)" 'BEGIN { exit !(f > 0) }'; then
			fail "$label: the figure is not positive: $(cat out.txt)"
		else
			pass "$label: $(cat out.txt)"
		fi
	fi
}

check_sched "as $(id -un)"
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	check_sched "as nobody" env MTX_CALIBRATION="$TMP/cal/nobody" setpriv --reuid=65534 --regid=65534 --clear-groups
fi

# A plain mtx calibrate prints the same line and a line per kernel record;
# these may be "not calibrated" (a noisy machine, no perf access).
"$MTX" calibrate --rounds 1000 > all.txt 2> err.txt
status=$?
grep -Eq "$LINE" all.txt || fail "plain calibrate: no sched line: $(cat all.txt err.txt)"
for key in cal_syscalls_ns cal_samples_ns cal_switches_ns cal_wakeups_ns cal_uprobes_ns; do
	grep -Eq "meta $key\)$|not calibrated" all.txt || fail "plain calibrate: no line for $key"
done
for key in cal_sync_pair_ns cal_hook_call_ns; do
	grep -Eq "kept as $key\)$|not calibrated" all.txt || fail "plain calibrate: no line for $key"
done
[ "$(wc -l < all.txt)" = 8 ] || fail "plain calibrate: $(wc -l < all.txt) lines, not 8"
# --only probes: one line, a traced call's cost, its probes gone after. A
# machine others load can make its rounds disagree ("not calibrated", exit
# 1, as it should): up to three tries.
for try in 1 2 3; do
	"$MTX" calibrate --only probes > probes.txt 2> err.txt
	rc=$?
	[ $rc != 0 ] && grep -q "not calibrated" probes.txt || break
	echo "note: calibrate --only probes, try $try: the rounds disagreed"
done
if [ $rc = 0 ] && [ "$(wc -l < probes.txt)" = 1 ] &&
	grep -Eq '^function probe call +[0-9.]+ (ns|us)  \(.*meta cal_uprobes_ns\)$' probes.txt; then
	pass "calibrate --only probes: $(cat probes.txt)"
else
	fail "calibrate --only probes: $(cat probes.txt err.txt)"
fi
# kept with this machine's identity, the figure printed
printed=$(awk '{ print ($5 == "us" ? $4 * 1000 : $4) }' probes.txt)
kept=$(awk '$1 == "cal_uprobes_ns" { print $2 }' "$MTX_CALIBRATION" 2> /dev/null)
machine=$(head -1 "$MTX_CALIBRATION" 2> /dev/null)
if [ -n "$kept" ] && [ "$(awk -v p="$printed" -v k="$kept" 'BEGIN { print (k - p < 10 && p - k < 10) }')" = 1 ] &&
	[[ $machine == "machine $(uname -n) $(uname -r) $(nproc) "* ]]; then
	pass "calibrate keeps cal_uprobes_ns $kept with '$machine'"
else
	fail "calibrate kept '$kept' (printed $printed ns) with '$machine' in $MTX_CALIBRATION"
fi
# --only library: a recorded lock + unlock pair and a hooked call, kept
"$MTX" calibrate --only library > library.txt 2> err.txt
if [ $? = 0 ] && [ "$(wc -l < library.txt)" = 2 ] &&
	grep -Eq '^sync op pair +[0-9.]+ (ns|us)  \(.*kept as cal_sync_pair_ns\)$' library.txt &&
	grep -Eq '^hooked call +[0-9.]+ (ns|us)  \(.*kept as cal_hook_call_ns\)$' library.txt; then
	pass "calibrate --only library: $(tr '\n' ';' < library.txt)"
else
	fail "calibrate --only library: $(cat library.txt err.txt)"
fi
for key in cal_sync_pair_ns cal_hook_call_ns; do
	kept=$(awk -v k="$key" '$1 == k { print $2 }' "$MTX_CALIBRATION" 2> /dev/null)
	printed=$(grep "kept as $key)" library.txt |
		awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "ns" || $(i + 1) == "us") { print ($(i + 1) == "us" ? $i * 1000 : $i); exit } }')
	[ -n "$kept" ] && [ "$(awk -v p="$printed" -v k="$kept" 'BEGIN { print (k - p < 10 && p - k < 10) }')" = 1 ] &&
		pass "calibrate keeps $key $kept" ||
		fail "calibrate kept $key '$kept', printed '$printed'"
done
grep -q "^[a-z]:mtx_[0-9]*/cal_" /sys/kernel/tracing/uprobe_events 2> /dev/null &&
	! pgrep -x mtx > /dev/null && fail "calibrate --only probes left its uprobes in tracefs"
{ [ $status = 0 ] && ! grep -q "not calibrated" all.txt; } || { [ $status = 1 ] && grep -q "not calibrated" all.txt; } ||
	fail "plain calibrate exited $status: $(cat all.txt)"

# expect_usage PATTERN ARGS... - mtx calibrate ARGS exits 2, prints
# nothing on stdout, and on stderr one line matching PATTERN then the
# synopsis.
expect_usage() {
	local pattern=$1 status
	shift
	"$MTX" calibrate "$@" > out.txt 2> err.txt
	status=$?
	if [ $status != 2 ]; then
		fail "calibrate $*: exit $status, not 2"
	elif [ -s out.txt ] || ! head -1 err.txt | grep -Eq "^mtx: $pattern" ||
		[ "$(sed -n 2p err.txt)" != "usage: mtx calibrate [--only sched|records|probes|library] [--rounds N]" ] ||
		[ "$(wc -l < err.txt)" != 2 ]; then
		fail "calibrate $*: said $(cat out.txt err.txt)"
	else
		pass "calibrate $* -> 2: $(head -1 err.txt)"
	fi
}
expect_usage "unknown option '--bogus'" --bogus
expect_usage "unknown option '--onyl' \(did you mean --only\?\)" --onyl sched
expect_usage "unknown calibration 'disk'" --only disk
expect_usage "option '--only' needs a value" --only
expect_usage "--rounds takes a count" --rounds 0
expect_usage "--rounds takes a count" --rounds 12x
expect_usage "unexpected argument 'run.db'" run.db
"$MTX" help calibrate | grep -q "^usage: mtx calibrate" || fail "mtx help calibrate: no usage"
"$MTX" --help | grep -q "^  calibrate " || fail "mtx --help does not list calibrate"

# Each run measures it at its start, into meta.
require_perf
"$MTX" collect -q -o run.db -- "$SAMPLES/ring" > /dev/null 2> err.txt || fail "collect exited $?: $(head -1 err.txt)"
ns=$(sql run.db "SELECT value FROM meta WHERE key = 'cal_sched_switch_ns' AND value NOT GLOB '*[^0-9]*' AND CAST(value AS INTEGER) > 0")
how=$(sql run.db "SELECT value FROM meta WHERE key = 'cal_sched_switch_how'")
if [ -z "$ns" ]; then
	fail "run.db: no positive integer cal_sched_switch_ns ($(sql run.db "SELECT value FROM meta WHERE key LIKE 'cal_sched%'"))"
elif ! printf '%s\n' "$how" | grep -Eq '^post with waiter .* - post without .*; 2 threads pinned to cpu [0-9]+, SCHED_(FIFO|OTHER) .*; n=[0-9]+'; then
	fail "run.db: cal_sched_switch_how is '$how'"
else
	pass "run.db: cal_sched_switch_ns $ns ($how)"
fi
finish
