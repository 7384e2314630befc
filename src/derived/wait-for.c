/*
 * src/derived/wait-for.c - for whom each wait on a sync object waited (wait_for).
 *
 * A thread blocked on a lock (a semaphore used as one too) waits for the
 * lock's holder (sync_ops.holder_tid, found when the run was finalized, only
 * for locks); one blocked on a semaphore, condvar, barrier or join waits for
 * whoever wakes it (state_causes.waker_tid). For
 * that other thread we add up what it did during the wait, from its own
 * states, and which object it was itself blocked on longest: the next link
 * of the wait-for chain that `mtx report waits` follows. The other thread's
 * states and ops come from the timeline (src/derived/timeline.h), not from queries.
 *
 * The state_causes pass (src/derived/state-causes.c) hands each sync wait here as
 * it describes it, so wait_for is written alongside state_causes instead of
 * reading it back. Per (thread, object, thread waited for, relation), the
 * waits are added up into wait_for_totals for the thread views and the
 * waits report. The rows are handed to the insert once all are made: each
 * carries its wait-for chain, which follows other threads' waits
 * (src/derived/wait-chains.c, also their sums in wait_chain_totals).
 */
#include "config.h"
#include "src/derived/analysis.h"
#include "src/db.h"
#include "src/grow.h"
#include "src/row-queue.h"
#include "src/keyhash.h"
#include "src/sorted.h"
#include "src/derived/timeline.h"
#include "src/thread-states.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The waits of one wait_for_buckets row: those that began in its bucket. */
struct wait_for_total {
	int64_t tid, object_id, waited_for_tid, other_callsite, bucket_ns, waits, wait_ns;
	int relation;
	bool has_object, has_callsite;
};

static const char *const relations[] = { "unknown", "holder", "waker" };

/* One wait_for row, as wait_for_add makes it. */
struct wait_for_row {
	int64_t tid, start_ns, end_ns, object_id, op_id, other, did[3], other_object, other_callsite;
	int relation;
	bool has_object, has_op, has_did, has_callsite;
};

const char wait_for_insert[] =
	"INSERT INTO wait_for (tid, start_ns, end_ns, object_id, op_id, waited_for_tid, relation, "
	"other_running_ns, other_runnable_ns, other_blocked_ns, other_object_id, other_callsite, chain, chain_ns) "
	"VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)";

/* Hand @w over as a row of @table of @queue, with its wait-for chain
 * (@chain lives until the queue is finished): 0, or -ECANCELED once the
 * inserting failed. */
static int put_wait_for(struct row_queue *queue, int table, const struct wait_for_row *w, const char *chain,
			int64_t chain_ns)
{
	struct queued_row *r = row_queue_row(queue, table);
	if (!r)
		return -ECANCELED;
	row_put_int(r, w->tid);
	row_put_int(r, w->start_ns);
	row_put_int(r, w->end_ns);
	row_put_int_or_null(r, w->object_id, w->has_object);
	row_put_int_or_null(r, w->op_id, w->has_op);
	row_put_int_or_null(r, w->other, w->other >= 0);
	row_put_text(r, relations[w->relation]);
	for (int i = 0; i < 3; i++)
		row_put_int_or_null(r, w->did[i], w->has_did);
	row_put_int_or_null(r, w->other_object, w->other_object >= 0);
	row_put_int_or_null(r, w->other_callsite, w->has_callsite);
	row_put_text(r, chain);
	row_put_int(r, chain_ns);
	row_queue_put(queue, r);
	return 0;
}

struct wait_for_pass {
	const struct mtx_timeline *tl;
	struct row_queue *queue;
	int table; /* wait_for's in the queue */
	uint16_t running, runnable;
	uint16_t signal_kind, cond_kind, raise; /* interned "signal", "cond" (object kinds), "raise" (an op) */
	int64_t **max_end; /* per thread of tl, made when first needed: the
			    * latest end_ns of its ops up to each one */
	/* Per thread of tl, where the searches in its states and ops ended
	 * for the waits of thread near_tid, which come in time order. */
	struct near {
		size_t states, ops_begun, ops_at;
	} *near;
	int64_t near_tid;
	struct keyhash keys; /* (tid, object, waited for + relation) -> totals */
	struct wait_for_total *totals;
	size_t nr_totals, cap_totals;
	/* The rows, kept until their chains can be followed (all threads'
	 * waits are needed). */
	struct wait_for_row *rows;
	size_t nr_rows, cap_rows;
	struct wait_chains *chains;
};
/* What @tid did within [s, e): time running, runnable and waiting, and the
 * object it was blocked on longest (-1 if none). Its states tile its
 * lifetime, so walking back from e stops at the first that ends by s. */
