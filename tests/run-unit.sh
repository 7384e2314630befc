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
