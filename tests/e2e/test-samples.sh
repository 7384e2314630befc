#!/bin/bash
# tests/e2e/test-samples.sh - 'mtx collect --sample 999' on the farm
# sample, whose hot function is known (crunch, see samples/farm.c):
#  - the program's output and exit status are those of a plain run;
#  - every worker's flat profile has crunch at the top, by self samples;
#  - the tables hold together: every sample's stack, every stack's parent
#    and function, every sync op's call site exists; meta.samples counts
#    the rows; farm's own frames name its functions with their source file;
#  - the sync ops' call sites are named: the workers' in get_task() and
#    worker(), the master's in main() and put_task();
#  - a stripped copy of farm is recorded with its symbols said to be
#    'dynsym' (or 'none') in maps, and its code is not given farm's names;
#  - bad --sample values: one line, exit 2.
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1
FARM=$SAMPLES/farm
[ -x "$FARM" ] || { fail "farm not built"; finish; }

"$FARM" 3 120 > plain.out 2>&1
plain_status=$?
"$MTX" collect -q --sample 999 -o farm.db -- "$FARM" 3 120 > mtx.out 2> mtx.err
mtx_status=$?
[ "$plain_status" = "$mtx_status" ] || fail "exit status $mtx_status under mtx, $plain_status without"
cmp -s plain.out mtx.out || fail "farm's output differs under mtx --sample"
[ -s farm.db ] || { fail "no database: $(head -1 mtx.err)"; finish; }

n=$(sql farm.db "SELECT COUNT(*) FROM samples")
[ "$n" -gt 100 ] || fail "only $n samples of a run of ~0.3 s of CPU at 999 Hz"
[ "$(sql farm.db "SELECT value FROM meta WHERE key = 'samples'")" = "$n" ] || fail "meta.samples is not the row count"
[ "$(sql farm.db "SELECT COUNT(*) FROM samples WHERE unwind IS NOT 'fp'")" = 0 ] || fail "samples without an unwind method"
[ "$(sql farm.db "SELECT SUM(value) FROM meta WHERE key LIKE 'lost_%'")" = 0 ] || fail "records were lost"

# Referential integrity of the profile tables.
bad=$(sql farm.db "SELECT
	(SELECT COUNT(*) FROM samples WHERE stack_id IS NOT NULL AND stack_id NOT IN (SELECT id FROM stacks)),
	(SELECT COUNT(*) FROM stacks WHERE parent_id IS NOT NULL AND parent_id NOT IN (SELECT id FROM stacks)),
	(SELECT COUNT(*) FROM stacks WHERE function_id NOT IN (SELECT id FROM functions)),
	(SELECT COUNT(*) FROM callsites WHERE function_id NOT IN (SELECT id FROM functions)),
	(SELECT COUNT(*) FROM samples WHERE tid NOT IN (SELECT tid FROM threads))")
[ "$bad" = "0|0|0|0|0" ] || fail "dangling references (samples>stacks, stacks>parent, stacks>functions, callsites, samples>threads): $bad"
dups=$(sql farm.db "SELECT COUNT(*) FROM (SELECT 1 FROM stacks GROUP BY parent_id, pid, addr, function_id HAVING COUNT(*) > 1)")
[ "$dups" = 0 ] || fail "$dups stack rows are duplicates"

# The hot function: crunch has the most self samples of every worker.
workers=$(sql farm.db "SELECT COUNT(*) FROM threads WHERE name LIKE 'worker-%'")
[ "$workers" = 3 ] || fail "expected 3 workers, found $workers"
"$MTX" report farm.db flat --format csv > flat.csv 2> flat.err || fail "report flat: $(head -1 flat.err)"
for w in $(sql farm.db "SELECT tid FROM threads WHERE name LIKE 'worker-%'"); do
	top=$(awk -F, -v t="$w" '$1 == t { print $3; exit }' flat.csv)
	[ "$top" = crunch ] && pass "worker $w: crunch on top" || fail "worker $w: top of the flat profile is '$top', not crunch"
done
file=$(sql farm.db "SELECT file FROM functions WHERE name = 'crunch'")
case $file in */farm.c) ;; *) fail "crunch's file is '$file', not farm.c" ;; esac
"$MTX" report farm.db calls --function '^crunch$' > calls.txt 2> calls.err || fail "report calls: $(head -1 calls.err)"
# crunch has its own entry ("[N] crunch", N its index) in every worker's graph.
for w in $(sql farm.db "SELECT tid FROM threads WHERE name LIKE 'worker-%'"); do
	awk -v t="$w" '$1 == t && $2 ~ /^[0-9]+$/ && $NF == "crunch" && $(NF-1) ~ /^\[[0-9]+\]$/ { found = 1 }
		END { exit !found }' calls.txt && pass "calls: worker $w has an entry for crunch" ||
		fail "calls: worker $w has no entry for crunch: $(head -8 calls.txt)"
done

# Call sites: every distinct one named; get_task() waits on the queue's condvar.
unnamed=$(sql farm.db "SELECT COUNT(*) FROM sync_ops op JOIN sync_objects o ON o.id = op.object_id
	WHERE op.callsite > 0 AND NOT EXISTS (SELECT 1 FROM callsites c WHERE c.pid = o.pid AND c.addr = op.callsite)")
[ "$unnamed" = 0 ] || fail "$unnamed sync ops have an unnamed call site"
# Every sync call of a worker is made from get_task() (queue lock, condvar)
# or worker() (barrier, counter lock, exit); the queue is always locked.
funcs_of() { # THREAD-NAME-PATTERN -> the functions their sync ops were called from
	sql farm.db "SELECT DISTINCT v.function FROM sync_op_functions v
		WHERE v.tid IN (SELECT tid FROM threads WHERE name LIKE '$1') ORDER BY 1" | tr '\n' ' '
}
fn=$(funcs_of 'worker-%')
[ "$fn" = "get_task worker " ] || fail "the workers' sync ops are called from '$fn', not get_task and worker"
fn=$(funcs_of farm)
[ "$fn" = "main put_task " ] || fail "the master's sync ops are called from '$fn', not main and put_task"
[ "$(sql farm.db "SELECT symbols FROM maps WHERE path = '$FARM'")" = symtab ] || fail "farm's mapping does not say symtab"

# A stripped copy: recorded, and said to be stripped.
strip --strip-all -o farm-stripped "$FARM" || fail "strip failed"
"$MTX" collect -q --sample 999 -o stripped.db -- ./farm-stripped 2 40 > stripped.out 2> stripped.err
[ $? = 0 ] || fail "stripped farm: $(head -1 stripped.err)"
sym=$(sql stripped.db "SELECT symbols FROM maps WHERE path LIKE '%/farm-stripped'")
case $sym in dynsym | none) pass "stripped executable: symbols = $sym" ;; *) fail "stripped executable: symbols = '$sym'" ;; esac
named=$(sql stripped.db "SELECT COUNT(*) FROM functions WHERE name IN ('crunch', 'worker', 'get_task')")
[ "$named" = 0 ] || fail "a stripped farm still has its static functions named"

# Bad input: one error line (and the usage line), exit 2, nothing recorded.
for v in 0 abc 20000 ''; do
	"$MTX" collect --sample "$v" -o bad.db -- "$FARM" 1 1 > bad.out 2> bad.err
	status=$?
	[ $status = 2 ] && [ "$(grep -c '^mtx: ' bad.err)" = 1 ] && [ ! -e bad.db ] && [ ! -s bad.out ] ||
		fail "--sample '$v': exit $status, $(cat bad.err)"
done
finish
