/* collector/detail.c - see detail.h. */
#include "config.h"
#include "collector/detail.h"
#include "src/grow.h"
#include "src/keyhash.h"

#include <stdlib.h>
#include <string.h>

/* What the summarized rows of one kind add up to, per key. */
struct state_total {
	int32_t tid;
	uint64_t life_ns;
	const char *state; /* static */
	int32_t cpu;       /* thread_states.cpu's, -1 none */
	uint64_t intervals, ns;
};

struct switch_total {
	int32_t prev_tid, next_tid;
	const char *prev_state; /* static */
	uint64_t count;
};

struct mtx_detail {
	struct mtx_writer *w;
	uint64_t budget, rows;
	uint64_t now_ns, until_ns; /* until_ns: the cutoff, 0 while rows are kept */
	/* The sync ops' own: their records come later than the kernel's,
	 * by as much as the drain lags (a second under a lock-bound loop). */
	uint64_t sync_now_ns, sync_until_ns;
	struct keyhash state_keys, switch_keys, syscall_keys;
	struct state_total *states;
	struct switch_total *switches;
	struct writer_summarized_syscall_row *syscalls;
	size_t nr_states, nr_switches, nr_syscalls, cap_states, cap_switches, cap_syscalls;
	uint64_t summarized[3]; /* rows added up: states, switches, syscalls */
	bool finished;          /* detail_finish wrote meta */
	uint64_t no_memory;
};

struct mtx_detail *detail_new(struct mtx_writer *w)
{
	struct mtx_detail *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->w = w;
	return d;
}

void detail_budget(struct mtx_detail *d, uint64_t rows)
{
	d->budget = rows;
}

void detail_now(struct mtx_detail *d, uint64_t ts_ns)
{
	if (ts_ns > d->now_ns)
		d->now_ns = ts_ns;
}

/* Whether a summarizable row that begins at @start_ns is written: it
 * begins before the cutoff, which falls where the budget runs out. */
static bool in_detail(struct mtx_detail *d, uint64_t start_ns)
{
	/* past detail_finish, meta says where it fell: no more crossing */
	if (!d->until_ns && d->budget && !d->finished && ++d->rows > d->budget) {
		d->until_ns = d->now_ns + 1; /* rows written so far began before */
		d->sync_until_ns = d->sync_now_ns ? d->sync_now_ns + 1 : 0; /* 0: at the next */
	}
	return !d->until_ns || start_ns < d->until_ns;
}

bool detail_sync_op(struct mtx_detail *d, uint64_t start_ns)
{
	if (start_ns > d->sync_now_ns)
		d->sync_now_ns = start_ns;
	in_detail(d, start_ns); /* counts it */
	if (d->until_ns && !d->sync_until_ns)
		d->sync_until_ns = start_ns + 1; /* the first since the budget ran out */
	return !d->sync_until_ns || start_ns < d->sync_until_ns;
}

/* The index of key (@a, @b, @c) in the totals of @h, added (zeroed, at
 * *@nr of @v, @size bytes each) when new; -1 when memory ran out. */
static long total_of(struct mtx_detail *d, struct keyhash *h, void **v, size_t *nr, size_t *cap, size_t size,
		     int64_t a, int64_t b, int64_t c)
{
	struct keyhash_slot *slot = keyhash_slot(h, a, b, c);
	void *more;
	if (slot && slot->v)
		return (long)slot->v - 1;
	more = slot ? grow_array(*v, cap, *nr, size, 64) : NULL;
	if (!more) {
		d->no_memory++;
		return -1;
	}
	*v = more;
	memset((char *)more + *nr * size, 0, size);
	slot->v = ++*nr;
	h->len++;
	return (long)*nr - 1;
}

int detail_state(struct mtx_detail *d, uint64_t life_ns, int32_t tid, uint64_t start_ns, uint64_t end_ns,
		 const char *state, int32_t cpu, const char *syscall, bool on_cpu)
{
	struct state_total *t;
	long i;
	if (!on_cpu || in_detail(d, start_ns))
		return writer_thread_state(d->w, tid, start_ns, end_ns, state, cpu, syscall);
	/* a state's name is one of a static table's: its address (below 2^48
	 * in user space) is its key, with the CPU above it (for /Machine) */
	i = total_of(d, &d->state_keys, (void **)&d->states, &d->nr_states, &d->cap_states, sizeof(*d->states), tid,
		     (int64_t)life_ns, (int64_t)(uintptr_t)state | (int64_t)(cpu + 1) << 48);
	if (i < 0)
		return writer_thread_state(d->w, tid, start_ns, end_ns, state, cpu, syscall);
	t = &d->states[i];
	t->tid = tid;
	t->life_ns = life_ns;
	t->state = state;
	t->cpu = cpu;
	t->intervals++;
	t->ns += end_ns - start_ns;
	d->summarized[0]++;
	return 0;
}

