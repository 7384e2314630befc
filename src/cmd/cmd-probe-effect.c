/*
 * src/cmd/cmd-probe-effect.c - 'mtx probe-effect [FILE]': did recording
 * the run change its synchronization order? (seed 004). Reads the run
 * (src/probe/run.c), builds G^I from the observed order, simulates the run
 * without the overhead, builds G^S from the simulated order, compares
 * them (Theorem 1) and says so: exit 0 when equal, 3 when divergent.
 * Also 'mtx report FILE hb' (cmd_report_hb), which shows G^I alone.
 */
#include "config.h"
#include "src/cmd/cmd.h"
#include "src/cmd/probe-views.h"
#include "src/clock.h"
#include "src/db.h"
#include "src/log.h"
#include "src/probe/hb.h"
#include "src/probe/run.h"
#include "src/probe/simulate.h"
#include "src/probe/verdict.h"
#include "src/run-state.h"
#include "src/timefmt.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The exit status of a divergent verdict (0 equal, 1 error, 2 usage). */
#define EXIT_DIVERGENT 3
/* Events each side of e_d in the DOT graph. */
#define DOT_HALF 15
/* Inversions --inversions lists in text at most. */
#define INVERSIONS_SHOWN 1000

const char cmd_probe_effect_usage[] =
	"usage: mtx probe-effect [FILE] [--model smp|up-prio] [--format text|json|csv|dot]\n"
	"                        [--window T1-T2] [--inversions] [--simulate-only]\n"
	"\n"
	"Did recording change the run's synchronization order? Simulate the run in FILE\n"
	"(default run.db) without the instrumentation overhead measured in it, and compare\n"
	"the happened-before graph of the simulation (G^S) with the observed one (G^I), as\n"
	"Song and Lee do (their Theorem 1: G^S = G^I if and only if the uninstrumented run\n"
	"has the observed order). Exit status: 0 equal, 3 divergent, 1 error, 2 bad command\n"
	"line.\n"
	"\n"
	"  -m, --model M       smp (default: the run's CPUs, least CPU time first, an\n"
	"                      approximation of Linux's CFS) or up-prio (Song and Lee's: 1 CPU,\n"
	"                      priorities, FIFO among equals)\n"
	"  -f, --format FMT    text (default), json (one object), csv (the simulated\n"
	"                      timeline, one row per event) or dot (G^I and G^S around the\n"
	"                      first divergent event, differing edges in red)\n"
	"  -w, --window T1-T2  text and dot: only the events that happened between T1 and\n"
	"                      T2 since the run's start (0.020s-0.035s, 20ms-35ms), not\n"
	"                      those around the first divergent event\n"
	"  -i, --inversions    list the timestamp inversions that did not change the order\n"
	"  -s, --simulate-only print the simulated timeline only (exit 0)\n"
	"  -v, --verbose       say on stderr how long reading and each simulation took\n"
	"  -h, --help          this help\n";

/* The run at @path, read into memory (whether it is complete in
 * *@complete, when not NULL); on error one line said, and 1. */
static int open_run(const char *path, sqlite3 **db, struct probe_run **run, bool *complete)
{
	struct run_state rs;
	char *err = NULL, *line;
	int rc;
	if (db_open_readonly(path, db, &err) || run_state_open(*db, path, &rs, &err)) {
		log_error("%s", err ? err : "cannot open");
		free(err);
		return EXIT_FAILURE_MTX;
	}
	if ((rc = probe_run_load(*db, run, &err))) {
		if (rc == -EIO && db_error_is_corrupt(sqlite3_errcode(*db)))
			log_error("%s: the database is corrupt", path);
		else if (!rs.recorded)
			log_error("%s: nothing was recorded in this run", path);
		else
			log_error("%s: %s", path, err ? err : strerror(-rc));
		free(err);
		return EXIT_FAILURE_MTX;
	}
	if (complete)
		*complete = rs.complete;
	/* said once there is something to say it about */
	if ((line = run_state_line(&rs)))
		log_warn("%s: %s", path, line);
	free(line);
	return 0;
}

