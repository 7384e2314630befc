#!/bin/bash
# tests/e2e/test-object-names.sh - sync objects named (sync_objects.name),
# and semaphores used as locks in mtx report locks, on samples/bank (C++)
# and, when python3 is installed, on Python threads and a threading.Lock:
#  - check_sample (samples.sh) holds for bank: same output and status, its
#    threads, and per thread exactly the sync ops it counted;
#  - every lock bank has in its executable's data is named as nm -C names
#    the symbol that holds it, with the offset in it: the executable's load
#    address from where bank says bank_anchor was (its self-check), not
#    from mtx; log_mutex, count_round()::lock and ledger::accounts+0x8 are
#    among them;
#  - the heap's: the semaphore audit_lock "init at bank.cc:<line of its
#    sem_init> in Bank::Bank()", the std::mutex vault "first used at
#    bank.cc:<line of vault.lock()> in Bank::deposit(long)" (the
#    program's frame, not libstdc++'s);
#  - audit_lock, and no other semaphore (go and tried signal), is used as a
#    lock: in mtx report locks (CSV, its name there too), and teller-1's
#    failed sem_trywait found teller-0 holding it, as bank arranges;
#  - mtx report object takes a name;
#  - a stripped copy of bank: log_mutex and audit_lock named by their
#    place in the file (bank-stripped+0x...), checked with nm and objdump;
#  - Python: the semaphore of a threading.Lock is in locks, its posts are
#    the acquisitions the script counted, and a failed acquire found the
#    thread the script says held it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/samples.sh"
require_perf
command -v nm > /dev/null && command -v objdump > /dev/null || skip "binutils (nm, objdump) is not installed"
cd "$TMP" || exit 1
BANK=$SAMPLES/bank
DB=$TMP/bank.db

FAILED_BEFORE=$FAILED
check_sample bank 3 300
[ "$FAILED" = "$FAILED_BEFORE" ] && pass "bank 3 300: output, threads and sync ops"
[ -s "$DB" ] || finish

