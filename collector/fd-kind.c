/*
 * collector/fd-kind.c - see fd-kind.h.
 *
 * Why a lookup has to be vouched for: the model decodes a syscall up to
 * ~0.1 s after it happened (the collector drains its rings every 100 ms or
 * when a quarter full), and in that time the program may have closed the
 * descriptor and opened something else under the same number (the kernel
 * hands out the lowest free one). Every lookup is stamped on the events'
 * clock (CLOCK_MONOTONIC), and the rows that rely on it are held until the
 * ordered stream passes that stamp. A descriptor can only change by being
 * closed first, and every call that closes one names it at its entry
 * (close, dup2/dup3's newfd, close_range), or is an exec or the process's
 * end; those are seen in the stream before the stamp if they came before
 * the lookup. When one is seen while a lookup is still held, the lookup may
 * describe the new file: its rows get fd_kind NULL. While a close is under
 * way the descriptor is not looked up at all, and a syscall that started
 * before the descriptor's last change gets NULL too.
 */
#include "config.h"
#include "collector/fd-kind.h"
#include "collector/detail.h"
#include "collector/syscall-names.h"
#include "src/clock.h"
#include "src/grow.h"
#include "src/keyhash.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const kind_names[] = {
	NULL,
#define X(e, name, prefix) name,
	MTX_FD_KINDS(X)
#undef X
};

static const char *const kind_prefixes[] = {
	NULL,
#define X(e, name, prefix) prefix,
	MTX_FD_KINDS(X)
#undef X
};

const char *fd_kind_name(int kind)
{
	return kind > 0 && kind < MTX_FD__COUNT ? kind_names[kind] : NULL;
}

/* Terminals by path: the pty slaves, the virtual consoles and serial lines
 * (/dev/tty*), the console and the pty master multiplexer. */
static int is_tty_path(const char *path)
{
	static const char *const ttys[] = { "/dev/pts/", "/dev/tty", "/dev/console", "/dev/ptmx" };
	for (size_t i = 0; i < sizeof(ttys) / sizeof(ttys[0]); i++)
		if (strncmp(path, ttys[i], strlen(ttys[i])) == 0)
			return 1;
	return 0;
}

enum mtx_fd_kind fd_kind_classify(const char *link, mode_t mode)
{
	for (int k = 1; k < MTX_FD__COUNT; k++)
		if (kind_prefixes[k] && strncmp(link, kind_prefixes[k], strlen(kind_prefixes[k])) == 0)
			return (enum mtx_fd_kind)k;
	/* Anything else that is not a path (namespaces "net:[...]", ...) has
	 * no kind of ours. A deleted file still reads "/path (deleted)". */
	if (link[0] != '/')
		return MTX_FD_UNKNOWN;
	switch (mode & S_IFMT) {
	case S_IFREG:
		return MTX_FD_FILE;
	case S_IFDIR:
		return MTX_FD_DIR;
	case S_IFIFO: /* a named pipe */
		return MTX_FD_PIPE;
	case S_IFSOCK:
		return MTX_FD_SOCKET;
	case S_IFCHR:
	case S_IFBLK:
		return is_tty_path(link) ? MTX_FD_TTY : MTX_FD_DEV;
	default:
		return MTX_FD_UNKNOWN;
	}
}

enum mtx_fd_kind fd_kind_resolve_proc(void *ctx, int32_t pid, int32_t fd, uint64_t *looked_ns, char *path,
				      size_t size)
{
	char proc[64], link[PATH_MAX];
	struct stat st;
	mode_t mode = 0;
	ssize_t n;

	(void)ctx;
	snprintf(proc, sizeof(proc), "/proc/%d/fd/%d", (int)pid, (int)fd);
	n = readlink(proc, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = 0;
		/* stat follows the link to the file itself without opening it. */
		if (link[0] == '/' && stat(proc, &st) == 0)
			mode = st.st_mode;
	}
	*looked_ns = clock_now_ns();
	/* a path cut short by either buffer is no path (its start still classifies) */
	snprintf(path, size, "%s", n > 0 && n < (ssize_t)sizeof(link) - 1 && link[0] == '/' &&
					   (size_t)n < size ? link : "");
	return n > 0 ? fd_kind_classify(link, mode) : MTX_FD_UNKNOWN;
}