int cmd_report_hb(const char *path, const char *thread, const char *format)
{
	struct probe_run *run = NULL;
	struct probe_graph g = { 0 };
	sqlite3 *db = NULL;
	int32_t *actions = NULL, want = -1;
	int fmt = format ? probe_view_format_parse(format) : PV_TEXT;
	int status = EXIT_FAILURE_MTX;

	if (fmt < 0)
		return cmd_usage_error("report", "unknown format '%s' for hb (text, csv, json or dot)", format);
	if ((status = open_run(path, &db, &run, NULL)))
		goto out;
	status = EXIT_FAILURE_MTX;
	if (thread) {
		char *end;
		long long tid = strtoll(thread, &end, 10);
		for (int32_t t = 0; t < run->nr_threads && want < 0; t++)
			if ((*thread && !*end) ? run->threads[t].tid == tid : !strcmp(run->threads[t].name, thread))
				want = t;
		if (want < 0) {
			log_error("--thread %s: no thread of that name or tid", thread);
			status = EXIT_USAGE;
			goto out;
		}
	}
	if (hb_build_observed(run, &actions, &g)) {
		log_error("out of memory");
		goto out;
	}
	probe_view_hb(stdout, run, &g, want, (enum probe_view_format)fmt);
	status = fflush(stdout) == 0 ? 0 : EXIT_FAILURE_MTX;
out:
	hb_free(&g);
	free(actions);
	probe_run_free(run);
	sqlite3_close(db);
	return status;
}

/* The model check: the simulation with nothing removed, against G^I. */
struct baseline {
	bool run;       /* it was made (else it is the simulation itself) */
	bool equal;
	int32_t first;  /* where it departs from the observed order, or -1 */
	int32_t rank;   /* its place in that simulated order */
};

struct options {
	const char *path;
	enum probe_model model;
	enum probe_view_format format;
	bool inversions, simulate_only;
	const char *window_text;          /* --window as given, or NULL */
	int64_t window_from, window_to;   /* its times since the run's start */
};

/* What T_0 (seed 004 §3.2) holds in this run, as the model uses it. */
static void print_t0(FILE *out, const struct probe_run *run)
{
	char a[32];
	if (run->irqs_recorded)
		fprintf(out, "T_0: %d interrupt%s took %s from the threads,\n  given back to T_0 at %s observed time%s\n",
			run->nr_irqs, run->nr_irqs == 1 ? "" : "s",
			timefmt_duration((uint64_t)run->irq_ns, a, sizeof(a)), run->nr_irqs == 1 ? "its" : "their",
			run->nr_irqs == 1 ? "" : "s");
	else
		fprintf(out, "T_0: no interrupts recorded (mtx collect -e ...,interrupts): their time\n"
			     "  counts as the threads' own\n");
	if (run->t0_instants)
		fprintf(out, "  %d wait%s that another process or a device ended end%s at %s observed time%s\n",
			run->t0_instants, run->t0_instants == 1 ? "" : "s", run->t0_instants == 1 ? "s" : "",
			run->t0_instants == 1 ? "its" : "their", run->t0_instants == 1 ? "" : "s");
}

static void print_model(FILE *out, const struct probe_run *run, const struct probe_sim *sim)
{
	if (sim->model == PROBE_MODEL_UP_PRIO)
		fprintf(out, "Model: up-prio (Song and Lee's): 1 CPU, priorities (%s),\n"
			     "  preemptive, FIFO among equals",
			run->priorities_recorded ? "as recorded" : "none recorded: 0 for all");
	else
		fprintf(out, "Model: smp: %d CPU%s, least simulated CPU time first, 3 ms slices\n"
			     "  (an approximation of Linux's CFS, not CFS)",
			sim->nr_cpus, sim->nr_cpus == 1 ? "" : "s");
	if (run->sched_switch_ns)
		fprintf(out, ";\n  a context switch costs %.1f us (meta cal_sched_switch_ns)",
			(double)run->sched_switch_ns / 1e3);
	else
		fprintf(out, ";\n  no scheduler cost (none calibrated)");
	fprintf(out, "\nRun: %d threads, %d events\n", run->nr_threads, run->nr_events);
	print_t0(out, run);
}

