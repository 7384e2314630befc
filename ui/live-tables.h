/*
 * ui/live-tables.h - the answers of a running collector to "live"
 * (collector/live.h) as tables of a database of their own, so that the
 * browser's live view (mtx browse --live SOCK) draws them with named
 * queries (src/browse-queries.c, live.*), as every view does: the last
 * two answers are kept, and the queries give each figure over the window
 * between them (the first answer: from the run's start).
 *
 *   live_snapshot(seq, start_ns, now_ns, threads, ended, <state>_ns...,
 *                 lock_wait_ns, lock_ops)     every thread so far, added up
 *   live_threads(seq, tid, pid, name, state, since_ns, <state>_ns...,
 *                lock_wait_ns, lock_ops)      each thread alive
 *   live_objects(seq, id, pid, kind, address, ops, op_ns, lock_wait_ns)
 *   live_thresholds(ord, why, hypothesis, threshold)
 *                                             the consultant's top-level
 *                                             hypotheses and defaults
 */
#ifndef MTX_UI_LIVE_TABLES_H
#define MTX_UI_LIVE_TABLES_H

#include <sqlite3.h>

/* live_tables_create - the tables, empty, in @db. 0 or -EIO with @err. */
int live_tables_create(sqlite3 *db, char **err);

/* live_tables_add - the answer @json, the newest; answers older than the
 * one before it are dropped. 0 or -EIO with @err (not such an answer). */
int live_tables_add(sqlite3 *db, const char *json, char **err);

#endif
