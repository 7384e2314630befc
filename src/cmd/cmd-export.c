/*
 * src/cmd/cmd-export.c - 'mtx export [FILE]': the run for the tools people
 * already use. chrome: trace-event JSON that Perfetto and chrome://tracing
 * open (a track per thread, grouped by process; thread states, sync ops,
 * syscalls and exact calls as slices; CPU samples as instants with their
 * stacks; wakeups and lock hand-offs as flow arrows, between threads, so
 * not with --thread); perfetto: the same from the same queries, in
 * Perfetto's protobuf (src/cmd/export-perfetto.c). Both are written row by
 * row as SQLite steps through the tables, by two threads at once (each
 * half of every table): memory does not grow with the run. folded: "f;g;h count" lines from CPU samples or exact calls, for
 * flamegraph.pl, inferno or speedscope. csv and jsonl: any table or view,
 * with a header.
 */
#include "config.h"
#include "src/cmd/cmd.h"
#include "src/cmd/export.h"
#include "src/db.h"
#include "src/derived/analysis.h"
#include "src/run-state.h"
#include "src/log.h"
#include "src/report-format.h"
#include "src/reports.h"
#include "src/timefmt.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cmd_export_usage[] =
	"usage: mtx export [FILE] --format chrome|perfetto|folded|csv|jsonl [options]\n"
	"\n"
	"Write the run in FILE (default run.db) for other tools: chrome, trace-event\n"
	"JSON for Perfetto (ui.perfetto.dev) or chrome://tracing; perfetto, the same\n"
	"as Perfetto's own protobuf trace (smaller: for big runs); folded, stacks for\n"
	"flamegraph.pl, inferno or speedscope; csv or jsonl, one table or view.\n"
	"\n"
	"  -f, --format FMT       chrome, perfetto, folded, csv or jsonl\n"
	"  -o, --output FILE      write there (default: standard output)\n"
	"  -t, --thread TID|NAME  chrome, perfetto, folded: only this thread\n"
	"      --from TIME        chrome, perfetto, folded: what happened after TIME since the\n"
	"                         run's start (1.5s, 200ms, 30us, 10ns)\n"
	"      --to TIME          chrome, perfetto, folded: what happened before TIME\n"
	"      --stacks WHAT      folded: samples (the CPU samples, the default) or calls\n"
	"                         (exact calls, weighted by their self time in ns)\n"
	"      --per-thread       folded: each stack under its thread's name\n"
	"      --table NAME       csv, jsonl: the table or view to write (mtx-db(5))\n"
	"  -h, --help             this help\n";

enum export_format { EXPORT_CHROME, EXPORT_PERFETTO, EXPORT_FOLDED, EXPORT_CSV, EXPORT_JSONL, NR_FORMATS };

struct export_options {
	enum export_format format;
	int64_t tid; /* 0: every thread */
	int64_t from_ns, to_ns; /* absolute; INT64_MIN/MAX when not given */
	int64_t origin_ns;
	bool calls, per_thread;
	const char *table;
};

/* Bind the filters of @o to @st's :tid, :from and :to (NULL: not given). */
static void bind_filters(sqlite3_stmt *st, const struct export_options *o)
{
	int i;
	if ((i = sqlite3_bind_parameter_index(st, ":tid")) && o->tid)
		sqlite3_bind_int64(st, i, o->tid);
	if ((i = sqlite3_bind_parameter_index(st, ":from")))
		sqlite3_bind_int64(st, i, o->from_ns);
	if ((i = sqlite3_bind_parameter_index(st, ":to")))
		sqlite3_bind_int64(st, i, o->to_ns);
}

/* Prepare @sql with the filters bound: NULL with an error logged. */
static sqlite3_stmt *prepare(sqlite3 *db, const char *sql, const struct export_options *o)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		log_error("export: %s", sqlite3_errmsg(db));
		return NULL;
	}
	bind_filters(st, o);
	return st;
}

/* ---- chrome ---------------------------------------------------------------- */

/* The trace-event format's timestamps are microseconds: the run's ns, as
 * a fraction, from the run's start (printf took a fifth of the export). */
