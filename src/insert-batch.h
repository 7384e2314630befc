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
#include <stddef.h>

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

/*
 * An insert pipe: rows computed on a thread of their own (the producer)
 * while the caller's thread inserts them, so that the computing and
 * SQLite's inserting each have a core. The producer touches no SQLite
 * connection: it fills plain rows (structs of the caller's), which travel
 * in blocks, and each table's bind() turns one into parameters on the
 * inserting thread. Rows of one table are inserted in the order they were
 * added; several tables may share a pipe.
 */
struct insert_pipe_table {
	const char *table_columns; /* as insert_batch_prepare takes them */
	int nr_columns;
	size_t row_size;
	/* Bind the values of @row as columns @c + 1 .. of @st. */
	void (*bind)(sqlite3_stmt *st, int c, const void *row);
};

#define INSERT_PIPE_MAX_TABLES 4

struct insert_pipe;

/*
 * insert_pipe_open - a pipe into the @nr_tables (at most
 * INSERT_PIPE_MAX_TABLES) @tables of @db. Returns 0, or -ENOMEM / -EIO
 * (the error in the database handle); insert_pipe_close it either way.
 */
int insert_pipe_open(sqlite3 *db, const struct insert_pipe_table *tables, int nr_tables, struct insert_pipe **out);

/*
 * insert_pipe_run - run @produce(@arg) on a new thread (on this one when
 * none can be started) and insert the rows it adds until it returns.
 * Returns 0, -EIO when an insert failed (the error in the database handle;
 * the producer then gets NULL rows), or what @produce returned.
 */
int insert_pipe_run(struct insert_pipe *pipe, int (*produce)(void *arg), void *arg);

/*
 * insert_pipe_row - for the producer: room for one more row of table
 * @table (its index in the tables given to insert_pipe_open), to be filled
 * before the next call. NULL when the inserting failed or memory ran out:
 * the producer should then stop (its return value is not used).
 */
void *insert_pipe_row(struct insert_pipe *pipe, int table);

/* insert_pipe_close - free @pipe (NULL is fine). */
void insert_pipe_close(struct insert_pipe *pipe);

#endif
