/*
 * collector/uprobes.c - see uprobes.h.
 *
 * tracefs syntax (Documentation/trace/uprobetracer.rst):
 *   p:GROUP/EVENT PATH:OFFSET ARGS     entry probe
 *   r:GROUP/EVENT PATH:OFFSET ARGS     return probe
 *   -:GROUP/EVENT                      remove one (wildcards are refused here)
 * written to uprobe_events opened with O_APPEND (without it the file is
 * truncated, which removes every probe of every user).
 *
 * The kernel parses what is written (trace_parse_run_command, then
 * argv_split): each '\n' ends a command, '#' begins a comment, and
 * whitespace, by the kernel's isspace (which counts byte 0xa0 too),
 * separates the arguments. There is no quoting, so a PATH holding any of
 * these would be cut or run as further commands, as root. So only a plain
 * path (uprobe_path_is_plain: letters, digits and a few marks), and not
 * too long for one command, is written as it is; any other as
 * /proc/self/fd/N of the file opened here: the kernel
 * resolves PATH once, when it defines the probe (kern_path with
 * LOOKUP_FOLLOW, which follows the fd's link), and keeps the file itself,
 * so the probe stays on it after the fd is closed.
 */
#include "config.h"
#include "collector/uprobes.h"
#include "collector/session.h"
#include "collector/perf.h"
#include "src/grow.h"
#include "src/error.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GROUP_PREFIX "mtx_"

struct uprobe_group {
	char name[32];
	char events_file[PATH_MAX];   /* .../uprobe_events */
	char *removal;                /* "-:group/event\n" per live probe */
	size_t removal_len, removal_cap;
	size_t count;
	int handed_over;              /* a session removes the probes */
};

/* Write @len bytes of tracefs command @cmd. Returns 0 or -errno. */
static int write_command(const char *events_file, const char *cmd, size_t len)
{
	int fd = open(events_file, O_WRONLY | O_APPEND | O_CLOEXEC);
	ssize_t n;
	int e;
	if (fd < 0)
		return -errno;
	n = write(fd, cmd, len);
	e = n < 0 ? -errno : (size_t)n < len ? -EIO : 0;
	close(fd);
	return e;
}

/* tracefs names: letters, digits and '_', not beginning with a digit. */
static int valid_event_name(const char *s)
{
	if (!*s || strlen(s) > 63 || isdigit((unsigned char)*s))
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

int uprobe_path_is_plain(const char *path)
{
	/* Only what no kernel's parsing of a command treats specially: ASCII
	 * letters and digits (not isalnum: it follows the locale), and these. */
	static const char others[] = "/._-+,@~";
	if (!*path)
		return 0;
	for (const char *p = path; *p; p++)
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') && !(*p >= '0' && *p <= '9') &&
		    !strchr(others, *p))
			return 0;
	return 1;
}

static void events_file_path(char *out, size_t size)
{
	snprintf(out, size, "%s/uprobe_events", tracefs_dir());
}

/* Whether pid @pid is an mtx that may still use its group. */
static int mtx_is_running(long pid)
{
	char path[64], comm[32] = "";
	FILE *f;
	if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = 0;
	fclose(f);
	comm[strcspn(comm, "\n")] = 0;
	/* The child that closes a finished run's events keeps the name. */
	return strcmp(comm, "mtx") == 0 || strncmp(comm, "lt-mtx", 6) == 0;
}

size_t uprobes_remove_stale(void)
{
	char dir[PATH_MAX], file[PATH_MAX], cmd[600];
	struct dirent *d;
	size_t removed = 0;
	DIR *top;

	snprintf(dir, sizeof(dir), "%s/events", tracefs_dir());
	events_file_path(file, sizeof(file));
	top = opendir(dir);
	if (!top)
		return 0;
	while ((d = readdir(top)) != NULL) {
		char sub[PATH_MAX + 256], *end;
		struct dirent *e;
		long pid;
		DIR *group;
		if (strncmp(d->d_name, GROUP_PREFIX, strlen(GROUP_PREFIX)) != 0)
			continue;
		pid = strtol(d->d_name + strlen(GROUP_PREFIX), &end, 10);
		if (*end || pid <= 0 || pid == (long)getpid() || mtx_is_running(pid))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, d->d_name);
		group = opendir(sub);
		if (!group)
			continue;
		while ((e = readdir(group)) != NULL) {
			int n;
			if (e->d_type != DT_DIR || !valid_event_name(e->d_name))
				continue;
			n = snprintf(cmd, sizeof(cmd), "-:%s/%s\n", d->d_name, e->d_name);
			if (n > 0 && (size_t)n < sizeof(cmd) && write_command(file, cmd, (size_t)n) == 0)
				removed++;
		}
		closedir(group);
	}
	closedir(top);
	return removed;
}