static void put_ts(FILE *out, const char *key, int64_t ns, int64_t origin_ns)
{
	char buf[64];
	int64_t d = ns - origin_ns;
	uint64_t u = d < 0 ? -(uint64_t)d : (uint64_t)d;
	size_t n = (size_t)snprintf(buf, sizeof(buf), ",\"%s\":%s", key, d < 0 ? "-" : "");
	n += report_decimal((int64_t)(u / 1000), buf + n);
	buf[n++] = '.';
	buf[n++] = (char)('0' + u % 1000 / 100);
	buf[n++] = (char)('0' + u % 100 / 10);
	buf[n++] = (char)('0' + u % 10);
	fwrite(buf, 1, n, out);
}

static void event_begin(struct trace *c, const char *ph, const char *name, const char *cat, int64_t pid,
			int64_t tid)
{
	fputs(c->events++ ? ",\n{" : "\n{", c->out);
	fprintf(c->out, "\"ph\":\"%s\",\"name\":", ph);
	report_json_string(c->out, name ? name : "?");
	if (cat)
		fprintf(c->out, ",\"cat\":\"%s\"", cat);
	fputs(",\"pid\":", c->out);
	report_int(c->out, pid);
	fputs(",\"tid\":", c->out);
	report_int(c->out, tid);
}

/* The columns of @st from @first on as "args", each by its name; NULLs
 * left out (a third of a state's bytes). */
static void put_args(FILE *out, sqlite3_stmt *st, int first)
{
	bool any = false;
	for (int i = first; i < sqlite3_column_count(st); i++) {
		if (sqlite3_column_type(st, i) == SQLITE_NULL)
			continue;
		fputs(any ? "," : ",\"args\":{", out);
		any = true;
		report_json_string(out, sqlite3_column_name(st, i));
		fputc(':', out);
		report_value(out, REPORT_JSON, st, i);
	}
	if (any)
		fputc('}', out);
}

/* Slices: a row of (pid, tid, name, start_ns, end_ns, args...) as an X
 * event. */
static void chrome_slice(struct trace *c, sqlite3_stmt *st, const char *cat)
{
	int64_t start = sqlite3_column_int64(st, 3), end = sqlite3_column_int64(st, 4);
	event_begin(c, "X", (const char *)sqlite3_column_text(st, 2), cat, sqlite3_column_int64(st, 0),
		    sqlite3_column_int64(st, 1));
	put_ts(c->out, "ts", start, c->origin_ns);
	put_ts(c->out, "dur", end > start ? end : start, start);
	put_args(c->out, st, 5);
	fputc('}', c->out);
}

/* A thread state as an async slice on a track of its thread's own (id:
 * the tid): states overlap the ops and syscalls, which nest in each
 * other. The same columns as a slice. */
static void chrome_state(struct trace *c, sqlite3_stmt *st, const char *cat)
{
	int64_t pid = sqlite3_column_int64(st, 0), tid = sqlite3_column_int64(st, 1);
	const char *state = (const char *)sqlite3_column_text(st, 2);
	event_begin(c, "b", state, cat, pid, tid);
	fputs(",\"id\":", c->out);
	report_int(c->out, tid);
	put_ts(c->out, "ts", sqlite3_column_int64(st, 3), c->origin_ns);
	put_args(c->out, st, 5);
	fputc('}', c->out);
	event_begin(c, "e", state, cat, pid, tid);
	fputs(",\"id\":", c->out);
	report_int(c->out, tid);
	put_ts(c->out, "ts", sqlite3_column_int64(st, 4), c->origin_ns);
	fputc('}', c->out);
}

/* A flow arrow: a row of (name, from pid, from tid, from ns, to pid, to
 * tid, to ns), its start bound to the slice it is in and its end to the
 * next slice of the thread it points to. */
static void chrome_flow(struct trace *c, sqlite3_stmt *st, const char *cat)
{
	const char *name = (const char *)sqlite3_column_text(st, 0);
	uint64_t id = ++c->flow_id;
	event_begin(c, "s", name, cat, sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2));
	fputs(",\"id\":", c->out);
	report_int(c->out, (int64_t)id);
	put_ts(c->out, "ts", sqlite3_column_int64(st, 3), c->origin_ns);
	fputc('}', c->out);
	event_begin(c, "f", name, cat, sqlite3_column_int64(st, 4), sqlite3_column_int64(st, 5));
	fputs(",\"id\":", c->out);
	report_int(c->out, (int64_t)id);
	fputs(",\"bp\":\"e\"", c->out);
	put_ts(c->out, "ts", sqlite3_column_int64(st, 6), c->origin_ns);
	fputc('}', c->out);
}

