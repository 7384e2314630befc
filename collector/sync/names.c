/* collector/sync/names.c - see names.h. */
#include "config.h"
#include "collector/sync/names.h"
#include "collector/profile.h"
#include "src/derived/program-frames.h"
#include "src/error.h"
#include "src/grow.h"
#include "src/keyhash.h"
#include "src/reports.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each object with its first op (by time), that op's call site and stack. */
static const char objects_sql[] =
	"SELECT o.id, o.kind, o.addr, o.pid, COALESCE(o.created_ns, 0), f.op, f.callsite, f.arg, f.stack_id "
	"FROM sync_objects o "
	"LEFT JOIN sync_ops f ON f.id = (SELECT h.id FROM sync_ops h WHERE h.object_id = o.id "
	"ORDER BY h.start_ns, h.id LIMIT 1)";

/* A stacks row's function as the reports label it, the source line, and
 * the address. */
static const char frame_sql[] = "SELECT " FUNCTION_LABEL("f") ", s.file, s.line, s.addr FROM stacks s "
				"JOIN functions f ON f.id = s.function_id WHERE s.id = ?";

struct named {
	int64_t id;
	char *name;
};

/* Where in the program an op was made: its frame as the reports show it
 * (program_frames_op), "at bank.cc:41 in Bank::Bank()", or "in
 * Bank::Bank()" without line information. Computed once per call site
 * and stack (a constructor may make thousands of objects). */
struct sites {
	struct program_frames *frames;
	sqlite3_stmt *frame; /* frame_sql */
	struct keyhash keys; /* (pid, callsite, stack_id) -> index + 1 */
	char **where;
	size_t len, cap;
};

static char *frame_where(struct sites *s, struct mtx_profile *p, int32_t pid, uint64_t ts_ns, int64_t row)
{
	const char *function, *file;
	char *where = NULL, *place;
	int n = -1;

	sqlite3_reset(s->frame);
	sqlite3_bind_int64(s->frame, 1, row);
	if (sqlite3_step(s->frame) != SQLITE_ROW || !(function = (const char *)sqlite3_column_text(s->frame, 0)))
		return NULL;
	file = (const char *)sqlite3_column_text(s->frame, 1);
	if (file && sqlite3_column_int(s->frame, 2) > 0)
		n = asprintf(&where, "at %s:%d in %s", strrchr(file, '/') ? strrchr(file, '/') + 1 : file,
			     sqlite3_column_int(s->frame, 2), function);
	else if (!strncmp(function, "[unknown", 8) &&
		 (place = profile_data_name(p, pid, ts_ns, (uint64_t)sqlite3_column_int64(s->frame, 3)))) {
		/* no symbol (a stripped file): where in the file, for addr2line */
		n = asprintf(&where, "at %s", place);
		free(place);
	} else {
		n = asprintf(&where, "in %s", function);
	}
	return n < 0 ? NULL : where;
}

static const char *site_where(struct sites *s, struct mtx_profile *p, int32_t pid, uint64_t ts_ns,
			      int64_t callsite, int64_t stack_id)
{
	struct keyhash_slot *slot = keyhash_slot(&s->keys, pid, callsite, stack_id);
	int64_t row = program_frames_op(s->frames, pid, callsite, stack_id);
	char *where, **more;

	if (!slot || !row)
		return NULL;
	if (slot->v)
		return s->where[slot->v - 1];
	if (!(where = frame_where(s, p, pid, ts_ns, row)))
		return NULL;
	if (!(more = grow_array(s->where, &s->cap, s->len, sizeof(*more), 64))) {
		free(where);
		return NULL;
	}
	s->where = more;
	s->where[s->len++] = where;
	slot->v = s->len;
	s->keys.len++;
	return where;
}

/* The name of the object of @st's current row (objects_sql), malloc'd, or
 * NULL when nothing names it. */
