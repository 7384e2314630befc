/* collector/sync/collect-sync.c - see collect-sync.h. */
#include "config.h"
#include "collector/sync/collect-sync.h"
#include "collector/sync/inject.h"
#include "collector/profile.h"
#include "collector/sync/region.h"
#include "collector/sync/objects.h"
#include "collector/sync/summary.h"
#include "src/derived/timeline.h"
#include "collector/session.h"
#include "collector/sync/resolve.h"
#include "collector/sync/uprobes.h"
#include "collector/target.h"
#include "collector/thread-sched.h"
#include "collector/phases.h"
#include "schema/schema.h"
#include "src/clock.h"
#include "src/db.h"
#include "src/log.h"
#include "src/progress.h"
#include "src/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the kernel keeps perf events across a set-ID exec: it detaches
 * them (perf_event_exit_task in begin_new_exec) when the new image is not
 * dumpable, which fs.suid_dumpable = 0 makes it. */
static int suid_dumpable(void)
{
	FILE *f = fopen("/proc/sys/fs/suid_dumpable", "re");
	int v = 0;
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v != 0;
}

/* Fall back to uprobes for @prog (at @path), which the library cannot
 * enter because it @blocker; one line says so and what happens instead. */
static int prepare_uprobes(struct collect_sync *cs, const char *prog, const char *path, pid_t pid,
			   const char *blocker)
{
	char *why = NULL;
	int rc = -ENOEXEC;

	/* The fetch arguments name x86-64 registers. */
	if (strcmp(blocker, "is a 32-bit program") != 0)
		rc = sync_uprobes_new(&cs->uprobes, path, pid, &why);
	if (!rc && cs->uprobes) {
		cs->objects = sync_objects_new();
		if (!cs->objects)
			return -ENOMEM;
		cs->method = "uprobes";
		cs->on = 1;
		if (pid > 0) /* expected: no warning */
			log_info("sync operations through uprobes on the %zu pthread functions the process imports",
				 sync_uprobes_functions(cs->uprobes));
		else
			log_warn("%s %s: libmtx-preload.so cannot enter it, so mtx traces its synchronization "
			 "operations with uprobes on its %zu pthread functions%s", prog, blocker,
			 sync_uprobes_functions(cs->uprobes),
			 strstr(blocker, "set-") && !suid_dumpable() ?
			 " (but the kernel detaches all perf events at a set-ID exec unless "
			 "'sysctl fs.suid_dumpable=1')" : "");
	} else if (!rc && pid > 0) {
		log_info("no sync operations: the process imports no pthread function");
	} else if (!rc) {
		log_warn("%s %s: libmtx-preload.so cannot enter it, and it has no pthread functions "
			 "for uprobes, so no synchronization operations are recorded", prog, blocker);
	} else {
		log_warn("%s %s: libmtx-preload.so cannot enter it, and uprobes failed (%s), so its "
			 "synchronization operations are not recorded", prog, blocker,
			 why ? why : strerror(-rc));
	}
	free(why);
	return 0;
}