/* An instant on its thread's track: a row of (pid, tid, name, ns,
 * args...). */
static void chrome_instant(struct trace *c, sqlite3_stmt *st, const char *cat)
{
	event_begin(c, "i", (const char *)sqlite3_column_text(st, 2), cat, sqlite3_column_int64(st, 0),
		    sqlite3_column_int64(st, 1));
	fputs(",\"s\":\"t\"", c->out);
	put_ts(c->out, "ts", sqlite3_column_int64(st, 3), c->origin_ns);
	put_args(c->out, st, 4);
	fputc('}', c->out);
}

/* A thread's name, and its process's when it is the main thread, as
 * metadata events: a row of (pid, tid, name, whether tid is pid). */
static void chrome_thread(struct trace *c, sqlite3_stmt *st, const char *cat)
{
	const char *name = (const char *)sqlite3_column_text(st, 2);
	(void)cat;
	event_begin(c, "M", "thread_name", NULL, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1));
	fputs(",\"ts\":0,\"args\":{\"name\":", c->out);
	report_json_string(c->out, name ? name : "?");
	fputs("}}", c->out);
	if (sqlite3_column_int(st, 3)) {
		event_begin(c, "M", "process_name", NULL, sqlite3_column_int64(st, 0), 0);
		fputs(",\"ts\":0,\"args\":{\"name\":", c->out);
		report_json_string(c->out, name ? name : "?");
		fputs("}}", c->out);
	}
}

