/*
 * collector/cal-store.h - the costs mtx calibrate measured, kept with the
 * identity of the machine they were measured on (host name, kernel
 * release, CPU model, CPUs), for mtx collect to fall back on when a run's
 * own calibration is not clear (noisy rounds). One file of "key value"
 * lines: $MTX_CALIBRATION, else /var/lib/mtx/calibration for root, else
 * $XDG_STATE_HOME (or ~/.local/state)/mtx/calibration.
 */
#ifndef MTX_COLLECTOR_CAL_STORE_H
#define MTX_COLLECTOR_CAL_STORE_H

#include <stddef.h>
#include <stdint.h>

/* cal_store_path - where the figures are kept, into @out. */
void cal_store_path(char *out, size_t size);

/* cal_store_save - keep figure @key (a meta key: cal_uprobes_ns, ...) of
 * this machine; a file of another machine is replaced. Returns 0 or
 * -errno. */
int cal_store_save(const char *key, uint64_t ns);

/* cal_store_load - figure @key as kept for this machine, 0 when none. */
uint64_t cal_store_load(const char *key);

#endif
