/* collector/live-search.c - see live-search.h. */
#include "config.h"
#include "collector/live-search.h"
#include "collector/cal-store.h"
#include "collector/calibrate.h"
#include "collector/instrument.h"
#include "collector/live.h"
#include "collector/model.h"
#include "collector/profile.h"
#include "collector/stacks.h"
#include "collector/source.h"
#include "src/derived/consultant-data.h"
#include "src/frames.h"
#include "src/grow.h"
#include "src/keyhash.h"
#include "src/sorted.h"
#include "src/log.h"
#include "src/report-format.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

/* The syscalls a second an experiment is predicted to make the program
 * record before any is seen: the "static model of call frequency" of
 * seed 003 §3.1 (SEEDS-MAP S6's stated default). */
#define DEFAULT_SYSCALLS_PER_S 1000.0

/* A thread as the search counts it: its life so far. */
struct thread_sum {
	int64_t tid;
	int32_t pid;
	char name[16];
	uint64_t state_ns[NR_THREAD_STATES];
	uint64_t io_ops, io_bytes;
};

/* A function's names, as the profile gave them (NULL: it could not). */
struct function_names {
	int64_t id;
	char *name, *module;
};

/* A thread's CPU samples with a function on the stack (function 0: all). */
struct sample_count {
	int64_t tid, function_id;
	uint64_t n;
};

/* A thread's lock waits on one object from one function. */
struct pair_sum {
	int64_t tid, object_id, function_id;
	int32_t pid;
	const char *kind;
	uint64_t addr, wait_ns;
};

/* A thread's I/O, on one file (NULL: all of its I/O waits), in the
 * function it blocked in (0: none known). */
struct io_sum {
	int64_t tid, function_id;
	const char *path;
	uint64_t io_ops, io_bytes, wait_ns;
};

/* The function an I/O wait's stack is put in, once per stack. */
struct stack_function {
	int64_t stack, function_id;
};

/* What the live search knows code from (diagnose's "Code:" line). */
#define LIVE_CODE_FROM "lock waits by call site, CPU by samples, I/O where it blocked"

/* A source the experiments switch (enum pc_need), and what it cost. */
struct switched {
	const char *source;  /* instrument_source's name */
	bool on, always;     /* always: on all along (--sample), never switched */
	uint64_t cost_seen;  /* switch_cost at the last look */
	uint64_t looked_ns;  /* then; 0: not since it went on */
	double pct;          /* the last observed cost, % of a CPU; < 0: not seen yet */
	int switched_on, switched_off;
	bool refusal_said;
};

struct live_search {
	struct mtx_model *m;
	struct mtx_profile *profile;
	/* the CPU samples: each thread's, and those with each function on the stack */
	struct sample_count *samples;
	size_t nr_samples, cap_samples;
	struct keyhash sample_keys; /* (tid, function id) -> samples; function 0: all of the thread's */
	int64_t *functions;         /* gathered each step: the ids to name */
	size_t nr_functions, cap_functions;
	struct function_names *names; /* by id: each asked of the profile once */
	size_t nr_names, cap_names;
	struct mtx_live *live;
	struct mtx_instrument *in;
	double budget_pct;
	uint64_t search_ns, start_ns, last_step_ns;
	struct pc_search *s;
	bool over, failed;
	struct thread_sum *ended; /* the threads gone, their whole lives */
	size_t nr_ended, cap_ended;
	/* gathered each step */
	struct thread_sum *threads;
	size_t nr_threads, cap_threads;
	struct pair_sum *pairs;
	size_t nr_pairs, cap_pairs;
	struct io_sum *io;
	size_t nr_io, cap_io;
	uint64_t now_ns; /* the step's */
	struct stack_function *stack_functions;
	size_t nr_stack_functions, cap_stack_functions;
	struct keyhash stack_function_keys; /* stack -> stack_functions */
	/* what the experiments switch, by enum pc_need */
	struct switched switched[PC_NEEDS];
	uint64_t cal_ns[CAL_NR_RECORDS]; /* one record of each, calibrated here */
	unsigned sample_hz;
	int nr_cpus; /* the machine's */
	uint64_t samples_seen;           /* CPU samples gone by */
	uint64_t cost_ns;                /* observed in all */
};

static struct thread_sum sum_of(const struct model_thread_view *v);

/* @value (@size bytes) appended to array *@v (*@nr of them, room for
 * *@cap); when memory runs out, the search has failed. */
