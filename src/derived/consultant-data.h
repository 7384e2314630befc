/*
 * src/derived/consultant-data.h - the metrics the Performance Consultant
 * tests (src/derived/consultant.h), over any focus, from a run.db with
 * current derived tables: the run read once into "atoms", each a part of
 * one metric of one thread, on one sync object (or none) and one node of
 * the code hierarchy (a part on a function counts once at its module and
 * once at the root too), so that a focus's value is a sum.
 */
#ifndef MTX_DERIVED_CONSULTANT_DATA_H
#define MTX_DERIVED_CONSULTANT_DATA_H

#include "src/derived/consultant.h"

enum pc_metric {
	PC_M_CPU,       /* running (thread_totals); on code, by its samples' stacks */
	PC_M_SYNC_WAIT, /* in the calls that take a lock (sync_totals.total_ns) */
	PC_M_IO_WAIT,   /* blocked_io (state_causes) */
	PC_M_CPU_WAIT,  /* runnable (thread_totals) */
	PC_M_IO_OPS,    /* read and write family syscalls that returned */
	PC_M_IO_BYTES,  /* what they returned */
	PC_METRICS
};

struct pc_data;

/* pc_data_load - read @db. 0, or -errno with @err. */
int pc_data_load(sqlite3 *db, struct pc_data **out, char **err);
void pc_data_free(struct pc_data *d);

/* pc_data_sum - metric @m at focus @f. */
int64_t pc_data_sum(const struct pc_data *d, const struct pc_focus *f, enum pc_metric m);
/* pc_data_thread_time - the lifetimes of @f's threads (NULL: all). */
int64_t pc_data_thread_time(const struct pc_data *d, const struct pc_focus *f);
/* pc_data_children - the ids of the children of @f's component @h at which
 * @f, so refined, holds some of @m, in increasing order: 0 and an array in
 * *@ids (free it), or -ENOMEM. */
int pc_data_children(const struct pc_data *d, const struct pc_focus *f, enum pc_hierarchy h, enum pc_metric m,
		     int64_t **ids, size_t *nr);

const char *pc_data_code_from(const struct pc_data *d);
char *pc_data_focus_name(const struct pc_data *d, const struct pc_focus *f);
void pc_data_where(const struct pc_data *d, const struct pc_focus *f, bool io, struct pc_where *w);

#endif
