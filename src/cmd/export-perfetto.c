/*
 * src/cmd/export-perfetto.c - 'mtx export --format perfetto': the run as
 * Perfetto's own trace, a protobuf stream of TracePackets (the messages
 * and field numbers of src/cmd/perfetto-trace.proto), about half the size
 * of the JSON and read by Perfetto without the JSON importer's limits.
 *
 * Each thread is a track (its TrackDescriptor names it and its process),
 * with three child tracks: its states, its syscalls and its exact calls,
 * each a stack of properly nested slices of one kind (a syscall may
 * outlast the sync op it is made in by a few ns, which one track could
 * not nest). Sync ops are slices and CPU samples instants on the thread's
 * own track; wakeups and lock hand-offs are flows between two instants.
 * Slices are a begin and an end event; times are ns from the run's start.
 * Event names, categories and annotation names are interned: each string
 * is written once per sequence, in the packet that first uses it, and
 * referred to by a number after (a third of the bytes). Each part of the
 * export (src/cmd/cmd-export.c) is a sequence of its own.
 * The encoding is the protobuf wire format by hand: varints, fixed64,
 * doubles and length-delimited strings and messages, no library.
 */
#include "config.h"
#include "src/cmd/export.h"
#include "src/keyhash.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Wire types. */
enum { WIRE_VARINT = 0, WIRE_FIXED64 = 1, WIRE_LEN = 2 };

/* Field numbers (src/cmd/perfetto-trace.proto). */
enum {
	TRACE_PACKET = 1,
	PACKET_TIMESTAMP = 8, PACKET_SEQUENCE_ID = 10, PACKET_TRACK_EVENT = 11, PACKET_INTERNED_DATA = 12,
	PACKET_SEQUENCE_FLAGS = 13, PACKET_TRACK_DESCRIPTOR = 60,
	TRACK_UUID = 1, TRACK_NAME = 2, TRACK_PROCESS = 3, TRACK_THREAD = 4, TRACK_PARENT_UUID = 5,
	PROCESS_PID = 1, PROCESS_NAME = 6,
	THREAD_PID = 1, THREAD_TID = 2, THREAD_NAME = 5,
	EVENT_CATEGORY_IIDS = 3, EVENT_DEBUG_ANNOTATIONS = 4, EVENT_TYPE = 9, EVENT_NAME_IID = 10, EVENT_TRACK_UUID = 11,
	EVENT_FLOW_IDS = 47, EVENT_TERMINATING_FLOW_IDS = 48,
	ANNOTATION_NAME_IID = 1, ANNOTATION_INT = 4, ANNOTATION_DOUBLE = 5, ANNOTATION_STRING = 6,
	INTERNED_IID = 1, INTERNED_NAME = 2, /* of each interned string's message */
};
enum { SEQ_INCREMENTAL_STATE_CLEARED = 1, SEQ_NEEDS_INCREMENTAL_STATE = 2 };

/* The interned kinds of string: their field in InternedData. */
enum intern_kind { INTERN_CATEGORY = 1, INTERN_EVENT_NAME = 2, INTERN_ANNOTATION_NAME = 3, NR_INTERN_KINDS };
enum { TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3 };

/* The tracks of a thread, in the low bits of its tracks' uuids. */
enum track_kind { TRACK_OF_THREAD = 1, TRACK_OF_STATES, TRACK_OF_SYSCALLS, TRACK_OF_CALLS, TRACK_OF_PROCESS };

static uint64_t track_uuid(int64_t id, enum track_kind k)
{
	return (uint64_t)id << 3 | (uint64_t)k;
}

/* A message being built; grows as it must. */
struct pb {
	uint8_t *p;
	size_t n, cap;
	bool failed; /* out of memory: the export says so */
};

static void put_bytes(struct pb *b, const void *data, size_t n)
{
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		while (cap < b->n + n)
			cap *= 2;
		uint8_t *p = realloc(b->p, cap);
		if (!p) {
			b->failed = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, data, n);
	b->n += n;
}

