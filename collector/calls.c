/*
 * collector/calls.c - see calls.h.
 */
#include "config.h"
#include "collector/calls.h"
#include "src/grow.h"
#include "src/keyhash.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Why a call was closed without its own return (calls.unfinished). */
#define CLOSED_BY_CALLER "caller_returned"
#define CLOSED_BY_EXIT "thread_exit"
#define CLOSED_BY_EXEC "exec"
#define CLOSED_BY_RUN_END "run_end"
#define CLOSED_BY_REMOVAL "probe_removed" /* mtx ctl probe del */
#define CLOSED_PAST_DEPTH "return_probe_depth"

struct call_frame {
	uint64_t fn;        /* as in the event: matches entry and return */
	uint64_t start_ns;
	uint64_t sp;        /* at the entry, 0 if unknown */
	int64_t id;         /* calls.id */
	int64_t function_id;
	uint8_t uretprobe;  /* the kernel armed a return probe for it */
	uint8_t past_depth; /* it could not: its return will not be seen */
	uint8_t retroactive; /* found on the stack (catch-up): no return probe */
	uint16_t set;       /* its probe set's (mtx ctl probe add), else 0 */
	int64_t parent_id;  /* the caller's calls.id, -1 at depth 0: as entered */
	int32_t depth;      /* (a frame closed below it does not change them) */
};

struct call_stack {
	struct call_frame *frames;
	size_t depth, cap;
	size_t uretprobes;  /* frames with a return probe armed */
	int32_t tid;
};

/*
 * Rows wait in a window of CALLS_WINDOW ids before they are written, so
 * that they reach SQLite in id order, appended to the table's b-tree,
 * many to an INSERT (a child closes before its parent, whose
 * id is lower). A call still open when the window moves past its id is
 * written alone when it closes. The window is written out at every commit
 * (calls_flush) and at the end.
 */
#define CALLS_WINDOW 65536u /* rows; 3.5 MiB */

struct mtx_calls {
	struct mtx_writer *w;
	struct writer_call_row *window; /* slot id % CALLS_WINDOW; id 0: empty */
	int64_t window_base;            /* lowest id the window still holds */
	struct writer_call_row *out;    /* rows to write, in order */
	size_t nr_out;
	calls_function_fn name_fn;
	void *name_ctx;
	struct keyhash by_tid;     /* tid -> index into stacks */
	struct call_stack *stacks;
	size_t nr_stacks, cap_stacks;
	int64_t next_id;
	uint64_t written, unfinished, unmatched, no_memory, past_depth;
};

struct mtx_calls *calls_new(struct mtx_writer *w, calls_function_fn name_fn, void *name_ctx)
{
	struct mtx_calls *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->w = w;
	c->name_fn = name_fn;
	c->name_ctx = name_ctx;
	c->next_id = 1;
	c->window_base = 1;
	c->window = calloc(CALLS_WINDOW, sizeof(*c->window));
	c->out = malloc(CALLS_WINDOW * sizeof(*c->out));
	if (!c->window || !c->out) {
		calls_free(c);
		return NULL;
	}
	return c;
}

static void write_out(struct mtx_calls *c)
{
	writer_calls(c->w, c->out, c->nr_out);
	c->nr_out = 0;
}

/* Write the window's rows of ids below @upto_id, in id order. */
static void window_write(struct mtx_calls *c, int64_t upto_id)
{
	for (; c->window_base < upto_id; c->window_base++) {
		struct writer_call_row *r = &c->window[c->window_base % CALLS_WINDOW];

		if (r->id == 0)
			continue; /* still open, or never written (no memory) */
		if (c->nr_out == CALLS_WINDOW)
			write_out(c);
		c->out[c->nr_out++] = *r;
		r->id = 0;
	}
	write_out(c);
}

/* Hold @r in the window, or write it alone when the window passed its id. */
static void put_row(struct mtx_calls *c, const struct writer_call_row *r)
{
	if (r->id < c->window_base)
		writer_calls(c->w, r, 1);
	else
		c->window[r->id % CALLS_WINDOW] = *r;
}

/* The next calls.id. The window moves on by halves, so rows go out in
 * long runs. */
static int64_t take_id(struct mtx_calls *c)
{
	if (c->next_id >= c->window_base + CALLS_WINDOW)
		window_write(c, c->window_base + CALLS_WINDOW / 2);
	return c->next_id++;
}

