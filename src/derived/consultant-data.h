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

/* The metrics, declared once: X(id, name, unit, hierarchies it is kept
 * along (PC_ALONG bits; the others only at their root), what it is). A
 * time's value is in ns, a count's in ops or bytes. At a /Code node a
 * metric is inclusive: what was spent with the function on the stack. */
#define PC_METRIC_TABLE(X)                                                                                        \
	X(PC_M_CPU, "cpu", "s/s", PC_ALONG(PC_CODE) | PC_ALONG(PC_PROCESS) | PC_ALONG(PC_MACHINE),                \
	  "running: time on a CPU; at a function, its CPU samples' share")             \
	X(PC_M_SYNC_WAIT, "sync_wait", "s/s", PC_ALONG(PC_CODE) | PC_ALONG(PC_PROCESS) | PC_ALONG(PC_SYNC_OBJECT), \
	  "in calls that take a lock; at a function, by the op's stack or caller")  \
	X(PC_M_IO_WAIT, "io_wait", "s/s", PC_ALONG(PC_CODE) | PC_ALONG(PC_PROCESS) | PC_ALONG(PC_FILE),           \
	  "blocked on I/O; at a function, where the thread left the CPU")                     \
	X(PC_M_CPU_WAIT, "cpu_wait", "s/s", PC_ALONG(PC_PROCESS) | PC_ALONG(PC_MACHINE),                           \
	  "runnable: waiting for a CPU (at /Machine, the one that then ran the thread)")                          \
	X(PC_M_IO_OPS, "io_ops", "1/s", PC_ALONG(PC_PROCESS) | PC_ALONG(PC_FILE),                                  \
	  "read- and write-family syscalls that returned")                                                         \
	X(PC_M_IO_BYTES, "io_bytes", "B/s", PC_ALONG(PC_PROCESS) | PC_ALONG(PC_FILE), "the bytes those syscalls returned")

enum pc_metric {
#define X(id, name, unit, along, what) id,
	PC_METRIC_TABLE(X)
#undef X
	PC_METRICS
};

/* pc_metric_name, _unit, _along, _what - the table's columns;
 * pc_metric_find - the metric called @name, or -1. */
const char *pc_metric_name(enum pc_metric m);
const char *pc_metric_unit(enum pc_metric m);
unsigned pc_metric_along(enum pc_metric m);
const char *pc_metric_what(enum pc_metric m);
int pc_metric_find(const char *name);
/* Whether @m is a time (ns), not a count. */
bool pc_metric_is_time(enum pc_metric m);

struct pc_data;

/* pc_data_load - read @db: the whole run, or only @window's part of it
 * (consultant.h). 0, or -errno with @err. */
int pc_data_load(sqlite3 *db, const struct pc_window *window, struct pc_data **out, char **err);
void pc_data_free(struct pc_data *d);

/*
 * Built by hand (mtx collect --consultant: the run so far, from the
 * collector's totals): pc_data_new, then every thread (its lifetime so
 * far), sync object and function (its module's path), then the values,
 * each a metric of one thread (on one object, or 0): at the root of /Code
 * (@function_id 0), or at a function and its module (what was spent with
 * it on the stack; the root's is added on its own). 0, or -ENOMEM.
 */
struct pc_data *pc_data_new(void);
int pc_data_add_thread(struct pc_data *d, int64_t tid, int32_t pid, const char *name, int64_t time_ns);
int pc_data_add_object(struct pc_data *d, int64_t id, const char *kind, int64_t addr);
int pc_data_add_function(struct pc_data *d, int64_t id, const char *name, const char *module);
int pc_data_add(struct pc_data *d, int64_t tid, enum pc_metric m, int64_t object_id, int64_t function_id,
		int64_t value);
/* pc_data_add_cpu - a value of @m (cpu or cpu_wait) of one thread on CPU
 * @cpu (/Machine), besides its total; pc_data_set_nr_cpus - the
 * machine's CPUs. */
int pc_data_add_cpu(struct pc_data *d, int64_t tid, enum pc_metric m, int cpu, int64_t value);
void pc_data_set_nr_cpus(struct pc_data *d, int nr_cpus);
/* pc_data_add_file - a value of @m (io_wait, io_ops, io_bytes) of one
 * thread on the file at @path (/File), besides its total; with
 * @function_id, as pc_data_add's. */
int pc_data_add_file(struct pc_data *d, int64_t tid, enum pc_metric m, const char *path, int64_t function_id,
		     int64_t value);