static void print_overhead(FILE *out, const struct probe_run *run, const char *path)
{
	char a[32], b[32];
	if (!run->overhead_recorded) {
		fprintf(out, "Overhead removed: none: no op of this run.db has sync_ops.overhead_ns (recorded\n"
			     "  before mtx measured it), so the simulation removed nothing\n");
		return;
	}
	fprintf(out, "Overhead removed: %s of %s measured in the sync wrappers\n  (%.1f%% of the CPU time; "
		     "mtx report %s overhead)%s%s%s\n",
		timefmt_duration((uint64_t)run->overhead_removed_ns, a, sizeof(a)),
		timefmt_duration((uint64_t)run->overhead_ns, b, sizeof(b)),
		run->cpu_ns ? 100.0 * (double)run->overhead_removed_ns / (double)run->cpu_ns : 0.0, path,
		run->inject ? "\n  (--inject-overhead " : "", run->inject ? run->inject : "", run->inject ? " was in effect)" : "");
	if (run->kernel_ns)
		fprintf(out, "  and %s of %s the kernel's records cost (calibrated at the run's start)\n",
			timefmt_duration((uint64_t)run->kernel_removed_ns, a, sizeof(a)),
			timefmt_duration((uint64_t)run->kernel_ns, b, sizeof(b)));
}

static void print_edges(FILE *out, const struct probe_run *run, const struct probe_graph *g, int32_t e)
{
	char b[96];
	bool any = false;
	for (int32_t i = g->in_first[e]; i < g->in_first[e + 1]; i++) {
		fprintf(out, "%s%s (%s)", any ? ", " : "", probe_event_label(run, g->in_src[i], b, sizeof(b)),
			hb_edge_name(g->in_kind[i]));
		any = true;
	}
	fprintf(out, "%s", any ? "" : "nothing (no edge in)");
}

static void print_model_check(FILE *out, const struct probe_run *run, const struct baseline *b)
{
	char a[160];
	if (b->equal) {
		fprintf(out, "Model check: with nothing removed the simulation replays the observed order\n");
		return;
	}
	fprintf(out, "Model check: with nothing removed the simulation already departs from the\n"
		     "  observed order at #%d, %s:\n"
		     "  there the model (load from other programs, scheduling, wake-up order) differs\n"
		     "  from the run, not the overhead: a divergence from there on is no evidence of\n"
		     "  a probe effect\n",
		b->rank, probe_view_event(run, b->first, a, sizeof(a)));
}

