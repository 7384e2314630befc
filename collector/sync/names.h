/*
 * collector/sync/names.h - sync_objects.name: what each object is, in the
 * program's own terms, written with the other names once the run is over.
 *
 *  - an object in a mapped file's data (a global or static): the symbol
 *    that holds it and the offset in it, "log_mutex", "accounts+0x40";
 *  - any other (heap, stack): where its lifetime began, its first op's
 *    frame as the reports show where an op was made (the program's own,
 *    src/derived/program-frames.h) and the line in it: "init at
 *    bank.cc:41 in Bank::Bank()", or "first used at ..." when no init was
 *    seen; in a file without symbols the call site's place in it, "init
 *    at sort+0x5a20" (for addr2line);
 *  - a signal: "SIGUSR1"; a thread: "thread TID".
 *
 * Which of heap and stack holds an object is not said: mtx records only
 * the executable mappings.
 */
#ifndef MTX_COLLECTOR_SYNC_NAMES_H
#define MTX_COLLECTOR_SYNC_NAMES_H

#include <sqlite3.h>

struct mtx_profile;

/*
 * sync_names_write - name the sync_objects rows of @db, the run whose code
 * @p knows, after sync_resolve (lifetimes split) and once the callsites
 * and stacks rows are written; inside the caller's transaction. Returns 0
 * or -errno with a message in @err (caller frees).
 */
int sync_names_write(sqlite3 *db, struct mtx_profile *p, char **err);

#endif
