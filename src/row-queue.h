/*
 * src/row-queue.h - rows for a database's prepared INSERTs, handed over in
 * blocks and written table by table: each table's rows in the order they
 * were given, ROW_QUEUE_BATCH of them to one INSERT while there are that
 * many (a third to a half less work for SQLite per row than one INSERT
 * each; no table's rows may depend on another's order). Blocks are written
 * on the caller's thread as they fill, or, after row_queue_start, on a
 * thread of the queue's own, so that the caller goes on making rows while
 * SQLite inserts them. The collector's writer (collector/writer.c) and the
 * derived tables' passes (src/derived/state-causes.c, src/derived/critical-path.c) write
 * through one.
 */
#ifndef MTX_ROW_QUEUE_H
#define MTX_ROW_QUEUE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define ROW_QUEUE_BATCH 64
#define ROW_QUEUE_MAX_COLUMNS 16

/* A row: its table (index of its INSERT) and its values, in order. */
struct queued_row {
	uint16_t table;
	uint16_t nr;          /* values */
	uint16_t null_mask;   /* bit i: value i is NULL */
	uint16_t text_mask;   /* bit i: value i is the string v[i].s */
	uint16_t owned_mask;  /* of those, copies to free once written */
	uint16_t pad[3];
	union {
		int64_t i;
		const char *s;
	} v[];                /* room for ROW_QUEUE_MAX_COLUMNS */
};

struct row_queue;

/*
 * row_queue_open - a queue into @db's tables, one INSERT ... VALUES (...)
 * of one row each in @insert_sql[0 .. @nr_tables - 1]; a NULL one is a
 * table of rows for the tap only (row_queue_tap), never inserted. Returns 0, or
 * -ENOMEM / -EIO (the error in @db's handle); row_queue_close it either
 * way.
 */
int row_queue_open(sqlite3 *db, const char *const *insert_sql, int nr_tables, struct row_queue **out);

/*
 * row_queue_start - write the blocks on a thread of the queue's own from
 * now on. @idle: at SCHED_IDLE, so that it takes only CPU time nothing else
 * wants, with up to about a million rows waiting before it runs at normal
 * priority until it has caught up (the collector); past half a million in
 * memory, blocks go to an unnamed spill file next to the database and are
 * read back in turn, so that the caller never waits for SQLite (only
 * without such a file, past four million); else at normal priority, a few
 * blocks ahead of the caller at most (a pass that computes rows while they
 * are inserted).
 * A process that could not come back from SCHED_IDLE (not root, and an
 * RLIMIT_NICE below 20) gets the idle queue's limits at normal priority.
 * @db is the thread's until row_queue_finish. Returns 0 or -errno (the
 * queue goes on without the thread).
 */
int row_queue_start(struct row_queue *q, bool idle);

/*
 * row_queue_hold - while @hold, the thread writes nothing and the caller
 * never waits: every block stays in memory (mtx collect --defer-writes,
 * seed 004 §4.1: no I/O while the program runs). Releasing hands the
 * backlog to the thread at normal priority, as the caller waits for it
 * then. After row_queue_start; row_queue_finish releases.
 */
void row_queue_hold(struct row_queue *q, bool hold);

/*
 * row_queue_row - room for the next row of table @table: fill it with the
 * row_put_* below, then row_queue_put it (before asking for another). NULL
 * once a write failed (see row_queue_error), or out of memory.
 */
struct queued_row *row_queue_row(struct row_queue *q, int table);

/* row_queue_tap - once each block is written, hand @tap each of its rows
 * in the order they were given, on the thread that wrote them (not after a
 * failed write). Before the first row. */
void row_queue_tap(struct row_queue *q, void (*tap)(void *ctx, const struct queued_row *r), void *ctx);

/* row_queue_put - hand the row from row_queue_row over. */
void row_queue_put(struct row_queue *q, struct queued_row *r);

/* row_queue_commit - COMMIT; BEGIN once the rows handed over so far are
 * written. */
void row_queue_commit(struct row_queue *q);

/* row_queue_commit_every - the thread also commits by itself once @ns
 * passed since the last commit (0: never), so that rows it writes while
 * the caller asks for none are not kept in one open transaction. Before
 * row_queue_start. */
void row_queue_commit_every(struct row_queue *q, uint64_t ns);

/* row_queue_finish - write every row handed over and stop the thread, if
 * any (the caller may use the database again). Returns row_queue_error. */
int row_queue_finish(struct row_queue *q);

/* row_queue_error - the SQLite result code of the first failed write (or
 * SQLITE_NOMEM), 0 if none; row_queue_errmsg its message. */
int row_queue_error(const struct row_queue *q);
const char *row_queue_errmsg(const struct row_queue *q);

/* row_queue_rows - rows handed over so far. */
uint64_t row_queue_rows(const struct row_queue *q);
/* row_queue_rows_spilled - rows that went through the spill file. */
uint64_t row_queue_rows_spilled(const struct row_queue *q);
/* row_queue_committed - rows a COMMIT has made durable so far (any thread). */
uint64_t row_queue_committed(const struct row_queue *q);

/* row_queue_close - finish, free the statements and @q (NULL is fine). */
void row_queue_close(struct row_queue *q);

/* The values of a row, in column order. */
static inline void row_put_int(struct queued_row *r, int64_t v)
{
	r->v[r->nr++].i = v;
}

static inline void row_put_int_or_null(struct queued_row *r, int64_t v, bool present)
{
	if (!present)
		r->null_mask |= (uint16_t)(1u << r->nr);
	row_put_int(r, v);
}

/* A string that lives until the row is written (a literal, a static
 * table's, or one the queue's owner keeps): NULL for NULL. */
static inline void row_put_text(struct queued_row *r, const char *s)
{
	if (!s)
		r->null_mask |= (uint16_t)(1u << r->nr);
	else
		r->text_mask |= (uint16_t)(1u << r->nr);
	r->v[r->nr++].s = s;
}

/* A string the caller may free or change afterwards: copied. */
static inline void row_put_text_copy(struct queued_row *r, const char *s)
{
	char *copy = s ? strdup(s) : NULL;
	if (copy)
		r->owned_mask |= (uint16_t)(1u << r->nr);
	row_put_text(r, copy);
}

#endif
