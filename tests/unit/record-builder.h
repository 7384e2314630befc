/*
 * tests/unit/record-builder.h - build perf record bytes as the kernel lays
 * them out for mtx's sample_type (IDENTIFIER|TID|TIME|CPU[|RAW]), so the
 * decoder can be tested without perf access.
 */
#ifndef MTX_TESTS_RECORD_BUILDER_H
#define MTX_TESTS_RECORD_BUILDER_H

#include "collector/perf.h"

#include <stdint.h>
#include <string.h>

struct rec {
	union {
		struct perf_event_header hdr;
		uint8_t bytes[512];
	};
};

/* A non-sample record: @body then the 32-byte sample_id trailer. */
static inline struct perf_event_header *rec_other(struct rec *r, uint32_t type, uint16_t misc, const void *body,
						  size_t body_len, uint32_t pid, uint32_t tid, uint64_t time,
						  uint32_t cpu, uint64_t id)
{
	uint8_t *p = r->bytes + sizeof(struct perf_event_header);
	uint64_t cpu64 = cpu;
	memset(r, 0, sizeof(*r));
	if (body_len) /* a record without a body passes NULL */
		memcpy(p, body, body_len);
	p += (body_len + 7) & ~(size_t)7;
	memcpy(p, &pid, 4);
	memcpy(p + 4, &tid, 4);
	memcpy(p + 8, &time, 8);
	memcpy(p + 16, &cpu64, 8);
	memcpy(p + 24, &id, 8);
	p += 32;
	r->hdr.type = type;
	r->hdr.misc = misc;
	r->hdr.size = (uint16_t)(p - r->bytes);
	return &r->hdr;
}

/* A PERF_RECORD_SAMPLE carrying a tracepoint payload @raw of @raw_len. */
static inline struct perf_event_header *rec_sample(struct rec *r, uint64_t id, uint32_t pid, uint32_t tid,
						   uint64_t time, uint32_t cpu, const void *raw, uint32_t raw_len)
{
	uint8_t *p = r->bytes + sizeof(struct perf_event_header);
	uint64_t cpu64 = cpu;
	memset(r, 0, sizeof(*r));
	memcpy(p, &id, 8);
	memcpy(p + 8, &pid, 4);
	memcpy(p + 12, &tid, 4);
	memcpy(p + 16, &time, 8);
	memcpy(p + 24, &cpu64, 8);
	memcpy(p + 32, &raw_len, 4);
	memcpy(p + 36, raw, raw_len);
	p += 36 + raw_len;
	/* The kernel pads the raw block so the record stays 8-byte aligned. */
	while ((p - r->bytes) % 8)
		*p++ = 0;
	r->hdr.type = PERF_RECORD_SAMPLE;
	r->hdr.size = (uint16_t)(p - r->bytes);
	return &r->hdr;
}

/* Put @size bytes of @value at @offset of a payload (little-endian). */
static inline void raw_put(uint8_t *raw, int offset, int size, int64_t value)
{
	memcpy(raw + offset, &value, (size_t)size);
}

#endif
