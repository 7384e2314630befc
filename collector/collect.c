/*
 * collector/collect.c - see collect.h.
 *
 * The loop: poll the rings (the leaders wake us at a quarter full, or every
 * 100 ms), drain them into the ordering stage, and flush to the model every
 * event older than the drain's start minus a small margin: a record is in
 * its ring microseconds after it is stamped (perf writes with preemption
 * off), so nothing older can still arrive. Commits happen twice a second,
 * so a killed collector leaves all but the last half second.
 */
#include "config.h"
#include "collector/collect.h"
#include "collector/calibrate.h"
#include "collector/calibrate-sched.h"
#include "collector/interrupts.h"
#include "collector/thread-sched.h"
#include "collector/phases.h"
#include "collector/calls.h"
#include "collector/catch-up.h"
#include "collector/sync/collect-sync.h"
#include "collector/elf-symbols.h"
#include "collector/fd-kind.h"
#include "collector/function-uprobes.h"
#include "collector/control.h"
#include "collector/instrument.h"
#include "collector/live.h"
#include "collector/live-search.h"
#include "collector/model.h"
#include "collector/output.h"
#include "collector/preload/shm.h"
#include "collector/profile.h"
#include "collector/session.h"
#include "collector/target.h"
#include "collector/writer.h"
#include "schema/schema.h"
#include "src/clock.h"
#include "src/log.h"
#include "src/spill.h"
#include "src/error.h"
#include "src/progress.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FLUSH_MARGIN_NS 2000000ull    /* 2 ms: see the comment at the top */
#define POLL_MS 100

/* Where the ordered stream goes: sync uprobe hits to the sync side,
 * function entries and returns to the calls (which also see exits), every
 * other event to the thread model and to the profile (maps, samples). */
struct sinks {
	struct collect_sync *cs;
	struct mtx_calls *calls;
	struct mtx_model *model;
	struct mtx_profile *profile;
	struct mtx_thread_sched *sched; /* thread_sched: as each thread appears, and changes */
	struct mtx_phases *phases;
	uint64_t flushed_ns; /* every event before it has gone by */
};

static void emit(void *ctx, const struct mtx_event *ev)
{
	struct sinks *k = ctx;
	if (collect_sync_event(k->cs, ev) || calls_event(k->calls, ev))
		return;
	if (ev->type == MTX_EV_PHASE_SIGNAL) { /* sent to the run, or elsewhere */
		if (model_has_thread(k->model, ev->u.phase_signal.target) &&
		    phases_mark(k->phases, ev->ts_ns, NULL, 0, PHASE_SIGNAL, ev->u.phase_signal.target))
			log_warn("out of memory: a phase signal is not kept");
		return;
	}
	if (ev->type == MTX_EV_FORK || (ev->type == MTX_EV_COMM && ev->u.comm.exec))
		thread_sched_record(k->sched, ev->pid, ev->tid); /* a thread gone already has none */
	else if (ev->type == MTX_EV_SWITCH_OUT && ev->u.sw.prev_prio != INT32_MIN)
		thread_sched_switch(k->sched, ev->pid, ev->tid, ev->u.sw.prev_prio, ev->ts_ns);
	if (ev->type == MTX_EV_SWITCH_OUT && ev->u.sw.pcs) {
		/* The stack the thread left the CPU in, for its switches row. */
		struct mtx_event e = *ev;
		e.u.sw.stack_id = profile_intern(k->profile, ev->pid, ev->ts_ns, ev->u.sw.pcs, ev->u.sw.nr);
		free(ev->u.sw.pcs);
		e.u.sw.pcs = NULL;
		model_event(k->model, &e);
		profile_event(k->profile, &e);
		return;
	}
	model_event(k->model, ev);
	profile_event(k->profile, ev);
}

/*
 * One round's flush: take the call records the pump has ready, then emit
 * every event older than @round_ns less the margin, and no later than the
 * call records' watermark; then write a batch of sync records (*@sync_left:
 * how many more wait). Returns how many call records were taken.
 */
static uint64_t flush_round(struct mtx_session *s, struct collect_sync *cs, struct mtx_writer *w,
			    struct sinks *k, uint64_t round_ns, size_t *sync_left)
{
	uint64_t before = cs->call_events + cs->calls_lost;
	uint64_t upto = round_ns - FLUSH_MARGIN_NS, calls_upto = collect_sync_calls(cs);

	if (calls_upto < upto)
		upto = calls_upto;
	order_flush(&s->order, upto, emit, k);
	if (upto > k->flushed_ns)
		k->flushed_ns = upto;
	/* ops' stacks are named once the events before them went by */
	*sync_left = collect_sync_write(cs, w, upto);
	return cs->call_events + cs->calls_lost - before;
}

/*
 * The loop drains the rings ahead of the program: at real-time priority
 * when mtx may use it (root or CAP_SYS_NICE), from just before the
 * program starts until it has exited, SCHED_FIFO 1 (above every ordinary
 * thread) and one above the highest real-time priority a traced thread
 * has had so far. At normal priority a program whose threads are
 * real-time (stress-ng's mutex stressor runs SCHED_FIFO 1-85) starves
 * the loop for up to the kernel's real-time budget, a second at a time,
 * and its rings overflow: 2-5 M records lost in 3 s at 16 MiB a CPU, none
 * this way. The loop sleeps in poll between rounds, so the program loses
 * only the CPU time the drain takes, which it would have to share anyway;
 * staying as low as that allows spares other real-time programs on the
 * machine. Only this thread: those started before (the writer at
 * SCHED_IDLE, the sync pump) keep their class. Said in meta
 * (collector_policy, collector_priority: the highest it took).
 */
