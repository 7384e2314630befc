/*
 * src/derived/program-frames.c - see program-frames.h.
 *
 * The stacks rows are read in id order, each with whether its function is
 * the program's (frame_is_system of its module and declaration file); a
 * row's program frame is itself when it is, else its parent's, found by
 * walking up and filled in on the way back. A call site's frames are the
 * stack of its callsites.stack_id (the code at it and the functions
 * inlined there); a run.db from before that column names only the
 * innermost one.
 */
#include "config.h"
#include "src/derived/program-frames.h"
#include "src/derived/timeline.h"
#include "src/db.h"
#include "src/error.h"
#include "src/frames.h"
#include "src/grow.h"
#include "src/sorted.h"
#include "src/symbols.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

struct pf_row {
	int64_t id, parent_id, function_id;
	size_t program; /* index + 1 of the row of its program frame; 0: none */
	uint8_t own;    /* its function is the program's */
	uint8_t done;   /* program is known (1), being looked for (2) */
};

struct pf_callsite {
	int64_t pid, addr, function_id, stack_id;
};

struct program_frames {
	struct pf_row *rows; /* by id */
	size_t nr_rows, cap_rows;
	struct pf_callsite *callsites; /* by (pid, addr) */
	size_t nr_callsites, cap_callsites;
};

static const struct pf_row *row_of(const struct program_frames *pf, int64_t id)
{
	size_t i = SORTED_FIRST(pf->rows, pf->nr_rows, id, id, false);
	return i < pf->nr_rows && pf->rows[i].id == id ? &pf->rows[i] : NULL;
}

/* Row @i's program frame: walk up to a row that is the program's or whose
 * frame is known, then give every row on the way that answer. A parent
 * that is not a row, or a loop, ends the walk with none. */
static void resolve(struct program_frames *pf, size_t i)
{
	size_t at = i, found = 0;
	while (at < pf->nr_rows && !pf->rows[at].done) {
		struct pf_row *r = &pf->rows[at];
		if (r->own) {
			found = at + 1;
			break;
		}
		r->done = 2;
		const struct pf_row *up = r->parent_id ? row_of(pf, r->parent_id) : NULL;
		at = up ? (size_t)(up - pf->rows) : pf->nr_rows;
	}
	if (at < pf->nr_rows && pf->rows[at].done == 1)
		found = pf->rows[at].program;
	for (at = i; at < pf->nr_rows && pf->rows[at].done != 1;) {
		struct pf_row *r = &pf->rows[at];
		r->program = found;
		r->done = 1;
		const struct pf_row *up = r->own || !r->parent_id ? NULL : row_of(pf, r->parent_id);
		at = up ? (size_t)(up - pf->rows) : pf->nr_rows;
	}
}

static int read_stacks(sqlite3 *db, struct program_frames *pf)
{
	sqlite3_stmt *st;
	int rc = 0, step;
	if (sqlite3_prepare_v2(db,
			       "SELECT s.id, s.parent_id, s.function_id, f.module, f.file FROM stacks s "
			       "LEFT JOIN functions f ON f.id = s.function_id ORDER BY s.id",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		struct pf_row *more = grow_array(pf->rows, &pf->cap_rows, pf->nr_rows, sizeof(*more), 256);
		if (!more) {
			rc = -ENOMEM;
			break;
		}
		pf->rows = more;
		pf->rows[pf->nr_rows++] = (struct pf_row){
			.id = sqlite3_column_int64(st, 0),
			.parent_id = sqlite3_column_int64(st, 1),
			.function_id = sqlite3_column_int64(st, 2),
			.own = sqlite3_column_type(st, 2) != SQLITE_NULL &&
			       !frame_is_system((const char *)sqlite3_column_text(st, 3),
						(const char *)sqlite3_column_text(st, 4)),
		};
	}
	if (!rc && step != SQLITE_DONE)
		rc = -EIO;
	sqlite3_finalize(st);
	for (size_t i = 0; !rc && i < pf->nr_rows; i++)
		if (!pf->rows[i].done)
			resolve(pf, i);
	return rc;
}

static int read_callsites(sqlite3 *db, struct program_frames *pf)
{
	sqlite3_stmt *st;
	int rc = 0, step;
	const char *sql = db_has_column(db, "callsites", "stack_id")
				  ? "SELECT pid, addr, function_id, stack_id FROM callsites ORDER BY pid, addr"
				  : "SELECT pid, addr, function_id, NULL FROM callsites ORDER BY pid, addr";
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		struct pf_callsite *more =
			grow_array(pf->callsites, &pf->cap_callsites, pf->nr_callsites, sizeof(*more), 64);
		if (!more) {
			rc = -ENOMEM;
			break;
		}
		pf->callsites = more;
		pf->callsites[pf->nr_callsites++] = (struct pf_callsite){
			sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2),
			sqlite3_column_int64(st, 3),
		};
	}
	if (!rc && step != SQLITE_DONE)
		rc = -EIO;
	sqlite3_finalize(st);
	return rc;
}

int program_frames_load(sqlite3 *db, struct program_frames **out)
{
	struct program_frames *pf = calloc(1, sizeof(*pf));
	int rc = pf ? read_stacks(db, pf) : -ENOMEM;
	if (!rc)
		rc = read_callsites(db, pf);
	if (rc) {
		program_frames_free(pf);
		pf = NULL;
	}
	*out = pf;
	return rc;
}