static void print_text(FILE *out, const struct options *o, const struct probe_run *run, const struct probe_sim *sim,
		       const struct probe_graph *gi, const struct probe_graph *gs, const struct probe_verdict *v,
		       const struct baseline *b, const struct probe_time_window *w)
{
	char a[160];
	print_model(out, run, sim);
	print_overhead(out, run, o->path);
	if (b->run || !b->equal)
		print_model_check(out, run, b);
	if (!v->divergent) {
		fprintf(out, "Verdict: G^S = G^I: the observed happened-before order is the uninstrumented\n"
			     "  program's (Song and Lee's Theorem 1)\n");
	} else {
		const struct probe_event *d = &run->events[v->first];
		int32_t rank = v->cannot_execute ? v->nr_sim + 1 : v->sim_rank[v->first];
		fprintf(out, "Verdict: G^S != G^I from event #%d (simulated total order), at %.6f s\n", rank,
			probe_view_seconds(run, v->cannot_execute ? d->end_ns : sim->happen_ns[v->first]));
		fprintf(out, "  #%d %s\n", rank, probe_view_event(run, v->first, a, sizeof(a)));
		fprintf(out, "      instrumented: %s at %.6f s, after ", d->outcome == PO_OK ? "ok" : "failed",
			probe_view_seconds(run, d->end_ns));
		print_edges(out, run, gi, v->first);
		fprintf(out, "\n");
		if (v->cannot_execute) {
			fprintf(out, "      simulated:    it cannot execute: its thread waits forever there\n");
		} else {
			fprintf(out, "      simulated:    %s at %.6f s, after ", sim->outcome[v->first] == PO_OK ? "ok" : "failed",
				probe_view_seconds(run, sim->happen_ns[v->first]));
			print_edges(out, run, gs, v->first);
			fprintf(out, "\n");
		}
		if (v->trustworthy)
			fprintf(out, "  Events #1-#%d are trustworthy: simulated %.6f-%.6f s,\n"
				     "  observed %.6f-%.6f s. From #%d on the program may take\n"
				     "  another path: nothing after it is a prediction.\n",
				v->trustworthy, probe_view_seconds(run, v->trust_sim_from_ns),
				probe_view_seconds(run, v->trust_sim_to_ns), probe_view_seconds(run, v->trust_obs_from_ns),
				probe_view_seconds(run, v->trust_obs_to_ns), rank);
		else
			fprintf(out, "  No event before it: nothing of the simulation is a prediction.\n");
	}
	if (v->divergent || w) {
		fprintf(out, "\n");
		probe_view_window(out, run, sim, v, PROBE_WINDOW_HALF, w);
		fprintf(out, "\n");
	}
	fprintf(out, "Timestamp order changed without changing the partial order: %" PRId64
		     " pair%s%s\n",
		v->inversions, v->inversions == 1 ? "" : "s", o->inversions || !v->inversions ? "" : "; --inversions lists them");
}

static int print_inversions(FILE *out, const struct options *o, const struct probe_run *run,
			    const struct probe_verdict *v)
{
	int64_t max = o->format == PV_TEXT ? INVERSIONS_SHOWN : v->inversions, nr = 0;
	int32_t(*pairs)[2] = malloc(((size_t)max + 1) * sizeof(*pairs));
	char a[160], b[160];
	if (!pairs || probe_inversions(run, v, pairs, max, &nr) < 0) {
		free(pairs);
		return -ENOMEM;
	}
	if (o->format == PV_JSON) {
		fprintf(out, ", \"inversion_pairs\": [");
		for (int64_t i = 0; i < nr; i++) {
			fprintf(out, "%s[{\"tid\": %" PRId64 ", \"k\": %d}, {\"tid\": %" PRId64 ", \"k\": %d}]", i ? ", " : "",
				run->threads[run->events[pairs[i][0]].thread].tid, run->events[pairs[i][0]].k,
				run->threads[run->events[pairs[i][1]].thread].tid, run->events[pairs[i][1]].k);
		}
		fprintf(out, "]");
	} else {
		fprintf(out, "\nInversions: first in the instrumented run, first in the simulated one\n");
		for (int64_t i = 0; i < nr; i++)
			fprintf(out, "  %-38s %s\n", probe_view_event_short(run, pairs[i][0], a, sizeof(a)),
				probe_view_event_short(run, pairs[i][1], b, sizeof(b)));
		if (nr < v->inversions)
			fprintf(out, "  ... %" PRId64 " more (--format json lists all)\n", v->inversions - nr);
	}
	free(pairs);
	return 0;
}

