/*
 * src/derived/analysis.c - see analysis.h. Builds the derived tables of
 * schema/derived.sql, in one transaction, in dependency order.
 */
#include "config.h"
#include "src/derived/analysis.h"
#include "src/clock.h"
#include "src/db.h"
#include "src/log.h"
#include "src/run-state.h"
#include "src/derived/timeline.h"
#include "src/derived/program-frames.h"
#include "schema/schema.h"
#include "src/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The derived tables are the CREATE TABLEs of schema/derived.sql, declared
 * there alone: next_derived_table copies the name of the one after *@p
 * into @name and moves *@p past it; 0 once there are no more.
 */
static int next_derived_table(const char **p, char *name, size_t size)
{
	static const char create[] = "CREATE TABLE ";
	const char *hit = strstr(*p, create);
	size_t len;

	if (!hit)
		return 0;
	hit += sizeof(create) - 1;
	len = strspn(hit, "abcdefghijklmnopqrstuvwxyz0123456789_");
	snprintf(name, size, "%.*s", (int)len, hit);
	*p = hit + len;
	return 1;
}

/* The run's buckets, which the *_buckets tables are per. */
static int run_buckets(sqlite3 *db, const struct mtx_timeline *tl, char **err)
{
	char sql[128];
	snprintf(sql, sizeof(sql), "INSERT INTO run_buckets VALUES (%lld, %lld)", (long long)tl->buckets.origin_ns,
		 (long long)tl->buckets.width_ns);
	return db_exec(db, sql, err);
}

/* In this order; time_histograms, timeline_levels and the critical path
 * are computed meanwhile on threads of their own (build_tables). */
static const struct {
	const char *name; /* for mtx report -v */
	int (*build)(sqlite3 *, const struct mtx_timeline *, char **);
} analyses[] = {
	{ "run_buckets", run_buckets },
	{ "state_causes", analysis_state_causes },
	{ "summaries", analysis_summaries },
	{ "program_frames", analysis_program_frames },
};

int analysis_is_current(sqlite3 *db)
{
	char *v = db_meta_get(db, "derived_version"), name[64], sql[160];
	int current = v && atoi(v) == MTX_DERIVED_VERSION;
	free(v);
	/* Every table must be there too (a TEMP build leaves meta alone). */
	for (const char *p = schema_derived_sql; current && next_derived_table(&p, name, sizeof(name));) {
		snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name = '%s'",
			 name);
		current = db_query_int(db, sql, 0) > 0;
	}
	return current;
}

/* The schema text with every CREATE TABLE turned into CREATE TEMP TABLE
 * (indexes on TEMP tables go to the temp schema by themselves). */
static char *temp_schema(void)
{
	static const char from[] = "CREATE TABLE ", to[] = "CREATE TEMP TABLE ";
	size_t n = 1;
	const char *p;
	for (p = schema_derived_sql; (p = strstr(p, from)); p += sizeof(from) - 1)
		n++;
	char *out = malloc(strlen(schema_derived_sql) + n * (sizeof(to) - sizeof(from)) + 1), *o = out;
	if (!out)
		return NULL;
	for (p = schema_derived_sql;;) {
		const char *hit = strstr(p, from);
		size_t len = hit ? (size_t)(hit - p) : strlen(p);
		memcpy(o, p, len);
		o += len;
		if (!hit)
			break;
		memcpy(o, to, sizeof(to) - 1);
		o += sizeof(to) - 1;
		p = hit + sizeof(from) - 1;
	}
	*o = '\0';
	return out;
}

/*
 * The page cache of the schema the build writes: room for every page it
 * writes (~170 MB on a 10 M-event run), so that none is written to the file
 * before COMMIT, then written again as the tables grow. With SQLite's
 * default (2 MB) the pages spilled all along: the state_causes pass took a
 * third longer. Only the pages written take memory; the cap keeps a larger
 * run's to 192 MB (it spills past that), within mtx collect's 512 MB of
 * memory at any size (issue 29) beside the rows it reads (src/spill.h).
 */
#define BUILD_CACHE_KIB 196608

