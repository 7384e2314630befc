#!/bin/bash
# mtx collect --detail for sync ops (collector/sync/summary.h): past the
# budget, ops that neither blocked nor found their lock held are added up
# into summarized_sync_ops, and the views and reports give the figures of
# every op. The truth is tests/e2e/summed-locks' own: its two threads lock
# a mutex of their own PAIRS times each (uncontended), measuring their
# holds from inside and from outside the lock; B locks the shared mutex
# ROUNDS times while A holds it (A sleeps 20 ms with it); A uses one
# address for two mutex lifetimes (FIRST, then SECOND lock pairs). With a
# budget spent early (--detail 1000), run.db must hold:
#   - meta sync_detail_until_ns and summarized_sync_ops;
#   - per thread, the program's lock calls in sync_usage, rows and added up;
#   - per own mutex, lock_contention's 2 * PAIRS ops, none contended, and a
#     hold between the program's inside and outside sums;
#   - for the shared mutex, exactly ROUNDS ops contended and blocked, A the
#     top holder, each of them a row past the cutoff with holder A;
#   - the two lifetimes of the reused address, each with its own ops;
#   - no other row past the cutoff that could have been added up;
#   - the derived sync_totals (the reports') equal to the views, and the
#     overhead report counting every op's wrapper;
# mtx info says how many were added up; the output and exit status are as
# without mtx; the derived tables built from the collector's capture are
# those a build that reads the file gives; with --detail all, nothing is
# added up.
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1
PROG=$BUILDDIR/tests/e2e/summed-locks
[ -x "$PROG" ] || { fail "not built: $PROG"; finish; }
PAIRS=100000

"$PROG" $PAIRS > plain.out 2> /dev/null
plain=$?
"$MTX" collect -q --detail 1000 -o d.db -- "$PROG" $PAIRS > mtx.out 2> mtx.err
st=$?
[ "$st" = "$plain" ] && [ "$st" = 0 ] && cmp -s plain.out mtx.out &&
	pass "the program's output and exit status are as without mtx" ||
	fail "exit $st (plain $plain), output $(head -1 mtx.out) (plain $(head -1 plain.out))"
q() { sql d.db "$1" 2>&1; }
tid_a=$(awk '$1 == "thread" && $2 == "A" { print $3 }' mtx.err)
tid_b=$(awk '$1 == "thread" && $2 == "B" { print $3 }' mtx.err)
shared=$(awk '$1 == "shared" { print $2 }' mtx.err)
rounds=$(awk '$1 == "shared" { print $3 }' mtx.err)
twice=$(awk '$1 == "lifetimes" { print $2 }' mtx.err)
first=$(awk '$1 == "lifetimes" { print $3 }' mtx.err)
second=$(awk '$1 == "lifetimes" { print $4 }' mtx.err)
[[ "$tid_a" =~ ^[0-9]+$ && "$tid_b" =~ ^[0-9]+$ && "$shared" =~ ^[0-9]+$ && "$twice" =~ ^[0-9]+$ ]] ||
	{ fail "the program did not report its facts: $(head -3 mtx.err)"; finish; }

until_ns=$(q "SELECT value FROM meta WHERE key = 'sync_detail_until_ns'")
summed=$(q "SELECT value FROM meta WHERE key = 'summarized_sync_ops'")
in_run=$(q "SELECT MIN(start_ns) < $until_ns AND $until_ns < MAX(end_ns) FROM threads" 2> /dev/null)
[ "$in_run" = 1 ] && [ "${summed:-0}" -gt $PAIRS ] 2> /dev/null &&
	pass "sync ops after $until_ns added up: $summed" ||
	fail "meta sync_detail_until_ns '$until_ns', summarized_sync_ops '$summed'"
rows=$(q "SELECT COUNT(*) FROM summarized_sync_ops")
[ "${rows:-0}" -gt 0 ] && [ "$rows" -lt 100 ] 2> /dev/null && pass "into $rows summarized_sync_ops rows" ||
	fail "$rows summarized_sync_ops rows"

# lock calls per thread: PAIRS on its own mutex, ROUNDS on the shared one,
# and for A the two lifetimes'
want_a=$((PAIRS + rounds + first + second)) want_b=$((PAIRS + rounds))
got_a=$(q "SELECT calls FROM sync_usage WHERE tid = $tid_a AND kind = 'mutex' AND op = 'lock'")
got_b=$(q "SELECT calls FROM sync_usage WHERE tid = $tid_b AND kind = 'mutex' AND op = 'lock'")
[ "$got_a" = "$want_a" ] && [ "$got_b" = "$want_b" ] &&
	pass "sync_usage: the program's lock calls, A $want_a and B $want_b" ||
	fail "sync_usage lock calls: A $got_a (program: $want_a), B $got_b (program: $want_b)"