static void print_json(FILE *out, const struct probe_run *run, const struct probe_sim *sim,
		       const struct probe_graph *gi, const struct probe_graph *gs, const struct probe_verdict *v,
		       const struct baseline *b, bool stored)
{
	fprintf(out, "{\"verdict\": \"%s\", \"model\": \"%s\", \"cpus\": %d, \"threads\": %d, \"events\": %d, "
		     "\"overhead_measured\": %s, \"overhead_ns\": %" PRId64 ", \"overhead_removed_ns\": %" PRId64
		     ", \"kernel_ns\": %" PRId64 ", \"kernel_removed_ns\": %" PRId64
		     ", \"inversions\": %" PRId64 ", \"stored\": %s",
		v->divergent ? "divergent" : "equal", probe_model_name(sim->model), sim->nr_cpus, run->nr_threads,
		run->nr_events, run->overhead_recorded ? "true" : "false", run->overhead_ns, run->overhead_removed_ns,
		run->kernel_ns, run->kernel_removed_ns, v->inversions, stored ? "true" : "false");
	fprintf(out, ", \"trustworthy\": {\"events\": %d, ", v->trustworthy);
	if (v->trustworthy)
		fprintf(out, "\"from_ns\": %" PRId64 ", \"to_ns\": %" PRId64 ", \"observed_from_ns\": %" PRId64
			     ", \"observed_to_ns\": %" PRId64 "}",
			v->trust_sim_from_ns, v->trust_sim_to_ns, v->trust_obs_from_ns, v->trust_obs_to_ns);
	else
		fprintf(out, "\"from_ns\": null, \"to_ns\": null, \"observed_from_ns\": null, \"observed_to_ns\": null}");
	fprintf(out, ", \"model_fits\": %s, \"model_departs_at\": ", b->equal ? "true" : "false");
	if (b->equal)
		fprintf(out, "null");
	else
		fprintf(out, "{\"tid\": %" PRId64 ", \"k\": %d, \"order_sim\": %d}",
			run->threads[run->events[b->first].thread].tid, run->events[b->first].k, b->rank);
	if (v->divergent) {
		const struct probe_event *d = &run->events[v->first];
		fprintf(out, ", \"first_divergent\": {\"tid\": %" PRId64 ", \"k\": %d, \"op\": \"%s\", \"kind\": \"%s\", "
			     "\"object_addr\": %" PRIu64 ", \"op_id\": %" PRId64 ", \"order_sim\": %d, \"observed_ns\": %" PRId64
			     ", \"simulated_ns\": ",
			run->threads[d->thread].tid, d->k, d->op, run->objects[d->object].kind, (uint64_t)run->objects[d->object].addr,
			d->op_id, v->cannot_execute ? v->nr_sim + 1 : v->sim_rank[v->first], d->end_ns);
		if (v->cannot_execute)
			fprintf(out, "null");
		else
			fprintf(out, "%" PRId64, sim->happen_ns[v->first]);
		fprintf(out, ", \"cannot_execute\": %s, \"outcome_observed\": \"%s\", \"outcome_simulated\": \"%s\", "
			     "\"trustworthy_events\": %d, \"edges_observed\": [",
			v->cannot_execute ? "true" : "false", d->outcome == PO_OK ? "ok" : "fail",
			v->cannot_execute ? "none" : sim->outcome[v->first] == PO_OK ? "ok" : "fail", v->trustworthy);
		for (int pass = 0; pass < 2; pass++) {
			const struct probe_graph *g = pass ? gs : gi;
			if (pass)
				fprintf(out, "], \"edges_simulated\": [");
			for (int32_t i = g->in_first[v->first]; i < g->in_first[v->first + 1]; i++) {
				fprintf(out, "%s{\"tid\": %" PRId64 ", \"k\": %d, \"kind\": \"%s\"}", i > g->in_first[v->first] ? ", " : "",
					probe_event_tid(run, g->in_src[i]), probe_event_k(run, g->in_src[i]),
					hb_edge_name(g->in_kind[i]));
			}
		}
		fprintf(out, "]}");
	}
}

/* Keep the results in the file when it can be written; a note otherwise. */
static bool store(const char *path, const struct probe_run *run, const struct probe_sim *sim,
		  const struct probe_graph *gi, const struct probe_graph *gs, const struct probe_verdict *v)
{
	sqlite3 *db = NULL;
	char *err = NULL;
	bool done = false;
	struct stat sb;
	/* no write bits: read-only even to root, as analysis_open reads it */
	if (access(path, W_OK) != 0 || stat(path, &sb) != 0 || !(sb.st_mode & 0222)) {
		log_info("%s is read-only: results not stored", path);
		return false;
	}
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) == SQLITE_OK &&
	    !sqlite3_db_readonly(db, "main")) {
		sqlite3_busy_timeout(db, 2000);
		done = probe_store(db, run, sim, gi, gs, v, &err) == 0;
	}
	if (!done)
		log_info("%s: results not stored: %s", path, err ? err : "the file cannot be written");
	free(err);
	sqlite3_close(db);
	return done;
}