static void activity(const struct wait_for_pass *p, const struct tl_thread *t, int64_t s, int64_t e, int64_t out[3],
		     int64_t *object_id)
{
	int64_t best = 0;
	*object_id = -1;
	out[0] = out[1] = out[2] = 0;
	struct near *near = t ? &p->near[t - p->tl->threads] : NULL;
	for (size_t k = t ? SORTED_FIRST_NEAR(t->states, t->nr_states, start_ns, e, false, &near->states) : 0; k-- > 0;) {
		const struct tl_state *st = &t->states[k];
		if (st->end_ns <= s)
			break;
		int64_t len = (st->end_ns < e ? st->end_ns : e) - (st->start_ns > s ? st->start_ns : s);
		if (st->state == p->running)
			out[0] += len;
		else if (st->state == p->runnable)
			out[1] += len;
		else {
			out[2] += len;
			if ((st->flags & TL_HAS_OBJECT) && len > best) {
				best = len;
				*object_id = st->object_id;
			}
		}
	}
}

/* How many of @t's ops began by @ns (0 without @t). */
static size_t ops_begun_by(const struct wait_for_pass *p, const struct tl_thread *t, int64_t ns)
{
	return t ? SORTED_FIRST_NEAR(t->ops, t->nr_ops, start_ns, ns, true, &p->near[t - p->tl->threads].ops_begun) : 0;
}

/* @t's last op on @object_id begun by @ns, or NULL. */
static const struct tl_op *last_op_on(const struct wait_for_pass *p, const struct tl_thread *t, int64_t object_id,
				     int64_t ns)
{
	for (size_t k = ops_begun_by(p, t, ns); k-- > 0;)
		if (t->ops[k].object_id == object_id)
			return &t->ops[k];
	return NULL;
}

/* @t's last op begun by @ns, when it is on @object_id (if @has_object)
 * or on @mutex_id (if not 0), or sends a signal to another thread (a
 * kill, tgkill, sigqueue or pthread_kill: an op on a signal object, not a
 * raise); else NULL. */
static const struct tl_op *last_op_if_waking(const struct wait_for_pass *p, const struct tl_thread *t, int64_t ns,
					     bool has_object, int64_t object_id, int64_t mutex_id)
{
	size_t k = ops_begun_by(p, t, ns);
	const struct tl_op *op = k ? &t->ops[k - 1] : NULL;
	if (!op || (has_object && op->object_id == object_id) || (mutex_id && op->object_id == mutex_id))
		return op;
	const struct tl_object *o = timeline_object(p->tl, op->object_id);
	bool signal = o && o->kind == p->signal_kind && o->kind != TL_NONE && op->op != p->raise;
	return signal ? op : NULL;
}

/* @t's op under way at @ns (the latest begun by then that had not ended
 * before it), or NULL; -ENOMEM in *@rc when memory ran out. */
static const struct tl_op *op_at(struct wait_for_pass *p, const struct tl_thread *t, int64_t ns, int *rc)
{
	if (!t)
		return NULL;
	size_t i = (size_t)(t - p->tl->threads);
	int64_t *max_end = p->max_end[i];
	if (!max_end) {
		if (!(max_end = p->max_end[i] = malloc(sizeof(*max_end) * (t->nr_ops ? t->nr_ops : 1)))) {
			*rc = -ENOMEM;
			return NULL;
		}
		for (size_t k = 0; k < t->nr_ops; k++)
			max_end[k] = k && max_end[k - 1] > t->ops[k].end_ns ? max_end[k - 1] : t->ops[k].end_ns;
	}
	size_t *near = &p->near[i].ops_at;
	for (size_t k = SORTED_FIRST_NEAR(t->ops, t->nr_ops, start_ns, ns, true, near); k-- > 0 && max_end[k] >= ns;)
		if (t->ops[k].end_ns >= ns)
			return &t->ops[k];
	return NULL;
}

/* Count the wait @w in wait_for_buckets. The hash takes three keys: the
 * two tids share one (they fit 32 bits), the object and the bucket's
 * number another (16 bits: a run spans TL_BUCKETS), the call site and
 * relation the third (a user-space address fits 47). */
