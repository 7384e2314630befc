/*
 * collector/function-uprobes.c - see function-uprobes.h.
 *
 * What a hit carries (tracefs uprobe fields, Documentation/trace/
 * uprobetracer.rst): an entry probe __probe_ip, the address it hit in the
 * process, and, fetched, the return address at the top of the stack; a
 * return probe __probe_func, the address of the probe whose function
 * returned (the same value as the entry's __probe_ip), and __probe_ret_ip,
 * where it returned to. So entry and return of one function carry the
 * same fn, which is how collector/calls.c pairs them. The entry fetches the
 * stack pointer too: past the kernel's depth of return probes, it is what
 * tells calls.c that a call whose return will never be seen has ended.
 */
#include "config.h"
#include "collector/function-uprobes.h"
#include "collector/calibrate.h"
#include "collector/catch-up.h"
#include "collector/elf-symbols.h"
#include "collector/session.h"
#include "collector/tracepoint.h"
#include "collector/uprobes.h"
#include "src/demangle.h"
#include "src/grow.h"
#include "src/keyhash.h"
#include "src/log.h"
#include "src/match.h"
#include "src/error.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define ENTRY_ARGS "ret=+0(%sp):u64 sp=%sp:u64"

struct function_probe {
	char *name;
	size_t module;    /* index into modules */
	uint64_t offset;  /* of the function in its file */
	uint64_t size;
	uint64_t skip;    /* bytes from its start to its entry probe */
	long id[2];       /* tracepoint ids: entry, return */
};

struct function_uprobes {
	struct uprobe_group *group;
	char **modules;              /* real paths: [0] the program, then its libraries */
	size_t nr_modules, cap_modules;
	struct function_probe *probes;
	size_t nr_probes, cap_probes;
	char *skipped;               /* names left out (not_called), space-separated */
	long calibration_ids[2];     /* entry and return on calibrate_uprobe_target, or 0 */
	uint32_t set;                /* probe set (mtx ctl probe add), 0: --functions */
};

/* A probe set's events are tagged set << SET_SHIFT | function * 2 | return;
 * a catch-up probe's (on the return address of a call already running,
 * collector/catch-up.h) set << SET_SHIFT | CATCH_UP_BIT | index * 2 | 1:
 * odd, as a return, so that it never counts as a call. */
#define SET_SHIFT 20
#define CATCH_UP_BIT (1 << 19)
#define MAX_CATCH_UPS 4096 /* return addresses a collector probes */
#define CATCH_UP_ARGS "sp=%sp:u64"

/* The tracefs name of function @i's entry (@r 0) or return probe:
 * numbered (symbol names may hold characters tracefs refuses), and by
 * set, since every set of a collector shares its group. */
static void event_name(const struct function_uprobes *u, size_t i, int r, char *out, size_t size)
{
	if (u->set)
		snprintf(out, size, "s%u_fn%zu_%s", u->set, i, r ? "return" : "entry");
	else
		snprintf(out, size, "fn%zu_%s", i, r ? "return" : "entry");
}

/*
 * Functions that are jumped to, never called: a return probe takes the
 * word at the top of the stack on entry for the return address and
 * replaces it, which for these is data (argc for _start, which changed a
 * program's exit status here; the signal frame for __restore_rt; the
 * loader's arguments for _dl_runtime_resolve*; the frame of the function
 * whose cold part gcc split out as NAME.cold), so they are never probed.
 */
static const char *const not_called[] = {
	"_start", "_dl_start_user", "__restore_rt", "_dl_runtime_resolve", "_dl_runtime_profile",
};

static int is_not_called(const char *name)
{
	if (strstr(name, ".cold"))
		return 1;
	for (size_t i = 0; i < sizeof(not_called) / sizeof(not_called[0]); i++)
		if (!strncmp(name, not_called[i], strlen(not_called[i])) &&
		    (!name[strlen(not_called[i])] || !strncmp(not_called[i], "_dl_runtime_", 12)))
			return 1;
	return 0;
}

