/* src/derived/consultant-data.c - see consultant-data.h. */
#include "config.h"
#include "src/derived/consultant-data.h"
#include "src/db.h"
#include "src/derived/histogram.h"
#include "src/error.h"
#include "src/grow.h"
#include "src/io-ops.h"
#include "src/keyhash.h"
#include "src/sorted.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The kinds of sync_objects, as /SyncObject's first level. */
static const char *const kinds[] = { "mutex", "rwlock", "spinlock", "cond", "sem", "barrier", "signal", "thread" };
#define NR_KINDS ((int)(sizeof(kinds) / sizeof(kinds[0])))

/* SQL: sync op x (of object o) is a call that takes a lock, whose time
 * is sync_wait's. */
#define TAKES_A_LOCK(x, o)                                                                    \
	"(" o ".kind IN ('mutex', 'rwlock', 'spinlock') OR " o ".used_as = 'lock') AND " x ".op " \
	"NOT IN ('unlock', 'init', 'destroy')"
/* SQL: a syscall of that family that returned. */
#define IO_OP "name IN " IO_OP_SQL_LIST " AND ret >= 0"

struct pc_thread {
	int64_t tid; /* 64 bits: sorted_first's keys */
	int32_t pid;
	char *name;
	int64_t time_ns;
};

struct pc_object {
	int64_t id, addr;
	int kind;
	char *name;
};

struct pc_function {
	int64_t id;
	int module;
	char *name;
};

struct pc_stack {
	int64_t id, parent, function; /* stacks.id, parent_id (0: none), function_id */
};

/* A call the stacks show: function @caller called @callee (functions.id). */
struct pc_call {
	int64_t caller, callee;
};

struct pc_atom {
	int32_t thread;   /* index in threads */
	uint8_t metric;
	uint8_t code_level;
	int8_t kind;      /* the object's, -1 none */
	int16_t syscall;  /* index in syscalls, -1 none */
	int16_t cpu;      /* /Machine's node: the CPU, -1 its root */
	int32_t file;     /* /File's node: index in files, -1 its root */
	int64_t object;   /* sync_objects.id, 0 none */
	int64_t code_id;  /* module index or functions.id */
	int64_t value;
};

struct pc_data {
	struct pc_thread *threads; /* by tid */
	size_t nr_threads, cap_threads;
	struct pc_object *objects; /* by id */
	size_t nr_objects, cap_objects;
	struct pc_function *functions; /* by id */
	size_t nr_functions, cap_functions;
	char **modules;
	size_t nr_modules;
	char **syscalls;
	size_t nr_syscalls;
	char **files; /* the paths of /File, in the order met */
	size_t nr_files, cap_files;
	struct keyhash file_keys;
	struct pc_atom *atoms;
	size_t nr_atoms, cap_atoms;
	struct pc_stack *stacks; /* by id; only while loading */
	size_t nr_stacks, cap_stacks;
	/* The call graph of the stacks, made a DAG (recursion's calls back
	 * up dropped): the calls by caller, and the outermost functions. */
	struct pc_call *calls;
	size_t nr_calls, cap_calls;
	int64_t *roots;
	size_t nr_roots, cap_roots;
	bool by_calls; /* /Code refined along it (pc_data_use_call_graph) */
	char code_from[192];
	int64_t first_ns, last_ns; /* the threads' span */
	int nr_cpus;               /* the machine's, 0: not known */
	bool sorted;               /* pc_data_add: threads and objects sorted */
};

static const struct {
	const char *name, *unit, *what;
	unsigned along;
} metrics[] = {
#define X(id, name, unit, along, what) { name, unit, what, along },
	PC_METRIC_TABLE(X)
#undef X
};

const char *pc_metric_name(enum pc_metric m)
{
	return m < PC_METRICS ? metrics[m].name : "?";
}

const char *pc_metric_unit(enum pc_metric m)
{
	return metrics[m].unit;
}

unsigned pc_metric_along(enum pc_metric m)
{
	return m < PC_METRICS ? metrics[m].along : 0;
}

const char *pc_metric_what(enum pc_metric m)
{
	return metrics[m].what;
}

int pc_metric_find(const char *name)
{
	for (int m = 0; m < PC_METRICS; m++)
		if (!strcmp(metrics[m].name, name))
			return m;
	return -1;
}

bool pc_metric_is_time(enum pc_metric m)
{
	return !strcmp(metrics[m].unit, "s/s");
}

static int sql_fail(sqlite3 *db, char **err)
{
	error_set(err, "reading the run for the search: %s", sqlite3_errmsg(db));
	return -EIO;
}

/* Run @sql and hand each row to @row; 0 or -errno. */
static int each_row(sqlite3 *db, const char *sql, const struct pc_window *window,
		    int (*row)(struct pc_data *, sqlite3_stmt *), struct pc_data *d, char **err)
{
	sqlite3_stmt *st;
	int rc = 0, step;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return sql_fail(db, err);
	if (window) { /* a parameter the SQL lacks has index 0: not bound */
		sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":from"), window->from_ns);
		sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":to"), window->to_ns);
	}
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW)
		rc = row(d, st);
	if (!rc && step != SQLITE_DONE)
		rc = sql_fail(db, err);
	sqlite3_finalize(st);
	return rc;
}

static char *text_of(sqlite3_stmt *st, int col)
{
	const char *s = (const char *)sqlite3_column_text(st, col);
	return strdup(s ? s : "?");
}

/* The index of string @s in @v (added when new), or -1. */
static int intern(char ***v, size_t *nr, const char *s)
{
	for (size_t i = 0; i < *nr; i++)
		if (!strcmp((*v)[i], s))
			return (int)i;
	char **more = realloc(*v, (*nr + 1) * sizeof(*more));
	if (!more || !(more[*nr] = strdup(s)))
		return -1;
	*v = more;
	return (int)(*nr)++;
}

/* The next element of array *@v (*@nr of @size bytes, room for *@cap),
 * counted in; NULL when memory ran out (the array unchanged). */
static void *append(void *v, size_t *nr, size_t *cap, size_t size)
{
	void **array = v, *more = grow_array(*array, cap, *nr, size, 64);
	if (!more)
		return NULL;
	*array = more;
	return memset((char *)more + (*nr)++ * size, 0, size);
}

static int row_span(struct pc_data *d, sqlite3_stmt *st)
{
	d->first_ns = sqlite3_column_int64(st, 0);
	d->last_ns = sqlite3_column_int64(st, 1);
	return 0;
}

static int row_thread(struct pc_data *d, sqlite3_stmt *st)
{
	struct pc_thread *t = append(&d->threads, &d->nr_threads, &d->cap_threads, sizeof(*t));
	if (!t)
		return -ENOMEM;
	*t = (struct pc_thread){ sqlite3_column_int64(st, 0), (int32_t)sqlite3_column_int64(st, 1), text_of(st, 2),
				 sqlite3_column_int64(st, 3) };
	return t->name ? 0 : -ENOMEM;
}

static int row_object(struct pc_data *d, sqlite3_stmt *st)
{
	struct pc_object *o = append(&d->objects, &d->nr_objects, &d->cap_objects, sizeof(*o));
	const char *kind = (const char *)sqlite3_column_text(st, 1);
	if (!o)
		return -ENOMEM;
	*o = (struct pc_object){ sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 2), -1,
				 sqlite3_column_type(st, 3) == SQLITE_NULL ? NULL : text_of(st, 3) };
	for (int k = 0; kind && k < NR_KINDS; k++)
		if (!strcmp(kind, kinds[k]))
			o->kind = k;
	return 0;
}

/* A module's name in a focus: its file's, "?" for none (NULL or "", as
 * the profile writes a frame it could not place). */
static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	return slash ? slash + 1 : path && *path ? path : "?";
}

