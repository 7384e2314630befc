/*
 * collector/session.c - see session.h.
 *
 * Kernel facts relied on (checked on these machines):
 *  - Inherited per-task events can only be mmapped per CPU, so each CPU has
 *    one leader event (a software dummy) that owns the ring; every other
 *    event on that CPU is redirected into it with PERF_EVENT_IOC_SET_OUTPUT,
 *    including system-wide ones (same CPU and clock is all the kernel asks).
 *  - The leader carries attr.task (FORK/EXIT), attr.comm (names, exec) and
 *    attr.context_switch (PERF_RECORD_SWITCH), so it sees a traced thread
 *    being switched *in* — sched:sched_switch fires only in the context of
 *    the task switching out.
 *  - enable_on_exec with the child stopped before exec means nothing of
 *    mtx's own start-up is recorded.
 */
#include "config.h"
#include "collector/session.h"
#include "collector/target.h"
#include "collector/tracepoint.h"
#include "src/grow.h"
#include "src/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

int session_set_error(struct mtx_session *s, int e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_vset(&s->error, fmt, ap);
	va_end(ap);
	return e;
}

static int add_event_id(struct mtx_session *s, uint64_t id, const struct mtx_source *source, int tag, uint64_t extra,
			pid_t task, int fd)
{
	struct session_event *ev = grow_array(s->events, &s->cap_events, s->nr_events, sizeof(*ev), 16);
	if (!ev)
		return -ENOMEM;
	s->events = ev;
	if (s->nr_events && id < s->events[s->nr_events - 1].id)
		s->ids_unsorted = 1;
	s->events[s->nr_events++] =
		(struct session_event){ .id = id, .source = source, .tag = tag, .extra = extra, .task = task, .fd = fd };
	return 0;
}

/* @pid: the task the event was opened on (-1: every task). */
static int remember_event(struct mtx_session *s, int fd, const struct mtx_source *source, int tag, uint64_t extra,
			  pid_t pid)
{
	uint64_t id;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
		return -errno;
	return add_event_id(s, id, source, tag, extra, s->attached && pid > 0 ? pid : 0, fd);
}

static int remember_fd(struct mtx_session *s, int fd)
{
	int *fds = grow_array(s->fds, &s->cap_fds, s->nr_fds, sizeof(*fds), 16);
	if (!fds)
		return -ENOMEM;
	s->fds = fds;
	s->fds[s->nr_fds++] = fd;
	return 0;
}

int session_keep_fd(struct mtx_session *s, int fd)
{
	int rc = remember_fd(s, fd);
	if (rc)
		close(fd);
	return rc;
}

/* Open @attr for task @pid (-1: every task) on @cpu into that CPU's ring. */
static int open_into_ring(struct mtx_session *s, struct perf_event_attr *attr, const struct mtx_source *source,
			  int tag, pid_t pid, int cpu)
{
	uint64_t extra = attr->sample_type & ~(uint64_t)MTX_SAMPLE_TYPE;
	int fd = perf_open(attr, pid, cpu, -1);
	int rc;
	if (fd == -ESRCH && s->attached && pid > 0)
		return 0; /* the thread exited since /proc listed it: nothing to follow */
	if (fd < 0)
		return session_set_error(s, fd, "opening the %s events on CPU %d: %s", source->name, cpu,
					 perf_open_error(fd));
	if (remember_fd(s, fd)) {
		close(fd);
		return -ENOMEM;
	}
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, s->rings[cpu].fd) < 0)
		return session_set_error(s, -errno, "routing the %s events into the CPU %d ring: %s", source->name,
					 cpu, strerror(errno));
	rc = remember_event(s, fd, source, tag, extra, pid);
	if (rc)
		return session_set_error(s, rc, "reading the id of a %s event: %s", source->name, strerror(-rc));
	return 0;
}

/* The task of the @i-th per-task events: each thread, attached. */
static pid_t task_at(const struct mtx_session *s, size_t i)
{
	return s->attached ? s->tids[i] : s->pid;
}

static size_t nr_tasks(const struct mtx_session *s)
{
	return s->attached ? s->nr_tids : 1;
}