/* @v as a varint into @out (10 bytes at most): its length. */
static size_t varint(uint8_t *out, uint64_t v)
{
	size_t n = 0;
	do {
		out[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			out[n] |= 0x80;
		n++;
	} while (v);
	return n;
}

static void put_varint(struct pb *b, uint64_t v)
{
	uint8_t buf[10];
	if (b->n + sizeof(buf) <= b->cap) /* room: in place (most of them) */
		b->n += varint(b->p + b->n, v);
	else
		put_bytes(b, buf, varint(buf, v));
}

static void put_key(struct pb *b, int field, int wire)
{
	put_varint(b, (uint64_t)field << 3 | (uint64_t)wire);
}

static void put_uint(struct pb *b, int field, uint64_t v)
{
	put_key(b, field, WIRE_VARINT);
	put_varint(b, v);
}

/* An int32 or int64: two's complement, as protobuf has it. */
static void put_int(struct pb *b, int field, int64_t v)
{
	put_uint(b, field, (uint64_t)v);
}

static void put_fixed64(struct pb *b, int field, uint64_t v)
{
	uint8_t le[8];
	for (int i = 0; i < 8; i++)
		le[i] = (uint8_t)(v >> (8 * i));
	put_key(b, field, WIRE_FIXED64);
	put_bytes(b, le, 8);
}

static void put_double(struct pb *b, int field, double d)
{
	uint64_t v;
	memcpy(&v, &d, 8);
	put_fixed64(b, field, v);
}

static void put_string(struct pb *b, int field, const char *s)
{
	size_t n = strlen(s ? s : "");
	put_key(b, field, WIRE_LEN);
	put_varint(b, n);
	put_bytes(b, s ? s : "", n);
}

/* Message @m as field @field of @b; @m emptied. */
static void put_message(struct pb *b, int field, struct pb *m)
{
	put_key(b, field, WIRE_LEN);
	put_varint(b, m->n);
	put_bytes(b, m->p, m->n);
	b->failed |= m->failed;
	m->n = 0;
}

/* The strings of one kind interned so far, in order: a string's iid is
 * its index + 1. */
struct interned {
	struct keyhash keys;
	char **names;
	size_t len, cap;
};

/* The scratch messages of an export: packet, its event or descriptor, the
 * parts nested in them, and the strings its packet interns; the strings
 * interned so far in its sequence. */
struct scratch {
	struct pb packet, body, part, annotation, interned_data, string;
	struct interned interned[NR_INTERN_KINDS];
	bool started; /* a packet went out: its sequence's state is set */
};

static struct scratch *scratch_of(struct trace *t)
{
	if (!t->scratch && !(t->scratch = calloc(1, sizeof(struct scratch))))
		t->failed = true;
	return t->scratch;
}

/* The iid of @name (NULL: "") among the strings of @kind, interned in
 * the packet being built when it is new. */
static uint64_t intern(struct scratch *s, enum intern_kind kind, const char *name)
{
	struct interned *in = &s->interned[kind];
	const size_t before = in->len;
	ptrdiff_t i = keyhash_text(&in->keys, &in->names, &in->len, &in->cap, SIZE_MAX, name ? name : "");
	if (i < 0) {
		s->packet.failed = true;
		return 0;
	}
	if (in->len > before) {
		put_uint(&s->string, INTERNED_IID, (uint64_t)i + 1);
		put_string(&s->string, INTERNED_NAME, name);
		put_message(&s->interned_data, (int)kind, &s->string);
	}
	return (uint64_t)i + 1;
}

/* Packet: @ns (from the run's start, 0 at least), in the trace's sequence,
 * the body as field @field, and what it interns; written out as one
 * Trace.packet. */
static void write_packet(struct trace *t, struct scratch *s, int64_t ns, int field)
{
	int64_t d = ns - t->origin_ns;
	uint8_t head[11];
	size_t n = 0;
	put_uint(&s->packet, PACKET_TIMESTAMP, d > 0 ? (uint64_t)d : 0);
	put_uint(&s->packet, PACKET_SEQUENCE_ID, t->sequence ? t->sequence : 1);
	put_message(&s->packet, field, &s->body);
	if (s->interned_data.n)
		put_message(&s->packet, PACKET_INTERNED_DATA, &s->interned_data);
	put_uint(&s->packet, PACKET_SEQUENCE_FLAGS,
		 SEQ_NEEDS_INCREMENTAL_STATE | (s->started ? 0 : SEQ_INCREMENTAL_STATE_CLEARED));
	s->started = true;
	head[n++] = TRACE_PACKET << 3 | WIRE_LEN;
	n += varint(head + n, s->packet.n);
	fwrite(head, 1, n, t->out);
	fwrite(s->packet.p, 1, s->packet.n, t->out);
	t->failed |= s->packet.failed;
	s->packet.n = 0;
	t->events++;
}

/* The columns of @st from @first on as debug annotations of @s->body. */
static void put_annotations(struct scratch *s, sqlite3_stmt *st, int first)
{
	for (int i = first; i < sqlite3_column_count(st); i++) {
		switch (sqlite3_column_type(st, i)) {
		case SQLITE_NULL:
			continue;
		case SQLITE_INTEGER:
			put_int(&s->annotation, ANNOTATION_INT, sqlite3_column_int64(st, i));
			break;
		case SQLITE_FLOAT:
			put_double(&s->annotation, ANNOTATION_DOUBLE, sqlite3_column_double(st, i));
			break;
		default:
			put_string(&s->annotation, ANNOTATION_STRING, (const char *)sqlite3_column_text(st, i));
		}
		put_uint(&s->annotation, ANNOTATION_NAME_IID,
			 intern(s, INTERN_ANNOTATION_NAME, sqlite3_column_name(st, i)));
		put_message(&s->body, EVENT_DEBUG_ANNOTATIONS, &s->annotation);
	}
}

/* A track event of @type on @track at @ns, named @name (NULL: none, for a
 * slice's end), in category @cat, with @st's columns from @args on (-1:
 * none), and a flow out (@flow_out) or in (@flow_in), 0 for none. */
static void event(struct trace *t, int64_t ns, int type, uint64_t track, const char *name, const char *cat,
		  sqlite3_stmt *st, int args, uint64_t flow_out, uint64_t flow_in)
{
	struct scratch *s = scratch_of(t);
	if (!s)
		return;
	put_uint(&s->body, EVENT_TYPE, (uint64_t)type);
	put_uint(&s->body, EVENT_TRACK_UUID, track);
	if (name)
		put_uint(&s->body, EVENT_NAME_IID, intern(s, INTERN_EVENT_NAME, name));
	if (cat && name)
		put_uint(&s->body, EVENT_CATEGORY_IIDS, intern(s, INTERN_CATEGORY, cat));
	if (st && args >= 0)
		put_annotations(s, st, args);
	if (flow_out)
		put_fixed64(&s->body, EVENT_FLOW_IDS, flow_out);
	if (flow_in)
		put_fixed64(&s->body, EVENT_TERMINATING_FLOW_IDS, flow_in);
	write_packet(t, s, ns, PACKET_TRACK_EVENT);
}

/* A track of thread @tid's, of @kind, named @name, under its thread's. */
static void child_track(struct trace *t, struct scratch *s, int64_t tid, enum track_kind kind, const char *name)
{
	put_uint(&s->body, TRACK_UUID, track_uuid(tid, kind));
	put_string(&s->body, TRACK_NAME, name);
	put_uint(&s->body, TRACK_PARENT_UUID, track_uuid(tid, TRACK_OF_THREAD));
	write_packet(t, s, t->origin_ns, PACKET_TRACK_DESCRIPTOR);
}

static void perfetto_thread(struct trace *t, sqlite3_stmt *st, const char *cat)
{
	struct scratch *s = scratch_of(t);
	int64_t pid = sqlite3_column_int64(st, 0), tid = sqlite3_column_int64(st, 1);
	const char *name = (const char *)sqlite3_column_text(st, 2);
	(void)cat;
	if (!s)
		return;
	if (sqlite3_column_int(st, 3)) {
		put_uint(&s->body, TRACK_UUID, track_uuid(pid, TRACK_OF_PROCESS));
		put_int(&s->part, PROCESS_PID, pid);
		put_string(&s->part, PROCESS_NAME, name);
		put_message(&s->body, TRACK_PROCESS, &s->part);
		write_packet(t, s, t->origin_ns, PACKET_TRACK_DESCRIPTOR);
	}
	put_uint(&s->body, TRACK_UUID, track_uuid(tid, TRACK_OF_THREAD));
	put_int(&s->part, THREAD_PID, pid);
	put_int(&s->part, THREAD_TID, tid);
	put_string(&s->part, THREAD_NAME, name);
	put_message(&s->body, TRACK_THREAD, &s->part);
	write_packet(t, s, t->origin_ns, PACKET_TRACK_DESCRIPTOR);
	child_track(t, s, tid, TRACK_OF_STATES, "states");
	child_track(t, s, tid, TRACK_OF_SYSCALLS, "syscalls");
	child_track(t, s, tid, TRACK_OF_CALLS, "calls");
}

/* A slice on the track its category has. */
static void slice_on(struct trace *t, sqlite3_stmt *st, const char *cat, enum track_kind kind)
{
	uint64_t track = track_uuid(sqlite3_column_int64(st, 1), kind);
	int64_t start = sqlite3_column_int64(st, 3), end = sqlite3_column_int64(st, 4);
	event(t, start, TYPE_SLICE_BEGIN, track, (const char *)sqlite3_column_text(st, 2), cat, st, 5, 0, 0);
	event(t, end > start ? end : start, TYPE_SLICE_END, track, NULL, NULL, NULL, -1, 0, 0);
}

static void perfetto_slice(struct trace *t, sqlite3_stmt *st, const char *cat)
{
	slice_on(t, st, cat,
		 !strcmp(cat, "syscall") ? TRACK_OF_SYSCALLS : !strcmp(cat, "call") ? TRACK_OF_CALLS : TRACK_OF_THREAD);
}

static void perfetto_state(struct trace *t, sqlite3_stmt *st, const char *cat)
{
	slice_on(t, st, cat, TRACK_OF_STATES);
}

static void perfetto_instant(struct trace *t, sqlite3_stmt *st, const char *cat)
{
	event(t, sqlite3_column_int64(st, 3), TYPE_INSTANT, track_uuid(sqlite3_column_int64(st, 1), TRACK_OF_THREAD),
	      (const char *)sqlite3_column_text(st, 2), cat, st, 4, 0, 0);
}

static void perfetto_flow(struct trace *t, sqlite3_stmt *st, const char *cat)
{
	const char *name = (const char *)sqlite3_column_text(st, 0);
	uint64_t id = ++t->flow_id;
	event(t, sqlite3_column_int64(st, 3), TYPE_INSTANT, track_uuid(sqlite3_column_int64(st, 2), TRACK_OF_THREAD),
	      name, cat, NULL, -1, id, 0);
	event(t, sqlite3_column_int64(st, 6), TYPE_INSTANT, track_uuid(sqlite3_column_int64(st, 5), TRACK_OF_THREAD),
	      name, cat, NULL, -1, 0, id);
}

static void perfetto_finish(struct trace *t)
{
	struct scratch *s = t->scratch;
	if (!s)
		return;
	free(s->packet.p);
	free(s->body.p);
	free(s->part.p);
	free(s->annotation.p);
	free(s->interned_data.p);
	free(s->string.p);
	for (int k = 0; k < NR_INTERN_KINDS; k++) {
		for (size_t i = 0; i < s->interned[k].len; i++)
			free(s->interned[k].names[i]);
		free(s->interned[k].names);
		keyhash_free(&s->interned[k].keys);
	}
	free(s);
	t->scratch = NULL;
}

const struct trace_format trace_perfetto = {
	.head = "",
	.tail = "",
	.thread = perfetto_thread,
	.slice = perfetto_slice,
	.state = perfetto_state,
	.instant = perfetto_instant,
	.flow = perfetto_flow,
	.finish = perfetto_finish,
};