static void push(struct live_search *ls, void *v, size_t *nr, size_t *cap, size_t size, const void *value)
{
	void **array = v, *more = grow_array(*array, cap, *nr, size, 64);
	if (!more) {
		ls->failed = true;
		return;
	}
	*array = more;
	memcpy((char *)more + (*nr)++ * size, value, size);
}

static void keep_ended(void *ctx, const struct model_thread_view *v)
{
	struct live_search *ls = ctx;
	const struct thread_sum t = sum_of(v);
	push(ls, &ls->ended, &ls->nr_ended, &ls->cap_ended, sizeof(t), &t);
}

/* ---- the instrumentation the search switches ---- */

/* What @need has cost since the start, were it on all along, by the
 * counters the collector keeps anyway and the calibrated cost of each
 * record: a syscall's two; a sample, and the switch of a thread, which a
 * per-thread event makes dearer (estimated by a switch record's cost). */
static uint64_t switch_cost(const struct live_search *ls, enum pc_need need)
{
	if (need == PC_NEED_SYSCALLS)
		return model_syscalls(ls->m) * ls->cal_ns[CAL_REC_SYSCALLS];
	return ls->samples_seen * ls->cal_ns[CAL_REC_SAMPLES] + model_switches(ls->m) * ls->cal_ns[CAL_REC_SWITCHES];
}

/* What @need would cost, in % of a CPU, before it goes on: what it cost
 * when last on, else a stated rate (syscalls), else the samples' rate on
 * every CPU and the switches so far. */
static double predicted_pct(const struct live_search *ls, enum pc_need need, uint64_t now)
{
	const struct switched *w = &ls->switched[need];
	const double since_s = now > ls->start_ns ? (double)(now - ls->start_ns) / 1e9 : 1;
	double ns_a_second;
	if (w->pct >= 0)
		return w->pct;
	if (need == PC_NEED_SYSCALLS)
		ns_a_second = DEFAULT_SYSCALLS_PER_S * (double)ls->cal_ns[CAL_REC_SYSCALLS];
	else
		ns_a_second = (double)ls->sample_hz * (double)sysconf(_SC_NPROCESSORS_ONLN) *
				      (double)ls->cal_ns[CAL_REC_SAMPLES] +
			      (double)model_switches(ls->m) / since_s * (double)ls->cal_ns[CAL_REC_SWITCHES];
	return ns_a_second / 1e7; /* % of 1e9 ns */
}

static int need_on(void *ctx, enum pc_need need)
{
	struct live_search *ls = ctx;
	struct switched *w = &ls->switched[need];
	const double predicted = predicted_pct(ls, need, ls->last_step_ns);
	const char *why = NULL;
	uint64_t at;
	if (w->always)
		return 0;
	if (ls->budget_pct > 0 && predicted > ls->budget_pct) {
		if (!w->refusal_said)
			log_info("consultant: %s refused: predicted %.2f%% of a CPU, over the %g%% budget", w->source,
				 predicted, ls->budget_pct);
		w->refusal_said = true;
		return -1;
	}
	if (instrument_source(ls->in, w->source, 1, "consultant", &at, &why)) {
		log_warn("consultant: the %s cannot go on (%s): what needs them is not tested", w->source, why);
		return -1;
	}
	w->on = true;
	w->cost_seen = switch_cost(ls, need);
	w->looked_ns = 0;
	w->switched_on++;
	return 0;
}

static void switch_off(struct live_search *ls, enum pc_need need, const char *reason)
{
	struct switched *w = &ls->switched[need];
	const char *why = NULL;
	uint64_t at;
	if (w->always || !w->on)
		return;
	if (instrument_source(ls->in, w->source, 0, reason, &at, &why))
		log_warn("consultant: the %s cannot go off (%s)", w->source, why);
	w->on = false;
	w->switched_off++;
}

static void need_off(void *ctx, enum pc_need need)
{
	switch_off(ctx, need, "consultant");
}

