/*
 * src/cmd/export.h - the trace formats of 'mtx export' (src/cmd/cmd-export.c
 * reads the run, each format writes its rows): chrome, the trace-event
 * JSON, in cmd-export.c; perfetto, Perfetto's protobuf, in
 * export-perfetto.c.
 */
#ifndef MTX_CMD_EXPORT_H
#define MTX_CMD_EXPORT_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct trace {
	FILE *out;
	int64_t origin_ns;       /* the run's start: times are written from it */
	uint64_t events, flow_id; /* written so far; the last flow's id */
	uint32_t sequence;        /* its events' sequence (perfetto), from 1 */
	void *scratch;           /* the format's own, freed by its finish */
	bool failed;             /* memory ran out: the export is not whole */
};

/* A row of the run, of category @cat, written as events. The columns,
 * by kind of row (args: the rest, each by its name, NULLs left out):
 *   thread   pid, tid, name, whether tid is pid (its process's name too)
 *   slice    pid, tid, name, start_ns, end_ns, args...
 *   state    the same as slice; a thread's states tile its life
 *   instant  pid, tid, name, ns, args...
 *   flow     name, from pid, from tid, from ns, to pid, to tid, to ns */
typedef void trace_row_fn(struct trace *t, sqlite3_stmt *st, const char *cat);

struct trace_format {
	const char *head, *tail; /* written before and after the events */
	const char *separator;   /* written before each event but the first */
	trace_row_fn *thread, *slice, *state, *instant, *flow;
	void (*finish)(struct trace *t); /* NULL: nothing to do */
};

extern const struct trace_format trace_chrome, trace_perfetto;

#endif
