/* collector/sync/summary.c - see summary.h. */
#include "config.h"
#include "collector/sync/summary.h"
#include "collector/sync/resolve.h"
#include "collector/preload/shm.h"
#include "src/db.h"
#include "src/derived/timeline.h"
#include "src/error.h"
#include "src/keyhash.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool sync_op_summarizable(const struct writer_sync_op_row *row, bool lifetime_op)
{
	/* the capture keeps an arg in [0, INT32_MAX] (0 when NULL) */
	return !lifetime_op && !sync_result_unfinished(row->result) &&
	       !(row->cost_measured && (row->overhead_ns > SYNC_SLOW_WRAPPER_NS || row->injected_ns)) &&
	       row->arg >= 0 && row->arg <= INT32_MAX;
}

static int sql_fail(sqlite3 *db, const char *what, char **err)
{
	error_set(err, "adding up the sync ops (%s): %s", what, sqlite3_errmsg(db));
	return sqlite3_errcode(db) == SQLITE_FULL ? -ENOSPC : -EIO;
}

/* Where an op falls in its object's order: by start, then id. */
struct place {
	int64_t start_ns, id;
};

static const struct place NOWHERE = { INT64_MAX, INT64_MAX };

static bool before(struct place a, struct place b)
{
	return a.start_ns < b.start_ns || (a.start_ns == b.start_ns && a.id < b.id);
}

/* The summarized op of id @id in @c, or NULL (a row). */
static const struct tl_op *summarized(struct tl_capture *c, int64_t id, int64_t *tid, const char **name)
{
	const struct tl_op *o = timeline_capture_op_row(c, id, tid, name);
	return o && (o->flags & TL_SUMMARIZED) ? o : NULL;
}

/* ---- rows made of summarized ops ---------------------------------------- */

#define INSERT_OP                                                                                       \
	"INSERT INTO sync_ops(id, tid, object_id, op, start_ns, end_ns, blocked, wait_ns, result, arg, " \
	"callsite, holder_tid, hold_ns, stack_id, overhead_ns, injected_ns) "                            \
	"VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"

/* Write summarized op @o (of thread @tid, op @name) as the row it would
 * have been, with what the replay gave it, and say so to @c. */
static int make_row(sqlite3_stmt *st, struct tl_capture *c, const struct tl_op *o, int64_t tid, const char *name)
{
	const uint16_t f = o->flags;
	int64_t id = o->id;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, tid);
	sqlite3_bind_int64(st, 3, o->object_id);
	sqlite3_bind_text(st, 4, name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, o->start_ns);
	sqlite3_bind_int64(st, 6, o->end_ns);
	sqlite3_bind_int64(st, 7, (f & TL_BLOCKED) != 0);
	sqlite3_bind_int64(st, 8, o->wait_ns);
	db_bind_int_or_null(st, 9, o->result, f & TL_HAS_RESULT);
	sqlite3_bind_int64(st, 10, o->arg);
	db_bind_int_or_null(st, 11, o->callsite, f & TL_HAS_CALLSITE);
	db_bind_int_or_null(st, 12, o->holder_tid, f & TL_HAS_HOLDER);
	db_bind_int_or_null(st, 13, o->hold_ns, o->hold_ns != 0);
	db_bind_int_or_null(st, 14, o->stack_id, o->stack_id != 0);
	db_bind_int_or_null(st, 15, o->overhead_ns, f & TL_COST_MEASURED);
	db_bind_int_or_null(st, 16, o->injected_ns, f & TL_COST_MEASURED);
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return -EIO;
	timeline_capture_amend(c, TL_AMEND_ROW, id, 0); /* clears o's TL_SUMMARIZED */
	return 0;
}

/* ---- before the lifetimes are split --------------------------------------- */

/* What a split of one object could move: from its first lifetime op that
 * is not its first op on (cut_from: compared by start time, which moves
 * no fewer than the split's own rule), and its first op. */
struct lifetime_key {
	int64_t id;
	struct place first_row, first_summarized, cut_from;
};

