#!/bin/bash
# mtx collect --sync-stacks: every sync op of the philosophers sample gets
# its user call stack, and the stack is the one the source says: the fork
# locks and the butler's sem_wait are called from take_forks, which
# philosopher calls (caller above callee); the unlocks from put_forks. The
# leaf of each stack is the op's own call site. Without the option no op
# has a stack; the program's output and status never change.
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1

PHILO=$(private_sample philosophers) || { fail "no copy of the philosophers sample"; finish; }

collect_same stacks.db --sync-stacks -- "$PHILO" 5 40

[ "$(sql stacks.db "SELECT value FROM meta WHERE key = 'sync_stack_frames'")" = 48 ] ||
	fail "meta sync_stack_frames is not 48"
[ "$(sql stacks.db "SELECT value FROM meta WHERE key = 'lost_sync'")" = 0 ] || fail "sync records were lost"

# One row per op: its leaf function, the leaf's parent's, the leaf's address.
sql stacks.db "CREATE TABLE op_stack AS
	SELECT op.id, o.kind, op.op, op.callsite, op.stack_id, s.addr AS leaf_addr,
	       f.name AS leaf, pf.name AS caller, pp.parent_id AS grand_id
	FROM sync_ops op JOIN sync_objects o ON o.id = op.object_id
	LEFT JOIN stacks s ON s.id = op.stack_id
	LEFT JOIN functions f ON f.id = s.function_id
	LEFT JOIN stacks pp ON pp.id = s.parent_id
	LEFT JOIN functions pf ON pf.id = pp.function_id"

ops=$(sql stacks.db "SELECT COUNT(*) FROM op_stack")
[ "$ops" -gt 0 ] || fail "no sync ops recorded"
nostack=$(sql stacks.db "SELECT COUNT(*) FROM op_stack WHERE stack_id IS NULL")
[ "$nostack" = 0 ] || fail "$nostack of $ops ops have no stack"
unnamed=$(sql stacks.db "SELECT COUNT(*) FROM op_stack WHERE stack_id IS NOT NULL AND leaf IS NULL")
[ "$unnamed" = 0 ] || fail "$unnamed stack ids name no stacks row"
# The leaf is the call site: the call instruction, return address - 1.
offsite=$(sql stacks.db "SELECT COUNT(*) FROM op_stack WHERE leaf_addr != callsite - 1")
[ "$offsite" = 0 ] || fail "$offsite stacks do not start at their op's call site"

# check KIND OP CALLEE CALLER [tail] - every KIND OP has the stack CALLEE <-
# CALLER. With "tail", CALLEE may end in that call (a tail call: CALLEE's
# frame is gone and the call returns straight into CALLER), so its stack
# may also be CALLER <- (the thread library), but some must be the full one.
check() {
	local n bad full alt="0"
	[ "${5:-}" = tail ] && alt="leaf = '$4' AND caller NOT IN ('take_forks', 'put_forks', 'philosopher', 'main')"
	n=$(sql stacks.db "SELECT COUNT(*) FROM op_stack WHERE kind = '$1' AND op = '$2'")
	full=$(sql stacks.db "SELECT COUNT(*) FROM op_stack WHERE kind = '$1' AND op = '$2' AND leaf = '$3' AND caller = '$4'")
	bad=$(sql stacks.db "SELECT leaf || ' <- ' || ifnull(caller, '(none)') || ': ' || COUNT(*)
		FROM op_stack WHERE kind = '$1' AND op = '$2' AND NOT (leaf = '$3' AND caller = '$4')
		AND NOT ($alt) GROUP BY leaf, caller")
	if [ "$n" = 0 ] || [ "$full" = 0 ]; then
		fail "$1 $2: $full of $n have the stack $3 <- $4"
	elif [ -n "$bad" ]; then
		fail "$1 $2 (of $n): stacks other than $3 <- $4: $bad"
	else
		pass "$1 $2: $full of $n $3 <- $4${5:+, the others tail calls from $3}"
	fi
}
# sem_wait and trylock return a result that is used, the first unlock is
# followed by more calls: never tail calls. The second fork's lock ends
# take_forks: with -O2 it may be a jump (so may the post that ends
# put_forks, which is why it is not checked here).
check mutex trylock take_forks philosopher
check sem wait take_forks philosopher
check mutex lock take_forks philosopher tail
check mutex unlock put_forks philosopher

# Above philosopher (a thread's start routine) comes no frame of the program:
# the order is callee, caller, then the thread library's own.
wrong=$(sql stacks.db "WITH RECURSIVE up(id, fn) AS (
		SELECT s.parent_id, NULL FROM op_stack o JOIN stacks s ON s.id = o.stack_id
		WHERE o.op = 'lock'
		UNION SELECT s.parent_id, f.name FROM up JOIN stacks s ON s.id = up.id
		JOIN functions f ON f.id = s.function_id)
	SELECT COUNT(*) FROM up WHERE fn IN ('take_forks', 'put_forks', 'main')")
[ "$wrong" = 0 ] || fail "$wrong frames above a lock's caller are program functions (take_forks, put_forks or main)"

# A shallower walk: at most N distinct addresses from leaf to root.
"$MTX" collect -q --sync-stacks=1 -o one.db -- "$PHILO" 5 10 > one.out 2>&1 || fail "--sync-stacks=1 failed"
deep=$(sql one.db "SELECT COUNT(*) FROM sync_ops op JOIN stacks s ON s.id = op.stack_id
	WHERE s.parent_id IS NOT NULL AND (SELECT addr FROM stacks WHERE id = s.parent_id) != s.addr")
[ "$deep" = 0 ] || fail "--sync-stacks=1: $deep stacks have a caller frame"
[ "$(sql one.db "SELECT COUNT(*) FROM sync_ops WHERE stack_id IS NULL")" = 0 ] || fail "--sync-stacks=1: ops without a stack"

# Without the option: no stacks at all.
"$MTX" collect -q -o nostacks.db -- "$PHILO" 5 10 > nostacks.out 2>&1 || fail "collect without --sync-stacks failed"
[ "$(sql nostacks.db "SELECT COUNT(*) FROM sync_ops")" -gt 0 ] || fail "no sync ops without --sync-stacks"
[ "$(sql nostacks.db "SELECT COUNT(stack_id) FROM sync_ops")" = 0 ] || fail "ops have a stack without --sync-stacks"
[ "$(sql nostacks.db "SELECT value FROM meta WHERE key = 'sync_stack_frames'")" = 0 ] ||
	fail "meta sync_stack_frames is not 0 without --sync-stacks"

# Bad uses are command-line errors.
"$MTX" collect -q --sync-stacks=0 -o bad.db -- /bin/true 2> bad.err
[ $? = 2 ] || fail "--sync-stacks=0 is not a usage error"
"$MTX" collect -q -e sched --sync-stacks -o bad.db -- /bin/true 2> bad2.err
[ $? = 2 ] || fail "--sync-stacks without the sync source is not a usage error"
finish