/* The stack of @tid, created empty; NULL when out of memory. */
static struct call_stack *stack_of(struct mtx_calls *c, int32_t tid, int create)
{
	struct keyhash_slot *slot = keyhash_slot(&c->by_tid, tid, 0, 0);
	struct call_stack *stacks;
	if (!slot)
		return NULL;
	if (slot->v)
		return &c->stacks[slot->v - 1];
	if (!create)
		return NULL;
	stacks = grow_array(c->stacks, &c->cap_stacks, c->nr_stacks, sizeof(*stacks), 64);
	if (!stacks)
		return NULL;
	c->stacks = stacks;
	memset(&c->stacks[c->nr_stacks], 0, sizeof(c->stacks[0]));
	c->stacks[c->nr_stacks].tid = tid;
	slot->v = ++c->nr_stacks;
	c->by_tid.len++;
	return &c->stacks[c->nr_stacks - 1];
}

/* Close the newest frame of @s at @end_ns (@why NULL: it returned). A
 * frame past the depth of return probes says so, whatever closed it. */
/* Close frame @i of @s (the frames above it stay, with their parent). */
static void close_at(struct mtx_calls *c, struct call_stack *s, size_t i, uint64_t end_ns, const char *why)
{
	const struct call_frame f = s->frames[i];
	if (f.past_depth) {
		why = CLOSED_PAST_DEPTH;
		c->past_depth++;
	}
	s->uretprobes -= f.uretprobe;
	put_row(c, &(struct writer_call_row){
		.id = f.id, .tid = s->tid, .function_id = f.function_id, .parent_id = f.parent_id, .depth = f.depth,
		.start_ns = f.start_ns, .end_ns = end_ns, .unfinished = why, .retroactive = f.retroactive,
	});
	c->written++;
	if (why)
		c->unfinished++;
	memmove(&s->frames[i], &s->frames[i + 1], (--s->depth - i) * sizeof(*s->frames));
}

static void close_top(struct mtx_calls *c, struct call_stack *s, uint64_t end_ns, const char *why)
{
	close_at(c, s, s->depth - 1, end_ns, why);
}

/* Probe set @set was removed at @ns: its calls still open end there. */
static void cut_set(struct mtx_calls *c, uint16_t set, uint64_t ns)
{
	for (size_t k = 0; k < c->nr_stacks; k++)
		for (size_t i = c->stacks[k].depth; i-- > 0;)
			if (c->stacks[k].frames[i].set == set)
				close_at(c, &c->stacks[k], i, ns, CLOSED_BY_REMOVAL);
}

static void close_all(struct mtx_calls *c, struct call_stack *s, uint64_t end_ns, const char *why)
{
	while (s->depth)
		close_top(c, s, end_ns, why);
}

/*
 * Close the calls past the depth of return probes that the entry of a call
 * at stack pointer @sp shows have ended: the stack grows down, so a frame
 * entered at or below @sp has been left (returned, or jumped out of).
 */
static void close_left_frames(struct mtx_calls *c, struct call_stack *s, uint64_t sp, uint64_t ts_ns)
{
	while (sp && s->depth && s->frames[s->depth - 1].past_depth && s->frames[s->depth - 1].sp &&
	       s->frames[s->depth - 1].sp <= sp)
		close_top(c, s, ts_ns, CLOSED_PAST_DEPTH);
}

static void on_entry(struct mtx_calls *c, const struct mtx_event *ev)
{
	struct call_stack *s = stack_of(c, ev->tid, 1);
	struct call_frame *frames;
	int64_t function_id;
	int armed;
	if (!s) {
		c->no_memory++;
		return;
	}
	close_left_frames(c, s, ev->u.call.sp, ev->ts_ns);
	frames = grow_array(s->frames, &s->cap, s->depth, sizeof(*frames), 32);
	function_id = c->name_fn(c->name_ctx, ev->pid, ev->ts_ns, ev->u.call.fn);
	if (!frames || function_id < 0) {
		c->no_memory++;
		return;
	}
	s->frames = frames;
	armed = ev->u.call.uretprobe && !ev->u.call.catch_up && s->uretprobes < CALLS_URETPROBE_DEPTH;
	s->uretprobes += (size_t)armed;
	s->frames[s->depth] = (struct call_frame){
		.fn = ev->u.call.fn, .start_ns = ev->ts_ns, .sp = ev->u.call.sp, .id = take_id(c),
		.function_id = function_id, .uretprobe = (uint8_t)armed,
		.past_depth = (uint8_t)(ev->u.call.uretprobe && !ev->u.call.catch_up && !armed),
		.retroactive = ev->u.call.catch_up, .set = ev->u.call.set,
		.parent_id = s->depth ? s->frames[s->depth - 1].id : -1, .depth = (int32_t)s->depth,
	};
	s->depth++;
}

/* Whether frame @f is the call that return event @ev ends: the newest of
 * its function for a return probe's, and for a catch-up probe's, the
 * retroactive call whose stack pointer at entry (below its return
 * address) is the one the return left: other calls returning to that
 * address, deeper ones of a recursion or later ones, pass it too. */
