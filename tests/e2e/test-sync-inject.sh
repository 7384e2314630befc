#!/bin/bash
# How mtx collect puts libmtx-preload.so into a program: the user's own
# LD_PRELOAD is kept; -e without sync injects nothing; a library that cannot
# be found is one clear error; a program the library cannot enter (static)
# gets one warning line and is recorded without sync ops, its output and
# exit status untouched.
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1

# The user's LD_PRELOAD comes after ours, and the region is named.
"$MTX" collect -q -o env.db -- /bin/sh -c 'echo "$LD_PRELOAD"; echo "$MTX_SYNC_REGION"' \
	> env.out 2> env.err
LIBM=$(ls /lib/x86_64-linux-gnu/libm.so.6 /usr/lib/x86_64-linux-gnu/libm.so.6 2>/dev/null | head -1)
LD_PRELOAD=$LIBM "$MTX" collect -q -o env2.db -- /bin/sh -c 'echo "$LD_PRELOAD"' > env2.out 2> env2.err
first=$(head -1 env.out)
case "$first" in
	/*/libmtx-preload.so) pass "LD_PRELOAD is $first" ;;
	*) fail "LD_PRELOAD in the program is '$first' ($(head -1 env.err))" ;;
esac
grep -Eq '^/mtx-sync-[0-9]+-' <(sed -n 2p env.out) || fail "MTX_SYNC_REGION is '$(sed -n 2p env.out)'"
[ "$(cat env2.out)" = "$first:$LIBM" ] || fail "the user's LD_PRELOAD was not kept: '$(cat env2.out)'"

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

# A static program: one warning, same output and status, no sync ops.
STATIC=$BUILDDIR/tests/e2e/philosophers-static
[ -x "$STATIC" ] || { fail "not built: $STATIC"; finish; }
"$STATIC" 3 > static.plain 2>&1
plain_status=$?
"$MTX" collect -o static.db -- "$STATIC" 3 > static.out 2> static.err
mtx_status=$?
[ "$plain_status" = "$mtx_status" ] || fail "static: exit $mtx_status under mtx, $plain_status without"
cmp -s static.plain static.out || fail "static: output differs under mtx"
[ "$(grep -c 'statically linked' static.err)" = 1 ] ||
	fail "static: expected one 'statically linked' line, got: $(cat static.err)"
[ "$(sql static.db "SELECT COUNT(*) FROM sync_ops")" = 0 ] || fail "static: sync ops recorded"
[ "$(sql static.db "SELECT COUNT(*) FROM threads")" = 4 ] ||
	fail "static: $(sql static.db "SELECT COUNT(*) FROM threads") threads, expected 4"
[ "$FAILED" = 0 ] && pass "static program: $(grep 'statically' static.err)"
finish
