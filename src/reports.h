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
};

/* report_find - the report called @name, or NULL. */
const struct mtx_report *report_find(const char *name);

/* report_table - all reports, in --list order; @nr gets their number. */
const struct mtx_report *report_table(int *nr);

#endif
