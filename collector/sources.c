/* collector/sources.c - the table of kernel event sources (see source.h). */
#include "config.h"
#include "collector/source.h"

#include <string.h>

const struct mtx_source *const mtx_sources[] = {
	&source_sched,
	&source_wakeups,
	&source_syscalls,
	&source_interrupts,
};
const int mtx_nr_sources = sizeof(mtx_sources) / sizeof(mtx_sources[0]);

const struct mtx_source *source_by_name(const char *name)
{
	for (int i = 0; i < mtx_nr_sources; i++)
		if (strcmp(mtx_sources[i]->name, name) == 0)
			return mtx_sources[i];
	return NULL;
}

unsigned source_bit(enum mtx_source_id id)
{
	for (int i = 0; i < mtx_nr_sources; i++)
		if (mtx_sources[i]->id == id)
			return 1u << i;
	return 0;
}
