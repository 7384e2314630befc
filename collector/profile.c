/*
 * collector/profile.c - see profile.h.
 *
 * Address spaces: one per process image, [start_ns, end_ns). A FORK of a
 * new process starts one holding a copy of the parent's mappings (the
 * kernel reports no MMAP2 for inherited ones); an exec ends the process's
 * current one and starts an empty one, which the MMAP2 records of the new
 * image then fill. munmap is not reported: a later mapping over the same
 * addresses wins.
 *
 * Naming, at the end: a stack node (space, pc) -> the newest mapping of
 * its space holding pc -> the file and load bias -> src/symbols.c, which
 * gives the function and the functions inlined into it at that address,
 * each with the line it is at there. The node's own row gets the
 * innermost one; the outer ones get new rows between it and its parent
 * (ids after the last node's), so sample rows written during the run keep
 * their stack ids. A sync call site is a node of its own (no parent), so
 * that its frames are rows too (callsites.stack_id). Nodes in
 * libmtx-preload.so are folded (write_stacks).
 *
 * Unwinding (--call-graph dwarf): a sample with a stack copy is unwound
 * when it arrives, over the mappings its space has then (each space has an
 * unwinder, told of its files as samples need them); its frame-pointer
 * chain is kept when DWARF gives no caller and the chain does, and the
 * reason is counted (meta unwind_fallback_*).
 */
#include "config.h"
#include "collector/profile.h"
#include "collector/sync/names.h"
#include "collector/unwind.h"
#include "src/clock.h"
#include "src/hex.h"
#include "src/demangle.h"
#include "src/frames.h"
#include "src/grow.h"
#include "src/keyhash.h"
#include "src/log.h"
#include "src/symbols.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct profile_map {
	uint64_t start, end, pgoff, ts_ns;
	uint32_t path;          /* index into paths */
	uint8_t build_id[20];
	uint8_t build_id_size;
	uint8_t inherited;      /* copied at fork: no maps row of its own */
	int8_t bias_state;      /* 0 not computed yet, 1 known, -1 unusable */
	uint64_t bias;
	struct mtx_module *module;
};

struct profile_space {
	int32_t pid;
	uint64_t start_ns, end_ns; /* end UINT64_MAX while current */
	struct profile_map *maps;
	size_t nr_maps, cap_maps;
	struct mtx_unwinder *unwinder; /* --call-graph dwarf: made at the first sample */
	size_t nr_unwinder_maps;       /* maps[0 ..] already told to it */
};

struct function_slot {
	char *key;
	int64_t id;
};

struct mtx_profile {
	struct mtx_writer *w;
	struct mtx_stacks *stacks;
	struct profile_space *spaces; /* id = index + 1 */
	size_t nr_spaces, cap_spaces;
	char **paths;
	size_t nr_paths, cap_paths;
	struct mtx_symbols *symbols;
	struct function_slot *functions; /* open addressing, power-of-two size */
	size_t nr_function_slots, nr_functions;
	const char **function_keys;      /* by functions.id - 1: the slots' keys */
	profile_sample_fn on_sample;     /* profile_on_sample */
	void *on_sample_ctx;
	size_t cap_function_keys;
	struct keyhash function_at;      /* (space, pc) -> functions.id, for calls */
	uint64_t nr_samples, nr_samples_without_stack;
	int dwarf;                     /* unwind samples' stack copies */
	uint64_t nr_dwarf, nr_truncated;
	uint64_t unwind_ns, unwind_setup_ns; /* walking; telling unwinders of files */
	uint64_t nr_fallback[UNWIND_FAIL__COUNT];
};

struct mtx_profile *profile_new(struct mtx_writer *w)
{
	struct mtx_profile *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->w = w;
	p->stacks = stacks_new();
	p->symbols = symbols_new();
	p->nr_function_slots = 256;
	p->functions = calloc(p->nr_function_slots, sizeof(*p->functions));
	if (!p->stacks || !p->symbols || !p->functions) {
		profile_free(p);
		return NULL;
	}
	return p;
}

static struct profile_space *space_of(struct mtx_profile *p, uint32_t id)
{
	return id >= 1 && id <= p->nr_spaces ? &p->spaces[id - 1] : NULL;
}

