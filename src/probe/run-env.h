/*
 * src/probe/run-env.h - what the run's surroundings did to its threads,
 * as the probe-effect model needs it (seed 004 §3.2, §4.1-4.2; SEEDS-MAP
 * P2 and P4): the interrupts that took a CPU from a traced thread (T_0's
 * time, not the thread's), the wakeups from outside the traced threads
 * that ended a wait at an instant the run without mtx shares (data from
 * another process, a device), and each thread's priority and CPUs over
 * time (thread_sched). Read once, looked up while run.c builds the
 * segments (one run_env for one probe_run). Private to src/probe/.
 */
#ifndef MTX_PROBE_RUN_ENV_H
#define MTX_PROBE_RUN_ENV_H

#include "src/probe/run.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

struct run_env;

/*
 * run_env_load - read @db's interrupts, the wakeups from outside its
 * threads and thread_sched (each when the run has it). Returns 0 and a
 * new run_env in *@out (run_env_free it), or -errno with a message in
 * @err.
 */
int run_env_load(sqlite3 *db, struct run_env **out, char **err);

/*
 * run_env_irq_within - the nanoseconds of [@lo_ns, @hi_ns) on @cpu that
 * interrupt handlers took; each such stretch is appended to @run->irqs.
 * Returns them, or -ENOMEM.
 */
int64_t run_env_irq_within(struct run_env *env, struct probe_run *run, int32_t cpu, int64_t lo_ns, int64_t hi_ns);

/*
 * run_env_t0_ended - whether thread @tid's wait that ended at @ts_ns was
 * ended by T_0 at an instant of its own: a wakeup by a process outside
 * the traced ones, or by a device's interrupt. A timer's (the end of a
 * sleep or a timeout) is not: that comes a duration after the wait
 * began, in either run; nor is an interrupt the run did not record.
 */
bool run_env_t0_ended(const struct run_env *env, int64_t tid, int64_t ts_ns);

/*
 * run_env_class_at - thread @tid's real-time priority and allowed CPUs
 * (bit n: CPU n; 0: any, or not known) at @ts_ns: its last thread_sched
 * row by then, else its first.
 */
void run_env_class_at(const struct run_env *env, int64_t tid, int64_t ts_ns, int32_t *priority, uint64_t *cpus);

/* run_env_has_irqs, run_env_has_classes - the run recorded interrupts
 * (the interrupts source), thread_sched priorities. */
bool run_env_has_irqs(const struct run_env *env);
bool run_env_has_classes(const struct run_env *env);

void run_env_free(struct run_env *env);

#endif
