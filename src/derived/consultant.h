/*
 * src/derived/consultant.h - the Performance Consultant (seed 002 §3.5;
 * SEEDS-MAP S4, S7), on a finished run: an automated search for why the
 * threads lost time (the why axis: hypotheses), where (a focus: one node
 * of each resource hierarchy) and how much, as Paradyn's consultant
 * searched, from what run.db holds.
 *
 * Metrics (S4) are added up from the run's "atoms": each thread's time
 * running, waiting for a CPU, blocked on I/O and waiting for a lock, with
 * the object and the code each part belongs to (a lock wait to its op's
 * stack, else to the function that called the lock; CPU time to the
 * functions on its samples' stacks; an I/O wait to the function the thread
 * left the CPU in, with --sample). A focus's value is its metric over the
 * thread-time of its threads (their lifetimes): refining along /Code or
 * /SyncObject never raises it, refining along /Process can, which is how a
 * thread is singled out.
 *
 * The search: a hypothesis tested at a focus is a node of the search
 * history graph (a DAG: a node reached twice is one node). A true node is
 * refined along the why axis (its child hypotheses at the same focus) and
 * along each hierarchy its hypothesis may be refined along (the focus with
 * one component replaced by a child of it); a false one is not. Nodes wait
 * in a priority queue keyed by their parent's value over its threshold,
 * ties broken by name, and at most max_tests are tested: the same run and
 * tunables give the same graph. The findings are the true nodes that no
 * true child refines, ranked by their share of all the threads' time;
 * refining along /Process singles threads out only when the true ones
 * are not most of the node: when two or more hold 90% of its time, the
 * node says it of them all, and is the finding rather than each of them.
 *
 * Beyond Paradyn: a thread waiting for another to act (a join, a condvar,
 * a semaphore not used as a lock, a barrier) is not itself the cause, so
 * only lock waits count as sync waiting; the thread waited for shows up
 * under what it did meanwhile.
 */
#ifndef MTX_DERIVED_CONSULTANT_H
#define MTX_DERIVED_CONSULTANT_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The tunable constants, each declared once: X(field, name, default,
 * what it is). Paradyn's names and defaults (PCconstants.C), and mtx's. */
#define PC_TUNABLES(X)                                                                                       \
	X(cpu, "PC_CPUThreshold", 0.30, "CPUbound: share of the threads' time running")                    \
	X(sync, "PC_SyncThreshold", 0.20, "ExcessiveSyncWaitingTime: share waiting for a lock")            \
	X(io, "PC_IOThreshold", 0.20, "ExcessiveIOBlockingTime: share blocked on I/O")                     \
	X(io_op_bytes, "PC_IOOpThreshold", 4096, "TooManySmallIOOps: bytes per read or write, at most")    \
	X(cpu_wait, "PC_CPUWaitThreshold", 0.20, "ExcessiveCPUWait (mtx): share runnable, waiting for a CPU") \
	X(max_tests, "max_tests", 1000, "the most nodes the search tests")                                       \
	X(callgraph, "callgraph_search", 1, "refine /Code along the stacks' call graph when they show calls (0: by module)") \
	X(min_observation, "minObservationTime", 1.0, "live: seconds an experiment observes before it concludes") \
	X(sufficient_time, "sufficientTime", 6.0, "live: seconds a false guess holds before it is concluded")     \
	X(hysteresis, "hysteresisRange", 0.05, "live: a guess turns true past threshold x (1 + it), back below x (1 - it)") \
	X(max_active, "max_active", 50, "live: the most experiments running at once")

struct pc_tunables {
#define X(field, name, value, what) double field;
	PC_TUNABLES(X)
#undef X
};

/* pc_tunables_default - Paradyn's values. */
void pc_tunables_default(struct pc_tunables *t);
/* pc_tunable_set - NAME=VALUE: 0, or -EINVAL (unknown name, or a value
 * that is not a number >= 0). */
int pc_tunable_set(struct pc_tunables *t, const char *assignment);
/* pc_tunable_count, pc_tunable - the table, for --list-tunables. */
size_t pc_tunable_count(void);
void pc_tunable(const struct pc_tunables *t, size_t i, const char **name, double *value, const char **what);

