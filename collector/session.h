/*
 * collector/session.h - the perf side of one collection: the per-CPU rings,
 * the events of every source redirected into them, and the decoding of
 * records into struct mtx_event pushed into the time-ordering stage.
 */
#ifndef MTX_COLLECTOR_SESSION_H
#define MTX_COLLECTOR_SESSION_H

#include "collector/event.h"
#include "collector/order.h"
#include "collector/perf.h"
#include "collector/ring.h"
#include "collector/source.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct session_event {
	uint64_t id;                      /* perf's event id (PERF_EVENT_IOC_ID) */
	const struct mtx_source *source;
	int tag;                          /* which of the source's events */
	uint64_t extra;                   /* sample_type bits beyond MTX_SAMPLE_TYPE */
	pid_t task;                       /* attached: the thread it was opened on, else 0 */
	int fd;                           /* -1 once closed (session_close_set) */
	uint32_t set;                     /* a probe set's (mtx ctl probe add), else 0 */
	uint64_t hits;                    /* records decoded, for a set's events */
};

#define SESSION_MAX_HOOKS 4 /* uprobe users: the sync fallback, --functions */

/* A per-task event as a source asked for it, kept when attached to open
 * it again on each thread found later (session_attach_scan). */
struct session_spec {
	struct perf_event_attr attr;
	const struct mtx_source *source;
	int tag;
};

struct mtx_session {
	pid_t pid;                 /* the traced process (-1: none yet) */
	/* Attached to a running process (mtx collect -p): per-task events
	 * are opened on each of its threads, disabled until session_enable;
	 * else on @pid alone, inherited, enabled by its exec. */
	int attached;
	unsigned start_off;        /* bit by enum mtx_source_id: opened off (session_open's off_ids) */
	pid_t *tids;               /* attached: the threads with events */
	size_t nr_tids, cap_tids;
	struct session_spec *specs; /* attached: the per-task events */
	size_t nr_specs, cap_specs;
	int ids_unsorted;          /* an id came lower than the one before */
	pid_t detaching;           /* session_detach's closer: its pid, or -1 */
	pid_t *run_pids;           /* the processes of the run: @pid, and those forked */
	size_t nr_run_pids, cap_run_pids;
	unsigned sample_hz;        /* CPU samples per second and thread, 0: none */
	int phase_signal;          /* --phase-signal's number, 0: none (source_phase_signal) */
	unsigned sample_stack_bytes; /* user stack copied per sample for DWARF
	                              * unwinding, 0: frame-pointer chains only */
	int nr_cpus;
	size_t ring_pages;         /* data pages per CPU ring */
	struct mtx_ring *rings;    /* [nr_cpus]; the ring's fd is that CPU's leader */
	int *fds;                  /* every other event fd, closed at the end */
	size_t nr_fds, cap_fds;
	struct session_event *events;
	size_t nr_events, cap_events;
	void *source_state[MTX_SRC__COUNT];
	struct mtx_order order;
	uint64_t lost[MTX_SRC__COUNT];       /* records dropped; the kernel's added by session_count_lost */
	uint64_t lost_said[MTX_SRC__COUNT];  /* what PERF_RECORD_LOST said, by the writing event's source */
	uint64_t lost_read[MTX_SRC__COUNT];  /* PERF_FORMAT_LOST of the events closed so far */
	size_t lost_reads;                   /* events whose count was read */
	bool lost_unread;                    /* some event's count could not be read: lost_said stands */
	uint64_t decoded[MTX_EV__COUNT];     /* events decoded, by type */
	uint64_t undecodable;                /* records we could not parse */
	char *error;                         /* last error message */
	/* Run once every event is closed (session_close), possibly in a
	 * child after mtx exited: only open/write/close-like work there.
	 * Added with session_after_close. */
	struct session_hook {
		void (*fn)(void *ctx);
		void *ctx;
	} after_close[SESSION_MAX_HOOKS];
	int nr_after_close;
};

/*
 * session_count_lost - once the events are disabled and the rings drained:
 * add to s->lost what the kernel dropped, by source. Each event's own
 * count (PERF_FORMAT_LOST) is exact; the PERF_RECORD_LOSTs only stand in
 * when a count cannot be read (before Linux 6.0, or no event has an fd:
 * an offline session): the ring writes one only when a later record
 * fits, so drops just before the end go unsaid.
 */
void session_count_lost(struct mtx_session *s);

/* session_keep_fd - close @fd with the session's events (in the
 * background, as they are). Returns 0 or -ENOMEM (@fd then closed). */
int session_keep_fd(struct mtx_session *s, int fd);

/* session_after_close - run @fn(@ctx) once the session's events are all
 * closed (uprobes can only be removed then). Returns 0, or -ENOSPC when
 * SESSION_MAX_HOOKS are taken. */
int session_after_close(struct mtx_session *s, void (*fn)(void *ctx), void *ctx);