static int count_wait(struct wait_for_pass *p, const struct wait_for_row *w)
{
	int64_t bucket = timeline_bucket_of(&p->tl->buckets, w->start_ns);
	const struct wait_for_total init = {
		.tid = w->tid, .object_id = w->object_id, .waited_for_tid = w->other, .relation = w->relation,
		.other_callsite = w->other_callsite, .bucket_ns = timeline_bucket_ns(&p->tl->buckets, bucket),
		.has_object = w->has_object, .has_callsite = w->has_callsite,
	};
	int64_t object_bucket = (w->has_object ? w->object_id + 1 : 0) * 65536 + bucket;
	ptrdiff_t i = keyhash_row(&p->keys, (w->tid << 32) | (uint32_t)w->other, object_bucket,
				  (w->has_callsite ? w->other_callsite : -1) * 4 + w->relation, &p->totals,
				  &p->nr_totals, &p->cap_totals, sizeof(*p->totals), &init);
	if (i < 0)
		return (int)i;
	p->totals[i].waits++;
	p->totals[i].wait_ns += w->end_ns - w->start_ns;
	return 0;
}

int wait_for_add(struct wait_for_pass *p, int64_t tid, int64_t s, int64_t e, bool has_object, int64_t object_id,
		 const struct tl_op *op, bool has_waker, int64_t waker_tid)
{
	struct wait_for_row row, *r = &row;
	const struct tl_object *object = has_object ? timeline_object(p->tl, object_id) : NULL;
	int relation = 0;
	const struct tl_op *other_op = NULL;
	int64_t other = -1, other_object = -1;
	int rc = 0;

	if (tid != p->near_tid) { /* another thread's waits: search from the start */
		memset(p->near, 0, sizeof(*p->near) * p->tl->nr_threads);
		p->near_tid = tid;
	}
	if (object && op && (op->flags & TL_HAS_HOLDER)) {
		relation = 1;
		other = op->holder_tid;
		/* Where the holder took the lock: its last op on it before we asked. */
		other_op = last_op_on(p, timeline_thread(p->tl, other), object_id, s);
	} else if (has_waker) {
		relation = 2;
		other = waker_tid;
		/* Where the waker woke us: its last op on the object by the wakeup,
		 * begun since we asked (a post, signal or unlock is stamped before
		 * the call that wakes, so it ends before the wakeup). Else its very
		 * last op by the wakeup, if that is on the object though stamped
		 * before we asked (an unlock whose call had not yet let the lock
		 * go), on a cond wait's mutex (signalled by another, the waiter
		 * then waited to take the mutex back from this unlocker), or a
		 * signal it sent (which interrupts a wait). Else the op it was in
		 * at the wakeup (the last to reach a barrier). */
		const struct tl_thread *waker = timeline_thread(p->tl, other);
		int64_t mutex_id = object && object->kind == p->cond_kind && op ? op->arg : 0;
		other_op = has_object ? last_op_on(p, waker, object_id, e) : NULL;
		if (other_op && other_op->start_ns < (op ? op->start_ns : s))
			other_op = NULL;
		if (!other_op)
			other_op = last_op_if_waking(p, waker, e, has_object, object_id, mutex_id);
		if (!other_op && !(other_op = op_at(p, waker, e, &rc)) && rc)
			return rc;
	}
	*r = (struct wait_for_row){
		.tid = tid, .start_ns = s, .end_ns = e, .object_id = object_id, .op_id = op ? op->id : 0,
		.other = other, .relation = relation, .has_object = has_object, .has_op = op != NULL,
	};
	if (other > 0 && other != tid) {
		activity(p, timeline_thread(p->tl, other), s, e, r->did, &other_object);
		r->has_did = true;
	}
	r->other_object = other_object;
	r->other_callsite = other_op ? other_op->callsite : 0;
	r->has_callsite = other_op && (other_op->flags & TL_HAS_CALLSITE) && other_op->callsite >= 0;
	struct wait_for_row *rows = grow_array(p->rows, &p->cap_rows, p->nr_rows, sizeof(*rows), 1024);
	if (!rows)
		return -ENOMEM;
	p->rows = rows;
	rows[p->nr_rows++] = *r;
	return count_wait(p, r);
}