/* Weigh what is on since the last look; past the budget, off. */
static void watch_cost(struct live_search *ls, uint64_t now)
{
	for (int k = 0; k < PC_NEEDS; k++) {
		struct switched *w = &ls->switched[k];
		uint64_t cost, spent;
		if (!w->on)
			continue;
		cost = switch_cost(ls, (enum pc_need)k);
		spent = cost - w->cost_seen;
		w->cost_seen = cost;
		ls->cost_ns += spent;
		if (w->looked_ns && now > w->looked_ns) {
			w->pct = 100.0 * (double)spent / (double)(now - w->looked_ns);
			if (ls->budget_pct > 0 && w->pct > ls->budget_pct) {
				log_warn("consultant: the %s off: they cost %.2f%% of a CPU, over the %g%% budget; what "
					 "needs them stays untested", w->source, w->pct, ls->budget_pct);
				switch_off(ls, (enum pc_need)k, "budget");
				pc_live_withdraw(ls->s, (enum pc_need)k);
			}
		}
		w->looked_ns = now;
	}
}

/* ---- the run so far ---- */

static void add_thread_sum(struct live_search *ls, const struct thread_sum *sum)
{
	push(ls, &ls->threads, &ls->nr_threads, &ls->cap_threads, sizeof(*sum), sum);
}

static struct thread_sum sum_of(const struct model_thread_view *v)
{
	struct thread_sum t = { .tid = v->tid, .pid = v->pid, .io_ops = v->io_ops, .io_bytes = v->io_bytes };
	snprintf(t.name, sizeof(t.name), "%s", v->name);
	memcpy(t.state_ns, v->state_ns, sizeof(t.state_ns));
	return t;
}

static void gather_thread(void *ctx, const struct model_thread_view *v)
{
	struct thread_sum t = sum_of(v);
	add_thread_sum(ctx, &t);
}

static void gather_pair(void *ctx, int64_t tid, int64_t object_id, int32_t pid, const char *kind, uint64_t addr,
			int64_t function_id, uint64_t wait_ns)
{
	struct live_search *ls = ctx;
	const struct pair_sum p = { tid, object_id, function_id, pid, kind, addr, wait_ns };
	push(ls, &ls->pairs, &ls->nr_pairs, &ls->cap_pairs, sizeof(p), &p);
}

static void need_function(struct live_search *ls, int64_t id)
{
	push(ls, &ls->functions, &ls->nr_functions, &ls->cap_functions, sizeof(id), &id);
}

/* Function @id's names, as the profile names it: asked once (demangled
 * then), kept by id for the later rounds. NULL when out of memory. */
static const struct function_names *names_of(struct live_search *ls, int64_t id)
{
	const size_t at = SORTED_FIRST(ls->names, ls->nr_names, id, id, false);
	struct function_names *more;
	if (at < ls->nr_names && ls->names[at].id == id)
		return &ls->names[at];
	if (!(more = grow_array(ls->names, &ls->cap_names, ls->nr_names, sizeof(*more), 64)))
		return NULL;
	ls->names = more;
	memmove(&more[at + 1], &more[at], (ls->nr_names - at) * sizeof(*more));
	more[at].id = id;
	if (profile_function_names(ls->profile, id, &more[at].name, &more[at].module))
		more[at].name = more[at].module = NULL; /* (not named: at the root only) */
	ls->nr_names++;
	return &more[at];
}

/* Each function the lock waits were called from or the samples had on
 * their stacks, named as the profile names it (one it cannot name is
 * left out: its time stays at the root of /Code). */
static int add_functions(struct live_search *ls, struct pc_data *d)
{
	int rc = 0;
	ls->nr_functions = 0;
	for (size_t i = 0; i < ls->nr_pairs; i++)
		if (ls->pairs[i].function_id)
			need_function(ls, ls->pairs[i].function_id);
	for (size_t i = 0; i < ls->nr_samples; i++)
		if (ls->samples[i].function_id)
			need_function(ls, ls->samples[i].function_id);
	for (size_t i = 0; i < ls->nr_io; i++)
		if (ls->io[i].function_id)
			need_function(ls, ls->io[i].function_id);
	sorted_sort(ls->functions, ls->nr_functions, sizeof(*ls->functions), 0);
	for (size_t i = 0; i < ls->nr_functions && !rc && !ls->failed; i++) {
		const struct function_names *f;
		if (i && ls->functions[i] == ls->functions[i - 1])
			continue;
		if (!(f = names_of(ls, ls->functions[i])))
			rc = -ENOMEM;
		else if (f->name)
			rc = pc_data_add_function(d, f->id, f->name, f->module);
	}
	return ls->failed ? -1 : rc;
}

