#!/bin/bash
# tests/e2e/test-report-ux.sh - mtx report as a new user meets it, on the
# fixture runs of tests/fixtures (no perf needed): plain titles, tables
# that fit the terminal and are never cut in a pipe, threads named where
# they wait and hold, one error line for a filter that selects nothing,
# run.db by default, "did you mean" for a misspelled name.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 > /dev/null || skip "sqlite3 (the CLI) is not installed"
cd "$TMP" || exit 1

fixture_dbs waits profile reuse
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
# The wide lock (tests/e2e/test-report.sh, reports/locks-wide.txt: one
# blank apart in a file, as two would pass 80 columns) gets two blanks on
# a terminal 120 wide; on one 100 wide its address is left out, as its
# name column shows it; on one 92 wide, one blank between columns.
cp reuse.db wide.db
"$MTX" report wide.db locks > /dev/null 2>&1
sqlite3 wide.db "UPDATE sync_totals SET calls = calls * 1000000; UPDATE sync_objects SET addr = 0x55d0c0c04600"
on_terminal 120 "$MTX" report wide.db locks > wide120.out
on_terminal 100 "$MTX" report wide.db locks > wide100.out
on_terminal 92 "$MTX" report wide.db locks > wide92.out
grep -q "^200  0x55d0c0c04600  mutex  8000000  " wide120.out && pass "120 columns: two blanks apart" ||
	fail "120 columns: $(cat wide120.out)"
awk 'length > 100 { bad = 1 } END { exit bad }' wide100.out && grep -q "^200  mutex  8000000  .*  0x55d0c0c04600$" wide100.out &&
	pass "100 columns: the address only in the name column" || fail "100 columns: $(cat wide100.out)"
awk 'length > 92 { bad = 1 } END { exit bad }' wide92.out && grep -q "^200 mutex 8000000 " wide92.out &&
	pass "92 columns: the wide lock fits, one blank apart" || fail "92 columns: $(cat wide92.out)"
# A thread name longer than any terminal, on an op past the first 1000
# rows (streamed, after the columns were sized): whole in a pipe, cut to
# the terminal on one.
long=worker-with-a-name-longer-than-any-terminal-$(printf 'x%.0s' $(seq 120))
cp waits.db long.db
sqlite3 long.db "INSERT INTO threads (tid, pid, name, start_ns, end_ns) VALUES (103, 100, '$long', 1000960000, 1000999000);
	WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < 1100)
	INSERT INTO sync_ops (tid, object_id, op, start_ns, end_ns, blocked, wait_ns, result, callsite)
	SELECT 101, 1, 'trylock', 1000500000 + n, 1000500000 + n, 0, 0, 0, 2048 FROM i;
	INSERT INTO sync_ops (tid, object_id, op, start_ns, end_ns, blocked, wait_ns, result, callsite)
	VALUES (103, 1, 'lock', 1000970000, 1000971000, 0, 0, 0, 2048)"
"$MTX" report long.db object 0x1000 --limit 0 > long.out 2> long.err || fail "report object: $(head -1 long.err)"
grep -Eq " 103 +$long +lock " long.out && pass "in a pipe a long name is whole, past the first 1000 rows" ||
	fail "in a pipe the long name was cut: $(grep ' 103 ' long.out | cut -c1-120)"
on_terminal 100 "$MTX" report long.db object 0x1000 --limit 0 > long100.out
awk 'length > 100 { bad = 1 } END { exit bad }' long100.out && grep -q " 103  worker-[^ ]*~ " long100.out &&
	pass "on a 100-column terminal it is cut to fit" || fail "100 columns: $(grep ' 103 ' long100.out | head -1)"

