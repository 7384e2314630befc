/*
 * collector/phases.h - the phases of the run being recorded (schema/mtx.sql,
 * phases): each mark begins one, whatever made it (src/phases.h's sources),
 * and the rows are written once the run's end is known. Marks may come in
 * any order; they are put in time order at the end.
 */
#ifndef MTX_COLLECTOR_PHASES_H
#define MTX_COLLECTOR_PHASES_H

#include <stddef.h>
#include <stdint.h>

#include "collector/writer.h"
#include "src/phases.h"

struct mtx_phases;

struct mtx_phases *phases_new(void);

/* phases_mark - a phase called @name (@len bytes of it, not always NUL-
 * ended; NULL or empty: phase-<id>) begins at @ns, marked by @source (and
 * thread @tid, 0: none). 0 or -ENOMEM. */
int phases_mark(struct mtx_phases *p, uint64_t ns, const char *name, size_t len, enum phase_source source,
		int32_t tid);

/* phases_write - phase 0 [@start_ns, @end_ns] and each marked one, into
 * @w. Returns the writer's error or 0. */
int phases_write(struct mtx_phases *p, struct mtx_writer *w, uint64_t start_ns, uint64_t end_ns);

void phases_free(struct mtx_phases *p);

#endif
