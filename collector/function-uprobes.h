/*
 * collector/function-uprobes.h - exact calls of the functions a pattern
 * chooses (mtx collect --functions), traced with an entry and a return
 * uprobe on each, without recompiling the program.
 *
 * Which functions: the PCRE2 pattern (src/match.h: it matches anywhere in
 * the name; anchor it with ^ and $) is tried on the function symbols of
 * the program's ELF file, or, written LIB:REGEX, on those of the shared
 * libraries the program loads whose file name begins with LIB ("libc",
 * "libm.so.6"; "lib" is every library). --functions-in LIB applies a plain
 * REGEX to those libraries as well as to the program. One probe pair per
 * address: aliases are traced once, under the first name found. Functions
 * that are jumped to rather than called (_start, ...) are left out.
 *
 * How: the probes are defined in tracefs (collector/uprobes.h, group
 * mtx_<pid>) and opened as tracepoints per CPU with inherit, like the sync
 * fallback's (DESIGN.md: the uprobe PMU with inherit changed the traced
 * program's behaviour). Each hit becomes an MTX_EV_CALL in the kernel's
 * time-ordered stream, which collector/calls.c pairs into calls rows.
 */
#ifndef MTX_COLLECTOR_FUNCTION_UPROBES_H
#define MTX_COLLECTOR_FUNCTION_UPROBES_H

#include <stddef.h>
#include <stdint.h>

struct mtx_session;
struct function_uprobes;

/**
 * function_uprobes_find - the functions of the program @prog that
 * @pattern ([LIB:]REGEX) chooses, also in the libraries whose names begin
 * with @also_in (NULL: none) for a plain REGEX. Defines no probe yet.
 * Finding none is not an error: function_uprobes_count is then 0.
 *
 * Return: 0, or -errno with a one-line message in @err (caller frees): a
 * bad pattern, a program that is not a readable ELF file, a LIB the
 * program does not load.
 */
int function_uprobes_find(struct function_uprobes **out, const char *prog, const char *pattern,
			  const char *also_in, char **err);

/* function_uprobes_regex - the REGEX part of @pattern ([LIB:]REGEX). */
const char *function_uprobes_regex(const char *pattern);

/* function_uprobes_count - functions found (probe pairs to define). */
size_t function_uprobes_count(const struct function_uprobes *u);

/* function_uprobes_skipped - the names the pattern matched that are never
 * probed, space-separated (functions jumped to, not called, such as
 * _start: a return probe would overwrite their stack), or NULL. */
const char *function_uprobes_skipped(const struct function_uprobes *u);

/* function_uprobes_get - the name and the file of function @i (< count),
 * valid while @u lives. */
void function_uprobes_get(const struct function_uprobes *u, size_t i, const char **name, const char **path);

/* function_uprobes_take - a set of one: function @i (< count) of @u, not
 * defined yet (its own probe set: --overhead-budget weighs functions one
 * by one). NULL when out of memory. */
struct function_uprobes *function_uprobes_take(const struct function_uprobes *u, size_t i);

/**
 * function_uprobes_define - define the entry and return probes in tracefs
 * (removing first those that killed collectors left behind). Functions
 * whose first instruction uprobes refuse are dropped from the count.
 *
 * Return: 0 or -errno with @err.
 */
int function_uprobes_define(struct function_uprobes *u, char **err);

/* function_uprobes_calibration - the tracepoint ids of the entry and return
 * probes on calibrate_uprobe_target that function_uprobes_define added for
 * calibrate_uprobes, or NULL. */
const long *function_uprobes_calibration(const struct function_uprobes *u);

/**
 * function_uprobes_open - open the probes' events in @s (for its traced
 * process, enabled at exec); their hits are decoded into MTX_EV_CALL.
 * From then on @s removes the probes once it has closed its events.
 *
 * Return: 0 or -errno with s->error.
 */
int function_uprobes_open(struct function_uprobes *u, struct mtx_session *s);

/*
 * function_uprobes_catch_up - the calls of the functions of @sets (@n,
 * defined and opened in @s) that the threads stopped in @cu are in
 * (collector/catch-up.h): each is handed to @push(@ctx, ev) as an entry
 * at @t0 marked catch_up, base of its stack first, and gets a probe on
 * its return address, on at once (the threads are stopped), whose hits
 * end it. A call whose return address takes no probe is left out.
 * Returns how many calls, or -errno with s->error.
 */
struct catch_up;
struct mtx_event;
int function_uprobes_catch_up(struct function_uprobes *const *sets, size_t n, struct mtx_session *s,
			      const struct catch_up *cu, uint64_t t0, void (*push)(void *ctx, const struct mtx_event *ev),
			      void *ctx);
/* function_uprobes_free - free @u (NULL is fine), removing its probes
 * unless a session does. */
void function_uprobes_free(struct function_uprobes *u);

/* function_uprobes_set - make @u probe set @set (> 0, mtx ctl probe add),
 * before function_uprobes_define: its events get names and tags of their
 * own. */
void function_uprobes_set(struct function_uprobes *u, uint32_t set);

/**
 * function_uprobes_open_set - while the program runs: open the probes of
 * set @u in @s, off until function_uprobes_enable_set, for every process
 * of the run (session_add_set_tracepoint).
 *
 * Return: 0 or -errno with s->error.
 */
int function_uprobes_open_set(struct function_uprobes *u, struct mtx_session *s);

/* function_uprobes_enable_set - turn set @u's probes on (@on) or off
 * everywhere. Returns 0 or -errno with s->error. */
int function_uprobes_enable_set(struct function_uprobes *u, struct mtx_session *s, int on);

/* function_uprobes_set_calls - the calls set @u's probes recorded so far
 * (their entries), in the run's processes. */
uint64_t function_uprobes_set_calls(const struct function_uprobes *u, const struct mtx_session *s);

/* function_uprobes_close_set - disable the set's events now; a child
 * closes them and then removes the definitions. Returns how many events. */
size_t function_uprobes_close_set(struct function_uprobes *u, struct mtx_session *s);

#endif