/* Note @name as left out, once. */
static int note_skipped(struct function_uprobes *u, const char *name)
{
	char *more;
	size_t len = strlen(name);
	for (const char *at = u->skipped; at && (at = strstr(at, name)); at += len)
		if ((at == u->skipped || at[-1] == ' ') && (!at[len] || at[len] == ' '))
			return 0;
	if (asprintf(&more, "%s%s%s", u->skipped ? u->skipped : "", u->skipped ? " " : "", name) < 0)
		return -ENOMEM;
	free(u->skipped);
	u->skipped = more;
	return 0;
}

/* Add @path (resolved) to the modules unless it is there. */
static int add_module(struct function_uprobes *u, const char *path)
{
	char real[PATH_MAX], **mods;
	if (!realpath(path, real))
		return -errno;
	for (size_t i = 0; i < u->nr_modules; i++)
		if (!strcmp(u->modules[i], real))
			return 0;
	mods = grow_array(u->modules, &u->cap_modules, u->nr_modules, sizeof(*mods), 8);
	if (!mods)
		return -ENOMEM;
	u->modules = mods;
	if (!(u->modules[u->nr_modules] = strdup(real)))
		return -ENOMEM;
	u->nr_modules++;
	return 0;
}

static int on_library(void *ctx, const char *path)
{
	add_module(ctx, path); /* a library we cannot resolve is one we cannot probe */
	return 0;
}

/* Whether @path's file name begins with @lib. */
static int is_library(const char *path, const char *lib)
{
	const char *base = strrchr(path, '/');
	return !strncmp(base ? base + 1 : path, lib, strlen(lib));
}

struct scan {
	struct function_uprobes *u;
	const struct mtx_match *match;
	size_t module;
	struct keyhash offsets; /* of this module's functions found so far */
	int error;
};

static int on_symbol(void *ctx, const struct elf_symbol *sym)
{
	struct scan *sc = ctx;
	struct function_uprobes *u = sc->u;
	struct keyhash_slot *slot;
	struct function_probe *p;
	/* A C++ function matches by its readable name too ('work::step'). */
	char *readable = demangle(sym->name);
	if (!match_test(sc->match, sym->name) && !(readable && match_test(sc->match, readable))) {
		free(readable);
		return 0;
	}
	if (is_not_called(sym->name)) {
		sc->error = note_skipped(u, readable ? readable : sym->name);
		free(readable);
		return sc->error;
	}
	slot = keyhash_slot(&sc->offsets, (int64_t)sym->offset, 0, 0);
	p = slot && !slot->v ? grow_array(u->probes, &u->cap_probes, u->nr_probes, sizeof(*p), 64) : NULL;
	if (!p) {
		free(readable);
		/* slot->v: an alias, or the same symbol in .dynsym */
		return slot && slot->v ? 0 : (sc->error = -ENOMEM);
	}
	u->probes = p;
	p = &u->probes[u->nr_probes];
	*p = (struct function_probe){ .name = readable ? readable : strdup(sym->name), .module = sc->module,
				      .offset = sym->offset, .size = sym->size };
	if (!p->name)
		return sc->error = -ENOMEM;
	slot->v = ++u->nr_probes;
	sc->offsets.len++;
	return 0;
}

static int scan_module(struct function_uprobes *u, size_t module, const struct mtx_match *match, char **err)
{
	struct scan sc = { .u = u, .match = match, .module = module };
	int rc = elf_symbols_each(u->modules[module], on_symbol, &sc, err);
	keyhash_free(&sc.offsets);
	return rc ? rc : sc.error;
}

/* Split "LIB:REGEX" (LIB: a file name's start, so no ':' right after, which
 * a C++ name's "ns::f" has). Returns the length of LIB, 0 if none. */
