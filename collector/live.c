/*
 * collector/live.c - see live.h.
 */
#include "config.h"
#include "collector/live.h"
#include "collector/profile.h"
#include "collector/sync/collect-sync.h"
#include "src/grow.h"
#include "src/keyhash.h"
#include "src/log.h"
#include "src/report-format.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>

struct live_object {
	int32_t pid;
	uint16_t kind; /* enum mtx_sync_kind; a slot never seen: ops 0 */
	uint64_t addr, ops, op_ns, wait_ns;
};

struct live_waiter {
	int64_t tid;
	uint64_t ops, wait_ns;
};

/* A thread's lock waits on one object from one function (the
 * consultant's atoms). */
struct live_pair {
	int64_t tid, object_id, function_id;
	uint64_t wait_ns;
};

struct mtx_live {
	const struct mtx_model *model;
	struct collect_sync *cs;     /* the ops in progress */
	uint64_t start_ns;
	struct live_object *objects; /* by object id - 1 */
	size_t nr_objects, objects_cap;
	struct live_waiter *waiters; /* by tid: waiter_keys */
	size_t nr_waiters, waiters_cap;
	struct keyhash waiter_keys;
	struct live_pair *pairs; /* by (tid, object): pair_keys */
	size_t nr_pairs, pairs_cap;
	struct keyhash pair_keys;
	live_more_fn more;       /* live_more */
	void *more_ctx;
	bool out_of_memory_said;
};

struct mtx_live *live_new(const struct mtx_model *m, struct collect_sync *cs, uint64_t start_ns)
{
	struct mtx_live *l = calloc(1, sizeof(*l));
	if (l) {
		l->model = m;
		l->cs = cs;
		l->start_ns = start_ns;
	}
	return l;
}

/* diagnose's sync_wait (src/derived/consultant-data.c): a call that takes
 * a lock, not its release nor its life's ends. */
static bool takes_a_lock(const struct mtx_sync_record *r)
{
	return (r->kind == MTX_SYNC_KIND_MUTEX || r->kind == MTX_SYNC_KIND_RWLOCK ||
		r->kind == MTX_SYNC_KIND_SPINLOCK) &&
	       r->op != MTX_SYNC_OP_UNLOCK && r->op != MTX_SYNC_OP_INIT && r->op != MTX_SYNC_OP_DESTROY;
}

static void said_out_of_memory(struct mtx_live *l)
{
	if (!l->out_of_memory_said)
		log_warn("out of memory: mtx ctl live leaves sync ops out of its totals");
	l->out_of_memory_said = true;
}

/* Add @r's time (@sign -1: take it away) to object @o (NULL: none
 * listed) and, a lock wait, to its thread's, counting it as one more of
 * its lock calls when @returned. */
static void account(struct mtx_live *l, struct live_object *o, const struct mtx_sync_record *r, int sign,
		    bool returned)
{
	uint64_t ns = r->end_ns > r->start_ns ? r->end_ns - r->start_ns : 0;
	const struct live_waiter none = { .tid = r->tid };
	ptrdiff_t i;
	if (sign < 0)
		ns = -ns;
	if (o)
		o->op_ns += ns;
	if (!takes_a_lock(r))
		return;
	if (o)
		o->wait_ns += ns;
	i = keyhash_row(&l->waiter_keys, r->tid, 0, 0, &l->waiters, &l->nr_waiters, &l->waiters_cap, sizeof(none),
			&none);
	if (i < 0) {
		said_out_of_memory(l);
		return;
	}
	l->waiters[i].wait_ns += ns;
	l->waiters[i].ops += returned;
	if (!o)
		return;
	/* the function that called the lock: diagnose's "lock waits by call site" */
	int64_t function = l->cs->profile && r->callsite ? profile_function_at(l->cs->profile, r->pid, r->start_ns,
										 r->callsite) : 0;
	const struct live_pair pair = { r->tid, o - l->objects + 1, function > 0 ? function : 0, 0 };
	i = keyhash_row(&l->pair_keys, pair.tid, pair.object_id, pair.function_id, &l->pairs, &l->nr_pairs,
			&l->pairs_cap, sizeof(pair), &pair);
	if (i < 0)
		said_out_of_memory(l);
	else
		l->pairs[i].wait_ns += ns;
}

