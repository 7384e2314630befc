#!/bin/bash
# bench/report-speed.sh - how long a reader waits on a large run.db: the
# derived tables' build (src/derived/analysis.c, done by the first 'mtx report') and
# each named report once they exist, against the time it took to write the
# database.
#
# 1. bench/gen-rundb writes a synthetic EVENTS-event run.db (65 threads, 4
#    CPUs, a lock- and condvar-heavy server; see bench/gen-rundb.c), timed:
#    its write, sync-resolve and index phases stand in for what collection
#    spends writing. Generated and timed in every invocation, so that the
#    ratios are against a generation on the machine as it is now; kept as
#    /tmp/mtx-report-speed-EVENTS-MTIME.db (MTIME: the generator's) with
#    gen-rundb's output beside it, which -r reuses (reports only: the
#    results then say when that generation was timed).
# 1b. As mtx collect does: CAPTURES generations with --capture, which keep
#    the run in memory as it is written and build the derived tables from
#    it once the file is closed (src/derived/timeline.h), each into a scratch file:
#    the generation's wall (the capture's cost in it) and the build's
#    (meta.derived_ms, and the wall of open, build, commit and close).
# 2. RUNS times, each on a fresh copy (the copy is not timed): the first
#    'mtx report COPY threads >/dev/null', which builds the derived tables,
#    and meta.derived_ms, the build alone as analysis_build records it.
# 3. On the last copy, derived tables built: every report of
#    'mtx report --list', one untimed warm-up and RUNS timed runs each.
#    object gets the object with the most ops, waits the thread with the most
#    blocked time (--object ADDR / --thread TID; a positional ARG if the
#    option is refused).
# Medians throughout. Without an 'mtx report' command it times
# 'gen-rundb --derive' (analysis_build alone) instead of step 2 and skips 3.
#
# Usage: bench/report-speed.sh [-r] [-n RUNS] [-c CAPTURES] [-e EVENTS] [-t SECONDS] [-o RESULTS] [BUILDDIR]
#   RUNS     timed runs of each (default 5)
#   CAPTURES generations with --capture (default 3; 0: none)
#   SECONDS  give up on a report whose warm-up run takes longer (default 300;
#            it is then listed as "timeout"; the derived build has no limit)
#   EVENTS   events in the database (default 10000000: ~0.7 GB, ~1 min to
#            generate; have twice that free in /tmp for the copy)
#   RESULTS  results file (default bench/results/report-speed.txt next to
#            this script; '-' for none)
#   BUILDDIR where mtx and bench/gen-rundb are (default .)
# Needs the sqlite3 shell. No root. It asserts nothing about timings.
set -u
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/.." && pwd)
runs=5
captures=3
events=10000000
limit=300
results="$here/results/report-speed.txt"

reuse=0
while getopts "rn:c:e:t:o:h" opt; do
	case $opt in
	r) reuse=1 ;;
	n) runs=$OPTARG ;;
	c) captures=$OPTARG ;;
	t) limit=$OPTARG ;;
	e) events=$OPTARG ;;
	o) results=$OPTARG ;;
	h) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
use_build report-speed "${1:-.}"
GEN=$build/bench/gen-rundb
[ -x "$GEN" ] || { echo "report-speed: no $GEN (run make in $build)" >&2; exit 1; }
command -v sqlite3 >/dev/null || { echo "report-speed: needs the sqlite3 shell" >&2; exit 1; }

work=$(mktemp -d /tmp/mtx-report-speed.XXXXXX)
trap 'rm -rf "$work"' EXIT

# timed_ms CMD...: run CMD with stdout to /dev/null; prints its wall ms,
# "timeout" after $limit s, or "fail" when it exits non-zero (its stderr is
# in $work/err).
timed_ms() {
	local t0 t1 rc
	t0=$(now_us)
	timeout "$limit" "$@" >/dev/null 2>"$work/err"
	rc=$?
	t1=$(now_us)
	case $rc in
	0) echo $(((t1 - t0 + 500) / 1000)) ;;
	124) echo timeout ;;
	*) echo fail ;;
	esac
}

# ---- 1. the database, generated once per generator build ----------------

mtime=$(stat -c %Y "$GEN")
cache=/tmp/mtx-report-speed-$events-$mtime.db
for old in /tmp/mtx-report-speed-*.db; do # other builds' copies: ~70 MB per M events
	[ -e "$old" ] && [ "$old" != "$cache" ] && rm -f "$old" "$old.txt" "$old-wal" "$old-shm"
