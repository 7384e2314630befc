/*
 * collector/syscall-names.h - x86-64 syscall numbers to names, generated at
 * build time from the installed kernel headers (gen-syscall-names.sh).
 */
#ifndef MTX_COLLECTOR_SYSCALL_NAMES_H
#define MTX_COLLECTOR_SYSCALL_NAMES_H

extern const char *const syscall_names[];
extern const int syscall_names_count;

/* syscall_name - the name of syscall @nr, or "unknown" (never NULL). */
static inline const char *syscall_name(long nr)
{
	if (nr >= 0 && nr < syscall_names_count && syscall_names[nr])
		return syscall_names[nr];
	return "unknown";
}

#endif
