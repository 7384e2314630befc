#!/bin/bash
# tests/e2e/test-cxx.sh - a C++ program (samples/cxxcalls: a namespace
# function, a class template's member, std::mutex, std::thread):
#  - --list-functions 'work::' finds both functions by their readable
#    names (the pattern matches the demangled name; the mangled one is
#    _ZN4work...), and names the .cold part it leaves out readably too;
#  - under --functions 'work::', check_sample (samples.sh) holds: same
#    output and status, the std::thread threads, and per thread exactly
#    the std::mutex lock and unlock ops the sample counted;
#  - the functions table names them 'work::step(long)' and
#    'work::Counter<long>::add(long)', and the calls per thread and
#    (caller, callee) equal the sample's (check_calls);
#  - mtx report calls prints the readable names.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/samples.sh"
require_perf
cd "$TMP" || exit 1
CXXCALLS=$SAMPLES/cxxcalls

check_list_functions "$CXXCALLS" 'work::' 'work::step(long)' 'work::Counter<long>::add(long)'
grep -q "not traced: work::step(long) \[clone .cold\]" list.err || fail "the .cold part not named readably: $(cat list.err)"

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
finish
