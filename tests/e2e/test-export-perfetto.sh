#!/bin/bash
# mtx export --format perfetto, read back by protoc (protobuf-compiler)
# with the messages of src/cmd/perfetto-trace.proto (Perfetto's field
# numbers), on the hand-worked fixture (tests/fixtures/waits.sql) and a
# real run of clientserver with CPU samples:
#  - it decodes whole, every packet with a timestamp and sequence 1 or 2
#    (the export's two parts), each sequence's first packet clearing its
#    state, every event's name, category and annotation names interned;
#  - a track per thread (its pid, tid and name), with its states, syscalls
#    and calls tracks under it, and a track per process;
#  - one slice begin per sync op, returned syscall and thread state, each
#    ended on its track, the slices of each track nested once sorted by
#    time as Perfetto sorts them; an instant per CPU sample; every flow
#    that starts ends;
#  - --thread keeps one thread's tracks.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 > /dev/null || skip "sqlite3 (the CLI) is not installed"
command -v protoc > /dev/null || skip "protoc (protobuf-compiler) is not installed to read the export back"
cd "$TMP" || exit 1
fixture_dbs waits
PROTO=$srcdir/src/cmd/perfetto-trace.proto
decode() { protoc --decode=perfetto.protos.Trace -I "$(dirname "$PROTO")" "$PROTO" < "$1"; }

