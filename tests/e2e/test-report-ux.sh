#!/bin/bash
# tests/e2e/test-report-ux.sh - mtx report as a new user meets it, on the
# fixture runs of tests/fixtures (no perf needed): plain titles, tables
# that fit the terminal and are never cut in a pipe, threads named where
# they wait and hold, one error line for a filter that selects nothing,
# run.db by default, "did you mean" for a misspelled name.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 > /dev/null || skip "sqlite3 (the CLI) is not installed"
cd "$TMP" || exit 1

for f in waits profile reuse; do
	"$BUILDDIR/tests/fixture-db" "$srcdir/tests/fixtures/$f.sql" $f.db || { fail "fixture-db $f"; finish; }
done
reports=$("$MTX" report --list | awk '{ print $1 }')
[ -n "$reports" ] || fail "mtx report --list listed nothing"

# Titles say what a table is, in plain words: no paper's table or figure.
jargon='seed 0|[Ss]eeds? [0-9]|Table [0-9]|Figure [0-9]|Paradyn'
"$MTX" report --list | grep -E "$jargon" > list-jargon.txt && fail "report --list: $(head -1 list-jargon.txt)"
for r in $reports; do
	[ "$r" = object ] && set -- 0x1000 || set --
	"$MTX" report waits.db "$r" "$@" 2> /dev/null | grep -E "$jargon"
done > titles-jargon.txt
[ -s titles-jargon.txt ] && fail "report titles: $(head -1 titles-jargon.txt)" || pass "report titles in plain words"
grep -nE "$jargon" "$srcdir/README.md" "$srcdir"/man/* > docs-jargon.txt &&
	fail "docs: $(head -1 docs-jargon.txt)" || pass "README and man pages in plain words"

# Text fits the terminal it is shown on, and a pipe gets every cell whole.
# The wide lock (tests/e2e/test-report.sh, reports/locks-wide.txt: whole
# in a file) fits 80 columns one blank apart on a terminal.
cp reuse.db wide.db
"$MTX" report wide.db locks > /dev/null 2>&1
sqlite3 wide.db "UPDATE sync_totals SET calls = calls * 1000000; UPDATE sync_objects SET addr = 0x55d0c0c04600"
on_terminal 80 "$MTX" report wide.db locks > wide80.out
awk 'length > 80 { bad = 1 } END { exit bad }' wide80.out && grep -q "^200 0x55d0c0c04600 mutex 8000000 " wide80.out && pass "80 columns: the wide lock fits, one blank apart" ||
	fail "80 columns: $(cat wide80.out)"
# A thread name longer than any terminal, on an op past the first 1000
# rows (streamed, after the columns were sized): whole in a pipe, cut to
# the terminal on one.
long=worker-with-a-name-longer-than-any-terminal-$(printf 'x%.0s' $(seq 120))
cp waits.db long.db
sqlite3 long.db "INSERT INTO threads VALUES (103, 100, '$long', 1000960000, 1000999000);
	WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < 1100)
	INSERT INTO sync_ops (tid, object_id, op, start_ns, end_ns, blocked, wait_ns, result, callsite)
	SELECT 101, 1, 'trylock', 1000500000 + n, 1000500000 + n, 0, 0, 0, 2048 FROM i;
	INSERT INTO sync_ops (tid, object_id, op, start_ns, end_ns, blocked, wait_ns, result, callsite)
	VALUES (103, 1, 'lock', 1000970000, 1000971000, 0, 0, 0, 2048)"
"$MTX" report long.db object 0x1000 --limit 0 > long.out 2> long.err || fail "report object: $(head -1 long.err)"
grep -q "  103  $long  lock " long.out && pass "in a pipe a long name is whole, past the first 1000 rows" ||
	fail "in a pipe the long name was cut: $(grep ' 103 ' long.out | cut -c1-120)"
on_terminal 100 "$MTX" report long.db object 0x1000 --limit 0 > long100.out
awk 'length > 100 { bad = 1 } END { exit bad }' long100.out && grep -q " 103  worker-[^ ]*~ " long100.out &&
	pass "on a 100-column terminal it is cut to fit" || fail "100 columns: $(grep ' 103 ' long100.out | head -1)"

finish