static size_t library_prefix(const char *pattern)
{
	size_t n = strspn(pattern, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-");
	return n > 0 && pattern[n] == ':' && pattern[n + 1] != ':' ? n : 0;
}

const char *function_uprobes_regex(const char *pattern)
{
	size_t n = library_prefix(pattern);
	return n ? pattern + n + 1 : pattern;
}

int function_uprobes_find(struct function_uprobes **out, const char *prog, const char *pattern,
			  const char *also_in, char **err)
{
	struct function_uprobes *u = calloc(1, sizeof(*u));
	size_t lib_len = library_prefix(pattern);
	char *lib = lib_len ? strndup(pattern, lib_len) : NULL;
	const char *regex = lib_len ? pattern + lib_len + 1 : pattern;
	const char *libs = lib ? lib : also_in;
	struct mtx_match *match = NULL;
	size_t scanned = 0;
	int rc;

	*out = NULL;
	if (!u || (lib_len && !lib)) {
		rc = -ENOMEM;
		goto done;
	}
	match = match_compile(regex, err);
	if (!match) {
		rc = -EINVAL;
		goto done;
	}
	rc = add_module(u, prog);
	if (rc) {
		error_set(err, "%s: %s", prog, strerror(-rc));
		goto done;
	}
	if (libs) {
		/* The libraries the program loads, and theirs, breadth first. */
		for (size_t i = 0; i < u->nr_modules; i++)
			elf_needed_each(u->modules[i], on_library, u);
	}
	for (size_t i = 0; i < u->nr_modules && !rc; i++) {
		int wanted = i == 0 ? !lib : (libs && is_library(u->modules[i], libs));
		if (!wanted)
			continue;
		rc = scan_module(u, i, match, err);
		scanned++;
	}
	if (!rc && libs && scanned == (lib ? 0u : 1u)) {
		rc = -ENOENT;
		error_set(err, "%s loads no library whose name begins with '%s'", prog, libs);
	}
done:
	match_free(match);
	free(lib);
	if (rc)
		function_uprobes_free(u);
	else
		*out = u;
	return rc;
}

struct function_uprobes *function_uprobes_take(const struct function_uprobes *u, size_t i)
{
	struct function_uprobes *one = calloc(1, sizeof(*one));
	if (!one)
		return NULL;
	for (size_t m = 0; m < u->nr_modules; m++)
		if (add_module(one, u->modules[m])) {
			function_uprobes_free(one);
			return NULL;
		}
	one->probes = malloc(sizeof(*one->probes));
	if (!one->probes || !(one->probes[0].name = strdup(u->probes[i].name))) {
		function_uprobes_free(one);
		return NULL;
	}
	one->probes[0] = (struct function_probe){ .name = one->probes[0].name, .module = u->probes[i].module,
						  .offset = u->probes[i].offset, .size = u->probes[i].size };
	one->nr_probes = one->cap_probes = 1;
	return one;
}

size_t function_uprobes_count(const struct function_uprobes *u)
{
	return u ? u->nr_probes : 0;
}

const char *function_uprobes_skipped(const struct function_uprobes *u)
{
	return u ? u->skipped : NULL;
}

void function_uprobes_get(const struct function_uprobes *u, size_t i, const char **name, const char **path)
{
	*name = u->probes[i].name;
	*path = u->modules[u->probes[i].module];
}

/* Where @addr of this process is: the file mapped there and the offset
 * in it. 0 or -ENOENT. */
static int own_file_offset(const void *addr, char *path, size_t size, uint64_t *offset)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[PATH_MAX + 128];
	int rc = -ENOENT;

	if (!f)
		return -ENOENT;
	while (rc && fgets(line, sizeof(line), f)) {
		unsigned long start, end, off;
		int name_at = 0;

		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %n", &start, &end, &off, &name_at) < 3 || !name_at ||
		    (uintptr_t)addr < start || (uintptr_t)addr >= end || line[name_at] != '/')
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(path, size, "%s", line + name_at);
		*offset = (uintptr_t)addr - start + off;
		rc = 0;
	}
	fclose(f);
	return rc;
}

/* The calibration probes (collector/calibrate.c), defined as the run's
 * are; none if that fails: the cost then goes uncalibrated. */
static void define_calibration(struct function_uprobes *u)
{
	char path[PATH_MAX], *err = NULL;
	uint64_t offset;

	if (own_file_offset((const void *)calibrate_uprobe_target, path, sizeof(path), &offset))
		return;
	for (int r = 0; r < 2; r++) {
		char name[32];
		long id;
		/* a set's own: every set of a collector shares its group */
		if (u->set)
			snprintf(name, sizeof(name), "s%u_cal_%s", u->set, r ? "return" : "entry");
		else
			snprintf(name, sizeof(name), "cal_%s", r ? "return" : "entry");
		id = uprobe_group_add(u->group, name, r, path, offset, r ? NULL : ENTRY_ARGS, &err);
		if (id < 0) {
			log_debug("no uprobe calibration: %s", err ? err : "");
			free(err);
			u->calibration_ids[0] = 0;
			return;
		}
		u->calibration_ids[r] = id;
	}
}

