/*
 * src/insert-queue.h - rows made on one thread and inserted on another: the
 * derived-table build works out the rows of its largest tables (state_causes,
 * wait_for) on one core while SQLite inserts them on the other. On a 10 M-
 * event run the inserts are half of that pass.
 *
 * The statements are prepared before insert_queue_start; from then until
 * insert_queue_finish only the queue's thread uses their connection (SQLite
 * allows a connection on any thread, one at a time). A row holds the values
 * to bind to its statement's parameters 1..n, each set by the caller:
 * integers, NULLs, and texts that outlive the queue (static, or interned in
 * the timeline). Rows are inserted in the order they were added.
 */
#ifndef MTX_INSERT_QUEUE_H
#define MTX_INSERT_QUEUE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#define INSERT_MAX_COLUMNS 16

enum insert_type { INSERT_NULL, INSERT_INT, INSERT_TEXT };

struct insert_value {
	int64_t i;
	const char *text;
	uint8_t type; /* enum insert_type */
};

struct insert_row {
	sqlite3_stmt *st;
	int nr_values;
	struct insert_value values[INSERT_MAX_COLUMNS]; /* [k]: parameter k + 1 */
};

struct insert_queue;

/* insert_queue_start - a new queue, with its thread (or none, when it
 * cannot be made: rows are then inserted as their chunk fills). 0 or
 * -ENOMEM. */
int insert_queue_start(struct insert_queue **out);

/* insert_queue_add - room for the next row of @st, with @nr_values values
 * (at most INSERT_MAX_COLUMNS) that the caller sets; NULL when an insert
 * failed or memory ran out (insert_queue_finish says which). */
struct insert_row *insert_queue_add(struct insert_queue *q, sqlite3_stmt *st, int nr_values);

/* insert_queue_finish - insert what is left, stop the thread, free @q (NULL
 * is fine). Returns 0, -EIO when a step failed (the connection's message
 * says why), or -ENOMEM. */
int insert_queue_finish(struct insert_queue *q);

/* Set parameter @col (1-based) of @r, as db_bind_*_or_null would bind it. */
static inline void insert_int(struct insert_row *r, int col, int64_t v)
{
	r->values[col - 1] = (struct insert_value){ .i = v, .type = INSERT_INT };
}

static inline void insert_int_or_null(struct insert_row *r, int col, int64_t v, bool has)
{
	r->values[col - 1] = (struct insert_value){ .i = v, .type = has ? INSERT_INT : INSERT_NULL };
}

static inline void insert_text_or_null(struct insert_row *r, int col, const char *s)
{
	r->values[col - 1] = (struct insert_value){ .text = s, .type = s ? INSERT_TEXT : INSERT_NULL };
}

#endif
