/*
 * collector/other-tasks.c - see other-tasks.h. A run meets few such
 * tasks (writers, kernel threads): a linear set is enough, up to
 * MAX_TASKS; past it the rest have no row (the view shows them unnamed).
 */
#include "config.h"
#include "collector/other-tasks.h"
#include "src/small-file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TASKS 4096

struct mtx_other_tasks {
	struct mtx_writer *w;
	int32_t tids[MAX_TASKS];
	int nr;
};

struct mtx_other_tasks *other_tasks_new(struct mtx_writer *w)
{
	struct mtx_other_tasks *o = calloc(1, sizeof(*o));
	if (o)
		o->w = w;
	return o;
}

void other_tasks_note(struct mtx_other_tasks *o, int32_t tid, int32_t pid)
{
	char path[64], comm[64];
	for (int i = 0; i < o->nr; i++)
		if (o->tids[i] == tid)
			return;
	if (o->nr == MAX_TASKS)
		return;
	o->tids[o->nr++] = tid;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	if (small_file_read(path, comm, sizeof(comm)) <= 0)
		comm[0] = 0;
	comm[strcspn(comm, "\n")] = 0;
	writer_other_task(o->w, tid, pid, comm[0] ? comm : NULL);
}

void other_tasks_free(struct mtx_other_tasks *o)
{
	free(o);
}