/* Syscalls and what they do with descriptors, declared once. Those whose
 * first argument is a directory descriptor (openat, newfstatat, ...) take
 * no descriptor of ours first. */
#define USE MTX_FD_USE
#define NEW MTX_FD_NEW
const struct mtx_fd_syscall mtx_fd_syscalls[] = {
	{ "read", USE }, { "write", USE }, { "pread64", USE }, { "pwrite64", USE }, { "readv", USE },
	{ "writev", USE }, { "preadv", USE }, { "pwritev", USE }, { "preadv2", USE }, { "pwritev2", USE },
	{ "recvfrom", USE }, { "sendto", USE }, { "recvmsg", USE }, { "sendmsg", USE }, { "recvmmsg", USE },
	{ "sendmmsg", USE }, { "connect", USE }, { "bind", USE }, { "listen", USE }, { "shutdown", USE },
	{ "getsockname", USE }, { "getpeername", USE }, { "setsockopt", USE }, { "getsockopt", USE },
	{ "fsync", USE }, { "fdatasync", USE }, { "sync_file_range", USE }, { "syncfs", USE },
	{ "sendfile", USE }, /* out_fd */
	{ "splice", USE }, { "tee", USE }, { "vmsplice", USE }, { "copy_file_range", USE }, /* fd_in */
	{ "ftruncate", USE }, { "fallocate", USE }, { "fadvise64", USE }, { "readahead", USE },
	{ "getdents", USE }, { "getdents64", USE }, { "epoll_wait", USE }, { "epoll_pwait", USE },
	{ "epoll_pwait2", USE }, { "epoll_ctl", USE }, { "ioctl", USE }, { "fstat", USE }, { "fstatfs", USE },
	{ "lseek", USE }, { "flock", USE }, { "fchmod", USE }, { "fchown", USE }, { "fchdir", USE },
	{ "fsetxattr", USE }, { "fgetxattr", USE }, { "flistxattr", USE }, { "fremovexattr", USE },
	{ "inotify_add_watch", USE }, { "inotify_rm_watch", USE }, { "timerfd_settime", USE },
	{ "timerfd_gettime", USE }, { "io_uring_enter", USE }, { "io_uring_register", USE },
	{ "pidfd_send_signal", USE }, { "setns", USE }, { "fanotify_mark", USE },
	{ "accept", USE | NEW }, { "accept4", USE | NEW }, { "dup", USE | NEW }, { "pidfd_getfd", USE | NEW },
	{ "signalfd", USE | NEW }, { "signalfd4", USE | NEW }, /* -1 first: a new one */
	{ "close", USE | MTX_FD_CLOSE },
	{ "dup2", USE | NEW | MTX_FD_CLOSE_ARG1 }, { "dup3", USE | NEW | MTX_FD_CLOSE_ARG1 },
	{ "fcntl", USE | MTX_FD_DUPFD },
	{ "close_range", MTX_FD_CLOSE_ALL },
	{ "open", NEW }, { "openat", NEW }, { "openat2", NEW }, { "creat", NEW }, { "socket", NEW },
	{ "eventfd", NEW }, { "eventfd2", NEW }, { "epoll_create", NEW }, { "epoll_create1", NEW },
	{ "timerfd_create", NEW }, { "memfd_create", NEW }, { "memfd_secret", NEW }, { "inotify_init", NEW },
	{ "inotify_init1", NEW }, { "fanotify_init", NEW }, { "pidfd_open", NEW }, { "userfaultfd", NEW },
	{ "perf_event_open", NEW }, { "open_by_handle_at", NEW }, { "io_uring_setup", NEW },
	{ "open_tree", NEW }, { "fsopen", NEW }, { "fsmount", NEW }, { "fspick", NEW },
};
#undef USE
#undef NEW
const size_t mtx_fd_nr_syscalls = sizeof(mtx_fd_syscalls) / sizeof(mtx_fd_syscalls[0]);

