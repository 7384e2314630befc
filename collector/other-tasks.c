/* collector/other-tasks.c - see other-tasks.h. */
#include "config.h"
#include "collector/other-tasks.h"
#include "src/keyhash.h"
#include "src/small-file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mtx_other_tasks {
	struct mtx_writer *w;
	struct keyhash seen; /* the tids written */
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
	struct keyhash_slot *sl = keyhash_slot(&o->seen, tid, 0, 0);
	if (!sl || sl->v)
		return; /* written already (or out of memory: no row) */
	sl->v = 1;
	o->seen.len++;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	if (small_file_read(path, comm, sizeof(comm)) <= 0)
		comm[0] = 0;
	comm[strcspn(comm, "\n")] = 0;
	writer_other_task(o->w, tid, pid, comm[0] ? comm : NULL);
}

void other_tasks_free(struct mtx_other_tasks *o)
{
	if (!o)
		return;
	keyhash_free(&o->seen);
	free(o);
}
