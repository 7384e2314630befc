/*
 * src/insert-batch.h - many rows per INSERT statement, for the derived
 * tables' millions of rows. Each step of a statement has a fixed cost
 * (opening the table's and its indexes' cursors, seeking, halting) that
 * one row per step pays in full: on the 1.6 M state_causes rows of a 10
 * M-event run, 64 rows per step take about half the time of one.
 *
 * The statement is INSERT INTO table (columns) SELECT * FROM (VALUES (row
 * 1), ..., (row N)) LIMIT ?, so a last, partial batch runs the same
 * statement with a smaller limit. A caller binds each row's values at
 * insert_batch_row()'s offset and then calls insert_batch_add().
 */
#ifndef MTX_INSERT_BATCH_H
#define MTX_INSERT_BATCH_H

#include <sqlite3.h>

struct insert_batch {
	sqlite3_stmt *st;
	int nr_columns, nr_rows; /* per row, rows per step */
	int filled;              /* rows bound since the last step */
};

/*
 * insert_batch_prepare - prepare @b for rows of @nr_columns values into
 * @table_columns ("table (a, b, c)"). Returns 0, or -EIO with the error in
 * the database handle.
 */
int insert_batch_prepare(sqlite3 *db, struct insert_batch *b, const char *table_columns, int nr_columns);

/* insert_batch_row - the parameter offset of the next row's values: bind
 * column c (1-based) of it at offset + c. */
static inline int insert_batch_row(const struct insert_batch *b)
{
	return b->filled * b->nr_columns;
}

/* insert_batch_add - count the row just bound; inserts the batch when it is
 * full. Returns 0 or -EIO. */
int insert_batch_add(struct insert_batch *b);

/* insert_batch_flush - insert the rows bound since the last step. Returns 0
 * or -EIO. */
int insert_batch_flush(struct insert_batch *b);

/* insert_batch_finalize - free the statement; rows not flushed are lost. */
void insert_batch_finalize(struct insert_batch *b);

#endif