void live_sync_op(struct mtx_live *l, int64_t object_id, const struct mtx_sync_record *r)
{
	struct live_object *o;
	if (object_id < 1)
		return;
	while ((size_t)object_id > l->nr_objects) {
		struct live_object *more = grow_array(l->objects, &l->objects_cap, l->nr_objects, sizeof(*more), 256);
		if (!more) {
			said_out_of_memory(l);
			return;
		}
		l->objects = more;
		l->objects[l->nr_objects++] = (struct live_object){ 0 };
	}
	o = &l->objects[object_id - 1];
	if (!o->ops)
		*o = (struct live_object){ .pid = r->pid, .kind = r->kind, .addr = r->addr };
	o->ops++;
	account(l, o, r, 1, true);
}

/* The ops in progress at a reply: each counts as if it had returned at
 * the stream's now, and is taken back after (read once, so that exactly
 * what was added goes). */
struct open_ops {
	uint64_t now_ns;
	struct mtx_sync_record *v;
	size_t n, cap;
};

static void keep_open_op(void *ctx, const struct mtx_event *ev)
{
	struct open_ops *oo = ctx;
	struct mtx_sync_record *more;
	if (ev->u.sync.start_ns >= oo->now_ns)
		return;
	if (!(more = grow_array(oo->v, &oo->cap, oo->n, sizeof(*more), 64)))
		return; /* out of memory: that wait counts once it returns */
	oo->v = more;
	oo->v[oo->n] = ev->u.sync;
	oo->v[oo->n++].end_ns = oo->now_ns;
}

static void account_open_ops(struct mtx_live *l, const struct open_ops *oo, int sign)
{
	for (size_t k = 0; k < oo->n; k++) {
		const struct mtx_sync_record *r = &oo->v[k];
		int64_t id = collect_sync_object(l->cs, r);
		struct live_object *o = id > 0 && (size_t)id <= l->nr_objects && l->objects[id - 1].ops
						? &l->objects[id - 1]
						: NULL;
		account(l, o, r, sign, false);
	}
}

static void print_states(FILE *out, const uint64_t state_ns[NR_THREAD_STATES])
{
	for (int s = 0; s < NR_THREAD_STATES; s++)
		fprintf(out, ", \"%s_ns\": %" PRIu64, thread_state_name((enum thread_state)s), state_ns[s]);
}

struct thread_list {
	struct mtx_live *l;
	FILE *out;
	size_t n;
	uint64_t state_ns[NR_THREAD_STATES]; /* of every thread so far */
};

static void print_thread(void *ctx, const struct model_thread_view *t)
{
	struct thread_list *tl = ctx;
	struct keyhash_slot *sl = keyhash_slot(&tl->l->waiter_keys, t->tid, 0, 0);
	const struct live_waiter *w = sl && sl->v ? &tl->l->waiters[sl->v - 1] : NULL;
	fprintf(tl->out, "%s{\"tid\": %d, \"pid\": %d, \"name\": ", tl->n++ ? ", " : "", (int)t->tid, (int)t->pid);
	report_json_string(tl->out, t->name);
	fputs(", \"state\": ", tl->out);
	report_json_string(tl->out, thread_state_name(t->state));
	fprintf(tl->out, ", \"since_ns\": %" PRIu64, t->since_ns);
	print_states(tl->out, t->state_ns);
	for (int s = 0; s < NR_THREAD_STATES; s++)
		tl->state_ns[s] += t->state_ns[s];
	fprintf(tl->out, ", \"lock_wait_ns\": %" PRIu64 ", \"lock_ops\": %" PRIu64 "}", w ? w->wait_ns : 0,
		w ? w->ops : 0);
}

static int busiest_first(const void *a, const void *b)
{
	const struct live_object *x = *(const struct live_object *const *)a, *y = *(const struct live_object *const *)b;
	return x->op_ns != y->op_ns ? (x->op_ns < y->op_ns ? 1 : -1) : (x < y ? -1 : x > y);
}