/* One more sample of thread @tid with function @function_id on its stack. */
static void count_sample(struct live_search *ls, int64_t tid, int64_t function_id)
{
	const struct sample_count none = { tid, function_id, 0 };
	ptrdiff_t i = keyhash_row(&ls->sample_keys, tid, function_id, 0, &ls->samples, &ls->nr_samples,
				  &ls->cap_samples, sizeof(none), &none);
	if (i < 0)
		ls->failed = true;
	else
		ls->samples[i].n++;
}

#define MAX_FRAMES 256

/* A CPU sample: once for its thread, once for each distinct function on
 * its stack, as diagnose shares a thread's running time out by them. */
static void on_sample(void *ctx, int32_t tid, int32_t pid, uint64_t ts_ns, uint32_t node)
{
	struct live_search *ls = ctx;
	const struct mtx_stacks *st = profile_stacks(ls->profile);
	int64_t seen[MAX_FRAMES];
	size_t n = 0;
	ls->samples_seen++;
	count_sample(ls, tid, 0);
	for (const struct stacks_node *k; node && n < MAX_FRAMES && (k = stacks_node(st, node)); node = k->parent) {
		int64_t f = profile_function_at(ls->profile, pid, ts_ns, k->pc);
		bool dup = false;
		for (size_t i = 0; i < n && !dup; i++)
			dup = seen[i] == f;
		if (f <= 0 || dup)
			continue;
		seen[n++] = f;
		count_sample(ls, tid, f);
	}
}

/* Thread @tid's samples with @function_id on the stack (0: all). */
static uint64_t samples_of(struct live_search *ls, int64_t tid, int64_t function_id)
{
	struct keyhash_slot *sl = keyhash_slot(&ls->sample_keys, tid, function_id, 0);
	return sl && sl->v ? ls->samples[sl->v - 1].n : 0;
}

/* The model's totals by CPU, straight into the data. */
struct totals_to {
	struct pc_data *d;
	int rc;
};

static void add_cpu_times(void *ctx, const struct model_cpu_time *c)
{
	struct totals_to *to = ctx;
	if (!to->rc)
		to->rc = pc_data_add_cpu(to->d, c->tid, PC_M_CPU, c->cpu, (int64_t)c->running_ns);
	if (!to->rc)
		to->rc = pc_data_add_cpu(to->d, c->tid, PC_M_CPU_WAIT, c->cpu, (int64_t)c->runnable_ns);
}

/* The function an I/O wait of @tid in user stack @stack is put in, as
 * offline (state_causes.function_id): the program's own frame nearest the
 * leaf, else the leaf's (a library's: the wrapper of the syscall); 0 when
 * none is known. Found once per stack. */
static int64_t io_function(struct live_search *ls, int64_t tid, uint32_t stack)
{
	const struct stack_function none = { stack, -1 };
	ptrdiff_t i = keyhash_row(&ls->stack_function_keys, stack, 0, 0, &ls->stack_functions,
				  &ls->nr_stack_functions, &ls->cap_stack_functions, sizeof(none), &none);
	if (i < 0) {
		ls->failed = true;
		return 0;
	}
	if (ls->stack_functions[i].function_id >= 0)
		return ls->stack_functions[i].function_id;
	const size_t at = SORTED_FIRST(ls->threads, ls->nr_threads, tid, tid, false);
	const int32_t pid = at < ls->nr_threads && ls->threads[at].tid == tid ? ls->threads[at].pid : (int32_t)tid;
	const struct mtx_stacks *st = profile_stacks(ls->profile);
	int64_t leaf = 0, own = 0;
	size_t n = 0;
	for (const struct stacks_node *k; stack && !own && n++ < MAX_FRAMES && (k = stacks_node(st, stack));
	     stack = k->parent) {
		const int64_t f = profile_function_at(ls->profile, pid, ls->now_ns, k->pc);
		if (f <= 0)
			continue;
		const struct function_names *names = names_of(ls, f);
		if (!leaf)
			leaf = f;
		if (names && names->name && !frame_is_system(names->module, NULL))
			own = f;
	}
	ls->stack_functions[i].function_id = own ? own : leaf;
	return ls->stack_functions[i].function_id;
}

static void gather_io(void *ctx, const struct model_io_time *f)
{
	struct live_search *ls = ctx;
	const struct io_sum io = { f->tid, f->stack ? io_function(ls, f->tid, f->stack) : 0, f->path,
				   f->io_ops, f->io_bytes, f->io_wait_ns };
	if (io.path || io.function_id)
		push(ls, &ls->io, &ls->nr_io, &ls->cap_io, sizeof(io), &io);
}

