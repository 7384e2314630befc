/*
 * collector/sync/uprobes.c - see sync-uprobes.h. This file holds the table
 * of probed functions and the probes' life (find, define, open, decode);
 * collector/sync/uprobes-pair.c turns the hits into records.
 */
#include "config.h"
#include "collector/sync/uprobes-impl.h"
#include "collector/elf-symbols.h"
#include "collector/session.h"
#include "collector/target.h"
#include "collector/tracepoint.h"
#include "collector/uprobes.h"
#include "src/grow.h"
#include "src/log.h"
#include "src/error.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define S(sym, kind, op, stamp, obj, arg, res)                                             \
	{ #sym, MTX_SYNC_KIND_##kind, MTX_SYNC_OP_##op, STAMP_##stamp, FROM_##obj, FROM_##arg, \
	  RESULT_##res }

/*
 * Every function probed, with what its record holds: the same as the
 * library's wrapper for it (collector/preload/), stamped the same way
 * (releases before the call, try-calls after it, calls that may wait on
 * both sides: see collector/preload/preload.h for why).
 */
const struct uprobe_spec uprobe_specs[] = {
	S(pthread_mutex_init, MUTEX, INIT, BEFORE, A0, NONE, RETURNED),
	S(pthread_mutex_lock, MUTEX, LOCK, AROUND, A0, NONE, RETURNED),
	S(pthread_mutex_trylock, MUTEX, TRYLOCK, AFTER, A0, NONE, RETURNED),
	S(pthread_mutex_timedlock, MUTEX, TIMEDLOCK, AROUND, A0, NONE, RETURNED),
	S(pthread_mutex_clocklock, MUTEX, TIMEDLOCK, AROUND, A0, NONE, RETURNED),
	S(pthread_mutex_unlock, MUTEX, UNLOCK, BEFORE, A0, NONE, RETURNED),
	S(pthread_mutex_destroy, MUTEX, DESTROY, BEFORE, A0, NONE, RETURNED),
	S(pthread_rwlock_init, RWLOCK, INIT, BEFORE, A0, NONE, RETURNED),
	S(pthread_rwlock_rdlock, RWLOCK, RDLOCK, AROUND, A0, NONE, RETURNED),
	S(pthread_rwlock_wrlock, RWLOCK, WRLOCK, AROUND, A0, NONE, RETURNED),
	S(pthread_rwlock_tryrdlock, RWLOCK, TRYRDLOCK, AFTER, A0, NONE, RETURNED),
	S(pthread_rwlock_trywrlock, RWLOCK, TRYWRLOCK, AFTER, A0, NONE, RETURNED),
	S(pthread_rwlock_timedrdlock, RWLOCK, TIMEDRDLOCK, AROUND, A0, NONE, RETURNED),
	S(pthread_rwlock_timedwrlock, RWLOCK, TIMEDWRLOCK, AROUND, A0, NONE, RETURNED),
	S(pthread_rwlock_clockrdlock, RWLOCK, TIMEDRDLOCK, AROUND, A0, NONE, RETURNED),
	S(pthread_rwlock_clockwrlock, RWLOCK, TIMEDWRLOCK, AROUND, A0, NONE, RETURNED),
	S(pthread_rwlock_unlock, RWLOCK, UNLOCK, BEFORE, A0, NONE, RETURNED),
	S(pthread_rwlock_destroy, RWLOCK, DESTROY, BEFORE, A0, NONE, RETURNED),
	S(pthread_spin_init, SPINLOCK, INIT, BEFORE, A0, NONE, RETURNED),
	S(pthread_spin_lock, SPINLOCK, LOCK, AROUND, A0, NONE, RETURNED),
	S(pthread_spin_trylock, SPINLOCK, TRYLOCK, AFTER, A0, NONE, RETURNED),
	S(pthread_spin_unlock, SPINLOCK, UNLOCK, BEFORE, A0, NONE, RETURNED),
	S(pthread_spin_destroy, SPINLOCK, DESTROY, BEFORE, A0, NONE, RETURNED),
	S(pthread_cond_init, COND, INIT, BEFORE, A0, NONE, RETURNED),
	S(pthread_cond_wait, COND, WAIT, AROUND, A0, A1, RETURNED),
	S(pthread_cond_timedwait, COND, TIMEDWAIT, AROUND, A0, A1, RETURNED),
	S(pthread_cond_clockwait, COND, TIMEDWAIT, AROUND, A0, A1, RETURNED),
	S(pthread_cond_signal, COND, SIGNAL, BEFORE, A0, NONE, RETURNED),
	S(pthread_cond_broadcast, COND, BROADCAST, BEFORE, A0, NONE, RETURNED),
	S(pthread_cond_destroy, COND, DESTROY, BEFORE, A0, NONE, RETURNED),
	S(pthread_barrier_init, BARRIER, INIT, BEFORE, A0, A2, RETURNED),
	S(pthread_barrier_wait, BARRIER, WAIT, AROUND, A0, NONE, RETURNED),
	S(pthread_barrier_destroy, BARRIER, DESTROY, BEFORE, A0, NONE, RETURNED),
	S(sem_init, SEM, INIT, BEFORE, A0, A2, ERRNO),
	S(sem_wait, SEM, WAIT, AROUND, A0, NONE, ERRNO),
	S(sem_trywait, SEM, TRYWAIT, AFTER, A0, NONE, ERRNO),
	S(sem_timedwait, SEM, TIMEDWAIT, AROUND, A0, NONE, ERRNO),
	S(sem_clockwait, SEM, TIMEDWAIT, AROUND, A0, NONE, ERRNO),
	S(sem_post, SEM, POST, BEFORE, A0, NONE, ERRNO),
	S(sem_destroy, SEM, DESTROY, BEFORE, A0, NONE, ERRNO),
	S(sem_open, SEM, OPEN, AROUND, RETVAL, SEM_VALUE, POINTER),
	S(sem_close, SEM, CLOSE, BEFORE, A0, NONE, ERRNO),
	S(mtx_init, MUTEX, INIT, BEFORE, A0, A1, RETURNED),
	S(mtx_lock, MUTEX, LOCK, AROUND, A0, NONE, RETURNED),
	S(mtx_trylock, MUTEX, TRYLOCK, AFTER, A0, NONE, RETURNED),
	S(mtx_timedlock, MUTEX, TIMEDLOCK, AROUND, A0, NONE, RETURNED),
	S(mtx_unlock, MUTEX, UNLOCK, BEFORE, A0, NONE, RETURNED),
	S(mtx_destroy, MUTEX, DESTROY, BEFORE, A0, NONE, VOID),
	S(cnd_init, COND, INIT, BEFORE, A0, NONE, RETURNED),
	S(cnd_wait, COND, WAIT, AROUND, A0, A1, RETURNED),
	S(cnd_timedwait, COND, TIMEDWAIT, AROUND, A0, A1, RETURNED),
	S(cnd_signal, COND, SIGNAL, BEFORE, A0, NONE, RETURNED),
	S(cnd_broadcast, COND, BROADCAST, BEFORE, A0, NONE, RETURNED),
	S(cnd_destroy, COND, DESTROY, BEFORE, A0, NONE, VOID),
	S(pthread_create, THREAD, CREATE, AROUND, CHILD_PD, CHILD_TID, RETURNED),
	S(pthread_join, THREAD, JOIN, AROUND, A0, TID_OF_A0, RETURNED),
	S(pthread_detach, THREAD, DETACH, BEFORE, A0, TID_OF_A0, RETURNED),
	S(pthread_exit, THREAD, EXIT, ENTRY_ONLY, SELF_PD, A0, VOID),
	S(thrd_create, THREAD, CREATE, AROUND, CHILD_PD, CHILD_TID, RETURNED),
	S(thrd_join, THREAD, JOIN, AROUND, A0, TID_OF_A0, RETURNED),
	S(thrd_detach, THREAD, DETACH, BEFORE, A0, TID_OF_A0, RETURNED),
	S(thrd_exit, THREAD, EXIT, ENTRY_ONLY, SELF_PD, A0_U32, VOID),
	S(kill, SIGNAL, KILL, BEFORE, A1, A0, ERRNO),
	S(tgkill, SIGNAL, TGKILL, BEFORE, A2, A1, ERRNO),
	S(pthread_kill, SIGNAL, PTHREAD_KILL, BEFORE, A1, TID_OF_A0, RETURNED),
	S(raise, SIGNAL, RAISE, BEFORE, A0, SELF_TID, ERRNO),
	S(sigqueue, SIGNAL, SIGQUEUE, BEFORE, A1, A0, ERRNO),
	/* Not an operation: glibc's thread entry (a local symbol, in static
	 * programs), whose argument is the new thread's handle. */
	{ "start_thread", MTX_SYNC_KIND__COUNT, 0, STAMP_ENTRY_ONLY, FROM_A0, FROM_NONE, RESULT_VOID },
};
const size_t uprobe_nr_specs = sizeof(uprobe_specs) / sizeof(uprobe_specs[0]);

/* Fetch arguments; decode() reads the fields by these names. */
#define ENTRY_ARGS "a0=%di:u64 a1=%si:u64 a2=%dx:u64 a3=%cx:u64 ret=+0(%sp):u64 sp=%sp:u64"
#define RETURN_ARGS "rv=$retval:u64"

static int is_helper(const struct uprobe_spec *spec)
{
	return spec->kind == MTX_SYNC_KIND__COUNT;
}

/*
 * Calls the program did not make itself must not become records: the
 * library sees only calls that go through the dynamic linker, never glibc
 * calling its own functions (its dynamic-loader locks around thread
 * creation, libgcc's frame registration at start and exit, C11 mtx_lock
 * calling pthread_mutex_lock). Such a call returns into the C runtime:
 *  - in a shared library (the set-ID case), anywhere in that library;
 *  - in a static program, into a function whose name is reserved to the
 *    implementation (a leading underscore), into one of the probed
 *    functions, or into the start-up code gcc adds (crtstuff), which can
 *    tail-call them.
 * A handler's call inside a blocked call (a sem_post from a signal handler
 * inside sem_wait) returns into the program: it is kept.
 */
static const char *const crt_helpers[] = {
	"frame_dummy", "register_tm_clones", "deregister_tm_clones",
};

static int is_runtime_name(const char *name)
{
	if (name[0] == '_')
		return 1;
	for (size_t i = 0; i < sizeof(crt_helpers) / sizeof(crt_helpers[0]); i++)
		if (!strcmp(name, crt_helpers[i]))
			return 1;
	return 0;
}

static int add_range(struct uprobe_module *m, uint64_t lo, uint64_t hi)
{
	struct uprobe_range *r = grow_array(m->runtime, &m->cap_runtime, m->nr_runtime, sizeof(*r), 256);
	if (!r)
		return -ENOMEM;
	m->runtime = r;
	m->runtime[m->nr_runtime++] = (struct uprobe_range){ lo, hi };
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct uprobe_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sort and merge overlapping ranges (aliases are the same function). */
static void merge_ranges(struct uprobe_module *m)
{
	size_t out = 0;
	/* A module without symbols has no ranges and runtime is NULL, which
	 * qsort must not be given. */
	if (!m->nr_runtime)
		return;
	qsort(m->runtime, m->nr_runtime, sizeof(*m->runtime), cmp_range);
	for (size_t i = 0; i < m->nr_runtime; i++) {
		if (out && m->runtime[i].lo <= m->runtime[out - 1].hi) {
			if (m->runtime[i].hi > m->runtime[out - 1].hi)
				m->runtime[out - 1].hi = m->runtime[i].hi;
			continue;
		}
		m->runtime[out++] = m->runtime[i];
	}
	m->nr_runtime = out;
}

int uprobe_called_by_runtime(const struct sync_uprobes *u, const struct uprobe_probe *p, uint64_t ip,
			     uint64_t callsite)
{
	const struct uprobe_module *m = &u->modules[p->module];
	uint64_t at = callsite - (ip - p->addr - p->skip); /* the load bias cancels out */
	size_t lo = 0, hi = m->nr_runtime;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (at < m->runtime[mid].lo)
			hi = mid;
		else if (at >= m->runtime[mid].hi)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

static size_t spin_unlock_spec(void)
{
	size_t i = 0;
	while (strcmp(uprobe_specs[i].symbol, "pthread_spin_unlock") != 0)
		i++;
	return i;
}

static int is_spin_pair(const struct uprobe_spec *a, const struct uprobe_spec *b)
{
	return a->kind == MTX_SYNC_KIND_SPINLOCK && b->kind == MTX_SYNC_KIND_SPINLOCK &&
	       ((a->op == MTX_SYNC_OP_INIT && b->op == MTX_SYNC_OP_UNLOCK) ||
		(a->op == MTX_SYNC_OP_UNLOCK && b->op == MTX_SYNC_OP_INIT));
}

struct find_ctx {
	struct sync_uprobes *u;
	size_t module;
	int is_program;
	int error;
};

static int on_symbol(void *ctx, const struct elf_symbol *sym)
{
	struct find_ctx *f = ctx;
	struct sync_uprobes *u = f->u;
	struct uprobe_module *m = &u->modules[f->module];
	int probed = 0;

	for (size_t i = 0; i < uprobe_nr_specs; i++) {
		const struct uprobe_spec *spec = &uprobe_specs[i];
		struct uprobe_probe *p = &u->by_spec[i];
		if (strcmp(spec->symbol, sym->name) != 0)
			continue;
		probed = !is_helper(spec);
		if (p->path || (is_helper(spec) ? !f->is_program : !sym->global))
			break;
		/* One probe per address: aliases are the first name's. */
		for (size_t j = 0; j < uprobe_nr_specs; j++) {
			struct uprobe_probe *q = &u->by_spec[j];
			if (!q->path || q->module != f->module || q->offset != sym->offset)
				continue;
			if (is_spin_pair(q->spec, spec)) {
				q->spec = &uprobe_specs[spin_unlock_spec()];
				q->init_too = 1;
			}
			goto ranges;
		}
		*p = (struct uprobe_probe){ .spec = spec, .path = m->path, .module = f->module,
					    .offset = sym->offset, .addr = sym->addr, .size = sym->size };
		break;
	}
ranges:
	if ((!f->is_program || probed || is_runtime_name(sym->name)) &&
	    add_range(m, sym->addr, sym->addr + sym->size))
		f->error = -ENOMEM;
	return f->error;
}

static int find_in(struct sync_uprobes *u, const char *path, int is_program, char **err)
{
	struct uprobe_module *mods = realloc(u->modules, (u->nr_modules + 1) * sizeof(*mods));
	struct find_ctx f = { u, u->nr_modules, is_program, 0 };
	int rc;
	if (!mods)
		return -ENOMEM;
	u->modules = mods;
	memset(&mods[f.module], 0, sizeof(mods[f.module]));
	mods[f.module].path = strdup(path);
	if (!mods[f.module].path)
		return -ENOMEM;
	u->nr_modules++;
	rc = elf_symbols_each(path, on_symbol, &f, err);
	merge_ranges(&mods[f.module]);
	return rc;
}

static int on_library(void *ctx, const char *path)
{
	char real[PATH_MAX];
	char *err = NULL;
	/* A library that cannot be read is one whose functions we lose. */
	if (realpath(path, real))
		find_in(ctx, real, 0, &err);
	free(err);
	return 0;
}

struct mapped_libraries {
	const char *exe;
	elf_library_fn fn;
	void *ctx;
	char (*seen)[PATH_MAX];
	size_t nr_seen;
};

static int on_mapping(void *ctx, uint64_t start, uint64_t end, uint64_t pgoff, const char *file)
{
	struct mapped_libraries *l = ctx;
	void *more;
	(void)start, (void)end, (void)pgoff;
	if (!strcmp(file, l->exe))
		return 0;
	for (size_t i = 0; i < l->nr_seen; i++)
		if (!strcmp(l->seen[i], file))
			return 0;
	if (!(more = realloc(l->seen, (l->nr_seen + 1) * sizeof(*l->seen))))
		return -ENOMEM;
	l->seen = more;
	snprintf(l->seen[l->nr_seen++], PATH_MAX, "%s", file);
	return l->fn(l->ctx, file);
}

/* Call @fn with each ELF file process @pid maps executable, but @exe. */
static int each_mapped_library(pid_t pid, const char *exe, elf_library_fn fn, void *ctx)
{
	struct mapped_libraries l = { exe, fn, ctx, NULL, 0 };
	int rc = target_maps_each(pid, on_mapping, &l);
	free(l.seen);
	return rc;
}

struct import_ctx {
	bool *imported; /* [uprobe_nr_specs] */
};

static int mark_import(void *ctx, const char *name)
{
	struct import_ctx *c = ctx;
	for (size_t i = 0; i < uprobe_nr_specs; i++)
		if (!strcmp(uprobe_specs[i].symbol, name))
			c->imported[i] = true;
	return 0;
}

/*
 * Attached: only the functions some mapped file imports. A call glibc
 * makes to its own functions is no record anyway (uprobe_called_by_runtime),
 * so a function no other file binds to is never called as one, and each
 * probe costs the kernel ~80 ms to remove at detach (two RCU grace
 * periods under a global lock): 66 of them held mtx 11 s after Ctrl-C.
 */
static int keep_imported(struct sync_uprobes *u)
{
	struct import_ctx c = { calloc(uprobe_nr_specs, sizeof(bool)) };
	if (!c.imported)
		return -ENOMEM;
	for (size_t m = 0; m < u->nr_modules; m++)
		elf_imports_each(u->modules[m].path, mark_import, &c);
	for (size_t i = 0; i < uprobe_nr_specs; i++) {
		struct uprobe_probe *p = &u->by_spec[i];
		if (p->path && !is_helper(p->spec) && !c.imported[i] && !c.imported[p->spec - uprobe_specs])
			p->path = NULL;
	}
	free(c.imported);
	return 0;
}

/* Define the probes of every function found; the probe array is compacted. */
static int define_probes(struct sync_uprobes *u, char **err)
{
	int rc = uprobe_group_new(&u->group, err);
	if (rc)
		return rc;
	for (size_t i = 0; i < uprobe_nr_specs; i++) {
		struct uprobe_probe p = u->by_spec[i];
		char name[64];
		long id;
		int skip;
		if (!p.path)
			continue;
		skip = uprobe_file_entry_offset(p.path, p.offset, p.size);
		if (skip < 0) {
			log_debug("%s in %s begins with an instruction uprobes refuse: not traced",
				  p.spec->symbol, p.path);
			continue;
		}
		p.skip = (uint32_t)skip;
		snprintf(name, sizeof(name), "%s_entry", p.spec->symbol);
		id = uprobe_group_add(u->group, name, 0, p.path, p.offset + p.skip, ENTRY_ARGS, err);
		if (id < 0)
			return (int)id;
		p.id[0] = id;
		/* The return probe too hooks the entry: it swaps the return
		 * address at the top of the stack, still untouched there. */
		if (p.spec->stamp != STAMP_ENTRY_ONLY) {
			snprintf(name, sizeof(name), "%s_return", p.spec->symbol);
			id = uprobe_group_add(u->group, name, 1, p.path, p.offset + p.skip, RETURN_ARGS, err);
			if (id < 0)
				return (int)id;
			p.id[1] = id;
		}
		if (is_helper(p.spec))
			u->has_start_thread = 1;
		else
			u->nr_functions++;
		u->probes[u->nr_probes++] = p;
	}
	return 0;
}

int sync_uprobes_new(struct sync_uprobes **out, const char *path, pid_t pid, char **err)
{
	struct sync_uprobes *u;
	char real[PATH_MAX];
	int rc;

	*out = NULL;
	if (!realpath(path, real)) {
		rc = -errno;
		error_set(err, "%s: %s", path, strerror(errno));
		return rc;
	}
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->by_spec = calloc(uprobe_nr_specs, sizeof(*u->by_spec));
	u->probes = calloc(uprobe_nr_specs, sizeof(*u->probes));
	if (!u->by_spec || !u->probes) {
		sync_uprobes_free(u);
		return -ENOMEM;
	}
	rc = find_in(u, real, 1, err);
	if (!rc)
		rc = pid > 0 ? each_mapped_library(pid, real, on_library, u) : elf_needed_each(real, on_library, u);
	if (!rc && pid > 0)
		rc = keep_imported(u);
	if (rc < 0) {
		sync_uprobes_free(u);
		return rc;
	}
	/* Only the helper, or nothing at all: no operation to trace. */
	for (size_t i = 0; i < uprobe_nr_specs; i++)
		if (u->by_spec[i].path && !is_helper(&uprobe_specs[i]))
			rc = 1;
	if (rc != 1) {
		sync_uprobes_free(u);
		return 0;
	}
	rc = define_probes(u, err);
	if (rc) {
		sync_uprobes_free(u);
		return rc;
	}
	*out = u;
	return 0;
}

size_t sync_uprobes_functions(const struct sync_uprobes *u)
{
	return u ? u->nr_functions : 0;
}

/* Field offsets, the same for every probe of a kind (same fetch args). */
struct uprobe_layout {
	struct tp_field ip, a[4], ret, sp; /* entry */
	struct tp_field func, ret_ip, rv; /* return */
};

static int su_decode(struct mtx_session *s, int tag, const struct perf_sample *sample, struct mtx_event *ev)
{
	const struct uprobe_layout *l = s->source_state[MTX_SRC_SYNC];
	ev->type = MTX_EV_UPROBE;
	ev->u.uprobe.probe = (uint32_t)tag >> 1;
	ev->u.uprobe.at_return = (uint32_t)tag & 1;
	if (!(tag & 1)) {
		for (int i = 0; i < 4; i++)
			ev->u.uprobe.arg[i] = (uint64_t)tp_read(sample, &l->a[i], 0);
		ev->u.uprobe.arg[UPROBE_ARG_CALLSITE] = (uint64_t)tp_read(sample, &l->ret, 0);
		ev->u.uprobe.arg[UPROBE_ARG_IP] = (uint64_t)tp_read(sample, &l->ip, 0);
		ev->u.uprobe.arg[UPROBE_ARG_SP] = (uint64_t)tp_read(sample, &l->sp, 0);
	} else {
		ev->u.uprobe.arg[0] = (uint64_t)tp_read(sample, &l->rv, 0);
		ev->u.uprobe.arg[UPROBE_ARG_CALLSITE] = (uint64_t)tp_read(sample, &l->ret_ip, 0);
		ev->u.uprobe.arg[UPROBE_ARG_IP] = (uint64_t)tp_read(sample, &l->func, 0);
	}
	return 1;
}

/* Not in the --events table: opened by sync_uprobes_open when the
 * library cannot be used. Records lost in the rings count as sync's. */
static const struct mtx_source source_sync_uprobes = {
	.id = MTX_SRC_SYNC,
	.name = "sync (uprobes)",
	.summary = "pthread calls of a program the preload library cannot enter",
	.decode = su_decode,
};

static int learn_layout(struct sync_uprobes *u, struct mtx_session *s)
{
	const char *group = uprobe_group_name(u->group);
	static const char *const a[] = { "a0", "a1", "a2", "a3" };
	struct uprobe_layout *l = calloc(1, sizeof(*l));
	char entry[96] = "", ret[96] = "";
	int bad = 0;

	if (!l)
		return -ENOMEM;
	s->source_state[MTX_SRC_SYNC] = l; /* the session frees it */
	for (size_t i = 0; i < u->nr_probes && (!entry[0] || !ret[0]); i++) {
		if (!entry[0])
			snprintf(entry, sizeof(entry), "%s_entry", u->probes[i].spec->symbol);
		if (!ret[0] && u->probes[i].id[1] > 0)
			snprintf(ret, sizeof(ret), "%s_return", u->probes[i].spec->symbol);
	}
	bad |= tp_lookup(group, entry, "__probe_ip", &l->ip);
	for (int i = 0; i < 4; i++)
		bad |= tp_lookup(group, entry, a[i], &l->a[i]);
	bad |= tp_lookup(group, entry, "ret", &l->ret);
	bad |= tp_lookup(group, entry, "sp", &l->sp);
	if (ret[0]) {
		bad |= tp_lookup(group, ret, "__probe_func", &l->func);
		bad |= tp_lookup(group, ret, "__probe_ret_ip", &l->ret_ip);
		bad |= tp_lookup(group, ret, "rv", &l->rv);
	}
	return bad ? session_set_error(s, -EINVAL, "the uprobes of %s have an unknown format", group) : 0;
}

int sync_uprobes_open(struct sync_uprobes *u, struct mtx_session *s)
{
	int rc = learn_layout(u, s);
	if (rc)
		return rc;
	rc = uprobe_group_hand_over(u->group, s);
	if (rc)
		return rc;
	for (size_t i = 0; i < u->nr_probes; i++) {
		for (int r = 0; r < 2; r++) {
			if (u->probes[i].id[r] <= 0)
				continue;
			rc = session_add_tracepoint(s, u->probes[i].id[r], &source_sync_uprobes, (int)(i * 2) + r);
			if (rc)
				return rc;
		}
	}
	return 0;
}

void sync_uprobes_free(struct sync_uprobes *u)
{
	if (!u)
		return;
	/* Handed to a session, whose closing child removes them (it may still
	 * hold the events now), or ours to remove. */
	uprobe_group_discard(u->group);
	for (size_t i = 0; i < u->nr_modules; i++) {
		free(u->modules[i].path);
		free(u->modules[i].runtime);
	}
	free(u->modules);
	free(u->by_spec);
	free(u->probes);
	sync_uprobes_pair_free(u);
	free(u);
}
