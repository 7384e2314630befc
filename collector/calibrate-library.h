/*
 * collector/calibrate-library.h - what libmtx-preload.so costs the thread
 * it records for (mtx calibrate --only library): an uncontended
 * pthread_mutex_lock + pthread_mutex_unlock pair recorded as two sync ops,
 * and a call through the -finstrument-functions hooks (its entry and exit
 * recorded; -pg's mcount takes the same path from its own entry).
 *
 * How: this program runs itself as a child (calibrate_library_child) that
 * times a loop of those operations, once with nothing preloaded and once
 * with the library and a live region, drained as mtx collect's pump
 * drains it (when a lane is half full, at least every millisecond), three
 * times each, interleaved. The cost is the difference of the medians.
 */
#ifndef MTX_COLLECTOR_CALIBRATE_LIBRARY_H
#define MTX_COLLECTOR_CALIBRATE_LIBRARY_H

#include <stdint.h>

/* The library's figures, ns; 0 where the runs did not give a clear one. */
struct mtx_library_cost {
	uint64_t sync_pair_ns; /* meta key cal_sync_pair_ns */
	uint64_t hook_call_ns; /* meta key cal_hook_call_ns */
	const char *sync_why, *hook_why; /* why a figure is 0 (static) */
};

/*
 * calibrate_library - measure @c. Returns 0, or -errno with @err (caller
 * frees): the library cannot be found, or the child cannot be run.
 */
int calibrate_library(struct mtx_library_cost *c, char **err);

/*
 * calibrate_library_child - the child's side, "sync" or "calls" in
 * @what: time the loop and print "ps_per_op N" (picoseconds an
 * operation) on stdout. Returns the
 * exit status.
 */
int calibrate_library_child(const char *what);

#endif
