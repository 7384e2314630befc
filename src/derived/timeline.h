/*
 * src/derived/timeline.h - the recorded rows of one run, per thread and in time
 * order, in memory: what the analyses of analysis_build walk.
 *
 * Reading a table through its (tid, time) index costs a table lookup per
 * row, four times a plain scan on a 10 M-event run. So each recorded table
 * is read once, in the order it is stored, and its rows are dealt out to
 * their thread; the collector writes each thread's rows in time order, so
 * a thread's rows are sorted as they come (they are sorted when they are
 * not). While sync_ops is read, the per-(tid, object, op) totals of the
 * summary tables are added up too, so that no later pass reads it again.
 *
 * Memory: about 40 bytes per row of the five tables (a 10 M-event run:
 * ~350 MB), freed by timeline_free.
 */
#ifndef MTX_TIMELINE_H
#define MTX_TIMELINE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Flags of the rows below: which nullable columns have a value. */
enum {
	TL_HAS_OBJECT = 1,  /* state: object_id */
	TL_HAS_CPU = 2,     /* state: cpu */
	TL_HAS_SYSCALL = 4, /* state: syscall */
	TL_HAS_END = 8,     /* syscall: end_ns */
	TL_HAS_FD = 16,     /* syscall: fd */
	TL_HAS_RESULT = 32, /* op: result */
	TL_HAS_HOLDER = 64, /* op: holder_tid */
	TL_HAS_CALLSITE = 128, /* op: callsite */
	TL_HAS_RET = 256,   /* syscall: ret */
	TL_RET_FAILED = 512, /* syscall: ret < 0 */
	TL_BLOCKED = 1024,  /* op: blocked */
	TL_COST_MEASURED = 2048, /* op: overhead_ns, injected_ns (captured only) */
	TL_SUMMARIZED = 4096, /* op: captured, not a row (collector/sync/summary.h) */
};

/* Strings (states, syscall names, fd kinds, ops) are interned: a row holds
 * the index of its string in struct mtx_timeline.strings; TL_NONE is none. */
#define TL_NONE UINT16_MAX

struct tl_state {
	int64_t start_ns, end_ns, object_id;
	int32_t cpu;
	uint16_t state, syscall;
	uint8_t flags;
};

struct tl_switch {
	int64_t ts_ns;
	/* Where the thread was in its code (see timeline.c), 0: unknown;
	 * while loading, the switch's stacks.id (0: none). */
	int64_t function_id;
	int32_t next_tid;
	uint8_t preempt;
};

struct tl_wakeup {
	int64_t ts_ns;
	int32_t waker_tid;
};

struct tl_syscall {
	int64_t start_ns, end_ns, fd;
	uint16_t fd_kind, name;
	uint16_t flags;
};

struct tl_op {
	int64_t start_ns, end_ns, id, object_id, callsite;
	int64_t wait_ns, hold_ns; /* hold_ns 0 when NULL */
	int32_t holder_tid, result;
	/* sync_ops.arg (wait_for reads a cond wait's: its mutex's id), 0
	 * when NULL or past 32 bits. */
	int32_t arg;
	uint32_t stack_id; /* sync_ops.stack_id (collect --sync-stacks), 0 when NULL */
	uint16_t op;
	uint16_t flags;
	/* The capture's, of an op that may be summarized (whose wrapper was
	 * not slow: up to 2 us); 0 in a timeline read from the file. */
	uint16_t overhead_ns, injected_ns;
};

/* A thread's rows of each table (all its lifetimes), oldest first. */
struct tl_thread {
	int64_t tid;
	struct tl_state *states;
	struct tl_switch *switches;
	struct tl_wakeup *wakeups;
	struct tl_syscall *syscalls;
	struct tl_op *ops;
	size_t nr_states, nr_switches, nr_wakeups, nr_syscalls, nr_ops;
	size_t cap_states, cap_switches, cap_wakeups, cap_syscalls, cap_ops;
};

/* One sync_objects row. */
struct tl_object {
	int64_t id, addr;
	int32_t pid; /* 0: unknown */
	uint16_t kind;
};

/* The ops of one thread on one object of one name that began in one
 * bucket (bucket_ns: its start), added up. */
struct tl_op_total {
	int64_t tid, object_id, bucket_ns;
	/* Where the ops were called: sync_ops.callsite (0: NULL) and
	 * stack_id, and that pair's index among the run's (a key). */
	int64_t callsite, stack_id, site;
	uint16_t op;
	int64_t calls, blocked, contended, wait_ns, max_wait_ns, hold_ns, max_hold_ns;
	int64_t max_ns;   /* the longest call, end_ns - start_ns */
	int64_t total_ns; /* the calls' time in all */
};