static int key_cmp(const void *a, const void *b)
{
	const struct lifetime_key *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

static struct lifetime_key *key_of(struct lifetime_key *keys, size_t n, int64_t id)
{
	const struct lifetime_key k = { .id = id };
	return n ? bsearch(&k, keys, n, sizeof(*keys), key_cmp) : NULL;
}

/* Each key's first row and its lifetime ops' cut_from (given its first op). */
static int read_keys(sqlite3 *db, struct lifetime_key *keys, size_t n, char **err)
{
	sqlite3_stmt *first = NULL, *lifetime = NULL;
	int rc = 0;
	if (sqlite3_prepare_v2(db, "SELECT start_ns, id FROM sync_ops WHERE object_id = ? ORDER BY start_ns, id LIMIT 1",
			       -1, &first, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT start_ns, id FROM sync_ops INDEXED BY sync_ops_lifetime WHERE object_id = ? AND "
			       LIFETIME_OPS " ORDER BY start_ns, id", -1, &lifetime, NULL) != SQLITE_OK)
		rc = sql_fail(db, "lifetimes", err);
	for (size_t i = 0; i < n && !rc; i++) {
		struct lifetime_key *k = &keys[i];
		struct place first_op;
		sqlite3_bind_int64(first, 1, k->id);
		if (sqlite3_step(first) == SQLITE_ROW)
			k->first_row = (struct place){ sqlite3_column_int64(first, 0), sqlite3_column_int64(first, 1) };
		sqlite3_reset(first);
		first_op = before(k->first_summarized, k->first_row) ? k->first_summarized : k->first_row;
		sqlite3_bind_int64(lifetime, 1, k->id);
		while (sqlite3_step(lifetime) == SQLITE_ROW) {
			const struct place at = { sqlite3_column_int64(lifetime, 0), sqlite3_column_int64(lifetime, 1) };
			if (at.id != first_op.id && before(at, k->cut_from))
				k->cut_from = at;
		}
		sqlite3_reset(lifetime);
	}
	sqlite3_finalize(first);
	sqlite3_finalize(lifetime);
	return rc;
}

static bool is_cond_wait(const char *name)
{
	return name && (!strcmp(name, "wait") || !strcmp(name, "timedwait"));
}

int sync_summary_lifetimes(sqlite3 *db, struct tl_capture *capture, const int64_t *ids, size_t n, char **err)
{
	const int64_t nr_ops = (int64_t)timeline_capture_nr_ops(capture);
	struct lifetime_key *keys;
	sqlite3_stmt *insert = NULL;
	int rc = 0;
	if (!n || !timeline_capture_nr_summarized(capture))
		return 0;
	if (!(keys = calloc(n, sizeof(*keys))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		keys[i] = (struct lifetime_key){ ids[i], NOWHERE, NOWHERE, NOWHERE };
	qsort(keys, n, sizeof(*keys), key_cmp);
	for (int64_t id = 1; id <= nr_ops; id++) {
		int64_t tid;
		const char *name;
		const struct tl_op *o = summarized(capture, id, &tid, &name);
		struct lifetime_key *k = o ? key_of(keys, n, o->object_id) : NULL;
		const struct place at = { o ? o->start_ns : 0, id };
		if (k && before(at, k->first_summarized))
			k->first_summarized = at;
	}
	rc = read_keys(db, keys, n, err);
	if (!rc && sqlite3_prepare_v2(db, INSERT_OP, -1, &insert, NULL) != SQLITE_OK)
		rc = sql_fail(db, "sync_ops", err);
	for (int64_t id = 1; id <= nr_ops && !rc; id++) {
		int64_t tid;
		const char *name;
		const struct tl_op *o = summarized(capture, id, &tid, &name);
		const struct lifetime_key *k = o ? key_of(keys, n, o->object_id) : NULL;
		const struct lifetime_key *mutex = o && is_cond_wait(name) ? key_of(keys, n, o->arg) : NULL;
		const bool first = k && k->first_summarized.id == id && before(k->first_summarized, k->first_row);
		bool row = first || (k && k->cut_from.start_ns <= o->start_ns) ||
			   (mutex && mutex->cut_from.start_ns <= o->start_ns);
		if (row && make_row(insert, capture, o, tid, name))
			rc = sql_fail(db, "sync_ops", err);
	}
	sqlite3_finalize(insert);
	free(keys);
	return rc;
}

/* ---- once the replay is done ---------------------------------------------- */

/* The summarized ops of one thread, object, op and call site, added up. */
struct op_sum {
	int64_t tid, object_id, callsite, stack_id;
	const char *op; /* the capture's string */
	bool has_callsite, cost_measured;
	int64_t calls, errors, hold_ns, max_hold_ns, max_ns, total_ns, overhead_ns, injected_ns, first_ns, last_ns;
};

struct op_sums {
	struct op_sum *v;
	size_t len, cap;
	struct keyhash keys;  /* (tid and op, object, site) -> v */
	struct keyhash sites; /* (call site or -1, stack_id) -> site */
	size_t nr_sites;
};

/* The sum of @o's thread (@tid), object, op (@name) and call site. */
static struct op_sum *sum_of(struct op_sums *s, const struct tl_op *o, int64_t tid, const char *name)
{
	const int64_t callsite = (o->flags & TL_HAS_CALLSITE) ? o->callsite : -1;
	struct keyhash_slot *site = keyhash_slot(&s->sites, callsite, o->stack_id, 0);
	if (!site)
		return NULL;
	if (!site->v) {
		site->v = ++s->nr_sites;
		s->sites.len++;
	}
	const struct op_sum zero = { .tid = tid, .object_id = o->object_id, .callsite = o->callsite,
				     .stack_id = o->stack_id, .op = name, .has_callsite = callsite >= 0,
				     .cost_measured = true, .first_ns = INT64_MAX, .last_ns = INT64_MIN };
	/* a tid fits 32 bits, an interned op name 16 */
	ptrdiff_t i = keyhash_row(&s->keys, tid << 16 | o->op, o->object_id, (int64_t)site->v, &s->v, &s->len,
				  &s->cap, sizeof(zero), &zero);
	return i < 0 ? NULL : &s->v[i];
}

static void add_op(struct op_sum *s, const struct tl_op *o)
{
	const int64_t ns = o->end_ns - o->start_ns;
	s->calls++;
	s->errors += (o->flags & TL_HAS_RESULT) && o->result != 0;
	s->hold_ns += o->hold_ns;
	if (o->hold_ns > s->max_hold_ns)
		s->max_hold_ns = o->hold_ns;
	if (ns > s->max_ns)
		s->max_ns = ns;
	s->total_ns += ns;
	s->cost_measured &= (o->flags & TL_COST_MEASURED) != 0;
	s->overhead_ns += o->overhead_ns;
	s->injected_ns += o->injected_ns;
	if (o->start_ns < s->first_ns)
		s->first_ns = o->start_ns;
	if (o->end_ns > s->last_ns)
		s->last_ns = o->end_ns;
}

static int write_sums(sqlite3 *db, const struct op_sums *s, char **err)
{
	sqlite3_stmt *st;
	int rc = 0;
	if (sqlite3_prepare_v2(db,
			       "INSERT INTO summarized_sync_ops(tid, object_id, op, callsite, stack_id, calls, errors, "
			       "hold_ns, max_hold_ns, max_ns, total_ns, overhead_ns, injected_ns, first_ns, last_ns) "
			       "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK)
		return sql_fail(db, "summarized_sync_ops", err);
	for (size_t i = 0; i < s->len && !rc; i++) {
		const struct op_sum *x = &s->v[i];
		sqlite3_bind_int64(st, 1, x->tid);
		sqlite3_bind_int64(st, 2, x->object_id);
		sqlite3_bind_text(st, 3, x->op, -1, SQLITE_STATIC);
		db_bind_int_or_null(st, 4, x->callsite, x->has_callsite);
		db_bind_int_or_null(st, 5, x->stack_id, x->stack_id != 0);
		sqlite3_bind_int64(st, 6, x->calls);
		sqlite3_bind_int64(st, 7, x->errors);
		sqlite3_bind_int64(st, 8, x->hold_ns);
		sqlite3_bind_int64(st, 9, x->max_hold_ns);
		sqlite3_bind_int64(st, 10, x->max_ns);
		sqlite3_bind_int64(st, 11, x->total_ns);
		db_bind_int_or_null(st, 12, x->overhead_ns, x->cost_measured);
		db_bind_int_or_null(st, 13, x->injected_ns, x->cost_measured);
		sqlite3_bind_int64(st, 14, x->first_ns);
		sqlite3_bind_int64(st, 15, x->last_ns);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = sql_fail(db, "summarized_sync_ops", err);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc;
}

/* An object whose first op was summarized was created then (not known
 * when attached: it existed before, as an object first seen by a row). */
static int move_created(sqlite3 *db, char **err)
{
	if (sqlite3_exec(db,
			 "UPDATE sync_objects SET created_ns = IIF(EXISTS (SELECT 1 FROM meta WHERE key = 'attach_ns'), "
			 "NULL, f.first_ns) FROM (SELECT object_id, MIN(first_ns) AS first_ns FROM summarized_sync_ops "
			 "GROUP BY object_id) f WHERE f.object_id = sync_objects.id AND (sync_objects.created_ns IS NULL "
			 "OR f.first_ns < sync_objects.created_ns)",
			 NULL, NULL, NULL) != SQLITE_OK)
		return sql_fail(db, "created_ns", err);
	return 0;
}

int sync_summary_finish(sqlite3 *db, struct tl_capture *capture, bool all_rows, struct sync_summary_stats *st,
			char **err)
{
	const int64_t nr_ops = (int64_t)timeline_capture_nr_ops(capture);
	struct op_sums sums = { 0 };
	sqlite3_stmt *insert = NULL;
	int rc = 0;
	memset(st, 0, sizeof(*st));
	if (!timeline_capture_nr_summarized(capture))
		return 0;
	if (sqlite3_prepare_v2(db, INSERT_OP, -1, &insert, NULL) != SQLITE_OK)
		return sql_fail(db, "sync_ops", err);
	for (int64_t id = 1; id <= nr_ops && !rc; id++) {
		int64_t tid;
		const char *name;
		const struct tl_op *o = summarized(capture, id, &tid, &name);
		struct op_sum *sum;
		if (!o)
			continue;
		if (all_rows || (o->flags & (TL_BLOCKED | TL_HAS_HOLDER))) {
			if (make_row(insert, capture, o, tid, name))
				rc = sql_fail(db, "sync_ops", err);
			st->rows++;
		} else if ((sum = sum_of(&sums, o, tid, name))) {
			add_op(sum, o);
			st->summarized++;
		} else {
			rc = -ENOMEM;
		}
	}
	sqlite3_finalize(insert);
	if (!rc)
		rc = write_sums(db, &sums, err);
	if (!rc)
		rc = move_created(db, err);
	free(sums.v);
	keyhash_free(&sums.keys);
	keyhash_free(&sums.sites);
	return rc;
}
