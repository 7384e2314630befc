#!/bin/bash
# How mtx collect puts libmtx-preload.so into a program: the user's own
# LD_PRELOAD is kept; -e without sync injects nothing; a library that cannot
# be found is one clear error; a program the library cannot enter (static,
# set-ID) gets one line saying that uprobes trace it instead (stripped
# static: that nothing does), its output and exit status untouched;
# threads with small stacks run as they do alone; calls that never return
# (the program exits while threads wait) are recorded as such.
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1

# The user's LD_PRELOAD comes after ours, and the region is named.
"$MTX" collect -q -o env.db -- /bin/sh -c 'echo "$LD_PRELOAD"; echo "$MTX_SYNC_REGION"' \
	> env.out 2> env.err
LIBM=$(ls /lib/x86_64-linux-gnu/libm.so.6 /usr/lib/x86_64-linux-gnu/libm.so.6 2>/dev/null | head -1)
# mtx itself then starts with libm preloaded: an mtx built with
# --enable-sanitizers refuses a library loaded before ASan's runtime unless
# told not to check (libm replaces none of the functions ASan intercepts).
LD_PRELOAD=$LIBM ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
	"$MTX" collect -q -o env2.db -- /bin/sh -c 'echo "$LD_PRELOAD"' > env2.out 2> env2.err