int collect_sync_prepare(struct collect_sync *cs, const char *prog, const char *path, pid_t attach_pid,
			 uint32_t stack_frames, const struct sync_inject *inject, char **err)
{
	char lib[PATH_MAX];
	const char *blocker;
	int rc;

	memset(cs, 0, sizeof(*cs));
	cs->method = "none";
	/* A running process loaded what it loads: no library can be added. */
	if ((blocker = attach_pid ? "was started without mtx" : inject_blocker(path))) {
		if (inject->delay_ns) {
			error_set(err, "--inject-overhead needs libmtx-preload.so, which cannot enter %s (%s)",
				  prog, blocker);
			return -ENOTSUP;
		}
		if (stack_frames)
			log_warn("--sync-stacks needs libmtx-preload.so: the operations of %s are "
				 "recorded without their stacks", prog);
		return prepare_uprobes(cs, prog, path, attach_pid, blocker);
	}
	if (inject_find_library(lib, sizeof(lib))) {
		error_set(err, "cannot find libmtx-preload.so (looked for %s); "
				"set MTX_PRELOAD_LIB, or leave sync out of --events", lib);
		return -ENOENT;
	}
	if (inject_ld_preload(lib, cs->ld_preload, sizeof(cs->ld_preload))) {
		error_set(err, "LD_PRELOAD is too long to add libmtx-preload.so to it");
		return -ENAMETOOLONG;
	}
	rc = sync_region_create(&cs->region);
	if (rc) {
		error_set(err, "cannot create the shared memory for sync records in /dev/shm: %s",
				strerror(-rc));
		return rc;
	}
	/* Lanes are claimed only by threads that reach a hook, so a program
	 * built without -pg / -finstrument-functions costs an empty region. */
	rc = call_region_create(&cs->calls);
	if (rc) {
		error_set(err, "cannot create the shared memory for call records in /dev/shm: %s",
				strerror(-rc));
		return rc;
	}
	cs->objects = sync_objects_new();
	if (!cs->objects)
		return -ENOMEM;
	cs->env[0] = cs->ld_preload;
	cs->env[1] = (char *)sync_region_env(cs->region);
	cs->env[2] = (char *)sync_region_env(cs->calls);
	cs->stack_frames = stack_frames > MTX_SYNC_STACK_MAX ? MTX_SYNC_STACK_MAX : stack_frames;
	sync_region_set_stack_frames(cs->region, cs->stack_frames);
	if (inject->delay_ns) {
		rc = sync_region_set_inject(cs->region, inject);
		if (rc) {
			error_set(err, "cannot measure the TSC's rate for --inject-overhead: %s", strerror(-rc));
			return rc;
		}
		cs->inject_text = inject->text;
	}
	cs->method = "preload";
	cs->on = 1;
	cs->prepared_ns = clock_now_ns();
	return 0;
}

/* Each thread's waits for the collector, as the library measured them:
 * rows of collector_waits, and their sum. The region is the program's to
 * scribble on: no wait counts for longer than the collection has lasted. */
static void write_waits(struct collect_sync *cs, struct mtx_writer *w, struct sync_region *r)
{
	size_t n;
	const struct sync_stall *st = sync_region_stalls(r, &n);
	uint64_t most = clock_now_ns() - cs->prepared_ns;

	for (size_t i = 0; i < n; i++) {
		uint64_t ns = st[i].wait_ns < most ? st[i].wait_ns : most;

		writer_collector_wait(w, st[i].tid, st[i].pid, ns, st[i].waits);
		cs->waited_ns += ns;
	}
}

int collect_sync_give_to(struct collect_sync *cs, unsigned uid, unsigned gid, char **err)
{
	int rc = cs->region ? sync_region_give_to(cs->region, uid, gid) : 0;

	if (!rc && cs->calls)
		rc = sync_region_give_to(cs->calls, uid, gid);
	if (rc)
		error_set(err, "cannot give the shared memory in /dev/shm to uid %u: %s", uid,
				strerror(-rc));
	return rc;
}

static void write_record(void *ctx, const struct mtx_sync_record *r)
{
	struct collect_sync *cs = ctx;
	/* the writer's error is sticky and reported by the caller */
	sync_objects_record(cs->objects, cs->w, r, 0, false);
	cs->records++;
}

int collect_sync_open(struct collect_sync *cs, struct mtx_session *s, struct mtx_writer *w,
		      struct mtx_profile *prof, char **err)
{
	int rc;
	if (!cs->method)
		return 0; /* sync not asked for */
	writer_meta(w, "sync_method", cs->method);
	writer_meta_int(w, "sync_stack_frames", cs->stack_frames);
	/* sync_ops.overhead_ns and injected_ns are filled (the library's) */
	if (cs->region)
		writer_meta(w, "overhead_measured", "1");
	if (cs->inject_text)
		writer_meta(w, "inject_overhead", cs->inject_text);
	cs->profile = prof;
	if (cs->calls) {
		cs->order = &s->order;
		cs->calls_queue = order_add_queue(&s->order);
		if (cs->calls_queue < 0)
			return cs->calls_queue;
	}
	if (!cs->uprobes)
		return 0;
	cs->w = w;
	rc = sync_uprobes_open(cs->uprobes, s);
	if (rc)
		error_set(err, "%s", s->error ? s->error : strerror(-rc));
	return rc;
}

int collect_sync_pause(struct collect_sync *cs, int paused)
{
	if (!cs->region)
		return -ENOTSUP;
	sync_region_set_paused(cs->region, paused);
	return 0;
}

int collect_sync_event(struct collect_sync *cs, const struct mtx_event *ev)
{
	return cs->uprobes ? sync_uprobes_event(cs->uprobes, ev, write_record, cs) : 0;
}

