/*
 * src/reports.h - the named reports: each is one or more named SQL queries
 * over run.db (recorded and derived tables). `mtx report` prints them, the
 * browser shows the same queries, and the tests check them, so a figure on
 * screen is a figure a test has seen.
 *
 * Queries take their filters as named parameters, NULL when not given:
 * :tid, :object_id, :addr, :from, :to (absolute ns), :function (a PCRE2
 * pattern, used with REGEXP). A filter a report has no parameter for is
 * refused by the caller.
 */
#ifndef MTX_REPORTS_H
#define MTX_REPORTS_H

#include "src/run-state.h"
#include "src/thread-names.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

/* SQL for the file name of path @p (what follows its last '/'). */
#define BASENAME(p) "replace(" p ", rtrim(" p ", replace(" p ", '/', '')), '')"

/* SQL for how function @f (a functions row) is shown where its module is
 * not: a function without a symbol is "[unknown]" in every module, so it
 * gets its module's file name ("[unknown libz.so.1.2.13]"). */
#define FUNCTION_LABEL(f)                                                                       \
	"(CASE WHEN " f ".name = '[unknown]' AND " f ".module IS NOT NULL THEN '[unknown ' || " \
	BASENAME(f ".module") " || ']' ELSE " f ".name END)"

/*
 * Where in the program's own code sync op @op (a sync_ops row of process
 * @pid) was called (src/derived/program-frames.h): the FROM-clause joins,
 * then OP_FRAME("function_id"), OP_FRAME("file"), OP_FRAME("line"). With
 * a stack (collect --sync-stacks) its stack says, else its call site.
 */
#define OP_FRAME_JOINS(op, pid)                                                     \
	"LEFT JOIN stack_frames opsf ON opsf.stack_id = " op ".stack_id "          \
	"LEFT JOIN callsite_frames opcf ON opcf.pid = " pid " AND opcf.addr = " op \
	".callsite "
#define OP_FRAME(col) "(CASE WHEN opsf.stack_id IS NULL THEN opcf." col " ELSE opsf." col " END)"
/* SQL for a source position as shown: "file.c:42" (the file's name), NULL
 * when the line is unknown. */
#define SOURCE_LABEL(file, line) "(CASE WHEN " line " IS NOT NULL THEN " BASENAME(file) " || ':' || " line " END)"
/* SQL for how sync object @o (a sync_objects row) is shown: its name, else
 * (unnamed, or a run.db from before names) its address. */
#define OBJECT_LABEL(o) "COALESCE(" o ".name, printf('0x%x', " o ".addr))"
/* The same for the object whose id is @id (NULL for none). */
#define OBJECT_LABEL_OF(id) \
	"(SELECT " OBJECT_LABEL("n") " FROM sync_objects n WHERE n.id = " id ")"
/* SQL: whether sync object @o is a lock (a semaphore used as one too). */
#define IS_LOCK(o) "(" o ".kind IN ('mutex', 'rwlock', 'spinlock') OR " o ".used_as = 'lock')"

struct mtx_query {
	const char *name;  /* report.section, e.g. "waits.objects" */
	const char *title; /* one line above the table */
	const char *sql;
};

struct mtx_report {
	const char *name;
	const char *summary;  /* one line for --list */
	const char *argument; /* a required positional argument (OBJECT), or NULL */
	const struct mtx_query *queries; /* ends with a zeroed entry */
	/* What it reads that mtx collect records only when asked, or NULL:
	 * SQL of one value, 0 when the run did not record it, and what it is
	 * and how to record it ("CPU samples (mtx collect --sample HZ)"). */
	const char *recorded, *needs;
};

/*
 * The parameters a named query may take, declared once: X(field of
 * mtx_query_params, SQL parameter, the mtx report option that gives it).
 * Integers (a field and has_<field>), then texts (NULL when not given: a
 * PCRE2 pattern, a syscall name). Paged queries also take :k0 and :k1 (the
 * key of the row to continue after or before) and :limit.
 */