const struct trace_format trace_chrome = {
	.head = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[",
	.separator = ",",
	.tail = "\n]}\n",
	.thread = chrome_thread,
	.slice = chrome_slice,
	.state = chrome_state,
	.instant = chrome_instant,
	.flow = chrome_flow,
};

/* SQL: what a row of table @t (with tid, start_ns, end_ns) must be to be
 * exported: its thread's, and overlapping [from, to). */
#define IN_WINDOW(t)                                                                                  \
	"(:tid IS NULL OR " t ".tid = :tid) AND " t ".end_ns >= :from AND " t ".start_ns <= :to "
/* SQL: each thread's pid, joined as tp (a correlated lookup per row
 * cost a third of the export). The joins are CROSS: SQLite then keeps the
 * big table outermost and scans it in order, where it chose to walk it by
 * thread through its (tid, start_ns) index and fetch each row at random
 * (half the export's time, on 10 M events). */
#define WITH_PIDS "WITH tp(tid, pid) AS MATERIALIZED (SELECT tid, MAX(pid) FROM threads GROUP BY tid) "
/* ...and each sync object's kind, label and address, made once per
 * object (printf per op was a tenth of the export), joined as ob. */
#define WITH_OBJECTS                                                                          \
	", ob(id, kind, object, addr) AS MATERIALIZED (SELECT o.id, o.kind, " OBJECT_LABEL("o") \
	", printf('0x%x', o.addr) FROM sync_objects o) "
#define JOIN_PID(t) " CROSS JOIN tp ON tp.tid = " t ".tid "

/* SQL: a row of the part of its table given to one part of the export. */
#define IN_PART(t) " AND " t ".rowid BETWEEN :lo AND :hi"

/* The trace's rows: each block a query whose rows go to the format's
 * writer of @kind. In the tables' order, not by time: the viewers sort,
 * and a scan by the (tid, start_ns) indexes took twice as long. A block
 * with a @table is split between the parts of the export by its rowid. */
enum block_kind { BLOCK_THREAD, BLOCK_STATE, BLOCK_SLICE, BLOCK_INSTANT, BLOCK_FLOW };
static const struct trace_block {
	const char *cat, *table;
	enum block_kind kind;
	const char *sql;
} trace_blocks[] = {
	{ NULL, NULL, BLOCK_THREAD,
	  "SELECT pid, tid, name, tid = pid FROM threads WHERE (:tid IS NULL OR tid = :tid) "
	  "GROUP BY tid ORDER BY pid, tid" },
	{ "state", "thread_states", BLOCK_STATE,
	  WITH_PIDS WITH_OBJECTS "SELECT tp.pid, s.tid, s.state, s.start_ns, s.end_ns, s.cpu, s.syscall, ob.object "
	  "FROM thread_states s" JOIN_PID("s") "LEFT JOIN ob ON ob.id = s.object_id WHERE " IN_WINDOW("s")
	  IN_PART("s") },
	{ "sync", "sync_ops", BLOCK_SLICE,
	  WITH_PIDS WITH_OBJECTS "SELECT tp.pid, x.tid, x.op || ' ' || ob.kind, x.start_ns, x.end_ns, ob.object, "
	  "ob.addr, x.result, x.wait_ns, x.holder_tid, x.hold_ns, x.unfinished FROM sync_ops x" JOIN_PID("x")
	  "CROSS JOIN ob ON ob.id = x.object_id WHERE " IN_WINDOW("x") IN_PART("x") },
	{ "syscall", "syscalls", BLOCK_SLICE,
	  WITH_PIDS "SELECT tp.pid, y.tid, y.name, y.start_ns, y.end_ns, y.ret, y.fd, y.fd_kind FROM syscalls y"
	  JOIN_PID("y") "WHERE " IN_WINDOW("y") "AND y.end_ns IS NOT NULL" IN_PART("y") },
	{ "call", "calls", BLOCK_SLICE,
	  WITH_PIDS "SELECT tp.pid, k.tid, " FUNCTION_LABEL("f") ", k.start_ns, k.end_ns, k.depth, k.unfinished, "
	  "k.retroactive FROM calls k" JOIN_PID("k") "CROSS JOIN functions f ON f.id = k.function_id WHERE "
	  IN_WINDOW("k") "AND k.end_ns IS NOT NULL" IN_PART("k") },
	/* a CPU sample: its leaf function, and its stack outermost first */
	{ "sample", "samples", BLOCK_INSTANT,
	  WITH_PIDS ", path(id, frames) AS (SELECT s.id, " FUNCTION_LABEL("f") " FROM stacks s JOIN functions f ON "
	  "f.id = s.function_id WHERE s.parent_id IS NULL UNION ALL SELECT s.id, path.frames || ';' || "
	  FUNCTION_LABEL("f") " FROM stacks s JOIN path ON s.parent_id = path.id JOIN functions f ON "
	  "f.id = s.function_id) SELECT tp.pid, x.tid, COALESCE((SELECT " FUNCTION_LABEL("f") " FROM stacks s "
	  "JOIN functions f ON f.id = s.function_id WHERE s.id = x.stack_id), '[no user stack]'), x.ts_ns, "
	  "x.cpu, path.frames AS stack FROM samples x" JOIN_PID("x") "LEFT JOIN path ON path.id = x.stack_id "
	  "WHERE (:tid IS NULL OR x.tid = :tid) AND x.ts_ns BETWEEN :from AND :to" IN_PART("x") },
	/* a wakeup of a traced thread by a traced thread */
	{ "wakeup", "wakeups", BLOCK_FLOW,
	  WITH_PIDS "SELECT 'wakeup', a.pid, w.waker_tid, w.ts_ns, b.pid, w.wakee_tid, w.ts_ns FROM wakeups w "
	  "CROSS JOIN tp a ON a.tid = w.waker_tid CROSS JOIN tp b ON b.tid = w.wakee_tid "
	  "WHERE :tid IS NULL AND w.ts_ns BETWEEN :from AND :to" IN_PART("w") },
	/* the holder's release ended the wait for the lock: a derived table,
	 * which a run that cannot keep them has only in the first part's
	 * connection, so not split */
	{ "handoff", NULL, BLOCK_FLOW,
	  WITH_PIDS "SELECT 'lock handoff', a.pid, f.waited_for_tid, f.end_ns, b.pid, f.tid, f.end_ns FROM wait_for f "
	  "CROSS JOIN tp a ON a.tid = f.waited_for_tid CROSS JOIN tp b ON b.tid = f.tid WHERE "
	  "f.relation = 'holder' AND :tid IS NULL AND f.end_ns BETWEEN :from AND :to" },
};
#define NR_BLOCKS (sizeof(trace_blocks) / sizeof(trace_blocks[0]))

/* The export runs in two parts at once, each on a connection of its own
 * and a core of its own, each with every table's half of the rows (it
 * took 11 s for 10 M events in one). Each part writes its events into
 * memory, and a chunk of whole rows at a time goes out: the events of the
 * parts are interleaved, which the viewers' sorting does not mind. */
#define TRACE_PARTS 2
#define TRACE_CHUNK (1 << 20) /* bytes */

/* Where the parts' chunks go. */
struct trace_sink {
	FILE *out;
	pthread_mutex_t lock;
	const char *separator; /* the format's: left out before the first event */
	bool started;          /* an event went out */
};

struct trace_part {
	sqlite3 *db;
	struct trace c; /* c.out: the part's memory stream */
	char *buf;      /* ...and its bytes */
	size_t len;
	struct trace_sink *sink;
	const struct export_options *o;
	const struct trace_format *f;
	int64_t lo[NR_BLOCKS], hi[NR_BLOCKS]; /* each block's rowids; lo > hi: none */
	pthread_t thread;
	int rc;
};

/* What part @p wrote since its last chunk goes out. */
static int trace_part_flush(struct trace_part *p)
{
	struct trace_sink *k = p->sink;
	size_t skip = 0;
	int rc = 0;
	if (fflush(p->c.out))
		return -ENOMEM;
	if (p->len == 0)
		return 0;
	pthread_mutex_lock(&k->lock);
	if (!k->started && k->separator)
		skip = strlen(k->separator); /* every chunk begins with an event */
	k->started = true;
	if (fwrite(p->buf + skip, 1, p->len - skip, k->out) != p->len - skip)
		rc = -EIO;
	pthread_mutex_unlock(&k->lock);
	rewind(p->c.out);
	return rc;
}

/* Block @b's rows in part @p, by the format's writer of its kind. */
static int trace_block(struct trace_part *p, const struct trace_block *b, size_t i)
{
	trace_row_fn *const writers[] = { [BLOCK_THREAD] = p->f->thread, [BLOCK_STATE] = p->f->state,
					  [BLOCK_SLICE] = p->f->slice, [BLOCK_INSTANT] = p->f->instant,
					  [BLOCK_FLOW] = p->f->flow };
	sqlite3_stmt *st;
	int rc, k;
	if (p->lo[i] > p->hi[i])
		return 0;
	if (!(st = prepare(p->db, b->sql, p->o)))
		return -EIO;
	if ((k = sqlite3_bind_parameter_index(st, ":lo")))
		sqlite3_bind_int64(st, k, p->lo[i]);
	if ((k = sqlite3_bind_parameter_index(st, ":hi")))
		sqlite3_bind_int64(st, k, p->hi[i]);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		writers[b->kind](&p->c, st, b->cat);
		if (ftello(p->c.out) >= TRACE_CHUNK && trace_part_flush(p)) {
			rc = SQLITE_IOERR;
			break;
		}
	}
	if (rc != SQLITE_DONE && rc != SQLITE_IOERR)
		log_error("export: %s", sqlite3_errmsg(p->db));
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

static void *trace_part_run(void *arg)
{
	struct trace_part *p = arg;
	for (size_t i = 0; i < NR_BLOCKS && !p->rc; i++)
		p->rc = trace_block(p, &trace_blocks[i], i);
	if (!p->rc)
		p->rc = trace_part_flush(p);
	if (p->f->finish)
		p->f->finish(&p->c);
	return NULL;
}

/* Give each part its share of each block's rows: a split table's rowid
 * range in halves, the rest to the first part. */
static int trace_split(sqlite3 *db, struct trace_part *parts, int n)
{
	for (size_t i = 0; i < NR_BLOCKS; i++) {
		const char *t = trace_blocks[i].table;
		char sql[96];
		sqlite3_stmt *st;
		uint64_t lo, span;
		for (int k = 0; k < n; k++)
			parts[k].lo[i] = 1, parts[k].hi[i] = 0;
		if (!t) {
			parts[0].lo[i] = INT64_MIN, parts[0].hi[i] = INT64_MAX;
			continue;
		}
		snprintf(sql, sizeof(sql), "SELECT min(rowid), max(rowid) FROM %s", t);
		if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
			log_error("export: %s", sqlite3_errmsg(db));
			return -EIO;
		}
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
			lo = (uint64_t)sqlite3_column_int64(st, 0);
			span = (uint64_t)sqlite3_column_int64(st, 1) - lo + 1;
			for (int k = 0; k < n; k++) {
				parts[k].lo[i] = (int64_t)(lo + span / (uint64_t)n * (uint64_t)k);
				parts[k].hi[i] = (int64_t)(k == n - 1 ? lo + span - 1 : lo + span / (uint64_t)n * (uint64_t)(k + 1) - 1);
			}
		}
		sqlite3_finalize(st);
	}
	return 0;
}