struct drain_class {
	bool rt;
	int priority, max; /* now, and the highest SCHED_FIFO has */
};

static void drain_set(struct drain_class *d, int priority)
{
	struct sched_param sp = { .sched_priority = priority };
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0) {
		d->rt = true;
		d->priority = priority;
	}
}

static void drain_first(struct drain_class *d)
{
	*d = (struct drain_class){ .max = sched_get_priority_max(SCHED_FIFO) };
	drain_set(d, 1);
}

/* Above the program's highest real-time priority, as far as there is
 * room: asked every round, so nothing but compares unless it must rise. */
static void drain_above(struct drain_class *d, int top)
{
	if (d->rt && top >= d->priority && d->priority < d->max)
		drain_set(d, top < d->max ? top + 1 : d->max);
}

static void drain_done(const struct drain_class *d, struct mtx_writer *w)
{
	struct sched_param sp = { .sched_priority = 0 };
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
	if (w) {
		writer_meta(w, "collector_policy", d->rt ? "SCHED_FIFO" : "SCHED_OTHER");
		if (d->rt)
			writer_meta_int(w, "collector_priority", d->priority);
	}
}

/* Who writes the file, where and since when, committed before anything
 * else: a reader tells from them that the run is still being recorded
 * (src/run-state.c). */
static void write_writer_meta(struct mtx_writer *w)
{
	struct utsname u;
	struct timespec rt;

	writer_meta(w, "complete", "0");
	writer_meta_int(w, "collector_pid", (int64_t)getpid());
	if (uname(&u) == 0) {
		char kernel[400];
		snprintf(kernel, sizeof(kernel), "%s %s %s", u.sysname, u.release, u.machine);
		writer_meta(w, "kernel", kernel);
		writer_meta(w, "hostname", u.nodename);
	}
	clock_gettime(CLOCK_REALTIME, &rt);
	writer_meta_int(w, "start_realtime_s", (int64_t)rt.tv_sec);
	writer_commit(w);
}

static void write_start_meta(struct mtx_writer *w, const struct collect_options *o, int nr_cpus)
{
	char events[256] = "";

	writer_meta(w, "command", o->command);
	writer_meta(w, "mtx_version", PACKAGE_VERSION);
	writer_meta_int(w, "schema_version", MTX_SCHEMA_VERSION);
	writer_meta(w, "clock", "CLOCK_MONOTONIC");
	writer_meta_int(w, "nr_cpus", nr_cpus);
	for (int i = 0; i < mtx_nr_sources; i++) {
		if (!(o->sources & (1u << i)))
			continue;
		if (events[0])
			strncat(events, ",", sizeof(events) - strlen(events) - 1);
		strncat(events, mtx_sources[i]->name, sizeof(events) - strlen(events) - 1);
	}
	if (o->sync)
		strncat(events, ",sync", sizeof(events) - strlen(events) - 1);
	if (o->sample_hz)
		strncat(events, ",samples", sizeof(events) - strlen(events) - 1);
	if (o->functions)
		strncat(events, ",functions", sizeof(events) - strlen(events) - 1);
	writer_meta(w, "events", events);
	if (o->functions) {
		writer_meta(w, "functions_pattern", o->functions);
		if (o->functions_in)
			writer_meta(w, "functions_in", o->functions_in);
	}
	if (o->sample_hz) {
		writer_meta_int(w, "sample_hz", o->sample_hz);
		writer_meta_int(w, "sample_period_ns", (int64_t)(1000000000ull / o->sample_hz));
		writer_meta(w, "call_graph", o->sample_stack_bytes ? "dwarf" : "fp");
		if (o->sample_stack_bytes)
			writer_meta_int(w, "sample_stack_bytes", o->sample_stack_bytes);
	}
}

static void write_end_meta(struct mtx_writer *w, struct mtx_session *s, struct mtx_model *m, int status,
			   int complete)
{
	char key[64];
	uint64_t total = 0;
	for (int i = 0; i < MTX_SRC__COUNT; i++) {
		snprintf(key, sizeof(key), "lost_%s", source_name((uint32_t)i));
		writer_meta_int(w, key, (int64_t)s->lost[i]);
	}
	for (int i = 0; i < MTX_EV__COUNT; i++) {
		snprintf(key, sizeof(key), "events_%s", event_type_name((uint32_t)i));
		writer_meta_int(w, key, (int64_t)s->decoded[i]);
		total += s->decoded[i];
	}
	writer_meta_int(w, "events_total", (int64_t)total);
	writer_meta_int(w, "undecodable_records", (int64_t)s->undecodable);
	writer_meta_int(w, "late_events", (int64_t)s->order.nr_late);
	writer_meta_int(w, "rows_spilled", (int64_t)writer_rows_spilled(w));
	writer_meta_int(w, "start_ns", (int64_t)model_first_ns(m));
	writer_meta_int(w, "end_ns", (int64_t)model_last_ns(m));
	writer_meta_int(w, "duration_ns", (int64_t)(model_last_ns(m) - model_first_ns(m)));
	if (status >= 0) /* attached: not known */
		writer_meta_int(w, "exit_status", status);
	writer_meta(w, "complete", complete ? "1" : "0");
}

