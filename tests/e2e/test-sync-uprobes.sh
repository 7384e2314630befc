#!/bin/bash
# The uprobe fallback: every sample linked statically, which
# libmtx-preload.so cannot enter, run plainly and under 'mtx collect', which
# traces the program's own pthread functions with uprobes instead (the line
# that says so: test-sync-inject.sh); check_sample (samples.sh) then holds as with the library:
# same output and status, exact threads, states and switches, and sync op
# counts per thread, kind and op equal to the sample's own. The probes are
# gone once the collector's closing child has finished.
#
# forkexec is left out: a static program exec'd by a traced child process
# (not by mtx itself) is not probed on this kernel (see mtx-collect(1)).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/samples.sh"
require_perf
SAMPLES=$BUILDDIR/tests/e2e
SAMPLE_SUFFIX=-static

# mtx_<pid> groups of collectors that are gone, removed by the next start.
stale_groups() {
	local g pid n=0
	for g in /sys/kernel/tracing/events/mtx_*; do
		[ -d "$g" ] || continue
		pid=${g##*/mtx_}
		[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = mtx ] || n=$((n + 1))
	done
	echo "$n"
}

while read -r name args; do
	[ -n "$name" ] || continue
	# shellcheck disable=SC2086
	check_sample "$name" $args
	[ "$(sql "$TMP/$name.db" "SELECT value FROM meta WHERE key = 'sync_method'")" = uprobes ] ||
		fail "$name: meta sync_method is not uprobes"
	[ "$(sql "$TMP/$name.db" "SELECT value FROM meta WHERE key = 'sync_uprobes_unpaired'")" = 0 ] ||
		fail "$name: unpaired uprobe hits"
done <<< "$(grep -v "^forkexec" <<< "$SAMPLE_RUNS")"

# The last collector's probes are removed by its closing child: wait for it
# (bounded: each close waits for an RCU grace period, seconds in all on a
# loaded machine), then no group of a finished collector is left. Once seen
# empty, it is not looked at again: test-functions.sh, maybe running beside
# this one, kills a collector on purpose and its group stays until that
# test's next collection removes it (this test failed once on such a group).
clean=0
for _ in $(seq 600); do
	[ "$(stale_groups)" = 0 ] && { clean=1; break; }
	sleep 0.1
done
[ "$clean" = 1 ] || fail "uprobe groups left behind: $(ls -d /sys/kernel/tracing/events/mtx_* 2>/dev/null)"
finish
