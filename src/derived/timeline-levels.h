/*
 * src/derived/timeline-levels.h - the byte codes of timeline_levels.buckets
 * (schema/derived.sql), shared by their writer (src/derived/timeline-levels.c) and
 * their reader (ui/view-timeline.c): a bucket's byte is its state's code
 * plus TL_LEVEL_EVENT_SHIFT bits up its event's code.
 */
#ifndef MTX_TIMELINE_LEVELS_H
#define MTX_TIMELINE_LEVELS_H

#include "src/thread-states.h"

#define TL_LEVEL_CHUNK 4096    /* buckets per row at most */
#define TL_LEVEL_EVENT_SHIFT 3 /* state codes are below 8 */

/* State codes: a state's (src/thread-states.h) plus one; any other state
 * counts as "blocked". 0 (NULL): no state recorded in the bucket. */
static const char *const timeline_level_states[] = {
	NULL,
#define X(e, name, total, pct, label, waiting) name,
	THREAD_STATES(X)
#undef X
};

/* Event codes: "syscall" when a syscall began in the bucket and no sync op,
 * else the sync_objects.kind of its first sync op ("?" for another kind).
 * 0 (NULL): neither. */
static const char *const timeline_level_events[] = {
	NULL, "syscall", "mutex", "rwlock", "spinlock", "cond", "sem", "barrier", "thread", "signal", "?",
};

#endif