void collect_sync_detail(struct collect_sync *cs, struct mtx_detail *d)
{
	if (cs->objects)
		sync_objects_detail(cs->objects, d);
}

size_t collect_sync_open_ops(struct collect_sync *cs, sync_emit_fn fn, void *ctx)
{
	return cs->region ? sync_region_open_ops(cs->region, fn, ctx) : 0;
}

int64_t collect_sync_object(const struct collect_sync *cs, const struct mtx_sync_record *r)
{
	return cs->objects ? sync_objects_find(cs->objects, r->pid, r->kind, r->addr) : 0;
}

void collect_sync_live(struct collect_sync *cs, struct mtx_live *l)
{
	if (cs->objects)
		sync_objects_live(cs->objects, l);
}

int collect_sync_start(struct collect_sync *cs, char **err)
{
	int rc;
	if (!cs->region)
		return 0;
	rc = sync_pump_start(&cs->pump, cs->region, cs->calls);
	if (rc)
		error_set(err, "cannot start the sync drain thread: %s", strerror(-rc));
	return rc;
}

/* Keep the return addresses of a frames record (shm.h, FRAMES RECORDS)
 * for the op record that follows it. */
static void take_frames(struct collect_sync *cs, const struct mtx_sync_record *r)
{
	const struct mtx_sync_frames *f = (const struct mtx_sync_frames *)r;
	if (f->index == 0)
		cs->nr_pcs = 0; /* leftovers of an op the drain rejected */
	for (unsigned i = 0; i < f->nr && cs->nr_pcs < MTX_SYNC_STACK_MAX; i++)
		cs->pcs[cs->nr_pcs++] = f->pcs[i];
}

/* Push the taken call entries into the ordering stage. */
static void push_calls(struct collect_sync *cs)
{
	struct mtx_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = MTX_EV_CALL;
	ev.cpu = -1;
	for (size_t i = 0; i < cs->call_batch.len; i++) {
		const struct call_entry *e = &cs->call_batch.ev[i];

		ev.ts_ns = e->ts_ns;
		ev.pid = e->pid;
		ev.tid = e->tid;
		ev.u.call.fn = e->fn;
		ev.u.call.at_return = e->at_return;
		if (order_push(cs->order, cs->calls_queue, &ev))
			cs->calls_lost++;
		else
			cs->call_events++;
	}
	cs->call_batch.len = 0;
}

uint64_t collect_sync_calls(struct collect_sync *cs)
{
	if (!cs->pump || !cs->calls)
		return UINT64_MAX;
	sync_pump_take_calls(cs->pump, &cs->call_batch);
	push_calls(cs);
	return cs->call_batch.upto_ns;
}

/* Put the records in cs->held after those in cs->batch; cs->held is then
 * empty. Into an empty batch they move whole: a copy would hold them twice
 * (at the end of a run, up to the pump's bound and what the lanes had). */
static void take_held(struct collect_sync *cs)
{
	if (!cs->batch.len) {
		struct sync_batch t = cs->batch;
		cs->batch = cs->held;
		cs->held = t;
	} else if (cs->held.len && sync_batch_append(&cs->batch, cs->held.recs, cs->held.len)) {
		cs->lost += cs->held.len;
	}
	cs->held.len = 0;
}

void collect_sync_stop(struct collect_sync *cs)
{
	uint64_t dropped = 0;

	if (!cs->pump)
		return;
	/* cs->batch may hold ops waiting for their stacks: what the pump
	 * still has comes after them */
	cs->held.len = 0;
	cs->lost += sync_pump_stop(cs->pump, &cs->held, cs->calls ? &cs->call_batch : NULL, &dropped);
	cs->pump = NULL;
	take_held(cs);
	cs->calls_lost += dropped;
	if (cs->calls) {
		push_calls(cs);
		cs->calls_lost += sync_region_lost(cs->calls);
	}
}

/* The stack id of op @r from the frames taken before it; 0 without any. */
static uint32_t op_stack(struct collect_sync *cs, const struct mtx_sync_record *r)
{
	uint32_t space, id;
	if (!cs->nr_pcs || !cs->profile)
		return 0;
	space = profile_space(cs->profile, r->pid, r->start_ns);
	/* All frames are return addresses, the innermost too (the call
	 * site): minus 1 names the call instruction, as for callsites. The
	 * trie subtracts it from all but the first. */
	cs->pcs[0]--;
	id = space ? stacks_intern_chain(profile_stacks(cs->profile), space, cs->pcs, cs->nr_pcs) : 0;
	cs->nr_pcs = 0;
	return id;
}