/* The run as a trace in format @f: names first, then each table's rows,
 * from run database @path (open as @db); @split: a second connection may
 * read a part (the run is complete). */
static int export_trace(sqlite3 *db, const char *path, bool split, FILE *out, const struct export_options *o,
			const struct trace_format *f)
{
	struct trace_sink sink = { .out = out, .lock = PTHREAD_MUTEX_INITIALIZER, .separator = f->separator };
	struct trace_part parts[TRACE_PARTS];
	int n = 0, rc = -ENOMEM;
	char *err = NULL;
	memset(parts, 0, sizeof(parts));
	for (int k = 0; k < TRACE_PARTS; k++) {
		struct trace_part *p = &parts[k];
		p->o = o;
		p->f = f;
		p->sink = &sink;
		p->c.origin_ns = o->origin_ns;
		p->c.flow_id = (uint64_t)k << 48; /* each part's flows have ids of their own */
		p->c.events = 1;                  /* each chunk begins with a separator */
		p->c.sequence = (uint32_t)k + 1;
		if (!(p->c.out = open_memstream(&p->buf, &p->len)))
			goto out;
	}
	parts[0].db = db;
	n = split && !db_open_readonly(path, &parts[1].db, &err) ? 2 : 1;
	free(err);
	if ((rc = trace_split(db, parts, n)))
		goto out;
	fputs(f->head, out);
	if (n > 1 && pthread_create(&parts[1].thread, NULL, trace_part_run, &parts[1]))
		n = 1, trace_split(db, parts, 1);
	trace_part_run(&parts[0]);
	if (n > 1)
		pthread_join(parts[1].thread, NULL);
	fputs(f->tail, out);
	for (int k = 0; k < n && !rc; k++)
		rc = parts[k].rc ? parts[k].rc : parts[k].c.failed ? -ENOMEM : 0;
out:
	for (int k = 0; k < TRACE_PARTS; k++)
		if (parts[k].c.out) {
			fclose(parts[k].c.out);
			free(parts[k].buf);
		}
	if (rc == -ENOMEM)
		log_error("export: out of memory");
	sqlite3_close(parts[1].db);
	return rc;
}

