#!/bin/bash
# Seed 004's T_0 (SEEDS-MAP P2), with the truth from outside mtx:
# (a) a writer outside the traced program (tests/e2e/extwriter, started
#     by this test) writes a pipe at instants it logs on CLOCK_MONOTONIC,
#     the clock of mtx's *_ns: each write that found the traced reader
#     blocked is an external event of the reader, 'other-process' with the
#     writer's pid and name, stamped between the writer's clock reads
#     just before and just after its write(2);
# (b) the interrupts table counts each irq as /proc/interrupts does: for
#     the busiest irq of the run (dd with O_DSYNC makes disk interrupts),
#     at least as many as the program itself saw between its first and
#     last read of /proc/interrupts (all inside the recording), at most as
#     many as the test saw from before mtx started to after it ended,
#     while a spinner keeps each CPU out of idle (see below); a shortfall
#     only as large as the records mtx says it lost, or, if the CPU went
#     idle all the same (cpuidle's own count says so), none checked.
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1

# --- (a) external writes
mkfifo in.fifo || exit 1
"$BUILDDIR/tests/e2e/extwriter" in.fifo 20 30000 > writes.txt 2> writer.err &
wpid=$!
"$MTX" collect -q -o ext.db -- cat in.fifo > read.txt 2> err.txt || fail "collect exited $?: $(head -1 err.txt)"
wait $wpid || fail "the writer failed: $(head -1 writer.err)"
[ "$(cat read.txt)" = xxxxxxxxxxxxxxxxxxxx ] || fail "the reader read '$(cat read.txt)', not the 20 bytes written"
reader=$(sql ext.db "SELECT tid FROM threads WHERE name = 'cat'")
[ -n "$reader" ] || { fail "no thread cat in the run"; finish; }
checked=0 found=0 within=0 late=0
while read -r _ planned before after; do
	# A write that did not find the reader blocked (slow to come back to
	# its read on a loaded machine) woke nobody.
	blocked=$(sql ext.db "SELECT COUNT(*) FROM thread_states WHERE tid = $reader AND
		state NOT IN ('running', 'runnable') AND start_ns <= $before AND end_ns >= $before")
	[ "$blocked" = 1 ] || continue
	checked=$((checked + 1))
	row=$(sql ext.db "SELECT ts_ns FROM external_events WHERE wakee_tid = $reader AND kind = 'other-process'
		AND waker_pid = $wpid AND waker_comm = 'extwriter' AND ts_ns BETWEEN $before AND $after")
	if [ -z "$row" ]; then
		fail "the write at $before-$after ns (planned $planned) is not an external event of the reader"
		continue
	fi
	found=$((found + 1))
	[ $((row - before)) -le 50000 ] && within=$((within + 1))
	[ $((before - planned)) -le 50000 ] || late=$((late + 1))
done < writes.txt
[ "$checked" -ge 10 ] || fail "only $checked of 20 writes found the reader blocked"
[ "$found" = "$checked" ] && pass "$found writes that woke the reader are its external events, from the writer's pid"
echo "note: $within of $found wakeups within 50 us of the writer's clock read before its write;" \
	"$late writes began over 50 us after the instant planned"
"$MTX" report ext.db external --format csv > ext.csv 2> report.err || fail "report external: $(head -1 report.err)"
# and the close, if it found the reader blocked: its end of file
[ "$(grep -c ",cat ($reader),$wpid (extwriter),read (pipe)$" ext.csv)" -ge "$found" ] ||
	fail "report external does not list the $found writes: $(head -3 ext.csv)"

# --- (b) interrupt counts against /proc/interrupts
# irq_counts FILE - "irq cpu count name" per numbered irq line.
irq_counts() {
	awk 'NR == 1 { ncpu = NF; next }
	     $1 ~ /^[0-9]+:$/ { irq = $1; sub(":", "", irq); name = $NF
	       for (c = 0; c < ncpu; c++) print irq, c, $(c + 2), name }' "$1"
}
# perf (mtx's and perf record -a's alike) gets no tracepoint record of a
# handler that interrupted a CPU's idle task, where ftrace sees them all
# (kernel 6.18 here): a spinner on each CPU, outside the run, keeps the
# CPUs out of idle so that the count is the kernel's whole count.
# Each spinner says when it runs pinned, so that none is still starting
# on a loaded machine when the program does.
spinners=()
for ((c = 0; c < $(nproc); c++)); do
	taskset -c "$c" sh -c "echo > spinning.$c; while :; do :; done" &
	spinners+=($!)
done
for ((i = 0; i < 500; i++)); do
	[ "$(ls spinning.* 2> /dev/null | wc -l)" -ge "$(nproc)" ] && break
	sleep 0.01
done
# idle-entries prints "cpu entries": how many times each CPU has entered
# an idle state, from cpuidle (nothing where the kernel has no cpuidle).
cat > idle-entries <<'EOF'
for d in /sys/devices/system/cpu/cpu[0-9]*; do
	[ -d "$d/cpuidle" ] && echo "${d##*cpu} $(cat "$d"/cpuidle/state*/usage | awk '{ s += $1 } END { print s }')"
done
EOF
cat /proc/interrupts > outer1
"$MTX" collect -q -e all -o irq.db -- sh -c 'sh idle-entries > idle1; cat /proc/interrupts > inner1
	dd if=/dev/zero of=dd.out bs=4k count=100 oflag=dsync 2> /dev/null
	cat /proc/interrupts > inner2; sh idle-entries > idle2' 2> err.txt || fail "collect exited $?: $(head -1 err.txt)"
cat /proc/interrupts > outer2
kill "${spinners[@]}" 2> /dev/null
wait "${spinners[@]}" 2> /dev/null
for f in outer1 inner1 inner2 outer2; do irq_counts $f | sort > $f.counts; done
# deltas FROM TO - "count irq/cpu": how many of each irq on each CPU came
# between the snapshots FROM and TO
deltas() {
	join <(awk '{ print $1 "/" $2, $3 }' "$1.counts" | sort) <(awk '{ print $1 "/" $2, $3 }' "$2.counts" | sort) |
		awk '{ print $3 - $2, $1 }'
}
deltas inner1 inner2 | sort -n | tail -1 > busiest
read -r inner key < busiest
irq=${key%/*} cpu=${key#*/}
outer=$(deltas outer1 outer2 | awk -v k="$key" '$2 == k { print $1 }')
run=$(sql irq.db "SELECT COUNT(*) FROM interrupts WHERE kind = 'irq' AND irq = $irq AND cpu = $cpu")
# What mtx says it missed (a record lost from the kernel's ring, a handler
# whose entry or exit went with it) may make up a shortfall; nothing else.
# Every source's losses count: the kernel says how many records a CPU's
# ring lost, not of which source (mtx-collect(1), LOST RECORDS).
said=$(sql irq.db "SELECT COALESCE(SUM(value), 0) FROM meta WHERE key LIKE 'lost\_%' ESCAPE '\' OR key = 'interrupts_unpaired'")
late=$(sql irq.db "SELECT value FROM meta WHERE key = 'late_events'")
# mtx info counts them, by kind
# The idle entries of the irq's CPU while the program counted: a
# spinner can be kept off its CPU all the same (a throttled cgroup, a
# host that takes the vCPU), and a handler that interrupts idle makes no
# record (see above), so a shortfall then proves nothing.
idled=$(join <(sort idle1) <(sort idle2) | awk -v c="$cpu" '$1 == c { print $3 - $2 }')
rows=$(sql irq.db "SELECT COUNT(*) FROM interrupts")
kinds=$(sql irq.db "SELECT group_concat(n || ' ' || kind, ', ') FROM (SELECT kind, COUNT(*) AS n FROM interrupts
	GROUP BY kind ORDER BY n DESC, kind)")
line=$("$MTX" info irq.db | grep '^interrupts ')
[ "$line" = "$(printf '%-13s %s  (%s)' interrupts "$rows" "$kinds")" ] && pass "mtx info: $line" ||
	fail "mtx info's interrupts line is '$line', not $rows rows ($kinds)"
if [ "${inner:-0}" -le 0 ]; then
	fail "no numbered irq fired while the program ran (dd with O_DSYNC should make disk interrupts)"
elif [ "$((run + said))" -ge "$inner" ] && [ "$run" -le "$outer" ]; then
	pass "irq $irq on cpu $cpu: $run in the run ($said said missed), $inner seen by the program, $outer by the test"
elif [ "${idled:-0}" -gt 0 ] && [ "$run" -le "$outer" ]; then
	echo "note: irq $irq on cpu $cpu: $run in the run, $inner seen by the program, but cpu $cpu went idle" \
		"$idled times while it counted: the shortfall is not checked"
else
	fail "irq $irq on cpu $cpu: $run in the run ($said said missed, $late late events)," \
		"not between the program's $inner and the test's $outer"
fi
finish
