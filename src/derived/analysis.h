/*
 * src/derived/analysis.h - the derived tables of schema/derived.sql: why threads
 * were not running, for whom they waited, the critical path and the time
 * histograms. Each analysis reads the recorded tables of one run.db and
 * fills its own table; none prints (reports and the browser show them).
 */
#ifndef MTX_ANALYSIS_H
#define MTX_ANALYSIS_H

#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mtx_timeline; /* src/derived/timeline.h */
struct tl_buckets;   /* src/derived/timeline.h */

/* Bumped whenever a derived table's definition or meaning changes; a run.db
 * whose meta.derived_version is older gets its derived tables rebuilt. */
#define MTX_DERIVED_VERSION 23

/*
 * analysis_build - make sure @db has current derived tables: if
 * meta.derived_version is missing or older, drop and rebuild them all in one
 * transaction and record derived_version and derived_ms in meta. When
 * @temp is set (a read-only database) they are built as TEMP tables for this
 * connection only and meta is left alone. Returns 0, or -errno with a
 * message in @err (caller frees).
 */
int analysis_build(sqlite3 *db, int temp, char **err);

/*
 * analysis_build_captured - analysis_build (not @temp) from the run as
 * @capture holds it (the collector's writer_take_capture: src/derived/timeline.h),
 * rather than reading it back; from the tables when @capture is NULL or
 * was dropped. Frees @capture.
 */
struct tl_capture;
int analysis_build_captured(sqlite3 *db, struct tl_capture *capture, char **err);

/*
 * analysis_open - open the run database @path for reading (db_open_readonly),
 * read what it holds into @rs (run_state_open) and make sure it has current
 * derived tables: built into the file when the run is complete, @keep_file
 * is false and the file can be written, else (and when writing them
 * fails: a full disk, a read-only mount) as TEMP tables for this
 * connection. A file without write bits, or of an incomplete run, is never
 * changed. Every reader of the derived tables opens a run this one way.
 * Returns 0, or -errno with a one-line message in @err (caller frees).
 */
struct run_state;
int analysis_open(const char *path, bool keep_file, sqlite3 **db, struct run_state *rs, char **err);

/* analysis_is_current - whether @db already holds current derived tables. */
int analysis_is_current(sqlite3 *db);

/*
 * The analyses, in the order analysis_build runs them (each may read the
 * tables of those before it). Each fills its empty tables from the
 * recorded ones, loaded once by timeline_load() into @tl, and returns 0,
 * or -errno with a message in @err.
 */
/* state_causes, switch_totals, wait_totals, cpu_wait_totals, and (through
 * wait_for_add) wait_for, wait_for_totals and wait_chain_totals:
 * src/derived/state-causes.c */
int analysis_state_causes(sqlite3 *db, const struct mtx_timeline *tl, char **err);
/* thread_totals, sync_totals, lock_holders, syscall_totals: src/derived/summaries.c */
int analysis_summaries(sqlite3 *db, const struct mtx_timeline *tl, char **err);
/* critical_path: src/derived/critical-path.c (the threads, processes and create ops
 * from the tables, the states and wakeups from @tl); in two steps below */
int analysis_critical_path(sqlite3 *db, const struct mtx_timeline *tl, char **err);
/* time_histograms: src/derived/histogram.c */
int analysis_histograms(sqlite3 *db, const struct mtx_timeline *tl, char **err);

/*
 * wait_for and wait_for_totals (src/derived/wait-for.c), filled by the state_causes
 * pass: wait_for_begin prepares a pass over @tl whose rows go to table
 * @table of @queue, a row queue (src/row-queue.h) opened with
 * wait_for_insert as that table's INSERT (0 or -errno; call wait_for_end
 * even when it fails); wait_for_add adds the wait_for row of one sync wait
 * of @tid over [@s, @e) as state_causes describes it (its object when
 * @has_object, its innermost op @op or NULL, the thread that woke it when
 * @has_waker); wait_for_end, once the queue is finished, writes the totals
 * when @rc is 0, frees the pass and returns @rc or its own error.
 */
struct wait_for_pass;
struct tl_op;
struct row_queue;
extern const char wait_for_insert[];

/* One row of wait_for as the chains need it; other is waited_for_tid, -1
 * for NULL. */
struct wait_link {
	int64_t tid, start_ns, end_ns, other, object_id;
	bool has_object;
};

/*
 * The wait-for chains (src/derived/wait-chains.c). wait_chains_new reads the
 * threads' labels from @db (NULL, or an error in *@rc, which the caller
 * then frees with wait_chains_free); wait_chains_follow follows the chain
 * of each of the @n rows of wait_for in @links (grouped by tid, ascending,
 * each thread's in time order), without @db; wait_chains_of gives link
 * @i's chain text (NULL for none) and clipped length; wait_chains_write
 * writes their sums per bucket of @buckets to wait_chain_buckets, and over
 * the run to wait_chain_totals. 0 or -errno.
 */
struct wait_chains;
struct wait_chains *wait_chains_new(sqlite3 *db, const struct tl_buckets *buckets, int *rc);
int wait_chains_follow(struct wait_chains *c, const struct wait_link *links, size_t n);
const char *wait_chains_of(const struct wait_chains *c, size_t i, int64_t *ns);
int wait_chains_write(sqlite3 *db, const struct wait_chains *c);
void wait_chains_free(struct wait_chains *c);
int wait_for_begin(sqlite3 *db, const struct mtx_timeline *tl, struct row_queue *queue, int table,
		   struct wait_for_pass **out);
int wait_for_add(struct wait_for_pass *p, int64_t tid, int64_t s, int64_t e, bool has_object, int64_t object_id,
		 const struct tl_op *op, bool has_waker, int64_t waker_tid);
/* wait_for_put - hand the rows made over to the queue, with their chains. */
int wait_for_put(struct wait_for_pass *p);
int wait_for_end(sqlite3 *db, struct wait_for_pass *p, int rc);

/*
 * analysis_histograms in two steps, so that the counting (on @tl alone)
 * runs on a thread of its own while the other analyses write their tables:
 * _start reads what it needs from @db and starts it (0 or -errno with
 * @err); _finish waits for it and, with a @db, writes time_histograms
 * (0 or -errno with @err). _finish must follow every _start, with a NULL
 * @db to only wait and free when the build failed meanwhile.
 */
struct histogram_job;
int analysis_histograms_start(sqlite3 *db, const struct mtx_timeline *tl, struct histogram_job **job, char **err);
int analysis_histograms_finish(sqlite3 *db, struct histogram_job *job, char **err);

/*
 * timeline_levels (src/derived/timeline-levels.c) in two steps the same way: _start
 * computes the rows from @tl on a thread of its own (0 or -ENOMEM), _finish
 * waits for it and, with a @db, inserts them (0 or -errno with @err); with
 * a NULL @db it only waits and frees.
 */
struct levels_job;
int analysis_timeline_levels_start(const struct mtx_timeline *tl, struct levels_job **job);
int analysis_timeline_levels_finish(sqlite3 *db, struct levels_job *job, char **err);

/*
 * critical_path in two steps the same way: _start reads the threads,
 * processes and create ops from @db and starts the walk over @tl on a
 * thread of its own (0 or -errno with @err), _finish waits for it and, with
 * a @db, stores the path (0 or -errno with @err); _finish must follow every
 * _start that set *@job.
 */
struct critical_path_job;
int analysis_critical_path_start(sqlite3 *db, const struct mtx_timeline *tl, struct critical_path_job **job,
				 char **err);
int analysis_critical_path_finish(sqlite3 *db, struct critical_path_job *job, char **err);


#endif
