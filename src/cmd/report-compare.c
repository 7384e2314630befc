/*
 * src/cmd/report-compare.c - 'mtx report FILE NAME --compare BASE': a
 * whole-run report of two runs side by side, as perf diff and uftrace
 * report --diff do. Tids and addresses differ between runs, so rows are
 * matched by what stays: a thread's name, an object's kind and name (its
 * symbol, or where it was made), an op, a syscall, a function (the keys,
 * declared per report below). Rows with the same key in one run (a pool
 * of threads of one name) are added up first: times and counts summed,
 * maxima kept, percentages averaged. Each number of the report becomes
 * three columns: base_X (BASE's), X (FILE's) and X_change_pct.
 */
#include "config.h"
#include "src/cmd/cmd.h"
#include "src/db.h"
#include "src/derived/analysis.h"
#include "src/log.h"
#include "src/report-format.h"
#include "src/reports.h"
#include "src/run-state.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sections compared and the columns that match their rows. */
static const struct {
	const char *query, *keys;
} compared[] = {
	{ "threads", "name" },
	{ "sync", "name,kind,op" },
	{ "locks", "kind,name" },
	{ "syscalls", "name,syscall" },
	{ "flat", "thread,function" },
};
#define NR_COMPARED (sizeof(compared) / sizeof(compared[0]))

/* Numbers that name a thread, an object or a row in one run only. */
static bool is_identity(const char *column)
{
	size_t n = strlen(column);
	return !strcmp(column, "tid") || !strcmp(column, "pid") || !strcmp(column, "addr") ||
	       !strcmp(column, "holder") || !strcmp(column, "index") ||
	       (n > 4 && !strcmp(column + n - 4, "_tid")) || (n > 3 && !strcmp(column + n - 3, "_id"));
}

static bool is_key(const char *keys, const char *column)
{
	size_t n = strlen(column);
	for (const char *k = keys; k; k = strchr(k, ',') ? strchr(k, ',') + 1 : NULL)
		if (!strncmp(k, column, n) && (k[n] == ',' || !k[n]))
			return true;
	return false;
}

const char *report_compare_keys(const char *report)
{
	for (size_t i = 0; i < NR_COMPARED; i++)
		if (!strcmp(compared[i].query, report))
			return compared[i].keys;
	return NULL;
}

/* Copy @st's rows into table @table of @cmp (its columns c0..cN). */
static int copy_rows(sqlite3 *cmp, const char *table, sqlite3_stmt *st)
{
	int n = sqlite3_column_count(st), rc;
	sqlite3_stmt *ins;
	char *sql = sqlite3_mprintf("INSERT INTO %s VALUES (?", table);
	for (int i = 1; sql && i < n; i++) {
		char *more = sqlite3_mprintf("%s, ?", sql);
		sqlite3_free(sql);
		sql = more;
	}
	char *full = sql ? sqlite3_mprintf("%s)", sql) : NULL;
	sqlite3_free(sql);
	if (!full || sqlite3_prepare_v2(cmp, full, -1, &ins, NULL) != SQLITE_OK) {
		sqlite3_free(full);
		return -1;
	}
	sqlite3_free(full);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < n; i++)
			sqlite3_bind_value(ins, i + 1, sqlite3_column_value(st, i));
		if (sqlite3_step(ins) != SQLITE_DONE)
			break;
		sqlite3_reset(ins);
	}
	sqlite3_finalize(ins);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* The aggregate that adds up column @name over rows of one key. */
static const char *aggregate(const char *name)
{
	size_t len = strlen(name);
	if (len > 4 && !strcmp(name + len - 4, "_pct"))
		return "AVG";
	return !strncmp(name, "max_", 4) ? "MAX" : "SUM";
}

/* The SQL that joins tables a (FILE's) and b (BASE's), of @st's columns,
 * on @keys: malloc'd, NULL when out of memory. */