/* Whether an event happened within @w in either run; if none did, one
 * line that says when they did. */
static bool window_holds_event(const struct options *o, const struct probe_run *run, const struct probe_sim *sim,
			       const struct probe_time_window *w)
{
	int64_t first = INT64_MAX, last = INT64_MIN;
	for (int32_t e = 0; e < run->nr_events; e++) {
		int64_t t[2] = { run->events[e].end_ns, sim->happen_ns[e] };
		for (int i = 0; i < 2; i++) {
			if (t[i] < 0)
				continue; /* it never happened in the simulation */
			if (t[i] >= w->from_ns && t[i] <= w->to_ns)
				return true;
			first = t[i] < first ? t[i] : first;
			last = t[i] > last ? t[i] : last;
		}
	}
	log_error("--window %s: no event happened in it; they did from %.6f s to %.6f s", o->window_text,
		  probe_view_seconds(run, first), probe_view_seconds(run, last));
	return false;
}

/* -v: how long a simulation took, and its rate. */
static void log_simulated(const char *which, const struct probe_run *run, const struct probe_sim *sim)
{
	double ms = (double)sim->elapsed_ns / 1e6;
	log_debug("%s: %d events simulated in %.1f ms (%.1f M events/s)", which, run->nr_events, ms,
		  ms > 0 ? run->nr_events / ms / 1e3 : 0.0);
}

static int probe_effect(const struct options *o)
{
	struct probe_run *run = NULL;
	struct probe_sim sim = { 0 };
	struct probe_graph gi = { 0 }, gs = { 0 };
	struct probe_verdict v = { 0 };
	sqlite3 *db = NULL;
	int32_t *obs = NULL;
	int status;
	bool stored = false, complete = false;
	struct baseline base = { 0 };
	struct probe_time_window window_ns, *window = NULL;

	uint64_t began = clock_now_ns();

	if ((status = open_run(o->path, &db, &run, &complete)))
		goto out;
	status = EXIT_FAILURE_MTX;
	sqlite3_close(db);
	db = NULL;
	log_debug("read %d events of %d threads in %.0f ms", run->nr_events, run->nr_threads,
		  (double)(clock_now_ns() - began) / 1e6);
	if (hb_build_observed(run, &obs, &gi))
		goto nomem;
	/* The model check first, on the run as observed; then without overhead. */
	if ((run->overhead_ns > 0 || run->kernel_ns > 0) && !o->simulate_only) {
		if (probe_verdict_simulate(run, o->model, obs, &gi, &sim, &gs, &v))
			goto nomem;
		log_simulated("the model check", run, &sim);
		base = (struct baseline){ true, !v.divergent, v.first,
					  v.first < 0 ? 0 : v.cannot_execute ? v.nr_sim + 1 : v.sim_rank[v.first] };
		probe_verdict_free(&v);
		hb_free(&gs);
		probe_sim_free(&sim);
	}
	probe_run_remove_overhead(run);
	if (probe_verdict_simulate(run, o->model, obs, &gi, &sim, &gs, &v))
		goto nomem;
	log_simulated("the simulation without the overhead", run, &sim);
	if (!base.run)
		base = (struct baseline){ false, !v.divergent, v.first,
					  v.first < 0 ? 0 : v.cannot_execute ? v.nr_sim + 1 : v.sim_rank[v.first] };
	if (o->simulate_only) {
		if (o->format == PV_TEXT)
			print_model(stdout, run, &sim);
		probe_view_timeline(stdout, run, &sim, &v, o->format == PV_DOT ? PV_TEXT : o->format);
		status = 0;
		goto flush;
	}
	if (o->window_text) {
		window_ns = (struct probe_time_window){ run->origin_ns + o->window_from, run->origin_ns + o->window_to };
		window = &window_ns;
		if (!window_holds_event(o, run, &sim, window)) {
			status = EXIT_USAGE;
			goto out;
		}
	}
	/* An incomplete run's file stays as its collector left it (one that
	 * still runs may be writing it). */
	if (complete)
		stored = store(o->path, run, &sim, &gi, &gs, &v);
	else
		log_info("%s: results not stored: the run is incomplete", o->path);
	switch (o->format) {
	case PV_TEXT:
		print_text(stdout, o, run, &sim, &gi, &gs, &v, &base, window);
		if (o->inversions && print_inversions(stdout, o, run, &v))
			goto nomem;
		break;
	case PV_JSON:
		print_json(stdout, run, &sim, &gi, &gs, &v, &base, stored);
		if (o->inversions && print_inversions(stdout, o, run, &v))
			goto nomem;
		printf("}\n");
		break;
	case PV_CSV: probe_view_timeline(stdout, run, &sim, &v, PV_CSV); break;
	case PV_DOT: probe_view_dot(stdout, run, &sim, &gi, &gs, &v, DOT_HALF, window); break;
	}
	status = v.divergent ? EXIT_DIVERGENT : 0;
flush:
	if (fflush(stdout) != 0) {
		log_error("cannot write the output");
		status = EXIT_FAILURE_MTX;
	}
	goto out;
nomem:
	log_error("out of memory");
	status = EXIT_FAILURE_MTX;
out:
	probe_verdict_free(&v);
	hb_free(&gi);
	hb_free(&gs);
	if (sim.enter_ns)
		probe_sim_free(&sim);
	free(obs);
	probe_run_free(run);
	sqlite3_close(db);
	return status;
}

