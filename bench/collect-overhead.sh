#!/bin/bash
# bench/collect-overhead.sh - what recording a run costs the program, and
# what it costs perf to record the same kernel events.
#
# For each sample program it runs, interleaved in one invocation so that
# drift of the machine hits all three alike, N repetitions of:
#   plain   the program alone
#   mtx     mtx collect -q -o DB -- program        (default events: sched,
#                                                   wakeups, syscalls, sync)
#   kernel  the same with -e sched,wakeups,syscalls (no LD_PRELOAD: what the
#           sync records add is the difference from mtx)
#   perf    perf record -q -e sched:sched_switch -e sched:sched_waking
#                       -e 'raw_syscalls:*' -o DATA -- program
#   base    (only with MTX_BASE set) the mtx run again with another build,
#           e.g. main's, to compare two versions in the same invocation
# and reports the median wall time of each, the ratios to plain, the events
# recorded and lost, and bytes per event of run.db (perf.data for perf).
# It also reports the median CPU time (user + system, the program and the
# collector together, from bash's time): unlike wall time it does not grow
# while the machine is busy with others, so on a shared machine its ratio
# is the steadier figure of what recording costs. And the program's own
# time under mtx (exec to exit, from run.db), apart from the collector's
# start-up and its work after the exit.
# And the tail: the wall time of the whole command after the program's exit
# (mtx: wall - the program's own time), and the peak RSS of the largest
# process of each run (the collector, or the program when it is larger).
# Then the fixed start-up + tear-down cost: the same three around /bin/true.
#
# perf's events are not quite mtx's: perf records sched_waking per task (mtx
# records it system-wide, keeping wakeups of traced threads by others), and
# mtx also gets switch-in, fork, exit and comm from one dummy event per CPU.
# "perf events" counts perf's tracepoint samples + FORK/COMM/EXIT records.
#
# Usage: bench/collect-overhead.sh [-n REPS] [-k KINDS] [-o RESULTS] [PROGRAM [ARGS...] [--- PROGRAM ...]]
#   REPS     repetitions (default 7)
#   KINDS    which runs, comma-separated (default plain,mtx,kernel,perf; plain,
#            mtx and perf are always run: the ratios need them)
#   RESULTS  machine-readable results (default bench/results/collect-overhead.txt
#            next to this script; '-' for none)
#   PROGRAM  a sample name (looked up in $SAMPLES_DIR) or a path; several
#            programs are separated by '---'.  Default: philosophers,
#            clientserver, farm with their default arguments.
# Environment: MTX (default ./mtx, else mtx on PATH), MTX_BASE (none), PERF (default perf),
#   SAMPLES_DIR (default ./samples; samples missing there are compiled from
#   the source tree with gcc -O2 -g -pthread into a temporary folder).
# Run it from the build folder, as root (or with perf_event_paranoid <= -1).
# It asserts nothing about timings: it only reports.
set -u
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/.." && pwd)
reps=7
results="$here/results/collect-overhead.txt"

kinds_opt=plain,mtx,kernel,perf
while getopts "n:k:o:h" opt; do
	case $opt in
	n) reps=$OPTARG ;;
	k) kinds_opt=$OPTARG ;;
	o) results=$OPTARG ;;
	h) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))

MTX=${MTX:-}
if [ -z "$MTX" ]; then
	if [ -x ./mtx ]; then MTX=$(pwd)/mtx; else MTX=$(command -v mtx || true); fi
fi
PERF=${PERF:-perf}
SAMPLES_DIR=${SAMPLES_DIR:-./samples}
[ -x "$MTX" ] || { echo "collect-overhead: no mtx binary (set MTX=)" >&2; exit 1; }
command -v "$PERF" >/dev/null || { echo "collect-overhead: no perf (set PERF=)" >&2; exit 1; }
command -v sqlite3 >/dev/null || { echo "collect-overhead: needs the sqlite3 shell" >&2; exit 1; }

