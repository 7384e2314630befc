/*
 * tests/fuzz/fuzz-perf-decode.c - libFuzzer target for the perf record
 * decoder: the bytes of a perf ring drained by collector/ring.c, decoded
 * into struct mtx_event by collector/session.c (perf_sample_parse, the
 * sources' decode functions) and merged by time in collector/order.c.
 *
 * What it feeds: byte 0 picks the configuration - bit 0 the events as
 * 'mtx collect --sample --call-graph dwarf' opens them (switch-outs with a
 * call chain, CPU samples with user registers and a copy of the stack),
 * else as plain 'mtx collect' does; bit 1 the CPU whose ring it is. Byte 1
 * says how far before the ring's end the reader's tail is, in 8-byte steps,
 * so that records wrap around the end as they do in a real ring. The rest
 * are the ring's bytes from the tail on, the kernel's head at their end.
 * The event ids are those of an offline session (session_offline_id);
 * tracepoint payload layouts are the running kernel's, from tracefs (run
 * as root, like tests/unit/test-decode).
 *
 * What must hold: nothing is read or written out of bounds and nothing
 * undefined happens (ASan, UBSan); every path, call chain and stack copy
 * handed over with an event is freed by its consumer, so nothing leaks;
 * every event has a known type and leaves the ordering stage in time
 * order; the drain takes no more records than fit between tail and head.
 */
#include "config.h"
#include "collector/order.h"
#include "collector/ring.h"
#include "collector/session.h"
#include "collector/source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NR_CPUS 2
#define RING_DATA_SIZE 8192 /* a power of two, as ring_map makes it */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct mtx_session plain, sampling;
static struct mtx_ring ring;

/* The extra sample_type bits session_add_event records for @source's event
 * when mtx collect samples with DWARF stacks (source-sched.c, source-samples.c). */
static void open_as_sampling(struct mtx_session *s)
{
	for (size_t i = 0; i < s->nr_events; i++) {
		if (s->events[i].source == &source_sched && s->events[i].tag == 0)
			s->events[i].extra |= PERF_SAMPLE_CALLCHAIN;
		if (s->events[i].source == &source_samples)
			s->events[i].extra |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *err = NULL;

	if (tracefs_ensure(&err) != 0) {
		fprintf(stderr, "fuzz-perf-decode: %s\n", err ? err : "no tracefs");
		exit(1);
	}
	if (session_open_offline(&plain, NR_CPUS) || session_open_offline(&sampling, NR_CPUS)) {
		fprintf(stderr, "fuzz-perf-decode: %s\n", plain.error ? plain.error : sampling.error);
		exit(1);
	}
	open_as_sampling(&sampling);
	/* Each input gets ordering queues of its own (LLVMFuzzerTestOneInput). */
	order_free(&plain.order);
	order_free(&sampling.order);
	/* The ring as ring_map lays it out: the metadata page, then the data. */
	ring.fd = -1;
	ring.data_size = RING_DATA_SIZE;
	ring.map_size = page + RING_DATA_SIZE;
	ring.base = aligned_alloc(page, ring.map_size);
	ring.wrap_buf = malloc(65536);
	if (!ring.base || !ring.wrap_buf)
		abort();
	return 0;
}

struct drained {
	struct mtx_session *session;
	size_t records;
	uint64_t last_ts_ns;
	size_t events;
};

static void decode(void *ctx, int cpu, const struct perf_event_header *hdr)
{
	struct drained *d = ctx;

	d->records++;
	session_decode_record(d->session, cpu, hdr);
}

/* The end of the pipeline: check the event, then free what it owns, as
 * collector/collect.c and collector/profile.c do. */
static void consume(void *ctx, const struct mtx_event *ev)
{
	struct drained *d = ctx;

	if (ev->type >= MTX_EV__COUNT || ev->ts_ns < d->last_ts_ns)
		abort();
	d->last_ts_ns = ev->ts_ns;
	d->events++;
	switch (ev->type) {
	case MTX_EV_SWITCH_OUT:
		free(ev->u.sw.pcs);
		break;
	case MTX_EV_SAMPLE:
		free(ev->u.sample.pcs);
		free(ev->u.sample.stack);
		break;
	case MTX_EV_MMAP:
		/* a C string from within one record (at most 64 KiB) */
		if (strlen(ev->u.mmap.path) >= 65536)
			abort();
		free(ev->u.mmap.path);
		break;
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_event_mmap_page *meta = ring.base;
	uint8_t *ring_data = (uint8_t *)ring.base + (ring.map_size - ring.data_size);
	struct drained d = { 0 };
	size_t tail_off, len;

	if (size < 2)
		return 0;
	d.session = data[0] & 1 ? &sampling : &plain;
	ring.cpu = (data[0] >> 1) & 1;
	tail_off = RING_DATA_SIZE - 8 * ((size_t)data[1] + 1);
	len = size - 2 < RING_DATA_SIZE ? size - 2 : RING_DATA_SIZE;

	memset(ring.base, 0, ring.map_size);
	for (size_t i = 0; i < len; i++)
		ring_data[(tail_off + i) % RING_DATA_SIZE] = data[2 + i];
	/* The positions count bytes ever written: start a lap in, as a ring
	 * that has been running does. */
	meta->data_tail = RING_DATA_SIZE + tail_off;
	meta->data_head = meta->data_tail + len;

	if (order_init(&d.session->order, NR_CPUS))
		abort();
	ring_drain(&ring, decode, &d);
	if (d.records > len / sizeof(struct perf_event_header) || meta->data_tail > meta->data_head)
		abort();
	order_flush(&d.session->order, UINT64_MAX, consume, &d);
	order_free(&d.session->order);
	return 0;
}
