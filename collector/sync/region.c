/*
 * collector/sync/region.c - create, drain and destroy the sync region that
 * libmtx-preload.so writes into. The format is documented in
 * collector/preload/shm.h.
 *
 * Trust: the region is writable by the traced program, which may corrupt it.
 * The reader therefore keeps the geometry and every lane's tail in its own
 * memory, checks each head against them, and copies a record out before
 * looking at it. Nothing read from the region is used as an index without a
 * bound check.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector/preload/shm.h"
#include "collector/sync/inject-overhead.h"
#include "collector/sync/region.h"
#include "collector/sync/tsc-map.h"

struct sync_region {
	void *base;
	size_t size;
	char name[64];       /* shm_open name, "/mtx-sync-..." or "/mtx-call-..." */
	char env[80];        /* MTX_SHM_ENV or MTX_CALL_ENV "=" name */
	uint32_t record_size;
	uint32_t lane_count;
	uint32_t lane_records;
	uint64_t lane_offset;
	uint64_t lane_stride;
	uint64_t *tail;      /* our copy of every lane's tail */
	uint64_t rejected;   /* records the drain could not trust */
	/* The writers' loss counters, as far as they can be believed. */
	struct lost_watch lost_full, lost_nolane;
	/* Waits for the collector of lanes freed so far (sync_region_stalls). */
	struct sync_stall *stalls;
	size_t nr_stalls, cap_stalls;
	uint32_t free_lanes; /* counted by the previous drain */
	int tsc;             /* records hold TSC values, converted with map */
	struct tsc_map map;
	/* The first (TSC, ns) pair, never changed: the ops in progress are
	 * read on another thread than the drain's, which grows map. */
	struct tsc_point origin;
};

/*
 * A loss counter in the region's header is the writers' to increment, but
 * the program can write anything there: each drain takes what it grew by,
 * and a value that went back or jumped further than any program loses
 * between two drains is not believed (the counter is marked scribbled and
 * followed from its new value).
 */
#define LOST_MAX_STEP (1ull << 40)

static void lost_watch_update(struct lost_watch *lw, const uint64_t *counter)
{
	uint64_t v = __atomic_load_n(counter, __ATOMIC_RELAXED);

	if (v >= lw->seen && v - lw->seen < LOST_MAX_STEP)
		lw->total += v - lw->seen;
	else
		lw->scribbled = 1;
	lw->seen = v;
}

static struct mtx_shm_lane *lane_of(struct sync_region *r, uint32_t i)
{
	return mtx_shm_lane_at(r->base, r->lane_offset, r->lane_stride, i);
}

int sync_region_create(struct sync_region **out)
{
	return sync_region_create_sized(out, MTX_SHM_DEFAULT_LANES, MTX_SHM_DEFAULT_LANE_RECORDS);
}

/*
 * Remove the regions of collectors that are gone: a killed collector never
 * unlinks its own, and each would keep its memory in /dev/shm (named
 * "mtx-sync-PID-..." and "mtx-call-PID-...", PID the collector's) until
 * the next boot. Once per process, before the first region is made.
 */
static void remove_stale_regions(void)
{
	static int done;
	struct dirent *e;
	DIR *d;

	if (done)
		return;
	done = 1;
	d = opendir("/dev/shm");
	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		char name[300];
		int pid;

		if (sscanf(e->d_name, "mtx-sync-%d-", &pid) != 1 && sscanf(e->d_name, "mtx-call-%d-", &pid) != 1)
			continue;
		if (pid <= 0 || pid == (int)getpid() || kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(name, sizeof(name), "/%s", e->d_name);
		shm_unlink(name);
	}
	closedir(d);
}

/* Create a region of either kind: @magic, @record_size, @prefix of its
 * shm name, @env the variable that names it. */
