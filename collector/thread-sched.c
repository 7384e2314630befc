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
	char path[64], buf[1024], *p;
	long nice = 0, rt_priority = 0, policy = -1;
	uint64_t now = clock_now_ns();
	ssize_t n;
	int field;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	n = small_file_read(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	p = strrchr(buf, ')');
	if (!p)
		return -EPROTO;
	p++;
	for (field = 3; field <= 41; field++) {
		char *end;
		long v;

		while (*p == ' ')
			p++;
		if (!*p)
			return -EPROTO;
		v = strtol(p, &end, 10);
		if (field == 19)
			nice = v;
		else if (field == 40)
			rt_priority = v;
		else if (field == 41)
			policy = v;
		p = strchr(p, ' ');
		if (!p && field < 41)
			return -EPROTO;
	}
	return writer_thread_sched(w, tid, now, policy_name(policy), (int32_t)rt_priority, (int32_t)nice);
}
