/*
 * src/analysis.h - the derived tables of schema/derived.sql: why threads
 * were not running, for whom they waited, the critical path and the time
 * histograms. Each analysis reads the recorded tables of one run.db and
 * fills its own table; none prints (reports and the browser show them).
 */
#ifndef MTX_ANALYSIS_H
#define MTX_ANALYSIS_H

#include <sqlite3.h>
#include <stdbool.h>

/* Bumped whenever a derived table's definition or meaning changes; a run.db
 * whose meta.derived_version is older gets its derived tables rebuilt. */
#define MTX_DERIVED_VERSION 1

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
 * analysis_open - open the run database @path for reading (db_open_readonly)
 * and make sure it has current derived tables: built into the file when it
 * can be written and @keep_file is false, else as TEMP tables for this
 * connection (a file without write bits is never changed). Returns 0, or
 * -errno with a one-line message in @err (caller frees).
 */
int analysis_open(const char *path, bool keep_file, sqlite3 **db, char **err);

/* analysis_is_current - whether @db already holds current derived tables. */
int analysis_is_current(sqlite3 *db);

/*
 * The analyses, in the order analysis_build runs them (each may read the
 * tables of those before it). Each fills its empty table and returns 0, or
 * -errno with a message in @err.
 */
int analysis_state_causes(sqlite3 *db, char **err);   /* src/state-causes.c */
int analysis_wait_for(sqlite3 *db, char **err);       /* src/wait-for.c */
int analysis_critical_path(sqlite3 *db, char **err);  /* src/critical-path.c */
int analysis_histograms(sqlite3 *db, char **err);     /* src/histogram.c */

#endif