/* A thread's I/O on a file, and in the function it blocked in. */
static int add_io(struct pc_data *d, const struct io_sum *io)
{
	int rc = 0;
	if (!io->path) /* its root, the thread's, is added on its own */
		return pc_data_add(d, io->tid, PC_M_IO_WAIT, 0, io->function_id, (int64_t)io->wait_ns);
	rc = pc_data_add_file(d, io->tid, PC_M_IO_WAIT, io->path, 0, (int64_t)io->wait_ns);
	if (!rc && io->function_id)
		rc = pc_data_add_file(d, io->tid, PC_M_IO_WAIT, io->path, io->function_id, (int64_t)io->wait_ns);
	if (!rc)
		rc = pc_data_add_file(d, io->tid, PC_M_IO_OPS, io->path, 0, (int64_t)io->io_ops);
	return rc ? rc : pc_data_add_file(d, io->tid, PC_M_IO_BYTES, io->path, 0, (int64_t)io->io_bytes);
}

/* The run as far as the stream is, @now, for the search; NULL when out
 * of memory. A tid used twice is one thread. */
static struct pc_data *run_so_far(struct live_search *ls, uint64_t now)
{
	struct pc_data *d = pc_data_new();
	size_t n = 0;
	int rc = d ? 0 : -1;
	ls->nr_threads = ls->nr_pairs = 0;
	for (size_t i = 0; i < ls->nr_ended; i++)
		add_thread_sum(ls, &ls->ended[i]);
	model_each_thread(ls->m, now, gather_thread, ls);
	live_lock_waits(ls->live, now, gather_pair, ls);
	if (ls->failed || rc) {
		pc_data_free(d);
		return NULL;
	}
	SORTED_SORT(ls->threads, ls->nr_threads, tid);
	for (size_t i = 0; i < ls->nr_threads; i++) {
		struct thread_sum *t = &ls->threads[i];
		if (n && ls->threads[n - 1].tid == t->tid) {
			for (int k = 0; k < NR_THREAD_STATES; k++)
				ls->threads[n - 1].state_ns[k] += t->state_ns[k];
			ls->threads[n - 1].io_ops += t->io_ops;
			ls->threads[n - 1].io_bytes += t->io_bytes;
		} else {
			ls->threads[n++] = *t;
		}
	}
	ls->nr_threads = n;
	ls->nr_io = 0;
	ls->now_ns = now;
	model_each_io_time(ls->m, now, gather_io, ls);
	for (size_t i = 0; i < n && !rc; i++) {
		const struct thread_sum *t = &ls->threads[i];
		uint64_t life = 0;
		for (int k = 0; k < NR_THREAD_STATES; k++)
			life += t->state_ns[k];
		rc = pc_data_add_thread(d, t->tid, t->pid, t->name, (int64_t)life);
	}
	if (!rc)
		rc = add_functions(ls, d);
	SORTED_SORT(ls->pairs, ls->nr_pairs, object_id);
	for (size_t i = 0; i < ls->nr_pairs && !rc; i++)
		if (!i || ls->pairs[i].object_id != ls->pairs[i - 1].object_id)
			rc = pc_data_add_object(d, ls->pairs[i].object_id, ls->pairs[i].kind, (int64_t)ls->pairs[i].addr);
	for (size_t i = 0; i < n && !rc; i++) {
		const struct thread_sum *t = &ls->threads[i];
		rc = pc_data_add(d, t->tid, PC_M_CPU, 0, 0, (int64_t)t->state_ns[TS_RUNNING]);
		rc = rc ? rc : pc_data_add(d, t->tid, PC_M_CPU_WAIT, 0, 0, (int64_t)t->state_ns[TS_RUNNABLE]);
		rc = rc ? rc : pc_data_add(d, t->tid, PC_M_IO_WAIT, 0, 0, (int64_t)t->state_ns[TS_BLOCKED_IO]);
		rc = rc ? rc : pc_data_add(d, t->tid, PC_M_IO_OPS, 0, 0, (int64_t)t->io_ops);
		rc = rc ? rc : pc_data_add(d, t->tid, PC_M_IO_BYTES, 0, 0, (int64_t)t->io_bytes);
	}
	for (size_t i = 0; i < ls->nr_pairs && !rc; i++) {
		const struct pair_sum *p = &ls->pairs[i];
		rc = pc_data_add(d, p->tid, PC_M_SYNC_WAIT, p->object_id, 0, (int64_t)p->wait_ns);
		if (!rc && p->function_id)
			rc = pc_data_add(d, p->tid, PC_M_SYNC_WAIT, p->object_id, p->function_id, (int64_t)p->wait_ns);
	}
	/* a thread's running time shared out by its samples' stacks */
	for (size_t i = 0; i < ls->nr_samples && !rc; i++) {
		const struct sample_count *c = &ls->samples[i];
		const size_t at = SORTED_FIRST(ls->threads, n, tid, c->tid, false);
		const struct thread_sum *t = at < n && ls->threads[at].tid == c->tid ? &ls->threads[at] : NULL;
		uint64_t all = c->function_id ? samples_of(ls, c->tid, 0) : 0;
		if (t && all)
			rc = pc_data_add(d, c->tid, PC_M_CPU, 0, c->function_id,
					 (int64_t)((double)t->state_ns[TS_RUNNING] * (double)c->n / (double)all + 0.5));
	}
	/* each thread's time on each CPU (/Machine), I/O on each file (/File)
	 * and in the functions it blocked in */
	struct totals_to to = { d, rc };
	model_each_cpu_time(ls->m, now, add_cpu_times, &to);
	rc = to.rc;
	for (size_t i = 0; i < ls->nr_io && !rc; i++)
		rc = add_io(d, &ls->io[i]);
	pc_data_set_nr_cpus(d, ls->nr_cpus);
	pc_data_set_span(d, (int64_t)ls->start_ns, (int64_t)now, LIVE_CODE_FROM);
	if (rc) {
		pc_data_free(d);
		return NULL;
	}
	return d;
}