/* Find and define the probes of --functions; none found is an error. */
static int is_libstdcxx(void *ctx, const char *path)
{
	const char *base = strrchr(path, '/');
	(void)ctx;
	return !strncmp(base ? base + 1 : path, "libstdc++", 9);
}

/* --functions: find and define the probes on the program at @path. */
static int prepare_functions(struct function_uprobes **fu, const struct collect_options *o, const char *path,
			     char **err)
{
	int rc = function_uprobes_find(fu, path, o->functions, o->functions_in, err);
	if (rc)
		return rc;
	if (function_uprobes_skipped(*fu))
		log_warn("not traced: %s (never called, only jumped to: a return probe would overwrite its stack)",
			 function_uprobes_skipped(*fu));
	if (!function_uprobes_count(*fu)) {
		error_set(err, "no function of %s matches '%s' (see mtx collect --list-functions)", path,
				o->functions);
		return -ENOENT;
	}
	rc = function_uprobes_define(*fu, err);
	if (!rc)
		log_info("tracing the calls of %zu function%s", function_uprobes_count(*fu),
			 plural_s(function_uprobes_count(*fu)));
	/* The kernel's return probe puts its own address where the return
	 * address was; the C++ unwinder cannot step past it. */
	if (!rc && elf_needed_each(path, is_libstdcxx, NULL) > 0)
		log_warn("%s is C++: an exception that leaves a traced function ends the program "
			 "(std::terminate); trace functions exceptions do not leave, or build with -pg",
			 path);
	return rc;
}

/* Context switches the kernel has counted for @pid's main thread so far
 * (voluntary + nonvoluntary), or -1. The kernel keeps these across exec but
 * the trace starts at exec, so a comparison of the two needs the count at
 * that point. Read as soon as the exec closed our close-on-exec pipe: that
 * is after sched_exec() (which may switch the task to migrate it) and
 * microseconds before perf_event_exec() enables the events. */
static int64_t switches_so_far(pid_t pid)
{
	char path[64], line[256];
	int64_t total = 0;
	int found = 0;
	FILE *f;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		long long n;
		if (sscanf(line, "voluntary_ctxt_switches: %lld", &n) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %lld", &n) == 1) {
			total += n;
			found++;
		}
	}
	fclose(f);
	return found == 2 ? total : -1;
}

static int decode_status(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 1;
}

/* Handle one signal from the signalfd while the program runs. Returns 1
 * when the child is gone. */
static int on_signal(int sfd, struct mtx_target *t, int *wstatus)
{
	struct signalfd_siginfo si;
	if (read(sfd, &si, sizeof(si)) != sizeof(si))
		return 0;
	if (si.ssi_signo == SIGCHLD)
		return waitpid(t->pid, wstatus, WNOHANG) == t->pid;
	target_forward(t, (int)si.ssi_signo, (pid_t)si.ssi_pid, si.ssi_code == SI_KERNEL);
	return 0;
}

/* Attached: handle one signal while the process runs. Returns 1 when it
 * asks mtx to detach (mtx's own children, the closer, are none of it). */
static int on_signal_attached(int sfd)
{
	struct signalfd_siginfo si;
	if (read(sfd, &si, sizeof(si)) != sizeof(si))
		return 0;
	return si.ssi_signo != SIGCHLD;
}

/* mtx ctl source on|off sync, with the library. */
static int pause_sync(void *ctx, int paused)
{
	return collect_sync_pause(ctx, paused);
}

/* The sources --consultant switches (bit 1 << enum mtx_source_id), off
 * until an experiment needs them: the syscalls, and the CPU samples
 * unless --sample asked for them. */
static unsigned consultant_switches(const struct collect_options *o)
{
	if (!o->consultant)
		return 0;
	return 1u << MTX_SRC_SYSCALLS | (o->sample_hz && !o->sample_hz_given ? 1u << MTX_SRC_SAMPLES : 0);
}

/* The sources the session opens: --consultant's syscalls too, off until
 * an experiment needs them. */
static unsigned session_sources(const struct collect_options *o)
{
	return o->sources | (o->consultant ? source_bit(MTX_SRC_SYSCALLS) : 0);
}

/* The run's instrumentation from @start_ns (collector/instrument.h), with
 * its sources, the switch of the library's sync records, the budget and
 * --functions: with --overhead-budget a probe set per function, for the
 * budget to take away one by one. Returns 0 or -errno with @err. */
static int start_instrument(struct mtx_instrument **out, struct mtx_session *s, struct mtx_writer *w,
			    const char *prog, const struct collect_options *o, struct collect_sync *cs,
			    struct function_uprobes *fu, uint64_t cost_ns, uint64_t start_ns, char **err)
{
	/* the consultant's syscalls are on only in its experiments' windows */
	struct mtx_instrument *instr = instrument_new(s, w, prog, o->consultant ? o->sources & ~source_bit(MTX_SRC_SYSCALLS) : o->sources,
						      cs->on, start_ns);
	if (!(*out = instr))
		return -ENOMEM;
	instrument_sync_switch(instr, pause_sync, cs);
	instrument_budget(instr, o->overhead_budget);
	if (!fu)
		return 0;
	if (!o->overhead_budget) {
		instrument_functions(instr, o->functions, fu, cost_ns);
		return 0;
	}
	return instrument_start_functions(instr, o->functions, fu, cost_ns, o->rates_from, err);
}

/* mtx ctl SOCK phase NAME. */
static int mark_phase(void *ctx, uint64_t ns, const char *name)
{
	return phases_mark(ctx, ns, name, strlen(name), PHASE_CTL, 0);
}

