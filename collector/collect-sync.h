/*
 * collector/collect-sync.h - the synchronization half of a collection, as
 * collect.c drives it: inject libmtx-preload.so into the program, drain its
 * records while the program runs, and complete the sync tables at the end.
 */
#ifndef MTX_COLLECTOR_COLLECT_SYNC_H
#define MTX_COLLECTOR_COLLECT_SYNC_H

#include <limits.h>
#include <stdint.h>

#include "collector/sync-pump.h"
#include "collector/writer.h"

struct collect_sync {
	int on;                       /* records are being collected */
	struct sync_region *region;
	struct sync_pump *pump;
	struct sync_objects *objects;
	struct sync_batch batch;
	uint64_t records, lost;
	char ld_preload[PATH_MAX + 64];
	char *env[3];                 /* for target_spawn: LD_PRELOAD, MTX_SYNC_REGION */
};

/*
 * collect_sync_prepare - before the program is spawned: find the library,
 * check that @prog can load it (if not, say why in one line and go on
 * without sync records), create the region. @cs->env is then the
 * environment to add (NULL-ended, empty when off). Returns 0, or -errno with
 * @err for a failure that must stop the collection.
 */
int collect_sync_prepare(struct collect_sync *cs, const char *prog, char **err);

/* collect_sync_start - start draining (after the program was spawned). */
int collect_sync_start(struct collect_sync *cs, char **err);

/* collect_sync_write - write what was drained since the last call. */
void collect_sync_write(struct collect_sync *cs, struct mtx_writer *w);

/*
 * collect_sync_finish - the program is gone: drain the rest, write it,
 * complete the tables (sync-resolve.h) and put their counts in meta; @cs->
 * records and @cs->lost are final (the caller stores them with the other
 * sources' counts). Returns
 * 0 or the writer's -errno (with a message logged).
 */
int collect_sync_finish(struct collect_sync *cs, struct mtx_writer *w);

/* collect_sync_free - release everything (also after a failed start). */
void collect_sync_free(struct collect_sync *cs);

#endif