static int row_function(struct pc_data *d, sqlite3_stmt *st)
{
	struct pc_function *f = append(&d->functions, &d->nr_functions, &d->cap_functions, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->id = sqlite3_column_int64(st, 0);
	f->name = text_of(st, 1);
	f->module = intern(&d->modules, &d->nr_modules, base_name((const char *)sqlite3_column_text(st, 2)));
	return f->name && f->module >= 0 ? 0 : -ENOMEM;
}

static int row_stack(struct pc_data *d, sqlite3_stmt *st)
{
	struct pc_stack *k = append(&d->stacks, &d->nr_stacks, &d->cap_stacks, sizeof(*k));
	if (!k)
		return -ENOMEM;
	*k = (struct pc_stack){ sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2) };
	return 0;
}

/* The element of array @a (@n, sorted by @field) whose @field is @key, or NULL. */
#define FIND(a, n, field, key)                                                          \
	({                                                                              \
		size_t at_ = SORTED_FIRST((a), (n), field, (key), false);               \
		at_ < (n) && (a)[at_].field == (key) ? &(a)[at_] : NULL;                 \
	})

static int thread_index(const struct pc_data *d, int64_t tid)
{
	const struct pc_thread *t = FIND(d->threads, d->nr_threads, tid, tid);
	return t ? (int)(t - d->threads) : -1;
}

static const struct pc_function *function_of(const struct pc_data *d, int64_t id)
{
	return FIND(d->functions, d->nr_functions, id, id);
}

static const struct pc_object *object_of(const struct pc_data *d, int64_t id)
{
	return FIND(d->objects, d->nr_objects, id, id);
}

static int push_atom(struct pc_data *d, struct pc_atom atom)
{
	struct pc_atom *a;
	if (atom.thread < 0 || atom.value <= 0)
		return 0;
	if (!(a = grow_array(d->atoms, &d->cap_atoms, d->nr_atoms, sizeof(*a), 1024)))
		return -ENOMEM;
	d->atoms = a;
	d->atoms[d->nr_atoms++] = atom;
	return 0;
}

/* A part of @m at the root of /Machine, and of /File (@file -1) or at
 * file @file only (the same time again as the root's atoms hold). */
static int add_atom(struct pc_data *d, int thread, enum pc_metric m, int64_t object, int code_level, int64_t code_id,
		    int syscall, int file, int64_t value)
{
	const struct pc_object *o = object ? object_of(d, object) : NULL;
	return push_atom(d, (struct pc_atom){ .thread = thread, .metric = (uint8_t)m, .code_level = (uint8_t)code_level,
					      .kind = (int8_t)(o ? o->kind : -1), .syscall = (int16_t)syscall,
					      .cpu = -1, .file = file, .object = object, .code_id = code_id,
					      .value = value });
}

/* A part of @m on CPU @cpu, at the root of the other hierarchies: the
 * same time again as the thread's root atom holds, counted only at
 * /Machine's nodes. */
static int add_cpu_atom(struct pc_data *d, int thread, enum pc_metric m, int cpu, int64_t value)
{
	if (cpu < 0 || cpu > INT16_MAX)
		return 0;
	return push_atom(d, (struct pc_atom){ .thread = thread, .metric = (uint8_t)m, .kind = -1, .syscall = -1,
					      .cpu = (int16_t)cpu, .file = -1, .value = value });
}

/* Add @value of @m to each distinct function of @functions (@n) and its
 * module, and with @root to the root of /Code. */
static int add_code_atoms(struct pc_data *d, int thread, enum pc_metric m, int64_t object, int syscall, int file,
			  const int64_t *functions, size_t n, int64_t value, bool root)
{
	int rc = root ? add_atom(d, thread, m, object, 0, 0, syscall, file, value) : 0;
	for (size_t i = 0; i < n && !rc; i++) {
		const struct pc_function *f = function_of(d, functions[i]);
		bool module_seen = false, seen = false;
		for (size_t j = 0; j < i; j++) {
			const struct pc_function *g = function_of(d, functions[j]);
			seen |= functions[j] == functions[i];
			module_seen |= f && g && g->module == f->module;
		}
		if (!f || seen)
			continue;
		if (!module_seen)
			rc = add_atom(d, thread, m, object, 1, f->module, syscall, file, value);
		if (!rc)
			rc = add_atom(d, thread, m, object, 2, f->id, syscall, file, value);
	}
	return rc;
}

#define MAX_STACK 256

/* The functions of stack @id, innermost first, into @out: how many. */
static size_t stack_functions(const struct pc_data *d, int64_t id, int64_t *out)
{
	const struct pc_stack *k;
	size_t n = 0;
	for (; id && n < MAX_STACK && (k = FIND(d->stacks, d->nr_stacks, id, id)); id = k->parent)
		out[n++] = k->function;
	return n;
}

/* Each thread's running and runnable time (its root atoms). */
static int row_thread_times(struct pc_data *d, sqlite3_stmt *st)
{
	int t = thread_index(d, sqlite3_column_int64(st, 0));
	int rc = add_atom(d, t, PC_M_CPU, 0, 0, 0, -1, -1, sqlite3_column_int64(st, 1));
	return rc ? rc : add_atom(d, t, PC_M_CPU_WAIT, 0, 0, 0, -1, -1, sqlite3_column_int64(st, 2));
}

/* A thread's CPU time on code: its running time, shared out by its
 * samples' stacks (columns: tid, stack_id, samples, all its samples,
 * its running time). */
static int row_samples(struct pc_data *d, sqlite3_stmt *st)
{
	int64_t functions[MAX_STACK];
	size_t n = stack_functions(d, sqlite3_column_int64(st, 1), functions);
	double share = (double)sqlite3_column_int64(st, 2) / (double)sqlite3_column_int64(st, 3);
	int64_t ns = (int64_t)(share * (double)sqlite3_column_int64(st, 4) + 0.5);
	/* the root's is the thread's whole running time (row_thread_times) */
	return add_code_atoms(d, thread_index(d, sqlite3_column_int64(st, 0)), PC_M_CPU, 0, -1, -1, functions, n, ns,
			      false);
}

/* A lock wait: tid, object, the op's stack, its call site's function, ns. */
static int row_lock_wait(struct pc_data *d, sqlite3_stmt *st)
{
	int64_t functions[MAX_STACK];
	size_t n = 0;
	if (sqlite3_column_type(st, 2) != SQLITE_NULL)
		n = stack_functions(d, sqlite3_column_int64(st, 2), functions);
	if (!n && sqlite3_column_type(st, 3) != SQLITE_NULL)
		functions[n++] = sqlite3_column_int64(st, 3);
	return add_code_atoms(d, thread_index(d, sqlite3_column_int64(st, 0)), PC_M_SYNC_WAIT,
			      sqlite3_column_int64(st, 1), -1, -1, functions, n, sqlite3_column_int64(st, 4), true);
}

/* A thread's running and runnable time on one CPU: tid, cpu, ns, ns. */
static int row_cpu_times(struct pc_data *d, sqlite3_stmt *st)
{
	int t = thread_index(d, sqlite3_column_int64(st, 0)), cpu = sqlite3_column_int(st, 1);
	int rc = add_cpu_atom(d, t, PC_M_CPU, cpu, sqlite3_column_int64(st, 2));
	return rc ? rc : add_cpu_atom(d, t, PC_M_CPU_WAIT, cpu, sqlite3_column_int64(st, 3));
}

/* The index in files of path @path (added when new), -1 for none (NULL),
 * below -1 when memory ran out. */
static int file_of(struct pc_data *d, const unsigned char *path)
{
	if (!path)
		return -1;
	ptrdiff_t at = keyhash_text(&d->file_keys, &d->files, &d->nr_files, &d->cap_files, INT32_MAX, (const char *)path);
	return at < 0 ? -2 : (int)at;
}