/* ---- folded ---------------------------------------------------------------- */

/* Each sample's stack, outermost frame first ("[no user stack]" for one
 * taken in the kernel with none), or each call's path from its thread's
 * outermost call, with how much: "a;b;c N". */
static const char folded_samples_sql[] =
	"WITH RECURSIVE path(id, frames) AS ("
	" SELECT s.id, " FUNCTION_LABEL("f") " FROM stacks s JOIN functions f ON f.id = s.function_id"
	" WHERE s.parent_id IS NULL"
	" UNION ALL SELECT s.id, path.frames || ';' || " FUNCTION_LABEL("f") " FROM stacks s"
	" JOIN path ON s.parent_id = path.id JOIN functions f ON f.id = s.function_id) "
	"SELECT CASE WHEN :per_thread THEN (SELECT t.name FROM threads t WHERE t.tid = x.tid ORDER BY t.start_ns"
	" DESC LIMIT 1) || '-' || x.tid || ';' ELSE '' END || COALESCE(path.frames, '[no user stack]') AS stack,"
	" COUNT(*) FROM samples x LEFT JOIN path ON path.id = x.stack_id WHERE (:tid IS NULL OR x.tid = :tid) AND x.ts_ns BETWEEN :from AND :to"
	" GROUP BY stack ORDER BY stack";

static const char folded_calls_sql[] =
	"WITH RECURSIVE path(id, frames) AS ("
	" SELECT k.id, " FUNCTION_LABEL("f") " FROM calls k JOIN functions f ON f.id = k.function_id"
	" WHERE k.parent_id IS NULL AND (:tid IS NULL OR k.tid = :tid)"
	" UNION ALL SELECT k.id, path.frames || ';' || " FUNCTION_LABEL("f") " FROM calls k"
	" JOIN path ON k.parent_id = path.id JOIN functions f ON f.id = k.function_id), "
	/* self time: the call's, less its callees', within the window */
	"span(id, tid, ns) AS (SELECT id, tid, MIN(end_ns, :to) - MAX(start_ns, :from) FROM calls"
	" WHERE end_ns IS NOT NULL AND end_ns > :from AND start_ns < :to), "
	"self(id, tid, ns) AS (SELECT s.id, s.tid, s.ns - COALESCE((SELECT SUM(c.ns) FROM span c"
	" JOIN calls k ON k.id = c.id WHERE k.parent_id = s.id), 0) FROM span s) "
	"SELECT CASE WHEN :per_thread THEN (SELECT t.name FROM threads t WHERE t.tid = self.tid ORDER BY"
	" t.start_ns DESC LIMIT 1) || '-' || self.tid || ';' ELSE '' END || path.frames AS stack, SUM(self.ns)"
	" FROM self JOIN path ON path.id = self.id GROUP BY stack HAVING SUM(self.ns) > 0 ORDER BY stack";