/* Set the cache of @schema to @size (as PRAGMA cache_size takes it). */
static int set_cache_size(sqlite3 *db, const char *schema, int64_t size, char **err)
{
	char sql[64];
	snprintf(sql, sizeof(sql), "PRAGMA %s.cache_size = %lld", schema, (long long)size);
	return db_exec(db, sql, err);
}

static int build_tables(sqlite3 *db, int temp, struct mtx_timeline *tl, uint64_t t0, char **err);

/* analysis_build, from @capture when it is not NULL and holds the run. */
static int build(sqlite3 *db, int temp, struct tl_capture *capture, char **err)
{
	uint64_t t0 = clock_now_ns();
	struct mtx_timeline *tl = NULL;
	const char *schema = temp ? "temp" : "main";
	char sql[64];
	int rc;

	if ((rc = timeline_capture_finish(capture, db, &tl, err)))
		return rc;
	if (tl) {
		log_debug("derived tables: run captured, made a timeline in %lld ms",
			  (long long)((clock_now_ns() - t0) / 1000000));
	} else {
		if (capture)
			log_debug("derived tables: the capture was dropped or does not match the file: reading the run");
		/* Read the run before the write transaction begins, so that the
		 * second connection timeline_load may open reads beside this one. */
		if ((rc = timeline_load(db, &tl, err)))
			return rc;
		log_debug("derived tables: run read in %lld ms", (long long)((clock_now_ns() - t0) / 1000000));
	}
	/* The cache as it was, back afterwards. */
	snprintf(sql, sizeof(sql), "PRAGMA %s.cache_size", schema);
	int64_t cache_size = db_query_int(db, sql, -2000);
	if (set_cache_size(db, schema, -BUILD_CACHE_KIB, err)) {
		timeline_free(tl);
		return -EIO;
	}
	rc = build_tables(db, temp, tl, t0, err);
	set_cache_size(db, schema, cache_size, NULL);
	return rc;
}

int analysis_build(sqlite3 *db, int temp, char **err)
{
	return build(db, temp, NULL, err);
}

int analysis_build_captured(sqlite3 *db, struct tl_capture *capture, char **err)
{
	return build(db, 0, capture, err);
}

/* analysis_build once the run is read: frees @tl. */
static int build_tables(sqlite3 *db, int temp, struct mtx_timeline *tl, uint64_t t0, char **err)
{
	char sql[128], name[64];
	int rc = 0;

	if (db_exec(db, "BEGIN", err)) {
		timeline_free(tl);
		return -EIO;
	}
	for (const char *p = schema_derived_sql; !rc && next_derived_table(&p, name, sizeof(name));) {
		snprintf(sql, sizeof(sql), "DROP TABLE IF EXISTS %s%s", temp ? "temp." : "", name);
		rc = db_exec(db, sql, err);
	}
	/* The tables first, most indexes once they are filled (schema/derived.sql
	 * lists them last): building an index afterwards costs less than keeping
	 * it up to date row by row, unless the rows come in the index's order. */
	char *tables = temp ? temp_schema() : strdup(schema_derived_sql), *indexes = NULL;
	if (!rc && !tables)
		rc = -ENOMEM;
	if (!rc && (indexes = strstr(tables, "\n-- Indexes last")))
		*indexes++ = '\0';
	if (!rc)
		rc = db_exec(db, tables, err);
	struct histogram_job *histograms = NULL;
	struct levels_job *levels = NULL;
	struct critical_path_job *path = NULL;
	if (!rc)
		rc = analysis_histograms_start(db, tl, &histograms, err);
	if (!rc && (rc = analysis_timeline_levels_start(tl, &levels)))
		error_set(err, "timeline levels: out of memory");
	if (!rc)
		rc = analysis_critical_path_start(db, tl, &path, err);
	for (size_t i = 0; i < sizeof(analyses) / sizeof(analyses[0]) && !rc; i++) {
		rc = analyses[i].build(db, tl, err);
		log_debug("derived tables: %s done at %lld ms", analyses[i].name,
			  (long long)((clock_now_ns() - t0) / 1000000));
	}
	/* Each job is waited for (and freed) even after a failure. */
	if (path) {
		int done = analysis_critical_path_finish(rc ? NULL : db, path, rc ? NULL : err);
		rc = rc ? rc : done;
		log_debug("derived tables: critical_path done at %lld ms", (long long)((clock_now_ns() - t0) / 1000000));
	}
	if (levels) {
		int done = analysis_timeline_levels_finish(rc ? NULL : db, levels, rc ? NULL : err);
		rc = rc ? rc : done;
		log_debug("derived tables: timeline_levels done at %lld ms", (long long)((clock_now_ns() - t0) / 1000000));
	}
	if (histograms) {
		int done = analysis_histograms_finish(rc ? NULL : db, histograms, rc ? NULL : err);
		rc = rc ? rc : done;
	}
	timeline_free(tl);
	log_debug("derived tables: filled at %lld ms", (long long)((clock_now_ns() - t0) / 1000000));
	if (!rc && indexes)
		rc = db_build_indexes(db, indexes, err);
	free(tables);
	log_debug("derived tables: indexed at %lld ms", (long long)((clock_now_ns() - t0) / 1000000));
	if (!rc && !temp) {
		if (db_meta_set_int(db, "derived_version", MTX_DERIVED_VERSION) ||
		    db_meta_set_int(db, "derived_ms", (int64_t)((clock_now_ns() - t0) / 1000000)))
			rc = -EIO;
	}
	if (rc) {
		db_exec(db, "ROLLBACK", NULL);
		return rc < 0 ? rc : -EIO;
	}
	return db_exec(db, "COMMIT", err) ? -EIO : 0;
}

