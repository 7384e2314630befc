#!/bin/bash
# bench/derived-share.sh - what the derived tables cost at the end of a real
# collection. Runs `mtx collect -q -o DB -- COMMAND` REPS times with this
# build and, when MTX_BASE names another mtx (e.g. main's), as many times
# with that one, interleaved so that drift of the machine hits both alike.
# Each run: the wall time of the whole mtx collect, meta.derived_ms (the
# derived build at its end, src/derived/analysis.c), their ratio (the share), and
# mtx's peak resident memory (GNU time's %M: the collector holds the run's
# capture, src/derived/timeline.h, until the build). Medians. It asserts nothing.
#
# Usage: bench/derived-share.sh [-n REPS] [-o RESULTS] [BUILDDIR] -- COMMAND [ARGS...]
#   REPS     runs per build (default 3)
#   RESULTS  append the results there (default: print only)
#   BUILDDIR where mtx is (default .)
# Needs the sqlite3 shell and /usr/bin/time. Run as root (mtx collect).
set -u
. "$(dirname "$0")/lib.sh"

reps=3
results=
while getopts "n:o:h" opt; do
	case $opt in
	n) reps=$OPTARG ;;
	o) results=$OPTARG ;;
	h) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
dir=.
if [ $# -gt 0 ] && [ "$1" != -- ]; then
	dir=$1
	shift
fi
[ "${1:-}" = -- ] && shift
[ $# -gt 0 ] || { echo "usage: derived-share.sh [-n REPS] [-o RESULTS] [BUILDDIR] -- COMMAND..." >&2; exit 2; }
use_build derived-share "$dir"
[ -x /usr/bin/time ] || { echo "derived-share: needs /usr/bin/time (Debian: apt-get install time)" >&2; exit 1; }
command -v sqlite3 >/dev/null || { echo "derived-share: needs the sqlite3 shell" >&2; exit 1; }

work=$(mktemp -d /tmp/mtx-derived-share.XXXXXX)
trap 'rm -rf "$work"' EXIT
builds=(new)
[ -n "${MTX_BASE:-}" ] && builds+=(base)

# one BUILD: a collection with that build; appends "wall_ms derived_ms rss_kb"
# to $work/BUILD.
one() {
	local mtx=$MTX t0 t1
	[ "$1" = base ] && mtx=$MTX_BASE
	shift
	rm -f "$work/run.db"
	t0=$(now_us)
	/usr/bin/time -f %M -o "$work/rss" "$mtx" collect -q -o "$work/run.db" -- "$@" >/dev/null 2>"$work/err" ||
		echo "derived-share: $1 run: $(tail -1 "$work/err")" >&2
	t1=$(now_us)
	echo "$(((t1 - t0 + 500) / 1000)) $(sqlite3 "$work/run.db" "SELECT value FROM meta WHERE key = 'derived_ms'")" \
		"$(tail -1 "$work/rss")" >>"$work/$build_name"
}

for ((i = 1; i <= reps; i++)); do
	for build_name in "${builds[@]}"; do
		echo "derived-share: run $i of $reps, $build_name" >&2
		one "$build_name" "$@"
	done
done

{
	echo "# mtx derived-share, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null)," \
		"$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "# command: $*; $reps runs per build, medians"
	printf '%-6s %12s %12s %7s %10s\n' build collect_ms derived_ms share rss_mb
	for build_name in "${builds[@]}"; do
		wall=$(cut -d' ' -f1 "$work/$build_name" | median)
		derived=$(cut -d' ' -f2 "$work/$build_name" | median)
		rss=$(cut -d' ' -f3 "$work/$build_name" | median)
		awk -v b="$build_name" -v w="$wall" -v d="$derived" -v r="$rss" \
			'BEGIN { s = w > 0 ? d / w : 0; printf "%-6s %12d %12d %7.3f %10d\n", b, w, d, s, r / 1024 }'
	done
	echo "# each run (collect_ms derived_ms rss_kb):"
	for build_name in "${builds[@]}"; do
		echo "#   $build_name: $(tr '\n' ';' <"$work/$build_name")"
	done
} | tee -a "${results:-/dev/null}"
