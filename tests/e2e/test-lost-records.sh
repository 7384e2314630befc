#!/bin/bash
# Records the kernel drops are counted, each of them, even when no later
# record tells (mtx-collect(1), LOST RECORDS). The collector is stopped
# (SIGSTOP) while dd makes 2 x 100000 syscalls into a 1 MiB ring, and let
# go only once dd has exited: the ring is full at the end and nothing of
# the program writes into it again, so the kernel's PERF_RECORD_LOST never
# comes. The truth is dd's own count: each read and write it reports is a
# complete syscalls row, or at least one of its two records is counted
# lost.
. "$(dirname "$0")/lib.sh"
require_perf
cd "$TMP" || exit 1
n=100000

mkfifo go || exit 1
"$MTX" collect -e sched,syscalls -m 1 -o lost.db -- \
	sh -c "read x < go; exec dd if=/dev/zero of=/dev/null bs=1 count=$n" > out.txt 2> err.txt &
mtx=$!
# the program is waiting on the fifo once mtx's child is the shell
child=
wait_until eval 'child=$(pgrep -P $mtx -x sh)' || { fail "the program never started: $(head -1 err.txt)"; finish; }
kill -STOP $mtx
echo > go
# dd exits; its zombie waits for the stopped mtx to reap it
wait_until eval '[ "$(awk "{ print \$3 }" /proc/$child/stat 2> /dev/null)" = Z ]' ||
	fail "dd did not finish while mtx was stopped"
kill -CONT $mtx
wait $mtx
status=$?
[ "$status" = 0 ] || fail "collect exited $status: $(head -1 err.txt)"
grep -q "^$n+0 records in$" err.txt && grep -q "^$n+0 records out$" err.txt ||
	fail "dd did not copy its $n bytes: $(grep records err.txt | tr '\n' ' ')"
grep -q "kernel records were lost" err.txt || fail "no warning of lost records: $(head -3 err.txt)"

rows=$(sql lost.db "SELECT COUNT(*) FROM syscalls WHERE name IN ('read', 'write') AND end_ns IS NOT NULL")
summed=$(sql lost.db "SELECT COALESCE(SUM(returned), 0) FROM summarized_syscalls WHERE name IN ('read', 'write')")
lost=$(sql lost.db "SELECT value FROM meta WHERE key = 'lost_syscalls'")
others=$(sql lost.db "SELECT COALESCE(SUM(value), 0) FROM meta WHERE key LIKE 'lost\_%' ESCAPE '\' AND key != 'lost_syscalls'")
complete=$((rows + summed))
if [ "$lost" -le 0 ]; then
	fail "no syscall record counted lost, though $complete of dd's $((2 * n)) reads and writes are whole"
elif [ $((complete + lost)) -lt $((2 * n)) ]; then
	fail "$complete whole reads and writes and $lost lost records do not make dd's $((2 * n))"
elif [ "$lost" -gt $((4 * n + 1000)) ]; then
	fail "$lost syscall records counted lost, more than dd's $((2 * n)) calls make"
else
	pass "$complete of dd's $((2 * n)) reads and writes whole, $lost syscall records lost ($others of other sources)"
fi
finish