static char *object_name(sqlite3_stmt *st, struct mtx_profile *p, struct sites *sites)
{
	const char *kind = (const char *)sqlite3_column_text(st, 1);
	uint64_t addr = (uint64_t)sqlite3_column_int64(st, 2), ts = (uint64_t)sqlite3_column_int64(st, 4);
	int32_t pid = (int32_t)sqlite3_column_int64(st, 3);
	const char *op = (const char *)sqlite3_column_text(st, 5);
	const char *where, *abbrev;
	char *name = NULL;

	if (!kind)
		return NULL;
	if (!strcmp(kind, "signal")) /* addr is the signal's number */
		return addr < 128 && (abbrev = sigabbrev_np((int)addr)) && asprintf(&name, "SIG%s", abbrev) >= 0 ?
			       name : NULL;
	if (!strcmp(kind, "thread")) /* a create or join: arg is its tid (0: not known then) */
		return op && sqlite3_column_int64(st, 7) > 0 &&
			       asprintf(&name, "thread %lld", (long long)sqlite3_column_int64(st, 7)) >= 0 ? name : NULL;
	if ((name = profile_data_name(p, pid, ts, addr)))
		return name;
	if (!op)
		return NULL;
	where = site_where(sites, p, pid, ts, sqlite3_column_int64(st, 6), sqlite3_column_int64(st, 8));
	if (!where)
		return NULL;
	if (asprintf(&name, "%s %s", !strcmp(op, "init") ? "init" : !strcmp(op, "open") ? "opened" : "first used",
		     where) < 0)
		return NULL;
	return name;
}

static int write_names(sqlite3 *db, const struct named *v, size_t n, char **err)
{
	sqlite3_stmt *st;
	int rc = 0;
	if (sqlite3_prepare_v2(db, "UPDATE sync_objects SET name = ? WHERE id = ?", -1, &st, NULL) != SQLITE_OK) {
		error_set(err, "naming the sync objects: %s", sqlite3_errmsg(db));
		return -EIO;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		sqlite3_bind_text(st, 1, v[i].name, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, v[i].id);
		if (sqlite3_step(st) != SQLITE_DONE) {
			error_set(err, "naming the sync objects: %s", sqlite3_errmsg(db));
			rc = sqlite3_errcode(db) == SQLITE_FULL ? -ENOSPC : -EIO;
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc;
}

int sync_names_write(sqlite3 *db, struct mtx_profile *p, char **err)
{
	struct sites sites = { 0 };
	struct named *named = NULL;
	size_t len = 0, cap = 0;
	sqlite3_stmt *st;
	int rc = 0, step;

	/* The frames as the derived tables will show them; their rows are
	 * written (profile_finish). */
	if ((rc = program_frames_load(db, &sites.frames)) ||
	    sqlite3_prepare_v2(db, frame_sql, -1, &sites.frame, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, objects_sql, -1, &st, NULL) != SQLITE_OK) {
		if (rc == -ENOMEM)
			error_set(err, "naming the sync objects: out of memory");
		else
			error_set(err, "naming the sync objects: %s", sqlite3_errmsg(db));
		program_frames_free(sites.frames);
		sqlite3_finalize(sites.frame);
		return rc ? rc : -EIO;
	}
	/* Named first, written after: the scan must not see its table change. */
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		char *name = object_name(st, p, &sites);
		struct named *more;
		if (!name)
			continue;
		if (!(more = grow_array(named, &cap, len, sizeof(*more), 256))) {
			free(name);
			rc = -ENOMEM;
			break;
		}
		named = more;
		named[len++] = (struct named){ sqlite3_column_int64(st, 0), name };
	}
	if (!rc && step != SQLITE_DONE) {
		error_set(err, "naming the sync objects: %s", sqlite3_errmsg(db));
		rc = -EIO;
	}
	sqlite3_finalize(st);
	if (!rc)
		rc = write_names(db, named, len, err);
	else if (rc == -ENOMEM)
		error_set(err, "naming the sync objects: out of memory");
	for (size_t i = 0; i < len; i++)
		free(named[i].name);
	free(named);
	for (size_t i = 0; i < sites.len; i++)
		free(sites.where[i]);
	free(sites.where);
	keyhash_free(&sites.keys);
	sqlite3_finalize(sites.frame);
	program_frames_free(sites.frames);
	return rc;
}
