/*
 * collector/thread-sched.c - see thread-sched.h.
 *
 * /proc/PID/task/TID/stat (proc(5)): after the command name in
 * parentheses (which may hold spaces and parentheses itself: the last ')'
 * ends it) come the fields from 3 (state) on; 18 is the kernel priority
 * (as sched_switch's prio), 19 nice, 40 rt_priority, 41 policy. The
 * affinity comes from the status file next to it (Cpus_allowed_list). It is
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

/* The longest affinity list kept ("0-3,8,10-15"); a longer one is cut. */
#define CPUS_MAX 64

/* A thread's class is read again for a priority seen at a switch at most
 * this often: a priority-inheritance mutex boosts and unboosts its holder
 * at nearly every switch (stress-ng's mutex stressor), each a read of two
 * /proc files on the collector's loop otherwise, and a change made from
 * outside is rare and may be seen late anyway. (The 170 k reads in 2 s
 * that stress-ng caused were the affinity's, at each library record: see
 * thread_sched_changed.) */
#define REREAD_EVERY_NS 10000000ULL

struct thread_class {
	int32_t prio; /* kernel priority last seen (sched_switch), INT32_MIN: none */
	int32_t pid;  /* its process, for /proc (0: not known yet) */
	int16_t policy, priority, nice;
	bool written;
	bool unread;          /* a priority changed since the last read */
	uint64_t read_ns;     /* the switch of the last read (0: none) */
	char cpus[CPUS_MAX]; /* the affinity written last */
};

struct mtx_thread_sched {
	struct mtx_writer *w;
	int top_rt_priority;       /* the highest real-time priority written, 0: none */
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

/* Thread @tid's affinity (/proc/PID/task/TID/status, Cpus_allowed_list)
 * into @out, "" when it cannot be read. */
static void read_cpus(int32_t pid, int32_t tid, char *out, size_t size)
{
	char path[64], buf[4096], *p;
	out[0] = 0;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	if (small_file_read(path, buf, sizeof(buf)) <= 0 || !(p = strstr(buf, "\nCpus_allowed_list:")))
		return;
	p += strlen("\nCpus_allowed_list:");
	p += strspn(p, " \t");
	snprintf(out, size, "%.*s", (int)strcspn(p, "\n"), p);
}

/* The CPUs of @mask (bit i: CPU i) as the kernel lists them: "0-1,3". */
static void format_cpus(uint32_t mask, char *out, size_t size)
{
	size_t n = 0;
	out[0] = 0;
	for (int cpu = 0; cpu < 32; cpu++) {
		int last = cpu;
		if (!(mask >> cpu & 1))
			continue;
		while (last < 31 && (mask >> (last + 1) & 1))
			last++;
		n += (size_t)snprintf(out + n, n < size ? size - n : 0, last > cpu ? "%s%d-%d" : "%s%d", n ? "," : "",
				      cpu, last);
		cpu = last;
	}
}

/* Write @tid's class unless it is the one written last (with @cpus, its
 * affinity, "" when unknown). */
static int write_class(struct mtx_thread_sched *ts, int32_t tid, uint64_t ts_ns, long policy, long priority,
		       long nice, const char *cpus)
{
	struct thread_class *c = slot(ts, tid);
	if (c && c->written && c->policy == policy && c->priority == priority && c->nice == nice &&
	    !strcmp(c->cpus, cpus))
		return 0;
	if (c) {
		c->written = true;
		c->policy = (int16_t)policy;
		c->priority = (int16_t)priority;
		c->nice = (int16_t)nice;
		snprintf(c->cpus, sizeof(c->cpus), "%s", cpus);
	}
	if ((policy == SCHED_FIFO || policy == SCHED_RR) && priority > ts->top_rt_priority)
		ts->top_rt_priority = (int)priority;
	return writer_thread_sched(ts->w, tid, ts_ns, policy_name(policy), (int32_t)priority, (int32_t)nice,
				   cpus[0] ? cpus : NULL);
}

int thread_sched_top_rt_priority(const struct mtx_thread_sched *ts)
{
	return ts ? ts->top_rt_priority : 0;
}

/* Read @tid's class from /proc, its affinity into @cpus, its kernel
 * priority into *@prio. */
static int read_class(int32_t pid, int32_t tid, long long *policy, long long *priority, long long *nice,
		      long long *prio, char *cpus, size_t size)
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
	read_cpus(pid, tid, cpus, size);
	return 0;
}

int thread_sched_record(struct mtx_thread_sched *ts, int32_t pid, int32_t tid)
{
	long long nice, priority, policy, prio;
	uint64_t now = clock_now_ns();
	char cpus[CPUS_MAX];
	struct thread_class *c;
	int rc = read_class(pid, tid, &policy, &priority, &nice, &prio, cpus, sizeof(cpus));
	if (rc)
		return rc;
	if ((c = slot(ts, tid)) != NULL) {
		c->written = false; /* a new thread of this tid: its row always */
		c->prio = (int32_t)prio;
		c->unread = false;
		c->read_ns = 0;
		c->pid = pid;
	}
	return write_class(ts, tid, now, policy, priority, nice, cpus);
}

/* Written even when it is the class written last: a switch after the
 * change may have gone through first (the kernel's events and the
 * library's records are merged in rounds) and written it at its later
 * time; this row keeps the instant of the change. The affinity is the
 * record's when the call set it, else read now when the call set it (on
 * a CPU from 32 on) or it was not known yet: a program may change its
 * priorities 100 k times a second. */
int thread_sched_changed(struct mtx_thread_sched *ts, int32_t tid, uint64_t ts_ns, int policy, int priority,
			 int nice, bool affinity, uint32_t mask)
{
	char cpus[CPUS_MAX] = "";
	struct thread_class *c = slot(ts, tid);
	const bool known = affinity && mask;
	if (known)
		format_cpus(mask, cpus, sizeof(cpus));
	if (c) {
		c->written = false;
		if (!known && c->pid > 0 && (affinity || !c->cpus[0]))
			read_cpus(c->pid, tid, cpus, sizeof(cpus));
		else if (!known)
			memcpy(cpus, c->cpus, sizeof(cpus));
	}
	return write_class(ts, tid, ts_ns, policy, priority, nice, cpus);
}

void thread_sched_switch(struct mtx_thread_sched *ts, int32_t pid, int32_t tid, int32_t prio, uint64_t ts_ns)
{
	long long nice, priority, policy, proc_prio;
	char cpus[CPUS_MAX];
	struct thread_class *c = slot(ts, tid);
	if (!c)
		return;
	c->pid = pid;
	if (c->prio == INT32_MIN) { /* the first switch seen: only learn the priority */
		c->prio = prio;
		return;
	}
	if (c->prio != prio) {
		c->prio = prio;
		c->unread = true;
	}
	if (!c->unread || (c->read_ns && ts_ns - c->read_ns < REREAD_EVERY_NS))
		return;
	c->unread = false;
	c->read_ns = ts_ns;
	if (read_class(pid, tid, &policy, &priority, &nice, &proc_prio, cpus, sizeof(cpus)) == 0)
		write_class(ts, tid, ts_ns, policy, priority, nice, cpus);
}

void thread_sched_free(struct mtx_thread_sched *ts)
{
	if (!ts)
		return;
	keyhash_free(&ts->by_tid);
	free(ts->classes);
	free(ts);
}
