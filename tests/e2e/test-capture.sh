#!/bin/bash
# mtx collect builds the derived tables from the run as it wrote it (the
# writer's capture, src/derived/timeline.h, amended by sync_resolve) rather than by
# reading it back. The tables must be the ones a reader builds from the file:
# each run here is rebuilt that way (derived_version removed, then mtx
# report) and every derived table compared, row for row. The runs cover
# what the capture must get right: switches with stacks (--sample), states
# relabelled blocked_sync, lock holders and hold times, ops moved to a later
# lifetime of their object (a mutex and a cond re-initialized; a cond wait's
# mutex), calls that never returned, and several processes.
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1

tables=$(sed -n 's/^CREATE TABLE \([a-z_]*\) .*/\1/p' "$srcdir/schema/derived.sql")
[ "$(echo "$tables" | wc -w)" -ge 20 ] || fail "schema/derived.sql lists only: $tables"

# dump DB - each derived table's rows, sorted, as a checksum and a count.
dump() {
	local t cols
	for t in $tables; do
		cols=$(sql "$1" "SELECT group_concat(name, ',') FROM pragma_table_info('$t')")
		echo "$t $(sql "$1" "SELECT * FROM $t ORDER BY $cols" | md5sum | cut -c1-16) $(sql "$1" "SELECT COUNT(*) FROM $t")"
	done
}

# check DB OPTION... -- PROGRAM [ARGS...]: collect, then compare the derived
# tables built from the capture with those built by reading the file.
amended=
check() {
	local db=$1
	shift
	"$MTX" collect -v -o "$db" "$@" > "$db.out" 2> "$db.err"
	if ! grep -q 'run captured' "$db.err"; then
		fail "$db: the derived tables were not built from the capture: $(grep 'derived tables' "$db.err" | head -2)"
		return
	fi
	amended="$amended $(grep -o 'rows captured; amended: .*' "$db.err")"
	dump "$db" > "$db.captured"
	cp "$db" read-"$db"
	sql read-"$db" "DELETE FROM meta WHERE key = 'derived_version'"
	"$MTX" report -v read-"$db" threads > /dev/null 2> "$db.read.err"
	grep -q 'run read in' "$db.read.err" || fail "$db: the rebuild did not read the run: $(head -2 "$db.read.err")"
	dump read-"$db" > "$db.read"
	if cmp -s "$db.captured" "$db.read"; then
		pass "$db: $(wc -l < "$db.read") derived tables the same from the capture as from the file"
	else
		fail "$db: derived tables differ (captured, read): $(diff "$db.captured" "$db.read" | grep '^[<>]' | head -6)"
	fi
}

check philosophers.db --sample 997 -- "$SAMPLES/philosophers"
check forkexec.db -- "$SAMPLES/forkexec"
check barber.db -- "$SAMPLES/barber"
check dies.db -- "$BUILDDIR/tests/e2e/diesblocked"
check lifetimes.db -- "$BUILDDIR/tests/e2e/lifetimes"
check clientserver.db -- "$SAMPLES/clientserver"

# Each kind of change sync_resolve makes came up in at least one run, so
# that the comparisons above checked it. Hold times are written with their
# rows (collector/sync/objects.c), and the replay changes one only when a
# thread's records came out of time order (tests/unit/test-sync-resolve.c
# has such a case): that the rows' holds reach the capture is checked
# where a run has them.
for what in 'states blocked_sync' 'ops blocked' 'holders' 'ops to a later lifetime' \
	"cond waits' mutexes" 'ops unreturned'; do
	echo "$amended" | grep -Eq "[1-9][0-9]* $what" || fail "no run had $what: $amended"
done
holds=$(sql clientserver.db "SELECT COUNT(*) FROM sync_ops WHERE hold_ns > 0")
[ "$holds" -gt 0 ] && pass "clientserver: $holds hold times, in the comparison above" ||
	fail "clientserver has no hold times for the comparison to check"
finish