first=$(head -1 env.out)
case "$first" in
	/*/libmtx-preload.so) pass "LD_PRELOAD is $first" ;;
	*) fail "LD_PRELOAD in the program is '$first' ($(head -1 env.err))" ;;
esac
grep -Eq '^/mtx-sync-[0-9]+-' <(sed -n 2p env.out) || fail "MTX_SYNC_REGION is '$(sed -n 2p env.out)'"
[ "$(cat env2.out)" = "$first:$LIBM" ] || fail "the user's LD_PRELOAD was not kept: '$(cat env2.out)'"

# Threads with 64 KiB stacks (sysbench's default) run as they do alone: the
# library's TLS, carved out of each thread's stack, stays small.
collect_same smallstack.db -- "$BUILDDIR/tests/e2e/smallstack"
[ "$(sql smallstack.db "SELECT COUNT(*) FROM sync_ops WHERE op = 'lock'")" = 4 ] ||
	fail "smallstack: $(sql smallstack.db "SELECT COUNT(*) FROM sync_ops WHERE op = 'lock'") locks recorded, not 4"

# Threads blocked when the program exits (cond wait, sem wait, mutex lock
# on a mutex main holds): their calls never return, yet each is recorded,
# result NULL, ending with its thread, which was blocked_sync on its object.
collect_same dies.db -- "$BUILDDIR/tests/e2e/diesblocked"
got=$(sql dies.db "SELECT GROUP_CONCAT(k, ' ') FROM (SELECT o.kind || ':' || s.op AS k FROM sync_ops s
	JOIN sync_objects o ON o.id = s.object_id WHERE s.result IS NULL ORDER BY 1)")
[ "$got" = "cond:wait mutex:lock sem:wait" ] || fail "calls that did not return: '$got'"
bad=$(sql dies.db "SELECT COUNT(*) FROM sync_ops s JOIN threads t ON t.tid = s.tid
	WHERE s.result IS NULL AND (s.end_ns <> t.end_ns OR NOT s.blocked OR s.wait_ns <= 0 OR NOT EXISTS
	(SELECT 1 FROM thread_states st WHERE st.tid = s.tid AND st.state = 'blocked_sync'
	 AND st.object_id = s.object_id AND st.start_ns >= s.start_ns))")
[ "$bad" = 0 ] || fail "$bad calls that did not return are not closed at their thread's end, blocked"
"$MTX" info dies.db | grep -q "^sync ops .*, 3 never returned)" || fail "mtx info does not count the 3 calls that never returned"
[ "$(sql dies.db "SELECT holder_tid FROM sync_ops WHERE op = 'lock' AND result IS NULL")" = \
	"$(sql dies.db "SELECT pid FROM processes")" ] || fail "the unreturned lock does not name main as its holder"

# Without sync in --events nothing is injected and no sync op recorded.
"$MTX" collect -q -e sched,wakeups,syscalls -o nosync.db -- /bin/sh -c 'echo "[$LD_PRELOAD]"' > nosync.out
[ "$(cat nosync.out)" = "[]" ] || fail "-e without sync still injected: $(cat nosync.out)"
[ "$(sql nosync.db "SELECT value FROM meta WHERE key = 'events'")" = "sched,wakeups,syscalls" ] ||
	fail "meta events is $(sql nosync.db "SELECT value FROM meta WHERE key = 'events'")"

# A library that is not there: one line, exit 1, no database.
MTX_PRELOAD_LIB=/nonexistent/libmtx-preload.so "$MTX" collect -o missing.db -- /bin/true 2> missing.err
status=$?
[ "$status" = 1 ] || fail "missing library: exit $status, not 1"
[ "$(wc -l < missing.err)" = 1 ] && grep -q "cannot find libmtx-preload.so" missing.err ||
	fail "missing library said: $(cat missing.err)"
[ -e missing.db ] && fail "a database was left behind when the library was missing"

# A static program: one line saying that uprobes replace the library, same
# output and status, its sync ops recorded (exact counts: test-sync-uprobes).
STATIC=$BUILDDIR/tests/e2e/philosophers-static
[ -x "$STATIC" ] || { fail "not built: $STATIC"; finish; }
"$STATIC" 3 > static.plain 2>&1
plain_status=$?
"$MTX" collect -o static.db -- "$STATIC" 3 > static.out 2> static.err
mtx_status=$?
[ "$plain_status" = "$mtx_status" ] || fail "static: exit $mtx_status under mtx, $plain_status without"
cmp -s static.plain static.out || fail "static: output differs under mtx"
[ "$(grep -c 'statically linked' static.err)" = 1 ] && [ "$(grep -c 'uprobes' static.err)" = 1 ] ||
	fail "static: expected one 'statically linked ... uprobes' line, got: $(cat static.err)"
[ "$(sql static.db "SELECT value FROM meta WHERE key = 'sync_method'")" = uprobes ] ||
	fail "static: meta sync_method is not uprobes"
[ "$(sql static.db "SELECT COUNT(*) FROM sync_ops WHERE op = 'lock'")" -gt 0 ] || fail "static: no lock recorded"
[ "$(sql static.db "SELECT COUNT(*) FROM threads")" = 4 ] ||
	fail "static: $(sql static.db "SELECT COUNT(*) FROM threads") threads, expected 4"
[ "$FAILED" = 0 ] && pass "static program: $(grep 'statically' static.err)"

# Stripped, it has no pthread function left to probe: same output and
# status, its threads recorded, one line saying that its sync ops are not.
strip --strip-all -o philosophers-bare "$STATIC" || fail "strip failed"
"$MTX" collect -o bare.db -- ./philosophers-bare 3 > bare.out 2> bare.err
mtx_status=$?
[ "$plain_status" = "$mtx_status" ] || fail "stripped static: exit $mtx_status under mtx, $plain_status without"
cmp -s static.plain bare.out || fail "stripped static: output differs under mtx"
[ "$(grep -c 'no pthread functions for uprobes' bare.err)" = 1 ] ||
	fail "stripped static: expected one line saying no sync op is recorded, got: $(cat bare.err)"
[ "$(sql bare.db "SELECT COUNT(*) FROM threads")" = 4 ] ||
	fail "stripped static: $(sql bare.db "SELECT COUNT(*) FROM threads") threads, expected 4"
[ "$(sql env.db "SELECT value FROM meta WHERE key = 'sync_method'")" = preload ] ||
	fail "a dynamic program's meta sync_method is not preload"

# A set-user-ID program (another owner: its exec is AT_SECURE, and the
# loader ignores LD_PRELOAD): one line, same output and status, uprobes on
# the pthread functions of the libc it loads. Counts are not compared: the
# kernel detaches every perf event at a set-ID exec unless fs.suid_dumpable
# is set (which this test does not change), and the line says so.
mkdir -p suid && chmod 755 suid
cp "$SAMPLES/philosophers" suid/philosophers && chown nobody suid/philosophers &&
	chmod 4755 suid/philosophers || fail "cannot make a set-user-ID copy of philosophers"
suid/philosophers 3 > suid.plain 2>&1
plain_status=$?
"$MTX" collect -o suid.db -- suid/philosophers 3 > suid.out 2> suid.err
mtx_status=$?
[ "$plain_status" = "$mtx_status" ] || fail "set-ID: exit $mtx_status under mtx, $plain_status without"
cmp -s suid.plain suid.out || fail "set-ID: output differs under mtx"
[ "$(grep -c 'is set-user-ID: libmtx-preload.so cannot enter it' suid.err)" = 1 ] &&
	[ "$(grep -c 'uprobes' suid.err)" = 1 ] ||
	fail "set-ID: expected one 'set-user-ID ... uprobes' line, got: $(cat suid.err)"
if [ "$(cat /proc/sys/fs/suid_dumpable)" = 0 ]; then
	grep -q 'fs.suid_dumpable=1' suid.err || fail "set-ID: the line does not say why nothing is traced"
fi
[ "$(sql suid.db "SELECT value FROM meta WHERE key = 'sync_method'")" = uprobes ] ||
	fail "set-ID: meta sync_method is not uprobes"
[ "$FAILED" = 0 ] && pass "set-ID program: $(grep 'set-user-ID' suid.err)"
finish
