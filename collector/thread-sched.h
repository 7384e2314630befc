/*
 * collector/thread-sched.h - each traced thread's scheduling class
 * (policy, real-time priority, nice) into thread_sched (seed 004's
 * simulation schedules by priority; SEEDS-MAP P2): read from /proc when
 * the collector sees the thread appear, then every change: those the
 * program makes through the C library, exact, from libmtx-preload.so's
 * records, and those made from outside (chrt -p, renice), seen when the
 * kernel priority sched_switch reports for the thread changes.
 */
#ifndef MTX_COLLECTOR_THREAD_SCHED_H
#define MTX_COLLECTOR_THREAD_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "collector/writer.h"

struct mtx_thread_sched;

/* thread_sched_new - the classes last written, per thread, into @w.
 * NULL when out of memory. */
struct mtx_thread_sched *thread_sched_new(struct mtx_writer *w);

/*
 * thread_sched_record - read thread @tid of process @pid
 * (/proc/PID/task/TID/stat) and write its thread_sched row, stamped now.
 * A thread already gone writes nothing. Returns 0, -errno when it could
 * not be read (-ENOENT) or parsed (-EPROTO), or the writer's error.
 */
int thread_sched_record(struct mtx_thread_sched *ts, int32_t pid, int32_t tid);

/*
 * thread_sched_changed - thread @tid's class became @policy (SCHED_*),
 * @priority, @nice at @ts_ns (a library record): write its row, with
 * the affinity @cpus (a bit a CPU) when @affinity (the call set it), read
 * again when @cpus is 0 (the record did not say it).
 */
int thread_sched_changed(struct mtx_thread_sched *ts, int32_t tid, uint64_t ts_ns, int policy, int priority,
			 int nice, bool affinity, uint32_t cpus);

/*
 * thread_sched_switch - thread @tid of @pid left a CPU at @ts_ns with
 * kernel priority @prio (sched_switch's prev_prio): when that differed
 * from its last one since the class was last read, and that read is 10 ms
 * old, read its class again and write it, stamped @ts_ns, if it changed
 * (a boost by a priority-inheritance mutex changes prio, not the class).
 */
void thread_sched_switch(struct mtx_thread_sched *ts, int32_t pid, int32_t tid, int32_t prio, uint64_t ts_ns);

/* thread_sched_top_rt_priority - the highest real-time (SCHED_FIFO or
 * SCHED_RR) priority a traced thread has had so far, 0 when none. */
int thread_sched_top_rt_priority(const struct mtx_thread_sched *ts);

void thread_sched_free(struct mtx_thread_sched *ts);

#endif