/* The row of the program's frame at or above row @stack_id, or NULL. */
static const struct pf_row *program_row(const struct program_frames *pf, int64_t stack_id)
{
	const struct pf_row *r = stack_id ? row_of(pf, stack_id) : NULL;
	return r && r->program ? &pf->rows[r->program - 1] : NULL;
}

int64_t program_frames_stack(const struct program_frames *pf, int64_t stack_id)
{
	const struct pf_row *r = pf ? program_row(pf, stack_id) : NULL;
	return r ? r->function_id : 0;
}

int64_t program_frames_leaf(const struct program_frames *pf, int64_t stack_id)
{
	const struct pf_row *r = pf && stack_id ? row_of(pf, stack_id) : NULL;
	return r ? r->function_id : 0;
}

static const struct pf_callsite *callsite_of(const struct program_frames *pf, int64_t pid, int64_t addr)
{
	size_t i = SORTED_FIRST2(pf->callsites, pf->nr_callsites, pid, addr, pid, addr, false);
	return i < pf->nr_callsites && pf->callsites[i].pid == pid && pf->callsites[i].addr == addr
		       ? &pf->callsites[i]
		       : NULL;
}

/* The row a call site is named by: its program frame's; when none of its
 * frames is the program's, the function that holds the call (the last row
 * of its frames: the library's function the program called, as
 * std::unique_lock<std::mutex>::unlock, not __gthread_mutex_unlock inlined
 * into it); NULL in a run.db from before callsites.stack_id. */
static const struct pf_row *callsite_row(const struct program_frames *pf, const struct pf_callsite *c)
{
	const struct pf_row *r = program_row(pf, c->stack_id);
	if (r)
		return r;
	r = c->stack_id ? row_of(pf, c->stack_id) : NULL;
	for (int depth = 0; r && r->parent_id && depth < SYMBOLS_MAX_FRAMES; depth++) {
		const struct pf_row *up = row_of(pf, r->parent_id);
		if (!up)
			break;
		r = up;
	}
	return r;
}

int64_t program_frames_callsite(const struct program_frames *pf, int64_t pid, int64_t addr)
{
	const struct pf_callsite *c = pf ? callsite_of(pf, pid, addr) : NULL;
	const struct pf_row *r = c ? callsite_row(pf, c) : NULL;
	return r ? r->function_id : c ? c->function_id : 0;
}

int64_t program_frames_op(const struct program_frames *pf, int64_t pid, int64_t callsite, int64_t stack_id)
{
	const struct pf_row *r = pf ? program_row(pf, stack_id) : NULL;
	const struct pf_callsite *c = r || !pf ? NULL : callsite_of(pf, pid, callsite);
	if (c)
		r = callsite_row(pf, c);
	return r ? r->id : 0;
}

void program_frames_free(struct program_frames *pf)
{
	if (!pf)
		return;
	free(pf->rows);
	free(pf->callsites);
	free(pf);
}

/* Each row's program frame with where in it that row is (stacks.file,
 * line: NULL in a run.db from before them). */
int analysis_program_frames(sqlite3 *db, const struct mtx_timeline *tl, char **err)
{
	const struct program_frames *pf = tl->frames;
	bool lines = db_has_column(db, "stacks", "line");
	sqlite3_stmt *stack = NULL, *site = NULL;
	int rc = 0;

	if (!pf)
		return 0;
	if (sqlite3_prepare_v2(db,
			       lines ? "INSERT INTO stack_frames (stack_id, function_id, file, line) "
				       "SELECT ?1, ?2, s.file, s.line FROM stacks s WHERE s.id = ?3"
				     : "INSERT INTO stack_frames (stack_id, function_id) VALUES (?1, ?2)",
			       -1, &stack, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db,
			       lines ? "INSERT INTO callsite_frames (pid, addr, function_id, file, line) "
				       "SELECT ?1, ?2, ?3, s.file, s.line FROM (SELECT 1) LEFT JOIN stacks s ON s.id = ?4"
				     : "INSERT INTO callsite_frames (pid, addr, function_id) VALUES (?1, ?2, ?3)",
			       -1, &site, NULL) != SQLITE_OK)
		rc = -EIO;
	for (size_t i = 0; !rc && i < pf->nr_rows; i++) {
		const struct pf_row *r = &pf->rows[i], *p = program_row(pf, r->id);
		if (!p)
			continue;
		sqlite3_reset(stack);
		sqlite3_bind_int64(stack, 1, r->id);
		sqlite3_bind_int64(stack, 2, p->function_id);
		if (lines)
			sqlite3_bind_int64(stack, 3, p->id);
		if (sqlite3_step(stack) != SQLITE_DONE)
			rc = -EIO;
	}
	for (size_t i = 0; !rc && i < pf->nr_callsites; i++) {
		const struct pf_callsite *c = &pf->callsites[i];
		const struct pf_row *p = callsite_row(pf, c);
		sqlite3_reset(site);
		sqlite3_bind_int64(site, 1, c->pid);
		sqlite3_bind_int64(site, 2, c->addr);
		sqlite3_bind_int64(site, 3, p ? p->function_id : c->function_id);
		if (lines)
			db_bind_int_or_null(site, 4, p ? p->id : 0, p != NULL);
		if (sqlite3_step(site) != SQLITE_DONE)
			rc = -EIO;
	}
	sqlite3_finalize(stack);
	sqlite3_finalize(site);
	if (rc)
		error_set(err, "program frames: %s", sqlite3_errmsg(db));
	return rc;
}
