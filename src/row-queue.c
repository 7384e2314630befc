/*
 * src/row-queue.c - see row-queue.h.
 *
 * Rows are packed one after the other in blocks of BLOCK_BYTES, each as
 * long as its values; a block is written by sorting its rows by table
 * (stably) and binding ROW_QUEUE_BATCH rows at a time to the table's
 * ROW_QUEUE_BATCH-row INSERT, the rest one by one.
 */
#include "config.h"
#include "src/row-queue.h"
#include "src/pi-mutex.h"
#include "src/clock.h"
#include "src/spill.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#define BLOCK_BYTES (256 * 1024)
#define ROW_BYTES(nr) (sizeof(struct queued_row) + (size_t)(nr) * sizeof(int64_t))
#define MAX_BLOCK_ROWS (BLOCK_BYTES / ROW_BYTES(0)) /* rows of no value at most */

/* In the background at SCHED_IDLE (see row_queue_start): past BOOST_BLOCKS
 * waiting (~1 M rows of the collector's, in memory or spilled) the thread
 * runs at normal priority until it is down to UNBOOST_BLOCKS. Past
 * SPILL_BLOCKS in memory, blocks go to the spill file, so that the caller
 * (the collector's drain: a wait there is lost kernel records) never
 * waits for SQLite and memory stays bounded; only without a spill file
 * does it wait, past IDLE_MAX_BLOCKS. At normal priority the caller waits
 * past BUSY_MAX_BLOCKS. */
#define BOOST_BLOCKS 256
#define UNBOOST_BLOCKS 16
#define SPILL_BLOCKS 128
#define IDLE_MAX_BLOCKS 1024
#define BUSY_MAX_BLOCKS 4
#define SPARE_BLOCKS 8

_Static_assert(sizeof(struct queued_row) % sizeof(int64_t) == 0, "values stay aligned");
_Static_assert(ROW_QUEUE_MAX_COLUMNS <= 16, "the masks are 16 bits");

struct row_block {
	struct row_block *next;
	size_t used;       /* bytes of rows */
	uint32_t nr;       /* rows */
	uint32_t nr_owned; /* rows holding copies to free */
	_Alignas(int64_t) unsigned char data[BLOCK_BYTES];
};

struct row_queue {
	sqlite3 *db;
	int nr_tables;
	sqlite3_stmt **stmt, **batch; /* per table: one row, ROW_QUEUE_BATCH rows */
	uint32_t *first, *next;       /* per table: write_block's bookkeeping */
	uint32_t *order;              /* MAX_BLOCK_ROWS row offsets */
	uint64_t rows;
	uint64_t written, committed;  /* by the writing thread; committed atomic */
	void (*tap)(void *ctx, const struct queued_row *r);
	void *tap_ctx;
	int error;                    /* atomic: the thread sets it */
	char *errmsg;                 /* set before error */
	struct row_block *filling;
	/* row_queue_start: */
	bool threaded, idle;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t work, room;
	struct row_block *head, *tail, *spare; /* blocks to write, in order; free ones */
	size_t queued, max_queued, nr_spare;
	bool commit_wanted, stop, boosted;
	bool held;                    /* row_queue_hold: write nothing yet */
	uint64_t commit_every_ns, last_commit_ns; /* row_queue_commit_every */
	/* The spill file: blocks in slots of SPILL_SLOT bytes, written
	 * by the caller and read back in order by the thread; the blocks in
	 * memory are all older or all newer than those in the file (see
	 * hand_over). */
	bool may_spill;               /* an idle queue's */
	int spill_fd;                 /* -1 until the first spill */
	bool spill_broken;            /* a write failed: no more spills */
	uint64_t spill_written, spill_read; /* slots */
	uint64_t rows_spilled;
};

int row_queue_error(const struct row_queue *q)
{
	return __atomic_load_n(&q->error, __ATOMIC_ACQUIRE);
}

const char *row_queue_errmsg(const struct row_queue *q)
{
	return row_queue_error(q) ? q->errmsg : NULL;
}

uint64_t row_queue_rows(const struct row_queue *q)
{
	return q->rows;
}

uint64_t row_queue_rows_spilled(const struct row_queue *q)
{
	return q->rows_spilled;
}

uint64_t row_queue_committed(const struct row_queue *q)
{
	return __atomic_load_n(&q->committed, __ATOMIC_ACQUIRE);
}