int uprobe_group_new(struct uprobe_group **out, char **err)
{
	struct uprobe_group *g = calloc(1, sizeof(*g));
	*out = NULL;
	if (!g)
		return -ENOMEM;
	snprintf(g->name, sizeof(g->name), GROUP_PREFIX "%d", (int)getpid());
	events_file_path(g->events_file, sizeof(g->events_file));
	if (access(g->events_file, W_OK) < 0) {
		int e = errno;
		error_set(err, "cannot define uprobes (%s: %s): the kernel needs CONFIG_UPROBE_EVENTS, "
				"and mtx needs root", g->events_file, strerror(e));
		free(g);
		return -e;
	}
	uprobes_remove_stale();
	*out = g;
	return 0;
}

/* Remember how to remove @event later (prepared now: removal allocates nothing). */
static int note_removal(struct uprobe_group *g, const char *event)
{
	char line[128];
	int n = snprintf(line, sizeof(line), "-:%s/%s\n", g->name, event);
	while (g->removal_len + (size_t)n + 1 > g->removal_cap) {
		size_t cap = g->removal_cap ? g->removal_cap * 2 : 1024;
		char *p = realloc(g->removal, cap);
		if (!p)
			return -ENOMEM;
		g->removal = p;
		g->removal_cap = cap;
	}
	memcpy(g->removal + g->removal_len, line, (size_t)n + 1);
	g->removal_len += (size_t)n;
	return 0;
}

/* Remove @event of @g now (an error is ignored: it may not exist). */
static void remove_one(const struct uprobe_group *g, const char *event)
{
	char line[128];
	int n = snprintf(line, sizeof(line), "-:%s/%s\n", g->name, event);
	write_command(g->events_file, line, (size_t)n);
}

/*
 * Write the definition of @event; a path that is not plain goes as
 * /proc/self/fd/N (see the top). Returns 0 or -errno; *@aliased says
 * which was written.
 */
