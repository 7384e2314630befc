/*
 * mtx-phase.h - mark the phases of a program's run for mtx (mtx-collect(1),
 * PHASES). Under mtx collect, MTX_PHASE("name") begins a phase of the run
 * called name (the first 24 bytes of it), which ends where the next one
 * begins; mtx report FILE phases lists them, and every report and mtx
 * diagnose take --phase. Without mtx it does nothing: mtx_phase is declared
 * weak, and is NULL unless libmtx-preload.so defines it.
 */
#ifndef MTX_PHASE_H
#define MTX_PHASE_H

#ifdef __cplusplus
extern "C" {
#endif

extern void mtx_phase(const char *name) __attribute__((weak));

#define MTX_PHASE(name)                  \
	do {                             \
		if (mtx_phase)           \
			mtx_phase(name); \
	} while (0)

#ifdef __cplusplus
}
#endif

#endif