static void fail(struct row_queue *q, int rc)
{
	if (q->error)
		return;
	q->errmsg = strdup(rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(q->db));
	__atomic_store_n(&q->error, rc, __ATOMIC_RELEASE);
}

static void run(struct row_queue *q, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		fail(q, rc);
}

/* Bind @r's values to @st's parameters from @first + 1 on. */
static void bind_row(sqlite3_stmt *st, int first, const struct queued_row *r)
{
	for (int i = 0; i < r->nr; i++) {
		if (r->null_mask & (1u << i))
			sqlite3_bind_null(st, first + i + 1);
		else if (r->text_mask & (1u << i))
			sqlite3_bind_text(st, first + i + 1, r->v[i].s, -1, SQLITE_STATIC);
		else
			sqlite3_bind_int64(st, first + i + 1, r->v[i].i);
	}
}

static struct queued_row *row_at(struct row_block *b, uint32_t offset)
{
	return (struct queued_row *)(void *)(b->data + offset);
}

/* Write @b's rows (none once a write failed), free their copies, empty it. */
static void write_block(struct row_queue *q, struct row_block *b)
{
	uint32_t off, inserted = 0;
	memset(q->first, 0, sizeof(*q->first) * ((size_t)q->nr_tables + 1));
	for (off = 0; off < b->used; off += (uint32_t)ROW_BYTES(row_at(b, off)->nr))
		q->first[row_at(b, off)->table + 1]++;
	for (int t = 0; t < q->nr_tables; t++)
		q->first[t + 1] += q->first[t];
	memcpy(q->next, q->first, sizeof(*q->next) * (size_t)q->nr_tables);
	for (off = 0; off < b->used; off += (uint32_t)ROW_BYTES(row_at(b, off)->nr))
		q->order[q->next[row_at(b, off)->table]++] = off;
	for (int t = 0; t < q->nr_tables && !q->error; t++) {
		uint32_t i = q->first[t], end = q->first[t + 1];
		if (!q->stmt[t])
			continue; /* the tap's only */
		inserted += end - i;
		for (; end - i >= ROW_QUEUE_BATCH && !q->error; i += ROW_QUEUE_BATCH) {
			for (int k = 0; k < ROW_QUEUE_BATCH; k++) {
				const struct queued_row *r = row_at(b, q->order[i + (uint32_t)k]);
				bind_row(q->batch[t], k * r->nr, r);
			}
			run(q, q->batch[t]);
		}
		for (; i < end && !q->error; i++) {
			bind_row(q->stmt[t], 0, row_at(b, q->order[i]));
			run(q, q->stmt[t]);
		}
	}
	if (!q->error)
		q->written += inserted;
	for (off = 0; q->tap && !q->error && off < b->used; off += (uint32_t)ROW_BYTES(row_at(b, off)->nr))
		q->tap(q->tap_ctx, row_at(b, off));
	/* Copies are rare (names, paths, meta values): most blocks skip this. */
	for (off = 0; b->nr_owned && off < b->used; off += (uint32_t)ROW_BYTES(row_at(b, off)->nr)) {
		struct queued_row *r = row_at(b, off);
		for (int i = 0; r->owned_mask; i++)
			if (r->owned_mask & (1u << i)) {
				free((void *)r->v[i].s);
				r->owned_mask &= (uint16_t)~(1u << i);
			}
	}
	b->used = 0;
	b->nr = 0;
	b->nr_owned = 0;
}

static void commit(struct row_queue *q)
{
	if (!q->error) {
		int rc = sqlite3_exec(q->db, "COMMIT; BEGIN", NULL, NULL, NULL);
		if (rc != SQLITE_OK)
			fail(q, rc);
		else
			__atomic_store_n(&q->committed, q->written, __ATOMIC_RELEASE);
	}
	q->last_commit_ns = clock_now_ns();
}

void row_queue_commit_every(struct row_queue *q, uint64_t ns)
{
	q->commit_every_ns = ns;
	q->last_commit_ns = clock_now_ns();
}

/* Whether a thread of ours may go back from SCHED_IDLE to SCHED_OTHER at
 * nice 0 (sched(7)): with CAP_SYS_NICE (root), or an RLIMIT_NICE that
 * allows nice 0. Without, a boosted writer would stay idle. */
