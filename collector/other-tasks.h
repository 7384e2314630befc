/*
 * collector/other-tasks.h - the tasks outside the traced processes that
 * woke a traced thread (seed 004's external events: another process
 * writing to a pipe, a kernel thread): one other_tasks row per tid, its
 * process and name read from /proc when the collector first sees it wake
 * one (milliseconds later: a task gone by then has no name).
 */
#ifndef MTX_COLLECTOR_OTHER_TASKS_H
#define MTX_COLLECTOR_OTHER_TASKS_H

#include "collector/writer.h"

#include <stdint.h>

struct mtx_other_tasks;

/* other_tasks_new - an empty set writing into @w; NULL when out of memory. */
struct mtx_other_tasks *other_tasks_new(struct mtx_writer *w);

/* other_tasks_note - task @tid of process @pid, not traced, woke a traced
 * thread: write its row the first time. */
void other_tasks_note(struct mtx_other_tasks *o, int32_t tid, int32_t pid);

void other_tasks_free(struct mtx_other_tasks *o);

#endif
