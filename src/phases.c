/* src/phases.c - see phases.h. */
#include "config.h"
#include "src/phases.h"
#include "src/db.h"
#include "src/error.h"
#include "src/grow.h"
#include "src/reports.h"
#include "src/thread-states.h"
#include "src/timefmt.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add(struct run_phases *p, size_t *cap, int64_t id, const char *name, int64_t start_ns, int64_t end_ns,
	       const char *source, int64_t tid)
{
	struct phase_row *v = grow_array(p->v, cap, p->n, sizeof(*v), 8);
	if (!v)
		return -ENOMEM;
	p->v = v;
	v[p->n] = (struct phase_row){ id, strdup(name), start_ns, end_ns, strdup(source), tid };
	if (!v[p->n].name || !v[p->n].source) {
		free(v[p->n].name);
		free(v[p->n].source);
		return -ENOMEM;
	}
	p->n++;
	return 0;
}

/* The run cut at the instants @at gives. */
static int cut_at(const char *at, int64_t start_ns, int64_t end_ns, struct run_phases *p, size_t *cap, char **err)
{
	char *copy = strdup(at), *save = NULL, name[32];
	int64_t from = start_ns;
	int rc = copy ? 0 : -ENOMEM;

	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t && !rc; t = strtok_r(NULL, ",", &save)) {
		int64_t ns;
		if (timefmt_parse_offset(t, &ns)) {
			error_set(err, "--phases-at: '%s' is not a time since the run's start, like 1.5s or 200ms", t);
			rc = -EINVAL;
		} else if (start_ns + ns <= from || start_ns + ns >= end_ns) {
			error_set(err, "--phases-at: %s is %s", t,
				  start_ns + ns >= end_ns ? "past the run's end" : "not after the instant before it");
			rc = -EINVAL;
		} else {
			phase_default_name((int64_t)p->n, name, sizeof(name));
			rc = add(p, cap, (int64_t)p->n, name, from, start_ns + ns, phase_source_name(PHASE_AT), 0);
			from = start_ns + ns;
		}
	}
	if (!rc) {
		phase_default_name((int64_t)p->n, name, sizeof(name));
		rc = add(p, cap, (int64_t)p->n, name, from, end_ns, phase_source_name(PHASE_AT), 0);
	}
	free(copy);
	return rc;
}

int run_phases_load(sqlite3 *db, const char *at, struct run_phases *out, char **err)
{
	const int64_t start_ns = db_run_start_ns(db), end_ns = db_run_end_ns(db);
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = add(out, &cap, 0, PHASE_GLOBAL, start_ns, end_ns, phase_source_name(PHASE_RUN), 0);
	if (!rc && at)
		rc = cut_at(at, start_ns, end_ns, out, &cap, err);
	else if (!rc && db_has_table(db, "phases")) {
		if (sqlite3_prepare_v2(db, "SELECT id, name, start_ns, end_ns, source, COALESCE(tid, 0) FROM phases "
				       "WHERE id > 0 ORDER BY id", -1, &st, NULL) != SQLITE_OK)
			rc = -EIO;
		while (!rc && st && (rc = sqlite3_step(st)) == SQLITE_ROW)
			rc = add(out, &cap, sqlite3_column_int64(st, 0), (const char *)sqlite3_column_text(st, 1),
				 sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3),
				 (const char *)sqlite3_column_text(st, 4), sqlite3_column_int64(st, 5));
		if (rc == SQLITE_DONE)
			rc = 0;
		else if (rc > 0)
			rc = -EIO;
		if (rc == -EIO)
			error_set(err, "reading the phases: %s", sqlite3_errmsg(db));
		sqlite3_finalize(st);
	}
	if (rc == -ENOMEM)
		error_set(err, "out of memory");
	if (rc)
		run_phases_free(out);
	return rc;
}

const struct phase_row *run_phases_find(const struct run_phases *p, const char *text, char **err)
{
	const struct phase_row *found = NULL;
	char *end;
	long long id = strtoll(text, &end, 10);
	size_t named = 0;

	for (size_t i = 0; i < p->n; i++) {
		if (*text && !*end && p->v[i].id == id)
			return &p->v[i];
		if (!strcmp(p->v[i].name, text) && named++ == 0)
			found = &p->v[i];
	}
	if (named == 1)
		return found;
	error_set(err, "--phase %s: %s (mtx report FILE phases lists them)", text,
		  named ? "several phases have that name: give its id" : "the run has no phase of that id or name");
	return NULL;
}

