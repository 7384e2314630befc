#!/bin/sh
# tests/run-unit.sh PROGRAM - run one Criterion unit test program (make
# check's LOG_COMPILER for tests without an extension).
#
# Criterion's runner (2.4, Debian 12) now and then never returns after its
# tests have ended: seen here with every test passed, the runner waiting
# in nn_recv with no worker left (Snaipe/Criterion#468 describes hangs of
# its message loop). A test of ours that hangs ends at its own .timeout,
# reported as a failure, so a program still running after LIMIT seconds is
# the runner's hang: it is stopped and run once more, saying so.
#
# In a build with --enable-sanitizers, LeakSanitizer is off here: the
# runner process runs only Criterion's code, and Criterion 2.4.1 leaks
# there (48 bytes under criterion_run_all_tests: every whole run of
# test-preload here, never its tests one at a time or with --jobs 1),
# failing a run whose tests all passed; and a worker's leak report never
# fails its test (Criterion ignores the worker's exit status once the test
# has ended). The leaks that matter are mtx's own, which the end-to-end
# tests see as its exit status and stderr.
LSAN_OPTIONS=detect_leaks=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}
export LSAN_OPTIONS
limit=${MTX_UNIT_TEST_LIMIT:-600}
for attempt in 1 2; do
	timeout -k 10 "$limit" "$@"
	status=$?
	case $status in
	124 | 137) echo "run-unit: $1 still running after ${limit} s (attempt $attempt): stopped" >&2 ;;
	*) exit $status ;;
	esac
done
exit 99 # a hard error for automake's driver