/* ---- the search's life ---- */

struct live_search *live_search_new(struct mtx_model *m, struct mtx_profile *profile, struct mtx_live *live,
				    struct mtx_instrument *in, const struct live_search_options *o, uint64_t start_ns)
{
	/* one record of each when it cannot be measured here nor was kept by
	 * mtx calibrate: about what this machine kind measures */
	static const uint64_t stated_ns[CAL_NR_RECORDS] = {
		[CAL_REC_SYSCALLS] = 1000, [CAL_REC_SAMPLES] = 3000, [CAL_REC_SWITCHES] = 500, [CAL_REC_WAKEUPS] = 500,
	};
	struct live_search *ls = calloc(1, sizeof(*ls));
	if (!ls)
		return NULL;
	*ls = (struct live_search){ .m = m, .profile = profile, .live = live, .in = in, .budget_pct = o->budget_pct,
				    .search_ns = o->search_ns, .start_ns = start_ns, .last_step_ns = start_ns,
				    .sample_hz = o->sample_hz, .nr_cpus = o->nr_cpus };
	ls->switched[PC_NEED_SYSCALLS] = (struct switched){ .source = "syscalls", .pct = -1 };
	ls->switched[PC_NEED_SAMPLES] = (struct switched){ .source = "samples", .always = !o->samples_switched,
							    .pct = -1 };
	if (pc_live_new(&o->tunables, &(struct pc_instrumenter){ need_on, need_off, ls }, &ls->s)) {
		free(ls);
		return NULL;
	}
	/* what one record of each costs here: measured now (~30 ms) */
	calibrate_record_costs(ls->cal_ns, source_bit(MTX_SRC_SYSCALLS), o->sample_hz, 0);
	for (int i = 0; i < CAL_NR_RECORDS; i++)
		if (!ls->cal_ns[i] && !(ls->cal_ns[i] = cal_store_load(calibrate_records[i].meta_key)))
			ls->cal_ns[i] = stated_ns[i];
	model_on_thread_end(m, keep_ended, ls);
	model_keep_cpu_times(m);
	model_keep_io_times(m);
	profile_on_sample(profile, on_sample, ls);
	return ls;
}

void live_search_tick(struct live_search *ls, uint64_t now)
{
	struct pc_data *d;
	if (!ls || ls->over || now < ls->last_step_ns + LIVE_SEARCH_EVERY_NS)
		return;
	ls->last_step_ns = now;
	watch_cost(ls, now);
	if (!(d = run_so_far(ls, now)) || pc_live_step(ls->s, d, now)) {
		log_warn("consultant: out of memory: the search stops here");
		ls->failed = true;
		live_search_end(ls, now);
		return;
	}
	if (ls->search_ns && now - ls->start_ns >= ls->search_ns)
		live_search_end(ls, now);
}

