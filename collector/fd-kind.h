/*
 * collector/fd-kind.h - which file descriptor a syscall worked on, and what
 * that descriptor was (file, pipe, socket, ...) and, for a file, its path:
 * the fd, fd_kind and path columns of syscalls.
 *
 * The kind is read from /proc/<pid>/fd/<fd> while the run is recorded, up
 * to a tenth of a second after the syscall, and cached per (pid, fd) until
 * the descriptor is closed or replaced. A lookup is trusted for a syscall only
 * once the event stream shows that the descriptor did not change between
 * the syscall and the lookup (closes are seen at their entry, lookups are
 * stamped on the events' clock); until then the row is held back, and if
 * the descriptor did change, the row is written with fd_kind NULL. So
 * fd_kind is what the descriptor was, or NULL: never a guess.
 */
#ifndef MTX_COLLECTOR_FD_KIND_H
#define MTX_COLLECTOR_FD_KIND_H

#include "collector/writer.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Kinds, declared once: X(enum suffix, name in syscalls.fd_kind, start of
 * the /proc/<pid>/fd/<fd> link that names it, or NULL when the kind comes
 * from the file type of a path instead). Specific anon_inode names come
 * before the catch-all ANON: the first matching prefix wins.
 */
#define MTX_FD_KINDS(X)                                  \
	X(FILE, "file", NULL)                            \
	X(DIR, "dir", NULL)                              \
	X(PIPE, "pipe", "pipe:[")                        \
	X(SOCKET, "socket", "socket:[")                  \
	X(TTY, "tty", NULL)                              \
	X(DEV, "dev", NULL)                              \
	X(EVENTFD, "eventfd", "anon_inode:[eventfd]")    \
	X(TIMERFD, "timerfd", "anon_inode:[timerfd]")    \
	X(SIGNALFD, "signalfd", "anon_inode:[signalfd]") \
	X(EPOLL, "epoll", "anon_inode:[eventpoll]")      \
	X(INOTIFY, "inotify", "anon_inode:inotify")      \
	X(MEMFD, "memfd", "/memfd:")                     \
	X(PIDFD, "pidfd", "anon_inode:[pidfd]")          \
	X(ANON, "anon", "anon_inode:")

enum mtx_fd_kind {
	MTX_FD_UNKNOWN, /* fd_kind NULL */
#define X(e, name, prefix) MTX_FD_##e,
	MTX_FD_KINDS(X)
#undef X
	MTX_FD__COUNT
};

/* fd_kind_name - the syscalls.fd_kind text of @kind, or NULL for unknown. */
const char *fd_kind_name(int kind);

/*
 * fd_kind_classify - the kind of a descriptor whose /proc/<pid>/fd/<fd>
 * link reads @link; @mode is the st_mode of what it points to (0 if that
 * could not be read), used only for paths. MTX_FD_UNKNOWN when neither
 * tells (e.g. a namespace descriptor, or a path whose stat failed).
 */
enum mtx_fd_kind fd_kind_classify(const char *link, mode_t mode);

/*
 * A resolver: the kind of descriptor @fd of process @pid right now, and in
 * *@looked_ns the CLOCK_MONOTONIC time by which it was read (taken after
 * the read, so that the answer describes the descriptor no later than
 * that); in @path (@size bytes) the file's path when it is one in the file
 * system, else "". MTX_FD_UNKNOWN when it cannot tell (process or fd gone).
 */
typedef enum mtx_fd_kind (*mtx_fd_resolve_fn)(void *ctx, int32_t pid, int32_t fd, uint64_t *looked_ns, char *path,
					      size_t size);

/* fd_kind_resolve_proc - the resolver that reads /proc/<pid>/fd/<fd> (its
 * link text, and a stat for paths; it never opens the file). @ctx unused. */
enum mtx_fd_kind fd_kind_resolve_proc(void *ctx, int32_t pid, int32_t fd, uint64_t *looked_ns, char *path,
				      size_t size);

/* What a syscall does with descriptors (flags of struct mtx_fd_syscall). */
enum {
	MTX_FD_USE = 1,        /* its first argument is a descriptor it works on */
	MTX_FD_NEW = 2,        /* on success it returns a new descriptor */
	MTX_FD_CLOSE = 4,      /* it closes its first argument */
	MTX_FD_CLOSE_ARG1 = 8, /* it closes its second argument first (dup2, dup3) */
	MTX_FD_CLOSE_ALL = 16, /* it may close any descriptor (close_range) */
	MTX_FD_DUPFD = 32,     /* fcntl: returns a new descriptor for F_DUPFD* */
};