static bool can_leave_idle(void)
{
	struct rlimit rl;
	return geteuid() == 0 || (getrlimit(RLIMIT_NICE, &rl) == 0 && rl.rlim_cur >= 20);
}

static void set_idle(pthread_t thread, bool idle)
{
	struct sched_param sp = { 0 };
	pthread_setschedparam(thread, idle ? SCHED_IDLE : SCHED_OTHER, &sp);
}

/* A spill file slot: a block, whole pages (a write that begins or ends
 * inside a page makes the kernel read or zero the rest of it). */
#define SPILL_SLOT (((sizeof(struct row_block) + 4095) / 4096) * 4096)

/* Blocks waiting to be written, in memory and in the spill file. */
static uint64_t backlog(const struct row_queue *q)
{
	return q->queued + (q->spill_written - q->spill_read);
}

/* Append @b to the spill file (the lock held): true, or false when the
 * file cannot be had or written, and from then on never again (the blocks
 * in it are still read back). */
static bool spill(struct row_queue *q, struct row_block *b)
{
	size_t size = offsetof(struct row_block, data) + b->used;
	off_t at = (off_t)(q->spill_written * SPILL_SLOT);

	if (q->spill_fd < 0 && !q->spill_broken)
		q->spill_broken = (q->spill_fd = spill_file_beside(sqlite3_db_filename(q->db, "main"))) < 0;
	if (q->spill_broken || pwrite(q->spill_fd, b, size, at) != (ssize_t)size) {
		q->spill_broken = true;
		return false;
	}
	q->spill_written++;
	q->rows_spilled += b->nr;
	return true;
}

/* Read spill slot @slot back into @b (the lock not held: the caller writes
 * only later slots meanwhile). */
static bool unspill(struct row_queue *q, uint64_t slot, struct row_block *b)
{
	off_t at = (off_t)(slot * SPILL_SLOT);
	size_t head = offsetof(struct row_block, data);
	if (pread(q->spill_fd, b, head, at) != (ssize_t)head || b->used > BLOCK_BYTES ||
	    pread(q->spill_fd, b->data, b->used, at + (off_t)head) != (ssize_t)b->used) {
		if (!q->error) {
			q->errmsg = strdup("reading rows back from the spill file failed");
			__atomic_store_n(&q->error, SQLITE_IOERR, __ATOMIC_RELEASE);
		}
		return false;
	}
	return true;
}

/* A free block kept for reuse, or NULL (the lock held). */
static struct row_block *take_spare(struct row_queue *q)
{
	struct row_block *b = q->spare;
	if (b) {
		q->spare = b->next;
		q->nr_spare--;
	}
	return b;
}

/* The thread: blocks in order (those in memory, then those spilled), a
 * commit when one is wanted, until told to stop with nothing left. */
