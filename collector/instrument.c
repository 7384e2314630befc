/* collector/instrument.c - see instrument.h. */
#include "config.h"
#include "collector/instrument.h"
#include "collector/calibrate.h"
#include "collector/catch-up.h"
#include "collector/cal-store.h"
#include "collector/function-uprobes.h"
#include "collector/session.h"
#include "collector/source.h"
#include "collector/writer.h"
#include "src/clock.h"
#include "src/error.h"
#include "src/log.h"
#include "src/grow.h"
#include "src/report-format.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* A probe set: on from on_ns until off_ns (0: still on). */
struct probe {
	uint32_t id;
	char *pattern;
	struct function_uprobes *fu;
	size_t functions;
	uint64_t on_ns, off_ns, hits;
	const char *reason, *off_reason; /* static: why it went on, off */
	uint64_t tick_hits;              /* hits at the last budget check */
};

/* The stated default cost of a traced call (entry and return) when it
 * could not be calibrated (noisy rounds): what this machine kind measures
 * in the worst runs (bench/function-uprobe-cost.sh, mtx calibrate). */
#define DEFAULT_CALL_NS 12000ull

/* How often --overhead-budget weighs the probes: long enough for a rate
 * of a few calls, short enough that an expensive probe costs little
 * before it goes (at 250 ms, a 20% probe added ~2% to a 2.4 s run). */
#define BUDGET_INTERVAL_NS 100000000ull

/* A window of a source: [on_ns, off_ns), off_ns 0 while it lasts. */
struct window {
	const char *name;
	enum mtx_source_id id;
	uint64_t on_ns, off_ns;
	const char *reason, *off_reason; /* static: who switched it on, off */
};

struct mtx_instrument {
	struct mtx_session *s;
	struct mtx_writer *w;
	char *prog;
	uint64_t start_ns;
	uint64_t cost_ns;  /* one traced call's two hits (calibrated at the first add), 0: unknown */
	int cut_queue;     /* order queue of the events that close a removed set's calls */
	struct probe *probes;
	size_t nr_probes, cap_probes;
	struct window *windows;
	size_t nr_windows, cap_windows;
	const char *functions;     /* --functions: on from the start */
	struct function_uprobes *functions_fu;
	uint64_t functions_cost_ns;
	int64_t last_row_id;       /* instrumentation.id */
	double budget_pct;         /* --overhead-budget, 0: none */
	uint64_t last_tick_ns;
	/* the library's sync records, switched by the region (NULL: none) */
	int (*sync_pause)(void *ctx, int paused);
	void *sync_ctx;
	/* where 'phase NAME' goes (NULL: nowhere) */
	int (*phase_mark)(void *ctx, uint64_t ns, const char *name);
	void *phase_ctx;
	void (*live)(void *ctx, FILE *out); /* instrument_live */
	void *live_ctx;
	pid_t running;             /* the program runs: probes catch up on its calls */
	uint64_t catch_up_calls, catch_up_stops, catch_up_stopped_ns;
};

static int open_window(struct mtx_instrument *in, const char *name, enum mtx_source_id id, uint64_t ns,
		       const char *reason)
{
	struct window *w = grow_array(in->windows, &in->cap_windows, in->nr_windows, sizeof(*w), 8);
	if (!w)
		return -ENOMEM;
	in->windows = w;
	in->windows[in->nr_windows++] = (struct window){ name, id, ns, 0, reason, NULL };
	return 0;
}

/* Write instrumentation row @r, and the functions of @fu it probed (all,
 * or only function @only when it is not -1). */
static void write_row(struct mtx_instrument *in, struct writer_instrumentation_row *r,
		      const struct function_uprobes *fu, long only)
{
	r->id = ++in->last_row_id;
	writer_instrumentation(in->w, r);
	for (size_t i = 0; fu && i < function_uprobes_count(fu); i++) {
		const char *name, *path;
		if (only >= 0 && i != (size_t)only)
			continue;
		function_uprobes_get(fu, i, &name, &path);
		writer_instrumented_function(in->w, r->id, name, path);
	}
}

