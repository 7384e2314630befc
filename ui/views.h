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
/* view-help.c: the keys, from the action table. */
struct view *help_view_new(struct browse *b);

#endif