/* The current space of @pid (newest first), or 0. */
static uint32_t live_space(const struct mtx_profile *p, int32_t pid)
{
	for (size_t i = p->nr_spaces; i-- > 0;)
		if (p->spaces[i].pid == pid && p->spaces[i].end_ns == UINT64_MAX)
			return (uint32_t)(i + 1);
	return 0;
}

static uint32_t new_space(struct mtx_profile *p, int32_t pid, uint64_t ts)
{
	struct profile_space *s = grow_array(p->spaces, &p->cap_spaces, p->nr_spaces, sizeof(*s), 16);
	if (!s)
		return 0;
	p->spaces = s;
	s = &p->spaces[p->nr_spaces++];
	memset(s, 0, sizeof(*s));
	s->pid = pid;
	s->start_ns = ts;
	s->end_ns = UINT64_MAX;
	return (uint32_t)p->nr_spaces;
}

static void end_space(struct mtx_profile *p, int32_t pid, uint64_t ts)
{
	uint32_t id = live_space(p, pid);
	if (id)
		space_of(p, id)->end_ns = ts;
}

static uint32_t current_space(struct mtx_profile *p, int32_t pid, uint64_t ts)
{
	uint32_t id = live_space(p, pid);
	return id ? id : new_space(p, pid, ts);
}

uint32_t profile_space(struct mtx_profile *p, int32_t pid, uint64_t ts_ns)
{
	uint32_t any = 0;
	for (size_t i = p->nr_spaces; i-- > 0;) {
		const struct profile_space *s = &p->spaces[i];
		if (s->pid != pid)
			continue;
		if (s->start_ns <= ts_ns && ts_ns < s->end_ns)
			return (uint32_t)(i + 1);
		if (!any)
			any = (uint32_t)(i + 1);
	}
	return any ? any : new_space(p, pid, ts_ns);
}

static int add_map(struct mtx_profile *p, uint32_t space, const struct profile_map *m)
{
	struct profile_space *s = space_of(p, space);
	struct profile_map *maps;
	if (!s)
		return -ENOMEM;
	maps = grow_array(s->maps, &s->cap_maps, s->nr_maps, sizeof(*maps), 16);
	if (!maps)
		return -ENOMEM;
	s->maps = maps;
	s->maps[s->nr_maps++] = *m;
	return 0;
}

/* The index of @path in the path pool, added if new (few distinct paths). */
static int path_index(struct mtx_profile *p, char *path, uint32_t *out)
{
	char **paths;
	for (size_t i = 0; i < p->nr_paths; i++)
		if (!strcmp(p->paths[i], path)) {
			free(path);
			*out = (uint32_t)i;
			return 0;
		}
	paths = grow_array(p->paths, &p->cap_paths, p->nr_paths, sizeof(*paths), 16);
	if (!paths) {
		free(path);
		return -ENOMEM;
	}
	p->paths = paths;
	p->paths[p->nr_paths] = path;
	*out = (uint32_t)p->nr_paths++;
	return 0;
}

static void on_fork(struct mtx_profile *p, const struct mtx_event *ev)
{
	uint32_t parent, child;
	if (ev->pid != ev->tid)
		return; /* a thread shares its process's space */
	end_space(p, ev->pid, ev->ts_ns); /* a reused pid */
	parent = live_space(p, ev->u.fork.ppid);
	child = new_space(p, ev->pid, ev->ts_ns);
	if (!parent || !child)
		return;
	for (size_t i = 0; i < space_of(p, parent)->nr_maps; i++) {
		struct profile_map m = space_of(p, parent)->maps[i];
		m.inherited = 1;
		if (add_map(p, child, &m))
			return;
	}
}

static void on_mmap(struct mtx_profile *p, const struct mtx_event *ev)
{
	struct profile_map m = {
		.start = ev->u.mmap.start,
		.end = ev->u.mmap.start + ev->u.mmap.len,
		.pgoff = ev->u.mmap.pgoff,
		.ts_ns = ev->ts_ns,
		.build_id_size = ev->u.mmap.build_id_size,
	};
	uint32_t space = current_space(p, ev->pid, ev->ts_ns);
	memcpy(m.build_id, ev->u.mmap.build_id, sizeof(m.build_id));
	if (path_index(p, ev->u.mmap.path, &m.path) == 0 && space)
		add_map(p, space, &m);
}