#define QUERY_INT_PARAMS(X)                                        \
	X(tid, ":tid", "--thread")                                  \
	X(object_id, ":object_id", "--object")                      \
	X(addr, ":addr", "--object")                                \
	X(from, ":from", "--from")                                  \
	X(to, ":to", "--to")
#define QUERY_TEXT_PARAMS(X)                                       \
	X(function, ":function", "--function")                      \
	X(syscall, ":syscall", NULL)

/* What a query is asked about: each field that is set binds its parameter,
 * the others bind NULL. */
struct mtx_query_params {
#define X(field, param, option) int64_t field; bool has_##field;
	QUERY_INT_PARAMS(X)
#undef X
#define X(field, param, option) const char *field;
	QUERY_TEXT_PARAMS(X)
#undef X
};

/* query_bind - bind @p (and NULL for what it lacks) to @st's parameters. */
void query_bind(sqlite3_stmt *st, const struct mtx_query_params *p);

/* query_unknown - the steps of @missing (a run_state's) without which no
 * row of @q can be shown; 0 when it can be. */
unsigned query_unknown(const struct mtx_query *q, unsigned missing);

/* query_unknown_columns - the steps of @missing without which some columns
 * of @q are unknown; 0 when none is. */
unsigned query_unknown_columns(const struct mtx_query *q, unsigned missing);

/*
 * query_sql - the SQL that runs @q on @db, a run that lacks the steps
 * @missing: q->sql itself, or it wrapped so that its unknown columns give
 * NULL and, when no row of it can be shown, so that it gives none.
 * malloc'd (caller frees); NULL when out of memory, or when SQLite refuses
 * q->sql (preparing q->sql then says why).
 */
char *query_sql(sqlite3 *db, const struct mtx_query *q, unsigned missing);

/*
 * query_note - on a run that lacks the steps @missing, what of @q is
 * unknown and why, in one line: "unknown: the sync waits and holders were
 * not resolved" when none of its rows can be shown, "unknown: blocking,
 * wait: the sync waits ..." when some columns cannot (as text heads them
 * with @headers, else by name). malloc'd (caller frees); NULL when all of
 * it is known.
 */
char *query_note(const struct mtx_query *q, unsigned missing, bool headers);

/* report_unavailable - why report @r cannot be made of the run in @db (one
 * line: its data were not recorded), or NULL when it can. */
const char *report_unavailable(sqlite3 *db, const struct mtx_report *r);

/* The report on mtx's overhead (src/report-overhead.c), and why a run
 * cannot have it (NULL: it can). */
extern const struct mtx_query overhead_queries[];
const char *report_overhead_unmeasured(sqlite3 *db);
/* The same in TSC cycles (mtx report overhead --cycles), and why a run
 * cannot have it (NULL: it can). */
extern const struct mtx_query overhead_cycles_queries[];
const char *report_overhead_no_cycles(sqlite3 *db);

/* report_in_cycles - report @r's queries in TSC cycles, NULL when it has
 * none (only overhead has). */
const struct mtx_query *report_in_cycles(const struct mtx_report *r);

/* The report on seed 004's external events (src/report-external.c). */
extern const struct mtx_query instrumentation_queries[];
extern const struct mtx_query external_queries[];

/* query_find - the query called @name: a report's section ("waits.objects",
 * "threads") or one of the browser's (src/browse-queries.c); NULL if none. */
const struct mtx_query *query_find(const char *name);

/* browse_query_table - the browser's own queries; ends with a zeroed entry. */
const struct mtx_query *browse_query_table(void);

/* query_count_sql - for the query called @name when it can give very many
 * rows: SQL of one value, the number of rows it gives with the same
 * parameters, found without stepping through them (mtx report's "N more
 * rows" under --limit); NULL for the other queries. */
const char *query_count_sql(const char *name);

/* report_find - the report called @name, or NULL. */
const struct mtx_report *report_find(const char *name);

/* report_table - all reports, in --list order; @nr gets their number. */
const struct mtx_report *report_table(int *nr);

#endif
