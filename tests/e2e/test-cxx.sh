#!/bin/bash
# tests/e2e/test-cxx.sh - a C++ program (samples/cxxcalls: a namespace
# function, a class template's member, std::mutex, std::thread):
#  - --list-functions 'work::' finds the three functions by their readable
#    names (the pattern matches the demangled name; the mangled one is
#    _ZN4work...), and names the .cold parts it leaves out readably too;
#  - --functions on it warns that an exception leaving a traced function
#    would end the program (the kernel's return probes); not on a C program;
#  - under --functions 'work::', check_sample (samples.sh) holds: same
#    output and status, the std::thread threads, and per thread exactly
#    the std::mutex lock and unlock ops the sample counted;
#  - the functions table names them 'work::step(long)' and
#    'work::Counter<long>::add(long)', and the calls per thread and
#    (caller, callee) equal the sample's (check_calls);
#  - mtx report calls prints the readable names;
#  - built with -pg (cxxcalls-pg), with exceptions thrown through
#    work::check to a handler in work::step: same output and status (the
#    unwinder used to stop at the hooks' return trampoline: terminate), and
#    per thread the work:: calls and their callers equal the sample's, each
#    call ended (check's thrown calls where step caught the exception).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/samples.sh"
require_perf
cd "$TMP" || exit 1
CXXCALLS=$SAMPLES/cxxcalls

check_list_functions "$CXXCALLS" 'work::' 'work::step(long)' 'work::check(long)' 'work::Counter<long>::add(long)'
grep -q "not traced: .*work::step(long) \[clone .cold\]" list.err || fail "the .cold part not named readably: $(cat list.err)"

# Return probes and exceptions: mtx warns that an exception leaving a traced
# function would end the program (C programs get no such warning).
"$MTX" collect -o warn.db --functions 'work::' -- "$CXXCALLS" 1 1 > /dev/null 2> warn.err ||
	fail "--functions on cxxcalls exited $?"
grep -q "is C++: an exception that leaves a traced function ends the program" warn.err ||
	fail "no warning about exceptions and return probes: $(cat warn.err)"
"$MTX" collect -o warn-c.db --functions '^tree_leaf$' -- "$SAMPLES/calltree" 1 1 > /dev/null 2> warn-c.err ||
	fail "--functions on calltree exited $?"
grep -q "is C++" warn-c.err && fail "a C program got the C++ warning: $(cat warn-c.err)"

COLLECT_OPTS="--functions work::"
FAILED_BEFORE=$FAILED
check_sample cxxcalls 3 40
[ "$(sql "$TMP/cxxcalls.db" "SELECT GROUP_CONCAT(name, ' ') FROM (SELECT DISTINCT name FROM functions
	WHERE name LIKE 'work::%' ORDER BY name)")" = "work::Counter<long>::add(long) work::step(long)" ] ||
	fail "functions: $(sql "$TMP/cxxcalls.db" "SELECT name FROM functions")"
[ "$(sql "$TMP/cxxcalls.db" "SELECT COUNT(*) FROM functions WHERE name LIKE '\_Z%' ESCAPE '\'")" = 0 ] ||
	fail "mangled names left in functions"
[ "$(sql "$TMP/cxxcalls.check.db" "SELECT COUNT(*) FROM sc_op WHERE kind = 'mutex'")" -gt 0 ] ||
	fail "the sample counted no std::mutex op"
check_calls "$TMP/cxxcalls.db" "$TMP/cxxcalls.check.db"
[ "$FAILED" = "$FAILED_BEFORE" ] && pass "calls and sync ops of cxxcalls 3 40"

"$MTX" report "$TMP/cxxcalls.db" calls --format csv > report.csv 2> report.err || fail "report calls: $(cat report.err)"
grep -q "work::Counter<long>::add(long)" report.csv || fail "report calls lacks the readable name: $(head -20 report.csv)"

FAILED_BEFORE=$FAILED
COLLECT_OPTS="" SAMPLE_SUFFIX=-pg check_sample cxxcalls 3 40 throw
[ "$(sql "$TMP/cxxcalls.check.db" "SELECT SUM(count) FROM sc_call WHERE callee = 'work::check(long)'")" -gt 0 ] ||
	fail "cxxcalls-pg throw: the sample called no work::check"
check_calls "$TMP/cxxcalls.db" "$TMP/cxxcalls.check.db" 'work::%'
[ "$FAILED" = "$FAILED_BEFORE" ] && pass "exceptions through -pg frames: cxxcalls-pg 3 40 throw"
finish
