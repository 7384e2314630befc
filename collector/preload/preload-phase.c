/*
 * collector/preload/preload-phase.c - mtx_phase(name): the program says
 * that a phase of its run begins (kind phase, op mark; shm.h). A program
 * declares it weak (collector/preload/mtx-phase.h), so that without mtx
 * it is NULL and the program calls nothing; under mtx collect this
 * library defines it. The record carries the name instead of an object,
 * and no stack: it is no sync op.
 */
#define _GNU_SOURCE
#include <string.h>

#include "collector/preload/preload.h"

/* Not from mtx-phase.h, which declares it weak for the programs. */
PRELOAD_EXPORT void mtx_phase(const char *name);

PRELOAD_EXPORT void mtx_phase(const char *name)
{
	uint64_t words[MTX_PHASE_NAME_MAX / 8] = { 0 }, now;
	struct mtx_sync_record *rec;

	if (!preload_recording())
		return;
	if (name)
		memcpy(words, name, strnlen(name, sizeof(words)));
	now = preload_now();
	rec = preload_begin(MTX_SYNC_KIND_PHASE, MTX_SYNC_OP_MARK, (const void *)(uintptr_t)words[0], words[1], now,
			    words[2], PRELOAD_FRAME);
	if (rec)
		lane_end_op_cost(&preload_region, &preload_tls.w, rec, now, now, 0, (struct lane_cost){ 0, 0 });
}
