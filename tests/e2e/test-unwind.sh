#!/bin/bash
# tests/e2e/test-unwind.sh - 'mtx collect --sample 999 --call-graph dwarf'
# on the nofp sample (built -O2 -fomit-frame-pointer; path_a > path_b > hot,
# hot nearly all of the CPU time, see samples/nofp.c):
#  - the program's output and exit status are those of a plain run, with
#    either method;
#  - dwarf: the samples say 'dwarf' (or 'fp' when they fell back), and
#    meta's counts add up to the samples; nearly every sample in hot has
#    the whole path above it (path_b its caller, path_a path_b's), where
#    the fp method of the same program gives that path to almost none;
#  - every spinner's flat profile has hot on top;
#  - a stack copy too small to reach the outer frames is said so
#    (meta.unwind_truncated) and the run is still recorded; copies too
#    large for the ring are warned about, the default ones not;
#  - bad --call-graph values: one line, exit 2, nothing recorded.
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1
NOFP=$SAMPLES/nofp
[ -x "$NOFP" ] || { fail "nofp not built"; finish; }

"$NOFP" 2 300 > plain.out 2>&1
plain_status=$?

# path_share DB -> "samples in hot|of them with path_a > path_b above"
path_share() {
	sql "$1" "SELECT COUNT(*), COALESCE(SUM(fb.name IS 'path_b' AND fa.name IS 'path_a'), 0)
		FROM samples s JOIN stacks l ON l.id = s.stack_id JOIN functions f ON f.id = l.function_id
		LEFT JOIN stacks pb ON pb.id = l.parent_id LEFT JOIN functions fb ON fb.id = pb.function_id
		LEFT JOIN stacks pa ON pa.id = pb.parent_id LEFT JOIN functions fa ON fa.id = pa.function_id
		WHERE f.name = 'hot'"
}

for how in dwarf fp; do
	"$MTX" collect -q -e sched --sample 999 --call-graph $how -o $how.db -- "$NOFP" 2 300 > $how.out 2> $how.err
	status=$?
	[ "$status" = "$plain_status" ] || fail "$how: exit status $status under mtx, $plain_status without"
	cmp -s plain.out $how.out || fail "$how: nofp's output differs under mtx"
	[ -s $how.db ] || { fail "$how: no database: $(head -1 $how.err)"; finish; }
	[ "$(sql $how.db "SELECT value FROM meta WHERE key = 'call_graph'")" = $how ] || fail "$how: meta.call_graph"
	[ "$(sql $how.db "SELECT SUM(value) FROM meta WHERE key LIKE 'lost_%'")" = 0 ] || fail "$how: records were lost"
done