# Who waited, and who held: the waits' first table names the waiter, the
# locks report the holder, as the recorded ops say (the op that found M
# held names its holder).
truth=$(sqlite3 -separator , waits.db "SELECT op.tid, w.name, o.addr, op.holder_tid, h.name FROM sync_ops op
	JOIN sync_objects o ON o.id = op.object_id JOIN threads w ON w.tid = op.tid
	JOIN threads h ON h.tid = op.holder_tid WHERE op.holder_tid IS NOT NULL")
IFS=, read -r waiter waiter_name addr holder holder_name <<< "$truth"
"$MTX" report waits.db waits --format csv 2> /dev/null |
	awk -F, -v w="$waiter" -v wn="$waiter_name" -v a="$addr" -v h="$holder" -v hn="$holder_name" '
	/^tid,thread,pid,addr,/ { on = 1; next } on && /^$/ { exit }
	on && $1 == w && $2 == wn && $4 == a && $8 == h && $9 == hn && $10 == "holder" { found = 1 }
	END { exit !found }' && pass "waits: $waiter_name waited on $addr for $holder_name" ||
	fail "waits' first table does not say that $waiter_name ($waiter) waited on $addr for $holder_name"
"$MTX" report waits.db locks --format csv 2> /dev/null | awk -F, -v h="$holder" -v hn="$holder_name" '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["holder"] == h && $col["holder_name"] == hn { found = 1 } END { exit !found }' &&
	pass "locks: the holder is $holder ($holder_name)" || fail "locks does not name the holder $holder_name"
# One word for a lock found held or waited for: "contended".
"$MTX" info waits.db | grep -q "^sync ops .* contended)" && ! grep -rq "[0-9] found the lock held" "$srcdir/man" &&
	pass "info and the man pages say contended" || fail "info or a man page does not say 'contended'"

# expect STATUS PATTERN ARGS... - 'mtx ARGS' exits STATUS, prints nothing
# on stdout, and says one line on stderr that matches PATTERN (and at most
# the synopsis after it).
expect() {
	local want=$1 pattern=$2
	shift 2
	"$MTX" "$@" > expect.out 2> expect.err < /dev/null
	local got=$?
	if [ "$got" != "$want" ] || [ -s expect.out ] || [ "$(grep -cv '^usage: ' expect.err)" != 1 ]; then
		fail "mtx $*: exit $got (want $want), stderr: $(head -2 expect.err | tr '\n' ' ')"
	elif ! head -1 expect.err | grep -Eq "$pattern"; then
		fail "mtx $*: said '$(head -1 expect.err)', expected /$pattern/"
	else
		pass "mtx $*: $(head -1 expect.err)"
	fi
}

# A filter that selects nothing of the run is an error, not empty tables.
# The fixture's run lasts 1 ms, and has threads 100-102 and objects 1-3.
expect 2 "window ends before it begins" report waits.db threads --from 500us --to 200us
expect 2 "window is empty" report waits.db states --from 300us --to 300us
expect 2 "run ended at 1.00 ms" report waits.db sync --from 2ms
expect 2 "window ends where the run begins" report waits.db waits --to 0
expect 2 "no thread of that tid" report waits.db waits --thread 4242
expect 2 "no thread of that name" report waits.db states --thread worker-z
expect 2 "no sync object of that address" report waits.db object 0xdead
expect 2 "no sync object of that id" report waits.db locks --object 7
# ... and a window inside the run, a thread and an object it has, are not.
for args in "threads --from 100us --to 2ms" "waits --thread 102" "object 2" "locks --object 0x1000"; do
	"$MTX" report waits.db $args > ok.out 2> ok.err && [ -s ok.out ] && [ ! -s ok.err ] ||
		fail "report $args: exit $?, $(head -1 ok.err)"
done
# A report of what the run did not record says so in one line; one whose
# source was recorded but holds nothing prints its empty tables.
cp waits.db nosources.db
sqlite3 nosources.db "INSERT INTO meta VALUES ('events', 'sched,wakeups')"
expect 1 "report flat needs CPU samples .*--sample HZ.*did not record" report nosources.db flat
expect 1 "report calls needs function calls or CPU samples" report nosources.db calls
expect 1 "report syscalls needs system calls" report nosources.db syscalls
for r in sync locks; do expect 1 "report $r needs synchronization calls" report nosources.db $r; done
expect 1 "report object needs synchronization calls" report nosources.db object 0x1000
sqlite3 nosources.db "UPDATE meta SET value = 'sched,wakeups,samples' WHERE key = 'events'"
"$MTX" report nosources.db flat > flat.out 2> flat.err && grep -q "^(none)" flat.out &&
	pass "a recorded source with nothing in it: empty tables" || fail "flat with samples recorded: $(head -1 flat.err)"

# run.db by default, the file before or after the report's name, and "did
# you mean" for a misspelled command, option, report or format.
mkdir -p here && cp waits.db here/run.db
(cd here && "$MTX" report threads > ../default.out 2>&1) && cmp -s default.out <("$MTX" report waits.db threads) &&
	pass "report NAME reads run.db" || fail "report threads without a file: $(head -2 default.out)"
"$MTX" report threads waits.db > swapped.out 2>&1 && cmp -s swapped.out <("$MTX" report waits.db threads) &&
	pass "report NAME FILE reads FILE" || fail "report threads waits.db: $(head -2 swapped.out)"
"$MTX" report object waits.db 0x1000 > swapped.out 2>&1 && cmp -s swapped.out <("$MTX" report waits.db object 0x1000) &&
	pass "report object FILE OBJECT reads FILE" || fail "report object waits.db 0x1000: $(head -2 swapped.out)"
(cd here && "$MTX" info > ../info.out 2>&1) && grep -q "^file *run.db" info.out || fail "info without a file"
mkdir -p empty
(cd empty && expect 1 "no run.db here.*mtx collect" report threads)
(cd empty && expect 1 "no run.db here" info)
expect 2 "unknown command 'reprot' \(did you mean report\?\)" reprot waits.db threads
expect 2 "unknown option '--verison' \(did you mean --version\?\)" --verison
expect 2 "unknown option '--thred' \(did you mean --thread\?\)" report waits.db waits --thred 101
expect 2 "unknown option '--sampel' \(did you mean --sample\?\)" collect --sampel 99 /bin/true
expect 2 "no report called 'thraeds' \(did you mean threads\?\)" report waits.db thraeds
expect 2 "no report called 'thraeds' \(did you mean threads\?\)" report thraeds waits.db
expect 2 "unknown format 'jsno' \(did you mean json\?\)" report waits.db threads --format jsno
expect 2 "unknown command 'frobnicate'$" frobnicate

# One left out is one row (reports/object-limit.txt: 2 of 4, 2 more rows).
"$MTX" report waits.db object 0x1000 --limit 3 | grep -q '^\.\.\. 1 more row (--limit 0 for all)$' &&
	pass "1 more row" || fail "one row left out not said as '1 more row'"

# CSV and JSON: beside each time in ns, the same in seconds since the run's
# start (meta start_ns); one value per field; every address in hex. In the
# fixture worker-b (102) blocked on M (0x1000) at 250 us, until worker-a
# (101) unlocked it.
start=$(sqlite3 waits.db "SELECT value FROM meta WHERE key = 'start_ns'")
"$MTX" report waits.db states --format csv > states.csv 2> /dev/null
awk -F, -v s="$start" 'NR == 1 { ok = $1 == "start_ns" && $2 == "start_s"; next }
	$2 != sprintf("%.9f", ($1 - s) / 1e9) { ok = 0 } END { exit !(ok && NR > 1) }' states.csv &&
	pass "states CSV: start_s, seconds since the run's start, beside start_ns" ||
	fail "states CSV: no start_s beside start_ns, or not since $start: $(head -3 states.csv)"
grep -q "^1000250000,0.000250000,102,blocked_sync,140000,lock,0x1000,thread,101,$" states.csv &&
	pass "states CSV: why, on, ended_by and waker one value each" ||
	fail "states CSV: worker-b's wait on M is not 'lock,0x1000,thread,101': $(grep ',102,blocked_sync,' states.csv)"
for r in $reports; do
	[ "$r" = object ] && set -- 0x1000 || set --
	"$MTX" report waits.db "$r" "$@" --format csv 2> /dev/null
	echo # a blank line before each section's header, as within a report
done > all.csv
awk -F, 'NR == 1 || prev == "" { delete a; for (i = 1; i <= NF; i++) if ($i == "addr" || $i ~ /_addr$/ || $i == "callsite") a[i] = 1 }
	prev != "" && NR > 1 { for (i in a) if ($i != "") { n++; if ($i !~ /^0x[0-9a-f]+$/) bad = bad " " $i } }
	{ prev = $0 } END { if (bad || !n) { print n + 0, bad; exit 1 } }' all.csv > addr.bad &&
	pass "CSV: every address in hex" || fail "CSV: addresses not in hex (how many, which): $(cat addr.bad)"
if command -v python3 > /dev/null; then
	"$MTX" report waits.db object 0x1000 --format json > object.json 2> /dev/null
	python3 -c 'import json, sys
d = json.load(open("object.json"))
rows = [r for s in d.values() for r in s]
assert all(isinstance(r[k], str) and r[k].startswith("0x") for r in rows for k in ("addr", "callsite") if r.get(k) is not None)
assert all(r[k[:-3] + "_s"] == round((r[k] - int(sys.argv[1])) / 1e9, 9) for r in rows for k in r
           if k in ("start_ns", "end_ns") and r[k] is not None)' "$start" &&
		pass "JSON: addresses as hex strings, times since the start beside *_ns" ||
		fail "JSON: $(head -c 300 object.json)"
fi

finish