/* Open @attr on every CPU for the @i-th task. */
static int open_on_task(struct mtx_session *s, struct perf_event_attr *attr, const struct mtx_source *source,
			int tag, size_t i)
{
	for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
		int rc = open_into_ring(s, attr, source, tag, task_at(s, i), cpu);
		if (rc)
			return rc;
	}
	return 0;
}

int session_add_event(struct mtx_session *s, struct perf_event_attr *attr, const struct mtx_source *source,
		      int tag, int system_wide)
{
	struct session_spec *spec;
	if (system_wide) {
		for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
			int rc = open_into_ring(s, attr, source, tag, -1, cpu);
			if (rc)
				return rc;
		}
		return 0;
	}
	if (s->start_off & (1u << source->id)) /* off until session_source_enable */
		attr->enable_on_exec = 0;
	if (!s->attached)
		return open_on_task(s, attr, source, tag, 0);
	/* No exec to enable it: session_enable does, on every thread at once. */
	attr->disabled = 1;
	attr->enable_on_exec = 0;
	spec = grow_array(s->specs, &s->cap_specs, s->nr_specs, sizeof(*spec), 16);
	if (!spec)
		return -ENOMEM;
	s->specs = spec;
	s->specs[s->nr_specs++] = (struct session_spec){ .attr = *attr, .source = source, .tag = tag };
	for (size_t i = 0; i < s->nr_tids; i++) {
		int rc = open_on_task(s, attr, source, tag, i);
		if (rc)
			return rc;
	}
	return 0;
}

int session_add_tracepoint(struct mtx_session *s, long id, const struct mtx_source *source, int tag)
{
	struct perf_event_attr attr;
	tp_attr(&attr, id);
	attr.inherit = 1;
	attr.disabled = 1;
	attr.enable_on_exec = 1;
	return session_add_event(s, &attr, source, tag, 0);
}

static void leader_attr(const struct mtx_session *s, struct perf_event_attr *attr)
{
	perf_attr_init(attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	attr->task = 1;
	attr->comm = 1;
	attr->comm_exec = 1;
	attr->context_switch = 1;
	/* Executable mappings with their build-id, to name code addresses
	 * (samples, sync call sites) at the end: collector/profile.c. */
	attr->mmap = 1;
	attr->mmap2 = 1;
	attr->build_id = 1;
	attr->inherit = 1;
	attr->disabled = 1;
	attr->enable_on_exec = !s->attached;
	/* Wake the poll when a quarter of the ring is used. */
	attr->watermark = 1;
	attr->wakeup_watermark = (uint32_t)(s->ring_pages * (size_t)sysconf(_SC_PAGESIZE) / 4);
}

/* The @i-th task's leaders: the first task's own each CPU's ring, the
 * others' are routed into it. */
static int open_leaders(struct mtx_session *s, size_t i)
{
	struct perf_event_attr attr;
	leader_attr(s, &attr);
	for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
		int rc, fd;
		if (s->rings[cpu].fd >= 0) {
			rc = open_into_ring(s, &attr, &source_sched, -1, task_at(s, i), cpu);
			if (rc)
				return rc;
			continue;
		}
		fd = perf_open(&attr, task_at(s, i), cpu, -1);
		if (fd == -ESRCH && s->attached)
			return 0; /* exited since /proc listed it: the next one owns the ring */
		if (fd < 0)
			return session_set_error(s, fd, "%s", perf_open_error(fd));
		rc = ring_map(&s->rings[cpu], fd, cpu, s->ring_pages);
		if (rc) {
			close(fd);
			return session_set_error(s, rc, "mapping a %zu KiB perf buffer for CPU %d: %s",
						 s->ring_pages * (size_t)sysconf(_SC_PAGESIZE) / 1024, cpu,
						 rc == -EPERM || rc == -ENOMEM ? perf_open_error(-ENOMEM) :
						 strerror(-rc));
		}
		rc = remember_event(s, fd, &source_sched, -1, 0, task_at(s, i));
		if (rc)
			return session_set_error(s, rc, "reading a perf event id: %s", strerror(-rc));
	}
	return 0;
}