static int export_folded(sqlite3 *db, FILE *out, const struct export_options *o)
{
	sqlite3_stmt *st = prepare(db, o->calls ? folded_calls_sql : folded_samples_sql, o);
	int rc;
	if (!st)
		return -EIO;
	sqlite3_bind_int(st, sqlite3_bind_parameter_index(st, ":per_thread"), o->per_thread);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		fprintf(out, "%s %lld\n", (const char *)sqlite3_column_text(st, 0), sqlite3_column_int64(st, 1));
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		log_error("export: %s", sqlite3_errmsg(db));
		return -EIO;
	}
	return 0;
}

/* ---- csv, jsonl ------------------------------------------------------------ */

static int export_table(sqlite3 *db, FILE *out, const struct export_options *o)
{
	sqlite3_stmt *st;
	char *sql;
	int rc, n;
	if (!(sql = sqlite3_mprintf("SELECT * FROM \"%w\"", o->table)))
		return -ENOMEM;
	st = prepare(db, sql, o);
	sqlite3_free(sql);
	if (!st)
		return -EIO;
	n = sqlite3_column_count(st);
	if (o->format == EXPORT_CSV) {
		for (int i = 0; i < n; i++) {
			fputs(i ? "," : "", out);
			report_csv_string(out, sqlite3_column_name(st, i));
		}
		fputc('\n', out);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		fputs(o->format == EXPORT_JSONL ? "{" : "", out);
		for (int i = 0; i < n; i++) {
			if (i)
				fputc(',', out);
			if (o->format == EXPORT_JSONL) {
				report_json_string(out, sqlite3_column_name(st, i));
				fputc(':', out);
			}
			report_value(out, o->format == EXPORT_JSONL ? REPORT_JSON : REPORT_CSV, st, i);
		}
		fputs(o->format == EXPORT_JSONL ? "}\n" : "\n", out);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		log_error("export: %s", sqlite3_errmsg(db));
		return -EIO;
	}
	return 0;
}

/* ---- the command ----------------------------------------------------------- */