struct mtx_instrument *instrument_new(struct mtx_session *s, struct mtx_writer *w, const char *prog,
				      unsigned sources, int sync, uint64_t start_ns)
{
	struct mtx_instrument *in = calloc(1, sizeof(*in));
	if (!in || !(in->prog = strdup(prog))) {
		free(in);
		return NULL;
	}
	in->s = s;
	in->w = w;
	in->start_ns = in->last_tick_ns = start_ns;
	in->cut_queue = order_add_queue(&s->order);
	for (int i = 0; i < mtx_nr_sources; i++)
		if (sources & (1u << i))
			open_window(in, mtx_sources[i]->name, mtx_sources[i]->id, start_ns, "start");
	if (sync)
		open_window(in, "sync", MTX_SRC_SYNC, start_ns, "start");
	if (s->sample_hz && !(s->start_off & (1u << MTX_SRC_SAMPLES)))
		open_window(in, "samples", MTX_SRC_SAMPLES, start_ns, "start");
	return in;
}

/* ---- replies: {"ok": ..., "text": ..., more fields} on one line ---- */

static void reply_begin(FILE *out, int ok)
{
	fprintf(out, "{\"ok\": %s", ok ? "true" : "false");
}

static void reply_vtext(FILE *out, const char *fmt, va_list ap)
{
	char *text = NULL;
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	fputs(", \"text\": ", out);
	report_json_string(out, text ? text : "");
	free(text);
}