static int region_create(struct sync_region **out, const char *magic, uint32_t record_size,
			 const char *prefix, const char *env, uint32_t lane_count,
			 uint32_t lane_records)
{
	struct mtx_shm_header *h;
	struct sync_region *r;
	uint64_t stride, size;
	uint32_t rnd = 0;
	int fd, err;

	*out = NULL;
	if (lane_count == 0 || lane_count > (1u << 20) || lane_records < 32 ||
	    lane_records > (1u << 24) || (lane_records & (lane_records - 1)) != 0)
		return -EINVAL;
	stride = MTX_SHM_LANE_HEADER_SIZE + (uint64_t)lane_records * record_size;
	stride = (stride + 4095) & ~(uint64_t)4095; /* lanes start on their own page */
	size = MTX_SHM_HEADER_SIZE + stride * lane_count;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->tail = calloc(lane_count, sizeof(*r->tail));
	if (!r->tail) {
		free(r);
		return -ENOMEM;
	}
	remove_stale_regions();
	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
		rnd = (uint32_t)time(NULL) ^ (uint32_t)(uintptr_t)r;
	/* O_EXCL and a random part: never attach to someone else's object. */
	for (int attempt = 0;; attempt++) {
		snprintf(r->name, sizeof(r->name), "/%s-%d-%08x", prefix, (int)getpid(),
			 rnd + (uint32_t)attempt);
		fd = shm_open(r->name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST || attempt == 16)
			break;
	}
	if (fd < 0) {
		err = -errno;
		goto fail;
	}
	if (ftruncate(fd, (off_t)size) < 0) {
		err = -errno;
		close(fd);
		shm_unlink(r->name);
		goto fail;
	}
	r->base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	err = -errno;
	close(fd);
	if (r->base == MAP_FAILED) {
		shm_unlink(r->name);
		goto fail;
	}
	r->size = size;
	r->lane_count = lane_count;
	r->lane_records = lane_records;
	r->lane_offset = MTX_SHM_HEADER_SIZE;
	r->lane_stride = stride;
	r->record_size = record_size;
	snprintf(r->env, sizeof(r->env), "%s=%s", env, r->name);

	/* ftruncate gave zeroes: every lane FREE with head == tail == 0. */
	h = r->base;
	h->version = MTX_SHM_VERSION;
	h->header_size = MTX_SHM_HEADER_SIZE;
	h->record_size = record_size;
	h->lane_count = lane_count;
	h->lane_records = lane_records;
	h->lane_header_size = MTX_SHM_LANE_HEADER_SIZE;
	h->lane_offset = r->lane_offset;
	h->lane_stride = stride;
	/* MTX_SYNC_CLOCK=monotonic keeps clock_gettime stamps (to compare). */
	r->tsc = tsc_usable() && !(getenv("MTX_SYNC_CLOCK") && !strcmp(getenv("MTX_SYNC_CLOCK"), "monotonic"));
	if (r->tsc && tsc_map_add(&r->map, r->origin = tsc_sample())) {
		err = -ENOMEM;
		munmap(r->base, size);
		shm_unlink(r->name);
		goto fail;
	}
	h->clock_id = r->tsc ? MTX_SHM_CLOCK_TSC : CLOCK_MONOTONIC;
	h->creator_pid = getpid();
	/* magic last: a library that sees it sees a complete header */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(h->magic, magic, sizeof(h->magic));
	r->free_lanes = 0; /* so the first drain checks liveness too */
	*out = r;
	return 0;

fail:
	free(r->tail);
	free(r);
	return err;
}

int sync_region_create_sized(struct sync_region **out, uint32_t lane_count,
			     uint32_t lane_records)
{
	return region_create(out, MTX_SHM_MAGIC, MTX_SHM_RECORD_SIZE, "mtx-sync", MTX_SHM_ENV,
			     lane_count, lane_records);
}

int call_region_create_sized(struct sync_region **out, uint32_t lane_count,
			     uint32_t lane_records)
{
	return region_create(out, MTX_CALL_MAGIC, MTX_CALL_RECORD_SIZE, "mtx-call", MTX_CALL_ENV,
			     lane_count, lane_records);
}

