/*
 * src/insert-batch.c - see insert-batch.h.
 */
#include "config.h"
#include "src/insert-batch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows per step: past 64 the gain is small, and a statement may have at
 * most 32766 parameters (SQLite's default since 3.32). */
#define ROWS_PER_STEP 64

int insert_batch_prepare(sqlite3 *db, struct insert_batch *b, const char *table_columns, int nr_columns)
{
	size_t row_len = 3 + 3 * (size_t)nr_columns; /* ",(" "?, " ... ")" */
	size_t len = strlen(table_columns) + ROWS_PER_STEP * row_len + 64;
	char *sql = malloc(len), *at = sql;
	int rc;

	*b = (struct insert_batch){ .nr_columns = nr_columns, .nr_rows = ROWS_PER_STEP };
	if (!sql)
		return -ENOMEM;
	at += sprintf(at, "INSERT INTO %s SELECT * FROM (VALUES ", table_columns);
	for (int r = 0; r < ROWS_PER_STEP; r++) {
		at += sprintf(at, r ? ",(" : "(");
		for (int c = 0; c < nr_columns; c++)
			at += sprintf(at, c ? ",?" : "?");
		*at++ = ')';
	}
	sprintf(at, ") LIMIT ?%d", ROWS_PER_STEP * nr_columns + 1);
	rc = sqlite3_prepare_v2(db, sql, -1, &b->st, NULL) == SQLITE_OK ? 0 : -EIO;
	free(sql);
	return rc;
}

/* Insert the first @n rows bound. */
static int insert_rows(struct insert_batch *b, int n)
{
	sqlite3_bind_int(b->st, b->nr_rows * b->nr_columns + 1, n);
	int rc = sqlite3_step(b->st) == SQLITE_DONE ? 0 : -EIO;
	sqlite3_reset(b->st);
	b->filled = 0;
	return rc;
}

int insert_batch_add(struct insert_batch *b)
{
	return ++b->filled < b->nr_rows ? 0 : insert_rows(b, b->filled);
}

int insert_batch_flush(struct insert_batch *b)
{
	return b->filled ? insert_rows(b, b->filled) : 0;
}

void insert_batch_finalize(struct insert_batch *b)
{
	sqlite3_finalize(b->st);
	b->st = NULL;
}