static bool ends(const struct call_frame *f, const struct mtx_event *ev)
{
	if (f->fn != ev->u.call.fn || f->past_depth)
		return false;
	if (!ev->u.call.catch_up) /* a return probe: the kernel armed none for it */
		return !f->retroactive;
	return f->retroactive && f->sp + 8 == ev->u.call.sp;
}

static void on_return(struct mtx_calls *c, const struct mtx_event *ev)
{
	struct call_stack *s = stack_of(c, ev->tid, 0);
	size_t match = s ? s->depth : 0;
	/* past_depth frames above it are closed as such by close_top */
	while (match > 0 && !ends(&s->frames[match - 1], ev))
		match--;
	if (match == 0) {
		if (!ev->u.call.catch_up)
			c->unmatched++;
		return;
	}
	while (s->depth > match)
		close_top(c, s, ev->ts_ns, CLOSED_BY_CALLER);
	close_top(c, s, ev->ts_ns, NULL);
}

/*
 * A process forked by a thread inside calls: its child runs on in those
 * calls (the hooks' shadow stack and the kernel's return probes are copied
 * with the process) and returns from them. The child's thread gets the
 * same frames as calls of its own, begun at the fork.
 */
static void on_fork(struct mtx_calls *c, const struct mtx_event *ev)
{
	struct call_stack *parent = stack_of(c, ev->u.fork.ptid, 0), *child;
	struct call_frame *frames;
	size_t depth;

	if (ev->pid == ev->u.fork.ppid || !parent || !parent->depth)
		return; /* a thread, not a process: it starts with no call */
	depth = parent->depth;
	child = stack_of(c, ev->tid, 1);
	parent = stack_of(c, ev->u.fork.ptid, 0); /* stack_of may have moved it */
	frames = child ? malloc(depth * sizeof(*frames)) : NULL;
	if (!frames) {
		c->no_memory++;
		return;
	}
	free(child->frames);
	child->frames = frames;
	child->cap = child->depth = depth;
	child->uretprobes = parent->uretprobes; /* the kernel copies them (dup_utask) */
	for (size_t i = 0; i < depth; i++) {
		frames[i] = parent->frames[i];
		frames[i].start_ns = ev->ts_ns;
		frames[i].id = take_id(c);
		frames[i].parent_id = i ? frames[i - 1].id : -1;
	}
}

int calls_event(struct mtx_calls *c, const struct mtx_event *ev)
{
	struct call_stack *s;
	switch (ev->type) {
	case MTX_EV_FORK:
		on_fork(c, ev);
		return 0;
	case MTX_EV_CALL:
		if (ev->u.call.at_return == MTX_CALL_CUT)
			cut_set(c, ev->u.call.set, ev->ts_ns);
		else if (ev->u.call.at_return)
			on_return(c, ev);
		else
			on_entry(c, ev);
		return 1;
	case MTX_EV_EXIT:
		if ((s = stack_of(c, ev->tid, 0)))
			close_all(c, s, ev->ts_ns, CLOSED_BY_EXIT);
		return 0;
	case MTX_EV_COMM:
		/* exec replaces the image: nothing open can return into it. */
		if (ev->u.comm.exec && (s = stack_of(c, ev->tid, 0)))
			close_all(c, s, ev->ts_ns, CLOSED_BY_EXEC);
		return 0;
	default:
		return 0;
	}
}

int calls_finish(struct mtx_calls *c, uint64_t end_ns)
{
	for (size_t i = 0; i < c->nr_stacks; i++)
		close_all(c, &c->stacks[i], end_ns, CLOSED_BY_RUN_END);
	window_write(c, c->next_id);
	writer_meta_int(c->w, "calls", (int64_t)c->written);
	writer_meta_int(c->w, "calls_unfinished", (int64_t)c->unfinished);
	writer_meta_int(c->w, "calls_unmatched_returns", (int64_t)c->unmatched);
	writer_meta_int(c->w, "calls_" CLOSED_PAST_DEPTH, (int64_t)c->past_depth);
	if (c->no_memory)
		writer_meta_int(c->w, "calls_dropped_no_memory", (int64_t)c->no_memory);
	return writer_commit(c->w);
}

void calls_flush(struct mtx_calls *c)
{
	window_write(c, c->next_id);
}

uint64_t calls_lost_returns(const struct mtx_calls *c)
{
	return c->past_depth;
}

void calls_free(struct mtx_calls *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nr_stacks; i++)
		free(c->stacks[i].frames);
	free(c->stacks);
	free(c->window);
	free(c->out);
	keyhash_free(&c->by_tid);
	free(c);
}
