/*
 * collector/calibrate-sched.h - what a wakeup and a context switch cost,
 * measured as seed 004 §4.2 does (see calibrate-sched.c), for mtx
 * calibrate and for each run's meta.cal_sched_switch_ns.
 */
#ifndef MTX_COLLECTOR_CALIBRATE_SCHED_H
#define MTX_COLLECTOR_CALIBRATE_SCHED_H

#include <stdint.h>

#include "collector/writer.h"

/* One calibration: the figure and how it was obtained. */
struct mtx_sched_cost {
	uint64_t switch_ns;      /* post_waiter_ns - post_alone_ns: wakeup + switch */
	uint64_t post_waiter_ns; /* median: a post's call to its waiter's return */
	uint64_t post_alone_ns;  /* median: a post no one waits on, call to return */
	unsigned rounds;         /* rounds counted */
	unsigned discarded;      /* rounds whose waiter did not sleep or ran late */
	int cpu;                 /* the CPU both threads were pinned to */
	int policy;              /* SCHED_FIFO or SCHED_OTHER */
	int waiter_prio;         /* SCHED_FIFO priority, or nice under SCHED_OTHER */
	int poster_prio;
};

/* The rounds mtx collect runs at each run's start (~10 ms). */
#define CALIBRATE_SCHED_ROUNDS_AT_START 2000u

/*
 * calibrate_sched_cost - run @rounds rounds of the two-task calibration on
 * two threads of this process (the caller's own scheduling is untouched)
 * and fill @c. Returns 0; -EAGAIN when fewer than half the rounds count or
 * the difference is not positive (no clear figure); -errno when the
 * threads cannot be made (memory, pthread_create, no usable CPU).
 */
int calibrate_sched_cost(struct mtx_sched_cost *c, unsigned rounds);

/*
 * calibrate_sched_how - how @c was obtained, for people and for meta:
 * "post with waiter 4.0 us - post without 0.9 us; 2 threads pinned to
 * cpu 0, SCHED_FIFO 99/98; n=20000". Allocated (the caller frees), or
 * NULL when out of memory.
 */
char *calibrate_sched_how(const struct mtx_sched_cost *c);

/*
 * calibrate_sched_meta - a short calibration (CALIBRATE_SCHED_ROUNDS_AT_START
 * rounds) into meta cal_sched_switch_ns and cal_sched_switch_how; no key
 * when there is no clear figure. Call before the program starts.
 */
void calibrate_sched_meta(struct mtx_writer *w);

#endif