/* The ops on one object that found one holder and began in one bucket,
 * added up. */
struct tl_holder_total {
	int64_t object_id, holder_tid, bucket_ns, ops, wait_ns;
};

/* timeline_add_op_total - add @t's sums and maxima to @to's. */
static inline void timeline_add_op_total(struct tl_op_total *to, const struct tl_op_total *t)
{
	to->calls += t->calls;
	to->blocked += t->blocked;
	to->contended += t->contended;
	to->wait_ns += t->wait_ns;
	to->hold_ns += t->hold_ns;
	if (t->max_wait_ns > to->max_wait_ns)
		to->max_wait_ns = t->max_wait_ns;
	if (t->max_hold_ns > to->max_hold_ns)
		to->max_hold_ns = t->max_hold_ns;
	if (t->max_ns > to->max_ns)
		to->max_ns = t->max_ns;
	to->total_ns += t->total_ns;
}

/* The latest time a run can hold: CLOCK_MONOTONIC nanoseconds, 73 years
 * after boot. timeline_load refuses a run with a time outside [0,
 * TL_MAX_NS] (a damaged or made-up file), so that the analyses can add and
 * subtract its times, spans and waits in int64_t without overflow. */
#define TL_MAX_NS (INT64_C(1) << 61)

/* The run's time buckets (schema/derived.sql, run_buckets). */
struct tl_buckets {
	int64_t origin_ns, width_ns;
};
#define TL_BUCKETS 32 /* the run spans at most these */

struct mtx_timeline {
	struct tl_buckets buckets;
	struct tl_thread *threads; /* sorted by tid */
	size_t nr_threads;
	struct tl_object *objects; /* sorted by id */
	size_t nr_objects;
	char **strings;
	size_t nr_strings;
	struct tl_op_total *op_totals; /* per bucket, in no particular order */
	size_t nr_op_totals;
	struct tl_holder_total *holder_totals;
	size_t nr_holder_totals;
	struct program_frames *frames; /* src/derived/program-frames.h */
};

/*
 * timeline_load - read the recorded tables of @db into a new timeline.
 * Returns 0 and the timeline in @out (timeline_free it), or -errno with a
 * message in @err.
 */
int timeline_load(sqlite3 *db, struct mtx_timeline **out, char **err);

/*
 * A timeline captured while the run is written, so that the derived build
 * at the end of a collection need not read the run back (on a 10 M-event
 * run the read was 2.9 s of a 5.3 s build). collector/writer.c hands over
 * each row of the five recorded tables once SQLite has stored it, in the
 * table's order (so an op's id and a state's rowid are its place in it);
 * sync_resolve hands over what it changes in them; timeline_capture_finish
 * reads the small tables and makes it the timeline timeline_load would
 * have read. Strings must live until then (the writer's hot rows' do).
 * Rows past TL_CAPTURE_MAX_ROWS (unless it is pinned), or a failed
 * allocation, drop the capture: the build then reads the run as before.
 */
struct tl_capture;
#define TL_CAPTURE_MAX_ROWS (32u << 20) /* ~2 GB: what the read would hold */

/* timeline_capture_new - NULL when out of memory. */
struct tl_capture *timeline_capture_new(void);
/* timeline_capture_pin - from now on @c is not dropped for its size
 * (TL_CAPTURE_MAX_ROWS), for it will hold rows kept nowhere else
 * (TL_SUMMARIZED ops); false when it already was. Thread-safe. */
bool timeline_capture_pin(struct tl_capture *c);
/* A negative @cpu, a NULL string: NULL. */
void timeline_capture_state(struct tl_capture *c, int64_t tid, int64_t start_ns, int64_t end_ns, const char *state,
			    int64_t cpu, const char *syscall);
/* @stack_id 0: none. */
void timeline_capture_switch(struct tl_capture *c, int64_t prev_tid, int64_t ts_ns, int64_t next_tid, int preempt,
			     int64_t stack_id);
void timeline_capture_wakeup(struct tl_capture *c, int64_t wakee_tid, int64_t ts_ns, int64_t waker_tid);
/* @flags: TL_HAS_END, TL_HAS_FD, TL_HAS_RET for the columns not NULL. */
void timeline_capture_syscall(struct tl_capture *c, int64_t tid, int64_t start_ns, int64_t end_ns, int64_t fd,
			      const char *fd_kind, const char *name, int64_t ret, uint16_t flags);