/* A command of mtx ctl, read from the --control socket. */
static void on_command(void *ctx, const char *line, FILE *reply)
{
	instrument_command(ctx, line, reply);
}

/* What 'live' answers: the run's totals as far as the stream is. */
struct live_answer {
	struct mtx_live *live;
	const struct sinks *sinks;
};

static void answer_live(void *ctx, FILE *out)
{
	const struct live_answer *a = ctx;
	live_reply(a->live, a->sinks->flushed_ns, out);
}

/* Scans of /proc/PID/task before mtx gives up on a process that starts
 * threads faster than they are found. */
#define ATTACH_SCANS 100

struct attach_maps {
	struct mtx_profile *profile;
	pid_t pid;
	uint64_t ns;
};

/* A mapping the process had at the attach, as if perf had reported it
 * (it reports those made while recording): code addresses get names. */
static int attach_map(void *ctx, uint64_t start, uint64_t end, uint64_t pgoff, const char *path)
{
	const struct attach_maps *a = ctx;
	struct mtx_event ev = { .type = MTX_EV_MMAP, .ts_ns = a->ns, .pid = a->pid, .tid = a->pid, .cpu = -1 };
	ev.u.mmap.start = start;
	ev.u.mmap.len = end - start;
	ev.u.mmap.pgoff = pgoff;
	if (!(ev.u.mmap.path = strdup(path)))
		return -ENOMEM;
	profile_event(a->profile, &ev); /* takes the path */
	return 0;
}

/*
 * Attached: give every thread of the process its events (scanning until
 * a scan finds none new), start its lifetime in the model, flagged, with
 * its scheduling class and the process's mappings, and start every event
 * at once. Returns the attach instant, or 0 with @err.
 */
static uint64_t attach_threads(struct mtx_session *s, const struct sinks *k, char **err)
{
	struct attach_maps maps = { k->profile, s->pid, 0 };
	int rc = 1, scans = 0;
	while (rc > 0 && scans++ < ATTACH_SCANS)
		rc = session_attach_scan(s);
	if (rc) {
		error_set(err, "%s", rc < 0 ? s->error : "the process starts threads faster than mtx finds them");
		return 0;
	}
	maps.ns = clock_now_ns();
	for (size_t i = 0; i < s->nr_tids; i++) {
		char name[16];
		int nr;
		char state = target_thread_state(s->pid, s->tids[i], name, sizeof(name), &nr);
		if (!state)
			continue;
		model_attached_thread(k->model, s->tids[i], s->pid, name, state, nr, maps.ns);
		thread_sched_record(k->sched, s->pid, s->tids[i]);
	}
	if (target_maps_each(s->pid, attach_map, &maps))
		log_warn("the code the process mapped before the attach could not be read: its addresses stay unnamed");
	rc = session_enable(s);
	if (rc) {
		error_set(err, "%s", s->error);
		return 0;
	}
	return maps.ns;
}

/* "SIGINT" for SIGINT (glibc's abbreviation, "signal N" without one). */
static const char *signal_name(int sig)
{
	static char buf[32];
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, sizeof(buf), "SIG%s", abbrev);
	else
		snprintf(buf, sizeof(buf), "signal %d", sig);
	return buf;
}

/* After the program's exit: the signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT)
 * that asked mtx to stop, read from @sfd without waiting, or 0. */
static int stop_asked(int sfd)
{
	struct pollfd p = { .fd = sfd, .events = POLLIN };
	struct signalfd_siginfo si;

	while (sfd >= 0 && poll(&p, 1, 0) == 1 && read(sfd, &si, sizeof(si)) == sizeof(si))
		if (si.ssi_signo != SIGCHLD)
			return (int)si.ssi_signo;
	return 0;
}

/* Say once that recording failed: the writer's own account if it has one
 * (a full disk: what was kept), else @why, then @more. */
static void record_failed(struct collect_result *r, struct mtx_writer *w, const char *why, const char *more)
{
	if (r->record_failed)
		return;
	r->record_failed = 1;
	log_error("%s%s", writer_error(w) ? writer_error(w) : why ? why : "recording failed", more);
}

/* Mark in meta that a step of the work after the program's exit is done,
 * when @rc says it is (mtx-db(5)): a reader of a run whose collector
 * stopped early tells from these keys what the file lacks. Returns @rc. */
static int mark_done(struct mtx_writer *w, const char *key, int rc)
{
	if (!rc)
		writer_meta_int(w, key, (int64_t)clock_now_ns());
	return rc;
}

/* With -v: where the time after the program's exit goes. */
static void log_since_exit(const char *what, uint64_t exit_ns)
{
	struct timespec cpu;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
	log_debug("%s %.0f ms after the program's exit (collector CPU so far: %.0f ms)", what,
		  (double)(clock_now_ns() - exit_ns) / 1e6, (double)cpu.tv_sec * 1e3 + (double)cpu.tv_nsec / 1e6);
}

static const char *const step_names[] = {
#define X(step, name) [step] = name,
	COLLECT_STEPS(X)
#undef X
};

void collect_step_begin(enum collect_step s)
{
	progress_step((int)s + 1, step_names[s]);
}