/* Add thread @tid to s->tids unless it is there: 1 when added. */
static int add_tid(void *ctx, pid_t tid)
{
	struct mtx_session *s = ctx;
	pid_t *tids;
	for (size_t i = 0; i < s->nr_tids; i++)
		if (s->tids[i] == tid)
			return 0;
	if (!(tids = grow_array(s->tids, &s->cap_tids, s->nr_tids, sizeof(*tids), 16)))
		return -ENOMEM;
	s->tids = tids;
	s->tids[s->nr_tids++] = tid;
	return 1;
}

/* Add the threads of the process not seen before to s->tids. Returns how
 * many, or -errno (-ESRCH: the process is gone). */
static int read_new_tids(struct mtx_session *s)
{
	return target_tasks_each(s->pid, add_tid, s);
}

static int cmp_tid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

/* Whether thread @tid has events of its own (attached). */
static bool has_own_events(const struct mtx_session *s, pid_t tid)
{
	return bsearch(&tid, s->tids, s->nr_tids, sizeof(*s->tids), cmp_tid) != NULL;
}

int session_attach_scan(struct mtx_session *s)
{
	size_t first = s->nr_tids;
	int added = read_new_tids(s);
	if (added < 0)
		return session_set_error(s, added, "reading the threads of process %d: %s", (int)s->pid,
					 added == -ESRCH ? "it has exited" : strerror(-added));
	for (size_t i = first; i < s->nr_tids; i++) {
		int rc = open_leaders(s, i);
		for (size_t k = 0; !rc && k < s->nr_specs; k++)
			rc = open_on_task(s, &s->specs[k].attr, s->specs[k].source, s->specs[k].tag, i);
		if (rc)
			return rc;
	}
	qsort(s->tids, s->nr_tids, sizeof(*s->tids), cmp_tid); /* for has_own_events */
	return added;
}

static pid_t close_in_background(int *fds, size_t n, const struct session_hook *after, int nr_after);

void session_close_soon(int *fds, size_t n)
{
	close_in_background(fds, n, NULL, 0);
}

int session_add_set_tracepoint(struct mtx_session *s, long id, const struct mtx_source *source, int tag,
			       uint32_t set, int on)
{
	struct perf_event_attr attr;
	size_t first = s->nr_events;
	tp_attr(&attr, id);
	attr.disabled = !on; /* session_enable_set: on everywhere at once */
	for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
		int rc = open_into_ring(s, &attr, source, tag, -1, cpu);
		if (rc)
			return rc;
	}
	for (size_t i = first; i < s->nr_events; i++)
		s->events[i].set = set;
	return 0;
}

int session_enable_set(struct mtx_session *s, uint32_t set, int on)
{
	for (size_t i = 0; i < s->nr_events; i++)
		if (s->events[i].set == set && s->events[i].fd >= 0 &&
		    ioctl(s->events[i].fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0) < 0)
			return session_set_error(s, -errno, "%s probe set %u: %s", on ? "starting" : "stopping", set,
						 strerror(errno));
	return 0;
}

uint64_t session_set_hits(const struct mtx_session *s, uint32_t set, int tag_mask)
{
	uint64_t n = 0;
	for (size_t i = 0; i < s->nr_events; i++)
		if (s->events[i].set == set && !(s->events[i].tag & tag_mask))
			n += s->events[i].hits;
	return n;
}

/* Add event @e's count of dropped records to s->lost_read. */
static void read_lost(struct mtx_session *s, const struct session_event *e)
{
	uint64_t n;
	if (perf_read_lost(e->fd, &n) == 0) {
		s->lost_read[e->source->id] += n;
		s->lost_reads++;
	} else {
		s->lost_unread = true;
	}
}

void session_count_lost(struct mtx_session *s)
{
	for (size_t i = 0; i < s->nr_events; i++)
		if (s->events[i].fd >= 0)
			read_lost(s, &s->events[i]);
	bool exact = s->lost_reads && !s->lost_unread;
	for (int i = 0; i < MTX_SRC__COUNT; i++)
		s->lost[i] += exact ? s->lost_read[i] : s->lost_said[i];
	memset(s->lost_said, 0, sizeof(s->lost_said));
	memset(s->lost_read, 0, sizeof(s->lost_read));
}