/* The why axis (the tree of hypotheses). */
enum pc_why { PC_WHY_CPU, PC_WHY_SYNC, PC_WHY_IO, PC_WHY_CPU_WAIT };

enum pc_hierarchy { PC_CODE, PC_PROCESS, PC_SYNC_OBJECT, PC_MACHINE, PC_FILE, PC_HIERARCHIES };
#define PC_ALONG(h) (1u << (h))

/* A node of a resource hierarchy: level 0 is its root; ids are
 * PC_PROCESS: pid, then tid; PC_SYNC_OBJECT: a kind's index in
 * pc_object_kinds, then sync_objects.id; PC_CODE: a module's index, then
 * functions.id; PC_MACHINE: a CPU's number; PC_FILE: a file's index in
 * the search's data (its path: pc_where). */
struct pc_resource {
	int level;
	int64_t id;
};

struct pc_focus {
	struct pc_resource r[PC_HIERARCHIES];
};

enum pc_status { PC_UNTESTED, PC_TRUE, PC_FALSE };

struct pc_node {
	int id;              /* 0: the root, TopLevelHypothesis at / */
	int hypothesis;      /* index in the hypotheses (pc_hypothesis_name) */
	struct pc_focus focus;
	enum pc_status status;
	double value, threshold;
	double share;        /* its metric over all the threads' time */
	int order;           /* when it was tested (1..), 0: never */
};

enum pc_edge_kind { PC_WHY_EDGE, PC_WHERE_EDGE };

struct pc_edge {
	int parent, child;
	enum pc_edge_kind kind;
	int along; /* a where edge's hierarchy (enum pc_hierarchy), -1 for why */
};

struct pc_search;

/* A part of the run, [from_ns, to_ns) (a phase, src/phases.h): its
 * metrics from the rows clipped to it, where the whole run's come from the
 * summary tables. Past mtx collect --detail's budget the rows were added
 * up, not kept: a window there holds only what stayed rows. */
struct pc_window {
	int64_t from_ns, to_ns;
};

/*
 * pc_search_run - the search on @db (with current derived tables,
 * src/derived/analysis.h) under @t, over @window (NULL: the whole run).
 * Returns 0 and the search in *@out (pc_search_free it), or -errno with a
 * message in @err.
 */
int pc_search_run(sqlite3 *db, const struct pc_tunables *t, const struct pc_window *window, struct pc_search **out,
		  char **err);
void pc_search_free(struct pc_search *s);

/* ---- the search live (SEEDS-MAP S8): mtx collect --consultant ----------
 *
 * The same hypotheses, foci and graph, tested as Paradyn's consultant
 * tested them while the program ran (002 §3.5; PCexperiment.C): each node
 * is an experiment launched at an instant, whose value is what the run did
 * since then; it waits minObservationTime, then guesses against its
 * threshold with hysteresisRange around it, and concludes true at once,
 * false only once the guess has held sufficientTime. A true node is
 * refined as offline. At most max_active experiments run at once, and an
 * experiment whose instrumentation the budget refuses is never launched.
 */

struct pc_data;

/* What an experiment may need beyond what is always on (sched, sync):
 * the syscalls (I/O hypotheses), CPU samples (CPU by code: a true CPU
 * node samples for minObservationTime before it is refined along /Code,
 * and its children there sample while they run). */
enum pc_need { PC_NEED_SYSCALLS, PC_NEED_SAMPLES, PC_NEEDS };
const char *pc_need_name(enum pc_need need); /* syscalls, samples */

/* How the search switches what it needs: @on returns 0 when it is on,
 * -1 when the cost budget refuses it; @off when no experiment needs it. */
struct pc_instrumenter {
	int (*on)(void *ctx, enum pc_need need);
	void (*off)(void *ctx, enum pc_need need);
	void *ctx;
};

/* pc_live_new - a live search under @t, switching through @in. */
int pc_live_new(const struct pc_tunables *t, const struct pc_instrumenter *in, struct pc_search **out);
/*
 * pc_live_step - the run so far is @now (pc_data_new's, taken), at
 * @now_ns: the experiments that observed long enough conclude, the true
 * ones are refined, and new ones launch. 0 or -ENOMEM.
 */
