/*
 * src/derived/wait-chains.c - the wait-for chains of the waits report: each wait of
 * wait_for followed through the thread it waited for, as long as that one
 * was itself waiting, once, into the wait's row (wait_for.chain: a report
 * over a window adds them up) and their sums (wait_chain_totals: over the
 * whole run). Followed anew in SQL for every report, they took 0.85 s over
 * 4 s of a 10 M-event run, and 100-180 ms for a worker's 7 k waits every
 * time a thread's view was opened.
 *
 * A link: the waited-for thread's latest wait begun before the current end
 * (the last made among equal starts), if it ends after the current start
 * and is not a thread already on the chain; the interval is clipped to it;
 * at most 8 links. The chain's text is the threads' labels (THREAD_LABELS:
 * the name, with the tid where threads share it; the tid for a thread
 * without one), then the last thread waited for, '?' when unknown; NULL
 * when the waiting thread itself has no name.
 */
#include "config.h"
#include "src/derived/analysis.h"
#include "src/db.h"
#include "src/grow.h"
#include "src/keyhash.h"
#include "src/derived/timeline.h"
#include "src/thread-names.h"
#include "src/sorted.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINKS 8

/* The waits of one thread on one object with one chain that began in one
 * bucket (bucket_ns: its start). */
struct chain_total {
	int64_t tid, object_id, chain, bucket_ns, waits, wait_ns;
	bool has_object;
};

struct wait_chains {
	const struct tl_buckets *buckets;
	struct keyhash names;  /* tid -> index + 1 in name_text */
	char **name_text;      /* labels; NULL: no name */
	size_t nr_names, cap_names;
	struct keyhash texts;  /* (hash, probe) -> index + 1 in text */
	char **text;
	size_t nr_text, cap_text;
	struct keyhash keys;   /* (tid and bucket, object, chain) -> totals */
	struct chain_total *totals;
	size_t nr_totals, cap_totals;
	char *buf;
	size_t len, cap;
	ptrdiff_t *chain_of;   /* per link followed: its chain in text, -1: NULL */
	int64_t *ns_of;        /* and its clipped length */
};

/* Every thread's label (THREAD_LABELS), read once: a run with thousands
 * of threads has thousands of tids on its chains. */