int cmd_export(int argc, char **argv)
{
	static const struct option options[] = {
		{ "format", required_argument, NULL, 'f' }, { "output", required_argument, NULL, 'o' },
		{ "thread", required_argument, NULL, 't' }, { "from", required_argument, NULL, 'a' },
		{ "to", required_argument, NULL, 'b' },     { "stacks", required_argument, NULL, 's' },
		{ "per-thread", no_argument, NULL, 'p' },   { "table", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
	};
	static const char *const formats[] = { [EXPORT_CHROME] = "chrome", [EXPORT_PERFETTO] = "perfetto",
					       [EXPORT_FOLDED] = "folded", [EXPORT_CSV] = "csv", [EXPORT_JSONL] = "jsonl" };
	struct export_options o = { .format = -1, .from_ns = INT64_MIN, .to_ns = INT64_MAX };
	const char *path = CMD_DEFAULT_DB, *output = NULL, *format = NULL, *thread = NULL, *from = NULL, *to = NULL;
	const char *stacks = NULL;
	struct run_state rs;
	sqlite3 *db = NULL;
	FILE *out = stdout;
	char *err = NULL;
	int c, rc, status = EXIT_FAILURE_MTX;
	bool split;
	int64_t ns;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:o:t:h", options, NULL)) != -1) {
		switch (c) {
		case 'f': format = optarg; break;
		case 'o': output = optarg; break;
		case 't': thread = optarg; break;
		case 'a': from = optarg; break;
		case 'b': to = optarg; break;
		case 's': stacks = optarg; break;
		case 'p': o.per_thread = true; break;
		case 'T': o.table = optarg; break;
		case 'h': fputs(cmd_export_usage, stdout); return 0;
		case ':': return cmd_usage_error("export", "option '%s' needs a value", argv[optind - 1]);
		default: return cmd_unknown_option("export", argv[optind - 1], options);
		}
	}
	for (int i = 0; format && i < NR_FORMATS; i++)
		if (!strcmp(format, formats[i]))
			o.format = (enum export_format)i;
	if (!format)
		return cmd_usage_error("export", "which format? (--format chrome, perfetto, folded, csv or jsonl)");
	if ((int)o.format < 0) {
		const char *near = cmd_suggest(format, formats, NR_FORMATS);
		if (near)
			return cmd_usage_error("export", "unknown format '%s' (did you mean %s?)", format, near);
		return cmd_usage_error("export", "unknown format '%s' (chrome, perfetto, folded, csv or jsonl)", format);
	}
	if ((o.format == EXPORT_CSV || o.format == EXPORT_JSONL) != (o.table != NULL))
		return cmd_usage_error("export", o.table ? "--table is for csv and jsonl"
							 : "csv and jsonl need --table NAME (a table or view of mtx-db(5))");
	if ((o.format == EXPORT_CSV || o.format == EXPORT_JSONL) && (thread || from || to))
		return cmd_usage_error("export", "csv and jsonl write the whole table: filter it with SQL");
	if ((stacks || o.per_thread) && o.format != EXPORT_FOLDED)
		return cmd_usage_error("export", "--stacks and --per-thread are for --format folded");
	if (stacks && strcmp(stacks, "samples") && strcmp(stacks, "calls"))
		return cmd_usage_error("export", "--stacks samples or --stacks calls, not '%s'", stacks);
	o.calls = stacks && !strcmp(stacks, "calls");
	if (optind < argc)
		path = argv[optind++];
	if (optind < argc)
		return cmd_usage_error("export", "one run database at most (got '%s' too)", argv[optind]);
	if ((from && timefmt_parse_offset(from, &ns)) || (to && timefmt_parse_offset(to, &ns)))
		return cmd_usage_error("export", "--%s '%s': not a time (1.5s, 200ms, 30us, 10ns)",
				       from && timefmt_parse_offset(from, &ns) ? "from" : "to",
				       from && timefmt_parse_offset(from, &ns) ? from : to);
	if (cmd_default_db_missing("export", path))
		return EXIT_FAILURE_MTX;
	if (analysis_open(path, false, &db, &rs, &err)) {
		log_error("%s", err ? err : "cannot open");
		goto out;
	}
	o.origin_ns = db_run_start_ns(db);
	if (from && !timefmt_parse_offset(from, &ns))
		o.from_ns = o.origin_ns + ns;
	if (to && !timefmt_parse_offset(to, &ns))
		o.to_ns = o.origin_ns + ns;
	if (thread && (rc = cmd_resolve_thread(db, thread, &o.tid))) {
		status = cmd_usage_error("export", "--thread %s: %s", thread,
					 rc == -EEXIST ? "several threads have that name: give its tid"
						       : "no such thread in the run");
		goto out;
	}
	if (o.table && !db_has_table(db, o.table)) {
		status = cmd_usage_error("export", "no table or view '%s' in the run (mtx-db(5) lists them)", o.table);
		goto out;
	}
	if (o.format == EXPORT_FOLDED && !db_query_int(db, o.calls ? "SELECT EXISTS (SELECT 1 FROM calls)"
								  : "SELECT EXISTS (SELECT 1 FROM samples)", 0)) {
		log_error("%s: no %s in the run (%s)", path, o.calls ? "exact calls" : "CPU samples",
			  o.calls ? "mtx collect --functions, or a program built with -pg" : "mtx collect --sample HZ");
		goto out;
	}
	if (output && !(out = fopen(output, "we"))) {
		log_error("%s: %s", output, strerror(errno));
		goto out;
	}
	setvbuf(out, NULL, _IOFBF, 1 << 20); /* gigabytes go out: few writes */
	split = rs.complete;
	rc = o.format == EXPORT_CHROME	  ? export_trace(db, path, split, out, &o, &trace_chrome)
	     : o.format == EXPORT_PERFETTO ? export_trace(db, path, split, out, &o, &trace_perfetto)
	     : o.format == EXPORT_FOLDED ? export_folded(db, out, &o)
					 : export_table(db, out, &o);
	if (fflush(out) || ferror(out))
		log_error("%s: %s", output ? output : "standard output", strerror(errno));
	else if (!rc)
		status = 0;
	if (out != stdout)
		fclose(out);
out:
	free(err);
	sqlite3_close(db);
	return status;
}
