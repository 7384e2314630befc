/*
 * tests/fuzz/fuzz-sync-region.c - libFuzzer target for the shm record
 * reader: collector/sync/region.c draining a region (format in
 * collector/preload/shm.h) that the traced program may scribble on.
 *
 * What it feeds: a small region of each kind, made as the collector makes
 * them (sync_region_create_sized, call_region_create_sized) with LANES lanes
 * of LANE_RECORDS records, then written to as a program could. Byte 0: bit 0
 * a call region rather than a sync region, bit 1 stamps in nanoseconds
 * rather than TSC (where the TSC is usable at all). Then steps:
 *
 *     0xff                          drain
 *     AREA OFF0 OFF1 LEN BYTES...   write LEN bytes at offset OFF0 + 256 OFF1
 *                                   (wrapping) of area AREA % (LANES + 1)
 *
 * and a last drain. Area i < LANES is lane i: its header (state, owner,
 * head word, tail, waits for the collector, ops in progress) and its
 * record slots; area LANES is the part of the region's header the writers
 * own (loss counters, lanes_used, drain_wake). The geometry before it stays
 * as the collector wrote it: the collector keeps its own copy and never
 * reads it back. After each drain the collector's accounts are read too.
 *
 * What must hold: the drain never reads or writes outside the region or
 * does anything undefined (ASan, UBSan); what it hands over can be trusted -
 * a sync record's kind and op in range and its end not before its start, a
 * frames record well-formed, a call record with its function and the lane
 * owner's pid and tid; one drain hands over at most a lane's records and
 * ops in progress per lane; losses may be counted, but never go back, and
 * only threads that waited have waits.
 */
#include "config.h"
#include "collector/preload/shm.h"
#include "collector/sync/region.h"

#include <stdlib.h>
#include <string.h>

#define LANES 4
#define LANE_RECORDS 32
#define DRAIN 0xff

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct handed_over {
	int calls; /* a call region's */
	size_t events;
	uint64_t lost;
};

static int sync_record_trusted(const struct mtx_sync_record *rec)
{
	const struct mtx_sync_frames *f = (const void *)rec;

	if (rec->kind == MTX_SYNC_KIND_FRAMES)
		return f->nr >= 1 && f->nr <= MTX_SYNC_FRAMES_PER_RECORD && f->index < f->count &&
		       f->count <= MTX_SYNC_FRAMES_MAX_RECORDS;
	return rec->kind < MTX_SYNC_KIND__COUNT && rec->op < MTX_SYNC_OP__COUNT && rec->end_ns >= rec->start_ns;
}

static void check(void *ctx, const struct mtx_event *ev)
{
	struct handed_over *h = ctx;

	h->events++;
	if (h->calls ? ev->type != MTX_EV_CALL || ev->u.call.fn == 0 || ev->pid <= 0 || ev->tid <= 0 :
		       ev->type != MTX_EV_SYNC || !sync_record_trusted(&ev->u.sync))
		abort();
}

/* A drain, then the accounts the collector writes to meta: the losses
 * (which the program's writes over the counters must not turn back) and
 * the threads' waits for the collector. */
static void drain(struct sync_region *r, struct handed_over *h)
{
	const struct sync_stall *stalls;
	size_t nr_stalls;
	uint64_t lost;

	h->events = 0;
	sync_region_drain(r, check, h);
	if (h->events > LANES * (LANE_RECORDS + MTX_LANE_MAX_OPS))
		abort();
	lost = sync_region_lost(r);
	if (lost < h->lost || sync_region_lost_nolane(r) > lost)
		abort();
	h->lost = lost;
	sync_region_scribbled(r);
	stalls = sync_region_stalls(r, &nr_stalls);
	for (size_t i = 0; i < nr_stalls; i++)
		if (!stalls[i].wait_ns || !stalls[i].waits)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct handed_over h = { 0 };
	struct sync_region *r;
	const uint8_t *p = data + 1, *end = data + size;
	uint8_t *base;
	size_t map_size;
	uint64_t stride;

	if (size < 1)
		return 0;
	h.calls = data[0] & 1;
	if (data[0] & 2)
		setenv("MTX_SYNC_CLOCK", "monotonic", 1);
	else
		unsetenv("MTX_SYNC_CLOCK");
	if ((h.calls ? call_region_create_sized : sync_region_create_sized)(&r, LANES, LANE_RECORDS))
		abort();
	base = sync_region_map(r, &map_size);
	stride = (map_size - MTX_SHM_HEADER_SIZE) / LANES;

	while (p < end) {
		size_t area_off, area_size, off, len;
		unsigned area;

		if (*p == DRAIN) {
			p++;
			drain(r, &h);
			continue;
		}
		if (end - p < 4)
			break;
		area = p[0] % (LANES + 1);
		if (area < LANES) {
			area_off = MTX_SHM_HEADER_SIZE + area * stride;
			area_size = stride;
		} else {
			area_off = offsetof(struct mtx_shm_header, lost_full);
			area_size = MTX_SHM_HEADER_SIZE - area_off;
		}
		off = (p[1] | (size_t)p[2] << 8) % area_size;
		len = p[3];
		p += 4;
		if (len > (size_t)(end - p))
			len = (size_t)(end - p);
		if (len > area_size - off)
			len = area_size - off;
		memcpy(base + area_off + off, p, len);
		p += len;
	}
	drain(r, &h);
	sync_region_destroy(r);
	return 0;
}