/* pc_data_set_span - the threads' span, and what code is known from. */
void pc_data_set_span(struct pc_data *d, int64_t first_ns, int64_t last_ns, const char *code_from);

/* pc_data_sum - metric @m at focus @f. */
int64_t pc_data_sum(const struct pc_data *d, const struct pc_focus *f, enum pc_metric m);
/* pc_data_nr_threads - how many threads @f's /Process component holds. */
size_t pc_data_nr_threads(const struct pc_data *d, const struct pc_focus *f);
/* pc_data_thread_time - the lifetimes of @f's threads (NULL: all). */
int64_t pc_data_thread_time(const struct pc_data *d, const struct pc_focus *f);
/* pc_data_children - the ids of the children of @f's component @h at which
 * @f, so refined, holds some of @m, in increasing order: 0 and an array in
 * *@ids (free it), or -ENOMEM. */
int pc_data_children(const struct pc_data *d, const struct pc_focus *f, enum pc_hierarchy h, enum pc_metric m,
		     int64_t **ids, size_t *nr);

const char *pc_data_code_from(const struct pc_data *d);
/* pc_data_child_level - the level of the children of @f's component @h
 * (functions at once from the root of /Code along the call graph). */
int pc_data_child_level(const struct pc_data *d, const struct pc_focus *f, enum pc_hierarchy h);
/* pc_data_use_call_graph - with @on, refine /Code along the call graph of
 * the stacks (samples, --sync-stacks, switches): from the root to the
 * outermost functions, from a function to those it called; else by
 * module, then function. Whether it does: only if the stacks show a call.
 * pc_data_nr_calls - the calls they show (caller, callee pairs). */
bool pc_data_use_call_graph(struct pc_data *d, bool on);
size_t pc_data_nr_calls(const struct pc_data *d);
/* pc_data_nr_cpus - the machine's CPUs (meta.nr_cpus), 0: not known. */
int pc_data_nr_cpus(const struct pc_data *d);
char *pc_data_focus_name(const struct pc_data *d, const struct pc_focus *f);
void pc_data_where(const struct pc_data *d, const struct pc_focus *f, bool io, struct pc_where *w);

/*
 * pc_data_parse_focus - the focus @text names, into @f: "/" or one node of
 * each hierarchy it names, comma-separated (as pc_data_focus_name writes
 * them): /Code/MODULE[/FUNCTION], /Process/PID[/TID or NAME or
 * NAME (TID)], /SyncObject/KIND[/ADDRESS or #ID or NAME], /Machine/cpuN,
 * /File/PATH; the others
 * stay as in @f. 0, or -EINVAL with @err saying what is not in the run
 * (or a hierarchy named twice).
 */
int pc_data_parse_focus(const struct pc_data *d, const char *text, struct pc_focus *f, char **err);
/* pc_data_span - the run's threads' first start and last end (ns). */
void pc_data_span(const struct pc_data *d, int64_t *first_ns, int64_t *last_ns);

/*
 * A metric over time (seed 003 §2.2): @nr_buckets buckets, even, bucket i
 * covering [origin + i * width, + width). Made @width_ns wide, it doubles
 * (pc_histogram_fit: @folds times) until the run fits, which gives what
 * adding each value as it came and folding pairs of buckets whenever one
 * fell past the last would give. A time's bucket holds the ns of it there,
 * a count's what ended there. Buckets from @summarized_from_ns on are
 * short of what --detail's budget added up rather than kept (INT64_MAX:
 * nothing was).
 */
#define PC_HISTOGRAM_MAX_BUCKETS 4096
struct pc_histogram {
	int64_t origin_ns, width_ns;
	int nr_buckets, folds;
	int64_t summarized_from_ns;
	int64_t value[PC_HISTOGRAM_MAX_BUCKETS];
};

/* pc_histogram_fit - double @h's width until the instant @last_ns falls in
 * its last bucket or before. */
void pc_histogram_fit(struct pc_histogram *h, int64_t last_ns);

/* pc_data_histogram - add metric @m at focus @f (at the root of /Code)
 * over time into @h, from @db's rows: of @window only (NULL: the whole
 * run). 0, or -errno with @err. */
int pc_data_histogram(sqlite3 *db, const struct pc_data *d, const struct pc_focus *f, enum pc_metric m,
		      const struct pc_window *window, struct pc_histogram *h, char **err);

#endif
