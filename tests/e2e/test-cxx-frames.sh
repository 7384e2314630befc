#!/bin/bash
# tests/e2e/test-cxx-frames.sh - where in a C++ program's own code its sync
# ops were made, and what mtx's own library costs in its profile, on
# samples/cxxframes (a global std::mutex through std::lock_guard and
# std::unique_lock: std::mutex::lock and __gthread_mutex_lock are inlined
# from the system's headers into the program):
#  - collected with and without --sync-stacks (same output and status),
#    each op of the program's mutexes made in the executable is named, in
#    the object history (CSV), by the function and line addr2line -i gives
#    for its call site: the innermost of its frames whose line is not in a
#    header of the system, else the outermost (the function that holds the
#    call); the ops of ledger_lock never by __gthread_* or std::; every
#    deposit's lock is bank::deposit(long) (the source says so), as many
#    as the tellers made; the sync report's where section and the waits
#    report name the same functions and lines;
#  - with --sample, the stacks hold no frame of libmtx-preload.so but one
#    "[mtx] <wrapper>" row per run of them, the wrapper a function the
#    library exports (nm -D), under a frame that is not mtx's; the flat
#    report names none of the library's own functions (nm); its mtx% is
#    the share of samples in [mtx] rows; the switches in a lock are in the
#    program's functions, never in an inlined header's.
. "$(dirname "$0")/lib.sh"
require_perf
command -v addr2line >/dev/null && command -v readelf >/dev/null && command -v nm >/dev/null ||
	skip "binutils (addr2line, readelf, nm) is not installed"
cd "$TMP" || exit 1

PROG=$(private_sample cxxframes) || { fail "no copy of the cxxframes sample"; finish; }
TELLERS=3
ROUNDS=400

# section FILE HEADER_START - the CSV section of a report whose header
# begins with HEADER_START.
section() { awk -v h="$2" 'BEGIN { RS = "" } index($0, h) == 1 { print }' "$1"; }

# vaddr OFFSET - the executable's virtual address of file offset OFFSET (its
# LOAD segments, from readelf).
vaddr() {
	local type o v p n rest
	readelf -lW "$PROG" | while read -r type o v p n rest; do
		[ "$type" = LOAD ] || continue
		if [ "$1" -ge $((o)) ] && [ "$1" -lt $((o + n)) ]; then
			printf '0x%x\n' $(($1 - o + v))
			break
		fi
	done
}

