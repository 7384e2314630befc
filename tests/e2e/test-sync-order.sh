#!/bin/bash
# Two threads' sync ops come in the order they happened. tests/e2e/handoff
# (two threads on two CPUs taking one spinlock in turn) numbers its own
# critical sections from a counter inside the lock: the truth. Every
# section after one of the other thread's must be stamped as taking the
# lock no earlier than that section's unlock began, and each thread's
# sections must come in its numbers' order. A stamp read out of order
# with the lock's atomic step on the other CPU (rdtsc is not ordered with
# the memory accesses around it) breaks the first: the replay then sees
# two holders at once (collector/sync/resolve.c), and seed 004's
# happened-before graph an edge backwards.
. "$(dirname "$0")/lib.sh"
require_perf
[ "$(nproc)" -ge 2 ] || skip "one CPU: the two threads cannot run at once"
cd "$TMP" || exit 1

rounds=100000
"$MTX" collect -q -e sync -o order.db -- "$BUILDDIR/tests/e2e/handoff" $rounds > numbers.txt 2> err.txt ||
	fail "collect exited $?: $(head -1 err.txt)"
[ "$(wc -l < numbers.txt)" = 2 ] || { fail "handoff printed $(wc -l < numbers.txt) lines, not 2"; finish; }
# the program's numbers as (tid, i, n): thread tid's i-th section was n-th
awk '{ for (i = 2; i <= NF; i++) print $1 "," i - 1 "," $i }' numbers.txt > numbers.csv
sqlite3 -batch order.db <<'EOF' > check.txt 2> check.err
CREATE TEMP TABLE numbers(tid INTEGER, i INTEGER, n INTEGER);
.mode csv
.import numbers.csv numbers
.mode list
CREATE TEMP TABLE spin_ops(tid INTEGER, op TEXT, i INTEGER, start_ns INTEGER, end_ns INTEGER,
	PRIMARY KEY (tid, op, i));
INSERT INTO spin_ops SELECT op.tid, op.op, ROW_NUMBER() OVER (PARTITION BY op.tid, op.op ORDER BY op.start_ns, op.id),
	op.start_ns, op.end_ns
FROM sync_ops op JOIN sync_objects o ON o.id = op.object_id
WHERE o.kind = 'spinlock' AND op.op IN ('lock', 'unlock');
CREATE TEMP TABLE sections AS
SELECT n.n, n.tid, l.end_ns AS taken_ns, u.start_ns AS left_ns
FROM numbers n
JOIN spin_ops l ON l.tid = n.tid AND l.op = 'lock' AND l.i = n.i
JOIN spin_ops u ON u.tid = n.tid AND u.op = 'unlock' AND u.i = n.i;
CREATE INDEX sections_n ON sections(n);
SELECT COUNT(*) FROM sections;
SELECT COUNT(*) FROM sections a JOIN sections b ON b.n = a.n + 1 WHERE b.tid <> a.tid;
SELECT COUNT(*), COALESCE(MIN(b.taken_ns - a.left_ns), 0) FROM sections a JOIN sections b ON b.n = a.n + 1
WHERE b.tid <> a.tid AND b.taken_ns < a.left_ns;
SELECT COUNT(*) FROM sections a JOIN sections b ON b.n = a.n + 1 WHERE b.taken_ns < a.taken_ns;
EOF
[ -s check.err ] && fail "the check's SQL: $(head -1 check.err)"
{ read -r matched; read -r handoffs; IFS='|' read -r inverted worst; read -r reordered; } < check.txt
[ "$matched" = $((2 * rounds)) ] ||
	fail "$matched of the program's $((2 * rounds)) sections matched to a lock and an unlock"
[ "${handoffs:-0}" -ge 10 ] || fail "only ${handoffs:-0} handoffs between the threads: the check saw too few"
[ "$inverted" = 0 ] && [ "$reordered" = 0 ] &&
	pass "$handoffs handoffs of $matched sections: each taken after the other thread's unlock began" ||
	fail "$inverted of $handoffs handoffs stamped as taken before the unlock that let them in" \
		"(worst by $((-worst)) ns); $reordered sections out of the program's order"
finish