/* @flags: TL_HAS_RESULT, TL_HAS_CALLSITE, TL_COST_MEASURED for the columns
 * not NULL, TL_SUMMARIZED for an op that is not a row (its id is its
 * place all the same); arg stored; @hold_ns as written (0: NULL); holder
 * NULL, not blocked (sync_resolve's to fill, and to correct the hold).
 * @overhead_ns and @injected_ns are kept up to UINT16_MAX. */
void timeline_capture_op(struct tl_capture *c, int64_t tid, int64_t object_id, const char *op, int64_t start_ns,
			 int64_t end_ns, int64_t result, int64_t arg, int64_t callsite, int64_t stack_id,
			 int64_t hold_ns, int64_t overhead_ns, int64_t injected_ns, uint16_t flags);

/* What sync_resolve changes, by the row it changes (thread_states rowid or
 * sync_ops id) and the new value. */
enum tl_amend {
	TL_AMEND_BLOCKED_SYNC, /* state: 'blocked_sync' on object @value */
	TL_AMEND_WAIT,         /* op: blocked, wait_ns += @value */
	TL_AMEND_HOLDER,       /* op: holder_tid */
	TL_AMEND_HOLD,         /* op: hold_ns */
	TL_AMEND_OBJECT,       /* op: object_id */
	TL_AMEND_ARG,          /* op: arg */
	TL_AMEND_ROW,          /* op: a summarized one made a row (@value unused) */
};
/* (A NULL @c: nothing to amend.) */
void timeline_capture_amend(struct tl_capture *c, enum tl_amend what, int64_t row, int64_t value);

/*
 * timeline_capture_nr_ops - how many sync_ops rows @c holds (0 when NULL or
 * dropped); timeline_capture_op_row - the one of id @id (1..that), as
 * captured and amended (end_ns as written), its thread's tid in *@tid and
 * its op's name in *@name; NULL when there is none. sync_resolve reads the
 * ops there rather than from the file.
 */
size_t timeline_capture_nr_ops(const struct tl_capture *c);
/* timeline_capture_nr_summarized - of those, the TL_SUMMARIZED ones (not
 * rows); they are left out of the timeline timeline_capture_finish makes. */
size_t timeline_capture_nr_summarized(const struct tl_capture *c);
const struct tl_op *timeline_capture_op_row(struct tl_capture *c, int64_t id, int64_t *tid, const char **name);

/*
 * timeline_capture_finish - @c made the timeline of @db, the run it
 * captured, once everything is written: 0 and the timeline in *@out, or
 * NULL there when the capture was dropped or does not match @db's tables
 * (read them then); -errno with a message in @err. Frees @c either way.
 */
int timeline_capture_finish(struct tl_capture *c, sqlite3 *db, struct mtx_timeline **out, char **err);
void timeline_capture_free(struct tl_capture *c);

/* timeline_bucket_of - the number of the bucket of @b that @ns lies in (0
 * from the origin, negative before it); the summaries' hashes key on it. */
static inline int64_t timeline_bucket_of(const struct tl_buckets *b, int64_t ns)
{
	int64_t k = (ns - b->origin_ns) / b->width_ns;
	if (ns < b->origin_ns && k * b->width_ns != ns - b->origin_ns)
		k--; /* division rounds toward 0: down for times before the origin */
	return k;
}

/* timeline_bucket_ns - the start of bucket number @k of @b. */
static inline int64_t timeline_bucket_ns(const struct tl_buckets *b, int64_t k)
{
	return b->origin_ns + k * b->width_ns;
}

/* timeline_free - free @tl and everything in it (NULL is fine). */
void timeline_free(struct mtx_timeline *tl);

/* timeline_thread - the rows of @tid, or NULL when it has none. */
const struct tl_thread *timeline_thread(const struct mtx_timeline *tl, int64_t tid);

/* timeline_object - the sync_objects row of @id, or NULL. */
const struct tl_object *timeline_object(const struct mtx_timeline *tl, int64_t id);

/* timeline_string - interned string @i, or NULL for TL_NONE. */
static inline const char *timeline_string(const struct mtx_timeline *tl, uint16_t i)
{
	return i == TL_NONE || i >= tl->nr_strings ? NULL : tl->strings[i];
}

/* timeline_intern_find - the index of @s if it was interned, else TL_NONE. */
uint16_t timeline_intern_find(const struct mtx_timeline *tl, const char *s);

/* timeline_states_from - the index of the first of @t's states that starts
 * at or after @ns (nr_states if none). */
size_t timeline_states_from(const struct tl_thread *t, int64_t ns);

#endif
