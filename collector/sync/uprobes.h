/*
 * collector/sync/uprobes.h - synchronization operations of a program that
 * libmtx-preload.so cannot enter (static, set-ID), traced with uprobes on
 * the program's own pthread, semaphore, C11 and signal functions instead,
 * and turned into the same records the library writes (struct
 * mtx_sync_record), so that sync_ops, sync_objects and every report are
 * the same whichever way a run was traced.
 *
 * How: each function gets an entry probe (object address and the other
 * arguments from the registers, the return address from the top of the
 * stack) and a return probe ($retval), defined in tracefs
 * (collector/uprobes.h) and opened like the kernel's tracepoints, per CPU
 * and inherited by every thread. Their samples are stamped by perf on
 * CLOCK_MONOTONIC, go through the same time ordering as the kernel's
 * events, and are paired per thread, entry with return, in that order.
 *
 * What differs from the library (documented in mtx-collect(1)):
 *  - calls glibc makes to these functions from inside another of them
 *    (C11 mtx_lock calls pthread_mutex_lock) are one operation, as with
 *    the library, by their return address;
 *  - calls that report errors through errno (sem_*, kill, ...) have
 *    result -1 on failure: errno is thread-local and a probe cannot read it;
 *  - a thread's create needs glibc's start_thread in the symbol table to
 *    name the new thread's handle (else the object is 0x0).
 */
#ifndef MTX_COLLECTOR_SYNC_UPROBES_H
#define MTX_COLLECTOR_SYNC_UPROBES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collector/event.h"

struct mtx_session;
struct sync_uprobes;

typedef void (*sync_record_fn)(void *ctx, const struct mtx_sync_record *r);

/**
 * sync_uprobes_new - find the functions to probe in the program at @path
 * (and, for a dynamic program, in the libraries it loads, the first one
 * defining a name winning as with the loader) and define their probes.
 * @pid > 0: the running process @path is the program of (mtx collect -p):
 * the libraries it maps instead, and only the functions one of its files
 * imports. @out is set to NULL when there is none: nothing to trace.
 *
 * Return: 0, or -errno with @err (caller frees).
 */
int sync_uprobes_new(struct sync_uprobes **out, const char *path, pid_t pid, char **err);

/* sync_uprobes_functions - how many functions are probed. */
size_t sync_uprobes_functions(const struct sync_uprobes *u);

/**
 * sync_uprobes_open - open the probes' perf events in @s (for its traced
 * process, enabled at exec). From then on @s removes the probes when it
 * closes its events (session_close), which the kernel requires first.
 *
 * Return: 0 or -errno with s->error.
 */
int sync_uprobes_open(struct sync_uprobes *u, struct mtx_session *s);

/**
 * sync_uprobes_event - feed one event of the time-ordered stream. Uprobe
 * hits are consumed (returns 1); a FORK is looked at (which create made
 * the thread) and left for the model (returns 0), as is everything else.
 * Each completed operation goes to @emit.
 */
int sync_uprobes_event(struct sync_uprobes *u, const struct mtx_event *ev, sync_record_fn emit,
		       void *ctx);

/**
 * sync_uprobes_finish - the stream has ended: emit what waited for a
 * detail that never came (a create whose thread never started). Returns
 * the number of calls that never returned or could not be paired.
 */
uint64_t sync_uprobes_finish(struct sync_uprobes *u, sync_record_fn emit, void *ctx);

/* sync_uprobes_free - free @u, removing its probes unless a session does. */
void sync_uprobes_free(struct sync_uprobes *u);

#endif