const long *function_uprobes_calibration(const struct function_uprobes *u)
{
	return u && u->calibration_ids[0] ? u->calibration_ids : NULL;
}

int function_uprobes_define(struct function_uprobes *u, char **err)
{
	size_t kept = 0;
	int rc = uprobe_group_new(&u->group, err);
	if (rc)
		return rc;
	for (size_t i = 0; i < u->nr_probes; i++) {
		struct function_probe p = u->probes[i];
		const char *path = u->modules[p.module];
		int skip = uprobe_file_entry_offset(path, p.offset, p.size);
		char event[32];
		if (skip < 0) {
			log_warn("%s in %s begins with an instruction uprobes refuse: not traced", p.name, path);
			free(p.name);
			continue;
		}
		for (int r = 0; r < 2; r++) {
			long id;
			event_name(u, kept, r, event, sizeof(event));
			id = uprobe_group_add(u->group, event, r, path, p.offset + (uint64_t)skip,
					      r ? NULL : ENTRY_ARGS, err);
			if (id < 0) {
				for (size_t j = i; j < u->nr_probes; j++)
					free(u->probes[j].name);
				u->nr_probes = kept;
				return (int)id;
			}
			p.id[r] = id;
		}
		p.skip = (uint64_t)skip;
		u->probes[kept++] = p;
	}
	u->nr_probes = kept;
	define_calibration(u);
	return 0;
}

struct function_layout {
	struct tp_field ip, callsite, sp; /* entry */
	struct tp_field func, ret_ip;   /* return */
	/* catch-up probes: the stack pointer after the return, and the
	 * function (its entry probe's address) each one's call is of */
	struct tp_field catch_up_sp;
	uint64_t catch_up_fn[MAX_CATCH_UPS], catch_up_ret[MAX_CATCH_UPS];
	size_t nr_catch_ups;
};

static int fu_decode(struct mtx_session *s, int tag, const struct perf_sample *sample, struct mtx_event *ev)
{
	const struct function_layout *l = s->source_state[MTX_SRC_FUNCTIONS];
	int at_return = tag & 1;
	ev->type = MTX_EV_CALL;
	if (tag & CATCH_UP_BIT) {
		ev->u.call.fn = l->catch_up_fn[(tag & (CATCH_UP_BIT - 1)) >> 1];
		ev->u.call.callsite = 0;
		ev->u.call.sp = (uint64_t)tp_read(sample, &l->catch_up_sp, 0);
		ev->u.call.at_return = 1;
		ev->u.call.uretprobe = 0;
		ev->u.call.catch_up = 1;
		ev->u.call.set = (uint16_t)((unsigned)tag >> SET_SHIFT);
		return 1;
	}
	ev->u.call.at_return = (uint8_t)at_return;
	ev->u.call.fn = (uint64_t)tp_read(sample, at_return ? &l->func : &l->ip, 0);
	ev->u.call.callsite = (uint64_t)tp_read(sample, at_return ? &l->ret_ip : &l->callsite, 0);
	ev->u.call.sp = at_return ? 0 : (uint64_t)tp_read(sample, &l->sp, 0);
	ev->u.call.uretprobe = 1;
	ev->u.call.catch_up = 0;
	ev->u.call.set = (uint16_t)((unsigned)tag >> SET_SHIFT);
	return 1;
}

static const struct mtx_source source_function_uprobes = {
	.id = MTX_SRC_FUNCTIONS,
	.name = "functions (uprobes)",
	.summary = "entries and returns of the functions --functions chooses",
	.decode = fu_decode,
};

static int learn_layout(struct function_uprobes *u, struct mtx_session *s)
{
	const char *group = uprobe_group_name(u->group);
	struct function_layout *l;
	char entry[32], ret[32];
	int bad = 0;
	if (s->source_state[MTX_SRC_FUNCTIONS])
		return 0; /* an earlier set's: every probe has the same fields */
	if (!(l = calloc(1, sizeof(*l))))
		return -ENOMEM;
	s->source_state[MTX_SRC_FUNCTIONS] = l; /* the session frees it */
	/* Every probe has the same fields as the first pair. */
	event_name(u, 0, 0, entry, sizeof(entry));
	event_name(u, 0, 1, ret, sizeof(ret));
	bad |= tp_lookup(group, entry, "__probe_ip", &l->ip);
	bad |= tp_lookup(group, entry, "ret", &l->callsite);
	bad |= tp_lookup(group, entry, "sp", &l->sp);
	bad |= tp_lookup(group, ret, "__probe_func", &l->func);
	bad |= tp_lookup(group, ret, "__probe_ret_ip", &l->ret_ip);
	return bad ? session_set_error(s, -EINVAL, "the uprobes of %s have an unknown format", group) : 0;
}