static void reply_text(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reply_text(FILE *out, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	reply_vtext(out, fmt, ap);
	va_end(ap);
}

static void reply_end(FILE *out)
{
	fputs("}\n", out);
}

static void reply_error(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reply_error(FILE *out, const char *fmt, ...)
{
	va_list ap;
	reply_begin(out, 0);
	va_start(ap, fmt);
	reply_vtext(out, fmt, ap);
	va_end(ap);
	reply_end(out);
}

/* Seconds since the run's start, for the replies' text. */
static double since_start(const struct mtx_instrument *in, uint64_t ns)
{
	return ns > in->start_ns ? (double)(ns - in->start_ns) / 1e9 : 0.0;
}

/* The share of one CPU that @hits calls over [@from, @to) cost. */
static double cost_pct(const struct mtx_instrument *in, uint64_t hits, uint64_t from, uint64_t to)
{
	return in->cost_ns && to > from ? 100.0 * (double)hits * (double)in->cost_ns / (double)(to - from) : -1;
}

/* ---- probes ---- */

/* A budget needs a cost: when the run's calibration was not clear, what
 * mtx calibrate kept for this machine, else the stated default. */
static void need_cost(struct mtx_instrument *in)
{
	uint64_t kept;
	if (in->cost_ns || in->budget_pct <= 0)
		return;
	kept = cal_store_load("cal_uprobes_ns");
	in->cost_ns = kept ? kept : DEFAULT_CALL_NS;
	log_warn("the cost of a traced call could not be calibrated: --overhead-budget takes it to be %.1f us (%s)",
		 (double)in->cost_ns / 1e3, kept ? "what mtx calibrate measured on this machine" : "a stated default");
}

/* The cost of one traced call, measured once (~ms) with the set's
 * calibration probes; their events are closed at once, in a child, so
 * that the set's removal can remove their definitions too. */
static void calibrate(struct mtx_instrument *in, const struct function_uprobes *fu)
{
	int fds[2], n = 0;
	const long *ids = function_uprobes_calibration(fu);
	if (in->cost_ns || !ids)
		return;
	in->cost_ns = calibrate_uprobes(NULL, ids, fds);
	for (int i = 0; i < 2; i++)
		if (fds[i] >= 0)
			fds[n++] = fds[i];
	session_close_soon(fds, (size_t)n);
	need_cost(in);
}

/* The event that ends probe set @set's calls still open at @ns (removed). */
static void push_cut(struct mtx_instrument *in, uint32_t set, uint64_t ns)
{
	struct mtx_event cut = { .type = MTX_EV_CALL, .cpu = -1, .ts_ns = ns };
	cut.u.call.at_return = MTX_CALL_CUT;
	cut.u.call.set = (uint16_t)set;
	order_push(&in->s->order, in->cut_queue, &cut);
}

static void push_catch_up(void *ctx, const struct mtx_event *ev)
{
	struct mtx_instrument *in = ctx;
	order_push(&in->s->order, in->cut_queue, ev);
}

/* The calls of @sets' functions that the threads stopped in @cu are in
 * become calls begun at @t0 (collector/catch-up.h). */
static void catch_up_calls(struct mtx_instrument *in, struct function_uprobes *const *sets, size_t n,
			   const struct catch_up *cu, uint64_t t0)
{
	int calls = function_uprobes_catch_up(sets, n, in->s, cu, t0, push_catch_up, in);
	if (calls < 0)
		log_warn("the calls already running are not recorded: %s", in->s->error);
	else
		in->catch_up_calls += (uint64_t)calls;
}

/* Stop the program's threads to catch up on their calls (NULL: not
 * running yet, or it cannot be stopped, said). */
static struct catch_up *stop_program(struct mtx_instrument *in)
{
	struct catch_up *cu = in->running ? catch_up_stop(in->running) : NULL;
	in->catch_up_stops += cu != NULL;
	return cu;
}

/* Put probe set @fu (found, not defined) on now, as the next probe, under
 * @pattern, catching up on the calls of its functions the program is in.
 * Returns it, or NULL with @err (caller frees); @fu is then freed. */
static struct probe *add_set(struct mtx_instrument *in, struct function_uprobes *fu, const char *pattern,
			     const char *reason, char **err)
{
	uint32_t id = (uint32_t)in->nr_probes + 1;
	uint64_t on_ns = 0;
	struct probe *p;
	int rc;
	function_uprobes_set(fu, id);
	rc = function_uprobes_define(fu, err);
	if (!rc) {
		struct catch_up *cu;
		bool caught;
		calibrate(in, fu);
		/* Stopped before they are armed (a call begun under one has the
		 * kernel's trampoline for its return address, which ends the
		 * unwinding), and until they are on: no call is missed or seen
		 * twice. */
		cu = stop_program(in);
		rc = function_uprobes_open_set(fu, in->s);
		/* on from the instant all go on: every call recorded is after it */
		on_ns = clock_now_ns();
		caught = cu && !rc;
		if (caught)
			catch_up_calls(in, &fu, 1, cu, on_ns);
		if (!rc)
			rc = function_uprobes_enable_set(fu, in->s, 1);
		in->catch_up_stopped_ns += catch_up_resume(cu);
		if (rc) {
			*err = strdup(in->s->error ? in->s->error : strerror(-rc));
			function_uprobes_close_set(fu, in->s);
			if (caught) /* the calls caught up on end where they began */
				push_cut(in, id, on_ns);
		}
	}
	p = rc ? NULL : grow_array(in->probes, &in->cap_probes, in->nr_probes, sizeof(*p), 8);
	if (!p) {
		if (!rc && !*err)
			*err = strdup(strerror(ENOMEM));
		function_uprobes_free(fu);
		return NULL;
	}
	in->probes = p;
	p = &in->probes[in->nr_probes++];
	*p = (struct probe){ .id = id, .pattern = strdup(pattern), .fu = fu, .functions = function_uprobes_count(fu),
			     .on_ns = on_ns, .reason = reason };
	return p;
}

static void probe_add(struct mtx_instrument *in, const char *pattern, FILE *out)
{
	struct function_uprobes *fu = NULL;
	const char *first, *path;
	struct probe *p = NULL;
	char *err = NULL;
	int rc = function_uprobes_find(&fu, in->prog, pattern, NULL, &err);
	if (!rc && !function_uprobes_count(fu)) {
		function_uprobes_free(fu);
		err = strdup("no function matches it (see mtx collect --list-functions)");
	} else if (!rc) {
		p = add_set(in, fu, pattern, "user", &err);
	}
	if (!p) {
		reply_error(out, "probe add %s: %s", pattern, err ? err : strerror(-rc));
		free(err);
		return;
	}
	function_uprobes_get(p->fu, 0, &first, &path);
	reply_begin(out, 1);
	fprintf(out, ", \"id\": %u, \"functions\": %zu, \"on_ns\": %" PRIu64 ", \"cost_ns\": %" PRIu64, p->id,
		p->functions, p->on_ns, in->cost_ns);
	reply_text(out, "probe %u: %zu function%s (%s%s) on at %.3f s; %s%.2f us a call (entry and return)", p->id,
		   p->functions, p->functions == 1 ? "" : "s", first, p->functions > 1 ? ", ..." : "",
		   since_start(in, p->on_ns), in->cost_ns ? "" : "not calibrated, ", (double)in->cost_ns / 1e3);
	reply_end(out);
}

static struct probe *probe_by_id(struct mtx_instrument *in, const char *text)
{
	char *end;
	unsigned long id = strtoul(text, &end, 10);
	if (*end || end == text || id < 1 || id > in->nr_probes)
		return NULL;
	return &in->probes[id - 1];
}

/* Probe @p goes off now (for @why): disabled at once, its calls still
 * open end then. */
static void probe_off(struct mtx_instrument *in, struct probe *p, const char *why)
{
	p->off_reason = why;
	/* off once the last is disabled: closing them forks, which took
	 * milliseconds in the sanitized build (calls missing from the window) */
	function_uprobes_enable_set(p->fu, in->s, 0);
	p->off_ns = clock_now_ns();
	function_uprobes_close_set(p->fu, in->s);
	/* Its records so far into the ordering, before the event that cuts. */
	session_drain(in->s);
	p->hits = function_uprobes_set_calls(p->fu, in->s);
	push_cut(in, p->id, p->off_ns);
}

static void probe_del(struct mtx_instrument *in, const char *arg, FILE *out)
{
	struct probe *p = probe_by_id(in, arg);
	double pct;
	if (!p) {
		reply_error(out, "probe del %s: no such probe (mtx ctl SOCK probe list)", arg);
		return;
	}
	if (p->off_ns) {
		reply_error(out, "probe del %s: off already, since %.3f s", arg, since_start(in, p->off_ns));
		return;
	}
	probe_off(in, p, "user");
	pct = cost_pct(in, p->hits, p->on_ns, p->off_ns);
	reply_begin(out, 1);
	fprintf(out, ", \"id\": %u, \"off_ns\": %" PRIu64 ", \"hits\": %" PRIu64, p->id, p->off_ns, p->hits);
	if (pct >= 0)
		fprintf(out, ", \"observed_pct\": %.3f", pct);
	reply_text(out, "probe %u (%s): off at %.3f s after %" PRIu64 " call%s%s%.2f%s", p->id, p->pattern,
		   since_start(in, p->off_ns), p->hits, p->hits == 1 ? "" : "s", pct >= 0 ? "; cost " : "",
		   pct >= 0 ? pct : 0.0, pct >= 0 ? "% of a CPU" : "");
	reply_end(out);
}

static void probe_list(struct mtx_instrument *in, FILE *out)
{
	uint64_t now = clock_now_ns();
	char *text = NULL;
	size_t len = 0;
	FILE *t = open_memstream(&text, &len);
	reply_begin(out, 1);
	fputs(", \"probes\": [", out);
	fprintf(t, "%3s  %-24s %9s %9s %10s %9s", "id", "pattern", "on", "off", "calls", "cost%");
	for (size_t i = 0; i < in->nr_probes; i++) {
		struct probe *p = &in->probes[i];
		uint64_t hits = p->off_ns ? p->hits : function_uprobes_set_calls(p->fu, in->s);
		double pct = cost_pct(in, hits, p->on_ns, p->off_ns ? p->off_ns : now);
		fprintf(out, "%s{\"id\": %u, \"pattern\": ", i ? ", " : "", p->id);
		report_json_string(out, p->pattern);
		fprintf(out, ", \"on_ns\": %" PRIu64 ", \"off_ns\": %" PRIu64 ", \"hits\": %" PRIu64 "}", p->on_ns,
			p->off_ns, hits);
		fprintf(t, "\n%3u  %-24s %8.3fs ", p->id, p->pattern, since_start(in, p->on_ns));
		if (p->off_ns)
			fprintf(t, "%8.3fs", since_start(in, p->off_ns));
		else
			fprintf(t, "%9s", "-");
		fprintf(t, " %10" PRIu64, hits);
		if (pct >= 0)
			fprintf(t, " %9.2f", pct);
		else
			fprintf(t, " %9s", "-");
	}
	fputc(']', out);
	fclose(t);
	reply_text(out, "%s", text ? text : "");
	free(text);
	reply_end(out);
}

/* ---- sources ---- */

int instrument_source(struct mtx_instrument *in, const char *name, int on, const char *reason, uint64_t *at_ns,
		      const char **why)
{
	const struct mtx_source *src = source_by_name(name);
	enum mtx_source_id id;
	struct window *open = NULL;
	uint64_t now;
	int n;
	if (!strcmp(name, "sync") || !strcmp(name, "samples"))
		id = !strcmp(name, "sync") ? MTX_SRC_SYNC : MTX_SRC_SAMPLES;
	else if (src && !src->mandatory)
		id = src->id;
	else {
		*why = src ? "always on (threads and their states need it)"
			   : "not a source (syscalls, wakeups, interrupts, samples, sync)";
		return -1;
	}
	for (size_t i = 0; i < in->nr_windows; i++)
		if (in->windows[i].id == id && !in->windows[i].off_ns)
			open = &in->windows[i];
	if (!open == !on) {
		*why = on ? "on already" : "off already";
		return -1;
	}
	/* on from before the first event goes on, off from after the last
	 * goes off: no record of the source is stamped outside its windows */
	now = clock_now_ns();
	n = session_source_enable(in->s, id, on);
	/* sync through the library: a word of the region it reads at each call */
	if (n == 0 && id == MTX_SRC_SYNC && in->sync_pause && !in->sync_pause(in->sync_ctx, !on))
		n = 1;
	if (n <= 0) {
		*why = n < 0 ? in->s->error : "not recorded in this run (mtx collect -e)";
		return -1;
	}
	if (!on)
		now = clock_now_ns();
	if (on)
		open_window(in, id == MTX_SRC_SYNC ? "sync" : id == MTX_SRC_SAMPLES ? "samples" : src->name, id, now,
			    reason);
	else {
		/* the model ends what it keeps open of the source there */
		struct mtx_event off = { .type = MTX_EV_SOURCE_OFF, .cpu = -1, .ts_ns = now };
		off.u.source_off.source = (uint32_t)id;
		order_push(&in->s->order, in->cut_queue, &off);
		open->off_ns = now;
		open->off_reason = reason;
	}
	*at_ns = now;
	return 0;
}

static void source_switch(struct mtx_instrument *in, const char *how, const char *name, FILE *out)
{
	int on = !strcmp(how, "on");
	const char *why = NULL;
	uint64_t now;
	if (!on && strcmp(how, "off")) {
		reply_error(out, "source takes on or off, not '%s'", how);
		return;
	}
	if (instrument_source(in, name, on, "user", &now, &why)) {
		reply_error(out, "source %s: %s", name, why);
		return;
	}
	reply_begin(out, 1);
	fprintf(out, ", \"source\": ");
	report_json_string(out, name);
	fprintf(out, ", \"%s_ns\": %" PRIu64, on ? "on" : "off", now);
	reply_text(out, "source %s: %s at %.3f s", name, how, since_start(in, now));
	reply_end(out);
}

/* phase NAME: a phase called @name (spaces around it dropped) begins now. */
static void phase_mark(struct mtx_instrument *in, const char *name, FILE *out)
{
	const uint64_t now = clock_now_ns();
	size_t len;
	char *text;
	name += strspn(name, " \t");
	len = strcspn(name, "\n");
	while (len && (name[len - 1] == ' ' || name[len - 1] == '\t'))
		len--;
	if (!in->phase_mark || !(text = strndup(name, len))) {
		reply_error(out, "phases cannot be marked%s", in->phase_mark ? ": out of memory" : " in this run");
		return;
	}
	if (in->phase_mark(in->phase_ctx, now, text))
		reply_error(out, "phase '%s': out of memory", text);
	else {
		reply_begin(out, 1);
		reply_text(out, "phase '%s' begins at %.6f s", text, since_start(in, now));
		reply_end(out);
	}
	free(text);
}

void instrument_command(struct mtx_instrument *in, const char *line, FILE *out)
{
	char verb[16] = "", what[16] = "", arg[256] = "";
	int n = sscanf(line, "%15s %15s %255[^\n]", verb, what, arg);
	if (n >= 2 && !strcmp(verb, "probe") && !strcmp(what, "add") && n == 3)
		probe_add(in, arg, out);
	else if (n == 3 && !strcmp(verb, "probe") && !strcmp(what, "del"))
		probe_del(in, arg, out);
	else if (n == 2 && !strcmp(verb, "probe") && !strcmp(what, "list"))
		probe_list(in, out);
	else if (n == 3 && !strcmp(verb, "source"))
		source_switch(in, what, arg, out);
	else if (n >= 2 && !strcmp(verb, "phase"))
		phase_mark(in, line + strspn(line, " \t") + strlen(verb), out);
	else if (n == 1 && !strcmp(verb, "live") && in->live)
		in->live(in->live_ctx, out);
	else if (n == 1 && !strcmp(verb, "live"))
		reply_error(out, "this run keeps no totals");
	else
		reply_error(out, "unknown command '%s' (probe add REGEX, probe del N, probe list, source on|off NAME, "
			    "phase NAME, live)", line);
}

void instrument_functions(struct mtx_instrument *in, const char *pattern, struct function_uprobes *fu,
			  uint64_t cost_ns)
{
	in->functions = pattern;
	in->functions_fu = fu;
	in->functions_cost_ns = cost_ns;
	if (!in->cost_ns)
		in->cost_ns = cost_ns;
}

/* Calls a second of function @name in the run @db: its calls over the
 * time it was probed there (instrumentation_functions' windows), else
 * over the run's duration; -1 when the run does not know it. */
static double rate_in(sqlite3 *db, const char *name)
{
	static const char *const sql[] = {
		"SELECT COUNT(*) * 1e9 / (SELECT SUM(COALESCE(i.off_ns, (SELECT CAST(value AS INTEGER) FROM meta "
		"WHERE key = 'end_ns')) - i.on_ns) FROM instrumentation_functions x JOIN instrumentation i ON "
		"i.id = x.instrumentation_id WHERE x.name = ?1) FROM calls c JOIN functions f ON f.id = c.function_id "
		"WHERE f.name = ?1",
		"SELECT COUNT(*) * 1e9 / (SELECT CAST(value AS REAL) FROM meta WHERE key = 'duration_ns') FROM calls c "
		"JOIN functions f ON f.id = c.function_id WHERE f.name = ?1",
	};
	double rate = -1;
	for (size_t k = 0; k < 2 && rate < 0; k++) {
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(db, sql[k], -1, &st, NULL) != SQLITE_OK)
			continue; /* a run.db older than the instrumentation tables */
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
			rate = sqlite3_column_double(st, 0);
		sqlite3_finalize(st);
	}
	return rate;
}

/*
 * --rates-from: which of @fu's functions the budget leaves out before the
 * start (@refused[i]), by the cost their rates in that run predict, the
 * most expensive first, until the rest fits.
 */
static void refuse_predicted(struct mtx_instrument *in, const struct function_uprobes *fu, const char *rates_from,
			     bool *refused)
{
	size_t n = function_uprobes_count(fu);
	double *pct = calloc(n + 1, sizeof(*pct)), total = 0;
	sqlite3 *db = NULL;
	if (!pct || sqlite3_open_v2(rates_from, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		log_warn("--rates-from %s: cannot be read (%s): no cost predicted before the start", rates_from,
			 db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		free(pct);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const char *name, *path;
		double rate;
		function_uprobes_get(fu, i, &name, &path);
		rate = rate_in(db, name);
		pct[i] = rate > 0 ? rate * (double)in->cost_ns / 1e7 : 0; /* calls/s x ns, in % of 1e9 ns */
		total += pct[i];
	}
	while (total > in->budget_pct) {
		size_t worst = n;
		const char *name, *path;
		for (size_t i = 0; i < n; i++)
			if (!refused[i] && pct[i] > 0 && (worst == n || pct[i] > pct[worst]))
				worst = i;
		if (worst == n)
			break;
		refused[worst] = true;
		total -= pct[worst];
		function_uprobes_get(fu, worst, &name, &path);
		log_warn("not probed: %s, whose calls in %s would cost %.1f%% of a CPU, over the %.1f%% budget", name,
			 rates_from, pct[worst], in->budget_pct);
	}
	sqlite3_close(db);
	free(pct);
}

int instrument_start_functions(struct mtx_instrument *in, const char *pattern, const struct function_uprobes *fu,
			       uint64_t cost_ns, const char *rates_from, char **err)
{
	size_t n = function_uprobes_count(fu);
	bool *refused = calloc(n + 1, sizeof(*refused));
	int rc = 0;
	if (!refused)
		return -ENOMEM;
	if (!in->cost_ns)
		in->cost_ns = cost_ns;
	need_cost(in);
	if (rates_from && in->budget_pct > 0)
		refuse_predicted(in, fu, rates_from, refused);
	for (size_t i = 0; i < n && !rc; i++) {
		struct function_uprobes *one;
		const char *name, *path;
		function_uprobes_get(fu, i, &name, &path);
		if (refused[i]) { /* a window of nothing: it never went on */
			write_row(in, &(struct writer_instrumentation_row){
				.kind = "probe", .target = name, .reason = "start", .off_reason = "budget",
				.functions = 1, .on_ns = in->start_ns, .off_ns = in->start_ns, .cost_ns = in->cost_ns },
				fu, (long)i);
			continue;
		}
		one = function_uprobes_take(fu, i);
		if (!one || !add_set(in, one, name, "start", err)) {
			if (!*err)
				error_set(err, "--functions %s: out of memory", pattern);
			rc = -EINVAL;
		}
	}
	free(refused);
	return rc;
}

void instrument_catch_up(struct mtx_instrument *in, struct catch_up *cu, uint64_t t0)
{
	struct function_uprobes **sets = calloc(in->nr_probes + 1, sizeof(*sets));
	size_t n = 0;
	in->catch_up_stops++;
	if (!sets) {
		log_warn("the calls already running are not recorded: out of memory");
		return;
	}
	if (in->functions_fu)
		sets[n++] = in->functions_fu;
	for (size_t i = 0; i < in->nr_probes; i++)
		if (!in->probes[i].off_ns)
			sets[n++] = in->probes[i].fu;
	catch_up_calls(in, sets, n, cu, t0);
	free(sets);
}

void instrument_running(struct mtx_instrument *in, pid_t pid, uint64_t stopped_ns)
{
	in->running = pid;
	in->catch_up_stopped_ns += stopped_ns;
}

void instrument_sync_switch(struct mtx_instrument *in, int (*pause)(void *ctx, int paused), void *ctx)
{
	in->sync_pause = pause;
	in->sync_ctx = ctx;
}

void instrument_phases(struct mtx_instrument *in, int (*mark)(void *ctx, uint64_t ns, const char *name), void *ctx)
{
	in->phase_mark = mark;
	in->phase_ctx = ctx;
}

void instrument_live(struct mtx_instrument *in, void (*answer)(void *ctx, FILE *out), void *ctx)
{
	in->live = answer;
	in->live_ctx = ctx;
}

void instrument_budget(struct mtx_instrument *in, double pct)
{
	in->budget_pct = pct;
}


/* The share of one CPU probe @p's calls cost since the last check. */
static double recent_pct(const struct mtx_instrument *in, struct probe *p, uint64_t now)
{
	uint64_t hits = function_uprobes_set_calls(p->fu, in->s);
	uint64_t since = p->on_ns > in->last_tick_ns ? p->on_ns : in->last_tick_ns;
	double pct = cost_pct(in, hits - p->tick_hits, since, now);
	p->tick_hits = hits;
	return pct;
}

void instrument_tick(struct mtx_instrument *in, uint64_t now)
{
	double *pct, total = 0;
	if (in->budget_pct <= 0 || !in->cost_ns || now - in->last_tick_ns < BUDGET_INTERVAL_NS ||
	    !(pct = calloc(in->nr_probes + 1, sizeof(*pct))))
		return;
	for (size_t i = 0; i < in->nr_probes; i++)
		if (!in->probes[i].off_ns)
			total += (pct[i] = recent_pct(in, &in->probes[i], now));
	/* the most expensive off first, until the rest fits */
	while (total > in->budget_pct) {
		struct probe *p;
		size_t worst = in->nr_probes;
		for (size_t i = 0; i < in->nr_probes; i++)
			if (!in->probes[i].off_ns && (worst == in->nr_probes || pct[i] > pct[worst]))
				worst = i;
		if (worst == in->nr_probes)
			break;
		p = &in->probes[worst];
		probe_off(in, p, "budget");
		log_warn("probe %u (%s) off at %.3f s: it cost %.1f%% of a CPU, the probes %.1f%% in all, over the "
			 "%.1f%% budget", p->id, p->pattern, since_start(in, p->off_ns), pct[worst], total,
			 in->budget_pct);
		total -= pct[worst];
	}
	free(pct);
	in->last_tick_ns = now;
}

void instrument_finish(struct mtx_instrument *in, uint64_t end_ns)
{
	(void)end_ns;
	if (in->functions)
		write_row(in, &(struct writer_instrumentation_row){
			.kind = "probe", .target = in->functions, .reason = "start",
			.functions = (int64_t)function_uprobes_count(in->functions_fu), .on_ns = in->start_ns,
			.cost_ns = in->functions_cost_ns }, in->functions_fu, -1);
	for (size_t i = 0; i < in->nr_probes; i++) {
		struct probe *p = &in->probes[i];
		uint64_t off_ns = p->off_ns;
		if (!p->off_ns)
			probe_off(in, p, NULL);
		write_row(in, &(struct writer_instrumentation_row){
			.kind = "probe", .target = p->pattern, .reason = p->reason, .off_reason = p->off_reason,
			.probe_id = p->id, .functions = (int64_t)p->functions, .on_ns = p->on_ns,
			.off_ns = off_ns, .hits = p->hits, .cost_ns = in->cost_ns }, p->fu, -1);
	}
	for (size_t i = 0; i < in->nr_windows; i++) {
		const struct window *w = &in->windows[i];
		write_row(in, &(struct writer_instrumentation_row){
			.kind = "source", .target = w->name, .reason = w->reason, .off_reason = w->off_reason,
			.on_ns = w->on_ns, .off_ns = w->off_ns }, NULL, -1);
	}
	if (in->catch_up_stops) {
		writer_meta_int(in->w, "catch_up_stops", (int64_t)in->catch_up_stops);
		writer_meta_int(in->w, "catch_up_stopped_ns", (int64_t)in->catch_up_stopped_ns);
		writer_meta_int(in->w, "catch_up_calls", (int64_t)in->catch_up_calls);
	}
}

void instrument_free(struct mtx_instrument *in)
{
	if (!in)
		return;
	for (size_t i = 0; i < in->nr_probes; i++) {
		free(in->probes[i].pattern);
		function_uprobes_free(in->probes[i].fu);
	}
	free(in->probes);
	free(in->windows);
	free(in->prog);
	free(in);
}