int detail_switch(struct mtx_detail *d, uint64_t ts_ns, int32_t cpu, int32_t prev_tid, const char *prev_state,
		  int preempt, int32_t next_tid, uint32_t stack_id)
{
	struct switch_total *t;
	long i;
	if (!preempt || in_detail(d, ts_ns))
		return writer_switch(d->w, ts_ns, cpu, prev_tid, prev_state, preempt, next_tid, stack_id);
	i = total_of(d, &d->switch_keys, (void **)&d->switches, &d->nr_switches, &d->cap_switches,
		     sizeof(*d->switches), prev_tid, next_tid, (int64_t)(uintptr_t)prev_state);
	if (i < 0)
		return writer_switch(d->w, ts_ns, cpu, prev_tid, prev_state, preempt, next_tid, stack_id);
	t = &d->switches[i];
	t->prev_tid = prev_tid;
	t->next_tid = next_tid;
	t->prev_state = prev_state;
	t->count++;
	d->summarized[1]++;
	return 0;
}

int detail_syscall(struct mtx_detail *d, const struct mtx_syscall_row *row, const char *fd_kind, const char *path)
{
	struct writer_summarized_syscall_row *t;
	long i;
	if (row->blocked || in_detail(d, row->start_ns))
		return writer_syscall_row(d->w, row, fd_kind, path);
	i = total_of(d, &d->syscall_keys, (void **)&d->syscalls, &d->nr_syscalls, &d->cap_syscalls,
		     sizeof(*d->syscalls), row->tid, (int64_t)row->life_ns, row->nr);
	if (i < 0)
		return writer_syscall_row(d->w, row, fd_kind, path);
	t = &d->syscalls[i];
	t->tid = row->tid;
	t->life_ns = row->life_ns;
	t->nr = row->nr;
	t->name = row->name;
	t->calls++;
	t->errors += row->has_ret && row->ret < 0;
	if (row->end_ns >= 0) {
		uint64_t ns = (uint64_t)row->end_ns - row->start_ns;
		t->with_end++;
		t->ns += ns;
		if (ns > t->max_ns)
			t->max_ns = ns;
	}
	d->summarized[2]++;
	return 0;
}

int detail_finish(struct mtx_detail *d)
{
	for (size_t i = 0; i < d->nr_states; i++) {
		const struct state_total *t = &d->states[i];
		writer_summarized_state(d->w, t->tid, t->life_ns, t->state, t->cpu, t->intervals, t->ns);
	}
	for (size_t i = 0; i < d->nr_switches; i++) {
		const struct switch_total *t = &d->switches[i];
		writer_summarized_switch(d->w, t->prev_tid, t->next_tid, t->prev_state, t->count);
	}
	for (size_t i = 0; i < d->nr_syscalls; i++)
		writer_summarized_syscall(d->w, &d->syscalls[i]);
	writer_meta_int(d->w, "detail_rows", (int64_t)d->budget);
	if (d->until_ns) {
		writer_meta_int(d->w, "detail_until_ns", (int64_t)d->until_ns);
		if (d->sync_until_ns)
			writer_meta_int(d->w, "sync_detail_until_ns", (int64_t)d->sync_until_ns);
		writer_meta_int(d->w, "summarized_states", (int64_t)d->summarized[0]);
		writer_meta_int(d->w, "summarized_switches", (int64_t)d->summarized[1]);
		writer_meta_int(d->w, "summarized_syscalls", (int64_t)d->summarized[2]);
	}
	if (d->no_memory)
		writer_meta_int(d->w, "summarized_no_memory", (int64_t)d->no_memory);
	d->finished = true;
	return writer_commit(d->w);
}

void detail_free(struct mtx_detail *d)
{
	if (!d)
		return;
	keyhash_free(&d->state_keys);
	keyhash_free(&d->switch_keys);
	keyhash_free(&d->syscall_keys);
	free(d->states);
	free(d->switches);
	free(d->syscalls);
	free(d);
}