/* Each probe is one open file per CPU: make room, up to the hard limit. */
static int make_room(struct function_uprobes *u, struct mtx_session *s)
{
	struct rlimit lim;
	rlim_t need = (rlim_t)(u->nr_probes * 2 * (size_t)s->nr_cpus + s->nr_fds + 256);
	if (getrlimit(RLIMIT_NOFILE, &lim) < 0 || lim.rlim_cur >= need)
		return 0;
	lim.rlim_cur = lim.rlim_max < need ? lim.rlim_max : need;
	setrlimit(RLIMIT_NOFILE, &lim);
	if (lim.rlim_cur >= need)
		return 0;
	return session_set_error(s, -EMFILE,
				 "%zu functions need %llu open files and the limit is %llu: choose fewer with "
				 "--functions (see --list-functions), or raise ulimit -n",
				 u->nr_probes, (unsigned long long)need, (unsigned long long)lim.rlim_max);
}

int function_uprobes_open(struct function_uprobes *u, struct mtx_session *s)
{
	int rc;
	if (!u->nr_probes)
		return 0;
	rc = learn_layout(u, s);
	if (!rc)
		rc = make_room(u, s);
	if (!rc)
		rc = uprobe_group_hand_over(u->group, s);
	if (rc)
		return rc;
	for (size_t i = 0; i < u->nr_probes && !rc; i++)
		for (int r = 0; r < 2 && !rc; r++)
			rc = session_add_tracepoint(s, u->probes[i].id[r], &source_function_uprobes, (int)(i * 2) + r);
	return rc;
}

void function_uprobes_set(struct function_uprobes *u, uint32_t set)
{
	u->set = set;
}

static void remove_set(void *ctx)
{
	uprobe_group_remove(ctx);
}

int function_uprobes_open_set(struct function_uprobes *u, struct mtx_session *s)
{
	int rc = learn_layout(u, s);
	if (!rc)
		rc = make_room(u, s);
	for (size_t i = 0; i < u->nr_probes && !rc; i++)
		for (int r = 0; r < 2 && !rc; r++)
			rc = session_add_set_tracepoint(s, u->probes[i].id[r], &source_function_uprobes,
							(int)(u->set << SET_SHIFT | ((uint32_t)i * 2 + (uint32_t)r)), u->set, 0);
	return rc;
}

int function_uprobes_enable_set(struct function_uprobes *u, struct mtx_session *s, int on)
{
	return session_enable_set(s, u->set, on);
}

uint64_t function_uprobes_set_calls(const struct function_uprobes *u, const struct mtx_session *s)
{
	return session_set_hits(s, u->set, 1); /* the entries: tags with the return bit clear */
}

size_t function_uprobes_close_set(struct function_uprobes *u, struct mtx_session *s)
{
	/* the child that closes the events removes the definitions after */
	size_t n = session_close_set(s, u->set, remove_set, u->group);
	uprobe_group_disown(u->group);
	return n;
}

/* The function of the sets @sets (@n) that code address @pc of @cu's
 * process is in: its set in *@set and its probe in *@probe; 0 if none. */
static int probed_at(struct function_uprobes *const *sets, size_t n, const struct catch_up *cu, uint64_t pc,
		     size_t *set, size_t *probe)
{
	const struct catch_up_map *m = catch_up_map_of(cu, pc);
	uint64_t off;
	if (!m)
		return 0;
	off = pc - m->start + m->pgoff;
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < sets[k]->nr_probes; i++) {
			const struct function_probe *p = &sets[k]->probes[i];
			if (off >= p->offset && off < p->offset + p->size &&
			    !strcmp(sets[k]->modules[p->module], m->path)) {
				*set = k;
				*probe = i;
				return 1;
			}
		}
	return 0;
}

