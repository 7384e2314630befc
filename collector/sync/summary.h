/*
 * collector/sync/summary.h - the sync ops past mtx collect --detail's
 * budget: seed 003's exact totals instead of a row per op, for the part
 * of a heavy program's ops that no analysis of a wait needs.
 *
 * A sync op that begins at or after the cutoff (collector/detail.h) is
 * summarizable unless it must be a row whatever happens: a call that did
 * not return, a wrapper slow enough for the pass that takes its time off
 * the CPU out, one --inject-overhead delayed, an op that begins or ends a
 * lifetime, one whose arg does not fit the capture's 32 bits. A summarizable op goes to the writer's
 * capture only (src/derived/timeline.h), with the id its row would have
 * had; the rows keep their ids, so sync_ops.id has gaps where it went.
 *
 * Once the run is in, sync_resolve replays every op from the capture as
 * before (holders, waits, holds). Then an op the replay found blocked or
 * contended becomes a row after all, with what the replay gave it: waits
 * are made of those. The others are added up into summarized_sync_ops per
 * thread, object, op and call site, which sync_usage, lock_contention and
 * the derived sync_totals add in, so that their figures are those of a run
 * that kept every op. Before the lifetimes are split, the summarized ops
 * the split could move to a later lifetime (and an object's first op, which
 * says where its first lifetime begins) become rows too.
 */
#ifndef MTX_COLLECTOR_SYNC_SUMMARY_H
#define MTX_COLLECTOR_SYNC_SUMMARY_H

#include "collector/writer.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tl_capture;

/* Wrappers slower than this are looked at by the pass that takes their
 * time off the CPU out (schema/mtx.sql's sync_ops_slow_wrapper). */
#define SYNC_SLOW_WRAPPER_NS 2000

/* sync_op_summarizable - whether @row may be added up rather than written
 * once past the budget; @lifetime_op: its op begins or ends a lifetime. */
bool sync_op_summarizable(const struct writer_sync_op_row *row, bool lifetime_op);

/*
 * sync_summary_lifetimes - before the lifetimes of the objects @ids (@n:
 * those that saw a lifetime op) are split, make rows of the summarized ops
 * of @capture that a split could move: those on such an object (or a cond
 * wait on such a mutex) that began after one of its lifetime ops other
 * than its first op, and each such object's first op. 0 or -errno (@err).
 */
int sync_summary_lifetimes(sqlite3 *db, struct tl_capture *capture, const int64_t *ids, size_t n, char **err);

struct sync_summary_stats {
	uint64_t rows;       /* summarized ops made rows (blocked, contended) */
	uint64_t summarized; /* ops added up */
};

/*
 * sync_summary_finish - once sync_resolve is done: the summarized ops it
 * found blocked or contended become rows, the others summarized_sync_ops
 * rows; an object's created_ns moves back to its first summarized op when
 * that began first. @all_rows: make every one a row (the sync tables are
 * not resolved: an interrupted finish). 0 or -errno (@err).
 */
int sync_summary_finish(sqlite3 *db, struct tl_capture *capture, bool all_rows, struct sync_summary_stats *st,
			char **err);

#endif