void live_search_end(struct live_search *ls, uint64_t now)
{
	int launched, active, refused;
	if (!ls || ls->over)
		return;
	ls->over = true;
	watch_cost(ls, now);
	/* what the run did since the last step counts too */
	struct pc_data *d = ls->failed ? NULL : run_so_far(ls, now);
	if (d && pc_live_step(ls->s, d, now))
		ls->failed = true;
	if (pc_live_finish(ls->s)) {
		ls->failed = true;
		return;
	}
	pc_live_counts(ls->s, &launched, &active, &refused);
	char budget[48] = "";
	const struct switched *sc = &ls->switched[PC_NEED_SYSCALLS], *sa = &ls->switched[PC_NEED_SAMPLES];
	if (ls->budget_pct > 0)
		snprintf(budget, sizeof(budget), " (budget %g%%)", ls->budget_pct);
	log_info("consultant: %d experiment%s (%d still observing at the end, %d refused); syscalls on %d time%s, "
		 "samples %d; observed cost %.2f%% of a CPU%s",
		 launched, launched == 1 ? "" : "s", active, refused, sc->switched_on, sc->switched_on == 1 ? "" : "s",
		 sa->switched_on, now > ls->start_ns ? 100.0 * (double)ls->cost_ns / (double)(now - ls->start_ns) : 0.0,
		 budget);
	for (size_t r = 0; r < pc_nr_findings(ls->s); r++) {
		const struct pc_node *n = pc_node(ls->s, (size_t)pc_finding(ls->s, r));
		char *focus = pc_focus_name(ls->s, &n->focus);
		log_info("TRUE %s %s (%.2f; %.1f%% of the threads' time)", pc_hypothesis_name(n->hypothesis),
			 focus ? focus : "?", n->value, 100 * n->share);
		free(focus);
	}
	if (!pc_nr_findings(ls->s))
		log_info("consultant: no hypothesis held at any focus");
}

void live_search_reply(void *ctx, FILE *out)
{
	struct live_search *ls = ctx;
	const size_t nr = pc_nr_nodes(ls->s);
	int *order = calloc(nr + 1, sizeof(*order)), *depths = calloc(nr + 1, sizeof(*depths));
	size_t n = 0;
	if (!order || !depths || pc_graph_order(ls->s, order, depths, &n))
		n = 0;
	fputs(", \"search\": [", out);
	for (size_t i = 0; i < n; i++) {
		const struct pc_node *node = pc_node(ls->s, (size_t)order[i]);
		char *focus = pc_focus_name(ls->s, &node->focus);
		const bool observing = pc_live_observing(ls->s, (size_t)order[i]);
		fprintf(out, "%s{\"id\": %d, \"depth\": %d, \"hypothesis\": ", i ? ", " : "", node->id, depths[i]);
		report_json_string(out, pc_hypothesis_name(node->hypothesis));
		fputs(", \"focus\": ", out);
		report_json_string(out, focus ? focus : "?");
		fputs(", \"status\": ", out);
		report_json_string(out, observing ? "observing" : pc_status_name(node->status));
		if (node->id && node->status != PC_UNTESTED)
			fprintf(out, ", \"value\": %.6g", node->value);
		if (node->id)
			fprintf(out, ", \"threshold\": %g", node->threshold);
		fputc('}', out);
		free(focus);
	}
	fputc(']', out);
	free(order);
	free(depths);
}

struct pc_search *live_search_take(struct live_search *ls)
{
	struct pc_search *s = ls && !ls->failed ? ls->s : NULL;
	if (s)
		ls->s = NULL;
	return s;
}

void live_search_free(struct live_search *ls)
{
	if (!ls)
		return;
	model_on_thread_end(ls->m, NULL, NULL);
	profile_on_sample(ls->profile, NULL, NULL);
	pc_search_free(ls->s);
	free(ls->samples);
	keyhash_free(&ls->sample_keys);
	free(ls->functions);
	for (size_t i = 0; i < ls->nr_names; i++) {
		free(ls->names[i].name);
		free(ls->names[i].module);
	}
	free(ls->names);
	free(ls->ended);
	free(ls->threads);
	free(ls->pairs);
	free(ls->io);
	free(ls->stack_functions);
	keyhash_free(&ls->stack_function_keys);
	free(ls);
}
