/*
 * collector/thread-sched.h - each traced thread's scheduling class
 * (policy, real-time priority, nice), read from /proc when the collector
 * sees the thread appear, into thread_sched (seed 004's simulation
 * schedules by priority; SEEDS-MAP P2).
 */
#ifndef MTX_COLLECTOR_THREAD_SCHED_H
#define MTX_COLLECTOR_THREAD_SCHED_H

#include <stdint.h>

#include "collector/writer.h"

/*
 * thread_sched_record - read thread @tid of process @pid
 * (/proc/PID/task/TID/stat) and write its thread_sched row, stamped now.
 * A thread already gone writes nothing. Returns 0, -errno when it could
 * not be read (-ENOENT) or parsed (-EPROTO), or the writer's error.
 */
int thread_sched_record(struct mtx_writer *w, int32_t pid, int32_t tid);

#endif
