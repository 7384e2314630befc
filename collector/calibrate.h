/*
 * collector/calibrate.h - the cost of one kernel record to the thread it
 * is recorded for, calibrated at the start of a run (see calibrate.c).
 */
#ifndef MTX_COLLECTOR_CALIBRATE_H
#define MTX_COLLECTOR_CALIBRATE_H

#include "collector/writer.h"

/*
 * calibrate_kernel_costs - for each calibrated source the run enables
 * (@sources: bit i for mtx_sources[i]; @sample_hz nonzero: CPU samples,
 * with @sample_stack_bytes of user stack), time its records on this
 * thread and write meta cal_<source>_ns. A source it cannot measure
 * clearly gets no key. Call before the program starts (~30 ms).
 */
void calibrate_kernel_costs(struct mtx_writer *w, unsigned sources, unsigned sample_hz,
			    unsigned sample_stack_bytes);

#endif