/* Write the first @n records of the batch and drop them. */
static void write_batch(struct collect_sync *cs, struct mtx_writer *w, size_t n)
{
	const struct mtx_sync_record *recs = cs->batch.recs;
	for (size_t i = 0; i < n; i++) {
		if (recs[i].kind == MTX_SYNC_KIND_FRAMES) {
			take_frames(cs, &recs[i]);
			continue;
		}
		cs->records++;
		if (recs[i].kind == MTX_SYNC_KIND_PHASE) { /* no object: mtx_phase(name) */
			const uint64_t name[] = { recs[i].addr, recs[i].arg, recs[i].callsite };
			_Static_assert(sizeof(name) == MTX_PHASE_NAME_MAX, "the name's words");
			if (cs->phases && phases_mark(cs->phases, recs[i].start_ns, (const char *)name, sizeof(name),
						      PHASE_CALL, recs[i].tid))
				cs->lost++;
			continue;
		}
		if (recs[i].kind == MTX_SYNC_KIND_SCHED) { /* no object: a class changed */
			int policy, priority, nice;
			mtx_sched_unpack(recs[i].arg, &policy, &priority, &nice);
			if (recs[i].result == 0 && recs[i].addr > 0 && recs[i].addr <= INT32_MAX && cs->sched)
				thread_sched_changed(cs->sched, (int32_t)recs[i].addr, recs[i].end_ns, policy,
						     priority, nice, recs[i].arg & MTX_SCHED_AFFINITY,
						     recs[i].arg & MTX_SCHED_CPUS_KNOWN ? (uint32_t)(recs[i].arg >> 32) : 0);
			continue;
		}
		/* the writer's error is sticky and reported by the caller */
		if (!writer_error(w))
			sync_objects_record(cs->objects, w, &recs[i], op_stack(cs, &recs[i]), true);
	}
	/* Only what is left: an empty batch may have no buffer (NULL), which
	 * memmove must not be given even for 0 bytes. */
	if (n < cs->batch.len)
		memmove(cs->batch.recs, recs + n, (cs->batch.len - n) * sizeof(*recs));
	cs->batch.len -= n;
}

/* How many records of the batch may be written now: those before the first
 * op (with the frames before it) that started at or after @done_ns. */
static size_t ready_prefix(const struct sync_batch *b, uint64_t done_ns)
{
	size_t ready = 0;
	for (size_t i = 0; i < b->len; i++) {
		if (b->recs[i].kind == MTX_SYNC_KIND_FRAMES)
			continue;
		if (b->recs[i].start_ns >= done_ns)
			return ready;
		ready = i + 1;
	}
	return b->len;
}

size_t collect_sync_write(struct collect_sync *cs, struct mtx_writer *w, uint64_t events_done_ns)
{
	size_t n, left;
	if (!cs->pump)
		return 0;
	if (!cs->stack_frames) {
		left = sync_pump_take(cs->pump, &cs->batch, SYNC_PUMP_TAKE_MAX);
		write_batch(cs, w, cs->batch.len);
		return left;
	}
	/* The held records are in cs->batch already (see below). */
	left = sync_pump_take(cs->pump, &cs->held, SYNC_PUMP_TAKE_MAX);
	take_held(cs);
	/* An op's stack is named in its process's address space as of its
	 * time, which the profile knows once the events before it came in. */
	n = ready_prefix(&cs->batch, events_done_ns);
	write_batch(cs, w, n);
	return left;
}

/* The ops added up past --detail's budget (collector/sync/summary.h): rows
 * or summarized_sync_ops, and meta's count. */
