/*
 * ui/main-views.h - the browser's main views, in Tab order, declared once:
 *
 *   X(enum suffix, action name, key, the key's help, how to open it)
 *
 * From this list come the actions that switch to them (ui/actions.h), their
 * keys and help lines (ui/actions.c, and so the help view, 'mtx browse
 * --keys' and the check of mtx-browse(1)) and the views the browser keeps
 * (ui/browse.c). A new main view is a line here and its view-<name>.c.
 */
#ifndef MTX_MAIN_VIEWS_H
#define MTX_MAIN_VIEWS_H

#define MAIN_VIEWS(X)                                                                              \
	X(THREADS, "threads", '1', "the threads view", threads_view_new)                              \
	X(OBJECTS, "objects", '2', "the synchronization objects view", objects_view_new)              \
	X(WAITS, "waits", '3', "the waits view", waits_view_new)                                      \
	X(TIMELINE, "timeline", '4', "the timeline view", timeline_view_new)                          \
	X(SWITCHES, "switches", '5', "the context switches view", switches_view_new)                  \
	X(SYSCALLS, "syscalls", '6', "the syscalls view", syscalls_view_new)                          \
	X(CALLS, "calls", '7', "the call tree view", calls_view_new)                                  \
	X(CRITICAL_PATH, "critical-path", '8', "the critical path view", critical_path_view_new)      \
	X(PHASES, "phases", '9', "the phases view (Enter: search a phase)", phases_view_new)          \
	X(DIAGNOSE, "diagnose", '0', "the diagnose view (why, where)", diagnose_view_new)            \
	X(PROBE_EFFECT, "probe-effect", 'E', "the probe-effect view", probe_effect_view_new)

#endif