/* Descriptors above this are not tracked (their kind is NULL): the slots
 * are an array indexed by fd, and the kernel's default nr_open is 2^20. */
#define MAX_TRACKED_FD (1 << 20)
#define CLOSES (MTX_FD_CLOSE | MTX_FD_CLOSE_ARG1 | MTX_FD_CLOSE_ALL)

/* MISSING: a lookup found nothing at missing_ns. A syscall before that
 * used a descriptor that was closed by then, so asking again would only
 * find nothing again (or, worse, a later file under the same number). */
enum slot_state { SLOT_EMPTY, SLOT_PENDING, SLOT_KNOWN, SLOT_MISSING };

/* One descriptor number of one process. */
struct fd_slot {
	uint64_t changed_ns; /* its last close or replacement (stream time) */
	union {
		uint64_t seq;        /* SLOT_PENDING: its lookup */
		uint64_t missing_ns; /* SLOT_MISSING */
	} u;
	uint16_t closing;    /* close-type calls under way on it */
	uint8_t state;       /* enum slot_state */
	uint8_t kind;        /* SLOT_KNOWN: enum mtx_fd_kind */
	uint32_t path;       /* SLOT_KNOWN: the tracker's path + 1, 0 none */
};

struct fd_proc {
	int32_t pid;
	uint16_t closing_all;    /* close_range calls under way */
	uint64_t changed_all_ns; /* last exec or close_range: any fd may have changed */
	struct fd_slot *slots;   /* [nr_slots], indexed by fd */
	size_t nr_slots;
};

/* A lookup not yet vouched for, and the rows waiting for it. */
struct fd_lookup {
	uint64_t looked_ns;
	int32_t pid, fd;
	uint8_t kind;
	uint8_t done; /* trusted or withdrawn: rows written */
	uint32_t path;
	struct mtx_syscall_row *rows;
	size_t nr_rows, cap_rows;
};

struct mtx_fd_tracker {
	struct mtx_detail *detail; /* where the rows go */
	mtx_fd_resolve_fn resolve;
	void *resolve_ctx;
	uint8_t *roles; /* [syscall_names_count]: MTX_FD_* */
	struct fd_proc *procs;
	size_t nr_procs, cap_procs, last_proc;
	/* Lookups in the order they were made, hence of looked_ns: a queue
	 * [head, len) whose element i has sequence number base_seq + i. */
	struct fd_lookup *lookups;
	size_t head, len, cap;
	uint64_t base_seq;
	/* The files' paths the lookups found, each once (a slot, a lookup
	 * and a call hold an index + 1). */
	struct keyhash path_keys;
	char **paths;
	size_t nr_paths, cap_paths;
	mtx_fd_row_fn on_file_row;
	void *on_file_row_ctx;
};

/* Paths kept at most: past them a file's rows have no path. */
#define MAX_PATHS (1 << 20)

struct mtx_fd_tracker *fd_tracker_new(struct mtx_detail *detail)
{
	struct mtx_fd_tracker *ft = calloc(1, sizeof(*ft));
	if (!ft)
		return NULL;
	ft->detail = detail;
	ft->roles = calloc((size_t)syscall_names_count, 1);
	if (!ft->roles) {
		free(ft);
		return NULL;
	}
	for (size_t i = 0; i < mtx_fd_nr_syscalls; i++)
		for (int nr = 0; nr < syscall_names_count; nr++)
			if (syscall_names[nr] && strcmp(syscall_names[nr], mtx_fd_syscalls[i].name) == 0)
				ft->roles[nr] = (uint8_t)mtx_fd_syscalls[i].roles;
	return ft;
}

