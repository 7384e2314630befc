/*
 * collector/calls.h - exact function calls: MTX_EV_CALL entries and returns
 * (uprobes on --functions, or the -pg / -finstrument-functions hooks of the
 * preload library) paired per thread into `calls` rows.
 *
 * Each thread has a stack of open calls. An entry pushes a frame (its row
 * id is taken then, so its callees can name it as their parent); a return
 * pops to the newest frame of the same function, closing it, and closes
 * every frame above it as well, as unfinished ("caller_returned": their
 * own return was never seen, e.g. a longjmp across them). A return that
 * matches no open frame (its entry came before the trace began) is counted
 * and dropped. Calls still open when their thread exits or execs, when
 * their probe set is removed (mtx ctl probe del: an MTX_CALL_CUT event),
 * or when the run ends, are closed then and marked (calls.unfinished in
 * mtx-db(5)); a call closed below others leaves them their parent.
 * A process forked inside calls continues them: its thread gets the
 * forking thread's open calls as its own, begun at the fork.
 *
 * Return probes only go so deep: the kernel keeps at most
 * CALLS_URETPROBE_DEPTH of them pending per thread (MAX_URETPROBE_DEPTH in
 * include/linux/uprobes.h; prepare_uretprobe() in kernel/events/uprobes.c
 * arms none past it, still reporting the entry, and logs "omit uretprobe
 * due to nestedness limit"). So an entry from uprobes while that many
 * calls of its thread wait for their return probe begins a call whose
 * return will never be seen. Such a call is closed, marked
 * "return_probe_depth" and counted (calls_lost_returns), at the first
 * moment known to be after its end: the entry of a call whose stack
 * pointer is at or above its own (it has left its frame), or the return
 * of a call below it; a return never pairs with it.
 *
 * A call already running when its probe went in (collector/catch-up.h)
 * is pushed at that instant, retroactive, base of the stack first, and is
 * closed by the hit of the one-shot probe on its return address whose
 * stack pointer shows it left that very frame (return probes never pair
 * with it, nor it with them).
 *
 * Ids follow entry order. A row is complete when its call is closed, so a
 * child's precedes its parent's; rows are written in id order within a
 * window of recent ids, and at calls_flush and calls_finish.
 */
#ifndef MTX_COLLECTOR_CALLS_H
#define MTX_COLLECTOR_CALLS_H

#include "collector/event.h"
#include "collector/writer.h"

#include <stdint.h>

struct mtx_calls;

/* Return probes the kernel keeps pending per thread (see above; measured
 * on these machines' 6.18 kernel: the 65th nested call returns unseen). */
#define CALLS_URETPROBE_DEPTH 64

/*
 * calls_function_fn - the functions.id of the function at address @pc in
 * process @pid at time @ts_ns (collector/profile.c: profile_function_at),
 * or -1 when it cannot be named (out of memory).
 */
typedef int64_t (*calls_function_fn)(void *ctx, int32_t pid, uint64_t ts_ns, uint64_t pc);

/* calls_new - a call builder writing into @w, naming functions with
 * @name_fn(@name_ctx, ...). NULL when out of memory. */
struct mtx_calls *calls_new(struct mtx_writer *w, calls_function_fn name_fn, void *name_ctx);

/*
 * calls_event - feed one event of the time-ordered stream. Consumes CALL
 * (returns 1); closes the open calls of a thread on its EXIT and on an
 * exec (COMM with exec), leaving the event to the others (returns 0), as
 * every other event.
 */
int calls_event(struct mtx_calls *c, const struct mtx_event *ev);

/*
 * calls_finish - the run ended at @end_ns: close every call still open,
 * and write meta calls, calls_unfinished and calls_unmatched_returns.
 * Returns 0 or the writer's -errno.
 */
int calls_finish(struct mtx_calls *c, uint64_t end_ns);

/* calls_flush - write every row closed so far (before a commit). */
void calls_flush(struct mtx_calls *c);

/* calls_lost_returns - calls closed as "return_probe_depth": entered past
 * the kernel's depth of return probes, so their return was never seen. */
uint64_t calls_lost_returns(const struct mtx_calls *c);

/* calls_free - release everything (rows written stay; open calls are lost
 * unless calls_finish ran). NULL is fine. */
void calls_free(struct mtx_calls *c);

#endif