int wait_for_put(struct wait_for_pass *p)
{
	struct wait_link *links = malloc(sizeof(*links) * (p->nr_rows ? p->nr_rows : 1));
	if (!links)
		return -ENOMEM;
	for (size_t i = 0; i < p->nr_rows; i++) {
		const struct wait_for_row *w = &p->rows[i];
		links[i] = (struct wait_link){ w->tid, w->start_ns, w->end_ns, w->other, w->object_id, w->has_object };
	}
	int rc = wait_chains_follow(p->chains, links, p->nr_rows);
	free(links);
	for (size_t i = 0; i < p->nr_rows && !rc; i++) {
		int64_t ns;
		const char *chain = wait_chains_of(p->chains, i, &ns);
		rc = put_wait_for(p->queue, p->table, &p->rows[i], chain, ns);
	}
	return rc;
}

int wait_for_begin(sqlite3 *db, const struct mtx_timeline *tl, struct row_queue *queue, int table,
		   struct wait_for_pass **out)
{
	struct wait_for_pass *p = calloc(1, sizeof(*p));
	int rc = 0;
	*out = p;
	if (!p)
		return -ENOMEM;
	p->tl = tl;
	p->queue = queue;
	p->table = table;
	p->running = timeline_intern_find(tl, thread_state_name(TS_RUNNING));
	p->runnable = timeline_intern_find(tl, thread_state_name(TS_RUNNABLE));
	p->signal_kind = timeline_intern_find(tl, "signal");
	p->cond_kind = timeline_intern_find(tl, "cond");
	p->raise = timeline_intern_find(tl, "raise");
	if (!(p->max_end = calloc(tl->nr_threads ? tl->nr_threads : 1, sizeof(*p->max_end))) ||
	    !(p->near = calloc(tl->nr_threads ? tl->nr_threads : 1, sizeof(*p->near))))
		return -ENOMEM;
	p->near_tid = -1;
	/* The threads' labels now: once the queue inserts, @db is its own. */
	p->chains = wait_chains_new(db, &tl->buckets, &rc);
	return rc;
}

/* wait_for_buckets from the counts, and wait_for_totals from those. */
static int write_totals(sqlite3 *db, const struct wait_for_pass *p)
{
	sqlite3_stmt *ins;
	int rc = 0;

	if (sqlite3_prepare_v2(db,
			       "INSERT INTO wait_for_buckets (tid, object_id, waited_for_tid, relation, "
			       "other_callsite, waits, wait_ns, bucket_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
			       -1, &ins, NULL) != SQLITE_OK)
		return -EIO;
	for (size_t i = 0; i < p->nr_totals && !rc; i++) {
		const struct wait_for_total *x = &p->totals[i];
		sqlite3_reset(ins);
		sqlite3_bind_int64(ins, 1, x->tid);
		db_bind_int_or_null(ins, 2, x->object_id, x->has_object);
		db_bind_int_or_null(ins, 3, x->waited_for_tid, x->waited_for_tid >= 0);
		sqlite3_bind_text(ins, 4, relations[x->relation], -1, SQLITE_STATIC);
		db_bind_int_or_null(ins, 5, x->other_callsite, x->has_callsite);
		sqlite3_bind_int64(ins, 6, x->waits);
		sqlite3_bind_int64(ins, 7, x->wait_ns);
		sqlite3_bind_int64(ins, 8, x->bucket_ns);
		rc = sqlite3_step(ins) == SQLITE_DONE ? 0 : -EIO;
	}
	sqlite3_finalize(ins);
	if (!rc)
		rc = db_exec(db, "INSERT INTO wait_for_totals (tid, object_id, waited_for_tid, relation, "
				 "other_callsite, waits, wait_ns) SELECT tid, object_id, waited_for_tid, relation, "
				 "other_callsite, SUM(waits), SUM(wait_ns) FROM wait_for_buckets "
				 "GROUP BY tid, object_id, waited_for_tid, relation, other_callsite", NULL) ? -EIO : 0;
	return rc;
}

int wait_for_end(sqlite3 *db, struct wait_for_pass *p, int rc)
{
	if (!p)
		return rc ? rc : -ENOMEM;
	if (!rc)
		rc = write_totals(db, p);
	if (!rc)
		rc = wait_chains_write(db, p->chains);
	wait_chains_free(p->chains);
	free(p->rows);
	for (size_t i = 0; p->max_end && i < p->tl->nr_threads; i++)
		free(p->max_end[i]);
	free(p->max_end);
	free(p->near);
	free(p->totals);
	keyhash_free(&p->keys);
	free(p);
	return rc;
}