/* The LIVE_OBJECTS with the most time in their ops. */
static void print_objects(struct mtx_live *l, FILE *out)
{
	const struct live_object **by = malloc((l->nr_objects + 1) * sizeof(*by));
	size_t n = 0;
	if (!by)
		return;
	for (size_t i = 0; i < l->nr_objects; i++)
		if (l->objects[i].ops)
			by[n++] = &l->objects[i];
	qsort(by, n, sizeof(*by), busiest_first);
	for (size_t i = 0; i < n && i < LIVE_OBJECTS; i++) {
		const char *kind = sync_kind_name(by[i]->kind);
		fprintf(out, "%s{\"id\": %td, \"pid\": %d, \"kind\": ", i ? ", " : "", by[i] - l->objects + 1,
			(int)by[i]->pid);
		report_json_string(out, kind ? kind : "?");
		fprintf(out,
			", \"address\": \"0x%" PRIx64 "\", \"ops\": %" PRIu64 ", \"op_ns\": %" PRIu64
			", \"lock_wait_ns\": %" PRIu64 "}",
			by[i]->addr, by[i]->ops, by[i]->op_ns, by[i]->wait_ns);
	}
	free(by);
}

/* The stream's now at a reply (never before the last event nor the
 * start), with the ops in progress counted to it until open_ops_end. */
static uint64_t open_ops_begin(struct mtx_live *l, uint64_t now, struct open_ops *oo)
{
	if (now < model_last_ns(l->model))
		now = model_last_ns(l->model);
	if (now < l->start_ns)
		now = l->start_ns;
	*oo = (struct open_ops){ .now_ns = now };
	collect_sync_open_ops(l->cs, keep_open_op, oo);
	account_open_ops(l, oo, 1);
	return now;
}

static void open_ops_end(struct mtx_live *l, struct open_ops *oo)
{
	account_open_ops(l, oo, -1);
	free(oo->v);
}

void live_reply(struct mtx_live *l, uint64_t now, FILE *out)
{
	uint64_t ops = 0, wait_ns = 0, wait_ops = 0;
	struct thread_list tl = { .l = l, .out = out };
	uint64_t ended = model_ended(l->model, tl.state_ns);
	struct open_ops oo;
	char text[160];
	/* the waits going on count to now, as the threads' states do */
	now = open_ops_begin(l, now, &oo);
	for (size_t i = 0; i < l->nr_objects; i++)
		ops += l->objects[i].ops;
	for (size_t i = 0; i < l->nr_waiters; i++) {
		wait_ns += l->waiters[i].wait_ns;
		wait_ops += l->waiters[i].ops;
	}
	fprintf(out, "{\"ok\": true, \"start_ns\": %" PRIu64 ", \"now_ns\": %" PRIu64 ", \"threads\": [", l->start_ns,
		now);
	model_each_thread(l->model, now, print_thread, &tl);
	fprintf(out, "], \"all\": {\"threads\": %" PRIu64 ", \"ended\": %" PRIu64, tl.n + ended, ended);
	print_states(out, tl.state_ns);
	fprintf(out, ", \"lock_wait_ns\": %" PRIu64 ", \"lock_ops\": %" PRIu64 "}, \"objects\": [", wait_ns, wait_ops);
	print_objects(l, out);
	snprintf(text, sizeof(text), "%.3f s into the run: %zu thread%s alive, %" PRIu64 " ended; %" PRIu64
		 " sync op%s",
		 (double)(now - l->start_ns) / 1e9, tl.n, tl.n == 1 ? "" : "s", ended, ops, ops == 1 ? "" : "s");
	fputc(']', out);
	if (l->more)
		l->more(l->more_ctx, out);
	fputs(", \"text\": ", out);
	report_json_string(out, text);
	fputs("}\n", out);
	open_ops_end(l, &oo);
}

void live_more(struct mtx_live *l, live_more_fn fn, void *ctx)
{
	l->more = fn;
	l->more_ctx = ctx;
}

uint64_t live_lock_waits(struct mtx_live *l, uint64_t now, live_lock_wait_fn fn, void *ctx)
{
	struct open_ops oo;
	now = open_ops_begin(l, now, &oo);
	for (size_t i = 0; i < l->nr_pairs; i++) {
		const struct live_pair *p = &l->pairs[i];
		const struct live_object *o = &l->objects[p->object_id - 1];
		fn(ctx, p->tid, p->object_id, o->pid, sync_kind_name(o->kind), o->addr, p->function_id, p->wait_ns);
	}
	open_ops_end(l, &oo);
	return now;
}

void live_free(struct mtx_live *l)
{
	if (!l)
		return;
	free(l->objects);
	free(l->waiters);
	free(l->pairs);
	keyhash_free(&l->waiter_keys);
	keyhash_free(&l->pair_keys);
	free(l);
}
