#!/bin/bash
# tests/fuzz/run.sh - run the fuzz targets that 'make fuzz' built (in a tree
# configured with --enable-fuzzing CC=clang), each from its seeds: the files
# in tests/fuzz/corpus/<target>, and for db-rows tests/fixtures/*.sql; with
# the words of tests/fuzz/<target>.dict where there is one. Builds nothing.
#
#   tests/fuzz/run.sh [SECONDS]     fuzz each target for SECONDS (default 20)
#   tests/fuzz/run.sh --regression  run every seed file once through its target
#
# Run it from the top of the build tree, or say where that is in BUILDDIR.
# What the fuzzer finds goes to a scratch directory, never into the
# committed corpus. A crash, leak, undefined behaviour or input slower than
# TIMEOUT seconds (default 10) fails the run; its input is kept there as
# crash-*, leak-* or timeout-*: once the bug is fixed, add it to the
# target's corpus under a name that says what it found.
set -u
here=$(cd "$(dirname "$0")" && pwd)
builddir=${BUILDDIR:-$PWD}
timeout_s=${TIMEOUT:-10}
targets="perf-decode sync-region db-readers db-rows"

# The seed files of target $1: its corpus; for db-rows the fixtures too.
seeds() {
	ls -d "$here/corpus/$1"/* 2> /dev/null
	[ "$1" = db-rows ] && ls -d "$here"/../fixtures/*.sql
}

seconds=20
regression=0
case "${1:-}" in
"") ;;
--regression) regression=1 ;;
*[!0-9]* | 0)
	echo "usage: tests/fuzz/run.sh [SECONDS | --regression]" >&2
	exit 2
	;;
*) seconds=$1 ;;
esac

for t in $targets; do
	if [ ! -x "$builddir/tests/fuzz/fuzz-$t" ]; then
		echo "run.sh: no $builddir/tests/fuzz/fuzz-$t: configure --enable-fuzzing CC=clang, then make fuzz" >&2
		exit 2
	fi
done

scratch=$(mktemp -d "${TMPDIR:-/tmp}/mtx-fuzz-XXXXXX")
status=0
for t in $targets; do
	bin=$builddir/tests/fuzz/fuzz-$t
	log=$scratch/$t.log
	mkdir "$scratch/new-$t" "$scratch/seeds-$t"
	seeds "$t" | xargs -d '\n' cp -t "$scratch/seeds-$t"
	if [ $regression = 1 ]; then
		"$bin" -timeout="$timeout_s" "$scratch/seeds-$t"/* > "$log" 2>&1
		rc=$?
		what="$(ls "$scratch/seeds-$t" | wc -l) seed files"
	else
		# -close_fd_mask=2: the readers' one-line refusals of bad input
		# would flood the log (the fuzzer's own reports still come).
		dict=()
		[ -f "$here/$t.dict" ] && dict=(-dict="$here/$t.dict")
		"$bin" -max_total_time="$seconds" -timeout="$timeout_s" -close_fd_mask=2 "${dict[@]}" \
			-artifact_prefix="$scratch/$t-" -print_final_stats=1 "$scratch/new-$t" "$scratch/seeds-$t" > "$log" 2>&1
		rc=$?
		what="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log") inputs in ${seconds} s,"
		what="$what $(sed -n 's/^stat::new_units_added: *//p' "$log") new"
	fi
	if [ $rc = 0 ]; then
		echo "fuzz-$t: ok ($what)"
	else
		status=1
		echo "fuzz-$t: FAILED (exit $rc); its log, $log, ends:"
		grep -v -e '^#[0-9]' -e '^	NEW_FUNC' "$log" | tail -40
		ls -d "$scratch/$t"-* 2> /dev/null | sed 's/^/  kept: /'
	fi
done
[ $status = 0 ] && rm -rf "$scratch"
exit $status