done
gen_when=
if [ "$reuse" = 1 ] && [ -s "$cache" ] && [ -s "$cache.txt" ]; then
	gen_when=$(date -r "$cache" -u +%Y-%m-%dT%H:%MZ)
	echo "report-speed: reusing $cache (generated $gen_when)" >&2
else
	rm -f "$cache" "$cache.txt" "$cache-wal" "$cache-shm"
	echo "report-speed: generating $events events into $cache" >&2
	t0=$(now_us)
	if ! "$GEN" "$cache" "$events" >"$work/gen.txt"; then
		rm -f "$cache"
		echo "report-speed: gen-rundb failed" >&2
		exit 1
	fi
	t1=$(now_us)
	echo "wall_ms=$(((t1 - t0 + 500) / 1000))" >>"$work/gen.txt"
	mv "$work/gen.txt" "$cache.txt"
fi
sed 's/^/  /' "$cache.txt" >&2
# field FILE NAME: the number after the first "NAME=" in gen-rundb's output
# FILE that stands alone or after a space (the last after "(", as in
# "(meta derived_ms=N)").
field() { sed -n "s/.*[ (]$2=\([0-9]*\).*/\1/p; s/^$2=\([0-9]*\)$/\1/p" "$1" | head -1; }
gen_ms=$(field "$cache.txt" wall_ms)
write_ms=$(field "$cache.txt" write)
resolve_ms=$(field "$cache.txt" resolve)
close_ms=$(field "$cache.txt" close)
nr_events=$(field "$cache.txt" events)
db_bytes=$(stat -c %s "$cache")

# ---- 1b. as mtx collect: the derived tables from the capture -------------

: >"$work/captured"
"$GEN" 2>&1 | grep -q -- --capture || captures=0 # a generator without it
for ((i = 1; i <= captures; i++)); do
	echo "report-speed: generation with the capture, $i of $captures" >&2
	rm -f "$work/captured.db"
	if ! "$GEN" --capture "$work/captured.db" "$events" >"$work/cap.txt"; then
		echo "report-speed: gen-rundb --capture failed" >&2
		exit 1
	fi
	# generation up to the close, the build's meta.derived_ms, its wall
	echo "$(field "$work/cap.txt" total) $(field "$work/cap.txt" derived_ms)" \
		"$(field "$work/cap.txt" derived_captured)" >>"$work/captured"
done
rm -f "$work/captured.db"
captured_gen_ms=$(cut -d' ' -f1 "$work/captured" | median)
captured_derived_ms=$(cut -d' ' -f2 "$work/captured" | median)
captured_wall_ms=$(cut -d' ' -f3 "$work/captured" | median)

# ---- 2. the derived tables: first report on fresh copies ----------------

have_report=1
"$MTX" report --list >"$work/list" 2>/dev/null || have_report=0
: >"$work/first"
: >"$work/derived"
for ((i = 1; i <= runs; i++)); do
	echo "report-speed: derived tables, run $i of $runs" >&2
	rm -f "$work/run.db"
	cp "$cache" "$work/run.db"
	sync "$work/run.db" 2>/dev/null
	# No time limit here: without the derived tables there is nothing to time.
	if [ "$have_report" = 1 ]; then
		ms=$(limit=0 timed_ms "$MTX" report "$work/run.db" threads)
	else
		ms=$(limit=0 timed_ms "$GEN" --derive "$work/run.db")
	fi
	if [ "$ms" = fail ] || [ "$ms" = timeout ]; then
		echo "report-speed: building the derived tables: $ms" >&2
		sed 's/^/  /' "$work/err" | head -5 >&2
		exit 1
	fi
	echo "$ms" >>"$work/first"
	sqlite3 "$work/run.db" "SELECT value FROM meta WHERE key = 'derived_ms'" >>"$work/derived"
done
first_ms=$(median <"$work/first")
derived_ms=$(median <"$work/derived")

# ---- 3. every report, on the built copy ---------------------------------