for who in A B; do
	addr=$(awk -v w=$who '$1 == "own" && $2 == w { print $3 }' mtx.err)
	inside=$(awk -v w=$who '$1 == "thread" && $2 == w { print $4 }' mtx.err)
	outside=$(awk -v w=$who '$1 == "thread" && $2 == w { print $5 }' mtx.err)
	row=$(q "SELECT ops || ' ' || contended || ' ' || blocked || ' ' || total_hold_ns FROM lock_contention
		WHERE addr = $addr")
	read -r ops contended blocked hold <<< "$row"
	[ "$ops" = $((2 * PAIRS)) ] && [ "$contended" = 0 ] && [ "$blocked" = 0 ] &&
		pass "$who's own mutex: $ops ops, none contended" ||
		fail "$who's own mutex: '$row' (ops contended blocked hold), not $((2 * PAIRS)) 0 0"
	[ "${hold:-0}" -ge "$inside" ] 2> /dev/null && [ "$hold" -le "$outside" ] &&
		pass "$who's own mutex held $hold ns, between the program's $inside inside and $outside outside" ||
		fail "$who's own mutex held '$hold' ns, not between the program's $inside and $outside"
done

row=$(q "SELECT ops || ' ' || contended || ' ' || blocked || ' ' || top_holder_tid FROM lock_contention
	WHERE addr = $shared")
[ "$row" = "$((4 * rounds)) $rounds $rounds $tid_a" ] &&
	pass "the shared mutex: $rounds of its $((4 * rounds)) ops contended and blocked, held by A" ||
	fail "the shared mutex: '$row' (ops contended blocked top_holder), not $((4 * rounds)) $rounds $rounds $tid_a"
n=$(q "SELECT COUNT(*) FROM sync_ops op JOIN sync_objects o ON o.id = op.object_id WHERE o.addr = $shared
	AND op.tid = $tid_b AND op.op = 'lock' AND op.blocked AND op.holder_tid = $tid_a AND op.start_ns >= $until_ns")
[ "$n" = "$rounds" ] && pass "B's $rounds contended locks are rows past the cutoff, with holder A" ||
	fail "$n of B's contended locks are rows past the cutoff with holder A, not $rounds"

lives=$(q "SELECT group_concat(ops, ' ') FROM (SELECT l.ops FROM lock_contention l JOIN sync_objects o
	ON o.id = l.object_id WHERE o.addr = $twice ORDER BY o.created_ns)")
[ "$lives" = "$((2 * first + 2)) $((2 * second + 2))" ] &&
	pass "the reused address: two lifetimes of $((2 * first + 2)) and $((2 * second + 2)) ops" ||
	fail "the reused address: lifetimes of '$lives' ops, not $((2 * first + 2)) $((2 * second + 2))"

# Past the cutoff, a row is an op that must be one: blocked, contended, a
# lifetime's op, unfinished, a slow wrapper, or on an object whose lifetimes
# were split (collector/sync/summary.h).
extra=$(q "SELECT COUNT(*) FROM sync_ops op JOIN sync_objects o ON o.id = op.object_id
	WHERE op.start_ns >= $until_ns AND NOT op.blocked AND op.holder_tid IS NULL AND op.unfinished IS NULL
	AND op.op NOT IN ('init', 'destroy', 'create', 'join', 'open', 'close') AND COALESCE(op.overhead_ns, 0) <= 2000
	AND o.addr <> $twice")
[ "$extra" = 0 ] && pass "no other row past the cutoff" || fail "$extra rows past the cutoff could have been added up"

diff=$(q "SELECT COUNT(*) FROM (SELECT object_id, SUM(calls) AS n, SUM(contended) AS c, SUM(hold_ns) AS h
		FROM sync_totals GROUP BY object_id) x JOIN lock_contention l USING (object_id)
	WHERE x.n <> l.ops OR x.c <> l.contended OR x.h <> l.total_hold_ns")
[ "$diff" = 0 ] && pass "the derived sync_totals equal lock_contention, object by object" ||
	fail "$diff objects whose sync_totals differ from lock_contention"

# seed 004's overhead counts every op's wrapper, rows and added up
ops=$(q "SELECT (SELECT COUNT(*) FROM sync_ops) + (SELECT SUM(calls) FROM summarized_sync_ops)")
"$MTX" report d.db overhead --format csv > overhead.csv 2> /dev/null
n=$(awk -F, '$1 == "sync wrapper" { print $2 }' overhead.csv)
[ "$n" = "$ops" ] && pass "report overhead: the wrappers of all $ops ops" ||
	fail "report overhead counts '$n' sync wrappers, not the $ops ops"

"$MTX" info d.db > info.txt 2>&1
holds info.txt "^sync ops .*$summed more added up" && holds info.txt "sync ops after .* only added up" &&
	pass "mtx info says how many sync ops were added up, and after when" ||
	fail "mtx info: $(grep -E 'sync|detail' info.txt | tr '\n' ';')"

# The derived tables are built from the rows the collector captured as it
# wrote them, ops added up included, and are those a build that reads the
# file gives (the capture was once given up for sync_ops' gaps of ids).
"$MTX" collect -v --detail 1000 -o cap.db -- "$PROG" 20000 > /dev/null 2> cap.err
grep -q "derived tables: run captured" cap.err || fail "the capture was not used: $(grep 'derived tables' cap.err | head -2)"
cp cap.db file.db && sql file.db "DELETE FROM meta WHERE key = 'derived_version'" &&
	"$MTX" report -v file.db threads > /dev/null 2> file.err || fail "rebuilding from the file: $(head -1 file.err)"
grep -q "derived tables: run read" file.err || fail "the rebuild did not read the file: $(head -2 file.err)"
differ=""
for t in $(sed -n 's/^CREATE TABLE \([a-z_]*\) .*/\1/p' "$srcdir/schema/derived.sql"); do
	[ "$(sql cap.db "SELECT * FROM $t" | sort | md5sum)" = "$(sql file.db "SELECT * FROM $t" | sort | md5sum)" ] ||
		differ="$differ $t"
done
[ -z "$differ" ] && pass "the derived tables built from the capture are those built from the file" ||
	fail "the derived tables from the capture and from the file differ:$differ"

"$MTX" collect -q --detail all -o all.db -- "$PROG" 2000 > /dev/null 2>&1
n=$(sql all.db "SELECT COUNT(*) FROM summarized_sync_ops")
[ "$n" = 0 ] && pass "--detail all adds up no sync op" || fail "--detail all: $n summarized_sync_ops rows"
finish