# truth DB - table truth(callsite, function, source, own) in DB (callsite in
# hex, as the reports write it): for each call site of a sync op in the
# executable, what addr2line -f -i -C says of the call (return address -
# 1): the innermost frame whose line is not in /usr/include or
# /usr/lib/gcc (own = 1), else the outermost (own = 0).
truth() {
	local db=$1 callsite off
	sql "$db" "CREATE TABLE truth (callsite TEXT, function TEXT, source TEXT, own INTEGER)"
	sql "$db" "SELECT DISTINCT printf('0x%x', op.callsite), op.callsite - 1 - m.start_addr + m.pgoff
		FROM sync_ops op JOIN sync_objects o ON o.id = op.object_id
		JOIN maps m ON m.pid = o.pid AND m.start_addr < op.callsite AND op.callsite <= m.end_addr
		WHERE m.path = '$PROG'" | while IFS='|' read -r callsite off; do
		addr2line -f -i -C -e "$PROG" "$(vaddr "$off")" | awk -v cs="$callsite" -v q="'" '
			function esc(s) { gsub(q, q q, s); return q s q }
			NR % 2 == 1 { name = $0; next }
			{
				sub(/ \(discriminator [0-9]+\)$/, "")
				file = $0; sub(/:[0-9?]+$/, "", file)
				base = $0; sub(/.*\//, "", base)
				last_name = name; last_base = base
				if (!found && file !~ "^/usr/include/" && file !~ "^/usr/lib/gcc/") {
					found = 1
					printf "INSERT INTO truth VALUES (%s, %s, %s, 1);\n", esc(cs), esc(name), esc(base)
				}
			}
			END { if (!found) printf "INSERT INTO truth VALUES (%s, %s, %s, 0);\n", esc(cs), esc(last_name), esc(last_base) }'
	done > truth.sql
	sqlite3 -batch "$db" < truth.sql
}

# import DB TABLE CSV - load a report's CSV section (with its header) into DB.
import() { sqlite3 -batch "$1" ".import --csv $3 $2"; }

# SQL: whether mtx's function name @1 is addr2line's @2. For a function
# inlined there addr2line prints the name without its parameters
# ("teller", mtx "teller(int, unsigned long)").
SAME_FUNCTION="(%1 = %2 OR (instr(%2, '(') = 0 AND substr(%1, 1, instr(%1, '(') - 1) = %2))"
same_function() { local s=${SAME_FUNCTION//%1/$1}; echo "${s//%2/$2}"; }

check_run() {
	local db=$1 what=$2 n bad ids
	truth "$db"
	[ "$(sql "$db" "SELECT COUNT(*) FROM truth WHERE function = 'bank::deposit(long)'")" -gt 0 ] ||
		fail "$what: addr2line names no call site bank::deposit(long): $(sql "$db" "SELECT * FROM truth")"

	# The object history of each of the program's mutexes.
	ids=$(sql "$db" "SELECT id FROM sync_objects WHERE kind = 'mutex'")
	for id in $ids; do
		"$MTX" report "$db" object "$id" --limit 0 --format csv > object.csv 2> object.err ||
			fail "$what: report object $id: $(head -1 object.err)"
		section object.csv start_ns, > history-$id.csv
		import "$db" history history-$id.csv
	done
	n=$(sql "$db" "SELECT COUNT(*) FROM history h JOIN truth t ON t.callsite = h.callsite")
	[ "$n" -gt 0 ] || fail "$what: no op of the object histories made in the executable"
	# With a stack, an op whose call site holds none of the program's
	# frames is where its stack says: addr2line on the call site cannot.
	bad=$(sql "$db" "SELECT h.op || ' at ' || h.callsite || ': ' || h.function || ' ' || h.source ||
		', addr2line: ' || t.function || ' ' || t.source FROM history h JOIN truth t ON t.callsite = h.callsite
		WHERE (NOT $(same_function h.function t.function) OR h.source IS NOT t.source)
		AND (t.own OR '$what' = 'plain')
		GROUP BY h.callsite")
	[ -z "$bad" ] && pass "$what: $n ops in the object histories where addr2line puts them" ||
		fail "$what: ops named otherwise than addr2line does: $bad"
	addr=$(sql "$db" "SELECT printf('0x%x', addr) FROM sync_objects o WHERE kind = 'mutex' AND
		(SELECT COUNT(*) FROM sync_ops WHERE object_id = o.id) = (SELECT MAX(c) FROM
		(SELECT COUNT(*) AS c FROM sync_ops GROUP BY object_id))")
	bad=$(sql "$db" "SELECT DISTINCT h.function FROM history h JOIN sync_objects o ON o.kind = 'mutex'
		AND printf('0x%x', o.addr) = '$addr' JOIN sync_ops op ON op.object_id = o.id AND printf('0x%x', op.callsite) = h.callsite
		WHERE h.function LIKE '%gthread%' OR h.function LIKE 'std::%' OR h.function IS NULL")
	[ -z "$bad" ] || fail "$what: ledger_lock's ops named by $bad"

	# The sync report's where section: the deposits' locks, all of them,
	# at addr2line's line; without stacks, every mutex row in the
	# program's code as addr2line says.
	"$MTX" report "$db" sync --format csv > sync.csv 2> sync.err || fail "$what: report sync: $(head -1 sync.err)"
	section sync.csv function,source, > where.csv
	import "$db" sync_where where.csv
	n=$(sql "$db" "SELECT SUM(calls) FROM sync_where w JOIN truth t ON t.function = w.function
		AND t.source = w.source WHERE w.kind = 'mutex' AND w.op = 'lock' AND w.function = 'bank::deposit(long)'")
	[ "$n" = $((TELLERS * ROUNDS)) ] && pass "$what: sync where: $n locks in bank::deposit(long) at its line" ||
		fail "$what: sync where: ${n:-no} locks in bank::deposit(long) at addr2line's line, not $((TELLERS * ROUNDS)): $(cat where.csv)"
	bad=$(sql "$db" "SELECT w.function || ' ' || w.source FROM sync_where w WHERE w.kind = 'mutex'
		AND w.source LIKE 'cxxframes.cc:%' AND '$what' = 'plain' AND NOT EXISTS (SELECT 1 FROM truth t
		WHERE $(same_function w.function t.function) AND t.source = w.source)")
	[ -z "$bad" ] || fail "$what: sync where names lines addr2line does not: $bad"
	bad=$(sql "$db" "SELECT function FROM sync_where WHERE function LIKE '%gthread%' OR function LIKE 'std::mutex::%'
		OR function LIKE 'std::lock_guard%'")
	[ -z "$bad" ] || fail "$what: sync where names $bad"

	# The waits report: where the holders and wakers were.
	"$MTX" report "$db" waits --format csv > waits.csv 2> waits.err || fail "$what: report waits: $(head -1 waits.err)"
	section waits.csv for_tid,for_name,relation,function,source, > waits-where.csv
	import "$db" waits_where waits-where.csv
	bad=$(sql "$db" "SELECT w.function || ' ' || w.source FROM waits_where w WHERE w.source LIKE 'cxxframes.cc:%'
		AND NOT EXISTS (SELECT 1 FROM truth t WHERE $(same_function w.function t.function)
		AND t.source = w.source) OR w.function LIKE '%gthread%' OR w.function LIKE 'std::mutex::%'")
	[ -z "$bad" ] && pass "$what: waits where: $(sql "$db" "SELECT COUNT(*) FROM waits_where") rows" ||
		fail "$what: waits where names $bad"
}

collect_same plain.db -- "$PROG" $TELLERS $ROUNDS
check_run plain.db plain
collect_same stacks.db --sync-stacks -- "$PROG" $TELLERS $ROUNDS
check_run stacks.db stacks

# The profile: mtx's frames folded into the call the program made.
collect_same profile.db --sample 999 -- "$PROG" 4 400000
PRELOAD=$(sql profile.db "SELECT path FROM maps WHERE path LIKE '%/libmtx-preload.so' LIMIT 1")
[ -n "$PRELOAD" ] || fail "profile: libmtx-preload.so is not in the maps"
n=$(sql profile.db "SELECT COUNT(*) FROM samples sm JOIN stacks s ON s.id = sm.stack_id
	JOIN functions f ON f.id = s.function_id WHERE instr(f.name, '[mtx] ') = 1")
[ "$n" -gt 0 ] || fail "profile: no sample in mtx's wrappers ($(sql profile.db "SELECT COUNT(*) FROM samples") samples)"
bad=$(sql profile.db "SELECT DISTINCT f.name FROM stacks s JOIN functions f ON f.id = s.function_id
	WHERE f.module = '$PRELOAD' AND instr(f.name, '[mtx] ') != 1")
[ -z "$bad" ] || fail "profile: frames of libmtx-preload.so outside the call the program made: $bad"
# What the program can call (exported), and what the loader calls: the
# library's constructors and destructors, from .init_array and .fini_array
# (their relocations hold the addresses).
nm -D --defined-only "$PRELOAD" | awk '$2 == "T" || $2 == "W" { print $3 }' > exported.txt
readelf -SW "$PRELOAD" | sed -n 's/^.*\] *\.\(init\|fini\)_array *[A-Z_]* *\([0-9a-f]*\) *[0-9a-f]* *\([0-9a-f]*\).*/\2 \3/p' > arrays.txt
readelf -rW "$PRELOAD" | awk '$3 == "R_X86_64_RELATIVE" { print $1, $4 }' > relative.txt
while read -r start size; do
	while read -r where addend; do
		(( 16#$where >= 16#$start && 16#$where < 16#$start + 16#$size )) && printf '%x\n' $((16#$addend))
	done < relative.txt
done < arrays.txt > loader-calls.txt
nm "$PRELOAD" | while read -r addr type name; do
	[ -n "$name" ] && grep -qx "$(printf '%x' $((16#$addr)))" loader-calls.txt && echo "$name"
done >> exported.txt
grep -qx preload_init exported.txt || fail "profile: the library's constructor is not found in .init_array"
# and what libc calls back: the thread-exit destructor and the fork
# handler the library registers (a sample may land in either)
grep -ohE '(pthread_key_create\(&[a-z_]+,|pthread_atfork\(([A-Za-z_]+, *){2}) *[a-z_]+\)' "$srcdir"/collector/preload/*.c |
	sed -E 's/.*[(,] *([a-z_]+)\)$/\1/' >> exported.txt
grep -qx thread_exit_destructor exported.txt || fail "profile: the library's thread-exit destructor is not found in its source"
sort -u -o exported.txt exported.txt
sql profile.db "SELECT DISTINCT substr(f.name, 7) FROM functions f WHERE instr(f.name, '[mtx] ') = 1" |
	sort > wrappers.txt
bad=$(comm -23 wrappers.txt exported.txt | tr '\n' ' ')
[ -s wrappers.txt ] && [ -z "$bad" ] || fail "profile: [mtx] frames of functions the library does not export: $bad"
bad=$(sql profile.db "SELECT COUNT(*) FROM stacks s JOIN functions f ON f.id = s.function_id
	JOIN stacks p ON p.id = s.parent_id JOIN functions pf ON pf.id = p.function_id
	WHERE f.module = '$PRELOAD' AND pf.module = '$PRELOAD'")
[ "$bad" = 0 ] || fail "profile: $bad of mtx's rows are under another of mtx's"
"$MTX" report profile.db flat --limit 0 --format csv > flat.csv 2> flat.err || fail "report flat: $(head -1 flat.err)"
section flat.csv tid,thread,function, > flat-rows.csv
import profile.db flat_rows flat-rows.csv
# Its internal functions: the exported ones share their names with the C
# library's (a sample in libc's prctl, which pthread_setname_np calls, is
# "prctl"); that the library's own frames of them are folded was checked above.
nm -D --defined-only "$PRELOAD" | awk '{ print $3 }' | sort -u > dynamic.txt
# Nor the names every module has of its own (crtstuff's __do_global_dtors_aux,
# frame_dummy): a sample in the program's copy at its exit is the program's.
sql profile.db "SELECT DISTINCT name FROM functions WHERE module != '$PRELOAD'" >> dynamic.txt
sort -u -o dynamic.txt dynamic.txt
nm --defined-only "$PRELOAD" | awk '{ print $3 }' | sed 's/\..*//' | sort -u | comm -23 - dynamic.txt > own.txt
[ -s own.txt ] || fail "profile: no internal function of libmtx-preload.so found by nm"
sql profile.db "SELECT DISTINCT function FROM flat_rows" | sort > flat-functions.txt
bad=$(comm -12 own.txt flat-functions.txt | tr '\n' ' ')
[ -z "$bad" ] || fail "profile: the flat report names functions of libmtx-preload.so: $bad"
share=$(sql profile.db "SELECT ROUND(100.0 * $n / COUNT(*), 1) FROM samples")
section flat.csv samples, > summary.csv
[ "$(tail -1 summary.csv | awk -F, '{ print $NF }')" = "$share" ] &&
	pass "profile: $n samples in mtx's wrappers ($share%, as flat.summary says), folded into $(tr '\n' ' ' < wrappers.txt)" ||
	fail "profile: flat.summary's mtx% is not $share: $(cat summary.csv)"
bad=$(sql profile.db "SELECT DISTINCT f.name FROM switch_totals x JOIN functions f ON f.id = x.function_id
	WHERE x.at = 'mutex lock' AND (f.name LIKE '%gthread%' OR f.name LIKE 'std::mutex::%')")
[ -z "$bad" ] || fail "profile: switches in a lock placed in $bad"
finish