int call_region_create(struct sync_region **out)
{
	return call_region_create_sized(out, MTX_SHM_DEFAULT_LANES, MTX_CALL_DEFAULT_LANE_RECORDS);
}

const char *sync_region_env(struct sync_region *r)
{
	return r->env;
}

void *sync_region_map(struct sync_region *r, size_t *size)
{
	if (size)
		*size = r->size;
	return r->base;
}

/*
 * A LIVE lane whose thread no longer exists (the process was killed, or the
 * thread left through a path that ran no destructor) would never be freed.
 * tgkill with signal 0 checks existence without sending anything; EPERM means
 * it exists. A recycled tid makes us keep the lane: a leak, never a mix-up.
 */
void sync_region_reap(struct sync_region *r)
{
	struct mtx_shm_header *h = r->base;
	uint32_t used = __atomic_load_n(&h->lanes_used, __ATOMIC_ACQUIRE);

	for (uint32_t i = 0; i < used && i < r->lane_count; i++) {
		struct mtx_shm_lane *l = lane_of(r, i);
		uint32_t expect = MTX_LANE_LIVE;
		int32_t pid, tid;

		if (__atomic_load_n(&l->state, __ATOMIC_ACQUIRE) != MTX_LANE_LIVE)
			continue;
		pid = l->owner_pid;
		tid = l->owner_tid;
		if (pid <= 0 || tid <= 0)
			continue;
		if (syscall(SYS_tgkill, pid, tid, 0) < 0 && errno == ESRCH)
			__atomic_compare_exchange_n(&l->state, &expect, MTX_LANE_EXITED, 0,
						    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
	}
}

size_t sync_region_open_ops(struct sync_region *r, sync_emit_fn fn, void *ctx)
{
	struct mtx_shm_header *h = r->base;
	uint32_t used = __atomic_load_n(&h->lanes_used, __ATOMIC_ACQUIRE);
	struct tsc_point now = r->tsc ? tsc_sample() : (struct tsc_point){ 0 };
	double ns_per_tick = now.tsc > r->origin.tsc ? (double)(now.ns - r->origin.ns) / (double)(now.tsc - r->origin.tsc)
						     : 0;
	struct mtx_event ev = { .type = MTX_EV_SYNC, .cpu = -1 };
	size_t n = 0;

	if (r->record_size != MTX_SHM_RECORD_SIZE)
		return 0;
	for (uint32_t i = 0; i < used && i < r->lane_count; i++) {
		struct mtx_shm_lane *l = lane_of(r, i);
		uint32_t nr;
		if (__atomic_load_n(&l->state, __ATOMIC_ACQUIRE) != MTX_LANE_LIVE)
			continue;
		nr = mtx_lane_nr_ops(__atomic_load_n(&l->head, __ATOMIC_ACQUIRE));
		for (uint32_t k = 0; k < nr && k < MTX_LANE_MAX_OPS; k++) {
			ev.u.sync = l->ops[k].rec; /* copy out, then look: the owner goes on */
			if (ev.u.sync.end_ns || !ev.u.sync.start_ns || ev.u.sync.tid != l->owner_tid ||
			    ev.u.sync.pid != l->owner_pid || ev.u.sync.kind >= MTX_SYNC_KIND__COUNT)
				continue;
			if (r->tsc) {
				if (ev.u.sync.start_ns > now.tsc || !ns_per_tick)
					continue;
				ev.u.sync.start_ns = now.ns - (uint64_t)((double)(now.tsc - ev.u.sync.start_ns) * ns_per_tick);
			}
			ev.ts_ns = ev.u.sync.start_ns;
			ev.pid = ev.u.sync.pid;
			ev.tid = ev.u.sync.tid;
			fn(ctx, &ev);
			n++;
		}
	}
	return n;
}

static int frames_valid(const struct mtx_sync_frames *f)
{
	return f->nr >= 1 && f->nr <= MTX_SYNC_FRAMES_PER_RECORD && f->count >= 1 &&
	       f->count <= MTX_SYNC_FRAMES_MAX_RECORDS && f->index < f->count;
}

static int record_valid(const struct mtx_sync_record *rec)
{
	return rec->kind < MTX_SYNC_KIND__COUNT && rec->op < MTX_SYNC_OP__COUNT &&
	       rec->end_ns >= rec->start_ns;
}

/* A record's duration of @ticks in ns, at most UINT32_MAX. */
static uint32_t span_ns(const struct sync_region *r, uint32_t ticks)
{
	uint64_t ns = tsc_map_span_ns(&r->map, ticks);

	return ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
}

/* Emit @ev, a sync record as the lane held it: its stamps converted, then
 * checked (a rejected one is counted). Returns 1 when emitted. */
static size_t emit_sync_record(struct sync_region *r, struct mtx_event *ev, sync_emit_fn emit, void *ctx)
{
	if (r->tsc) {
		ev->u.sync.start_ns = tsc_map_ns(&r->map, ev->u.sync.start_ns);
		ev->u.sync.end_ns = tsc_map_ns(&r->map, ev->u.sync.end_ns);
		ev->u.sync.overhead = span_ns(r, ev->u.sync.overhead);
		ev->u.sync.injected = span_ns(r, ev->u.sync.injected);
	}
	if (!record_valid(&ev->u.sync)) {
		r->rejected++;
		return 0;
	}
	ev->ts_ns = ev->u.sync.start_ns;
	ev->pid = ev->u.sync.pid;
	ev->tid = ev->u.sync.tid;
	emit(ctx, ev);
	return 1;
}

/* Emit the records [@tail, @head) of lane @l as events (one kind of region
 * each); returns how many were emitted, counting the rest in r->rejected. */
typedef size_t (*lane_emit_fn)(struct sync_region *r, struct mtx_shm_lane *l, uint64_t tail,
			       uint64_t head, sync_emit_fn emit, void *ctx);

static size_t emit_sync_records(struct sync_region *r, struct mtx_shm_lane *l, uint64_t tail,
				uint64_t head, sync_emit_fn emit, void *ctx)
{
	struct mtx_sync_record *recs = mtx_shm_lane_records(l);
	uint64_t mask = r->lane_records - 1;
	struct mtx_event ev;
	size_t emitted = 0;

	memset(&ev, 0, sizeof(ev));
	ev.type = MTX_EV_SYNC;
	ev.cpu = -1;
	for (; tail != head; tail++) {
		ev.u.sync = recs[tail & mask]; /* copy out, then look */
		if (ev.u.sync.kind == MTX_SYNC_KIND_FRAMES) {
			/* passed on as it is: addresses, no stamps */
			const struct mtx_sync_frames *f = (const void *)&ev.u.sync;
			if (!frames_valid(f)) {
				r->rejected++;
				continue;
			}
			ev.ts_ns = 0;
			ev.pid = l->owner_pid;
			ev.tid = l->owner_tid;
			emit(ctx, &ev);
			emitted++;
			continue;
		}
		emitted += emit_sync_record(r, &ev, emit, ctx);
	}
	return emitted;
}

/*
 * The ops a gone owner was inside (shm.h, LANES: ops), from the head word
 * @word: each one whose call had returned as its record (only publishing it
 * was left), the others as calls that did not return (result
 * MTX_SYNC_RESULT_UNRETURNED, ending where they began: sync_resolve moves
 * the end to the thread's). An op not stamped yet (a lock still in its first
 * try) says nothing of when it was, and is left out. Taken once: the count
 * of ops in the head word is cleared, for the next owner too.
 */
static size_t emit_ops(struct sync_region *r, struct mtx_shm_lane *l, uint64_t word,
		       sync_emit_fn emit, void *ctx)
{
	uint32_t nr = mtx_lane_nr_ops(word);
	struct mtx_event ev;
	size_t emitted = 0;

	__atomic_store_n(&l->head, mtx_lane_head(word), __ATOMIC_RELEASE);
	if (nr == 0)
		return 0;
	if (nr > MTX_LANE_MAX_OPS || l->owner_pid <= 0 || l->owner_tid <= 0) {
		r->rejected += nr; /* scribbled */
		return 0;
	}
	memset(&ev, 0, sizeof(ev));
	ev.type = MTX_EV_SYNC;
	ev.cpu = -1;
	for (uint32_t i = 0; i < nr; i++) {
		ev.u.sync = l->ops[i].rec; /* copy out, then look */
		if (ev.u.sync.tid != l->owner_tid || ev.u.sync.pid != l->owner_pid) {
			r->rejected++;
			continue;
		}
		if (ev.u.sync.end_ns == 0) {
			if (ev.u.sync.start_ns == 0)
				continue;
			ev.u.sync.end_ns = ev.u.sync.start_ns;
			ev.u.sync.result = MTX_SYNC_RESULT_UNRETURNED;
		}
		emitted += emit_sync_record(r, &ev, emit, ctx);
	}
	return emitted;
}

/* Call records carry no pid/tid: they are the lane owner's (see shm.h),
 * read after the state, which the caller loaded with acquire order. */
static size_t emit_call_records(struct sync_region *r, struct mtx_shm_lane *l, uint64_t tail,
				uint64_t head, sync_emit_fn emit, void *ctx)
{
	const struct mtx_call_record *recs =
		(const struct mtx_call_record *)((char *)l + MTX_SHM_LANE_HEADER_SIZE);
	uint64_t mask = r->lane_records - 1;
	struct mtx_event ev;
	size_t emitted = 0;

	memset(&ev, 0, sizeof(ev));
	ev.type = MTX_EV_CALL;
	ev.cpu = -1;
	ev.pid = l->owner_pid;
	ev.tid = l->owner_tid;
	if (ev.pid <= 0 || ev.tid <= 0) {
		r->rejected += head - tail;
		return 0;
	}
	for (; tail != head; tail++) {
		struct mtx_call_record rec = recs[tail & mask];
		uint64_t stamp = rec.stamp & ~MTX_CALL_EXIT;

		if (rec.fn == 0) {
			r->rejected++;
			continue;
		}
		ev.ts_ns = r->tsc ? tsc_map_ns(&r->map, stamp) : stamp;
		ev.u.call.fn = rec.fn;
		ev.u.call.at_return = (rec.stamp & MTX_CALL_EXIT) != 0;
		emit(ctx, &ev);
		emitted++;
	}
	return emitted;
}

/* Keep what lane @l's owner waited for the collector (nothing if it did
 * not), before the lane goes to another. */
static void keep_stall(struct sync_region *r, const struct mtx_shm_lane *l)
{
	uint64_t ns = l->stall_ns, n = l->stalls; /* copy out, then look */

	if (!n || !ns)
		return;
	if (r->nr_stalls == r->cap_stalls) {
		size_t cap = r->cap_stalls ? 2 * r->cap_stalls : 16;
		struct sync_stall *more = realloc(r->stalls, cap * sizeof(*more));

		if (!more)
			return; /* an account, not a record: skipped */
		r->stalls = more;
		r->cap_stalls = cap;
	}
	r->stalls[r->nr_stalls++] = (struct sync_stall){ l->owner_pid, l->owner_tid, ns, n };
}

size_t sync_region_drain(struct sync_region *r, sync_emit_fn emit, void *ctx)
{
	uint64_t n = r->lane_records;
	struct mtx_shm_header *h = r->base;
	uint32_t used = __atomic_load_n(&h->lanes_used, __ATOMIC_ACQUIRE);
	lane_emit_fn emit_lane = r->record_size == MTX_CALL_RECORD_SIZE ? emit_call_records :
				 emit_sync_records;
	uint32_t free_lanes;
	size_t emitted = 0;

	if (r->free_lanes < r->lane_count / 4 + 1)
		sync_region_reap(r);
	lost_watch_update(&r->lost_full, &h->lost_full);
	lost_watch_update(&r->lost_nolane, &h->lost_nolane);

	/* lanes_used only grows; a scribbled value is clamped, not trusted */
	if (used > r->lane_count)
		used = r->lane_count;
	free_lanes = r->lane_count - used;
	/* Every record drained below was stamped before the lanes are read,
	 * but possibly after this sample: the map extrapolates that bit. */
	if (r->tsc)
		tsc_map_add(&r->map, tsc_sample());
	for (uint32_t i = 0; i < used; i++) {
		struct mtx_shm_lane *l = lane_of(r, i);
		/* state before head: an EXITED state guarantees the head is final */
		uint32_t state = __atomic_load_n(&l->state, __ATOMIC_ACQUIRE);
		uint64_t head = mtx_lane_head(__atomic_load_n(&l->head, __ATOMIC_ACQUIRE));
		uint64_t tail = r->tail[i], old_tail = tail;

		if (state == MTX_LANE_FREE && head == tail) {
			free_lanes++;
			continue;
		}
		if (head - tail > n) {
			/* head behind tail or more than a lane ahead: scribbled */
			r->rejected += head > tail && head - tail < 2 * n ? head - tail : n;
			tail = head;
		}
		emitted += emit_lane(r, l, tail, head, emit, ctx);
		tail = head;
		r->tail[i] = tail;
		/* release: the writer may reuse the slots only after we copied them */
		if (tail != old_tail)
			__atomic_store_n(&l->tail, tail, __ATOMIC_RELEASE);
		if (state == MTX_LANE_EXITED) {
			uint32_t expect = MTX_LANE_EXITED;

			/* keep head == tail for the next owner, which starts at head */
			uint64_t word = __atomic_load_n(&l->head, __ATOMIC_ACQUIRE);

			if (mtx_lane_head(word) == tail) {
				if (r->record_size == MTX_SHM_RECORD_SIZE)
					emitted += emit_ops(r, l, word, emit, ctx);
				keep_stall(r, l);
				if (__atomic_compare_exchange_n(&l->state, &expect, MTX_LANE_FREE, 0,
								__ATOMIC_RELEASE, __ATOMIC_RELAXED))
					free_lanes++;
			}
		} else if (state == MTX_LANE_FREE) {
			free_lanes++;
		}
	}
	r->free_lanes = free_lanes;
	return emitted;
}

int sync_region_set_inject(struct sync_region *r, const struct sync_inject *inject)
{
	struct mtx_shm_header *h = r->base;
	uint64_t delay = inject->delay_ns, gap = SYNC_INJECT_GAP_NS;

	if (r->tsc) {
		struct timespec two_ms = { 0, 2000000 };
		struct tsc_point a = tsc_sample(), b;
		int rc;

		nanosleep(&two_ms, NULL);
		b = tsc_sample();
		if (b.tsc <= a.tsc || b.ns <= a.ns)
			return -EIO;
		delay = (uint64_t)((unsigned __int128)delay * (b.tsc - a.tsc) / (b.ns - a.ns));
		gap = (uint64_t)((unsigned __int128)gap * (b.tsc - a.tsc) / (b.ns - a.ns));
		rc = tsc_map_add(&r->map, b);
		if (rc)
			return rc;
	}
	h->inject_tid = inject->tid;
	memcpy(h->inject_thread, inject->thread, sizeof(h->inject_thread));
	h->inject_gap = gap;
	h->inject_ops = inject->ops;
	h->inject_delay = delay ? delay : 1;
	return 0;
}

void sync_region_set_paused(struct sync_region *r, int paused)
{
	struct mtx_shm_header *h = r->base;

	__atomic_store_n(&h->paused, paused ? 1u : 0u, __ATOMIC_RELEASE);
}

void sync_region_set_stack_frames(struct sync_region *r, uint32_t frames)
{
	struct mtx_shm_header *h = r->base;

	h->stack_frames = frames > MTX_SYNC_STACK_MAX ? MTX_SYNC_STACK_MAX : frames;
}

uint32_t sync_region_wake_seq(struct sync_region *r)
{
	struct mtx_shm_header *h = r->base;

	return __atomic_load_n(&h->drain_wake, __ATOMIC_ACQUIRE);
}

void sync_region_sleep(struct sync_region *r, uint32_t seq, long timeout_ns)
{
	struct mtx_shm_header *h = r->base;
	struct timespec ts = { timeout_ns / 1000000000L, timeout_ns % 1000000000L };

	/* shared futex: the writers are other processes */
	syscall(SYS_futex, &h->drain_wake, FUTEX_WAIT, seq, &ts, NULL, 0);
}

void sync_region_close(struct sync_region *r)
{
	struct mtx_shm_header *h = r->base;

	__atomic_store_n(&h->closed, 1, __ATOMIC_RELEASE);
}

void sync_region_wake(struct sync_region *r)
{
	struct mtx_shm_header *h = r->base;

	__atomic_fetch_add(&h->drain_wake, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &h->drain_wake, FUTEX_WAKE, 1, NULL, NULL, 0);
}

uint64_t sync_region_lost(struct sync_region *r)
{
	struct mtx_shm_header *h = r->base;

	lost_watch_update(&r->lost_full, &h->lost_full);
	lost_watch_update(&r->lost_nolane, &h->lost_nolane);
	return r->lost_full.total + r->lost_nolane.total + r->rejected;
}

uint64_t sync_region_lost_nolane(struct sync_region *r)
{
	sync_region_lost(r);
	return r->lost_nolane.total;
}

int sync_region_scribbled(struct sync_region *r)
{
	sync_region_lost(r);
	return r->lost_full.scribbled || r->lost_nolane.scribbled;
}

const struct sync_stall *sync_region_stalls(struct sync_region *r, size_t *nr)
{
	size_t freed = r->nr_stalls;
	uint32_t used = __atomic_load_n(&((struct mtx_shm_header *)r->base)->lanes_used, __ATOMIC_ACQUIRE);

	for (uint32_t i = 0; i < used && i < r->lane_count; i++) {
		struct mtx_shm_lane *l = lane_of(r, i);

		if (__atomic_load_n(&l->state, __ATOMIC_ACQUIRE) != MTX_LANE_FREE)
			keep_stall(r, l);
	}
	*nr = r->nr_stalls;
	r->nr_stalls = freed; /* the held lanes' go again next time */
	return r->stalls;
}

int sync_region_give_to(struct sync_region *r, unsigned uid, unsigned gid)
{
	int fd = shm_open(r->name, O_RDWR | O_CLOEXEC, 0), rc = 0;

	if (fd < 0)
		return -errno;
	if (fchown(fd, (uid_t)uid, (gid_t)gid) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

uint32_t sync_region_claims_without_rseq(struct sync_region *r)
{
	struct mtx_shm_header *h = r->base;

	return __atomic_load_n(&h->claims_without_rseq, __ATOMIC_RELAXED);
}

int sync_region_uses_tsc(const struct sync_region *r)
{
	return r->tsc;
}

uint64_t sync_region_tsc_hz(const struct sync_region *r)
{
	return r->tsc ? tsc_map_hz(&r->map) : 0;
}

void sync_region_destroy(struct sync_region *r)
{
	if (!r)
		return;
	munmap(r->base, r->size);
	shm_unlink(r->name);
	tsc_map_free(&r->map);
	free(r->tail);
	free(r->stalls);
	free(r);
}