# The load address: where bank_anchor was, less where nm says it is.
anchor=$(awk '$1 == "anchor" { sub("addr=", "", $3); print $3 }' "$TMP/bank.mtx.sc")
anchor_file=$(nm --defined-only "$BANK" | awk '$3 == "bank_anchor" { print $1 }')
[ -n "$anchor" ] && [ -n "$anchor_file" ] || { fail "no anchor: '$anchor' '$anchor_file'"; finish; }
bias=$((anchor - 16#$anchor_file))

# Each object in a data symbol of bank (nm -C -S: those with a size).
nm -C -S --defined-only "$BANK" | awk 'NF >= 4 && $3 ~ /^[bBdDrR]$/' > symbols
sql "$DB" "SELECT addr, COALESCE(name, '') FROM sync_objects WHERE kind IN ('mutex', 'sem')" > objects
expected_names=
while IFS='|' read -r addr name; do
	at=$((addr - bias))
	expected=
	while read -r value size _ symbol; do
		if [ $at -ge $((16#$value)) ] && [ $at -lt $((16#$value + 16#$size)) ]; then
			offset=$((at - 16#$value))
			expected=$symbol
			[ $offset = 0 ] || expected=$(printf '%s+0x%x' "$symbol" $offset)
			break
		fi
	done < symbols
	[ -n "$expected" ] || continue
	expected_names="$expected_names|$expected"
	[ "$name" = "$expected" ] || fail "object at $(printf 0x%x "$addr") named '$name', nm -C says '$expected'"
done < objects
for global in log_mutex 'count_round()::lock' 'ledger::accounts+0x8'; do
	case "$expected_names|" in
	*"|$global|"*) ;;
	*) fail "no lock in '$global' (nm -C found: $expected_names)" ;;
	esac
done
[ "$FAILED" = "$FAILED_BEFORE" ] && pass "bank's global locks named as nm -C names them"

# The heap's: where audit_lock was made; the vault by its first use, in
# the program's own frame (not libstdc++'s __gthread_mutex_lock inlined
# there). The lines from the source.
line=$(grep -n 'sem_init(&audit_lock' "$srcdir/samples/bank.cc" | cut -d: -f1)
vault_line=$(grep -n '^[[:space:]]*vault.lock();' "$srcdir/samples/bank.cc" | cut -d: -f1)
audit=$(sql "$DB" "SELECT name FROM sync_objects WHERE kind = 'sem' AND used_as = 'lock'")
[ "$audit" = "init at bank.cc:$line in Bank::Bank()" ] ||
	fail "the semaphores used as locks: '$audit', not audit_lock, 'init at bank.cc:$line in Bank::Bank()'"
vault=$(sql "$DB" "SELECT name FROM sync_objects WHERE kind = 'mutex' AND name NOT LIKE 'log_mutex'
	AND name NOT LIKE 'ledger::accounts%' AND name NOT LIKE 'count_round()::lock'")
[ "$vault" = "first used at bank.cc:$vault_line in Bank::deposit(long)" ] ||
	fail "the vault named '$vault', not 'first used at bank.cc:$vault_line in Bank::deposit(long)'"
[ "$FAILED" = "$FAILED_BEFORE" ] && pass "the heap's locks named where they were made: '$audit', '$vault'"

# audit_lock in locks, by its name; teller-1's first trywait (before its
# rounds) failed, finding teller-0 holding it.
"$MTX" report "$DB" locks --format csv > locks.csv 2> locks.err || fail "report locks: $(cat locks.err)"
head -1 locks.csv | grep -q '^pid,addr,kind,ops,contended,wait_ns,max_wait_ns,hold_ns,holder,holder_name,name$' ||
	fail "locks CSV columns: $(head -1 locks.csv)"
grep -q ",sem,.*,init at bank.cc:$line in Bank::Bank()\$" locks.csv || fail "audit_lock not in locks: $(cat locks.csv)"
[ "$(grep -c ',sem,' locks.csv)" = 1 ] || fail "semaphores that signal in locks: $(grep ',sem,' locks.csv)"
found=$(sql "$DB" "SELECT COALESCE(h.name, '(none)') FROM sync_ops op JOIN sync_objects o ON o.id = op.object_id
	JOIN threads t ON t.tid = op.tid LEFT JOIN threads h ON h.tid = op.holder_tid
	WHERE o.used_as = 'lock' AND t.name = 'teller-1' AND op.op = 'trywait' ORDER BY op.start_ns LIMIT 1")
[ "$found" = teller-0 ] || fail "teller-1's failed trywait found '$found' holding audit_lock, not teller-0"
holds=$(sql "$DB" "SELECT COUNT(*) FROM sync_ops op JOIN sync_objects o ON o.id = op.object_id
	WHERE o.used_as = 'lock' AND op.hold_ns IS NOT NULL")
posts=$(sql "$DB" "SELECT COUNT(*) FROM sync_ops op JOIN sync_objects o ON o.id = op.object_id
	WHERE o.used_as = 'lock' AND op.op = 'post'")
[ "$holds" = "$posts" ] && [ "$posts" -gt 0 ] || fail "audit_lock: $holds hold times for $posts posts"
[ "$FAILED" = "$FAILED_BEFORE" ] && pass "a semaphore used as a lock in locks, with its holders and holds"

# mtx report object NAME.
"$MTX" report "$DB" object log_mutex --format csv > object.csv 2> object.err || fail "object log_mutex: $(cat object.err)"
grep -q ",log_mutex\$" object.csv || fail "object log_mutex: $(head -3 object.csv)"

# A stripped copy: no symbol says what anything is, so the place in the
# file does, as addr2line takes it. log_mutex at the address nm gives it
# in the unstripped file (strip moves nothing); audit_lock made by the
# call objdump shows there, to sem_init, its return address one past the
# name's.
strip -o bank-stripped "$BANK" || fail "strip $BANK"
collect_same stripped.db -- ./bank-stripped 2 50
log_mutex_at=$(nm "$BANK" | awk '$3 == "log_mutex" { print $1 }')
want=$(printf 'bank-stripped+0x%x' $((16#$log_mutex_at)))
[ "$(sql stripped.db "SELECT COUNT(*) FROM sync_objects WHERE name = '$want'")" = 1 ] ||
	fail "stripped: no object named '$want' (log_mutex): $(sql stripped.db "SELECT name FROM sync_objects" | tr '\n' ' ')"
audit=$(sql stripped.db "SELECT name FROM sync_objects WHERE used_as = 'lock'")
case "$audit" in
"init at bank-stripped+0x"*)
	returns_to=$(printf '%x' $((16#${audit#init at bank-stripped+0x} + 1)))
	objdump -d --no-show-raw-insn bank-stripped | grep -B1 -E "^ +$returns_to:" | head -1 |
		grep -q 'call.*<sem_init@plt>' || fail "stripped: '$audit' is not in a call to sem_init"
	;;
*) fail "stripped: audit_lock named '$audit'" ;;
esac
[ "$FAILED" = "$FAILED_BEFORE" ] && pass "stripped: named by the place in the file: '$want', '$audit'"

# Python: threading.Lock is a sem_t. The script says how often it was
# taken, and (in tids) who held it when another failed to take it.
if ! command -v python3 > /dev/null; then
	echo "SKIP: python3 is not installed: the threading.Lock part is not run"
	finish
fi
cat > locks.py << 'EOF'
import sys, threading
lock = threading.Lock()
taken = 0
def work(n):
    global taken
    for _ in range(n):
        with lock:
            taken += 1
held, tried = threading.Event(), threading.Event()
def holder():
    global taken
    with lock:
        taken += 1
        held.set()
        tried.wait()
def trier():
    held.wait()
    if lock.acquire(blocking=False):
        sys.exit("the lock was free")
    tried.set()
threads = [threading.Thread(target=holder), threading.Thread(target=trier)]
threads += [threading.Thread(target=work, args=(2000,)) for _ in range(3)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("taken %d" % taken)
with open(sys.argv[1], "w") as f:
    f.write("%d %d\n" % (threads[0].native_id, threads[1].native_id))
EOF
collect_same py.db -- python3 locks.py tids
read -r holder trier < tids
taken=$(awk '{ print $2 }' py.db.out)
lock=$(sql py.db "SELECT DISTINCT op.object_id FROM sync_ops op WHERE op.tid = $trier AND op.op = 'trywait'
	AND op.result <> 0 AND op.holder_tid = $holder")
if [ -z "$lock" ]; then
	fail "python: no failed trywait of $trier found $holder holding a semaphore"
else
	[ "$(sql py.db "SELECT used_as FROM sync_objects WHERE id = $lock")" = lock ] || fail "python: not used as a lock"
	posts=$(sql py.db "SELECT COUNT(*) FROM sync_ops WHERE object_id = $lock AND op = 'post'")
	[ "$posts" = "$taken" ] || fail "python: $posts posts of the lock, the script took it $taken times"
	addr=$(sql py.db "SELECT printf('0x%x', addr) FROM sync_objects WHERE id = $lock")
	"$MTX" report py.db locks --format csv > py-locks.csv 2> py-locks.err || fail "python locks: $(cat py-locks.err)"
	grep -q "^[0-9]*,$addr,sem," py-locks.csv || fail "python: the lock ($addr) not in locks: $(cat py-locks.csv)"
fi
[ "$FAILED" = "$FAILED_BEFORE" ] && pass "python: a threading.Lock in locks, its holder and its acquisitions"
finish