/* A catch-up probe on return address @ret for calls of @fn in set @u, as
 * catch-up probe @k of the layout @l: defined and opened (on) unless an
 * earlier call of the same function returning there has one. Returns 0
 * or -errno. */
static int catch_up_probe(struct function_uprobes *u, struct mtx_session *s, struct function_layout *l,
			  const struct catch_up *cu, uint64_t ret, uint64_t fn)
{
	const struct catch_up_map *m = catch_up_map_of(cu, ret);
	char name[32], *err = NULL;
	size_t k = l->nr_catch_ups;
	long id;
	int rc;
	for (size_t i = 0; i < k; i++)
		if (l->catch_up_fn[i] == fn && l->catch_up_ret[i] == ret)
			return 0;
	if (!m || k == MAX_CATCH_UPS)
		return -ENOSPC;
	snprintf(name, sizeof(name), "s%u_cu%zu", u->set, k);
	id = uprobe_group_add(u->group, name, 0, m->path, ret - m->start + m->pgoff, CATCH_UP_ARGS, &err);
	if (id < 0) {
		log_debug("catch-up: no probe at %s+%#llx: %s", m->path, (unsigned long long)(ret - m->start + m->pgoff),
			  err ? err : "");
		free(err);
		return (int)id;
	}
	if (!k && tp_lookup(uprobe_group_name(u->group), name, "sp", &l->catch_up_sp))
		return session_set_error(s, -EINVAL, "the uprobes of %s have an unknown format",
					 uprobe_group_name(u->group));
	rc = session_add_set_tracepoint(s, id, &source_function_uprobes,
					(int)(u->set << SET_SHIFT | CATCH_UP_BIT | (uint32_t)k << 1 | 1), u->set, 1);
	if (rc)
		return rc;
	l->catch_up_fn[k] = fn;
	l->catch_up_ret[k] = ret;
	l->nr_catch_ups++;
	return 0;
}

int function_uprobes_catch_up(struct function_uprobes *const *sets, size_t n, struct mtx_session *s,
			      const struct catch_up *cu, uint64_t t0, void (*push)(void *ctx, const struct mtx_event *ev),
			      void *ctx)
{
	struct function_layout *l = s->source_state[MTX_SRC_FUNCTIONS];
	int calls = 0;
	if (!l)
		return 0; /* no set was opened */
	for (size_t t = 0; t < catch_up_nr_stacks(cu); t++) {
		const struct catch_up_stack st = catch_up_stack(cu, t);
		/* the base of the stack first; the outermost frame's return is
		 * not known */
		for (int j = st.nr - 2; j >= 0; j--) {
			const uint64_t pc = j ? st.pcs[j] - 1 : st.pcs[j], ret = st.pcs[j + 1];
			const struct catch_up_map *m = catch_up_map_of(cu, pc);
			struct function_uprobes *u;
			struct mtx_event ev = { .ts_ns = t0, .cpu = -1, .pid = catch_up_pid(cu), .tid = st.tid,
						.type = MTX_EV_CALL };
			size_t k, i;
			uint64_t fn;
			if (!probed_at(sets, n, cu, pc, &k, &i))
				continue;
			u = sets[k];
			fn = m->start + u->probes[i].offset + u->probes[i].skip - m->pgoff;
			/* stopped on the entry probe: it will fire */
			if (!j && st.pcs[0] == fn)
				continue;
			if (catch_up_probe(u, s, l, cu, ret, fn))
				continue; /* its end could not be seen: no call */
			ev.u.call.fn = fn;
			ev.u.call.callsite = ret;
			ev.u.call.sp = st.sps[j + 1] - 8; /* at the entry: on the return address */
			ev.u.call.catch_up = 1;
			ev.u.call.set = (uint16_t)u->set;
			push(ctx, &ev);
			calls++;
		}
	}
	return calls;
}

void function_uprobes_free(struct function_uprobes *u)
{
	if (!u)
		return;
	uprobe_group_discard(u->group);
	for (size_t i = 0; i < u->nr_probes; i++)
		free(u->probes[i].name);
	free(u->probes);
	for (size_t i = 0; i < u->nr_modules; i++)
		free(u->modules[i]);
	free(u->modules);
	free(u->skipped);
	free(u);
}