uint32_t profile_intern(struct mtx_profile *p, int32_t pid, uint64_t ts_ns, const uint64_t *pcs, uint32_t nr)
{
	uint32_t space = current_space(p, pid, ts_ns);
	return space && nr ? stacks_intern_chain(p->stacks, space, pcs, nr) : 0;
}

void profile_unwind_dwarf(struct mtx_profile *p, int on)
{
	p->dwarf = on;
}

/* Space @id's unwinder, told of every file mapped so far; NULL when out
 * of memory. */
static struct mtx_unwinder *space_unwinder(struct mtx_profile *p, uint32_t id)
{
	struct profile_space *s = space_of(p, id);
	if (!s || (!s->unwinder && !(s->unwinder = unwinder_new())))
		return NULL;
	for (; s->nr_unwinder_maps < s->nr_maps; s->nr_unwinder_maps++) {
		const struct profile_map *m = &s->maps[s->nr_unwinder_maps];
		const char *path = p->paths[m->path];
		if (path[0] == '/') /* not [vdso], [anon:...], //anon */
			unwinder_add_file(s->unwinder, path, m->start, m->pgoff, m->build_id, m->build_id_size);
	}
	return s->unwinder;
}

/* The leaf node of @ev's stack in @space: DWARF-unwound from its stack
 * copy when asked for, unless that finds no caller where the frame
 * pointers did; else the frame-pointer chain. *@method: "dwarf" or "fp". */
static uint32_t intern_sample(struct mtx_profile *p, uint32_t space, const struct mtx_event *ev,
			      const char **method)
{
	uint64_t pcs[UNWIND_MAX_FRAMES];
	*method = "fp";
	if (p->dwarf) {
		enum unwind_fail why = UNWIND_FAIL_ERROR;
		uint64_t t0 = clock_now_ns(), t1;
		struct mtx_unwinder *u = space_unwinder(p, space);
		int truncated = 0, n;
		t1 = clock_now_ns();
		n = u ? unwinder_walk(u, ev->tid, ev->u.sample.stack, pcs, NULL, &why, &truncated) : 0;
		p->unwind_setup_ns += t1 - t0;
		p->unwind_ns += clock_now_ns() - t1;
		if (n >= 2 || (n == 1 && ev->u.sample.nr <= 1)) {
			*method = "dwarf";
			p->nr_dwarf++;
			p->nr_truncated += (uint64_t)truncated;
			return stacks_intern_chain(p->stacks, space, pcs, (size_t)n);
		}
		p->nr_fallback[why]++;
	}
	return ev->u.sample.nr ? stacks_intern_chain(p->stacks, space, ev->u.sample.pcs, ev->u.sample.nr) : 0;
}

static void on_sample(struct mtx_profile *p, const struct mtx_event *ev)
{
	uint32_t space = current_space(p, ev->pid, ev->ts_ns), node = 0;
	const char *method = "fp";
	if (space)
		node = intern_sample(p, space, ev, &method);
	/* A sample in the kernel: a [kernel] frame on top of where the thread
	 * entered it, so self time in the kernel is charged to it. */
	if (space && ev->u.sample.kernel)
		node = stacks_intern(p->stacks, node, space, STACKS_PC_KERNEL);
	free(ev->u.sample.pcs);
	free(ev->u.sample.stack);
	p->nr_samples++;
	if (!node)
		p->nr_samples_without_stack++;
	writer_sample(p->w, ev->ts_ns, ev->tid, ev->cpu, node, method);
	if (p->on_sample)
		p->on_sample(p->on_sample_ctx, ev->tid, ev->pid, ev->ts_ns, node);
}

void profile_on_sample(struct mtx_profile *p, profile_sample_fn fn, void *ctx)
{
	p->on_sample = fn;
	p->on_sample_ctx = ctx;
}

