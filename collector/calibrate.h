/*
 * collector/calibrate.h - the cost of one kernel record to the thread it
 * is recorded for, calibrated at the start of a run (see calibrate.c).
 */
#ifndef MTX_COLLECTOR_CALIBRATE_H
#define MTX_COLLECTOR_CALIBRATE_H

#include "collector/writer.h"

/* The kernel-side records calibrated at each run's start. */
enum { CAL_REC_SYSCALLS, CAL_REC_SAMPLES, CAL_REC_SWITCHES, CAL_REC_WAKEUPS, CAL_NR_RECORDS };

struct mtx_record_cal {
	const char *meta_key; /* cal_<source>_ns */
	const char *label;    /* a few words, for mtx calibrate */
	const char *what;     /* what one costs, and to whom */
};

/* calibrate_records - each record's meta key and description, by CAL_REC_*. */
extern const struct mtx_record_cal calibrate_records[CAL_NR_RECORDS];

/*
 * calibrate_record_costs - calibrate_kernel_costs without the writer: the
 * cost of one record of each, in @ns by CAL_REC_* (0: not calibrated, or not
 * clearly). Sources the run does not enable are not calibrated.
 */
void calibrate_record_costs(uint64_t ns[CAL_NR_RECORDS], unsigned sources, unsigned sample_hz,
			    unsigned sample_stack_bytes);

/*
 * calibrate_kernel_costs - for each calibrated source the run enables
 * (@sources: bit i for mtx_sources[i]; @sample_hz nonzero: CPU samples,
 * with @sample_stack_bytes of user stack), time its records on this
 * thread and write meta cal_<source>_ns. A source it cannot measure
 * clearly gets no key. Call before the program starts (~30 ms).
 */
void calibrate_kernel_costs(struct mtx_writer *w, unsigned sources, unsigned sample_hz,
			    unsigned sample_stack_bytes);

/*
 * calibrate_uprobes - with @ids the tracepoint ids of an entry and a
 * return probe on calibrate_uprobe_target (defined the way the run's
 * --functions probes are), time calls of it on this thread and write meta
 * cal_uprobes_ns, the cost of one traced call (both hits). Its two events
 * are left open and disabled in @fds (-1: none), for the caller to close
 * with the run's (session_keep_fd): a uprobe's last close is slow.
 */
uint64_t calibrate_uprobes(struct mtx_writer *w, const long ids[2], int fds[2]);

/* calibrate_uprobe_target - the function calibrate_uprobes calls. */
void calibrate_uprobe_target(void);

#endif
