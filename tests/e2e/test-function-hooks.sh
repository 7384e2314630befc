#!/bin/bash
# Exact calls from programs built with -pg (also -pg -mfentry) and with
# -finstrument-functions (samples/hooktree, built each way): libmtx-preload.so's hooks write every
# entry and exit, and run.db's calls must hold, per thread, exactly the
# calls the sample counted itself, per function and calling function
# (MTX_SELFCHECK "call" lines), properly nested; the program's output and
# exit status are the same with and without mtx, and with the library
# preloaded but no collector (the hooks then do nothing).
#
# Both builds also leave functions by longjmp (hooktree's jump argument):
# under -pg the hooks close the abandoned frames themselves, so nothing is
# unfinished even when a call follows the landing (jump=2); under
# -finstrument-functions those frames get no exit, and exactly they are
# closed as unfinished when their caller returns (jump=1: no call follows
# the landing, whose parent would be the abandoned frame).
#
# A process forked inside calls (tests/e2e/forkcalls-pg) returns from them
# in the child too: each process shows main > work > leaf, all matched.
# With lanes so small that the hooks wait for room all the time, no entry
# or exit is lost (bench/sync-op-cost counts them).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/samples.sh"
require_perf
LIB=$BUILDDIR/collector/preload/.libs/libmtx-preload.so

for build in pg fentry finstr; do
	case $build in
	pg|fentry) ARGS="3 60 5 2" ;;
	finstr) ARGS="3 60 5 1" ;;
	esac
	name=hooktree-$build
	prog=$SAMPLES/$name
	[ -x "$prog" ] || { fail "$name: sample not built ($prog)"; continue; }
	# -pg programs write gmon.out where they run: keep each run's apart
	mkdir -p "$TMP/$build.plain" "$TMP/$build.mtx" "$TMP/$build.bare"
	# shellcheck disable=SC2086
	(cd "$TMP/$build.plain" && "$prog" $ARGS > ../$build.plain.out 2>&1)
	plain_status=$?
	# shellcheck disable=SC2086
	(cd "$TMP/$build.mtx" && MTX_SELFCHECK="$TMP/$build.sc" "$MTX" collect -q -o "$TMP/$build.db" -- \
		"$prog" $ARGS > ../$build.mtx.out 2> ../$build.mtx.err)
	mtx_status=$?
	# shellcheck disable=SC2086
	(cd "$TMP/$build.bare" && LD_PRELOAD=$LIB "$prog" $ARGS > ../$build.bare.out 2>&1)
	bare_status=$?

	[ "$plain_status" = 0 ] || fail "$name: exit status $plain_status without mtx"
	[ "$mtx_status" = "$plain_status" ] ||
		fail "$name: exit status $mtx_status under mtx, $plain_status without: $(head -c 3000 "$TMP/$build.mtx.err")"
	[ "$bare_status" = "$plain_status" ] || fail "$name: exit status $bare_status with the library alone"
	cmp -s "$TMP/$build.plain.out" "$TMP/$build.mtx.out" || fail "$name: output differs under mtx"
	cmp -s "$TMP/$build.plain.out" "$TMP/$build.bare.out" || fail "$name: output differs with the library alone"
	[ -s "$TMP/$build.db" ] || { fail "$name: no database ($(head -1 "$TMP/$build.mtx.err"))"; continue; }

	check=$TMP/$build.check.db
	cp "$TMP/$build.db" "$check"
	awk '$1 == "call" { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		print v["pid"] "," v["tid"] "," v["fn"] "," v["parent"] "," v["count"] }' \
		"$TMP/$build.sc" > "$TMP/$build.sc.csv"
	sqlite3 -batch "$check" <<SQL
CREATE TABLE sc_call(pid INTEGER, tid INTEGER, fn TEXT, parent TEXT, count INTEGER);
.mode csv
.import $TMP/$build.sc.csv sc_call
CREATE TABLE got AS
  SELECT c.tid AS tid, f.name AS fn, COALESCE(pf.name, '-') AS parent, COUNT(*) AS count
  FROM calls c JOIN functions f ON f.id = c.function_id
  LEFT JOIN calls p ON p.id = c.parent_id LEFT JOIN functions pf ON pf.id = p.function_id
  GROUP BY 1, 2, 3;