work=$(mktemp -d /tmp/mtx-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

# resolve NAME: print the path of a runnable sample, compiling it if needed.
resolve() {
	local name=$1
	case $name in */*) echo "$name"; return ;; esac
	if [ -x "$SAMPLES_DIR/$name" ]; then
		echo "$SAMPLES_DIR/$name"
	elif [ -f "$srcdir/samples/$name.c" ]; then
		mkdir -p "$work/bin"
		gcc -O2 -g -pthread -I"$srcdir" -o "$work/bin/$name" "$srcdir/samples/$name.c" >&2 || return 1
		echo "$work/bin/$name"
	else
		command -v "$name"
	fi
}

# The programs: a list of command lines separated by '---'.
progs=()
if [ $# -eq 0 ]; then
	progs=("philosophers" "clientserver" "farm")
else
	cur=""
	for a in "$@"; do
		if [ "$a" = "---" ]; then
			[ -n "$cur" ] && progs+=("$cur")
			cur=""
		else
			cur="${cur:+$cur }$a"
		fi
	done
	[ -n "$cur" ] && progs+=("$cur")
fi
progs+=("/bin/true")

meta() { # DB CONDITION -> sum of the meta values whose key meets the SQL condition
	sqlite3 "$1" "SELECT coalesce(sum(CAST(value AS INTEGER)), 0) FROM meta WHERE $2" 2>/dev/null || echo 0
}

# perf's own tally (report --stats): the records of the aggregated section,
# and the samples each event lost (its "LOST_SAMPLES" line, which in the
# aggregated section counts records instead). A dump of every record (report
# -D) gave the same figures in a minute per 600 MB of perf.data; this takes
# a second. A perf without the per-event section gets the dump.
perf_stats() { # DATA -> "events lost"
	"$PERF" report --stats -i "$1" 2>/dev/null | awk '
		/Aggregated stats:/ { agg = 1; seen = 1; next }
		/ stats:$/ { agg = 0; per_event = 1; next }
		agg && ($1 == "SAMPLE" || $1 == "FORK" || $1 == "COMM" || $1 == "EXIT") && $2 == "events:" { ev += $3 }
		!agg && $1 == "LOST_SAMPLES" && $2 == "events:" { lost += $3 }
		agg && $1 == "LOST" && $2 == "events:" { lost_records += $3 }
		END { if (!seen || (lost_records && !per_event)) exit 1; printf "%d %d\n", ev, lost }' ||
	"$PERF" report -D -i "$1" 2>/dev/null | awk '
		/PERF_RECORD_SAMPLE/ || /PERF_RECORD_FORK/ || /PERF_RECORD_COMM/ || /PERF_RECORD_EXIT/ { ev++ }
		/PERF_RECORD_LOST/ { if (match($0, /lost:[0-9]+/)) lost += substr($0, RSTART + 5, RLENGTH - 5) }
		END { printf "%d %d\n", ev, lost }'
}

# timed FILE CMD...: run CMD, its user and system CPU seconds and peak RSS
# (KiB, of its largest process) into FILE.
timed() {
	local out=$1
	shift
	/usr/bin/time -f '%U %S %M' -o "$out" "$@"
}
run_one() { # KIND INDEX REP: one timed run; appends a line to $work/runs
	local kind=$1 i=$2 rep=$3 cmd t0 t1 rc ev=0 lost=0 bytes=0 cpu prog=0 rss
	read -r -a cmd <<<"${cmdline[$i]}"
	rm -f "$work/run.db" "$work/run.db.old" "$work/perf.data" "$work/perf.data.old"
	case $kind in
	plain)
		t0=$(now_us); timed "$work/cpu" "${cmd[@]}" >/dev/null 2>"$work/err"; rc=$?; t1=$(now_us) ;;
	mtx | kernel | base)
		local events=all mtx=$MTX
		[ "$kind" = kernel ] && events=sched,wakeups,syscalls
		[ "$kind" = base ] && mtx=$MTX_BASE
		t0=$(now_us)
		timed "$work/cpu" "$mtx" collect -q -e "$events" -o "$work/run.db" -- "${cmd[@]}" >/dev/null 2>"$work/err"
		rc=$?
		t1=$(now_us)
		ev=$(meta "$work/run.db" "key = 'events_total'")
		lost=$(meta "$work/run.db" "key LIKE 'lost!_%' ESCAPE '!'")
		# The program's own life under collection (exec to exit), without
		# the collector's start-up and its work after the exit.
		prog=$(sqlite3 "$work/run.db" "SELECT (end_ns - start_ns) / 1000 FROM processes
			ORDER BY start_ns LIMIT 1" 2>/dev/null)
		bytes=$(stat -c %s "$work/run.db" 2>/dev/null || echo 0) ;;
	perf)
		t0=$(now_us)
		timed "$work/cpu" "$PERF" record -q -e sched:sched_switch -e sched:sched_waking -e 'raw_syscalls:*' \
			-o "$work/perf.data" -- "${cmd[@]}" >/dev/null 2>"$work/err"
		rc=$?
		t1=$(now_us)
		read -r ev lost < <(perf_stats "$work/perf.data")
		bytes=$(stat -c %s "$work/perf.data" 2>/dev/null || echo 0) ;;
	esac
	if [ "$rc" -ne 0 ]; then
		echo "collect-overhead: $kind run of '${cmdline[$i]}' exited $rc:" >&2
		sed 's/^/  /' "$work/err" | head -5 >&2
	fi
	# the last line: /usr/bin/time puts "Command exited with ..." first
	read -r cpu rss < <(tail -n 1 "$work/cpu" | awk '{ printf "%d %d\n", ($1 + $2) * 1e6, $3 }')
	[ "$kind" = plain ] && prog=$((t1 - t0))
	echo "$i $kind $rep $((t1 - t0)) $ev $lost $bytes $rc ${cpu:-0} ${prog:-0} ${rss:-0}" >>"$work/runs"
}

cmdline=()
for p in "${progs[@]}"; do
	read -r -a words <<<"$p"
	path=$(resolve "${words[0]}") || { echo "collect-overhead: cannot find or build ${words[0]}" >&2; exit 1; }
	words[0]=$path
	cmdline+=("${words[*]}")
done

# One warm-up run of each, untimed (page cache, tracefs mounted, perf's
# first-run set-up), then the interleaved repetitions; the order of the
# three rotates with each repetition so that none always runs first.
: >"$work/runs"
kinds=(plain mtx perf)
case ",$kinds_opt," in *,kernel,*) kinds+=(kernel) ;; esac
[ -n "${MTX_BASE:-}" ] && kinds+=(base)
for i in "${!cmdline[@]}"; do
	for kind in "${kinds[@]}"; do run_one "$kind" "$i" 0; done
done
: >"$work/runs"
nk=${#kinds[@]}
for ((rep = 1; rep <= reps; rep++)); do
	echo "collect-overhead: repetition $rep of $reps" >&2
	for i in "${!cmdline[@]}"; do
		for ((k = 0; k < nk; k++)); do run_one "${kinds[$(((k + rep) % nk))]}" "$i" "$rep"; done
	done
done

# field KIND INDEX COLUMN -> the column (4 time, 5 events, 6 lost, 7 bytes, 9 cpu,
# 10 the program's own time, 11 peak RSS) of each run
field() { awk -v i="$2" -v k="$1" -v c="$3" '$1 == i && $2 == k { print $c }' "$work/runs"; }
# tails KIND INDEX -> each run's wall time after its program's exit
tails() { awk -v i="$2" -v k="$1" '$1 == i && $2 == k { print $4 - $10 }' "$work/runs"; }
sum() { awk '{ s += $1 } END { print s + 0 }'; }
failures() { awk -v i="$1" '$1 == i && $8 != 0 { n++ } END { print n + 0 }' "$work/runs"; }

date_now=$(date -u +%Y-%m-%dT%H:%MZ)
kernel=$(uname -r)
commit=$(git -C "$srcdir" rev-parse --short HEAD 2>/dev/null || echo unknown)
machine="$(nproc) CPUs, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)"

{
	echo "# mtx collect overhead, $date_now, commit $commit, kernel $kernel, $machine"
	echo "# $reps interleaved repetitions per program; times are medians in ms; lost = sum over all repetitions"
	echo "# mtx: mtx collect -q (default events, sync included); kernel: mtx collect -q -e sched,wakeups,syscalls; perf: perf record -q -e sched:sched_switch -e sched:sched_waking -e 'raw_syscalls:*'"
	echo "# cpu: user + system time of the program and the collector; base: mtx collect -q with MTX_BASE=${MTX_BASE:-(not set)}"
	printf "%s\t" program plain_ms mtx_ms perf_ms mtx_ratio perf_ratio mtx_events mtx_lost mtx_db_bytes \
		mtx_bytes_per_event perf_events perf_lost perf_data_bytes perf_bytes_per_event \
		failed_runs kernel_ms kernel_ratio plain_cpu_ms mtx_cpu_ms mtx_cpu_ratio base_ms base_ratio \
		base_cpu_ms base_cpu_ratio mtx_prog_ms mtx_prog_ratio mtx_tail_ms mtx_rss_mb perf_rss_mb \
		base_prog_ms base_prog_ratio base_tail_ms
	echo base_rss_mb
} >"$work/results"

for i in "${!cmdline[@]}"; do
	name=$(basename "${cmdline[$i]%% *}")
	args=${cmdline[$i]#* }
	[ "$args" = "${cmdline[$i]}" ] && args="" || name="$name $args"
	pt=$(field plain "$i" 4 | median)
	mt=$(field mtx "$i" 4 | median)
	ft=$(field perf "$i" 4 | median)
	me=$(field mtx "$i" 5 | median)
	ml=$(field mtx "$i" 6 | sum)
	mb=$(field mtx "$i" 7 | median)
	fe=$(field perf "$i" 5 | median)
	fl=$(field perf "$i" 6 | sum)
	fb=$(field perf "$i" 7 | median)
	kt=$(field kernel "$i" 4 | median)
	[ "$kt" = nan ] && kt=0
	pc=$(field plain "$i" 9 | median)
	mc=$(field mtx "$i" 9 | median)
	mp=$(field mtx "$i" 10 | median)
	mtail=$(tails mtx "$i" | median)
	mr=$(field mtx "$i" 11 | median)
	fr=$(field perf "$i" 11 | median)
	bt=0 bc=0 bp=0 btail=0 br=0
	if [ -n "${MTX_BASE:-}" ]; then
		bt=$(field base "$i" 4 | median) bc=$(field base "$i" 9 | median) bp=$(field base "$i" 10 | median)
		btail=$(tails base "$i" | median)
		br=$(field base "$i" 11 | median)
	fi
	awk -v n="$name" -v pt="$pt" -v mt="$mt" -v ft="$ft" -v me="$me" -v ml="$ml" -v mb="$mb" \
		-v fe="$fe" -v fl="$fl" -v fb="$fb" -v f="$(failures "$i")" -v kt="$kt" \
		-v pc="$pc" -v mc="$mc" -v bt="$bt" -v bc="$bc" -v mp="$mp" -v mtail="$mtail" -v mr="$mr" -v fr="$fr" \
		-v bp="$bp" -v btail="$btail" -v br="$br" \
		'BEGIN {
		printf "%s\t%.1f\t%.1f\t%.1f\t%.2f\t%.2f\t%d\t%d\t%.0f\t%.1f\t%d\t%d\t%.0f\t%.1f\t%d\t%.1f\t%.2f",
			n, pt / 1000, mt / 1000, ft / 1000, mt / pt, ft / pt, me, ml, mb,
			me ? mb / me : 0, fe, fl, fb, fe ? fb / fe : 0, f, kt / 1000, kt / pt
		printf "\t%.1f\t%.1f\t%.2f\t%.1f\t%.2f\t%.1f\t%.2f\t%.1f\t%.2f", pc / 1000, mc / 1000, pc ? mc / pc : 0,
			bt / 1000, bt / pt, bc / 1000, pc ? bc / pc : 0, mp / 1000, mp / pt
		printf "\t%.1f\t%.1f\t%.1f", mtail / 1000, mr / 1024, fr / 1024
		printf "\t%.1f\t%.2f\t%.1f\t%.1f\n", bp / 1000, bp / pt, btail / 1000, br / 1024 }' >>"$work/results"
done

# Ratios net of the fixed cost: (t - t(/bin/true)) / (plain - plain(/bin/true)),
# what recording costs while the program runs, start-up and tear-down aside.
awk -F'\t' -v OFS='\t' '
	FNR == NR { if ($1 == "true") { p0 = $2; m0 = $3; f0 = $4 } next }
	/^#/ { print; next }
	/^program/ { print $0, "mtx_net_ratio", "perf_net_ratio"; next }
	function net(t, t0, d) { return d > 0 && t >= t0 ? sprintf("%.2f", (t - t0) / d) : "n/a" }
	{ d = $2 - p0; print $0, net($3, m0, d), net($4, f0, d) }
' "$work/results" "$work/results" >"$work/results.net" && mv "$work/results.net" "$work/results"

# The human table: the same rows, aligned, plus the start-up line.
echo
awk -F'\t' '
	/^#/ { next }
	/^program/ { printf "%-20s %8s %8s %8s %7s %7s %7s %7s %7s %7s %7s %7s %8s %5s %8s %8s %5s %8s %8s %7s %7s\n",
		"program", "plain ms", "mtx ms", "perf ms", "mtx/pl", "kern/pl", "perf/pl", "mtx net", "prog/pl", "perfnet",
		"cpu/pl", "base/pl", "mtx ev", "lost", "mtx B/ev", "perf ev", "lost", "perf B/ev", "tail ms", "mtx MB",
		"perf MB"; next }
	$1 == "true" { startup = $0; next }
	$22 > 0 { base[++nb] = sprintf("%-20.20s %7.2fx %9.2fx %9.1f %8.1f", $1, $22, $31, $32, $33) }
	{ printf "%-20.20s %8.1f %8.1f %8.1f %6.2fx %7s %6.2fx %7s %6.2fx %7s %6.2fx %7s %8d %5d %8.1f %8d %5d %8.1f %8.1f %7.1f %7.1f%s\n",
		$1, $2, $3, $4, $5, ($17 > 0 ? sprintf("%6.2fx", $17) : "      -"), $6, $34 == "n/a" ? $34 : $34 "x", $26, $35 == "n/a" ? $35 : $35 "x",
		$20, ($22 > 0 ? sprintf("%.2fx", $22) : "-"),
		$7, $8, $10, $11, $12, $14, $27, $28, $29, $15 ? "  (" $15 " failed runs)" : "" }
	END { if (nb) {
			printf "\n%-20s %8s %10s %9s %8s\n", "base (MTX_BASE)", "base/pl", "prog/pl", "tail ms", "MB"
			for (k = 1; k <= nb; k++) print base[k]
		}
		split(startup, s, "\t")
		printf "\nstart-up + tear-down (/bin/true, medians): plain %.1f ms, mtx %.1f ms (+%.1f), perf %.1f ms (+%.1f)%s\n",
			s[2], s[3], s[3] - s[2], s[4], s[4] - s[2], (s[21] > 0 ? sprintf(", base %.1f ms", s[21]) : "") }' "$work/results"
echo "($reps repetitions, medians; lost = sum over all repetitions; net = ratio once the"
echo " /bin/true start-up + tear-down of each is taken off both sides; cpu/pl = mtx's CPU"
echo " time (program + collector) over the plain run's; base/pl = MTX_BASE's wall time;"
echo " prog/pl = the program's own time under mtx, exec to exit (run.db's processes row),"
echo " over the plain run's wall time: the slowdown the program itself sees; tail = mtx's"
echo " wall time after the program's exit; MB = peak RSS of the largest process)"

if [ "$results" != "-" ]; then
	mkdir -p "$(dirname "$results")"
	cp "$work/results" "$results"
	echo "results written to $results"
fi