db=$work/run.db
: >"$work/reports"
if [ "$have_report" = 1 ]; then
	object=$(sqlite3 "$db" "SELECT printf('0x%x', o.addr) FROM sync_objects o JOIN sync_ops op ON op.object_id = o.id
		GROUP BY o.id ORDER BY COUNT(*) DESC, o.id LIMIT 1")
	thread=$(sqlite3 "$db" "SELECT tid FROM thread_states WHERE state LIKE 'blocked%'
		GROUP BY tid ORDER BY SUM(end_ns - start_ns) DESC, tid LIMIT 1")
	while read -r name _; do
		[ -n "$name" ] || continue
		case $name in
		object) tries=("--object $object" "$object") ;;
		waits) tries=("--thread $thread" "$thread") ;;
		*) tries=("") ;;
		esac
		echo "report-speed: mtx report $name" >&2
		for a in "${tries[@]}"; do # the warm-up also finds the form it takes
			# shellcheck disable=SC2086 # $a is words on purpose
			ms=$(timed_ms "$MTX" report "$db" "$name" $a)
			args=$a
			[ "$ms" = fail ] || break
		done
		if [ "$ms" = timeout ]; then
			echo "report-speed: mtx report $name took over $limit s: skipped" >&2
			printf '%s\t%s\t%s\n' "$name" timeout "over $limit s (warm-up) $args" >>"$work/reports"
			continue
		elif [ "$ms" = fail ]; then
			echo "report-speed: mtx report $name failed: $(head -1 "$work/err")" >&2
			printf '%s\t%s\t%s\n' "$name" fail "$(head -1 "$work/err")" >>"$work/reports"
			continue
		fi
		: >"$work/times"
		for ((i = 1; i <= runs; i++)); do
			# shellcheck disable=SC2086
			timed_ms "$MTX" report "$db" "$name" $args >>"$work/times"
		done
		if grep -q '[a-z]' "$work/times"; then
			printf '%s\t%s\t%s\n' "$name" fail "$(grep '[a-z]' "$work/times" | sort -u | tr '\n' ' ')in some runs" \
				>>"$work/reports"
		else
			printf '%s\t%s\t%s\n' "$name" "$(median <"$work/times")" "$args" >>"$work/reports"
		fi
	done <"$work/list"
fi

# ---- results ------------------------------------------------------------

date_now=$(date -u +%Y-%m-%dT%H:%MZ)
commit=$(git -C "$srcdir" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$srcdir" status --porcelain -- src schema collector bench ':!bench/results' 2>/dev/null |
	grep -q . && echo "+uncommitted")
machine="$(nproc) CPUs, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), kernel $(uname -r)"
load=$(cut -d' ' -f1-3 /proc/loadavg)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a != "nan") printf "%.2f", a / b; else print "n/a" }'; }

{
	echo "# mtx report speed, $date_now, commit $commit$dirty, $machine, load $load"
	echo "# run.db from bench/gen-rundb: $nr_events events, $db_bytes bytes; $runs runs, medians, ms"
	[ -z "$gen_when" ] || echo "# -r: the generation was timed in an earlier invocation, at $gen_when"
	echo "# derived = meta.derived_ms (analysis_build, reading the run back); first_report = wall of the"
	echo "# first 'mtx report FILE threads' on a fresh copy (derived build + report + open);"
	echo "# *_captured: generations that keep the run as written and build from it, as mtx collect"
	[ "$have_report" = 1 ] || echo "# no 'mtx report' in this build: derived timed with 'gen-rundb --derive'"
	printf 'what\tms\tnote\n'
	printf 'generate\t%s\twall of gen-rundb: write + sync resolve + close\n' "$gen_ms"
	printf 'generate_write\t%s\trows through the writer\n' "$write_ms"
	printf 'generate_resolve\t%s\tindexes + sync_resolve, as collect_sync_finish\n' "$resolve_ms"
	printf 'generate_close\t%s\twriter_close(w, 1)\n' "$close_ms"
	printf 'derived\t%s\t%s of generate, %s of generate_write\n' "$derived_ms" \
		"$(ratio "$derived_ms" "$gen_ms")" "$(ratio "$derived_ms" "$write_ms")"
	printf 'first_report\t%s\t%s of generate\n' "$first_ms" "$(ratio "$first_ms" "$gen_ms")"
	if [ "$captures" -gt 0 ]; then
		printf 'generate_captured\t%s\tgen-rundb --capture up to the close (%s runs), %s of generate\n' \
			"$captured_gen_ms" "$captures" "$(ratio "$captured_gen_ms" "$gen_ms")"
		printf 'derived_captured\t%s\tmeta.derived_ms from the capture: %s of generate_captured\n' \
			"$captured_derived_ms" "$(ratio "$captured_derived_ms" "$captured_gen_ms")"
		printf 'derived_captured_wall\t%s\topen + build + commit + close: %s of generate_captured\n' \
			"$captured_wall_ms" "$(ratio "$captured_wall_ms" "$captured_gen_ms")"
	fi
	awk -F'\t' '{ printf "report %s\t%s\t%s\n", $1, $2, $3 }' "$work/reports"
} >"$work/results"

echo
awk -F'\t' '/^#/ { print; next } /^what/ { next } { printf "%-24s %10s  %s\n", $1, $2, $3 }' "$work/results"
if [ "$results" != "-" ]; then
	mkdir -p "$(dirname "$results")"
	cp "$work/results" "$results"
	echo "results written to $results"
fi