int collect_run(const struct collect_options *o, struct collect_result *r, char **err)
{
	struct mtx_session s;
	struct mtx_writer *w = NULL;
	struct mtx_model *m = NULL;
	struct mtx_thread_sched *sched = NULL;
	struct mtx_phases *phases = NULL;
	struct mtx_profile *prof = NULL;
	struct mtx_calls *calls = NULL;
	struct sinks sinks;
	struct mtx_target t = { .pid = -1, .go_fd = -1, .err_fd = -1 };
	struct collect_sync cs = { 0 };
	struct function_uprobes *fu = NULL;
	struct pollfd *pfds = NULL;
	struct drain_class drain = { 0 };
	struct mtx_output out = { 0 };
	struct mtx_control *ctl = NULL;
	struct mtx_instrument *instr = NULL;
	struct mtx_live *live = NULL;
	struct live_search *search = NULL;
	struct live_answer answer = { .sinks = &sinks };
	struct catch_up *cu = NULL; /* the attached process, stopped to catch up */
	char found[PATH_MAX], *sync_err = NULL;
	const char *prog = o->attach_pid ? found : o->argv[0];
	sigset_t mask, oldmask;
	int sfd = -1, rc, wstatus = 0, done = 0, stop = 0, pidfd = -1, nr_pfds;
	const char *stopped_before = NULL;
	uint64_t last_commit, exit_ns, calls_taken = 0, attach_ns = 0, start_ns, detach_at = UINT64_MAX;
	uint64_t uprobe_cost_ns = 0;
	size_t sync_left = 0;

	memset(r, 0, sizeof(*r));
	memset(&s, 0, sizeof(s));

	/* A program that is not there leaves the output as it was. The
	 * path found here is the one probed, checked and started. */
	if (o->attach_pid) {
		rc = target_attach(o->attach_pid, found, sizeof(found), &pidfd, err);
		if (rc)
			return rc;
	} else if ((rc = target_locate(o->argv[0], found, sizeof(found), err))) {
		r->program_failed = rc == -ENOENT ? 127 : 126;
		return rc;
	}
	rc = tracefs_ensure(err);
	if (rc)
		return rc;
	if (o->functions) {
		rc = prepare_functions(&fu, o, found, err);
		if (rc) {
			function_uprobes_free(fu);
			return rc;
		}
	}
	if (o->control && (rc = control_open(&ctl, o->control, err))) {
		function_uprobes_free(fu);
		return rc;
	}
	rc = output_prepare(&out, o->output, err);
	if (rc) {
		function_uprobes_free(fu);
		control_close(ctl);
		return rc;
	}
	rc = writer_open(&w, o->output, err);
	if (rc)
		goto fail_unstarted;
	write_writer_meta(w);
	/* the arrays that grow with the run go beside it past a few MB */
	spill_beside(o->output);
	if (writer_capture(w))
		log_debug("no memory to capture the run: the derived tables will read it back");

	/* Signals are read from a signalfd in the loop; the child unblocks them. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	sigprocmask(SIG_BLOCK, &mask, &oldmask);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);

	if (o->sync) {
		rc = collect_sync_prepare(&cs, prog, found, o->attach_pid, o->sync_stack_frames, &o->inject, err);
		if (!rc && o->user)
			rc = collect_sync_give_to(&cs, o->uid, o->gid, err);
		if (rc)
			goto fail_unstarted;
	}
	if (o->user) {
		t.user = o->user;
		t.uid = (uid_t)o->uid;
		t.gid = (gid_t)o->gid;
		output_give_to(&out, o->uid, o->gid);
	}
	/* before any event is open: the scheduler's cost without the records
	 * a run adds to it (cal_switches_ns, cal_wakeups_ns); ~10 ms */
	calibrate_sched_meta(w);
	if (!o->attach_pid && (rc = target_spawn(&t, found, o->argv, cs.env, err))) {
		r->program_failed = rc == -EACCES ? 126 : 127;
		goto fail_unstarted;
	}
	rc = session_open(&s, o->attach_pid ? o->attach_pid : t.pid, o->attach_pid != 0, session_sources(o),
			  consultant_switches(o), o->ring_pages,
			  o->sample_hz, o->sample_stack_bytes, o->phase_signal);
	if (rc) {
		error_set(err, "%s", s.error ? s.error : perf_open_error(rc));
		goto fail_unstarted;
	}
	write_start_meta(w, o, s.nr_cpus);
	/* before the program runs: the events of this thread are not its */
	calibrate_kernel_costs(w, session_sources(o), o->sample_hz, o->sample_stack_bytes);
	if (function_uprobes_calibration(fu)) {
		int cal_fds[2];
		uprobe_cost_ns = calibrate_uprobes(w, function_uprobes_calibration(fu), cal_fds);
		for (int i = 0; i < 2; i++)
			if (cal_fds[i] >= 0)
				session_keep_fd(&s, cal_fds[i]);
	}
	m = model_new(w);
	sched = thread_sched_new(w);
	prof = profile_new(w);
	calls = prof ? calls_new(w, profile_function_at_cb, prof) : NULL;
	sinks = (struct sinks){ .cs = &cs, .calls = calls, .model = m, .profile = prof, .sched = sched };
	cs.sched = sched;
	cs.phases = sinks.phases = phases = phases_new();
	if (!m || !sched || !phases || !prof || !calls) {
		rc = -ENOMEM;
		goto fail_unstarted;
	}
	model_set_detail(m, o->detail_rows);
	collect_sync_detail(&cs, model_detail(m));
	/* Stopped before any uprobe is armed in it, to catch up on the calls
	 * it is in: a call begun under an armed return probe has the kernel's
	 * trampoline for its return address, which ends the unwinding. */
	if (o->attach_pid && fu && function_uprobes_count(fu))
		cu = catch_up_stop(o->attach_pid);
	rc = collect_sync_open(&cs, &s, w, prof, err);
	if (rc)
		goto fail_unstarted;
	if (fu && !o->overhead_budget) { /* with a budget: a set per function (instrument) */
		rc = function_uprobes_open(fu, &s);
		if (rc) {
			error_set(err, "%s", s.error ? s.error : perf_open_error(rc));
			goto fail_unstarted;
		}
		writer_meta_int(w, "functions_probed", (int64_t)function_uprobes_count(fu));
	}
	writer_commit(w);
	/* SQLite only on CPUs the program leaves idle (without the thread,
	 * rows are written here as before). */
	if (writer_background(w)) {
		log_debug("rows are written on the collector's main thread");
		if (o->defer_writes)
			log_warn("--defer-writes: no writer thread, rows are written as the program runs");
	} else if (o->defer_writes) {
		writer_hold(w, true);
		writer_meta_int(w, "defer_writes", 1);
	}
	profile_unwind_dwarf(prof, o->sample_stack_bytes > 0);
	model_set_fd_resolver(m, fd_kind_resolve_proc, NULL);
	rc = collect_sync_start(&cs, err);
	if (rc)
		goto fail_unstarted;
	/* Before the exec, not at the program's first event: that may be
	 * emitted after interrupts that follow it, when its CPU's ring is read
	 * late. */
	drain_first(&drain);
	if (o->attach_pid && !(attach_ns = attach_threads(&s, &sinks, err))) {
		rc = -ESRCH;
		goto fail_unstarted;
	}
	/* the run starts at the attach, or as the program is let go */
	start_ns = o->attach_pid ? attach_ns : clock_now_ns();
	model_program_released(m, start_ns);
	if ((rc = start_instrument(&instr, &s, w, found, o, &cs, fu, uprobe_cost_ns, start_ns, err)))
		goto fail_unstarted;
	instrument_phases(instr, mark_phase, phases);
	if (ctl || o->consultant) {
		if (!(live = live_new(m, &cs, start_ns))) {
			rc = -ENOMEM;
			goto fail_unstarted;
		}
		collect_sync_live(&cs, live);
		answer.live = live;
		instrument_live(instr, answer_live, &answer);
	}
	if (o->consultant &&
	    !(search = live_search_new(m, prof, live, instr, &(struct live_search_options){
					       .tunables = o->tunables, .budget_pct = o->overhead_budget,
					       .search_ns = o->search_ns, .sample_hz = o->sample_hz,
					       .samples_switched = consultant_switches(o) & (1u << MTX_SRC_SAMPLES),
					       .nr_cpus = s.nr_cpus },
				       start_ns))) {
		rc = -ENOMEM;
		goto fail_unstarted;
	}
	if (search)
		live_more(live, live_search_reply, search);
	if (cu)
		instrument_catch_up(instr, cu, attach_ns);
	if (o->attach_pid) {
		instrument_running(instr, o->attach_pid, catch_up_resume(cu));
		cu = NULL;
		writer_meta_int(w, "attach_pid", o->attach_pid);
		writer_meta_int(w, "attach_ns", (int64_t)attach_ns);
		writer_meta_int(w, "attach_process_age_ns", target_process_age_ns(o->attach_pid));
		if (o->duration_ns)
			detach_at = attach_ns + o->duration_ns;
		/* Said even with -q: scripts wait for it (mtx-collect(1), ATTACHING). */
		fprintf(stderr, "mtx: attached to process %d (%s, %zu thread%s)%s\n", (int)o->attach_pid, found,
			s.nr_tids, plural_s(s.nr_tids), o->duration_ns ? "" : "; Ctrl-C detaches");
		goto started;
	}
	rc = target_start(&t, o->argv[0], err);
	if (!rc) {
		/* The read can come after the program's first traced switches;
		 * its time lets a reader tell which (see mtx-db(5)). */
		uint64_t from_ns = clock_now_ns();
		int64_t n = switches_so_far(t.pid);
		writer_meta_int(w, "root_switches_at_exec", n);
		writer_meta_int(w, "root_switches_read_from_ns", (int64_t)from_ns);
		writer_meta_int(w, "root_switches_read_to_ns", (int64_t)clock_now_ns());
	}
	if (rc) {
		r->program_failed = rc == -ENOENT ? 127 : 126;
		waitpid(t.pid, NULL, 0);
		t.pid = -1;
		goto fail_unstarted;
	}
	instrument_running(instr, t.pid, 0);
started:
	output_started(&out);

	/* the rings, the signals, (attached) the process's exit, mtx ctl's
	 * socket; a fd of -1 is not polled */
	nr_pfds = s.nr_cpus + 3;
	pfds = calloc((size_t)nr_pfds, sizeof(*pfds));
	for (int cpu = 0; cpu < s.nr_cpus; cpu++)
		pfds[cpu] = (struct pollfd){ .fd = s.rings[cpu].fd, .events = POLLIN };
	pfds[s.nr_cpus] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	pfds[s.nr_cpus + 1] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
	pfds[s.nr_cpus + 2] = (struct pollfd){ .fd = control_fd(ctl), .events = POLLIN };
	last_commit = clock_now_ns();
	while (!done) {
		uint64_t round_ns;
		/* a full batch of calls taken, or sync records left: the pump
		 * holds more, come back at once */
		bool more = calls_taken >= CALL_PUMP_TAKE_MAX || sync_left > 0;
		if (poll(pfds, (nfds_t)nr_pfds, more ? 0 : POLL_MS) < 0 && errno != EINTR)
			break;
		if (pfds[s.nr_cpus].revents & POLLIN)
			done = o->attach_pid ? on_signal_attached(sfd) : on_signal(sfd, &t, &wstatus);
		round_ns = clock_now_ns();
		if (pidfd >= 0 && (pfds[s.nr_cpus + 1].revents & POLLIN || round_ns >= detach_at))
			done = 1; /* the process exited, or --duration is over */
		if (pfds[s.nr_cpus + 2].revents & POLLIN)
			control_serve(ctl, on_command, instr);
		instrument_tick(instr, round_ns);
		session_drain(&s);
		calls_taken = flush_round(&s, &cs, w, &sinks, round_ns, &sync_left);
		live_search_tick(search, sinks.flushed_ns);
		drain_above(&drain, thread_sched_top_rt_priority(sched));
		if (round_ns - last_commit >= WRITER_COMMIT_EVERY_NS) {
			calls_flush(calls);
			writer_commit(w);
			last_commit = round_ns;
		}
		/* Said when it happens (the disk is full): nothing more can be
		 * stored, so the kernel need not record any more either. */
		if (!r->record_failed && writer_error(w)) {
			record_failed(r, w, NULL, "; the program runs on untraced");
			session_disable(&s);
		}
	}
	/* The program is gone: take what is left in the rings, in order. */
	exit_ns = clock_now_ns();
	drain_done(&drain, w);
	writer_hold(w, false);
	progress_begin(o->output, COLLECT_NR_STEPS);
	collect_step_begin(COLLECT_DRAIN);
	session_disable(&s);
	if (o->attach_pid) { /* no event of it is stamped after this */
		writer_meta_int(w, "detach_ns", (int64_t)(exit_ns = clock_now_ns()));
		model_detached(m, exit_ns);
	}
	session_drain(&s);
	session_count_lost(&s);
	control_close(ctl); /* no more commands: the run is over */
	ctl = NULL;
	/* what the search switched on goes off with it, before the windows
	 * are written */
	live_search_end(search, sinks.flushed_ns);
	if (live)
		live_more(live, NULL, NULL);
	r->consultant = live_search_take(search);
	live_search_free(search);
	search = NULL;
	collect_sync_live(&cs, NULL);
	live_free(live);
	live = NULL;
	if (instr) /* the probe sets still on go off here */
		instrument_finish(instr, exit_ns);
	/* The process runs on: leave it now, not after the work below. */
	if (o->attach_pid) {
		session_detach(&s);
		log_info("detached from process %d%s", (int)o->attach_pid,
			 cs.uprobes || fu ? "; the kernel removes each uprobe in ~80 ms, mtx exits when all are gone"
					  : "");
	}
	/* The call records the pump still holds, in bounded batches while it
	 * has them ready (collect_sync_stop hands over the rest at once). */
	while (flush_round(&s, &cs, w, &sinks, clock_now_ns(), &sync_left) > 0)
		;
	collect_sync_stop(&cs);
	order_flush(&s.order, UINT64_MAX, emit, &sinks);
	r->status = o->attach_pid ? 0 : decode_status(wstatus);
	mark_done(w, "threads_ended_ns", model_finish(m, o->attach_pid ? exit_ns : clock_now_ns(),
						       o->attach_pid ? o->attach_pid : t.pid, o->attach_pid ? -1 : r->status));
	if (mark_done(w, "calls_closed_ns", calls_finish(calls, model_last_ns(m))))
		record_failed(r, w, NULL, "");
	/* Every recorded row is handed over. From here on each step starts
	 * from what the one before committed: a collector killed now keeps
	 * what it recorded (the sync tables' step commits it all first). */
	writer_commit(w);
	log_since_exit("rings drained", exit_ns);
	if ((stop = stop_asked(sfd)))
		stopped_before = step_names[COLLECT_SYNC];
	collect_step_begin(COLLECT_SYNC);
	rc = collect_sync_finish(&cs, w, !stop, &sync_err);
	if (rc)
		record_failed(r, w, sync_err, "");
	else if (!stop)
		mark_done(w, "sync_resolved_ns", rc);
	free(sync_err);
	/* After the sync tables: the library's last marks are in. */
	if (phases_write(phases, w, model_first_ns(m), model_last_ns(m)))
		record_failed(r, w, NULL, "");
	writer_commit(w);
	log_since_exit("sync tables finished", exit_ns);
	if (!stop && (stop = stop_asked(sfd)))
		stopped_before = step_names[COLLECT_NAMES];
	if (!stop) {
		collect_step_begin(COLLECT_NAMES);
		/* After the sync tables: their call sites get named too. */
		size_t nr_sites = 0;
		const struct sync_callsite *sites = cs.objects ? sync_objects_callsites(cs.objects, &nr_sites) : NULL;
		if (mark_done(w, "names_written_ns", profile_finish(prof, sites, nr_sites)))
			record_failed(r, w, NULL, "");
		if (interrupts_name_timers(writer_db(w)))
			log_warn("the timers' names could not be written: they keep their addresses");
		log_since_exit("functions named", exit_ns);
	}
	if (!stop && (stop = stop_asked(sfd)))
		stopped_before = step_names[COLLECT_INDEXES];
	s.lost[MTX_SRC_SYNC] += cs.lost; /* the rings' own: uprobe hits */
	s.decoded[MTX_EV_SYNC] = cs.records;
	s.decoded[MTX_EV_CALL] += cs.call_events;
	s.lost[MTX_SRC_CALLS] += cs.calls_lost;
	/* Returns the kernel never reported are lost hits of the functions'
	 * probes, though no buffer was full: warned about apart. */
	s.lost[MTX_SRC_FUNCTIONS] += calls_lost_returns(calls);
	write_end_meta(w, &s, m, o->attach_pid ? -1 : r->status, !stop);
	if (stop) {
		/* Kept as recorded; readers say what it lacks (mtx-db(5)). */
		writer_meta(w, "stopped_after_exit", stopped_before);
		log_warn("%s after the program's exit: %s kept without %s and what follows", signal_name(stop),
			 o->output, stopped_before);
		r->stopped = 1;
	}
	{
		uint64_t lost = 0;
		for (int i = 0; i < MTX_SRC__COUNT; i++)
			lost += s.lost[i];
		lost -= s.lost[MTX_SRC_SYNC] + s.lost[MTX_SRC_CALLS] + calls_lost_returns(calls);
		if (calls_lost_returns(calls))
			log_warn("%llu call%s nested deeper than %d traced calls %s never seen returning: the "
				 "kernel keeps at most %d return probes per thread; they are counted in "
				 "lost_functions and marked unfinished = 'return_probe_depth' (see FUNCTION CALLS "
				 "in mtx-collect(1))",
				 (unsigned long long)calls_lost_returns(calls), plural_s(calls_lost_returns(calls)),
				 CALLS_URETPROBE_DEPTH, calls_lost_returns(calls) == 1 ? "was" : "were",
				 CALLS_URETPROBE_DEPTH);
		if (lost)
			log_warn("%llu kernel record%s lost (see 'mtx info %s'); a larger --buffer-size helps",
				 (unsigned long long)lost, lost == 1 ? " was" : "s were", o->output);
		if (cs.lost_nolane)
			log_warn("%llu sync record%s lost (see 'mtx info %s'): more than %u threads were "
				 "alive at once, and the others found no lane to write in",
				 (unsigned long long)cs.lost_nolane, cs.lost_nolane == 1 ? " was" : "s were", o->output,
				 MTX_SHM_DEFAULT_LANES);
		if (s.lost[MTX_SRC_SYNC] > cs.lost_nolane)
			log_warn("%llu sync record%s lost (see 'mtx info %s'): the collector could not keep up",
				 (unsigned long long)(s.lost[MTX_SRC_SYNC] - cs.lost_nolane),
				 s.lost[MTX_SRC_SYNC] - cs.lost_nolane == 1 ? " was" : "s were", o->output);
		/* Over 1% of the run: enough to change what the program did. */
		if (cs.waited_ns > (model_last_ns(m) - model_first_ns(m)) / 100)
			log_warn("the program's threads waited %.0f ms in all for mtx to take their records: "
				 "waits and lock holds that span them include them (see collector_waits in mtx-db(5))",
				 (double)cs.waited_ns / 1e6);
		if (s.lost[MTX_SRC_CALLS])
			log_warn("%llu function entry/exit record%s lost (see 'mtx info %s')",
				 (unsigned long long)s.lost[MTX_SRC_CALLS], s.lost[MTX_SRC_CALLS] == 1 ? " was" : "s were",
				 o->output);
		if (!r->record_failed)
			log_info("recorded %llu thread%s, %llu row%s into %s", (unsigned long long)model_nr_threads(m),
				 plural_s(model_nr_threads(m)), (unsigned long long)writer_rows(w),
				 plural_s(writer_rows(w)), o->output);
	}
	r->capture = r->record_failed || stop ? NULL : writer_take_capture(w);
	if (writer_error(w))
		record_failed(r, w, NULL, "");
	if (!stop)
		collect_step_begin(COLLECT_INDEXES);
	rc = writer_close(w, !stop);
	w = NULL;
	log_since_exit("indexes built, file closed", exit_ns);
	if (rc && !r->record_failed) {
		log_error("writing %s: %s; it keeps what was committed before", o->output,
			  rc == -ENOSPC ? "the disk is full" : strerror(-rc));
		r->record_failed = 1;
	}
	model_free(m);
	thread_sched_free(sched);
	phases_free(phases);
	calls_free(calls);
	profile_free(prof);
	session_close(&s);
	collect_sync_free(&cs);
	function_uprobes_free(fu);
	instrument_free(instr);
	output_free(&out);
	free(pfds);
	if (pidfd >= 0)
		close(pidfd);
	/* One that came while the file was closed only skips what is left. */
	if (!stop && (stop = stop_asked(sfd))) {
		log_warn("%s after the program's exit: the derived tables are left for the first report to build",
			 signal_name(stop));
		r->stopped = 1;
	}
	close(sfd);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	return 0;

fail_unstarted:
	catch_up_resume(cu);
	drain_done(&drain, NULL);
	target_kill(&t);
	model_free(m);
	thread_sched_free(sched);
	phases_free(phases);
	calls_free(calls);
	profile_free(prof);
	session_close(&s); /* before collect_sync_free: it may remove probes */
	collect_sync_free(&cs);
	function_uprobes_free(fu);
	live_search_free(search);
	instrument_free(instr);
	live_free(live);
	control_close(ctl);
	writer_close(w, 0);
	/* Nothing was recorded: leave no empty database behind, and put the
	 * previous ones back where they were. */
	output_abandon(&out);
	output_free(&out);
	if (pidfd >= 0)
		close(pidfd);
	if (sfd >= 0)
		close(sfd);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	return rc;
}
