/*
 * collector/uprobes.h - uprobes defined through tracefs (uprobe_events) in a
 * group of their own, "mtx_<pid>" for the collector's pid, and removed
 * again when done. Each probe is then an ordinary tracepoint: open it with
 * PERF_TYPE_TRACEPOINT and the id uprobe_group_add returns.
 *
 * Why tracefs and not the uprobe PMU: on these machines a uprobe opened
 * through the perf uprobe PMU with inherit=1 changed the traced program's
 * behaviour; the same probe defined in uprobe_events and opened as a
 * tracepoint per CPU with inherit=1 did not (DESIGN.md).
 *
 * A probe can only be removed once no perf event uses it (the kernel says
 * EBUSY), and the collector's last close of a tracepoint event is slow (an
 * RCU grace period each), so the removal is made safe to run from the
 * short-lived child that does those closes (collector/session.c): it
 * writes prepared text, nothing else. A collector that was killed leaves
 * its group behind; the next one removes groups whose collector is gone.
 */
#ifndef MTX_COLLECTOR_UPROBES_H
#define MTX_COLLECTOR_UPROBES_H

#include <stddef.h>
#include <stdint.h>

struct uprobe_group;

/**
 * uprobe_group_new - a new, empty group named "mtx_<our pid>", after
 * removing the probes of groups left by collectors that no longer run.
 * tracefs must be reachable (tracefs_ensure).
 *
 * Return: 0, or -errno with a message in @err (caller frees).
 */
int uprobe_group_new(struct uprobe_group **out, char **err);

/**
 * uprobe_group_add - define a probe @event (letters, digits and '_' only)
 * at byte @offset of the ELF file @path: at the function's entry, or at its
 * return when @at_return. @fetchargs are the tracefs fetch arguments
 * ("obj=%di:u64 ret=+0(%sp):u64", "rv=$retval:s64"), may be NULL. Any
 * path will do: one that is not plain (uprobe_path_is_plain) is named to
 * tracefs through an fd of the file. A definition that fails leaves no
 * probe behind.
 *
 * Return: the probe's tracepoint id (> 0), or -errno with @err.
 */
long uprobe_group_add(struct uprobe_group *g, const char *event, int at_return, const char *path,
		      uint64_t offset, const char *fetchargs, char **err);

/**
 * uprobe_path_is_plain - whether @path is written in a tracefs command as
 * it is: not empty, and nothing but ASCII letters, digits and "/._-+,@~".
 * That leaves out what tracefs treats specially (newline, whitespace by the
 * kernel's isspace, which counts byte 0xa0 too, '#' for a comment, ':'
 * before the offset) and any other character, to be sure.
 *
 * Return: 1 or 0.
 */
int uprobe_path_is_plain(const char *path);

/**
 * uprobe_entry_offset - where a function's entry probe can go: x86 uprobes
 * refuse an instruction with a LOCK or segment prefix (glibc's
 * pthread_spin_lock begins with "lock decl (%rdi)"), so the probe goes on
 * the next instruction, before which nothing has touched the registers
 * or the stack. @code holds the function's first bytes (@len of them).
 *
 * Return: the bytes to skip (0 when the first instruction is fine), or
 * -EINVAL when that instruction cannot be decoded here.
 */
int uprobe_entry_offset(const uint8_t *code, size_t len);

/* uprobe_file_entry_offset - uprobe_entry_offset for the function of
 * @size bytes at file @offset of @path (read from the file). */
int uprobe_file_entry_offset(const char *path, uint64_t offset, uint64_t size);

/* uprobe_group_name - "mtx_<pid>", the tracefs system of the probes. */
const char *uprobe_group_name(const struct uprobe_group *g);

/**
 * uprobe_group_remove - remove every probe of the group. Only open, write
 * and close: safe in a child forked from a multithreaded process. Probes
 * still in use by a perf event stay (and are counted).
 *
 * Return: how many probes could not be removed.
 */
size_t uprobe_group_remove(struct uprobe_group *g);

/* uprobe_group_free - free @g (NULL is fine); its probes stay: call
 * uprobe_group_remove first, or let a child that has a copy do it. */
void uprobe_group_free(struct uprobe_group *g);

struct mtx_session;

/*
 * uprobe_group_hand_over - leave the removal of @g's probes to session @s:
 * they are removed after its last close of their events (the kernel says
 * EBUSY before), by its closing child (session_after_close).
 *
 * Return: 0, or -errno (the probes are still the caller's to remove).
 */
int uprobe_group_hand_over(struct uprobe_group *g, struct mtx_session *s);

/* uprobe_group_disown - another process (a closer child) removes @g's
 * probes: uprobe_group_discard leaves them. */
void uprobe_group_disown(struct uprobe_group *g);

/* uprobe_group_discard - remove @g's probes unless a session has them
 * (uprobe_group_hand_over), then free it. NULL is fine. */
void uprobe_group_discard(struct uprobe_group *g);

/**
 * uprobes_remove_stale - remove the probes of every "mtx_<pid>" group whose
 * pid is not a running mtx. Return: probes removed.
 */
size_t uprobes_remove_stale(void);

#endif