static int define_probe(const struct uprobe_group *g, const char *event, int at_return, const char *path,
			uint64_t offset, const char *fetchargs, int *aliased)
{
	char *cmd, alias[64];
	int fd = -1, n, rc;

	/* The kernel also refuses a command line of WRITE_BUFSIZE (4096)
	 * bytes or more: a path near PATH_MAX goes through the fd too. */
	*aliased = !uprobe_path_is_plain(path) || strlen(path) > 2048;
	if (*aliased) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		snprintf(alias, sizeof(alias), "/proc/self/fd/%d", fd);
	}
	n = asprintf(&cmd, "%c:%s/%s %s:0x%llx%s%s\n", at_return ? 'r' : 'p', g->name, event,
		     fd >= 0 ? alias : path, (unsigned long long)offset, fetchargs ? " " : "",
		     fetchargs ? fetchargs : "");
	if (n < 0) {
		rc = -ENOMEM;
	} else {
		rc = write_command(g->events_file, cmd, (size_t)n);
		free(cmd);
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

long uprobe_group_add(struct uprobe_group *g, const char *event, int at_return, const char *path,
		      uint64_t offset, const char *fetchargs, char **err)
{
	int rc, aliased = 0;
	long id;

	if (!valid_event_name(event)) {
		error_set(err, "cannot probe %s: the probe name %s has characters tracefs refuses", path,
				event);
		return -EINVAL;
	}
	rc = define_probe(g, event, at_return, path, offset, fetchargs, &aliased);
	if (rc) {
		/* A write that failed part way may have defined it. */
		remove_one(g, event);
		error_set(err, "cannot define a uprobe on %s at 0x%llx (%s): %s%s", path,
				(unsigned long long)offset, event, strerror(-rc),
				aliased ? " (its name has characters tracefs cannot take, so it was named through "
				"/proc/self/fd: copy or link the file to a name without whitespace, "
				"control characters or '#')" : "");
		return rc;
	}
	if (note_removal(g, event)) {
		remove_one(g, event);
		return -ENOMEM;
	}
	g->count++;
	id = tracepoint_id(g->name, event);
	if (id <= 0)
		error_set(err, "the uprobe %s/%s has no tracepoint id: %s", g->name, event,
				strerror(id < 0 ? (int)-id : EIO));
	return id > 0 ? id : (id < 0 ? id : -EIO);
}

/* Bytes of a ModRM operand (ModRM itself, SIB, displacement) at @p. */
static int modrm_len(const uint8_t *p, size_t left)
{
	int mod, rm, n = 1;
	if (left < 1)
		return -EINVAL;
	mod = p[0] >> 6;
	rm = p[0] & 7;
	if (mod != 3 && rm == 4) { /* SIB */
		if (left < 2)
			return -EINVAL;
		n++;
		if (mod == 0 && (p[1] & 7) == 5)
			n += 4;
	}
	if (mod == 1)
		n += 1;
	else if (mod == 2 || (mod == 0 && rm == 5))
		n += 4;
	return n;
}

int uprobe_entry_offset(const uint8_t *code, size_t len)
{
	size_t i = 0;
	int bad = 0, opsize16 = 0, n, imm = 0;
	uint8_t op;

	for (; i < len; i++) {
		uint8_t b = code[i];
		if (b == 0xf0 || b == 0x26 || b == 0x2e || b == 0x36 || b == 0x3e || b == 0x64 || b == 0x65)
			bad = 1;
		else if (b == 0x66)
			opsize16 = 1;
		else if (b != 0xf2 && b != 0xf3)
			break;
	}
	if (!bad)
		return 0;
	if (i < len && (code[i] & 0xf0) == 0x40) /* REX */
		i++;
	if (i >= len)
		return -EINVAL;
	op = code[i++];
	/* What can carry LOCK: arithmetic, inc/dec/not/neg, xchg, and the
	 * 0x0f forms (cmpxchg, xadd, bt*), all with a memory ModRM. */
	if (op == 0x0f) {
		if (i >= len)
			return -EINVAL;
		op = code[i++];
		if (op == 0xba)
			imm = 1;
		else if (op != 0xb0 && op != 0xb1 && op != 0xc0 && op != 0xc1 && op != 0xab &&
			 op != 0xb3 && op != 0xbb && op != 0xc7)
			return -EINVAL;
	} else if (op == 0x80 || op == 0x83) {
		imm = 1;
	} else if (op == 0x81) {
		imm = opsize16 ? 2 : 4;
	} else if (op == 0xf6 || op == 0xf7) {
		if (i >= len)
			return -EINVAL;
		if (((code[i] >> 3) & 7) < 2) /* test: not lockable, has an immediate */
			return -EINVAL;
	} else if (!(op < 0x40 && (op & 7) < 2) && op != 0x86 && op != 0x87 && op != 0xfe && op != 0xff) {
		return -EINVAL;
	}
	n = modrm_len(code + i, len - i);
	if (n < 0 || i + (size_t)n + (size_t)imm > len)
		return -EINVAL;
	return (int)(i + (size_t)n + (size_t)imm);
}

int uprobe_file_entry_offset(const char *path, uint64_t offset, uint64_t size)
{
	uint8_t code[16];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -EINVAL;
	n = pread(fd, code, sizeof(code), (off_t)offset);
	close(fd);
	if (n <= 0)
		return -EINVAL;
	if ((uint64_t)n > size)
		n = (ssize_t)size;
	return uprobe_entry_offset(code, (size_t)n);
}

const char *uprobe_group_name(const struct uprobe_group *g)
{
	return g->name;
}

size_t uprobe_group_remove(struct uprobe_group *g)
{
	size_t kept = 0, at = 0;
	if (!g || !g->removal)
		return 0;
	/* Lines that fail (in use) are moved to the front and kept. */
	while (at < g->removal_len) {
		char *line = g->removal + at;
		size_t len = (size_t)(strchr(line, '\n') - line) + 1;
		int rc = write_command(g->events_file, line, len);
		if (rc && rc != -ENOENT) {
			memmove(g->removal + kept, line, len);
			kept += len;
		}
		at += len;
	}
	g->removal_len = kept;
	g->removal[kept] = 0;
	g->count = 0;
	for (size_t i = 0; i < kept; i++)
		g->count += g->removal[i] == '\n';
	return g->count;
}

void uprobe_group_free(struct uprobe_group *g)
{
	if (!g)
		return;
	free(g->removal);
	free(g);
}

static void remove_after_close(void *ctx)
{
	uprobe_group_remove(ctx);
}

int uprobe_group_hand_over(struct uprobe_group *g, struct mtx_session *s)
{
	int rc = session_after_close(s, remove_after_close, g);
	if (!rc)
		g->handed_over = 1;
	return rc;
}

void uprobe_group_disown(struct uprobe_group *g)
{
	if (g)
		g->handed_over = 1;
}

void uprobe_group_discard(struct uprobe_group *g)
{
	if (g && !g->handed_over)
		uprobe_group_remove(g);
	uprobe_group_free(g);
}
