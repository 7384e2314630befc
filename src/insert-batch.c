/*
 * src/insert-batch.c - see insert-batch.h.
 */
#include "config.h"
#include "src/insert-batch.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
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

/* ---- the pipe ---- */

/* Rows per block and table, and blocks in flight: a block of state_causes
 * rows is ~250 KB, so the producer may run a few blocks ahead while both
 * sides' working sets stay small. */
#define PIPE_BLOCK_ROWS 2048
#define PIPE_BLOCKS 4

struct pipe_block {
	char *rows[INSERT_PIPE_MAX_TABLES];
	size_t len[INSERT_PIPE_MAX_TABLES];
	bool full; /* handed over for inserting */
};

struct insert_pipe {
	const struct insert_pipe_table *tables;
	int nr_tables;
	struct insert_batch batch[INSERT_PIPE_MAX_TABLES];
	struct pipe_block blocks[PIPE_BLOCKS];
	size_t fill, take; /* the block the producer fills, the next one to insert */
	bool threaded;     /* the producer runs on a thread of its own */
	bool produced;     /* it has returned */
	int (*produce)(void *arg);
	void *arg;
	int produce_rc, insert_rc; /* insert_rc: the first failed insert's */
	pthread_mutex_t lock;      /* over full, produced and insert_rc */
	pthread_cond_t changed;
};

int insert_pipe_open(sqlite3 *db, const struct insert_pipe_table *tables, int nr_tables, struct insert_pipe **out)
{
	struct insert_pipe *p = nr_tables <= INSERT_PIPE_MAX_TABLES ? calloc(1, sizeof(*p)) : NULL;
	int rc = 0;

	*out = p;
	if (!p)
		return nr_tables <= INSERT_PIPE_MAX_TABLES ? -ENOMEM : -EINVAL;
	p->tables = tables;
	p->nr_tables = nr_tables;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->changed, NULL);
	for (int t = 0; t < nr_tables && !rc; t++) {
		rc = insert_batch_prepare(db, &p->batch[t], tables[t].table_columns, tables[t].nr_columns);
		for (int b = 0; b < PIPE_BLOCKS && !rc; b++)
			if (!(p->blocks[b].rows[t] = malloc(PIPE_BLOCK_ROWS * tables[t].row_size)))
				rc = -ENOMEM;
	}
	return rc;
}

/* Insert the rows of @b (unless an insert failed before) and empty it. */
static int insert_block(struct insert_pipe *p, struct pipe_block *b, int rc)
{
	for (int t = 0; t < p->nr_tables; t++) {
		const struct insert_pipe_table *tab = &p->tables[t];
		for (size_t i = 0; i < b->len[t] && !rc; i++) {
			tab->bind(p->batch[t].st, insert_batch_row(&p->batch[t]), b->rows[t] + i * tab->row_size);
			rc = insert_batch_add(&p->batch[t]);
		}
		b->len[t] = 0;
	}
	return rc;
}

/* The producer's block is full: hand it over, and return the next one to
 * fill once it is free (NULL when inserting failed). */
static struct pipe_block *hand_over(struct insert_pipe *p)
{
	if (!p->threaded) {
		p->insert_rc = insert_block(p, &p->blocks[0], p->insert_rc);
		return p->insert_rc ? NULL : &p->blocks[0];
	}
	pthread_mutex_lock(&p->lock);
	p->blocks[p->fill].full = true;
	p->fill = (p->fill + 1) % PIPE_BLOCKS;
	pthread_cond_broadcast(&p->changed);
	while (p->blocks[p->fill].full && !p->insert_rc)
		pthread_cond_wait(&p->changed, &p->lock);
	bool failed = p->insert_rc != 0;
	pthread_mutex_unlock(&p->lock);
	return failed ? NULL : &p->blocks[p->fill];
}

void *insert_pipe_row(struct insert_pipe *p, int table)
{
	struct pipe_block *b = &p->blocks[p->fill];
	if (b->len[table] == PIPE_BLOCK_ROWS && !(b = hand_over(p)))
		return NULL;
	return b->rows[table] + b->len[table]++ * p->tables[table].row_size;
}

static void *produce_job(void *arg)
{
	struct insert_pipe *p = arg;
	int rc = p->produce(p->arg);
	pthread_mutex_lock(&p->lock);
	p->produce_rc = rc;
	p->blocks[p->fill].full = true; /* the last one, partly filled */
	p->produced = true;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int insert_pipe_run(struct insert_pipe *p, int (*produce)(void *arg), void *arg)
{
	pthread_t thread;

	p->produce = produce;
	p->arg = arg;
	p->threaded = pthread_create(&thread, NULL, produce_job, p) == 0;
	if (!p->threaded) {
		p->produce_rc = produce(arg);
		p->insert_rc = insert_block(p, &p->blocks[0], p->insert_rc);
	} else {
		pthread_mutex_lock(&p->lock);
		for (;;) {
			struct pipe_block *b = &p->blocks[p->take];
			while (!b->full && !p->produced)
				pthread_cond_wait(&p->changed, &p->lock);
			if (!b->full) /* the producer marks its last block full */
				break;
			int failed = p->insert_rc;
			pthread_mutex_unlock(&p->lock);
			int rc = insert_block(p, b, failed);
			pthread_mutex_lock(&p->lock);
			p->insert_rc = rc;
			b->full = false;
			p->take = (p->take + 1) % PIPE_BLOCKS;
			pthread_cond_broadcast(&p->changed);
		}
		pthread_mutex_unlock(&p->lock);
		pthread_join(thread, NULL);
	}
	for (int t = 0; t < p->nr_tables && !p->insert_rc; t++)
		p->insert_rc = insert_batch_flush(&p->batch[t]);
	return p->insert_rc ? p->insert_rc : p->produce_rc;
}

void insert_pipe_close(struct insert_pipe *p)
{
	if (!p)
		return;
	for (int t = 0; t < p->nr_tables; t++) {
		insert_batch_finalize(&p->batch[t]);
		for (int b = 0; b < PIPE_BLOCKS; b++)
			free(p->blocks[b].rows[t]);
	}
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->changed);
	free(p);
}