void profile_event(struct mtx_profile *p, const struct mtx_event *ev)
{
	switch (ev->type) {
	case MTX_EV_FORK:
		on_fork(p, ev);
		return;
	case MTX_EV_COMM:
		if (ev->u.comm.exec) {
			end_space(p, ev->pid, ev->ts_ns);
			new_space(p, ev->pid, ev->ts_ns);
		}
		return;
	case MTX_EV_MMAP:
		on_mmap(p, ev);
		return;
	case MTX_EV_SAMPLE:
		on_sample(p, ev);
		return;
	default:
		return;
	}
}

struct mtx_stacks *profile_stacks(struct mtx_profile *p)
{
	return p->stacks;
}

static uint64_t hash_string(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static void grow_functions(struct mtx_profile *p)
{
	size_t size = p->nr_function_slots * 2;
	struct function_slot *slots = calloc(size, sizeof(*slots));
	if (!slots)
		return; /* keep probing the fuller table */
	for (size_t i = 0; i < p->nr_function_slots; i++) {
		size_t j;
		if (!p->functions[i].key)
			continue;
		for (j = hash_string(p->functions[i].key) & (size - 1); slots[j].key; j = (j + 1) & (size - 1))
			;
		slots[j] = p->functions[i];
	}
	free(p->functions);
	p->functions = slots;
	p->nr_function_slots = size;
}

/* The functions.id of (@name, @module, @file, @line), its row written
 * when new; -1 when out of memory. */
static int64_t function_id(struct mtx_profile *p, const char *name, const char *module, const char *file, int line)
{
	char *key;
	size_t i;
	if (asprintf(&key, "%s\x1f%s\x1f%s\x1f%d", name, module ? module : "", file ? file : "", line) < 0)
		return -1;
	for (i = hash_string(key) & (p->nr_function_slots - 1); p->functions[i].key;
	     i = (i + 1) & (p->nr_function_slots - 1))
		if (!strcmp(p->functions[i].key, key)) {
			free(key);
			return p->functions[i].id;
		}
	const char **keys = grow_array(p->function_keys, &p->cap_function_keys, p->nr_functions,
				       sizeof(*p->function_keys), 256);
	if (!keys) {
		free(key);
		return -1;
	}
	p->function_keys = keys;
	keys[p->nr_functions] = key;
	p->functions[i] = (struct function_slot){ .key = key, .id = (int64_t)++p->nr_functions };
	{
		char *readable = demangle(name); /* C++: as people read it */
		writer_function(p->w, p->functions[i].id, readable ? readable : name, module, file, line);
		free(readable);
	}
	if (p->nr_functions * 2 > p->nr_function_slots)
		grow_functions(p);
	return (int64_t)p->nr_functions;
}

/* The newest mapping of space @id that holds @pc. */
static struct profile_map *map_at(struct mtx_profile *p, uint32_t id, uint64_t pc)
{
	struct profile_space *s = space_of(p, id);
	for (size_t i = s ? s->nr_maps : 0; i-- > 0;)
		if (s->maps[i].start <= pc && pc < s->maps[i].end)
			return &s->maps[i];
	return NULL;
}

/* Open @m's file (once) and learn its load bias; 0 if usable. */
static int map_module(struct mtx_profile *p, struct profile_map *m)
{
	const char *path = p->paths[m->path];
	if (m->bias_state)
		return m->bias_state > 0 ? 0 : -ENOENT;
	m->bias_state = -1;
	if (path[0] != '/')
		return -ENOENT; /* [vdso], [anon:...], //anon: no file to read */
	m->module = symbols_module(p->symbols, path, m->build_id, m->build_id_size);
	if (m->module && symbols_bias(m->module, m->start, m->pgoff, &m->bias) == 0)
		m->bias_state = 1;
	return m->bias_state > 0 ? 0 : -ENOENT;
}

/*
 * Name the code at @pc of space @space: its frames, outermost first (the
 * physical function, then those inlined into it), into @frames, their
 * functions' ids into @ids, and its file into *@module (NULL: none).
 * Returns how many (at least 1: [unknown] when nothing names it), or 0
 * when out of memory.
 */
static int name_address(struct mtx_profile *p, uint32_t space, uint64_t pc, int64_t *ids,
			struct mtx_frame *frames, const char **module)
{
	struct profile_map *m;
	int n = 0;

	*module = NULL;
	if (pc == STACKS_PC_KERNEL) {
		*module = "[kernel]";
		frames[0] = (struct mtx_frame){ .name = "[kernel]" };
		ids[0] = function_id(p, "[kernel]", "[kernel]", NULL, 0);
		return ids[0] < 0 ? 0 : 1;
	}
	m = map_at(p, space, pc);
	if (m) {
		*module = p->paths[m->path];
		if (map_module(p, m) == 0)
			n = symbols_lookup(m->module, pc - m->bias, frames);
	}
	if (n == 0) {
		/* [vdso] and the like name themselves. */
		frames[0] = (struct mtx_frame){ .name = *module && (*module)[0] == '[' ? *module : "[unknown]" };
		ids[0] = function_id(p, frames[0].name, *module, NULL, 0);
		return ids[0] < 0 ? 0 : 1;
	}
	for (int i = 0; i < n; i++)
		if ((ids[i] = function_id(p, frames[i].name, *module, frames[i].file, frames[i].line)) < 0)
			return 0;
	return n;
}

int64_t profile_function_at(struct mtx_profile *p, int32_t pid, uint64_t ts_ns, uint64_t pc)
{
	int64_t ids[SYMBOLS_MAX_FRAMES];
	struct mtx_frame frames[SYMBOLS_MAX_FRAMES];
	const char *module;
	uint32_t space = profile_space(p, pid, ts_ns);
	struct keyhash_slot *slot = space ? keyhash_slot(&p->function_at, space, (int64_t)pc, 0) : NULL;
	if (!slot)
		return -1;
	if (slot->v)
		return (int64_t)slot->v;
	/* The function the code belongs to, not one inlined at its start. */
	if (name_address(p, space, pc, ids, frames, &module) == 0)
		return -1;
	slot->v = (size_t)ids[0];
	p->function_at.len++;
	return ids[0];
}

int profile_function_names(const struct mtx_profile *p, int64_t id, char **name, char **module)
{
	const char *key = id >= 1 && (size_t)id <= p->nr_functions ? p->function_keys[id - 1] : NULL;
	const char *sep = key ? strchr(key, '\x1f') : NULL;
	char *raw = sep ? strndup(key, (size_t)(sep - key)) : NULL;
	*name = raw ? demangle(raw) : NULL;
	if (raw && !*name)
		*name = strdup(raw);
	*module = sep ? strndup(sep + 1, strcspn(sep + 1, "\x1f")) : NULL;
	free(raw);
	if (*name && *module)
		return 0;
	free(*name);
	free(*module);
	*name = *module = NULL;
	return -1;
}

int64_t profile_function_at_cb(void *profile, int32_t pid, uint64_t ts_ns, uint64_t pc)
{
	return profile_function_at(profile, pid, ts_ns, pc);
}

char *profile_data_name(struct mtx_profile *p, int32_t pid, uint64_t ts_ns, uint64_t addr)
{
	const struct profile_space *s = space_of(p, profile_space(p, pid, ts_ns));
	for (size_t i = s ? s->nr_maps : 0; i-- > 0;) {
		struct profile_map *m = &s->maps[i];
		const char *symbol, *path = p->paths[m->path];
		uint64_t at = addr - m->bias, offset;
		char *name = NULL, *readable;
		if (map_module(p, m) || !symbols_holds(m->module, at))
			continue;
		if (symbols_data(m->module, at, &symbol, &offset) == 0) {
			readable = demangle(symbol); /* C++: as nm -C shows it */
			if (asprintf(&name, offset ? "%s+0x%" PRIx64 : "%s", readable ? readable : symbol, offset) < 0)
				name = NULL;
			free(readable);
		} else if (asprintf(&name, "%s+0x%" PRIx64, strrchr(path, '/') + 1, at) < 0) {
			name = NULL; /* in its image, where no symbol says what */
		}
		return name;
	}
	return NULL;
}

/* How a stack node of libmtx-preload.so is written (write_stacks). */
struct mtx_fold {
	uint8_t folded;  /* the node is mtx's */
	uint32_t above;  /* the row above its run of mtx's nodes (0: none) */
	int64_t fn;      /* the run's function: [mtx] and the wrapper called */
};

/*
 * Every stack node's rows: the innermost function at its address with the
 * node's id, and the functions it is inlined into as rows of their own
 * between it and its parent (ids after the last node's). A run of nodes in
 * libmtx-preload.so is mtx's cost, not the program's: each of its nodes is
 * one row of the function "[mtx] <the outermost one's function>" (the
 * wrapper the program called, e.g. pthread_mutex_lock), under the row
 * above the run, so the profile shows the call the program made and what
 * mtx added to it as that call's own time. Parents come before their
 * children (a node is made after its parent).
 */
static int write_stacks(struct mtx_profile *p)
{
	uint32_t nr = stacks_count(p->stacks), next = nr;
	int64_t ids[SYMBOLS_MAX_FRAMES];
	struct mtx_frame frames[SYMBOLS_MAX_FRAMES];
	struct mtx_fold *fold = calloc((size_t)nr + 1, sizeof(*fold));
	const char *module;
	int rc = 0;

	if (!fold)
		return -ENOMEM;
	for (uint32_t id = 1; id <= nr && !rc; id++) {
		const struct stacks_node *node = stacks_node(p->stacks, id);
		const struct profile_space *s = space_of(p, node->space);
		int32_t pid = s ? s->pid : -1;
		uint32_t parent = node->parent;
		int n = name_address(p, node->space, node->pc, ids, frames, &module);
		if (n == 0) {
			rc = -ENOMEM;
			break;
		}
		if (frame_is_mtx(module)) {
			struct mtx_fold *f = &fold[id];
			f->folded = 1;
			if (fold[parent].folded) {
				f->above = fold[parent].above;
				f->fn = fold[parent].fn;
			} else {
				char *name;
				f->above = parent;
				/* The wrapper's own name: not its part "pthread_mutex_lock.cold". */
				if (asprintf(&name, FRAME_MTX_PREFIX "%.*s", (int)strcspn(frames[0].name, "."),
					     frames[0].name) < 0) {
					rc = -ENOMEM;
					break;
				}
				f->fn = function_id(p, name, module, NULL, 0);
				free(name);
			}
			if (f->fn < 0)
				rc = -ENOMEM;
			else
				writer_stack(p->w, id, f->above, f->fn, pid, node->pc, NULL, 0);
			continue;
		}
		for (int i = 0; i + 1 < n; i++) {
			writer_stack(p->w, ++next, parent, ids[i], pid, node->pc, frames[i].at_file, frames[i].at_line);
			parent = next;
		}
		writer_stack(p->w, id, parent, ids[n - 1], pid, node->pc, frames[n - 1].at_file, frames[n - 1].at_line);
	}
	free(fold);
	return rc;
}

/* Each sync call site's node (@nodes[i] for @sites[i], 0: none): the code
 * at its address - 1 (in the call), alone on its stack. */
static int intern_callsites(struct mtx_profile *p, const struct sync_callsite *sites, size_t n, uint32_t *nodes)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t space = profile_space(p, sites[i].pid, sites[i].first_ns);
		nodes[i] = space ? stacks_intern(p->stacks, 0, space, sites[i].addr - 1) : 0;
		if (space && !nodes[i])
			return -ENOMEM;
	}
	return 0;
}