size_t session_close_set(struct mtx_session *s, uint32_t set, void (*after)(void *ctx), void *ctx)
{
	struct session_hook hook = { after, ctx };
	int *fds = NULL;
	size_t n = 0;
	for (size_t i = 0; i < s->nr_events; i++) {
		struct session_event *e = &s->events[i];
		int *more;
		if (e->set != set || e->fd < 0 || !(more = realloc(fds, (n + 1) * sizeof(*fds))))
			continue;
		fds = more;
		ioctl(e->fd, PERF_EVENT_IOC_DISABLE, 0);
		read_lost(s, e);
		fds[n++] = e->fd;
		for (size_t k = 0; k < s->nr_fds; k++) /* closed here, not at the end */
			if (s->fds[k] == e->fd)
				s->fds[k] = s->fds[--s->nr_fds];
		e->fd = -1;
	}
	close_in_background(fds, n, &hook, after ? 1 : 0);
	free(fds);
	return n;
}

int session_source_enable(struct mtx_session *s, enum mtx_source_id id, int on)
{
	int n = 0;
	for (size_t i = 0; i < s->nr_events; i++) {
		const struct session_event *e = &s->events[i];
		if (e->source->id != id || e->tag < 0 || e->fd < 0 || e->set)
			continue;
		if (ioctl(e->fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0) < 0)
			return session_set_error(s, -errno, "%s the %s events: %s", on ? "starting" : "stopping",
						 e->source->name, strerror(errno));
		n++;
	}
	return n;
}

/* Whether @fd is an event of a source opened off (session_open's off_ids). */
static bool starts_off(const struct mtx_session *s, int fd)
{
	for (size_t i = 0; s->start_off && i < s->nr_events; i++)
		if (s->events[i].fd == fd)
			return s->start_off & (1u << s->events[i].source->id);
	return false;
}

