/*
 * ui/views.h - the views of mtx browse and how to open them. Each lives in
 * its own view-*.c behind the interface of view.h.
 */
#ifndef MTX_VIEWS_H
#define MTX_VIEWS_H

#include "ui/view.h"

/* view-report.c: one or more named queries (@queries: NULL-terminated,
 * static) about @params. */
struct view *report_view_new(struct browse *b, const char *title, const char *const *queries,
			     const struct mtx_query_params *params);
/* view-report.c: the main views made of named queries (ui/main-views.h). */
struct view *threads_view_new(struct browse *b);
struct view *objects_view_new(struct browse *b);
struct view *switches_view_new(struct browse *b);
struct view *syscalls_view_new(struct browse *b);
struct view *critical_path_view_new(struct browse *b);
/* view-report.c: one thread's synchronization and waits. */
struct view *thread_view_new(struct browse *b, int64_t tid);

/* view-paged.c: one object's history, paged (Figure 7 left). */
struct view *history_view_new(struct browse *b, int64_t object_id);
/* view-paged.c: @object_id's history, on its op (@start_ns, @op_id). */
struct view *history_view_at(struct browse *b, int64_t object_id, int64_t start_ns, int64_t op_id);
/* view-paged.c: the history of the object of the wait that the named
 * query @query (object.wait_at, object.first_wait: object_id, start_ns and
 * id of an op) finds with @params and :holder = @holder, on that op; NULL
 * when it finds none. */
struct view *history_view_of_wait(struct view *from, const char *query, const struct mtx_query_params *params,
				  int64_t holder);
/* view-paged.c: the history of the object at @addr (its first lifetime). */
struct view *history_view_for_addr(struct browse *b, int64_t addr);
/* view-paged.c: one thread's calls of one syscall. */
struct view *syscall_list_view_new(struct browse *b, int64_t tid, const char *thread_name, const char *syscall);

/* view-waits.c: per-thread breakdown bars. */
struct view *waits_view_new(struct browse *b);
/* view-timeline.c: one lane per thread over time. */
struct view *timeline_view_new(struct browse *b);
/* view-calls.c: per-thread call trees. */
struct view *calls_view_new(struct browse *b);
/* view-probe-effect.c: observed and simulated orders, two lanes per thread. */
struct view *probe_effect_view_new(struct browse *b);
/* view-diagnose.c: the Performance Consultant's findings and search graph,
 * of the whole run or of [@from_ns, @to_ns) (a phase), titled @title. */
struct view *diagnose_view_new(struct browse *b);
struct view *diagnose_phase_view_new(struct browse *b, int64_t from_ns, int64_t to_ns, const char *title);
/* view-phases.c: the run's phases; Enter searches one. */
struct view *phases_view_new(struct browse *b);
/* view-live.c: the run mtx collect --control b->live records, as it goes. */
struct view *live_view_new(struct browse *b);
/* view-help.c: the keys, from the action table. */
struct view *help_view_new(struct browse *b);

#endif