/* Name every distinct sync_ops.callsite of each process, by its node. */
static int write_callsites(struct mtx_profile *p, const struct sync_callsite *sites, size_t n, const uint32_t *nodes)
{
	int64_t ids[SYMBOLS_MAX_FRAMES];
	struct mtx_frame frames[SYMBOLS_MAX_FRAMES];
	const char *module;
	for (size_t i = 0; i < n; i++) {
		const struct stacks_node *node = stacks_node(p->stacks, nodes[i]);
		if (!node)
			continue; /* a process whose maps were never seen: left unnamed */
		int k = name_address(p, node->space, node->pc, ids, frames, &module);
		if (k == 0)
			return -ENOMEM;
		writer_callsite(p->w, sites[i].pid, sites[i].addr, ids[k - 1], nodes[i]);
	}
	return 0;
}

static void write_maps(struct mtx_profile *p)
{
	char build_id[41], *stripped = NULL;
	for (size_t i = 0; i < p->nr_spaces; i++) {
		struct profile_space *s = &p->spaces[i];
		for (size_t j = 0; j < s->nr_maps; j++) {
			struct profile_map *m = &s->maps[j];
			const char *path = p->paths[m->path], *symbols = NULL;
			if (m->inherited)
				continue;
			hex_bytes(m->build_id, (size_t)m->build_id_size, build_id);
			if (map_module(p, m) == 0 || m->module)
				symbols = symbols_source_name(symbols_module_source(m->module));
			writer_map(p->w, s->pid, m->ts_ns, m->start, m->end, m->pgoff, path,
				   m->build_id_size ? build_id : NULL, symbols);
			/* Say once per file that it is stripped. */
			if (m->module && symbols_module_source(m->module) == SYMBOLS_DYNSYM &&
			    (!stripped || !strstr(stripped, path))) {
				char *more;
				if (asprintf(&more, "%s%s%s", stripped ? stripped : "", stripped ? " " : "", path) >= 0) {
					free(stripped);
					stripped = more;
				}
			}
		}
	}
	writer_meta(p->w, "modules_dynsym_only", stripped ? stripped : "");
	if (stripped && p->nr_samples)
		log_info("stripped, named from their dynamic symbols only: %s", stripped);
	free(stripped);
}

