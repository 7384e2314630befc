#!/bin/bash
# tests/e2e/test-collect-ux.sh - what mtx collect and the readers say about
# a run, as a user reads it: only what happened when the program cannot
# start, counts in the singular for one, when and where a run was made.
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1

# A program that cannot start: one line saying so, the exit status of a
# shell, and the previous run.db left as it was, without a word about
# keeping it (it was never moved for good).
"$MTX" collect -q -o run.db /bin/true || fail "mtx collect /bin/true exited $?"
before=$(md5sum < run.db)
printf '#!/nonexistent/interpreter\n' > badint.sh
chmod +x badint.sh
for prog in ./nosuchprog ./badint.sh; do
	"$MTX" collect "$prog" > start.out 2> start.err
	status=$?
	if [ "$status" != 127 ] && [ "$status" != 126 ]; then
		fail "collect $prog exited $status, not 126 or 127"
	elif [ "$(wc -l < start.err)" != 1 ] || grep -q "kept\|\.old" start.err; then
		fail "collect $prog said more than what happened: $(tr '\n' '|' < start.err)"
	elif [ "$(md5sum < run.db)" != "$before" ] || [ -e run.db.old ]; then
		fail "collect $prog changed run.db or left a run.db.old"
	else
		pass "collect $prog: $(cat start.err)"
	fi
done
# Once the program runs, the previous run is kept, and that is said.
"$MTX" collect /bin/true > /dev/null 2> kept.err
grep -q "^mtx: kept the previous run.db as run.db.old$" kept.err && [ -e run.db.old ] &&
	pass "a program that ran: the previous run.db is kept as run.db.old, and said" ||
	fail "no word of run.db.old: $(head -2 kept.err)"

# One thread, one row: singular.
"$MTX" collect -o one.db -- /bin/true 2> one.err > /dev/null
[ "$(sql one.db "SELECT COUNT(*) FROM threads")" = 1 ] || fail "/bin/true recorded $(sql one.db "SELECT COUNT(*) FROM threads") threads"
grep -q "^mtx: recorded 1 thread, [0-9]* rows into one.db$" one.err && pass "recorded 1 thread" ||
	fail "one thread said as: $(grep recorded one.err)"
# When and where: info's "started" is the second the run began (between
# the two dates taken around it), its "host" this machine's name.
before=$(date +%s)
"$MTX" collect -q -o when.db -- /bin/true
after=$(date +%s)
"$MTX" info when.db > when.out
started=$(sed -n 's/^started *//p' when.out)
at=$(date -d "$started" +%s 2> /dev/null)
host=$(sed -n 's/^host *//p' when.out)
[ -n "$at" ] && [ "$at" -ge "$before" ] && [ "$at" -le "$after" ] && [ "$host" = "$(uname -n)" ] &&
	pass "info: started $started on $host" || fail "info: started '$started', host '$host': $(head -5 when.out)"
finish