int cmd_probe_effect(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "model", required_argument, NULL, 'm' }, { "format", required_argument, NULL, 'f' },
		{ "inversions", no_argument, NULL, 'i' },  { "simulate-only", no_argument, NULL, 's' },
		{ "window", required_argument, NULL, 'w' }, { "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct options o = { .path = "run.db" };
	int c, v;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":m:f:w:isvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if ((v = probe_model_parse(optarg)) < 0)
				return cmd_usage_error("probe-effect", "unknown model '%s' (smp or up-prio)", optarg);
			o.model = (enum probe_model)v;
			break;
		case 'f':
			if ((v = probe_view_format_parse(optarg)) < 0)
				return cmd_usage_error("probe-effect", "unknown format '%s' (text, json, csv or dot)", optarg);
			o.format = (enum probe_view_format)v;
			break;
		case 'w':
			/* one line, as mtx report says a bad --from */
			if ((v = timefmt_parse_range(optarg, &o.window_from, &o.window_to))) {
				log_error("--window '%s': %s", optarg,
					  v == -ERANGE ? "the window ends before it begins (T1-T2, T1 before T2)"
						       : "give two times since the run's start, T1-T2, like 0.020s-0.035s "
							 "or 20ms-35ms");
				return EXIT_USAGE;
			}
			o.window_text = optarg;
			break;
		case 'i': o.inversions = true; break;
		case 's': o.simulate_only = true; break;
		case 'v': log_set_level(LOG_VERBOSE); break;
		case 'h': fputs(cmd_probe_effect_usage, stdout); return 0;
		case ':': return cmd_usage_error("probe-effect", "option '%s' needs a value", argv[optind - 1]);
		default: return cmd_usage_error("probe-effect", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind > 1)
		return cmd_usage_error("probe-effect", "unexpected argument '%s'", argv[optind + 1]);
	if (argc - optind == 1)
		o.path = argv[optind];
	if (o.simulate_only && o.format == PV_DOT)
		return cmd_usage_error("probe-effect", "--simulate-only prints a timeline: text, csv or json");
	if (o.window_text && (o.simulate_only || (o.format != PV_TEXT && o.format != PV_DOT)))
		return cmd_usage_error("probe-effect", "--window limits the text and dot views only");
	return probe_effect(&o);
}