void fd_tracker_set_resolver(struct mtx_fd_tracker *ft, mtx_fd_resolve_fn fn, void *ctx)
{
	ft->resolve = fn;
	ft->resolve_ctx = ctx;
}

size_t fd_tracker_nr_paths(const struct mtx_fd_tracker *ft)
{
	return ft ? ft->nr_paths : 0;
}

void fd_tracker_on_file_row(struct mtx_fd_tracker *ft, mtx_fd_row_fn fn, void *ctx)
{
	ft->on_file_row = fn;
	ft->on_file_row_ctx = ctx;
}

static struct fd_proc *find_proc(struct mtx_fd_tracker *ft, int32_t pid)
{
	if (ft->last_proc < ft->nr_procs && ft->procs[ft->last_proc].pid == pid)
		return &ft->procs[ft->last_proc];
	for (size_t i = 0; i < ft->nr_procs; i++) {
		if (ft->procs[i].pid == pid) {
			ft->last_proc = i;
			return &ft->procs[i];
		}
	}
	return NULL;
}

static struct fd_proc *proc_of(struct mtx_fd_tracker *ft, int32_t pid)
{
	struct fd_proc *p = find_proc(ft, pid);
	if (p)
		return p;
	p = grow_array(ft->procs, &ft->cap_procs, ft->nr_procs, sizeof(*p), 16);
	if (!p)
		return NULL;
	ft->procs = p;
	p = &ft->procs[ft->nr_procs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	return p;
}

/* The slot of @fd in @p, or NULL when out of range (or, with @create,
 * out of memory). */
static struct fd_slot *slot_of(struct fd_proc *p, int64_t fd, int create)
{
	if (fd < 0 || fd >= MAX_TRACKED_FD)
		return NULL;
	if ((size_t)fd >= p->nr_slots) {
		size_t n = p->nr_slots ? p->nr_slots : 64;
		struct fd_slot *s;
		if (!create)
			return NULL;
		while (n <= (size_t)fd)
			n *= 2;
		s = realloc(p->slots, n * sizeof(*s));
		if (!s)
			return NULL;
		memset(s + p->nr_slots, 0, (n - p->nr_slots) * sizeof(*s));
		p->slots = s;
		p->nr_slots = n;
	}
	return &p->slots[fd];
}

static struct fd_lookup *lookup_at(struct mtx_fd_tracker *ft, uint64_t seq)
{
	return &ft->lookups[seq - ft->base_seq];
}

static int write_row(struct mtx_fd_tracker *ft, const struct mtx_syscall_row *row, int kind, uint32_t path)
{
	const bool known = row->has_fd && kind != MTX_FD_UNKNOWN;
	if (known && path && ft->on_file_row)
		ft->on_file_row(ft->on_file_row_ctx, row, ft->paths[path - 1]);
	return detail_syscall(ft->detail, row, known ? fd_kind_name(kind) : NULL,
			      known && path ? ft->paths[path - 1] : NULL);
}

/* Write the rows held for @l with @kind and @path, and let it go. */
static void settle(struct mtx_fd_tracker *ft, struct fd_lookup *l, int kind, uint32_t path)
{
	for (size_t i = 0; i < l->nr_rows; i++)
		write_row(ft, &l->rows[i], kind, path);
	free(l->rows);
	l->rows = NULL;
	l->nr_rows = l->cap_rows = 0;
	l->done = 1;
}

/* @s was closed or replaced at @ts_ns: a lookup still held may describe
 * what came after, so its rows lose their kind. */
static void forget_slot(struct mtx_fd_tracker *ft, struct fd_slot *s, uint64_t ts_ns)
{
	if (s->state == SLOT_PENDING)
		settle(ft, lookup_at(ft, s->u.seq), MTX_FD_UNKNOWN, 0);
	s->state = SLOT_EMPTY;
	if (ts_ns > s->changed_ns)
		s->changed_ns = ts_ns;
}

static void forget_all(struct mtx_fd_tracker *ft, struct fd_proc *p, uint64_t ts_ns)
{
	for (size_t fd = 0; fd < p->nr_slots; fd++)
		if (p->slots[fd].state != SLOT_EMPTY)
			forget_slot(ft, &p->slots[fd], ts_ns);
	if (ts_ns > p->changed_all_ns)
		p->changed_all_ns = ts_ns;
}

/* Look @fd of @p up; on an answer @s becomes pending on it. */
static void look_up(struct mtx_fd_tracker *ft, struct fd_proc *p, struct fd_slot *s, int32_t fd)
{
	struct fd_lookup *l;
	uint64_t looked_ns = 0;
	char path[PATH_MAX];
	enum mtx_fd_kind kind = ft->resolve(ft->resolve_ctx, p->pid, fd, &looked_ns, path, sizeof(path));
	ptrdiff_t at = path[0] ? keyhash_text(&ft->path_keys, &ft->paths, &ft->nr_paths, &ft->cap_paths, MAX_PATHS,
					      path)
			       : -1;

	if (kind == MTX_FD_UNKNOWN) {
		s->state = SLOT_MISSING;
		s->u.missing_ns = looked_ns;
		return;
	}
	if (ft->head > 0 && ft->head * 2 >= ft->len) {
		/* Reclaim the settled front of the queue. */
		memmove(ft->lookups, ft->lookups + ft->head, (ft->len - ft->head) * sizeof(*l));
		ft->base_seq += ft->head;
		ft->len -= ft->head;
		ft->head = 0;
	}
	l = grow_array(ft->lookups, &ft->cap, ft->len, sizeof(*l), 64);
	if (!l)
		return;
	ft->lookups = l;
	l = &ft->lookups[ft->len];
	memset(l, 0, sizeof(*l));
	l->looked_ns = looked_ns;
	l->pid = p->pid;
	l->fd = fd;
	l->kind = (uint8_t)kind;
	l->path = at >= 0 ? (uint32_t)at + 1 : 0;
	s->state = SLOT_PENDING;
	s->u.seq = ft->base_seq + ft->len;
	ft->len++;
}

void fd_tracker_advance(struct mtx_fd_tracker *ft, uint64_t ts_ns)
{
	while (ft->head < ft->len && ft->lookups[ft->head].looked_ns < ts_ns) {
		struct fd_lookup *l = &ft->lookups[ft->head];
		if (!l->done) {
			/* Nothing closed the descriptor between the syscalls
			 * that wait for this lookup and the lookup itself. */
			struct fd_proc *p = find_proc(ft, l->pid);
			struct fd_slot *s = p ? slot_of(p, l->fd, 0) : NULL;
			if (s && s->state == SLOT_PENDING && s->u.seq == ft->base_seq + ft->head) {
				s->state = SLOT_KNOWN;
				s->kind = l->kind;
				s->path = l->path;
				settle(ft, l, l->kind, l->path);
			} else { /* cannot happen: a forgotten slot settles its lookup */
				settle(ft, l, MTX_FD_UNKNOWN, 0);
			}
		}
		ft->head++;
	}
	if (ft->head == ft->len) {
		ft->base_seq += ft->len;
		ft->head = ft->len = 0;
	}
}

/* @fd is being closed (or replaced) from @ts_ns on, until close_done. */
static void close_start(struct mtx_fd_tracker *ft, struct fd_proc *p, int32_t fd, uint64_t ts_ns)
{
	struct fd_slot *s = slot_of(p, fd, 1);
	if (!s)
		return;
	forget_slot(ft, s, ts_ns);
	s->closing++;
}

/* @fd was being closed (or replaced) until @ts_ns. */
static void close_done(struct mtx_fd_tracker *ft, struct fd_proc *p, int32_t fd, uint64_t ts_ns)
{
	struct fd_slot *s = slot_of(p, fd, 0);
	if (!s)
		return;
	if (s->closing)
		s->closing--;
	forget_slot(ft, s, ts_ns);
}

/* The kind of @c's descriptor @s as it enters at @ts_ns (its path in
 * *@path), or -1 when its exit will tell (a lookup is under way). */
static int kind_at_entry(struct mtx_fd_tracker *ft, struct fd_proc *p, struct fd_slot *s,
			 const struct mtx_fd_call *c, uint64_t ts_ns, uint32_t *path)
{
	*path = 0;
	if (s->state == SLOT_KNOWN) {
		*path = s->path;
		return s->kind;
	}
	/* Its own close, or another under way: a lookup might find what
	 * comes after. */
	if ((c->roles & MTX_FD_CLOSE) || s->closing || p->closing_all)
		return MTX_FD_UNKNOWN;
	if (s->state == SLOT_MISSING && ts_ns < s->u.missing_ns)
		return MTX_FD_UNKNOWN;
	if (s->state != SLOT_PENDING)
		look_up(ft, p, s, c->fd);
	return -1;
}

void fd_tracker_enter(struct mtx_fd_tracker *ft, int32_t pid, int64_t nr, uint64_t arg0, uint64_t arg1,
		      uint64_t ts_ns, struct mtx_fd_call *c)
{
	uint8_t roles = nr >= 0 && nr < syscall_names_count ? ft->roles[nr] : 0;
	struct fd_proc *p;
	struct fd_slot *s;

	/* The kernel reads descriptors as unsigned int: the low 32 bits. */
	c->fd = (int32_t)(uint32_t)arg0;
	c->arg1 = (int32_t)(uint32_t)arg1;
	c->roles = roles;
	c->has_fd = (roles & MTX_FD_USE) != 0;
	c->kind = MTX_FD_UNKNOWN;
	c->path = 0;
	if (!ft->resolve || !(roles & (MTX_FD_USE | CLOSES)) || !(p = proc_of(ft, pid)))
		return;
	if ((roles & MTX_FD_USE) && (s = slot_of(p, c->fd, 1)) != NULL)
		c->kind = (int8_t)kind_at_entry(ft, p, s, c, ts_ns, &c->path);
	/* From here on the descriptors it closes are not to be trusted. */
	if (roles & MTX_FD_CLOSE)
		close_start(ft, p, c->fd, ts_ns);
	if (roles & MTX_FD_CLOSE_ARG1)
		close_start(ft, p, c->arg1, ts_ns);
	if (roles & MTX_FD_CLOSE_ALL) {
		forget_all(ft, p, ts_ns);
		p->closing_all++;
	}
}

/* The kind of @c's descriptor for its row (its path in *@path), or -1
 * when the row has to wait for the slot's pending lookup. */
static int kind_at_exit(struct mtx_fd_tracker *ft, struct fd_proc *p, const struct mtx_fd_call *c,
			const struct mtx_syscall_row *row, uint32_t *path)
{
	struct fd_slot *s;
	*path = 0;
	if (row->has_ret && row->ret == -EBADF)
		return MTX_FD_UNKNOWN; /* it was not open */
	if (c->kind >= 0) {
		*path = c->path;
		return c->kind;
	}
	s = p ? slot_of(p, c->fd, 0) : NULL;
	/* Closed or replaced since the call began, or being closed: unknown. */
	if (!s || s->closing || p->closing_all || s->changed_ns >= row->start_ns || p->changed_all_ns >= row->start_ns)
		return MTX_FD_UNKNOWN;
	if (s->state == SLOT_KNOWN) {
		*path = s->path;
		return s->kind;
	}
	return s->state == SLOT_PENDING ? -1 : MTX_FD_UNKNOWN; /* the lookup found nothing */
}

/* Closes under way when @c entered are over by @ts_ns. */
static void closes_done(struct mtx_fd_tracker *ft, struct fd_proc *p, const struct mtx_fd_call *c, uint64_t ts_ns)
{
	if (c->roles & MTX_FD_CLOSE)
		close_done(ft, p, c->fd, ts_ns);
	if (c->roles & MTX_FD_CLOSE_ARG1)
		close_done(ft, p, c->arg1, ts_ns);
	if (c->roles & MTX_FD_CLOSE_ALL) {
		if (p->closing_all)
			p->closing_all--;
		forget_all(ft, p, ts_ns);
	}
}

int fd_tracker_exit(struct mtx_fd_tracker *ft, int32_t pid, const struct mtx_fd_call *c,
		    struct mtx_syscall_row *row, uint64_t ts_ns)
{
	struct fd_proc *p;
	uint32_t path = 0;
	int kind;