int pc_live_step(struct pc_search *s, struct pc_data *now, uint64_t now_ns);
/* pc_live_withdraw - @need went off (the budget): the experiments that
 * used it end untested, and are not launched again. */
void pc_live_withdraw(struct pc_search *s, enum pc_need need);
/* pc_live_finish - the search ends: what is still on goes off, the
 * experiments still running stay untested, the findings are found. */
int pc_live_finish(struct pc_search *s);
/* pc_live_counts - experiments launched, running now, refused. */
void pc_live_counts(const struct pc_search *s, int *launched, int *active, int *refused);
/* pc_live_observing - whether node @id's experiment is running now. */
bool pc_live_observing(const struct pc_search *s, size_t id);

/* pc_search_save - keep @s in @db's pc_nodes and pc_edges (in the caller's
 * transaction), in place of the last, and meta pc_search = @how (live,
 * offline). 0, or SQLite's error code. */
int pc_search_save(sqlite3 *db, const struct pc_search *s, const char *how);
/* pc_search_stored - the search kept in @db (current derived tables), with
 * its findings found again; 0, or -errno with @err. pc_search_kept_live -
 * whether the one kept is the live search of mtx collect --consultant
 * (the record of what it saw while the program ran: shown as it was). */
int pc_search_stored(sqlite3 *db, struct pc_search **out, char **err);
bool pc_search_kept_live(sqlite3 *db);

/* The graph: nodes by id (0 the root), edges in the order made. */
size_t pc_nr_nodes(const struct pc_search *s);
const struct pc_node *pc_node(const struct pc_search *s, size_t id);
size_t pc_nr_edges(const struct pc_search *s);
const struct pc_edge *pc_edge(const struct pc_search *s, size_t i);
/* The findings: node ids, first to last. pc_finding_refined - whether
 * finding @rank was refined to the end: false when a child of it is still
 * untested (a live search that ended while it observed, or max_tests). */
size_t pc_nr_findings(const struct pc_search *s);
int pc_finding(const struct pc_search *s, size_t rank);
bool pc_finding_refined(const struct pc_search *s, size_t rank);
/* How many nodes were tested, whether max_tests stopped the search, the
 * threads' time in all (the shares' denominator) and how code was known:
 * "samples", "sync stacks", "call sites" or NULL (no /Code refinement). */
int pc_nr_tested(const struct pc_search *s);
bool pc_stopped_at_max(const struct pc_search *s);
int64_t pc_thread_time_ns(const struct pc_search *s);
const char *pc_code_from(const struct pc_search *s);

/* pc_graph_order - the nodes as the graph is shown: each after the node
 * that made it, depth first, each once; their ids into @order and their
 * depths into @depths (pc_nr_nodes elements each, the caller's), their
 * number into *@n. 0 or -ENOMEM. */
int pc_graph_order(const struct pc_search *s, int *order, int *depths, size_t *n);

/* Names. */
const char *pc_hypothesis_name(int hypothesis);
const char *pc_status_name(enum pc_status status); /* true, false, untested */
/* pc_value_text - node @n's value as shown, in @buf: "-" at the root and
 * for a node never tested. */
const char *pc_value_text(const struct pc_node *n, char *buf, size_t size);
enum pc_why pc_hypothesis_why(int hypothesis);
const char *pc_why_name(enum pc_why why); /* cpu, sync, io, cpu_wait */
/* The focus as Paradyn wrote one: its non-root components, comma-separated
 * (/Code/app/hog,/Process/4242/worker (4243),/SyncObject/mutex/0x55d1fcc492a0),
 * "/" for the whole program; malloc'd, NULL when out of memory. */
char *pc_focus_name(const struct pc_search *s, const struct pc_focus *f);

/* What a focus names, for a finding's "where": 0 / NULL when the
 * hierarchy is at a coarser level. */
struct pc_where {
	int32_t pid, tid;
	const char *thread_name;
	int64_t object_id, object_addr;
	const char *object_kind, *object_name;
	const char *function, *module;
	const char *syscall; /* I/O: the syscall most of its waits were in */
	bool has_cpu;        /* /Machine: cpu */
	int32_t cpu;
	const char *file;    /* /File: its path */
};
void pc_where(const struct pc_search *s, const struct pc_node *n, struct pc_where *w);

#endif
