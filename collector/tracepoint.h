/*
 * collector/tracepoint.h - reading fields out of a tracepoint's raw payload
 * at offsets learned from tracefs (never assumed), shared by the sources.
 */
#ifndef MTX_COLLECTOR_TRACEPOINT_H
#define MTX_COLLECTOR_TRACEPOINT_H

#include "collector/perf.h"

#include <stdint.h>
#include <string.h>

struct tp_field {
	int offset;
	int size; /* 0: absent */
};

/* tp_read - the integer field @f of @sample (sign-extended), or @fallback
 * when the field is absent or the payload too short. */
static inline int64_t tp_read(const struct perf_sample *sample, const struct tp_field *f, int64_t fallback)
{
	if (f->size <= 0 || (uint32_t)(f->offset + f->size) > sample->raw_size)
		return fallback;
	switch (f->size) {
	case 1: { int8_t v; memcpy(&v, sample->raw + f->offset, 1); return v; }
	case 2: { int16_t v; memcpy(&v, sample->raw + f->offset, 2); return v; }
	case 4: { int32_t v; memcpy(&v, sample->raw + f->offset, 4); return v; }
	case 8: { int64_t v; memcpy(&v, sample->raw + f->offset, 8); return v; }
	default: return fallback;
	}
}

/* tp_lookup - fill @f for field @name of @system:@event. Returns 0 or -errno. */
static inline int tp_lookup(const char *system, const char *event, const char *name, struct tp_field *f)
{
	int rc = tracepoint_field(system, event, name, &f->offset, &f->size);
	if (rc)
		f->size = 0;
	return rc;
}

/* tp_attr - a sampling tracepoint attr for @id with the raw payload. */
static inline void tp_attr(struct perf_event_attr *attr, long id)
{
	perf_attr_init(attr, PERF_TYPE_TRACEPOINT, (uint64_t)id);
	attr->sample_period = 1;
	attr->sample_type |= PERF_SAMPLE_RAW;
}

#endif