static int read_labels(struct wait_chains *c, sqlite3 *db)
{
	sqlite3_stmt *st;
	int rc = 0, step;

	if (sqlite3_prepare_v2(db, THREAD_LABELS, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		char *none = NULL;
		ptrdiff_t i = keyhash_row(&c->names, sqlite3_column_int64(st, 0), 0, 0, &c->name_text, &c->nr_names,
					  &c->cap_names, sizeof(*c->name_text), &none);
		if (i < 0)
			rc = (int)i;
		else if (sqlite3_column_type(st, 1) != SQLITE_NULL &&
			 !(c->name_text[i] = strdup((const char *)sqlite3_column_text(st, 1))))
			rc = -ENOMEM;
	}
	if (!rc && step != SQLITE_DONE)
		rc = -EIO;
	sqlite3_finalize(st);
	return rc;
}

/* The label of @tid, or NULL (no name, or not a thread of the run). */
static const char *label_of(struct wait_chains *c, int64_t tid, int *rc)
{
	struct keyhash_slot *sl = keyhash_slot(&c->names, tid, 0, 0);
	if (!sl)
		*rc = -ENOMEM;
	return sl && sl->v ? c->name_text[sl->v - 1] : NULL;
}

static int append(struct wait_chains *c, const char *s)
{
	size_t n = strlen(s);
	char *more = grow_array(c->buf, &c->cap, c->len + n + 1, 1, 256);
	if (!more)
		return -ENOMEM;
	c->buf = more;
	memcpy(c->buf + c->len, s, n + 1);
	c->len += n;
	return 0;
}

/* The index of the text in c->buf (interned), or -ENOMEM. */
static ptrdiff_t intern_chain(struct wait_chains *c)
{
	return keyhash_text(&c->texts, &c->text, &c->nr_text, &c->cap_text, SIZE_MAX, c->buf);
}

/* The first of @n links of @tid (they are grouped by tid, ascending), and
 * how many it has: two binary searches, as a busy thread has thousands. */
static size_t links_of(const struct wait_link *links, size_t n, int64_t tid, size_t *count)
{
	size_t lo = SORTED_FIRST(links, n, tid, tid, false);
	*count = SORTED_FIRST(links, n, tid, tid, true) - lo;
	return lo;
}

/* Whether @tid is among @path[0 .. @depth]: a thread met again (waits
 * that overlap in a circle, seen where wait_for's holder or waker was
 * recorded at the request, not through the whole wait) ends the chain. */
static bool on_path(const int64_t *path, int depth, int64_t tid)
{
	for (int i = 0; i <= depth; i++)
		if (path[i] == tid)
			return true;
	return false;
}

/* Follow @w's chain: its text in c->buf (c->len 0 for NULL), its clipped
 * length in *@ns. */
static int follow(struct wait_chains *c, const struct wait_link *links, size_t n, const struct wait_link *w,
		  int64_t *ns)
{
	int64_t s = w->start_ns, e = w->end_ns, other = w->other, path[MAX_LINKS + 1];
	int depth = 0, rc = 0;
	char num[32];

	path[0] = w->tid;
	for (; depth < MAX_LINKS && other >= 0; depth++) {
		/* The thread's waits are in time order: k - 1 is its latest begun
		 * before e. */
		size_t count, first = links_of(links, n, other, &count);
		size_t k = first + SORTED_FIRST(links + first, count, start_ns, e, false);
		if (k == first)
			break;
		const struct wait_link *next = &links[k - 1];
		if (next->end_ns <= s || on_path(path, depth, next->tid))
			break;
		s = next->start_ns > s ? next->start_ns : s;
		e = next->end_ns < e ? next->end_ns : e;
		path[depth + 1] = next->tid;
		other = next->other;
	}
	*ns = e - s;
	c->len = 0;
	const char *name = label_of(c, path[0], &rc);
	if (rc || !name) /* a waiting thread without a name: no chain */
		return rc;
	rc = append(c, name);
	for (int i = 1; i <= depth && !rc; i++) {
		const char *nm = label_of(c, path[i], &rc);
		snprintf(num, sizeof(num), "%" PRId64, path[i]);
		if (!rc && !(rc = append(c, " > ")))
			rc = append(c, nm ? nm : num);
	}
	const char *last = other >= 0 && !rc ? label_of(c, other, &rc) : NULL;
	if (!rc && !(rc = append(c, " > ")))
		rc = append(c, last ? last : "?");
	return rc;
}

static int count_chain(struct wait_chains *c, const struct wait_link *w, int64_t chain, int64_t ns)
{
	int64_t bucket = timeline_bucket_of(c->buckets, w->start_ns);
	const struct chain_total init = { .tid = w->tid, .object_id = w->object_id, .chain = chain,
					  .bucket_ns = timeline_bucket_ns(c->buckets, bucket),
					  .has_object = w->has_object };
	/* A tid fits 32 bits, the bucket's number 16 (a run spans TL_BUCKETS). */
	int64_t tid_bucket = w->tid * 65536 + bucket;
	ptrdiff_t i = keyhash_row(&c->keys, tid_bucket, w->has_object ? w->object_id : INT64_MIN, chain, &c->totals,
				  &c->nr_totals, &c->cap_totals, sizeof(*c->totals), &init);
	if (i < 0)
		return (int)i;
	c->totals[i].waits++;
	c->totals[i].wait_ns += ns;
	return 0;
}

int wait_chains_write(sqlite3 *db, const struct wait_chains *c)
{
	sqlite3_stmt *ins;
	int rc = 0;

	if (sqlite3_prepare_v2(db, "INSERT INTO wait_chain_buckets (tid, object_id, chain, waits, wait_ns, bucket_ns) "
				   "VALUES (?, ?, ?, ?, ?, ?)", -1, &ins, NULL) != SQLITE_OK)
		return -EIO;
	for (size_t i = 0; i < c->nr_totals && !rc; i++) {
		const struct chain_total *x = &c->totals[i];
		sqlite3_reset(ins);
		sqlite3_bind_int64(ins, 1, x->tid);
		db_bind_int_or_null(ins, 2, x->object_id, x->has_object);
		db_bind_text_or_null(ins, 3, x->chain >= 0 ? c->text[x->chain] : NULL);
		sqlite3_bind_int64(ins, 4, x->waits);
		sqlite3_bind_int64(ins, 5, x->wait_ns);
		sqlite3_bind_int64(ins, 6, x->bucket_ns);
		rc = sqlite3_step(ins) == SQLITE_DONE ? 0 : -EIO;
	}
	sqlite3_finalize(ins);
	if (!rc)
		rc = db_exec(db, "INSERT INTO wait_chain_totals (tid, object_id, chain, waits, wait_ns) "
				 "SELECT tid, object_id, chain, SUM(waits), SUM(wait_ns) FROM wait_chain_buckets "
				 "GROUP BY tid, object_id, chain", NULL) ? -EIO : 0;
	return rc;
}

struct wait_chains *wait_chains_new(sqlite3 *db, const struct tl_buckets *buckets, int *rc)
{
	struct wait_chains *c = calloc(1, sizeof(*c));
	if (c)
		c->buckets = buckets;
	*rc = c ? read_labels(c, db) : -ENOMEM;
	return c;
}

int wait_chains_follow(struct wait_chains *c, const struct wait_link *links, size_t n)
{
	int rc = 0;
	if (!(c->chain_of = calloc(n ? n : 1, sizeof(*c->chain_of))) ||
	    !(c->ns_of = calloc(n ? n : 1, sizeof(*c->ns_of))))
		return -ENOMEM;
	for (size_t i = 0; i < n && !rc; i++) {
		ptrdiff_t chain = -1;
		if ((rc = follow(c, links, n, &links[i], &c->ns_of[i])))
			break;
		if (c->len && (chain = intern_chain(c)) < 0)
			rc = (int)chain;
		else
			rc = count_chain(c, &links[i], chain, c->ns_of[i]);
		c->chain_of[i] = chain;
	}
	return rc;
}

const char *wait_chains_of(const struct wait_chains *c, size_t i, int64_t *ns)
{
	*ns = c->ns_of[i];
	return c->chain_of[i] >= 0 ? c->text[c->chain_of[i]] : NULL;
}

void wait_chains_free(struct wait_chains *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nr_names; i++)
		free(c->name_text[i]);
	for (size_t i = 0; i < c->nr_text; i++)
		free(c->text[i]);
	free(c->name_text);
	free(c->text);
	free(c->totals);
	free(c->buf);
	free(c->chain_of);
	free(c->ns_of);
	keyhash_free(&c->names);
	keyhash_free(&c->texts);
	keyhash_free(&c->keys);
	free(c);
}