	row->has_fd = c->has_fd;
	row->fd = c->fd;
	if (!ft->resolve || !(c->roles & (MTX_FD_USE | MTX_FD_NEW | MTX_FD_DUPFD | CLOSES)))
		return write_row(ft, row, c->kind, c->path);
	p = find_proc(ft, pid);
	kind = c->has_fd ? kind_at_exit(ft, p, c, row, &path) : MTX_FD_UNKNOWN;
	if (kind < 0) {
		struct fd_lookup *l = lookup_at(ft, slot_of(p, c->fd, 0)->u.seq);
		struct mtx_syscall_row *rows = grow_array(l->rows, &l->cap_rows, l->nr_rows, sizeof(*rows), 16);
		if (rows) {
			l->rows = rows;
			l->rows[l->nr_rows++] = *row;
		} else {
			kind = MTX_FD_UNKNOWN;
		}
	}
	if (p) {
		closes_done(ft, p, c, ts_ns);
		/* A new descriptor's number was free: whatever was cached
		 * under it is stale (a close the trace missed). */
		if (row->has_ret && row->ret >= 0 &&
		    ((c->roles & MTX_FD_NEW) ||
		     ((c->roles & MTX_FD_DUPFD) && (c->arg1 == F_DUPFD || c->arg1 == F_DUPFD_CLOEXEC)))) {
			struct fd_slot *s = slot_of(p, row->ret, 0);
			if (s)
				forget_slot(ft, s, ts_ns);
		}
	}
	return kind < 0 ? 0 : write_row(ft, row, kind, path);
}

void fd_tracker_exec(struct mtx_fd_tracker *ft, int32_t pid, uint64_t ts_ns)
{
	struct fd_proc *p = find_proc(ft, pid);
	if (p)
		forget_all(ft, p, ts_ns);
}

void fd_tracker_gone(struct mtx_fd_tracker *ft, int32_t pid)
{
	struct fd_proc *p = find_proc(ft, pid);
	if (!p)
		return;
	forget_all(ft, p, 0);
	free(p->slots);
	*p = ft->procs[--ft->nr_procs];
}

void fd_tracker_finish(struct mtx_fd_tracker *ft)
{
	for (size_t i = ft->head; i < ft->len; i++)
		if (!ft->lookups[i].done)
			settle(ft, &ft->lookups[i], MTX_FD_UNKNOWN, 0);
	ft->head = ft->len;
}

void fd_tracker_free(struct mtx_fd_tracker *ft)
{
	if (!ft)
		return;
	for (size_t i = ft->head; i < ft->len; i++)
		free(ft->lookups[i].rows);
	for (size_t i = 0; i < ft->nr_procs; i++)
		free(ft->procs[i].slots);
	for (size_t i = 0; i < ft->nr_paths; i++)
		free(ft->paths[i]);
	free(ft->paths);
	keyhash_free(&ft->path_keys);
	free(ft->lookups);
	free(ft->procs);
	free(ft->roles);
	free(ft);
}
