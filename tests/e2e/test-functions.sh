#!/bin/bash
# tests/e2e/test-functions.sh - exact calls with uprobes (mtx collect
# --functions), on the calltree sample, which counts its own calls per
# thread and (caller, callee):
#  - --list-functions lists exactly the functions the pattern matches; a
#    bad pattern is one error line and exit 2, a pattern matching nothing
#    exit 1 (and --functions then runs nothing), as does any pattern on a
#    program without symbols; with '.', functions that are jumped to
#    (_start) are left out and the program runs unchanged;
#  - under --functions '^tree_', check_sample (samples.sh) holds (same
#    output and status, threads, states, switches, sync ops), and the calls
#    table holds, per thread, exactly the calls the sample made from each
#    caller to each callee (the caller read through calls.parent_id), each
#    call inside its parent one level deeper, all returned;
#  - a thread that ends with pthread_exit, or a program that aborts, inside
#    three calls: those three are closed when the thread ended and marked
#    thread_exit, the rest as above; the output and status are unchanged;
#  - a static program (sync operations through uprobes too) likewise;
#  - a process forked inside traced calls (tests/e2e/forkcalls) returns
#    from them in the child too: each process shows main > work > leaf;
#  - mtx report calls shows the thread's counts; the probes are removed
#    when the run ends, and those a killed collector left at the next start.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/samples.sh"
require_perf
cd "$TMP" || exit 1
CALLTREE=$SAMPLES/calltree

# --list-functions: the four tree_ functions, and the count.
check_list_functions "$CALLTREE" '^tree_' tree_branch tree_leaf tree_round tree_walk

# A bad pattern: one line on stderr, exit 2, nothing run.
for opt in --list-functions --functions; do
	"$MTX" collect -o bad.db $opt 'tree_(' -- "$CALLTREE" > bad.out 2> bad.err
	status=$?
	[ "$status" = 2 ] || fail "$opt with a bad pattern exited $status, not 2"
	[ "$(wc -l < bad.err)" = 1 ] && grep -q "tree_(" bad.err || fail "$opt bad pattern said: $(cat bad.err)"
	[ -s bad.out ] && fail "$opt with a bad pattern printed: $(cat bad.out)"
	[ -e bad.db ] && fail "$opt with a bad pattern left a database"
done

# A pattern matching nothing: listed as none (exit 1); --functions refuses
# to run the program, in one line.
"$MTX" collect --list-functions '^no_such_function$' -- "$CALLTREE" > none.out 2> none.err
status=$?
[ "$status" = 1 ] || fail "--list-functions matching nothing exited $status, not 1"
[ "$(cat none.out)" = "0 functions match '^no_such_function\$'" ] || fail "--list-functions matching nothing: $(cat none.out)"
"$MTX" collect -o none.db --functions '^no_such_function$' -- "$CALLTREE" > none.out 2> none.err
status=$?
[ "$status" = 1 ] || fail "--functions matching nothing exited $status, not 1"
[ "$(wc -l < none.err)" = 1 ] && grep -q "no function of" none.err || fail "--functions matching nothing said: $(cat none.err)"
[ -s none.out ] && fail "--functions matching nothing ran the program"
[ -e none.db ] && fail "--functions matching nothing left a database"

# A program without any symbol table (a stripped static one) has no
# function to match: the same answer, nothing else said.
strip --strip-all -o calltree-bare "$BUILDDIR/tests/e2e/calltree-static" || fail "strip failed"
"$MTX" collect --list-functions . -- ./calltree-bare > bare.out 2> bare.err
status=$?
[ "$status" = 1 ] && [ "$(cat bare.out)" = "0 functions match '.'" ] && [ ! -s bare.err ] ||
	fail "--list-functions on a stripped static program: exit $status, $(cat bare.out bare.err)"

# Every function of the program: those jumped to, not called (_start,
# NAME.cold), are left out and named; the program runs as it does alone
# (a return probe on _start overwrote argc: the arguments were lost).
"$CALLTREE" 2 5 > all.plain.out 2>&1
"$MTX" collect -o all.db --functions . -- "$CALLTREE" 2 5 > all.mtx.out 2> all.err
status=$?
[ "$status" = 0 ] || fail "--functions . exited $status: $(cat all.err)"
cmp -s all.plain.out all.mtx.out || fail "--functions .: the program's output differs under mtx"
grep -q "not traced: .*_start" all.err || fail "--functions . did not say that _start is left out: $(cat all.err)"
[ "$(sql all.db "SELECT COUNT(*) FROM calls c JOIN functions f ON f.id = c.function_id WHERE f.name = 'main'")" = 1 ] ||
	fail "--functions .: main not recorded once"

# A process forked inside traced calls returns from them in the child too
# (the kernel copies its return probes): those calls are the child's.
check_fork_calls "$BUILDDIR/tests/e2e/forkcalls" --functions '^(main|work|leaf)$'