static int finish_summary(struct collect_sync *cs, struct mtx_writer *w, sqlite3 *db, bool all_rows, char **err)
{
	struct tl_capture *capture = writer_captured(w);
	const uint64_t sent = writer_summarized_ops(w);
	struct sync_summary_stats st;
	int rc;
	if (sent && !timeline_capture_nr_ops(capture)) {
		/* the capture was given up (out of memory): they are gone */
		log_warn("out of memory: %llu sync ops past --detail's budget were lost", (unsigned long long)sent);
		cs->lost += sent;
		return 0;
	}
	rc = sync_summary_finish(db, capture, all_rows, &st, err);
	if (!rc && sent)
		writer_meta_int(w, "summarized_sync_ops", (int64_t)st.summarized);
	log_debug("sync tables: %llu ops past the budget made rows (blocked, contended), %llu added up",
		  (unsigned long long)st.rows, (unsigned long long)st.summarized);
	return rc;
}

int collect_sync_finish(struct collect_sync *cs, struct mtx_writer *w, int resolve, char **err)
{
	struct sync_resolve_stats st;
	size_t n;
	const int64_t *ids;
	sqlite3 *db;
	uint64_t t0;
	int rc;

	if (!cs->on)
		return 0;
	collect_sync_stop(cs);
	if (cs->region) {
		write_batch(cs, w, cs->batch.len);
		cs->lost += sync_region_lost(cs->region);
		cs->lost_nolane = sync_region_lost_nolane(cs->region);
		writer_meta_int(w, "sync_claims_without_rseq",
				(int64_t)sync_region_claims_without_rseq(cs->region));
		if (sync_region_scribbled(cs->region) || (cs->calls && sync_region_scribbled(cs->calls))) {
			writer_meta_int(w, "sync_region_scribbled", 1);
			log_warn("the program wrote over mtx's shared memory: only the losses mtx could "
				 "believe are counted");
		}
		write_waits(cs, w, cs->region);
		if (cs->calls)
			write_waits(cs, w, cs->calls);
		writer_meta_int(w, "collector_wait_ns", (int64_t)cs->waited_ns);
		/* what mtx report overhead --cycles converts by (seed 004's unit) */
		if (sync_region_tsc_hz(cs->region))
			writer_meta_int(w, "tsc_hz", (int64_t)sync_region_tsc_hz(cs->region));
	}
	if (cs->uprobes)
		writer_meta_int(w, "sync_uprobes_unpaired",
				(int64_t)sync_uprobes_finish(cs->uprobes, write_record, cs));
	sync_objects_flush(cs->objects, w); /* its error is the writer's, sticky */
	if (writer_error(w))
		return -EIO;
	if (!resolve) /* what was added up goes in as rows, unresolved */
		return writer_summarized_ops(w) ? finish_summary(cs, w, writer_db(w), true, err) : 0;

	/* The passes walk sync_ops and thread_states by object and by thread. */
	t0 = clock_now_ns();
	progress_part("indexing");
	db = writer_db(w); /* the rows still queued, written */
	log_debug("sync tables: every row written in %lld ms", (long long)((clock_now_ns() - t0) / 1000000));
	rc = db_create_indexes(db, err);
	log_debug("sync tables: indexed at %lld ms", (long long)((clock_now_ns() - t0) / 1000000));
	ids = sync_objects_with_lifetime_ops(cs->objects, &n);
	if (!rc)
		rc = sync_resolve(db, writer_captured(w), ids, n, &st, err);
	if (!rc)
		rc = finish_summary(cs, w, db, false, err);
	if (rc)
		return rc;
	writer_meta_int(w, "sync_objects", sync_objects_count(cs->objects) + (int64_t)st.lifetimes_split);
	writer_meta_int(w, "sync_blocked_ops", (int64_t)st.blocked_ops);
	writer_meta_int(w, "sync_contended_ops", (int64_t)st.contended_ops);
	writer_meta_int(w, "sync_resolve_ms", (int64_t)((clock_now_ns() - t0) / 1000000));
	writer_meta(w, "sync_stamps", !cs->region ? "perf" :
		    sync_region_uses_tsc(cs->region) ? "tsc" : "clock_gettime");
	return 0;
}

void collect_sync_free(struct collect_sync *cs)
{
	if (cs->pump)
		sync_pump_stop(cs->pump, &cs->batch, NULL, NULL);
	sync_batch_free(&cs->batch);
	sync_batch_free(&cs->held);
	call_batch_free(&cs->call_batch);
	if (cs->calls)
		sync_region_destroy(cs->calls);
	sync_objects_free(cs->objects);
	if (cs->region)
		sync_region_destroy(cs->region);
	sync_uprobes_free(cs->uprobes);
	memset(cs, 0, sizeof(*cs));
}
