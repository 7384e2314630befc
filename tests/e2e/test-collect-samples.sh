#!/bin/bash
# Every sample, run plainly and under 'mtx collect' (libmtx-preload.so
# records its sync operations), checked by check_sample (samples.sh): same
# output and status, exact threads, states, switches and sync op counts.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/samples.sh"
require_perf

while read -r name args; do
	[ -n "$name" ] || continue
	# shellcheck disable=SC2086
	check_sample "$name" $args
done <<< "$SAMPLE_RUNS"
finish