/* Say why building the derived tables of @path failed, in @err. */
static void build_failed(sqlite3 *db, const char *path, char **err)
{
	if (db_error_is_corrupt(sqlite3_errcode(db)))
		error_set(err, "%s: the database is corrupt", path);
	else
		error_set(err, "%s: cannot build the derived tables: %s", path, *err ? *err : "failed");
}

/* Build the derived tables into the file @path, through a connection of
 * its own that replaces *@db. Returns 0, 1 when the file cannot take them
 * (opened read-only again in *@db, and what it said in @err), or -errno
 * with @err when the file is corrupt. */
static int build_in_file(const char *path, sqlite3 **db, char **err)
{
	int rc;
	sqlite3_close(*db);
	*db = NULL;
	if (sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) == SQLITE_OK &&
	    db_shadow_missing_columns(*db) == 0) {
		sqlite3_busy_timeout(*db, 5000);
		log_info("building the derived tables of %s", path);
		if (!(rc = analysis_build(*db, 0, err)))
			return 0;
		if (db_error_is_corrupt(sqlite3_errcode(*db))) {
			build_failed(*db, path, err);
			return rc;
		}
	} else {
		error_set(err, "%s", sqlite3_errmsg(*db));
	}
	sqlite3_close(*db);
	*db = NULL;
	rc = db_open_readonly(path, db, NULL);
	return rc ? rc : 1;
}

int analysis_open(const char *path, bool keep_file, sqlite3 **db, struct run_state *rs, char **err)
{
	int rc = db_open_readonly(path, db, err);
	if (!rc)
		rc = run_state_open(*db, path, rs, err);
	if (rc)
		return rc;
	/* An incomplete run's derived tables are built for each reading and
	 * never kept: its collector may still be writing the file, and the
	 * file stays as it left it. */
	if (rs->complete && analysis_is_current(*db))
		return 0;
	/* A file without write permission bits stays unchanged even for root,
	 * who could write it anyway: its owner made it read-only. */
	struct stat sb;
	bool writable = rs->complete && !keep_file && access(path, W_OK) == 0 && stat(path, &sb) == 0 &&
			(sb.st_mode & 0222);
	if (writable) {
		if ((rc = build_in_file(path, db, err)) <= 0)
			return rc;
		/* The same reading goes on without writing (rs still holds). */
		log_info("cannot keep the derived tables in %s (%s)", path, *err ? *err : "it cannot be written");
		free(*err);
		*err = NULL;
	}
	log_info("building the derived tables of %s (as temporary tables: the file is left unchanged)", path);
	if ((rc = analysis_build(*db, 1, err)))
		build_failed(*db, path, err);
	return rc;
}
