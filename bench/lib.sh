# bench/lib.sh - shared by the benchmark scripts (sourced).

# now_us - wall time in µs: bash 5's $EPOCHREALTIME, without forking date(1).
now_us() {
	if [ -n "${EPOCHREALTIME:-}" ]; then
		local t=${EPOCHREALTIME/[.,]/}
		echo "$t"
	else
		echo $(($(date +%s%N) / 1000))
	fi
}

# median - numbers on stdin -> their median (mean of the two middle ones if even).
median() {
	sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) { print "nan"; exit }
		if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# use_build NAME [DIR] - set build (DIR, default .) and MTX (its mtx) for the
# benchmark NAME, or say there is none and exit.
use_build() {
	build=$(cd "${2:-.}" && pwd) || exit 1
	MTX=$build/mtx
	[ -x "$MTX" ] || { echo "$1: no $MTX (give the build folder)" >&2; exit 1; }
}
