/*
 * collector/thread-sched.c - see thread-sched.h.
 *
 * /proc/PID/task/TID/stat (proc(5)): after the command name in
 * parentheses (which may hold spaces and parentheses itself: the last ')'
 * ends it) come the fields from 3 (state) on; 18 is the kernel priority
 * (as sched_switch's prio), 19 nice, 40 rt_priority, 41 policy. It is
 * read when the thread's clone (or exec) goes through the collector,
 * milliseconds after it happened: a thread that changed its class at once
 * is recorded with the class it changed to, at ts_ns.
 *
 * The classes last written are kept per tid, for the run: a run has few
 * threads compared with its events.
 */
#include "config.h"
#include "collector/thread-sched.h"
#include "src/clock.h"
#include "src/keyhash.h"
#include "src/small-file.h"

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif

/* /proc's priority field is the kernel's prio minus MAX_RT_PRIO (100). */
#define PROC_PRIO_OFFSET 100

struct thread_class {
	int32_t prio; /* kernel priority last seen (sched_switch), INT32_MIN: none */
	int16_t policy, priority, nice;
	bool written;
};

struct mtx_thread_sched {
	struct mtx_writer *w;
	struct keyhash by_tid;     /* tid -> index in classes */
	struct thread_class *classes;
	size_t nr_classes, cap_classes;
};

static const char *policy_name(long policy)
{
	switch (policy) {
	case SCHED_OTHER: return "SCHED_OTHER";
	case SCHED_FIFO: return "SCHED_FIFO";
	case SCHED_RR: return "SCHED_RR";
	case SCHED_BATCH: return "SCHED_BATCH";
	case SCHED_IDLE: return "SCHED_IDLE";
	case SCHED_DEADLINE: return "SCHED_DEADLINE";
	default: return "unknown";
	}
}

struct mtx_thread_sched *thread_sched_new(struct mtx_writer *w)
{
	struct mtx_thread_sched *ts = calloc(1, sizeof(*ts));
	if (ts)
		ts->w = w;
	return ts;
}

/* @tid's entry, made (unwritten) if it had none; NULL when out of memory.
 * Valid until the next call (the array grows). */
static struct thread_class *slot(struct mtx_thread_sched *ts, int32_t tid)
{
	const struct thread_class fresh = { .prio = INT32_MIN };
	ptrdiff_t i = keyhash_row(&ts->by_tid, tid, 0, 0, &ts->classes, &ts->nr_classes, &ts->cap_classes,
				  sizeof(fresh), &fresh);
	return i < 0 ? NULL : &ts->classes[i];
}

/* Write @tid's class unless it is the one written last. */
static int write_class(struct mtx_thread_sched *ts, int32_t tid, uint64_t ts_ns, long policy, long priority,
		       long nice)
{
	struct thread_class *c = slot(ts, tid);
	if (c && c->written && c->policy == policy && c->priority == priority && c->nice == nice)
		return 0;
	if (c) {
		c->written = true;
		c->policy = (int16_t)policy;
		c->priority = (int16_t)priority;
		c->nice = (int16_t)nice;
	}
	return writer_thread_sched(ts->w, tid, ts_ns, policy_name(policy), (int32_t)priority, (int32_t)nice);
}

/* Read @tid's class from /proc; its kernel priority into *@prio. */
static int read_class(int32_t pid, int32_t tid, long long *policy, long long *priority, long long *nice,
		      long long *prio)
{
	char path[64], buf[1024];
	const char *fields;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	if (!(fields = proc_stat_read(path, buf, sizeof(buf))))
		return -ENOENT;
	if (proc_stat_field(fields, 18, prio) || proc_stat_field(fields, 19, nice) ||
	    proc_stat_field(fields, 40, priority) || proc_stat_field(fields, 41, policy))
		return -EPROTO;
	*prio += PROC_PRIO_OFFSET;
	return 0;
}

int thread_sched_record(struct mtx_thread_sched *ts, int32_t pid, int32_t tid)
{
	long long nice, priority, policy, prio;
	uint64_t now = clock_now_ns();
	struct thread_class *c;
	int rc = read_class(pid, tid, &policy, &priority, &nice, &prio);
	if (rc)
		return rc;
	if ((c = slot(ts, tid)) != NULL) {
		c->written = false; /* a new thread of this tid: its row always */
		c->prio = (int32_t)prio;
	}
	return write_class(ts, tid, now, policy, priority, nice);
}

/* Written even when it is the class written last: a switch after the
 * change may have gone through first (the kernel's events and the
 * library's records are merged in rounds) and written it at its later
 * time; this row keeps the instant of the change. */
int thread_sched_changed(struct mtx_thread_sched *ts, int32_t tid, uint64_t ts_ns, int policy, int priority,
			 int nice)
{
	struct thread_class *c = slot(ts, tid);
	if (c)
		c->written = false;
	return write_class(ts, tid, ts_ns, policy, priority, nice);
}

void thread_sched_switch(struct mtx_thread_sched *ts, int32_t pid, int32_t tid, int32_t prio, uint64_t ts_ns)
{
	long long nice, priority, policy, proc_prio;
	struct thread_class *c = slot(ts, tid);
	if (!c || c->prio == prio)
		return;
	/* the first switch seen: only learn the priority */
	if (c->prio != INT32_MIN && read_class(pid, tid, &policy, &priority, &nice, &proc_prio) == 0)
		write_class(ts, tid, ts_ns, policy, priority, nice);
	c = slot(ts, tid);
	if (c)
		c->prio = prio;
}

void thread_sched_free(struct mtx_thread_sched *ts)
{
	if (!ts)
		return;
	keyhash_free(&ts->by_tid);
	free(ts->classes);
	free(ts);
}