/*
 * session_open - open the rings and the events of the sources in @mask
 * (bit i = mtx_sources[i]) for process @pid (events enabled at its exec;
 * @attached: on each thread of the running process @pid, enabled by
 * session_enable) with @ring_pages data pages per CPU, and CPU samples at
 * @sample_hz (0: none; source_samples), each with a copy of
 * @sample_stack_bytes of the user stack (0: none, frame-pointer chains
 * only). The sources in @off_ids (bit 1 << enum mtx_source_id) are opened
 * but left off, until session_source_enable. Returns 0 or -errno with
 * s->error.
 */
int session_open(struct mtx_session *s, pid_t pid, int attached, unsigned mask, unsigned off_ids, size_t ring_pages,
		 unsigned sample_hz, unsigned sample_stack_bytes, int phase_signal);

/*
 * session_attach_scan - attached: open every per-task event so far on the
 * threads of the process that have none yet (/proc/PID/task). A thread
 * started by one that has its events inherits them; one started by a
 * thread still without events is found by the next scan, so scan until
 * none is new. Returns how many were new, or -errno with s->error
 * (-ESRCH: the process is gone).
 */
int session_attach_scan(struct mtx_session *s);

/* session_enable - attached: start every event at once. Returns 0 or
 * -errno with s->error. */
int session_enable(struct mtx_session *s);

/*
 * session_add_set_tracepoint - while the program runs (mtx ctl probe add):
 * open tracepoint @id (a uprobe) on every CPU for every task, disabled
 * until session_enable_set unless @on, as event @tag of @source in probe
 * set @set (0: none, closed with the session). Per task it
 * would reach only the threads that exist and those they start; every
 * task reaches them all, and the records of processes not in the run are
 * dropped (the kernel puts a uprobe in every process that maps its file).
 * Returns 0 or -errno with s->error.
 */
int session_add_set_tracepoint(struct mtx_session *s, long id, const struct mtx_source *source, int tag,
			       uint32_t set, int on);

/* session_enable_set - start (@on) or stop every event of probe set @set.
 * Returns 0 or -errno with s->error. */
int session_enable_set(struct mtx_session *s, uint32_t set, int on);

/* session_close_soon - close @fds (@n) in a child, the last references:
 * the last close of a uprobe's event waits ~80 ms for the kernel. */
void session_close_soon(int *fds, size_t n);

/* session_set_hits - records decoded so far of probe set @set's events
 * whose tag has no bit of @tag_mask set (0: all of them). */
uint64_t session_set_hits(const struct mtx_session *s, uint32_t set, int tag_mask);

/*
 * session_close_set - disable probe set @set's events now, and close them
 * in a child that then runs @after(@ctx) (removing the uprobes' tracefs
 * definitions; the kernel takes ~80 ms each), so that the drain goes on.
 * Returns how many events were closed.
 */
size_t session_close_set(struct mtx_session *s, uint32_t set, void (*after)(void *ctx), void *ctx);

/* session_source_enable - start (@on) or stop every event of source @id
 * but the leaders. Returns how many, or -errno with s->error. */
int session_source_enable(struct mtx_session *s, enum mtx_source_id id, int on);

/*
 * session_add_event - for sources: open @attr on every CPU, for the traced
 * process (@system_wide = 0, inherited) or for every task (@system_wide = 1),
 * route its records into that CPU's ring and remember (@source, @tag).
 * Returns 0 or -errno with s->error set.
 */
int session_add_event(struct mtx_session *s, struct perf_event_attr *attr, const struct mtx_source *source,
		      int tag, int system_wide);

/*
 * session_add_tracepoint - session_add_event for tracepoint @id (a uprobe
 * defined in tracefs, say), sampled with its raw payload, inherited by
 * the traced process's threads and children and enabled at its exec.
 */
int session_add_tracepoint(struct mtx_session *s, long id, const struct mtx_source *source, int tag);

/*
 * session_open_offline - a session with no perf events, for decoding stored
 * record bytes (unit tests, the writer benchmark): tracepoint layouts are
 * read from tracefs (call tracefs_ensure first) and each source's events get
 * the synthetic ids session_offline_id() returns. Returns 0 or -errno.
 */
int session_open_offline(struct mtx_session *s, int nr_cpus);

/* session_offline_id - the id of @source's event @tag in an offline session
 * (@source NULL: the leader, whose records are FORK, COMM, SWITCH, ...). */
uint64_t session_offline_id(const struct mtx_source *source, int tag);

/* session_drain - decode every new record of every ring into the ordering
 * stage. Returns the number of records. */
size_t session_drain(struct mtx_session *s);

/* session_decode_record - decode one record (exposed for unit tests). */
void session_decode_record(struct mtx_session *s, int cpu, const struct perf_event_header *hdr);

/* session_disable - stop all events (before the final drain). */
void session_disable(struct mtx_session *s);

/* session_detach - close every event and unmap the rings, once they are
 * drained (in a child, which then runs the after_close hooks: removing
 * uprobes takes the kernel ~40 ms each). Attached, the process is free of
 * them when session_close returns. */
void session_detach(struct mtx_session *s);

/* session_close - session_detach, and free everything. */
void session_close(struct mtx_session *s);

/* session_set_error - printf into s->error; returns @e. */
int session_set_error(struct mtx_session *s, int e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