static void *queue_main(void *arg)
{
	struct row_queue *q = arg;
	pthread_mutex_lock(&q->lock);
	for (;;) {
		if ((q->head || q->spill_read < q->spill_written) && !q->held) {
			struct row_block *b = q->head;
			bool spilled = !b;
			uint64_t slot = q->spill_read;
			if (spilled) {
				q->spill_read++;
				if (!(b = take_spare(q)))
					b = malloc(sizeof(*b));
			} else {
				if (!(q->head = b->next))
					q->tail = NULL;
				q->queued--;
			}
			if (q->boosted && backlog(q) <= UNBOOST_BLOCKS) {
				set_idle(pthread_self(), true);
				q->boosted = false;
			}
			pthread_cond_signal(&q->room);
			pthread_mutex_unlock(&q->lock);
			if (!b)
				fail(q, SQLITE_NOMEM); /* the block is dropped; the error says so */
			else if (!spilled || unspill(q, slot, b))
				write_block(q, b);
			/* a backlog written long after the last commit the caller
			 * asked for (it may be busy elsewhere) is not kept at risk */
			if (q->commit_every_ns && clock_now_ns() - q->last_commit_ns >= q->commit_every_ns)
				commit(q);
			pthread_mutex_lock(&q->lock);
			/* all read back (the caller writes the file only under the
			 * lock): the next spill starts at the file's beginning */
			if (q->spill_read == q->spill_written)
				q->spill_read = q->spill_written = 0;
			if (b && q->nr_spare < SPARE_BLOCKS) {
				b->used = b->nr = b->nr_owned = 0;
				b->next = q->spare;
				q->spare = b;
				q->nr_spare++;
			} else {
				free(b);
			}
		} else if (q->commit_wanted) {
			q->commit_wanted = false;
			pthread_mutex_unlock(&q->lock);
			commit(q);
			pthread_mutex_lock(&q->lock);
		} else if (q->stop) {
			break;
		} else {
			pthread_cond_wait(&q->work, &q->lock);
		}
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

/* Hand the block being filled over to the thread, or write it now. */
static void hand_over(struct row_queue *q)
{
	struct row_block *b = q->filling;
	if (!b || !b->nr)
		return;
	if (!q->threaded) {
		write_block(q, b);
		return;
	}
	pthread_mutex_lock(&q->lock);
	/* Once a block is in the file, the next ones follow it there until the
	 * thread has read them all back: memory then holds only blocks older
	 * or newer than the file's, and the thread takes memory's first.
	 * Writes held back (row_queue_hold) stay in memory: no I/O. */
	if (q->may_spill && (q->spill_read < q->spill_written || (!q->held && q->queued >= SPILL_BLOCKS)) &&
	    spill(q, b)) {
		b->used = b->nr = b->nr_owned = 0; /* the file's copy owns its strings now */
	} else {
		/* a spill that failed: its blocks go first (writes deferred by
		 * row_queue_hold cannot wait for them) */
		while (q->spill_read < q->spill_written) {
			q->held = false;
			pthread_cond_signal(&q->work);
			pthread_cond_wait(&q->room, &q->lock);
		}
		while (!q->held && q->queued >= q->max_queued)
			pthread_cond_wait(&q->room, &q->lock);
		b->next = NULL;
		if (q->tail)
			q->tail->next = b;
		else
			q->head = b;
		q->tail = b;
		q->queued++;
		q->filling = take_spare(q); /* NULL: row_queue_row allocates one */
	}
	if (backlog(q) >= BOOST_BLOCKS && q->idle && !q->boosted && !q->held) {
		set_idle(q->thread, false);
		q->boosted = true;
	}
	pthread_cond_signal(&q->work);
	pthread_mutex_unlock(&q->lock);
}

void row_queue_tap(struct row_queue *q, void (*tap)(void *ctx, const struct queued_row *r), void *ctx)
{
	q->tap = tap;
	q->tap_ctx = ctx;
}

struct queued_row *row_queue_row(struct row_queue *q, int table)
{
	struct row_block *b = q->filling;
	if (b && b->used + ROW_BYTES(ROW_QUEUE_MAX_COLUMNS) > BLOCK_BYTES) {
		hand_over(q);
		b = q->filling;
	}
	if (!b && (b = q->filling = malloc(sizeof(*b)))) {
		b->used = 0;
		b->nr = 0;
		b->nr_owned = 0;
	} else if (!b) {
		fail(q, SQLITE_NOMEM);
	}
	if (row_queue_error(q))
		return NULL;
	struct queued_row *r = row_at(b, (uint32_t)b->used);
	memset(r, 0, sizeof(*r));
	r->table = (uint16_t)table;
	return r;
}

void row_queue_put(struct row_queue *q, struct queued_row *r)
{
	q->filling->used += ROW_BYTES(r->nr);
	q->filling->nr++;
	q->filling->nr_owned += r->owned_mask != 0;
	q->rows++;
}

void row_queue_commit(struct row_queue *q)
{
	hand_over(q);
	if (!q->threaded) {
		commit(q);
		return;
	}
	pthread_mutex_lock(&q->lock);
	q->commit_wanted = true;
	pthread_cond_signal(&q->work);
	pthread_mutex_unlock(&q->lock);
}

/* "INSERT ... VALUES (row)" taking ROW_QUEUE_BATCH rows (malloc'd). */
static char *batch_sql(const char *sql)
{
	const char *values = strstr(sql, "VALUES ");
	if (!values)
		return NULL;
	values += strlen("VALUES ");
	size_t head = (size_t)(values - sql), group = strlen(values);
	char *out = malloc(head + ROW_QUEUE_BATCH * (group + 1)), *o = out;
	if (!out)
		return NULL;
	memcpy(o, sql, head);
	o += head;
	for (int k = 0; k < ROW_QUEUE_BATCH; k++) {
		if (k)
			*o++ = ',';
		memcpy(o, values, group);
		o += group;
	}
	*o = '\0';
	return out;
}

int row_queue_open(sqlite3 *db, const char *const *insert_sql, int nr_tables, struct row_queue **out)
{
	struct row_queue *q = calloc(1, sizeof(*q));
	int rc = 0;

	*out = q;
	if (!q)
		return -ENOMEM;
	q->db = db;
	q->spill_fd = -1;
	q->nr_tables = nr_tables;
	q->stmt = calloc((size_t)nr_tables, sizeof(*q->stmt));
	q->batch = calloc((size_t)nr_tables, sizeof(*q->batch));
	q->first = calloc((size_t)nr_tables + 1, sizeof(*q->first));
	q->next = calloc((size_t)nr_tables, sizeof(*q->next));
	q->order = malloc(MAX_BLOCK_ROWS * sizeof(*q->order));
	if (!q->stmt || !q->batch || !q->first || !q->next || !q->order)
		return -ENOMEM;
	for (int t = 0; t < nr_tables && !rc; t++) {
		if (!insert_sql[t])
			continue;
		char *batch = batch_sql(insert_sql[t]);
		if (!batch)
			return -ENOMEM;
		if (sqlite3_prepare_v3(db, insert_sql[t], -1, SQLITE_PREPARE_PERSISTENT, &q->stmt[t], NULL) != SQLITE_OK ||
		    sqlite3_prepare_v3(db, batch, -1, SQLITE_PREPARE_PERSISTENT, &q->batch[t], NULL) != SQLITE_OK)
			rc = -EIO;
		free(batch);
	}
	return rc;
}

int row_queue_start(struct row_queue *q, bool idle)
{
	if (q->threaded)
		return 0;
	hand_over(q);
	pi_mutex_init(&q->lock);
	pthread_cond_init(&q->work, NULL);
	pthread_cond_init(&q->room, NULL);
	q->idle = idle && can_leave_idle();
	q->max_queued = idle ? IDLE_MAX_BLOCKS : BUSY_MAX_BLOCKS;
	q->may_spill = idle;
	q->stop = q->boosted = q->commit_wanted = q->held = false;
	if (pthread_create(&q->thread, NULL, queue_main, q)) {
		pthread_cond_destroy(&q->room);
		pthread_cond_destroy(&q->work);
		pthread_mutex_destroy(&q->lock);
		return -EAGAIN;
	}
	if (q->idle)
		set_idle(q->thread, true);
	q->threaded = true;
	return 0;
}

void row_queue_hold(struct row_queue *q, bool hold)
{
	if (!q->threaded)
		return;
	pthread_mutex_lock(&q->lock);
	q->held = hold;
	if (!hold && q->idle && !q->boosted) {
		set_idle(q->thread, false);
		q->boosted = true;
	}
	pthread_cond_signal(&q->work);
	pthread_mutex_unlock(&q->lock);
}

int row_queue_finish(struct row_queue *q)
{
	hand_over(q);
	if (q->threaded) {
		pthread_mutex_lock(&q->lock);
		q->stop = true;
		q->held = false;
		if (q->idle && !q->boosted) /* the caller waits for it now */
			set_idle(q->thread, false);
		pthread_cond_signal(&q->work);
		pthread_mutex_unlock(&q->lock);
		pthread_join(q->thread, NULL);
		q->threaded = false;
		for (struct row_block *b; (b = take_spare(q));)
			free(b);
		pthread_cond_destroy(&q->room);
		pthread_cond_destroy(&q->work);
		pthread_mutex_destroy(&q->lock);
	}
	return row_queue_error(q);
}

void row_queue_close(struct row_queue *q)
{
	if (!q)
		return;
	if (q->stmt)
		row_queue_finish(q);
	free(q->filling);
	for (int t = 0; t < q->nr_tables && q->stmt && q->batch; t++) {
		sqlite3_finalize(q->stmt[t]);
		sqlite3_finalize(q->batch[t]);
	}
	free(q->stmt);
	free(q->batch);
	free(q->first);
	free(q->next);
	free(q->order);
	free(q->errmsg);
	if (q->spill_fd >= 0)
		close(q->spill_fd);
	free(q);
}