void run_phases_free(struct run_phases *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].name);
		free(p->v[i].source);
	}
	free(p->v);
	memset(p, 0, sizeof(*p));
}

int run_phase_window(sqlite3 *db, const char *text, const char *at, struct phase_window *w, char **err)
{
	struct run_phases phases;
	const struct phase_row *p;
	int rc = run_phases_load(db, at, &phases, err);
	if (rc)
		return rc;
	if (!(p = run_phases_find(&phases, text, err)))
		rc = -EINVAL;
	else if (p->end_ns <= p->start_ns) {
		error_set(err, "--phase %s: the phase is empty (it ends where it begins)", text);
		rc = -EINVAL;
	} else {
		*w = (struct phase_window){ p->id, p->start_ns, p->end_ns, "" };
		snprintf(w->name, sizeof(w->name), "%s", p->name);
	}
	run_phases_free(&phases);
	return rc;
}

/* Bind phase @p's states to @insert: @threads (the threads report's
 * figures, unrounded) run over its window, added up over the threads. */
static void bind_states(sqlite3_stmt *threads, sqlite3_stmt *insert, const struct phase_row *p)
{
	struct mtx_query_params window = { 0 };
	double ns[NR_THREAD_STATES] = { 0 }, life = 0;

	if (p->id > 0) { /* phase 0: the whole run, from the summaries */
		window.from = p->start_ns, window.has_from = true;
		window.to = p->end_ns, window.has_to = true;
	}
	sqlite3_reset(threads);
	query_bind(threads, &window);
	/* tid, name, lifetime_ns, then the ns of each state */
	while (p->end_ns > p->start_ns && sqlite3_step(threads) == SQLITE_ROW) {
		if (sqlite3_column_type(threads, 3) == SQLITE_NULL) /* no states known */
			continue;
		life += (double)sqlite3_column_int64(threads, 2);
		for (int s = 0; s < NR_THREAD_STATES; s++)
			ns[s] += sqlite3_column_double(threads, 3 + s);
	}
	sqlite3_reset(insert);
	sqlite3_bind_int64(insert, 1, p->id);
	sqlite3_bind_text(insert, 2, p->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(insert, 3, p->source, -1, SQLITE_STATIC);
	sqlite3_bind_int64(insert, 4, p->start_ns);
	sqlite3_bind_int64(insert, 5, p->end_ns - p->start_ns);
	for (int s = 0; s < NR_THREAD_STATES; s++)
		if (life > 0)
			sqlite3_bind_double(insert, 6 + s, (double)(int64_t)(1000.0 * ns[s] / life + 0.5) / 10.0);
		else
			sqlite3_bind_null(insert, 6 + s);
}

int run_phases_table(sqlite3 *db, const struct run_phases *p, unsigned missing, char **err)
{
	static const char *const pct[] = {
#define X(e, name, total, pct, label, waiting) pct,
		THREAD_STATES(X)
#undef X
	};
	char create[512] = "DROP TABLE IF EXISTS temp.phase_report; CREATE TEMP TABLE phase_report (id INTEGER, "
			   "name TEXT, source TEXT, start_ns INTEGER, length_ns INTEGER";
	char insert_sql[128] = "INSERT INTO temp.phase_report VALUES (?,?,?,?,?";
	char *threads_sql = query_sql(db, query_find("threads.ns"), missing);
	sqlite3_stmt *threads = NULL, *insert = NULL;
	int rc = 0;

	for (int s = 0; s < NR_THREAD_STATES; s++) {
		snprintf(create + strlen(create), sizeof(create) - strlen(create), ", %s REAL", pct[s]);
		strcat(insert_sql, ",?");
	}
	strcat(create, ")");
	strcat(insert_sql, ")");
	if (!threads_sql || sqlite3_exec(db, create, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, threads_sql, -1, &threads, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, insert_sql, -1, &insert, NULL) != SQLITE_OK)
		rc = -EIO;
	for (size_t i = 0; !rc && i < p->n; i++) {
		bind_states(threads, insert, &p->v[i]);
		if (sqlite3_step(insert) != SQLITE_DONE)
			rc = -EIO;
	}
	if (rc)
		error_set(err, "the phases' table: %s", threads_sql ? sqlite3_errmsg(db) : "out of memory");
	sqlite3_finalize(threads);
	sqlite3_finalize(insert);
	free(threads_sql);
	return rc;
}