struct mtx_fd_syscall {
	const char *name; /* as in collector/syscall-names.h */
	unsigned roles;   /* MTX_FD_* */
};

/* The syscalls that touch descriptors, declared once (fd-kind.c). */
extern const struct mtx_fd_syscall mtx_fd_syscalls[];
extern const size_t mtx_fd_nr_syscalls;

/*
 * A thread's syscall as far as descriptors go, kept by its thread from
 * fd_tracker_enter to fd_tracker_exit.
 */
struct mtx_fd_call {
	int32_t fd;     /* the first argument as a descriptor (syscalls.fd) */
	int32_t arg1;   /* the second argument (dup2/dup3 newfd, fcntl cmd) */
	uint8_t roles;  /* MTX_FD_* of the syscall */
	uint8_t has_fd; /* the first argument is a descriptor */
	int8_t kind;    /* enum mtx_fd_kind known at entry, or -1: at exit */
	uint32_t path;  /* with the kind: the tracker's path + 1, 0 none */
};

struct mtx_fd_tracker;

/* fd_tracker_new - a tracker handing syscall rows to @detail (which writes
 * them or adds them up), with no resolver (every fd_kind NULL) until
 * fd_tracker_set_resolver. NULL when out of memory. */
struct mtx_detail;
struct mtx_fd_tracker *fd_tracker_new(struct mtx_detail *detail);

/* fd_tracker_set_resolver - look kinds up with @fn (NULL: never). */
void fd_tracker_set_resolver(struct mtx_fd_tracker *ft, mtx_fd_resolve_fn fn, void *ctx);

/* fd_tracker_on_file_row - @fn(@ctx, row, path) for each row written (or
 * added up) whose descriptor had a path, as it goes to the writer. */
typedef void (*mtx_fd_row_fn)(void *ctx, const struct mtx_syscall_row *row, const char *path);
void fd_tracker_on_file_row(struct mtx_fd_tracker *ft, mtx_fd_row_fn fn, void *ctx);

/* fd_tracker_nr_paths - the distinct paths found so far (syscalls.path). */
size_t fd_tracker_nr_paths(const struct mtx_fd_tracker *ft);

/* fd_tracker_advance - the event stream has reached @ts_ns: lookups made
 * before it are trusted, and the rows held for them written. */
void fd_tracker_advance(struct mtx_fd_tracker *ft, uint64_t ts_ns);

/* fd_tracker_enter - syscall @nr entered at @ts_ns by a thread of @pid with
 * these first arguments; fills @c for fd_tracker_exit. */
void fd_tracker_enter(struct mtx_fd_tracker *ft, int32_t pid, int64_t nr, uint64_t arg0, uint64_t arg1,
		      uint64_t ts_ns, struct mtx_fd_call *c);

/*
 * fd_tracker_exit - the syscall of @c returned (@row->has_ret), or the
 * stream shows at @ts_ns that it never will: fill in @row's fd, and write
 * it with its fd_kind and path now or hold a copy until its lookup is
 * trusted.
 * Returns the writer's result, 0 when held.
 */
int fd_tracker_exit(struct mtx_fd_tracker *ft, int32_t pid, const struct mtx_fd_call *c,
		    struct mtx_syscall_row *row, uint64_t ts_ns);

/* fd_tracker_exec - @pid exec'ed at @ts_ns: its close-on-exec descriptors
 * are gone, and which they were is unknown, so forget all. */
void fd_tracker_exec(struct mtx_fd_tracker *ft, int32_t pid, uint64_t ts_ns);

/* fd_tracker_gone - @pid ended (its last thread exited): forget it. */
void fd_tracker_gone(struct mtx_fd_tracker *ft, int32_t pid);

/* fd_tracker_finish - the stream ended: write the rows still held, with
 * fd_kind NULL (nothing in the trace vouches for lookups made after it). */
void fd_tracker_finish(struct mtx_fd_tracker *ft);

/* fd_tracker_free - release @ft (rows still held are dropped). */
void fd_tracker_free(struct mtx_fd_tracker *ft);

#endif