/* Name the sync objects: they read the stacks and callsites rows back. */
static int write_object_names(struct mtx_profile *p)
{
	char *err = NULL;
	sqlite3 *db = writer_db(p->w);
	int rc = writer_error(p->w) ? -EIO : sync_names_write(db, p, &err);
	if (err)
		log_error("%s", err);
	free(err);
	return rc;
}

int profile_finish(struct mtx_profile *p, const struct sync_callsite *sites, size_t nr_sites)
{
	uint32_t *nodes = calloc(nr_sites ? nr_sites : 1, sizeof(*nodes));
	int rc = nodes ? intern_callsites(p, sites, nr_sites, nodes) : -ENOMEM;
	if (!rc)
		rc = write_stacks(p);
	if (!rc)
		rc = write_callsites(p, sites, nr_sites, nodes);
	free(nodes);
	if (!rc)
		rc = write_object_names(p);
	write_maps(p);
	writer_meta_int(p->w, "samples", (int64_t)p->nr_samples);
	writer_meta_int(p->w, "samples_without_stack", (int64_t)p->nr_samples_without_stack);
	writer_meta_int(p->w, "functions", (int64_t)p->nr_functions);
	if (p->dwarf) {
		char key[64];
		writer_meta_int(p->w, "unwind_dwarf", (int64_t)p->nr_dwarf);
		writer_meta_int(p->w, "unwind_truncated", (int64_t)p->nr_truncated);
		writer_meta_int(p->w, "unwind_ns", (int64_t)p->unwind_ns);
		writer_meta_int(p->w, "unwind_setup_ns", (int64_t)p->unwind_setup_ns);
		for (unsigned i = 0; i < UNWIND_FAIL__COUNT; i++) {
			snprintf(key, sizeof(key), "unwind_fallback_%s", unwind_fail_name(i));
			writer_meta_int(p->w, key, (int64_t)p->nr_fallback[i]);
		}
	}
	if (rc)
		return rc;
	return writer_commit(p->w);
}

void profile_free(struct mtx_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr_spaces; i++) {
		free(p->spaces[i].maps);
		unwinder_free(p->spaces[i].unwinder);
	}
	free(p->spaces);
	for (size_t i = 0; i < p->nr_paths; i++)
		free(p->paths[i]);
	free(p->paths);
	for (size_t i = 0; p->functions && i < p->nr_function_slots; i++)
		free(p->functions[i].key);
	free(p->functions);
	free(p->function_keys);
	keyhash_free(&p->function_at);
	stacks_free(p->stacks);
	symbols_free(p->symbols);
	free(p);
}
