/* collector/phases.c - see phases.h. */
#include "config.h"
#include "collector/phases.h"
#include "src/grow.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mark {
	uint64_t ns;
	size_t seq; /* marks at one instant keep their order */
	char name[64];
	enum phase_source source;
	int32_t tid;
};

struct mtx_phases {
	struct mark *v;
	size_t n, cap;
};

struct mtx_phases *phases_new(void)
{
	return calloc(1, sizeof(struct mtx_phases));
}

int phases_mark(struct mtx_phases *p, uint64_t ns, const char *name, size_t len, enum phase_source source,
		int32_t tid)
{
	struct mark *v = grow_array(p->v, &p->cap, p->n, sizeof(*v), 8);
	if (!v)
		return -ENOMEM;
	p->v = v;
	v = &p->v[p->n];
	memset(v, 0, sizeof(*v));
	v->ns = ns;
	v->seq = p->n++;
	if (name)
		memcpy(v->name, name, strnlen(name, len < sizeof(v->name) - 1 ? len : sizeof(v->name) - 1));
	v->source = source;
	v->tid = tid;
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct mark *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

int phases_write(struct mtx_phases *p, struct mtx_writer *w, uint64_t start_ns, uint64_t end_ns)
{
	int rc = writer_phase(w, 0, PHASE_GLOBAL, start_ns, end_ns, phase_source_name(PHASE_RUN), 0);
	if (p->n) /* none: no array, which qsort may not be given */
		qsort(p->v, p->n, sizeof(*p->v), by_time);
	for (size_t i = 0; i < p->n && !rc; i++) {
		const struct mark *m = &p->v[i];
		uint64_t from = m->ns < start_ns ? start_ns : m->ns > end_ns ? end_ns : m->ns;
		uint64_t to = i + 1 < p->n && p->v[i + 1].ns < end_ns ? p->v[i + 1].ns : end_ns;
		char name[32];
		phase_default_name((int64_t)i + 1, name, sizeof(name));
		rc = writer_phase(w, (int64_t)i + 1, m->name[0] ? m->name : name, from, to < from ? from : to,
				  phase_source_name(m->source), m->tid);
	}
	return rc;
}

void phases_free(struct mtx_phases *p)
{
	if (p)
		free(p->v);
	free(p);
}