# resolve - reads decoded packets and calls event(ts, track, type, cat,
# name) at the end of each track event, with its interned names looked up
# in its sequence (the packet that interns a name comes first, or is it;
# protoc prints interned_data after track_event); its annotations in
# ann_name[1..nann] and ann_value[1..nann].
resolve='
	/^packet \{/ { ts = ""; t = ""; tr = ""; ci = ""; ni = ""; ev = 0; nann = 0 }
	/^  timestamp:/ { ts = $2 } /^  trusted_packet_sequence_id:/ { seq = $2 }
	/^  track_event \{/ { ev = 1; inev = 1 } /^  \}/ { inev = 0 }
	inev && /^    type:/ { t = $2 } inev && /^    track_uuid:/ { tr = $2 }
	inev && /^    category_iids:/ { ci = $2 } inev && /^    name_iid:/ { ni = $2 }
	inev && /^    debug_annotations \{/ { nann++ }
	inev && /^      name_iid:/ { ann_iid[nann] = $2 }
	inev && /^      [a-z]+_value:/ { v = $0; sub(/^ *[a-z]+_value: /, "", v); ann_value[nann] = v }
	/^    (event_categories|event_names|debug_annotation_names) \{/ { kind = $1 }
	/^      iid:/ { iid = $2 }
	/^      name:/ { v = $0; sub(/^ *name: /, "", v); names[seq, kind, iid] = v }
	/^\}/ && ev {
		for (i = 1; i <= nann; i++) ann_name[i] = names[seq, "debug_annotation_names", ann_iid[i]]
		event(ts, tr, t, ci == "" ? "-" : names[seq, "event_categories", ci],
		      ni == "" ? "-" : names[seq, "event_names", ni])
	}'

# events FILE - one line per track event: "ts track type category name"
events() {
	awk "$resolve"'
		function event(ts, tr, t, cat, name) { print ts, tr, t, cat, name }' "$1"
}

# annotations FILE - one line per annotation of a track event:
# "name|annotation|value"
annotations() {
	awk "$resolve"'
		function event(ts, tr, t, cat, name) { for (i = 1; i <= nann; i++) print name "|" ann_name[i] "|" ann_value[i] }' "$1"
}

# check NAME DB - NAME.pftrace, exported from DB, against DB's rows
check() {
	local name=$1 db=$2 n want bad
	if ! decode $name.pftrace > $name.txt 2> $name.err; then
		fail "$name: protoc cannot decode it: $(head -2 $name.err)"
		return
	fi
	n=$(grep -c '^packet {' $name.txt)
	bad=$(awk '/^packet \{/ { p++; ok = 0 } /^  trusted_packet_sequence_id: [12]$/ { ok++ } /^  timestamp:/ { ok++ }
		/^}/ { if (ok != 2) b++ } END { print b + 0 }' $name.txt)
	[ "$n" -gt 0 ] && [ "$bad" = 0 ] && pass "$name: $n packets, each with a timestamp and sequence 1 or 2" ||
		fail "$name: $bad of $n packets without a timestamp or sequence"
	# a sequence's first packet clears its interned state; each name is
	# interned before its first use
	bad=$(awk '/^  trusted_packet_sequence_id:/ { seq = $2 } /^  sequence_flags:/ { if (!(seq in seen) && $2 != 3) b++; seen[seq] = 1 }
		END { print b + 0 }' $name.txt)
	n=$(events $name.txt | awk '$3 != "TYPE_SLICE_END" && ($5 == "" || $5 == "-")' | wc -l)
	[ "$bad" = 0 ] && [ "$n" = 0 ] && pass "$name: each sequence starts cleared; every event's name interned before use" ||
		fail "$name: $bad sequences not started cleared, $n events without a known name"
	want=$(sql $db "SELECT COUNT(DISTINCT tid) FROM threads")
	n=$(grep -c '^    thread {' $name.txt)
	[ "$n" = "$want" ] && pass "$name: a track for each of the $n threads" || fail "$name: $n thread tracks of $want"
	events $name.txt > $name.events
	for c in "sync:SELECT COUNT(*) FROM sync_ops" "syscall:SELECT COUNT(*) FROM syscalls WHERE end_ns IS NOT NULL" \
		"state:SELECT COUNT(*) FROM thread_states"; do
		n=$(awk -v c="\"${c%%:*}\"" '$3 == "TYPE_SLICE_BEGIN" && $4 == c' $name.events | wc -l)
		want=$(sql $db "${c#*:}")
		[ "$n" = "$want" ] && pass "$name: $n ${c%%:*} slices, one per row" ||
			fail "$name: $n ${c%%:*} slices, $want rows"
	done
	n=$(awk '$3 == "TYPE_INSTANT" && $4 == "\"sample\""' $name.events | wc -l)
	want=$(sql $db "SELECT COUNT(*) FROM samples")
	[ "$n" = "$want" ] && pass "$name: $n sample instants" || fail "$name: $n sample instants, $want samples"
	# per track, sorted by time (stably, as written): begins and ends nest
	bad=$(sort -s -k2,2n -k1,1n $name.events | awk '$3 == "TYPE_SLICE_BEGIN" { d[$2]++ }
		$3 == "TYPE_SLICE_END" { if (--d[$2] < 0) b++ } END { for (k in d) if (d[k] != 0) b++; print b + 0 }')
	[ "$bad" = 0 ] && pass "$name: each track's slices nest, begun and ended" || fail "$name: $bad tracks unbalanced"
	n=$(grep -c '^    flow_ids:' $name.txt) want=$(grep -c '^    terminating_flow_ids:' $name.txt)
	[ "$n" = "$want" ] && pass "$name: $n flows, each ended" || fail "$name: $n flows begun, $want ended"
}

"$MTX" export waits.db --format perfetto -o waits.pftrace 2> err.txt || fail "export perfetto: $(head -1 err.txt)"
check waits waits.db
# worker-b's lock of the mutex at 250 us, held by worker-a: its holder as an annotation
annotations waits.txt | grep -q '^"lock mutex"|"holder_tid"|101$' &&
	pass "waits: worker-b's lock names its holder 101" ||
	fail "waits: the lock slices have no holder annotation"

"$MTX" collect -q --sample 499 -o cs.db -- "$SAMPLES/clientserver" > cs.out 2>&1 || fail "collect clientserver"
"$MTX" export cs.db --format perfetto -o cs.pftrace 2> err.txt || fail "export perfetto cs.db: $(head -1 err.txt)"
check cs cs.db
json=$("$MTX" export cs.db --format chrome | wc -c) proto=$(wc -c < cs.pftrace)
echo "note: clientserver: $proto bytes as protobuf, $json as JSON"

"$MTX" export waits.db --format perfetto --thread worker-a -o one.pftrace 2> err.txt &&
	decode one.pftrace > one.txt 2> /dev/null || fail "export perfetto --thread: $(head -1 err.txt)"
[ "$(grep -c '^    thread {' one.txt)" = 1 ] && grep -q 'thread_name: "worker-a"' one.txt &&
	pass "--thread worker-a: its track alone" || fail "--thread worker-a: $(grep -c '^    thread {' one.txt) thread tracks"
finish
