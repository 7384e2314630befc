/*
 * collector/ring.h - one perf mmap ring buffer (one per CPU): map it and
 * drain the records the kernel wrote since the last drain.
 */
#ifndef MTX_COLLECTOR_RING_H
#define MTX_COLLECTOR_RING_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

struct mtx_ring {
	int fd;
	int cpu;
	void *base;          /* metadata page followed by the data pages */
	size_t data_size;    /* bytes in the data area, a power of two */
	size_t map_size;
	uint8_t *wrap_buf;   /* a record that wraps around the end is copied here */
};

/* ring_map - map @fd's ring with @data_pages (a power of two) data pages.
 * Returns 0 or -errno. */
int ring_map(struct mtx_ring *ring, int fd, int cpu, size_t data_pages);

/* Called for each record; @hdr is valid only during the call. */
typedef void (*ring_record_fn)(void *ctx, int cpu, const struct perf_event_header *hdr);

/* ring_drain - hand every new record to @fn in ring order, then release the
 * space to the kernel. Returns the number of records. */
size_t ring_drain(struct mtx_ring *ring, ring_record_fn fn, void *ctx);

/* ring_unmap - unmap and close the ring's fd. */
void ring_unmap(struct mtx_ring *ring);

#endif