/* The index in syscalls of @name (added when new), -1 for none (NULL),
 * below -1 when memory ran out. */
static int syscall_of(struct pc_data *d, const unsigned char *name)
{
	int at = name ? intern(&d->syscalls, &d->nr_syscalls, (const char *)name) : -1;
	return name && at < 0 ? -2 : at;
}

/* An I/O wait: tid, syscall, the function its thread left the CPU in, ns. */
static int row_io_wait(struct pc_data *d, sqlite3_stmt *st)
{
	int syscall = syscall_of(d, sqlite3_column_text(st, 1));
	int64_t function = sqlite3_column_int64(st, 2);
	if (syscall < -1)
		return -ENOMEM;
	return add_code_atoms(d, thread_index(d, sqlite3_column_int64(st, 0)), PC_M_IO_WAIT, 0, syscall, -1, &function,
			      function ? 1 : 0, sqlite3_column_int64(st, 3), true);
}

/* The same in the syscalls on one file: tid, syscall, path, function, ns. */
static int row_file_io_wait(struct pc_data *d, sqlite3_stmt *st)
{
	int syscall = syscall_of(d, sqlite3_column_text(st, 1)), file = file_of(d, sqlite3_column_text(st, 2));
	int64_t function = sqlite3_column_int64(st, 3);
	if (syscall < -1 || file < -1)
		return -ENOMEM;
	return add_code_atoms(d, thread_index(d, sqlite3_column_int64(st, 0)), PC_M_IO_WAIT, 0, syscall, file,
			      &function, function ? 1 : 0, sqlite3_column_int64(st, 4), true);
}

/* A thread's reads and writes (of one file: tid, path, ops, bytes; of all:
 * tid, NULL, ops, bytes). */
static int row_io_ops(struct pc_data *d, sqlite3_stmt *st)
{
	int t = thread_index(d, sqlite3_column_int64(st, 0)), file = file_of(d, sqlite3_column_text(st, 1));
	if (file < -1)
		return -ENOMEM;
	int rc = add_atom(d, t, PC_M_IO_OPS, 0, 0, 0, -1, file, sqlite3_column_int64(st, 2));
	return rc ? rc : add_atom(d, t, PC_M_IO_BYTES, 0, 0, 0, -1, file, sqlite3_column_int64(st, 3));
}