static char *join_sql(sqlite3 *cmp, sqlite3_stmt *st, const char *keys)
{
	char *agg = NULL, *cols = NULL, *on = NULL, *group = NULL, *sql = NULL;
	size_t n_agg, n_cols, n_on, n_group;
	FILE *fa = open_memstream(&agg, &n_agg), *fc = open_memstream(&cols, &n_cols),
	     *fo = open_memstream(&on, &n_on), *fg = open_memstream(&group, &n_group);
	bool any_key = false;
	if (!fa || !fc || !fo || !fg)
		goto out;
	for (int i = 0; i < sqlite3_column_count(st); i++) {
		const char *name = sqlite3_column_name(st, i);
		size_t len = strlen(name);
		char check[200];
		if (is_key(keys, name)) {
			fprintf(fa, ", c%d AS \"%s\"", i, name);
			fprintf(fc, ", COALESCE(a.\"%s\", b.\"%s\") AS \"%s\"", name, name, name);
			fprintf(fo, "%sa.\"%s\" IS b.\"%s\"", any_key ? " AND " : "", name, name);
			fprintf(fg, "%sc%d", any_key ? ", " : "", i);
			any_key = true;
			continue;
		}
		/* a number in both runs, and not one that names something */
		snprintf(check, sizeof(check),
			 "SELECT EXISTS (SELECT 1 FROM a WHERE typeof(c%d) IN ('text', 'blob') UNION ALL "
			 "SELECT 1 FROM b WHERE typeof(c%d) IN ('text', 'blob'))", i, i);
		if (is_identity(name) || db_query_int(cmp, check, 1))
			continue;
		/* X_change_pct: X without its unit's suffix */
		int stem = len > 3 && !strcmp(name + len - 3, "_ns") ? (int)len - 3
			   : len > 4 && !strcmp(name + len - 4, "_pct") ? (int)len - 4 : (int)len;
		fprintf(fa, ", %s(c%d) AS \"%s\"", aggregate(name), i, name);
		fprintf(fc, ", b.\"%s\" AS \"base_%s\", a.\"%s\" AS \"%s\", CASE WHEN b.\"%s\" <> 0 THEN "
			    "round(100.0 * (a.\"%s\" - b.\"%s\") / abs(b.\"%s\"), 1) END AS \"%.*s_change_pct\"",
			name, name, name, name, name, name, name, name, stem, name);
	}
out:;
	bool ok = fa && fc && fo && fg;
	FILE *streams[] = { fa, fc, fo, fg };
	for (int i = 0; i < 4; i++)
		if (streams[i] && fclose(streams[i]))
			ok = false;
	if (ok && any_key &&
	    asprintf(&sql,
		     "WITH ga AS (SELECT MIN(rowid) AS r%s FROM a GROUP BY %s), "
		     "gb AS (SELECT MIN(rowid) AS r%s FROM b GROUP BY %s) "
		     "SELECT %s FROM ga a FULL JOIN gb b ON %s ORDER BY a.r IS NULL, a.r, b.r",
		     agg, group, agg, group, cols + 2, on) < 0)
		sql = NULL;
	free(agg);
	free(cols);
	free(on);
	free(group);
	return sql;
}

/* Open run @path for the comparison: its derived tables current, whole. */
static sqlite3 *open_run(const char *path)
{
	struct run_state rs;
	sqlite3 *db = NULL;
	char *err = NULL;
	if (analysis_open(path, false, &db, &rs, &err)) {
		log_error("%s", err ? err : "cannot open");
		free(err);
		return NULL;
	}
	if (rs.missing) {
		log_error("%s: the run is not complete: --compare needs two whole runs", path);
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

int cmd_report_compare(const char *path, const char *base, const struct mtx_report *r, enum report_format format,
		       long limit_rows, int width)
{
	struct report_printer printer = { .out = stdout, .format = format, .width = width, .limit_rows = limit_rows };
	sqlite3 *run[2] = { NULL, NULL }, *cmp = NULL;
	int status = EXIT_FAILURE_MTX;

	if (!(run[0] = open_run(path)) || !(run[1] = open_run(base)))
		goto out;
	if (sqlite3_open(":memory:", &cmp) != SQLITE_OK) {
		log_error("out of memory");
		goto out;
	}
	if (format == REPORT_TEXT)
		printf("%s compared with %s (base_: %s's; rows matched by %s)\n\n", path, base, base,
		       report_compare_keys(r->name));
	report_begin(&printer);
	for (int q = 0; r->queries[q].name; q++) {
		const char *keys = report_compare_keys(r->queries[q].name);
		sqlite3_stmt *st[2] = { NULL, NULL }, *joined = NULL;
		char *err = NULL, *sql = NULL, *create = NULL;
		int rc = 0;
		if (!keys)
			continue; /* a section of what the run recorded, not of its figures */
		for (int i = 0; i < 2 && !rc; i++)
			rc = sqlite3_prepare_v2(run[i], r->queries[q].sql, -1, &st[i], NULL) != SQLITE_OK;
		if (!rc) {
			/* a and b: FILE's and BASE's rows, columns c0 .. */
			create = sqlite3_mprintf("DROP TABLE IF EXISTS a; DROP TABLE IF EXISTS b; CREATE TABLE a(c0");
			for (int i = 1; create && i < sqlite3_column_count(st[0]); i++) {
				char *more = sqlite3_mprintf("%s, c%d", create, i);
				sqlite3_free(create);
				create = more;
			}
			char *b = create ? sqlite3_mprintf("%s); CREATE TABLE b AS SELECT * FROM a;", create) : NULL;
			rc = !b || sqlite3_exec(cmp, b, NULL, NULL, NULL) != SQLITE_OK || copy_rows(cmp, "a", st[0]) ||
			     copy_rows(cmp, "b", st[1]);
			sqlite3_free(b);
		}
		if (!rc && (!(sql = join_sql(cmp, st[0], keys)) ||
			    sqlite3_prepare_v2(cmp, sql, -1, &joined, NULL) != SQLITE_OK))
			rc = 1;
		if (rc)
			log_error("report %s --compare: %s", r->queries[q].name,
				  sqlite3_errmsg(st[1] ? cmp : st[0] ? run[1] : run[0]));
		else if (report_print(&printer, r->queries[q].name, r->queries[q].title, joined, &err) < 0) {
			log_error("report %s --compare: %s", r->queries[q].name, err ? err : "failed");
			rc = 1;
		}
		free(err);
		free(sql);
		sqlite3_free(create);
		sqlite3_finalize(joined);
		sqlite3_finalize(st[0]);
		sqlite3_finalize(st[1]);
		if (rc)
			goto out;
	}
	report_end(&printer);
	status = fflush(stdout) == 0 ? 0 : EXIT_FAILURE_MTX;
out:
	sqlite3_close(cmp);
	sqlite3_close(run[0]);
	sqlite3_close(run[1]);
	return status;
}