SQL
	# 4 threads x 5 functions: the sample reported what it ran
	[ "$(sql "$check" "SELECT COUNT(DISTINCT tid) FROM sc_call")" = 4 ] ||
		fail "$name: the sample reported $(sql "$check" "SELECT COUNT(DISTINCT tid) FROM sc_call") threads, not 4"
	missing=$(sql "$check" "SELECT COUNT(*) FROM (SELECT tid, fn, parent, count FROM sc_call EXCEPT SELECT tid, fn, parent, count FROM got)")
	extra=$(sql "$check" "SELECT COUNT(*) FROM (SELECT tid, fn, parent, count FROM got EXCEPT SELECT tid, fn, parent, count FROM sc_call)")
	if [ "$missing" = 0 ] && [ "$extra" = 0 ]; then
		pass "$name: calls per thread, function and caller equal the sample's ($(sql "$check" "SELECT SUM(count) FROM sc_call") calls)"
	else
		fail "$name: calls differ from the sample's ($missing of its rows missing, $extra extra)"
		sql "$check" "SELECT 'sample', * FROM sc_call EXCEPT SELECT 'sample', NULL, * FROM got" | head -5
		sql "$check" "SELECT 'mtx', * FROM got EXCEPT SELECT 'mtx', tid, fn, parent, count FROM sc_call" | head -5
	fi
	# Nesting: a child is one deeper than its parent, on the same thread,
	# inside its parent's interval; roots are depth 0.
	bad=$(sql "$check" "SELECT COUNT(*) FROM calls c LEFT JOIN calls p ON p.id = c.parent_id
		WHERE (p.id IS NULL AND c.depth <> 0) OR (p.id IS NOT NULL AND (c.depth <> p.depth + 1
		OR c.tid <> p.tid OR c.start_ns < p.start_ns OR c.end_ns > p.end_ns OR c.start_ns > c.end_ns))")
	[ "$bad" = 0 ] || fail "$name: $bad calls badly nested"
	for key in calls_unmatched_returns lost_calls; do
		v=$(sql "$check" "SELECT value FROM meta WHERE key = '$key'")
		[ "$v" = 0 ] || fail "$name: meta $key is '$v', not 0"
	done
	dives=$(sql "$check" "SELECT TOTAL(count) FROM sc_call WHERE fn = 'ct_dive'" | cut -d. -f1)
	[ "$dives" -gt 0 ] || fail "$name: the sample made no longjmp"
	unfinished=$(sql "$check" "SELECT COUNT(*) FROM calls WHERE unfinished IS NOT NULL AND unfinished <> 0")
	dive_unfinished=$(sql "$check" "SELECT COUNT(*) FROM calls c JOIN functions f ON f.id = c.function_id
		WHERE f.name = 'ct_dive' AND c.unfinished IS NOT NULL AND c.unfinished <> 0")
	[ "$(sql "$check" "SELECT value FROM meta WHERE key = 'calls_unfinished'")" = "$unfinished" ] ||
		fail "$name: meta calls_unfinished disagrees with the calls table"
	case $build in
	pg|fentry) want=0 ;;
	finstr) want=$dives ;;
	esac
	[ "$unfinished" = "$want" ] && [ "$dive_unfinished" = "$want" ] ||
		fail "$name: $unfinished unfinished calls ($dive_unfinished of ct_dive), not $want"
done

# A process forked inside calls returns from them too (its shadow stack is
# its parent's copy): those calls are the child's, begun at the fork.
check_fork_calls "$BUILDDIR/tests/e2e/forkcalls-pg"

# Lanes of 256 records drained every 100 us: the hooks wait for room all the
# time (the -pg fast path hands such records to the C code), and still every
# entry and exit arrives: twice the calls the sample made, none lost.
BENCH=$BUILDDIR/bench/sync-op-cost
for build in pg fentry finstr; do
	name=hooktree-$build
	mkdir -p "$TMP/$build.small" && cd "$TMP/$build.small" || continue
	"$SAMPLES/$name" 3 60 5 > plain.out 2>&1
	HOOKTREE_NS=1 "$BENCH" collect-calls "$LIB" 256 100 -- "$SAMPLES/$name" 3 60 5 > small.out 2> small.err
	status=$?
	calls=$(awk '/^hooktree: calls=/ { sub("calls=", "", $2); print $2 }' small.err)
	read -r records lost < <(awk '/^records/ { print $2, $4 }' small.err)
	if [ "$status" != 0 ] || ! cmp -s plain.out small.out; then
		fail "$name: with small lanes, exit status $status or output differs: $(head -1 small.err)"
	elif [ -z "$calls" ] || [ "$records" != $((2 * calls)) ] || [ "$lost" != 0 ]; then
		fail "$name: with small lanes, $records records and $lost lost for $calls calls"
	else
		pass "$name: with small lanes, all $records entries and exits of $calls calls"
	fi
	cd "$TMP" || exit 1
done
finish
