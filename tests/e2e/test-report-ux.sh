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

finish
