/*
 * collector/ring.c - see ring.h.
 *
 * The kernel writes records at data_head and we consume from data_tail; the
 * head is read with acquire and the tail published with release ordering, as
 * the perf_event_mmap_page comment in linux/perf_event.h prescribes.
 */
#include "config.h"
#include "collector/ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int ring_map(struct mtx_ring *ring, int fd, int cpu, size_t data_pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	memset(ring, 0, sizeof(*ring));
	ring->fd = fd;
	ring->cpu = cpu;
	ring->data_size = data_pages * page;
	ring->map_size = ring->data_size + page;
	ring->base = mmap(NULL, ring->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring->base == MAP_FAILED) {
		ring->base = NULL;
		return -errno;
	}
	/* header.size is 16 bits: no record is longer than 64 KiB. */
	ring->wrap_buf = malloc(65536);
	if (!ring->wrap_buf) {
		munmap(ring->base, ring->map_size);
		ring->base = NULL;
		return -ENOMEM;
	}
	return 0;
}

size_t ring_drain(struct mtx_ring *ring, ring_record_fn fn, void *ctx)
{
	struct perf_event_mmap_page *meta = ring->base;
	const uint8_t *data;
	uint64_t head, tail;
	size_t n = 0, mask = ring->data_size - 1;

	if (!meta)
		return 0;
	data = (const uint8_t *)ring->base + (ring->map_size - ring->data_size);
	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	tail = meta->data_tail;
	while (tail < head) {
		const struct perf_event_header *hdr = (const void *)(data + (tail & mask));
		size_t off = tail & mask;
		uint16_t size;
		if (off + sizeof(*hdr) > ring->data_size) {
			/* Even the header wraps. */
			size_t first = ring->data_size - off;
			memcpy(ring->wrap_buf, data + off, first);
			memcpy(ring->wrap_buf + first, data, sizeof(*hdr) - first);
			hdr = (const void *)ring->wrap_buf;
		}
		size = hdr->size;
		/* The kernel pads every record to a multiple of 8 bytes, which
		 * keeps each header aligned: another size is corrupt too. */
		if (size < sizeof(*hdr) || size % 8 || tail + size > head)
			break; /* corrupt or torn: stop rather than misparse */
		if (off + size > ring->data_size) {
			size_t first = ring->data_size - off;
			memcpy(ring->wrap_buf, data + off, first);
			memcpy(ring->wrap_buf + first, data, size - first);
			hdr = (const void *)ring->wrap_buf;
		}
		fn(ctx, ring->cpu, hdr);
		tail += size;
		n++;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

void ring_unmap(struct mtx_ring *ring)
{
	if (ring->base)
		munmap(ring->base, ring->map_size);
	free(ring->wrap_buf);
	if (ring->fd >= 0)
		close(ring->fd);
	memset(ring, 0, sizeof(*ring));
	ring->fd = -1;
}
