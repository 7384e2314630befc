/*
 * collector/thread-sched.c - see thread-sched.h.
 *
 * /proc/PID/task/TID/stat (proc(5)): after the command name in
 * parentheses (which may hold spaces and parentheses itself: the last ')'
 * ends it) come the fields from 3 (state) on; 19 is nice, 40 rt_priority,
 * 41 policy. It is read when the thread's clone (or exec) goes through the
 * collector, milliseconds after it happened: a thread that changed its
 * class at once is recorded with the class it changed to, at ts_ns.
 */
#include "config.h"
#include "collector/thread-sched.h"
#include "src/clock.h"
#include "src/small-file.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif

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

int thread_sched_record(struct mtx_writer *w, int32_t pid, int32_t tid)
{
	char path[64], buf[1024];
	long long nice, rt_priority, policy;
	uint64_t now = clock_now_ns();
	const char *fields;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	if (!(fields = proc_stat_read(path, buf, sizeof(buf))))
		return -ENOENT;
	if (proc_stat_field(fields, 19, &nice) || proc_stat_field(fields, 40, &rt_priority) ||
	    proc_stat_field(fields, 41, &policy))
		return -EPROTO;
	return writer_thread_sched(w, tid, now, policy_name(policy), (int32_t)rt_priority, (int32_t)nice);
}