COLLECT_OPTS="--functions ^tree_"
for ending in return exit; do
	FAILED_BEFORE=$FAILED
	check_sample calltree 3 30 "$ending"
	cp "$TMP/calltree.db" "$TMP/calltree-$ending.db"
	cp "$TMP/calltree.check.db" "$TMP/calltree-$ending.check.db"
	check_calls "$TMP/calltree.db" "$TMP/calltree-$ending.check.db"
	[ "$FAILED" = "$FAILED_BEFORE" ] && pass "calls of calltree 3 30 $ending"
done
# The open calls of the exit run are the three the sample names.
[ "$(sql "$TMP/calltree.db" "SELECT GROUP_CONCAT(f.name, '>') FROM (SELECT * FROM calls WHERE unfinished
	IS NOT NULL ORDER BY depth) c JOIN functions f ON f.id = c.function_id")" = "tree_round>tree_branch>tree_leaf" ] ||
	fail "the calls left open by pthread_exit are not tree_round > tree_branch > tree_leaf"

# mtx report calls, for one thread: tree_leaf's count is the sample's.
check=$TMP/calltree-return.check.db
tid=$(sql "$check" "SELECT tid FROM sc_call GROUP BY tid ORDER BY SUM(count) DESC LIMIT 1")
want=$(sql "$check" "SELECT SUM(count) FROM sc_call WHERE tid = $tid AND callee = 'tree_leaf'")
"$MTX" report "$TMP/calltree-return.db" calls --format csv > report.csv 2> report.err || fail "report calls: $(cat report.err)"
grep -q "^exact calls," report.csv || fail "report calls does not say it used exact calls"
"$MTX" report "$TMP/calltree-return.db" calls --thread "$tid" --format csv > thread.csv 2>&1 ||
	fail "report calls --thread: $(cat thread.csv)"
got=$(awk -F, '$NF ~ /^\[[0-9]+\] tree_leaf$/ { print $(NF-1) }' thread.csv)
[ "$got" = "$want" ] || fail "report calls --thread $tid: tree_leaf called '$got' times, the sample says $want"

# A crash inside three calls: same output and status; those three closed.
MTX_SELFCHECK="$TMP/abort.plain.sc" "$CALLTREE" 3 30 abort > abort.plain.out 2> /dev/null
plain_status=$?
MTX_SELFCHECK="$TMP/abort.mtx.sc" "$MTX" collect -q --functions '^tree_' -o abort.db -- "$CALLTREE" 3 30 abort \
	> abort.mtx.out 2> abort.mtx.err &
mtx_pid=$!
wait $mtx_pid
mtx_status=$?
[ "$plain_status" = 134 ] || fail "calltree abort exited $plain_status, not 134 (SIGABRT)"
[ "$mtx_status" = "$plain_status" ] || fail "calltree abort: exit status $mtx_status under mtx, $plain_status without"
cmp -s abort.plain.out abort.mtx.out || fail "calltree abort: output differs under mtx"
cp abort.db abort.check.db
import_selfcheck "$TMP/abort.mtx.sc" abort.check.db
check_calls abort.db abort.check.db

# A static program: its sync operations through uprobes as well.
SAMPLES=$BUILDDIR/tests/e2e SAMPLE_SUFFIX=-static check_sample calltree 2 20
check_calls "$TMP/calltree.db" "$TMP/calltree.check.db"
[ "$(sql "$TMP/calltree.db" "SELECT value FROM meta WHERE key = 'sync_method'")" = uprobes ] ||
	fail "static calltree: sync operations not traced with uprobes"

# A collector killed with its probes defined leaves them behind; the next
# mtx collect with uprobes removes them as it starts.
"$MTX" collect -q --functions '^tree_' -o killed.db -- "$CALLTREE" 1 1000000 > /dev/null 2>&1 &
killed=$!
for _ in $(seq 100); do
	[ -d "/sys/kernel/tracing/events/mtx_$killed" ] && break
	sleep 0.1
done
[ -d "/sys/kernel/tracing/events/mtx_$killed" ] || fail "no probes appeared for the collector to be killed"
program=$(pgrep -P "$killed")
kill -9 "$killed"
wait "$killed" 2>/dev/null
[ -n "$program" ] && kill -9 "$program" 2>/dev/null
[ -d "/sys/kernel/tracing/events/mtx_$killed" ] || fail "a killed collector's probes were removed by nobody (test broken?)"
"$MTX" collect -q --functions '^tree_leaf$' -o next.db -- "$CALLTREE" 1 1 > /dev/null || fail "collect after a killed one"
[ -d "/sys/kernel/tracing/events/mtx_$killed" ] && fail "the probes of the killed collector mtx_$killed were not removed"

# The probes of the abort run's collector are gone once its closing child
# has finished (bounded wait).
for _ in $(seq 100); do
	[ -d "/sys/kernel/tracing/events/mtx_$mtx_pid" ] || break
	sleep 0.1
done
[ -d "/sys/kernel/tracing/events/mtx_$mtx_pid" ] && fail "the probes of mtx_$mtx_pid were left behind"

# Leave no closing collector of ours behind to slow the next tests' clones
# (bounded: the closes take an RCU grace period per probe).
for _ in $(seq 600); do
	pgrep -f -- "-o $TMP/" > /dev/null || break
	sleep 0.1
done
finish