n=$(sql dwarf.db "SELECT COUNT(*) FROM samples")
[ "$n" -gt 100 ] || fail "dwarf: only $n samples of ~0.4 s of CPU at 999 Hz"
other=$(sql dwarf.db "SELECT COUNT(*) FROM samples WHERE unwind NOT IN ('dwarf', 'fp') OR unwind IS NULL")
[ "$other" = 0 ] || fail "dwarf: $other samples say neither dwarf nor fp"
counted=$(sql dwarf.db "SELECT (SELECT value FROM meta WHERE key = 'unwind_dwarf') || '|' ||
	(SELECT SUM(value) FROM meta WHERE key LIKE 'unwind_fallback_%')")
want="$(sql dwarf.db "SELECT COUNT(*) FROM samples WHERE unwind = 'dwarf'")|$(sql dwarf.db "SELECT COUNT(*) FROM samples WHERE unwind = 'fp'")"
[ "$counted" = "$want" ] || fail "dwarf: meta counts dwarf|fallbacks $counted, the rows $want"
[ "$(sql fp.db "SELECT COUNT(*) FROM samples WHERE unwind IS NOT 'fp'")" = 0 ] || fail "fp: samples not 'fp'"

IFS='|' read -r hot whole <<< "$(path_share dwarf.db)"
[ "$hot" -gt 100 ] || fail "dwarf: only $hot samples in hot"
[ $((whole * 10)) -ge $((hot * 9)) ] && pass "dwarf: $whole of $hot samples in hot have path_a > path_b above" ||
	fail "dwarf: only $whole of $hot samples in hot have path_a > path_b above"
IFS='|' read -r fhot fwhole <<< "$(path_share fp.db)"
[ "$fhot" -gt 100 ] || fail "fp: only $fhot samples in hot"
[ $((fwhole * 10)) -lt "$fhot" ] && pass "fp: $fwhole of $fhot samples in hot have the path (frame pointers cannot)" ||
	fail "fp: $fwhole of $fhot samples in hot have the whole path: is nofp built with frame pointers?"

# The caller above the callee in the call graph too: hot's caller is path_b.
"$MTX" report dwarf.db calls --function '^hot$' --format csv > calls.csv 2> calls.err ||
	fail "report calls: $(head -1 calls.err)"
grep -q '^[0-9]*,,,.*,    path_b \[[0-9]*\]$' calls.csv && pass "calls: path_b is hot's caller" ||
	fail "calls: no caller path_b above hot: $(head -5 calls.csv)"

"$MTX" report dwarf.db flat --format csv > flat.csv 2> flat.err || fail "report flat: $(head -1 flat.err)"
for t in $(sql dwarf.db "SELECT tid FROM threads WHERE name LIKE 'spin-%'"); do
	top=$(awk -F, -v t="$t" '$1 == t { print $3; exit }' flat.csv)
	[ "$top" = hot ] && pass "spinner $t: hot on top" || fail "spinner $t: top of the flat profile is '$top', not hot"
done
[ "$(sql dwarf.db "SELECT COUNT(*) FROM threads WHERE name LIKE 'spin-%'")" = 2 ] || fail "expected 2 spinners"

# 64 bytes of stack reach hot's callers at best, never start_thread.
"$MTX" collect -q -e sched --sample 999 --call-graph dwarf,64 -o small.db -- "$NOFP" 1 100 > small.out 2> small.err
[ $? = 0 ] || fail "dwarf,64: $(head -1 small.err)"
t=$(sql small.db "SELECT value FROM meta WHERE key = 'unwind_truncated'")
[ "${t:-0}" -gt 0 ] && pass "dwarf,64: $t samples said truncated" || fail "dwarf,64: no sample said truncated"
[ "$(sql small.db "SELECT value FROM meta WHERE key = 'sample_stack_bytes'")" = 64 ] || fail "dwarf,64: meta.sample_stack_bytes"

# A copy that fills the ring within 250 ms of one busy thread is warned
# about, and the run still goes as without mtx.
"$MTX" collect --sample 10000 --call-graph dwarf,65528 -m 1 -o big.db -- "$NOFP" 1 1 > big.out 2> big.err
[ $? = 0 ] && "$NOFP" 1 1 | cmp -s - big.out || fail "dwarf,65528 -m 1: $(head -1 big.err)"
grep -q "^mtx: warning: --call-graph dwarf,65528 at 10000 Hz fills a 1 MiB buffer" big.err &&
	pass "a ring too small for the copies is warned about" || fail "no warning about the ring: $(cat big.err)"
"$MTX" collect --sample 999 --call-graph dwarf -o small-ok.db -- "$NOFP" 1 1 > /dev/null 2> ok.err
grep -q "buffer in" ok.err && fail "the default copy and buffer were warned about: $(cat ok.err)"

# Bad input: one error line (and the usage line), exit 2, nothing recorded.
for args in "--sample 99 --call-graph lbr" "--sample 99 --call-graph dwarf,10" "--sample 99 --call-graph dwarf,x" \
	"--sample 99 --call-graph dwarf,70000" "--call-graph dwarf"; do
	# shellcheck disable=SC2086
	"$MTX" collect $args -o bad.db -- "$NOFP" 1 1 > bad.out 2> bad.err
	status=$?
	[ $status = 2 ] && [ "$(grep -c '^mtx: ' bad.err)" = 1 ] && [ ! -e bad.db ] && [ ! -s bad.out ] ||
		fail "'$args': exit $status, $(cat bad.err)"
done
finish