/* Sort @v (@n) and keep each value once: how many are left. */
static size_t sort_unique(int64_t *v, size_t n)
{
	size_t k = 0;
	sorted_sort(v, n, sizeof(*v), 0);
	for (size_t i = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

static int call_cmp(const void *a, const void *b)
{
	const struct pc_call *x = a, *y = b;
	return x->caller != y->caller ? (x->caller < y->caller ? -1 : 1)
				      : (x->callee != y->callee ? (x->callee < y->callee ? -1 : 1) : 0);
}

/* The calls of @caller: [*@first, return). */
static size_t calls_of(const struct pc_data *d, int64_t caller, size_t *first)
{
	*first = SORTED_FIRST(d->calls, d->nr_calls, caller, caller, false);
	size_t end = *first;
	while (end < d->nr_calls && d->calls[end].caller == caller)
		end++;
	return end;
}

/* Drop the calls that go back up a path from a root (recursion, direct
 * or not): depth first from each root, a call to a function on the path
 * is one. What is left has no cycle, so that refining along it cannot
 * come back to a node. */
static int drop_back_calls(struct pc_data *d)
{
	enum { NEW, ON_PATH, DONE };
	uint8_t *state = calloc(d->nr_functions ? d->nr_functions : 1, 1);
	struct frame { size_t fn, next, end; } *path = malloc((d->nr_functions + 1) * sizeof(*path));
	if (!state || !path) {
		free(state);
		free(path);
		return -ENOMEM;
	}
	for (size_t r = 0; r < d->nr_roots; r++) {
		const struct pc_function *root = function_of(d, d->roots[r]);
		size_t depth = 0;
		if (!root || state[root - d->functions] != NEW)
			continue;
		path[depth].fn = (size_t)(root - d->functions);
		path[depth].end = calls_of(d, root->id, &path[depth].next);
		state[path[depth++].fn] = ON_PATH;
		while (depth) {
			struct frame *top = &path[depth - 1];
			if (top->next == top->end) {
				state[top->fn] = DONE;
				depth--;
				continue;
			}
			struct pc_call *c = &d->calls[top->next++];
			const struct pc_function *g = function_of(d, c->callee);
			if (!g)
				continue;
			size_t gi = (size_t)(g - d->functions);
			if (state[gi] == ON_PATH)
				c->callee = 0; /* back up the path: dropped below */
			else if (state[gi] == NEW) {
				path[depth].fn = gi;
				path[depth].end = calls_of(d, g->id, &path[depth].next);
				state[gi] = ON_PATH;
				depth++;
			}
		}
	}
	size_t k = 0;
	for (size_t i = 0; i < d->nr_calls; i++)
		if (d->calls[i].callee)
			d->calls[k++] = d->calls[i];
	d->nr_calls = k;
	free(state);
	free(path);
	return 0;
}

/* The call graph from the stacks (each frame called by its parent frame),
 * and its roots (the outermost frames). 0 or -ENOMEM. */
static int make_call_graph(struct pc_data *d)
{
	for (size_t i = 0; i < d->nr_stacks; i++) {
		const struct pc_stack *k = &d->stacks[i];
		const struct pc_stack *up = k->parent ? FIND(d->stacks, d->nr_stacks, id, k->parent) : NULL;
		if (!function_of(d, k->function))
			continue;
		if (!k->parent) {
			int64_t *root = append(&d->roots, &d->nr_roots, &d->cap_roots, sizeof(*root));
			if (!root)
				return -ENOMEM;
			*root = k->function;
		} else if (up && up->function != k->function && function_of(d, up->function)) {
			struct pc_call *c = append(&d->calls, &d->nr_calls, &d->cap_calls, sizeof(*c));
			if (!c)
				return -ENOMEM;
			*c = (struct pc_call){ up->function, k->function };
		}
	}
	d->nr_roots = sort_unique(d->roots, d->nr_roots);
	if (d->nr_calls > 1) /* (qsort of none may be given no array) */
		qsort(d->calls, d->nr_calls, sizeof(*d->calls), call_cmp);
	size_t k = 0;
	for (size_t i = 0; i < d->nr_calls; i++)
		if (!k || call_cmp(&d->calls[k - 1], &d->calls[i]))
			d->calls[k++] = d->calls[i];
	d->nr_calls = k;
	return drop_back_calls(d);
}

bool pc_data_use_call_graph(struct pc_data *d, bool on)
{
	size_t n = strlen(d->code_from);
	d->by_calls = on && d->nr_calls > 0;
	if (d->by_calls && !strstr(d->code_from, "call graph"))
		snprintf(d->code_from + n, sizeof(d->code_from) - n, "; /Code along their call graph");
	return d->by_calls;
}

/* What the run's code is known from, said with the search. */
static void note_code_from(struct pc_data *d, sqlite3 *db)
{
	const bool samples = db_query_int(db, "SELECT EXISTS (SELECT 1 FROM samples)", 0) > 0;
	const bool stacks = db_query_int(db, "SELECT EXISTS (SELECT 1 FROM sync_ops WHERE stack_id IS NOT NULL)", 0) > 0;
	/* with --sample (and --consultant) each switch-out has its stack */
	const bool blocked_with = db_query_int(db, "SELECT EXISTS (SELECT 1 FROM meta WHERE key = 'sample_hz')", 0) > 0;
	snprintf(d->code_from, sizeof(d->code_from), "lock waits by %s, %s", stacks ? "their stacks" : "call site",
		 samples && blocked_with ? "CPU by samples, I/O where it blocked"
		 : samples		 ? "CPU by samples, I/O nowhere"
		 : blocked_with		 ? "CPU nowhere, I/O where it blocked"
					 : "CPU and I/O nowhere (no --sample)");
}

/* A window's parameters: an interval clipped to it, and whether one
 * overlaps it. */
#define CLIP(s, e) "(MIN(" e ", :to) - MAX(" s ", :from))"
#define OVERLAPS(s, e) "(" s " < :to AND " e " > :from)"
/* SQL: the blocked_io intervals c (state_causes) inside each syscall y
 * on a file, @sum (SQL text) of their time, by thread, syscall, path and
 * the function the thread left the CPU in;
 * an interval begins inside its syscall and ends by the syscall's end. */
/* (y's own end; for one that never returned, the syscalls source going
 * off, which saw no more of it; or none: a bound of y alone, which the
 * index of c takes) */
#define FILE_IO_Y_END                                                                              \
	"COALESCE(y.end_ns, (SELECT MIN(i.off_ns) FROM instrumentation i WHERE i.target = 'syscalls' " \
	"AND i.off_ns > y.start_ns), 9223372036854775807)"
#define FILE_IO_END "MIN(c.end_ns, " FILE_IO_Y_END ")"
#define FILE_IO_CLIP FILE_IO_END " - MAX(c.start_ns, y.start_ns)"
#define FILE_IO_WAIT(sum)                                                                                   \
	"SELECT y.tid, y.name, y.path, COALESCE(c.function_id, 0), " sum " FROM syscalls y CROSS JOIN "        \
	"state_causes c ON c.tid = y.tid "                                                                      \
	"AND c.state = 'blocked_io' AND c.start_ns >= y.start_ns AND c.start_ns < " FILE_IO_Y_END " "            \
	"WHERE y.path IS NOT NULL"
/* A thread's running time in the window, from its states. */
#define WINDOW_RUNNING \
	"SELECT tid, SUM(" CLIP("start_ns", "end_ns") ") AS running_ns FROM thread_states WHERE state = 'running' AND " \
	OVERLAPS("start_ns", "end_ns") " GROUP BY tid"

/*
 * What pc_data_load reads, in order: over the whole run from the summary
 * tables, over a window (:from, :to) from the rows clipped to it (the
 * same SQL when NULL), each row handed to @row.
 */
static const struct {
	const char *whole, *windowed;
	int (*row)(struct pc_data *, sqlite3_stmt *);
	const char *unless_none; /* a meta count: none, none to read (a run of an older mtx: absent) */
} loads[] = {
	{ "SELECT x.tid, MAX(x.pid), (SELECT y.name FROM thread_totals y WHERE y.tid = x.tid "
	  "ORDER BY y.start_ns DESC LIMIT 1), SUM(COALESCE(x.end_ns, (SELECT MAX(end_ns) FROM "
	  "thread_totals)) - x.start_ns) FROM thread_totals x GROUP BY x.tid ORDER BY x.tid",
	  "SELECT x.tid, MAX(x.pid), (SELECT y.name FROM thread_totals y WHERE y.tid = x.tid "
	  "ORDER BY y.start_ns DESC LIMIT 1), SUM(MAX(0, " CLIP("x.start_ns", "COALESCE(x.end_ns, (SELECT MAX(end_ns) "
	  "FROM thread_totals))") ")) FROM thread_totals x GROUP BY x.tid ORDER BY x.tid",
	  row_thread, NULL },
	{ "SELECT MIN(start_ns), MAX(end_ns) FROM thread_totals",
	  "SELECT MAX(MIN(start_ns), :from), MIN(MAX(end_ns), :to) FROM thread_totals", row_span, NULL },
	{ "SELECT id, kind, addr, name FROM sync_objects ORDER BY id", NULL, row_object, NULL },
	{ "SELECT id, name, module FROM functions ORDER BY id", NULL, row_function, NULL },
	{ "SELECT id, COALESCE(parent_id, 0), function_id FROM stacks ORDER BY id", NULL, row_stack, NULL },
	{ "SELECT tid, SUM(running_ns), SUM(runnable_ns) FROM thread_totals GROUP BY tid",
	  "SELECT tid, SUM(CASE WHEN state = 'running' THEN " CLIP("start_ns", "end_ns") " ELSE 0 END), "
	  "SUM(CASE WHEN state = 'runnable' THEN " CLIP("start_ns", "end_ns") " ELSE 0 END) FROM thread_states "
	  "WHERE " OVERLAPS("start_ns", "end_ns") " GROUP BY tid",
	  row_thread_times, NULL },
	/* the same per CPU (cpu_totals: thread_states.cpu, what --detail added up included) */
	{ "SELECT tid, cpu, SUM(running_ns), SUM(runnable_ns) FROM cpu_totals GROUP BY tid, cpu ORDER BY tid, cpu",
	  "SELECT tid, cpu, SUM(CASE WHEN state = 'running' THEN " CLIP("start_ns", "end_ns") " ELSE 0 END), "
	  "SUM(CASE WHEN state = 'runnable' THEN " CLIP("start_ns", "end_ns") " ELSE 0 END) FROM thread_states "
	  "WHERE state IN ('running', 'runnable') AND cpu IS NOT NULL AND " OVERLAPS("start_ns", "end_ns")
	  " GROUP BY tid, cpu ORDER BY tid, cpu",
	  row_cpu_times, NULL },
	{ "WITH n AS (SELECT tid, COUNT(*) AS all_samples FROM samples GROUP BY tid), "
	  "r AS (SELECT tid, SUM(running_ns) AS running_ns FROM thread_totals GROUP BY tid) "
	  "SELECT s.tid, s.stack_id, COUNT(*), n.all_samples, r.running_ns FROM samples s "
	  "JOIN n ON n.tid = s.tid JOIN r ON r.tid = s.tid WHERE s.stack_id IS NOT NULL "
	  "GROUP BY s.tid, s.stack_id ORDER BY s.tid, s.stack_id",
	  "WITH n AS (SELECT tid, COUNT(*) AS all_samples FROM samples WHERE ts_ns >= :from AND ts_ns < :to "
	  "GROUP BY tid), r AS (" WINDOW_RUNNING ") "
	  "SELECT s.tid, s.stack_id, COUNT(*), n.all_samples, r.running_ns FROM samples s "
	  "JOIN n ON n.tid = s.tid JOIN r ON r.tid = s.tid WHERE s.stack_id IS NOT NULL AND s.ts_ns >= :from AND "
	  "s.ts_ns < :to GROUP BY s.tid, s.stack_id ORDER BY s.tid, s.stack_id",
	  row_samples, NULL },
	/* the time in the calls that take a lock: blocked, runnable once woken, spinning */
	{ "SELECT x.tid, x.object_id, x.stack_id, cf.function_id, SUM(x.total_ns) "
	  "FROM sync_totals x JOIN sync_objects o ON o.id = x.object_id "
	  "LEFT JOIN callsite_frames cf ON cf.pid = o.pid AND cf.addr = x.callsite "
	  "WHERE " TAKES_A_LOCK("x", "o") " GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4",
	  "SELECT x.tid, x.object_id, x.stack_id, cf.function_id, SUM(" CLIP("x.start_ns", "x.end_ns") ") "
	  "FROM sync_ops x JOIN sync_objects o ON o.id = x.object_id "
	  "LEFT JOIN callsite_frames cf ON cf.pid = o.pid AND cf.addr = x.callsite "
	  "WHERE " TAKES_A_LOCK("x", "o") " AND " OVERLAPS("x.start_ns", "x.end_ns") " GROUP BY 1, 2, 3, 4 "
	  "ORDER BY 1, 2, 3, 4",
	  row_lock_wait, NULL },
	{ "SELECT tid, syscall, COALESCE(function_id, 0), SUM(end_ns - start_ns) FROM state_causes "
	  "WHERE state = 'blocked_io' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3",
	  "SELECT tid, syscall, COALESCE(function_id, 0), SUM(" CLIP("start_ns", "end_ns") ") FROM state_causes "
	  "WHERE state = 'blocked_io' AND " OVERLAPS("start_ns", "end_ns") " GROUP BY 1, 2, 3 ORDER BY 1, 2, 3",
	  row_io_wait, NULL },
	{ "SELECT tid, NULL, COUNT(*), SUM(ret) FROM syscalls WHERE " IO_OP " GROUP BY tid ORDER BY tid",
	  "SELECT tid, NULL, COUNT(*), SUM(ret) FROM syscalls WHERE " IO_OP " AND end_ns >= :from AND end_ns < :to "
	  "GROUP BY tid ORDER BY tid",
	  row_io_ops, NULL },
	/* /File: the same of the syscalls with a path, when the run has any */
	{ FILE_IO_WAIT("SUM(" FILE_IO_CLIP ")") " GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4",
	  FILE_IO_WAIT("SUM(MIN(:to, " FILE_IO_END ") - MAX(:from, c.start_ns, y.start_ns))") " AND c.start_ns < :to AND "
	  FILE_IO_END " > :from GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4",
	  row_file_io_wait, "syscall_paths" },
	{ "SELECT tid, path, COUNT(*), SUM(ret) FROM syscalls WHERE " IO_OP " AND path IS NOT NULL "
	  "GROUP BY 1, 2 ORDER BY 1, 2",
	  "SELECT tid, path, COUNT(*), SUM(ret) FROM syscalls WHERE " IO_OP " AND path IS NOT NULL AND end_ns >= :from "
	  "AND end_ns < :to GROUP BY 1, 2 ORDER BY 1, 2",
	  row_io_ops, "syscall_paths" },
};

int pc_data_load(sqlite3 *db, const struct pc_window *window, struct pc_data **out, char **err)
{
	struct pc_data *d = calloc(1, sizeof(*d));
	int rc = 0;
	*out = NULL;
	if (!d)
		return -ENOMEM;
	for (size_t i = 0; i < sizeof(loads) / sizeof(loads[0]) && !rc; i++) {
		char *count = loads[i].unless_none ? db_meta_get(db, loads[i].unless_none) : NULL;
		bool none = loads[i].unless_none && (!count || !atoll(count));
		free(count);
		if (!none)
			rc = each_row(db, window && loads[i].windowed ? loads[i].windowed : loads[i].whole, window,
				      loads[i].row, d, err);
	}
	if (rc) {
		pc_data_free(d);
		return rc;
	}
	note_code_from(d, db);
	if ((rc = make_call_graph(d))) {
		pc_data_free(d);
		return rc;
	}
	d->nr_cpus = (int)db_query_int(db, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'nr_cpus'", 0);
	free(d->stacks); /* only the loading walks them */
	d->stacks = NULL;
	d->nr_stacks = d->cap_stacks = 0;
	*out = d;
	return 0;
}

/* ---- built by hand: the live search's run so far ---------------------------- */

struct pc_data *pc_data_new(void)
{
	return calloc(1, sizeof(struct pc_data));
}

int pc_data_add_thread(struct pc_data *d, int64_t tid, int32_t pid, const char *name, int64_t time_ns)
{
	struct pc_thread *t = append(&d->threads, &d->nr_threads, &d->cap_threads, sizeof(*t));
	if (!t)
		return -ENOMEM;
	*t = (struct pc_thread){ tid, pid, strdup(name ? name : "?"), time_ns };
	return t->name ? 0 : -ENOMEM;
}

int pc_data_add_object(struct pc_data *d, int64_t id, const char *kind, int64_t addr)
{
	struct pc_object *o = append(&d->objects, &d->nr_objects, &d->cap_objects, sizeof(*o));
	if (!o)
		return -ENOMEM;
	*o = (struct pc_object){ id, addr, -1, NULL };
	for (int k = 0; kind && k < NR_KINDS; k++)
		if (!strcmp(kind, kinds[k]))
			o->kind = k;
	return 0;
}

int pc_data_add_function(struct pc_data *d, int64_t id, const char *name, const char *module)
{
	struct pc_function *f = append(&d->functions, &d->nr_functions, &d->cap_functions, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->id = id;
	f->name = strdup(name);
	f->module = intern(&d->modules, &d->nr_modules, base_name(module));
	return f->name && f->module >= 0 ? 0 : -ENOMEM;
}

/* The threads, objects and functions are all in: sorted once for the lookups. */
static void sort_added(struct pc_data *d)
{
	if (d->sorted)
		return;
	SORTED_SORT(d->threads, d->nr_threads, tid);
	SORTED_SORT(d->objects, d->nr_objects, id);
	SORTED_SORT(d->functions, d->nr_functions, id);
	d->sorted = true;
}

int pc_data_add_cpu(struct pc_data *d, int64_t tid, enum pc_metric m, int cpu, int64_t value)
{
	sort_added(d);
	return add_cpu_atom(d, thread_index(d, tid), m, cpu, value);
}

int pc_data_add_file(struct pc_data *d, int64_t tid, enum pc_metric m, const char *path, int64_t function_id,
		     int64_t value)
{
	int file;
	sort_added(d);
	if ((file = file_of(d, (const unsigned char *)path)) < -1)
		return -ENOMEM;
	return add_code_atoms(d, thread_index(d, tid), m, 0, -1, file, &function_id, function_id ? 1 : 0, value,
			      !function_id);
}

void pc_data_set_nr_cpus(struct pc_data *d, int nr_cpus)
{
	d->nr_cpus = nr_cpus;
}

int pc_data_add(struct pc_data *d, int64_t tid, enum pc_metric m, int64_t object_id, int64_t function_id,
		int64_t value)
{
	sort_added(d);
	return add_code_atoms(d, thread_index(d, tid), m, object_id, -1, -1, &function_id, function_id ? 1 : 0, value,
			      !function_id);
}

void pc_data_set_span(struct pc_data *d, int64_t first_ns, int64_t last_ns, const char *code_from)
{
	d->first_ns = first_ns;
	d->last_ns = last_ns;
	snprintf(d->code_from, sizeof(d->code_from), "%s", code_from);
}

void pc_data_free(struct pc_data *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nr_threads; i++)
		free(d->threads[i].name);
	for (size_t i = 0; i < d->nr_objects; i++)
		free(d->objects[i].name);
	for (size_t i = 0; i < d->nr_functions; i++)
		free(d->functions[i].name);
	for (size_t i = 0; i < d->nr_modules; i++)
		free(d->modules[i]);
	for (size_t i = 0; i < d->nr_syscalls; i++)
		free(d->syscalls[i]);
	for (size_t i = 0; i < d->nr_files; i++)
		free(d->files[i]);
	free(d->files);
	keyhash_free(&d->file_keys);
	free(d->threads);
	free(d->objects);
	free(d->functions);
	free(d->modules);
	free(d->syscalls);
	free(d->atoms);
	free(d->stacks);
	free(d->calls);
	free(d->roots);
	free(d);
}

/* Whether thread @t is in process component @r. */
static bool thread_in(const struct pc_thread *t, const struct pc_resource *r)
{
	return r->level == 0 || (r->level == 1 && t->pid == r->id) || (r->level == 2 && t->tid == r->id);
}

static bool object_in(const struct pc_atom *a, const struct pc_resource *r)
{
	return r->level == 0 || (r->level == 1 && a->kind == r->id) || (r->level == 2 && a->object == r->id);
}

static bool code_is(const struct pc_atom *a, const struct pc_resource *r)
{
	return a->code_level == r->level && (r->level == 0 || a->code_id == r->id);
}

static bool machine_is(const struct pc_atom *a, const struct pc_resource *r)
{
	return r->level ? a->cpu == r->id : a->cpu < 0;
}

static bool file_in(const struct pc_atom *a, const struct pc_resource *r)
{
	return r->level ? a->file == r->id : a->file < 0;
}

/* Whether atom @a counts at @f, the component of hierarchy @except
 * aside (-1: none). */
static bool in_focus_but(const struct pc_data *d, const struct pc_atom *a, const struct pc_focus *f, int except)
{
	return (except == PC_PROCESS || thread_in(&d->threads[a->thread], &f->r[PC_PROCESS])) &&
	       (except == PC_SYNC_OBJECT || object_in(a, &f->r[PC_SYNC_OBJECT])) &&
	       (except == PC_CODE || code_is(a, &f->r[PC_CODE])) &&
	       (except == PC_MACHINE || machine_is(a, &f->r[PC_MACHINE])) &&
	       (except == PC_FILE || file_in(a, &f->r[PC_FILE]));
}

static bool in_focus(const struct pc_data *d, const struct pc_atom *a, const struct pc_focus *f)
{
	return in_focus_but(d, a, f, -1);
}

int64_t pc_data_sum(const struct pc_data *d, const struct pc_focus *f, enum pc_metric m)
{
	int64_t sum = 0;
	for (size_t i = 0; i < d->nr_atoms; i++)
		if (d->atoms[i].metric == m && in_focus(d, &d->atoms[i], f))
			sum += d->atoms[i].value;
	return sum;
}

size_t pc_data_nr_threads(const struct pc_data *d, const struct pc_focus *f)
{
	size_t n = 0;
	for (size_t i = 0; i < d->nr_threads; i++)
		n += thread_in(&d->threads[i], &f->r[PC_PROCESS]);
	return n;
}

int64_t pc_data_thread_time(const struct pc_data *d, const struct pc_focus *f)
{
	int64_t sum = 0;
	for (size_t i = 0; i < d->nr_threads; i++)
		if (!f || thread_in(&d->threads[i], &f->r[PC_PROCESS]))
			sum += d->threads[i].time_ns;
	return sum;
}

/* The child of component @r of hierarchy @h that atom @a is under, or -1. */
static int64_t child_of(const struct pc_data *d, const struct pc_atom *a, enum pc_hierarchy h,
			const struct pc_resource *r)
{
	const struct pc_thread *t = &d->threads[a->thread];
	switch (h) {
	case PC_PROCESS:
		return r->level == 0 ? t->pid : r->level == 1 && t->pid == r->id ? t->tid : -1;
	case PC_SYNC_OBJECT:
		return !a->object ? -1 : r->level == 0 ? a->kind : r->level == 1 && a->kind == r->id ? a->object : -1;
	case PC_MACHINE:
		return r->level == 0 ? a->cpu : -1;
	case PC_FILE:
		return r->level == 0 ? a->file : -1;
	default:
		if (a->code_level != r->level + 1 || r->level > 1)
			return -1;
		if (r->level == 0)
			return a->code_id;
		const struct pc_function *fn = function_of(d, a->code_id);
		return fn && fn->module == r->id ? a->code_id : -1;
	}
}

/* Whether @f's /Code component is refined along the call graph: from
 * the root to the outermost functions, from a function to its callees. */
static bool by_calls(const struct pc_data *d, const struct pc_focus *f, enum pc_hierarchy h)
{
	return h == PC_CODE && d->by_calls && f->r[PC_CODE].level != 1;
}

int pc_data_child_level(const struct pc_data *d, const struct pc_focus *f, enum pc_hierarchy h)
{
	return by_calls(d, f, h) ? 2 : f->r[h].level + 1;
}

/* Whether function @id is a child of @f's /Code node along the call graph. */
static bool called_from(const struct pc_data *d, const struct pc_resource *r, int64_t id)
{
	size_t at, end;
	if (r->level == 0) {
		at = sorted_first(d->roots, d->nr_roots, sizeof(*d->roots), 0, id, false);
		return at < d->nr_roots && d->roots[at] == id;
	}
	for (end = calls_of(d, r->id, &at); at < end; at++)
		if (d->calls[at].callee == id)
			return true;
	return false;
}

int pc_data_children(const struct pc_data *d, const struct pc_focus *f, enum pc_hierarchy h, enum pc_metric m,
		     int64_t **ids, size_t *nr)
{
	const bool calls = by_calls(d, f, h);
	size_t n = 0, cap = 0;
	int64_t *v = NULL;
	*ids = NULL;
	*nr = 0;
	for (size_t i = 0; i < d->nr_atoms; i++) {
		const struct pc_atom *a = &d->atoms[i];
		int64_t c;
		if (a->metric != m || !in_focus_but(d, a, f, h))
			continue;
		if (calls ? a->code_level != 2 || !called_from(d, &f->r[PC_CODE], c = a->code_id)
			  : (c = child_of(d, a, h, &f->r[h])) < 0)
			continue;
		int64_t *more = grow_array(v, &cap, n, sizeof(*v), 64);
		if (!more) {
			free(v);
			return -ENOMEM;
		}
		v = more;
		v[n++] = c;
	}
	*ids = v;
	*nr = sort_unique(v, n);
	return 0;
}

const char *pc_data_code_from(const struct pc_data *d)
{
	return d->code_from;
}

size_t pc_data_nr_calls(const struct pc_data *d)
{
	return d->nr_calls;
}

int pc_data_nr_cpus(const struct pc_data *d)
{
	return d->nr_cpus;
}

static const struct pc_thread *thread_of(const struct pc_data *d, int64_t tid)
{
	int i = thread_index(d, tid);
	return i < 0 ? NULL : &d->threads[i];
}

char *pc_data_focus_name(const struct pc_data *d, const struct pc_focus *f)
{
	char *out = NULL;
	size_t len = 0;
	FILE *s = open_memstream(&out, &len);
	bool any = false;
	if (!s)
		return NULL;
	for (int h = 0; h < PC_HIERARCHIES; h++) {
		const struct pc_resource *r = &f->r[h];
		if (!r->level)
			continue;
		fputs(any ? "," : "", s);
		any = true;
		if (h == PC_CODE) {
			const struct pc_function *fn = r->level == 2 ? function_of(d, r->id) : NULL;
			fprintf(s, "/Code/%s", r->level == 1 ? d->modules[r->id] : fn ? d->modules[fn->module] : "?");
			if (r->level == 2)
				fprintf(s, "/%s", fn ? fn->name : "?");
		} else if (h == PC_PROCESS) {
			const struct pc_thread *t = r->level == 2 ? thread_of(d, r->id) : NULL;
			fprintf(s, "/Process/%" PRId64, r->level == 1 ? r->id : t ? (int64_t)t->pid : 0);
			if (r->level == 2)
				fprintf(s, "/%s (%" PRId64 ")", t ? t->name : "?", r->id);
		} else if (h == PC_MACHINE) {
			fprintf(s, "/Machine/cpu%" PRId64, r->id);
		} else if (h == PC_FILE) {
			fprintf(s, "/File%s", r->id >= 0 && (size_t)r->id < d->nr_files ? d->files[r->id] : "/?");
		} else {
			const struct pc_object *o = r->level == 2 ? object_of(d, r->id)
								  : NULL;
			int kind = r->level == 1 ? (int)r->id : o ? o->kind : -1;
			fprintf(s, "/SyncObject/%s", kind >= 0 && kind < NR_KINDS ? kinds[kind] : "?");
			if (r->level == 2)
				fprintf(s, "/%#" PRIx64, o ? (uint64_t)o->addr : 0);
		}
	}
	if (!any)
		fputs("/", s);
	if (fclose(s)) {
		free(out);
		return NULL;
	}
	return out;
}

void pc_data_where(const struct pc_data *d, const struct pc_focus *f, bool io, struct pc_where *w)
{
	const struct pc_resource *p = &f->r[PC_PROCESS], *o = &f->r[PC_SYNC_OBJECT], *c = &f->r[PC_CODE];
	memset(w, 0, sizeof(*w));
	if (p->level) {
		const struct pc_thread *t = p->level == 2 ? thread_of(d, p->id) : NULL;
		w->pid = p->level == 1 ? (int32_t)p->id : t ? t->pid : 0;
		if (t) {
			w->tid = t->tid;
			w->thread_name = t->name;
		}
	}
	if (o->level == 1 && o->id >= 0 && o->id < NR_KINDS)
		w->object_kind = kinds[o->id];
	if (o->level == 2) {
		const struct pc_object *ob = object_of(d, o->id);
		if (ob) {
			w->object_id = ob->id;
			w->object_addr = ob->addr;
			w->object_kind = ob->kind >= 0 ? kinds[ob->kind] : NULL;
			w->object_name = ob->name;
		}
	}
	if (c->level == 1)
		w->module = d->modules[c->id];
	if (c->level == 2) {
		const struct pc_function *fn = function_of(d, c->id);
		if (fn) {
			w->function = fn->name;
			w->module = d->modules[fn->module];
		}
	}
	if (f->r[PC_MACHINE].level) {
		w->has_cpu = true;
		w->cpu = (int32_t)f->r[PC_MACHINE].id;
	}
	if (f->r[PC_FILE].level && (size_t)f->r[PC_FILE].id < d->nr_files)
		w->file = d->files[f->r[PC_FILE].id];
	if (io) { /* the syscall that holds most of the focus's I/O waits */
		int64_t best = 0;
		for (size_t s = 0; s < d->nr_syscalls; s++) {
			int64_t sum = 0;
			for (size_t i = 0; i < d->nr_atoms; i++)
				if (d->atoms[i].metric == PC_M_IO_WAIT && d->atoms[i].syscall == (int)s &&
				    in_focus(d, &d->atoms[i], f))
					sum += d->atoms[i].value;
			if (sum > best) {
				best = sum;
				w->syscall = d->syscalls[s];
			}
		}
	}
}

void pc_data_span(const struct pc_data *d, int64_t *first_ns, int64_t *last_ns)
{
	*first_ns = d->first_ns;
	*last_ns = d->last_ns;
}

/* ---- over time (S5's time histograms) ---------------------------------------- */

/* Each metric's rows over time: (tid, object id or NULL, start_ns, end_ns,
 * amount, cpu or NULL, file's path or NULL): an interval's time counts
 * when amount is NULL, else the amount at end_ns. The same rows as pc_data_load's totals, where they
 * have times; @summarized: the meta key of the instant past which
 * --detail's budget added some of them up rather than keeping them. */
static const struct {
	const char *sql, *summarized;
} over_time[PC_METRICS] = {
	[PC_M_CPU] = { "SELECT tid, NULL, start_ns, end_ns, NULL, cpu, NULL FROM thread_states WHERE state = 'running'",
		       "detail_until_ns" },
	[PC_M_CPU_WAIT] = { "SELECT tid, NULL, start_ns, end_ns, NULL, cpu, NULL FROM thread_states WHERE state = 'runnable'",
			    "detail_until_ns" },
	[PC_M_SYNC_WAIT] = { "SELECT x.tid, x.object_id, x.start_ns, x.end_ns, NULL, NULL, NULL FROM sync_ops x "
			     "JOIN sync_objects o ON o.id = x.object_id "
			     "WHERE " TAKES_A_LOCK("x", "o") " AND x.end_ns IS NOT NULL",
			     "sync_detail_until_ns" },
	[PC_M_IO_WAIT] = { "SELECT tid, NULL, start_ns, end_ns, NULL, NULL, NULL FROM state_causes WHERE state = 'blocked_io'",
			   NULL },
	[PC_M_IO_OPS] = { "SELECT tid, NULL, end_ns, end_ns, 1, NULL, path FROM syscalls WHERE " IO_OP,
			  "detail_until_ns" },
	[PC_M_IO_BYTES] = { "SELECT tid, NULL, end_ns, end_ns, ret, NULL, path FROM syscalls WHERE " IO_OP,
			    "detail_until_ns" },
};

void pc_histogram_fit(struct pc_histogram *h, int64_t last_ns)
{
	for (h->folds = 0; last_ns >= h->origin_ns + h->width_ns * h->nr_buckets; h->folds++)
		h->width_ns *= 2;
}

/* io_wait's rows at a file: the blocked_io intervals inside its syscalls. */
static const char io_wait_by_file[] = "SELECT y.tid, NULL, MAX(c.start_ns, y.start_ns), " FILE_IO_END ", NULL, NULL, "
				      "y.path FROM syscalls y CROSS JOIN state_causes c ON c.tid = y.tid AND c.state = "
				      "'blocked_io' AND c.start_ns >= y.start_ns AND c.start_ns < " FILE_IO_Y_END
				      " WHERE y.path IS NOT NULL";

int pc_data_histogram(sqlite3 *db, const struct pc_data *d, const struct pc_focus *f, enum pc_metric m,
		      const struct pc_window *window, struct pc_histogram *h, char **err)
{
	const int64_t from = window ? window->from_ns : INT64_MIN, to = window ? window->to_ns : INT64_MAX;
	const struct pc_resource *r = &f->r[PC_SYNC_OBJECT], *cpu = &f->r[PC_MACHINE], *file = &f->r[PC_FILE];
	sqlite3_stmt *st;
	char *until = over_time[m].summarized ? db_meta_get(db, over_time[m].summarized) : NULL;
	int rc = 0, step;
	h->summarized_from_ns = until ? strtoll(until, NULL, 10) : INT64_MAX;
	free(until);
	if (sqlite3_prepare_v2(db, m == PC_M_IO_WAIT && file->level ? io_wait_by_file : over_time[m].sql, -1, &st,
			       NULL) != SQLITE_OK)
		return sql_fail(db, err);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int thread = thread_index(d, sqlite3_column_int64(st, 0));
		int64_t object = sqlite3_column_int64(st, 1);
		const struct pc_object *o = object ? object_of(d, object) : NULL;
		int64_t start = sqlite3_column_int64(st, 2), end = sqlite3_column_int64(st, 3);
		if (thread < 0 || !thread_in(&d->threads[thread], &f->r[PC_PROCESS]))
			continue;
		if (r->level && !(o && (r->level == 1 ? o->kind == r->id : o->id == r->id)))
			continue;
		if (cpu->level && (sqlite3_column_type(st, 5) == SQLITE_NULL || sqlite3_column_int64(st, 5) != cpu->id))
			continue;
		if (file->level && (!sqlite3_column_text(st, 6) ||
				    strcmp((const char *)sqlite3_column_text(st, 6), d->files[file->id])))
			continue;
		if (sqlite3_column_type(st, 4) == SQLITE_NULL) {
			if (start < to && end > from) /* the window's part */
				histogram_spread(h->value, h->nr_buckets, h->origin_ns, h->width_ns,
						 start > from ? start : from, end < to ? end : to);
		} else if (end >= from && end < to && end >= h->origin_ns &&
			   end < h->origin_ns + h->width_ns * h->nr_buckets)
			h->value[(end - h->origin_ns) / h->width_ns] += sqlite3_column_int64(st, 4);
	}
	if (step != SQLITE_DONE)
		rc = sql_fail(db, err);
	sqlite3_finalize(st);
	return rc;
}

/* ---- foci by name ---------------------------------------------------------- */

static const char *const hierarchy_names[PC_HIERARCHIES] = { [PC_CODE] = "Code", [PC_PROCESS] = "Process",
							      [PC_SYNC_OBJECT] = "SyncObject", [PC_MACHINE] = "Machine",
							      [PC_FILE] = "File" };

/* The thread of process @pid that @name names: a tid, "NAME (TID)", or a
 * name only one of its threads has. */
static const struct pc_thread *thread_named(const struct pc_data *d, int64_t pid, const char *name, int *matches)
{
	const struct pc_thread *found = NULL;
	const char *paren = strrchr(name, '(');
	char *end;
	long long tid = strtoll(paren ? paren + 1 : name, &end, 10);
	bool by_tid = end != (paren ? paren + 1 : name) && (paren ? !strcmp(end, ")") : !*end);
	*matches = 0;
	for (size_t i = 0; i < d->nr_threads; i++) {
		const struct pc_thread *t = &d->threads[i];
		if (t->pid == pid && (by_tid ? t->tid == tid : !strcmp(t->name, name))) {
			found = t;
			++*matches;
		}
	}
	return found;
}

/* The object of kind @kind that @name names: its address, #ID, or name. */
static const struct pc_object *object_named(const struct pc_data *d, int kind, const char *name, int *matches)
{
	const struct pc_object *found = NULL;
	char *end;
	bool by_id = name[0] == '#', by_addr = !by_id && name[0] == '0' && (name[1] == 'x' || name[1] == 'X');
	long long v = by_id ? strtoll(name + 1, &end, 10) : by_addr ? (long long)strtoull(name, &end, 16) : 0;
	if ((by_id || by_addr) && *end)
		by_id = by_addr = false;
	*matches = 0;
	for (size_t i = 0; i < d->nr_objects; i++) {
		const struct pc_object *o = &d->objects[i];
		if (o->kind == kind && (by_id ? o->id == v : by_addr ? o->addr == v : o->name && !strcmp(o->name, name))) {
			found = o;
			++*matches;
		}
	}
	return found;
}

/* -EINVAL, with the message in @err. */
static int __attribute__((format(printf, 2, 3))) focus_error(char **err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_vset(err, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* One hierarchy's node @path (after "/NAME/"), into @r. 0 or -EINVAL. */
static int parse_node(const struct pc_data *d, enum pc_hierarchy h, const char *path, struct pc_resource *r,
		      char **err)
{
	const char *slash = strchr(path, '/'), *second = slash ? slash + 1 : NULL;
	char first[256];
	int matches = 0;
	snprintf(first, sizeof(first), "%.*s", (int)(slash ? slash - path : (long)strlen(path)), path);
	if (!first[0] || (second && !second[0]))
		return focus_error(err, "focus /%s/%s: name a node of it", hierarchy_names[h], path);
	if (h == PC_PROCESS) {
		char *end;
		long long pid = strtoll(first, &end, 10);
		bool known = false;
		for (size_t i = 0; i < d->nr_threads; i++)
			known |= d->threads[i].pid == pid;
		if (*end || !known)
			return focus_error(err, "focus /Process/%s: no process %s in the run", path, first);
		*r = (struct pc_resource){ 1, pid };
		if (second) {
			const struct pc_thread *t = thread_named(d, pid, second, &matches);
			if (matches != 1)
				return focus_error(err, "focus /Process/%s: %s", path,
						   matches ? "several threads have that name: give its tid"
							   : "no such thread of that process (a tid, a name, or NAME (TID))");
			*r = (struct pc_resource){ 2, t->tid };
		}
		return 0;
	}
	if (h == PC_FILE) { /* the whole rest, slashes and all */
		for (size_t i = 0; i < d->nr_files; i++)
			if (!strcmp(d->files[i] + 1, path)) {
				*r = (struct pc_resource){ 1, (int64_t)i };
				return 0;
			}
		return focus_error(err, "focus /File/%s: no I/O of the run on that file", path);
	}
	if (h == PC_MACHINE) {
		char *end;
		long cpu = strncmp(first, "cpu", 3) ? -1 : strtol(first + 3, &end, 10);
		if (cpu < 0 || cpu > INT16_MAX || end == first + 3 || *end || second)
			return focus_error(err, "focus /Machine/%s: name a CPU, as cpu0", path);
		*r = (struct pc_resource){ 1, cpu };
		return 0;
	}
	if (h == PC_SYNC_OBJECT) {
		int kind = -1;
		for (int k = 0; k < NR_KINDS; k++)
			if (!strcmp(first, kinds[k]))
				kind = k;
		if (kind < 0)
			return focus_error(err, "focus /SyncObject/%s: '%s' is no kind of sync object (mutex, rwlock, "
						"spinlock, cond, sem, barrier, signal, thread)", path, first);
		*r = (struct pc_resource){ 1, kind };
		if (second) {
			const struct pc_object *o = object_named(d, kind, second, &matches);
			if (matches != 1)
				return focus_error(err, "focus /SyncObject/%s: %s", path,
						   matches ? "several objects have that name: give its address or #id"
							   : "no such object (its address 0x..., #id or name)");
			*r = (struct pc_resource){ 2, o->id };
		}
		return 0;
	}
	int module = -1;
	for (size_t i = 0; i < d->nr_modules; i++)
		if (!strcmp(d->modules[i], first))
			module = (int)i;
	if (module < 0)
		return focus_error(err, "focus /Code/%s: no module '%s' has a function in the run", path, first);
	*r = (struct pc_resource){ 1, module };
	if (second) {
		const struct pc_function *found = NULL;
		for (size_t i = 0; i < d->nr_functions; i++)
			if (d->functions[i].module == module && !strcmp(d->functions[i].name, second)) {
				found = &d->functions[i];
				matches++;
			}
		if (matches != 1)
			return focus_error(err, "focus /Code/%s: %s", path,
					   matches ? "several functions of that module have that name"
						   : "no function of that name in that module");
		*r = (struct pc_resource){ 2, found->id };
	}
	return 0;
}

int pc_data_parse_focus(const struct pc_data *d, const char *text, struct pc_focus *f, char **err)
{
	bool named[PC_HIERARCHIES] = { false };
	const char *p = text;
	if (!strcmp(text, "/"))
		return 0;
	while (*p) {
		/* a component ends at a comma that starts the next one */
		const char *next = p, *end;
		char part[1024];
		int h = -1;
		while ((next = strchr(next, ',')) && next[1] != '/')
			next++;
		end = next ? next : p + strlen(p);
		snprintf(part, sizeof(part), "%.*s", (int)(end - p), p);
		for (int k = 0; k < PC_HIERARCHIES; k++) {
			size_t n = strlen(hierarchy_names[k]);
			if (part[0] == '/' && !strncmp(part + 1, hierarchy_names[k], n) &&
			    (part[n + 1] == '/' || !part[n + 1]))
				h = k;
		}
		if (h < 0)
			return focus_error(err, "focus '%s': not /Code/..., /Process/..., /SyncObject/..., /Machine/... "
						"or /File/...", part);
		if (named[h])
			return focus_error(err, "focus '%s': one node of /%s at most", text, hierarchy_names[h]);
		named[h] = true;
		f->r[h] = (struct pc_resource){ 0, 0 };
		if (part[strlen(hierarchy_names[h]) + 1] == '/' &&
		    parse_node(d, (enum pc_hierarchy)h, part + strlen(hierarchy_names[h]) + 2, &f->r[h], err))
			return -EINVAL;
		p = next ? next + 1 : end;
	}
	return 0;
}
