#!/bin/bash
# bench/attach-time.sh - how long mtx collect -p takes to attach (from its
# start to its "attached" line) and to detach (from SIGINT to its exit,
# the kernel removing each uprobe in ~80 ms), on programs that run
# already: memcached -t 4 under a client's load (18 pthread functions
# imported), and sysbench threads (24), each attached for 1 s, ROUNDS
# times; and whether the program ran on (it is checked to be alive).
#
# Usage: bench/attach-time.sh [rounds=5]
# Run from the build tree, as root. Prints each run and the medians.
set -eu
rounds=${1:-5}
MTX=${MTX:-./mtx}
[ -x "$MTX" ] || { echo "attach-time.sh: $MTX not found (build first)" >&2; exit 1; }
work=$(mktemp -d /tmp/mtx-bench-attach.XXXXXX)
pids=()
cleanup() { kill "${pids[@]}" 2> /dev/null || true; wait 2> /dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# attach_once NAME PID - one attach of 1 s: "NAME attach_ms detach_ms threads"
attach_once() {
	local name=$1 pid=$2 t0 t1 t2 mpid
	t0=$(now_ms)
	"$MTX" collect -p "$pid" -o "$work/$name.db" > /dev/null 2> "$work/$name.err" &
	mpid=$!
	until grep -q attached "$work/$name.err" 2> /dev/null; do
		kill -0 "$mpid" 2> /dev/null || { echo "attach-time.sh: $name: $(cat "$work/$name.err")" >&2; return 1; }
		sleep 0.005
	done
	t1=$(now_ms)
	sleep 1
	kill -INT "$mpid"
	t2=$(now_ms)
	wait "$mpid"
	kill -0 "$pid" || { echo "attach-time.sh: $name died" >&2; return 1; }
	echo "$name $((t1 - t0)) $(($(now_ms) - t2)) $(sed -n 's/.*, \([0-9]*\) threads*).*/\1/p' "$work/$name.err")"
}

targets=()
if command -v memcached > /dev/null && command -v python3 > /dev/null; then
	memcached -u root -t 4 -p 11499 -U 0 & pids+=($!)
	mc=$!
	sleep 0.3
	python3 - > /dev/null 2>&1 <<'PY' &
import socket, time
s = socket.create_connection(("127.0.0.1", 11499))
end = time.time() + 3600
while time.time() < end:
    s.sendall(b"set k 0 0 5\r\nhello\r\nget k\r\n"); s.recv(200)
PY
	pids+=($!)
	targets+=("memcached:$mc")
fi
if command -v sysbench > /dev/null; then
	sysbench threads --threads=4 --time=3600 run > /dev/null 2>&1 & pids+=($!)
	targets+=("sysbench-threads:$!")
fi
sleep 0.5
printf '%-18s %10s %10s %8s\n' program attach_ms detach_ms threads
for ((r = 1; r <= rounds; r++)); do
	for t in "${targets[@]}"; do
		attach_once "${t%%:*}" "${t#*:}"
	done
done | tee "$work/runs" | awk '{ printf "%-18s %10d %10d %8d\n", $1, $2, $3, $4 }'
for t in "${targets[@]}"; do
	awk -v n="${t%%:*}" '$1 == n { a[++k] = $2; d[k] = $3 }
		function med(v, n,   i, j, x) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
			return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
		END { printf "median %-11s %10d %10d\n", n, med(a, k), med(d, k) }' "$work/runs"
done