int session_enable(struct mtx_session *s)
{
	/* Enabling an event enables the copies its thread's children inherited. */
	for (size_t i = 0; i < s->nr_fds; i++)
		if (!starts_off(s, s->fds[i]) && ioctl(s->fds[i], PERF_EVENT_IOC_ENABLE, 0) < 0)
			return session_set_error(s, -errno, "starting the events: %s", strerror(errno));
	for (int cpu = 0; cpu < s->nr_cpus; cpu++)
		if (ioctl(s->rings[cpu].fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
			return session_set_error(s, -errno, "starting the events: %s", strerror(errno));
	return 0;
}

int session_open(struct mtx_session *s, pid_t pid, int attached, unsigned mask, unsigned off_ids, size_t ring_pages,
		 unsigned sample_hz, unsigned sample_stack_bytes, int phase_signal)
{
	int rc;
	memset(s, 0, sizeof(*s));
	s->pid = pid;
	s->attached = attached;
	s->sample_hz = sample_hz;
	s->sample_stack_bytes = sample_stack_bytes;
	s->phase_signal = phase_signal;
	s->start_off = off_ids;
	s->nr_cpus = perf_nr_cpus();
	s->ring_pages = ring_pages;
	s->rings = calloc((size_t)s->nr_cpus, sizeof(*s->rings));
	if (!s->rings || order_init(&s->order, s->nr_cpus))
		return session_set_error(s, -ENOMEM, "out of memory");
	for (int cpu = 0; cpu < s->nr_cpus; cpu++)
		s->rings[cpu].fd = -1;
	if (attached && (rc = read_new_tids(s)) < 0)
		return session_set_error(s, rc, "reading the threads of process %d: %s", (int)pid,
					 rc == -ESRCH ? "no such process" : strerror(-rc));
	if (attached)
		qsort(s->tids, s->nr_tids, sizeof(*s->tids), cmp_tid);
	for (size_t i = 0; i < nr_tasks(s); i++)
		if ((rc = open_leaders(s, i)))
			return rc;
	for (int i = 0; i < mtx_nr_sources; i++) {
		if (!(mask & (1u << i)))
			continue;
		rc = mtx_sources[i]->layout(s);
		if (!rc)
			rc = mtx_sources[i]->open(s);
		if (rc)
			return rc;
	}
	if (sample_hz) {
		rc = source_samples.open(s);
		if (rc)
			return rc;
	}
	if (phase_signal && ((rc = source_phase_signal.layout(s)) || (rc = source_phase_signal.open(s))))
		return rc;
	return 0;
}

/* Synthetic ids for offline sessions: leader, then each source's tags. */
#define OFFLINE_ID_BASE 1000

int session_open_offline(struct mtx_session *s, int nr_cpus)
{
	int rc;
	memset(s, 0, sizeof(*s));
	s->pid = -1;
	s->nr_cpus = nr_cpus;
	if (order_init(&s->order, nr_cpus))
		return session_set_error(s, -ENOMEM, "out of memory");
	if (add_event_id(s, OFFLINE_ID_BASE, &source_sched, -1, 0, 0, -1))
		return -ENOMEM;
	for (int i = 0; i < mtx_nr_sources; i++) {
		rc = mtx_sources[i]->layout(s);
		if (rc)
			return rc;
		for (int tag = 0; tag < mtx_sources[i]->nr_tags; tag++)
			if (add_event_id(s, session_offline_id(mtx_sources[i], tag), mtx_sources[i], tag, PERF_SAMPLE_RAW, 0, -1))
				return -ENOMEM;
	}
	if (add_event_id(s, session_offline_id(&source_samples, 0), &source_samples, 0, PERF_SAMPLE_CALLCHAIN, 0, -1))
		return -ENOMEM;
	return 0;
}

uint64_t session_offline_id(const struct mtx_source *source, int tag)
{
	return source ? OFFLINE_ID_BASE + 16 * (1 + (uint64_t)source->id) + (uint64_t)tag : OFFLINE_ID_BASE;
}

static int cmp_event_id(const void *key, const void *elem)
{
	uint64_t id = *(const uint64_t *)key, other = ((const struct session_event *)elem)->id;
	return (id > other) - (id < other);
}

/* Ids come from one counter, in the order the events were opened: an
 * attached session has one per thread, CPU and event, so it is searched
 * in halves. */
static struct session_event *find_event(const struct mtx_session *s, uint64_t id)
{
	if (s->ids_unsorted) {
		for (size_t i = 0; i < s->nr_events; i++)
			if (s->events[i].id == id)
				return &s->events[i];
		return NULL;
	}
	return s->nr_events ? bsearch(&id, s->events, s->nr_events, sizeof(*s->events), cmp_event_id) : NULL;
}

static void push(struct mtx_session *s, int cpu, struct mtx_event *ev)
{
	s->decoded[ev->type]++;
	if (order_push(&s->order, cpu, ev))
		s->lost[MTX_SRC_SCHED]++; /* out of memory: count, never hide */
}

/*
 * PERF_RECORD_MMAP2: {u32 pid, tid; u64 addr, len, pgoff; then either
 * {u32 maj, min; u64 ino, ino_generation} or, with MISC_MMAP_BUILD_ID,
 * {u8 build_id_size; u8, u16 reserved; u8 build_id[20]}; u32 prot, flags;
 * char filename[] (NUL-padded to 8 bytes)} and the sample_id trailer.
 * Only executable mappings are reported (attr.mmap without mmap_data).
 * Returns 1 with @ev filled (its path malloc'd), 0 if malformed.
 */
static int decode_mmap2(const struct perf_event_header *hdr, struct mtx_event *ev)
{
	const uint8_t *body = (const uint8_t *)(hdr + 1);
	size_t avail = hdr->size - sizeof(*hdr);
	uint32_t ids[2];

	if (avail < 64 + 32 + 1)
		return 0;
	avail -= 32; /* the sample_id trailer */
	memcpy(ids, body, 8);
	ev->type = MTX_EV_MMAP;
	ev->pid = (int32_t)ids[0];
	ev->tid = (int32_t)ids[1];
	memcpy(&ev->u.mmap.start, body + 8, 8);
	memcpy(&ev->u.mmap.len, body + 16, 8);
	memcpy(&ev->u.mmap.pgoff, body + 24, 8);
	if (hdr->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		ev->u.mmap.build_id_size = body[32] <= 20 ? body[32] : 20;
		memcpy(ev->u.mmap.build_id, body + 36, ev->u.mmap.build_id_size);
	}
	ev->u.mmap.path = strndup((const char *)body + 64, avail - 64);
	return ev->u.mmap.path != NULL;
}

static bool is_run_pid(const struct mtx_session *s, pid_t pid)
{
	if (pid == s->pid)
		return true;
	for (size_t i = 0; i < s->nr_run_pids; i++)
		if (s->run_pids[i] == pid)
			return true;
	return false;
}

static void add_run_pid(struct mtx_session *s, pid_t pid)
{
	pid_t *p;
	if (is_run_pid(s, pid) || !(p = grow_array(s->run_pids, &s->cap_run_pids, s->nr_run_pids, sizeof(*p), 8)))
		return;
	s->run_pids = p;
	s->run_pids[s->nr_run_pids++] = pid;
}

void session_decode_record(struct mtx_session *s, int cpu, const struct perf_event_header *hdr)
{
	const uint8_t *body = (const uint8_t *)(hdr + 1);
	struct session_event *sev;
	struct perf_sample sample;
	struct mtx_event ev;
	uint32_t v[4];
	uint64_t lost[2];

	if (perf_sample_parse(hdr, 0, &sample)) {
		s->undecodable++;
		return;
	}
	sev = find_event(s, sample.id);
	/* Attached, a thread started by a thread with events during the scans
	 * inherited them, and got its own when a scan found it: the records of
	 * the inherited copies are its own ones again. */
	if (sev && sev->task && sev->task != (pid_t)sample.tid && hdr->type != PERF_RECORD_LOST &&
	    hdr->type != PERF_RECORD_LOST_SAMPLES && has_own_events(s, (pid_t)sample.tid))
		return;
	/* A probe set's uprobes fire in every process that maps the file. */
	if (sev && sev->set && hdr->type == PERF_RECORD_SAMPLE) {
		if (!is_run_pid(s, (pid_t)sample.pid))
			return;
		sev->hits++;
	}
	memset(&ev, 0, sizeof(ev));
	ev.ts_ns = sample.time;
	ev.cpu = (int32_t)sample.cpu;
	ev.pid = (int32_t)sample.pid;
	ev.tid = (int32_t)sample.tid;

	switch (hdr->type) {
	case PERF_RECORD_SAMPLE:
		if (!sev || (sev->extra && perf_sample_parse(hdr, sev->extra, &sample))) {
			s->undecodable++;
			return;
		}
		if (sev->source->decode(s, sev->tag, &sample, &ev))
			push(s, cpu, &ev);
		return;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (hdr->size < sizeof(*hdr) + 16) {
			s->undecodable++;
			return;
		}
		memcpy(v, body, 16); /* pid, ppid, tid, ptid */
		ev.type = hdr->type == PERF_RECORD_FORK ? MTX_EV_FORK : MTX_EV_EXIT;
		if (ev.type == MTX_EV_FORK && v[0] != v[1])
			add_run_pid(s, (pid_t)v[0]); /* a new process of the run */
		ev.pid = (int32_t)v[0];
		ev.tid = (int32_t)v[2];
		ev.u.fork.ppid = (int32_t)v[1];
		ev.u.fork.ptid = (int32_t)v[3];
		push(s, cpu, &ev);
		return;
	case PERF_RECORD_COMM:
		if (hdr->size < sizeof(*hdr) + 8 + 32) {
			s->undecodable++;
			return;
		}
		memcpy(v, body, 8);
		ev.type = MTX_EV_COMM;
		ev.pid = (int32_t)v[0];
		ev.tid = (int32_t)v[1];
		/* comm is NUL-padded to 8 bytes; the kernel's TASK_COMM_LEN is 16. */
		strncpy(ev.u.comm.comm, (const char *)body + 8, sizeof(ev.u.comm.comm) - 1);
		ev.u.comm.exec = (hdr->misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
		push(s, cpu, &ev);
		return;
	case PERF_RECORD_SWITCH:
		/* Switch-out comes from sched:sched_switch, which also has the
		 * state left in and the next task. */
		if (hdr->misc & PERF_RECORD_MISC_SWITCH_OUT)
			return;
		ev.type = MTX_EV_SWITCH_IN;
		push(s, cpu, &ev);
		return;
	case PERF_RECORD_MMAP2:
		if (decode_mmap2(hdr, &ev))
			push(s, cpu, &ev);
		else
			s->undecodable++;
		return;
	case PERF_RECORD_LOST:
		if (hdr->size < sizeof(*hdr) + 16) {
			s->undecodable++;
			return;
		}
		memcpy(lost, body, 16);
		sev = find_event(s, lost[0]);
		s->lost_said[sev ? sev->source->id : MTX_SRC_SCHED] += lost[1];
		return;
	case PERF_RECORD_LOST_SAMPLES:
		memcpy(lost, body, 8);
		s->lost_said[sev ? sev->source->id : MTX_SRC_SCHED] += lost[0];
		return;
	default:
		return; /* THROTTLE, ITRACE_START ... carry nothing we store */
	}
}

static void drain_one(void *ctx, int cpu, const struct perf_event_header *hdr)
{
	session_decode_record(ctx, cpu, hdr);
}

size_t session_drain(struct mtx_session *s)
{
	size_t n = 0;
	for (int cpu = 0; cpu < s->nr_cpus; cpu++)
		n += ring_drain(&s->rings[cpu], drain_one, s);
	return n;
}

void session_disable(struct mtx_session *s)
{
	for (size_t i = 0; i < s->nr_fds; i++)
		ioctl(s->fds[i], PERF_EVENT_IOC_DISABLE, 0);
	for (int cpu = 0; cpu < s->nr_cpus; cpu++)
		if (s->rings && s->rings[cpu].fd >= 0)
			ioctl(s->rings[cpu].fd, PERF_EVENT_IOC_DISABLE, 0);
}

/*
 * Closing the last perf event of a tracepoint unregisters its probe, which
 * waits for an RCU grace period, and the kernel serializes these: 40 ms per
 * tracepoint here, 150 ms for four, in threads or not. Nothing of the run
 * depends on it, so a short-lived child holds the last references and pays
 * for them after mtx has exited; our own closes are then cheap.
 */
int session_after_close(struct mtx_session *s, void (*fn)(void *ctx), void *ctx)
{
	if (s->nr_after_close >= SESSION_MAX_HOOKS)
		return -ENOSPC;
	s->after_close[s->nr_after_close++] = (struct session_hook){ fn, ctx };
	return 0;
}

static void run_hooks(const struct session_hook *hooks, int n)
{
	for (int i = 0; i < n; i++)
		hooks[i].fn(hooks[i].ctx);
}

/* Returns the child's pid, or -1 when it all ran here. */
static pid_t close_in_background(int *fds, size_t n, const struct session_hook *after, int nr_after)
{
	int go[2] = { -1, -1 };
	pid_t pid = -1;
	char c;

	if (n && pipe2(go, O_CLOEXEC) == 0) {
		pid = fork();
		if (pid == 0) {
			/* Wait until the parent has dropped its references, so
			 * that ours are the last ones. */
			close(go[1]);
			while (read(go[0], &c, 1) < 0 && errno == EINTR)
				;
			for (size_t i = 0; i < n; i++)
				close(fds[i]);
			run_hooks(after, nr_after);
			_exit(0);
		}
		close(go[0]);
	}
	for (size_t i = 0; i < n; i++)
		close(fds[i]);
	if (go[1] >= 0)
		close(go[1]); /* EOF releases the child (if fork failed: nobody) */
	if (pid < 0)
		run_hooks(after, nr_after);
	return pid;
}

void session_detach(struct mtx_session *s)
{
	if (s->detaching)
		return;
	s->detaching = close_in_background(s->fds, s->nr_fds, s->after_close, s->nr_after_close);
	s->nr_fds = 0;
	s->nr_after_close = 0;
	for (int cpu = 0; s->rings && cpu < s->nr_cpus; cpu++)
		if (s->rings[cpu].fd >= 0)
			ring_unmap(&s->rings[cpu]);
}

void session_close(struct mtx_session *s)
{
	session_detach(s);
	/* Attached, the process runs on: mtx exits only once nothing of it
	 * is left there. */
	if (s->attached && s->detaching > 0)
		waitpid(s->detaching, NULL, 0);
	for (int i = 0; i < MTX_SRC__COUNT; i++)
		free(s->source_state[i]);
	free(s->rings);
	free(s->fds);
	free(s->events);
	free(s->tids);
	free(s->specs);
	free(s->run_pids);
	free(s->error);
	order_free(&s->order);
	memset(s, 0, sizeof(*s));
}
