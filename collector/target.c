/* collector/target.c - see target.h. */
#include "config.h"
#include "collector/target.h"
#include "src/error.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int find_program(const char *prog, char *out, size_t size)
{
	const char *path;
	char buf[PATH_MAX];
	int saw_eacces = 0;

	if (strchr(prog, '/')) {
		struct stat sb;
		if (stat(prog, &sb) < 0)
			return -errno;
		if (S_ISDIR(sb.st_mode) || access(prog, X_OK) < 0)
			return -EACCES;
		snprintf(out, size, "%s", prog);
		return 0;
	}
	path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");
		struct stat sb;
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, len ? path : ".", prog);
		if (stat(buf, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
			if (access(buf, X_OK) == 0) {
				snprintf(out, size, "%s", buf);
				return 0;
			}
			saw_eacces = 1;
		}
		path += len + (path[len] == ':');
	}
	return saw_eacces ? -EACCES : -ENOENT;
}

int target_locate(const char *prog, char *out, size_t size, char **err)
{
	int rc = find_program(prog, out, size);

	if (rc)
		error_set(err, "%s: %s", prog,
				rc == -ENOENT ? "no such program" : "not an executable program (permission denied)");
	return rc;
}

/* Whether mtx is in its terminal's foreground process group. */
static int in_terminal_foreground(void)
{
	pid_t fg = tcgetpgrp(STDIN_FILENO);
	return fg > 0 && fg == getpgrp();
}

int target_spawn(struct mtx_target *t, const char *path, char *const argv[], char *const env_extra[], char **err)
{
	int go[2], ex[2], rc;

	t->pid = -1;
	t->go_fd = t->err_fd = -1;
	t->own_group = !in_terminal_foreground();
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(ex, O_CLOEXEC) < 0) {
		error_set(err, "pipe: %s", strerror(errno));
		return -errno;
	}
	t->pid = fork();
	if (t->pid < 0) {
		rc = -errno;
		error_set(err, "fork: %s", strerror(errno));
		return rc;
	}
	if (t->pid == 0) {
		char c;
		sigset_t none;
		int e;
		/* The program gets the signal state mtx had at start, not the
		 * mask the collector uses for its signalfd. */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (t->own_group)
			setpgid(0, 0);
		close(go[1]);
		close(ex[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127); /* the collector gave up */
		/* The user's program as the user (mtx collect --user, sudo);
		 * the events on it were opened, as root, before this. */
		if (t->user && (initgroups(t->user, t->gid) < 0 || setgid(t->gid) < 0 || setuid(t->uid) < 0)) {
			e = errno;
			if (write(ex[1], &e, sizeof(e)) < 0)
				_exit(127);
			_exit(127);
		}
		for (int i = 0; env_extra && env_extra[i]; i++)
			putenv(env_extra[i]);
		execvp(path, argv); /* p: a script without #! runs under /bin/sh */
		e = errno;
		if (write(ex[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	if (t->own_group)
		setpgid(t->pid, t->pid); /* as the child does: whichever comes first */
	close(go[0]);
	close(ex[1]);
	t->go_fd = go[1];
	t->err_fd = ex[0];
	return 0;
}

void target_forward(struct mtx_target *t, int sig, pid_t sender, int from_terminal)
{
	struct timespec now;
	uint64_t now_ns;

	if (t->pid <= 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	now_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	if (sig == t->last_sig && sender == t->last_sender && now_ns - t->last_ns < TARGET_MERGE_NS)
		return;
	t->last_sig = sig;
	t->last_sender = sender;
	t->last_ns = now_ns;
	if (t->own_group)
		kill(-t->pid, sig); /* its group: whatever it started too */
	else if (!from_terminal)
		kill(t->pid, sig);
}

int target_start(struct mtx_target *t, const char *prog, char **err)
{
	int e = 0;
	ssize_t n;
	if (write(t->go_fd, "g", 1) != 1) {
		e = errno;
	} else {
		/* EOF means the exec succeeded (the pipe was close-on-exec). */
		do
			n = read(t->err_fd, &e, sizeof(e));
		while (n < 0 && errno == EINTR);
		if (n != sizeof(e))
			e = 0;
	}
	close(t->go_fd);
	close(t->err_fd);
	t->go_fd = t->err_fd = -1;
	if (e) {
		error_set(err, "%s: cannot execute: %s", prog, strerror(e));
		return -e;
	}
	return 0;
}

void target_kill(struct mtx_target *t)
{
	if (t->pid > 0) {
		kill(t->pid, SIGKILL);
		waitpid(t->pid, NULL, 0);
	}
	if (t->go_fd >= 0)
		close(t->go_fd);
	if (t->err_fd >= 0)
		close(t->err_fd);
	t->pid = -1;
	t->go_fd = t->err_fd = -1;
}

int target_attach(pid_t pid, char *exe, size_t size, int *pidfd, char **err)
{
	char path[64];
	ssize_t n;
	*pidfd = -1;
	if (pid <= 0 || pid == getpid()) {
		error_set(err, "-p %d: not a process mtx can attach to", (int)pid);
		return -EINVAL;
	}
	*pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (*pidfd < 0) {
		int e = errno;
		error_set(err, e == ESRCH ? "-p %d: no such process" : "-p %d: %s", (int)pid, strerror(e));
		return -e;
	}
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, exe, size - 1);
	if (n < 0) {
		int e = errno;
		/* a kernel thread has no executable */
		error_set(err, "-p %d: cannot read its executable (%s): %s", (int)pid, path,
			  e == ENOENT ? "it is a kernel thread or a zombie" : strerror(e));
		close(*pidfd);
		*pidfd = -1;
		return e == ENOENT ? -ESRCH : -e;
	}
	exe[n] = 0;
	return 0;
}

/* Read /proc/@pid[/task/@tid]/stat (@tid 0: the process's) into @buf:
 * "ID (name) S ...", the name may hold spaces and parentheses. Returns
 * the ") " that ends the name, or NULL. */
static char *read_stat(pid_t pid, pid_t tid, char *buf, size_t size)
{
	char path[80], *close_paren;
	FILE *f;
	size_t n;
	if (tid)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	else
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "re")))
		return NULL;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = 0;
	close_paren = strrchr(buf, ')');
	return close_paren && strchr(buf, '(') && close_paren[1] == ' ' ? close_paren : NULL;
}

char target_thread_state(pid_t pid, pid_t tid, char *name, size_t size, int *syscall_nr)
{
	char path[80], buf[512], *close_paren;
	FILE *f;
	name[0] = 0;
	*syscall_nr = -1;
	/* "NR args... sp pc" while in a syscall, "running" or "-1 sp pc" else */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid, (int)tid);
	if ((f = fopen(path, "re"))) {
		if (fscanf(f, "%d", syscall_nr) != 1)
			*syscall_nr = -1;
		fclose(f);
	}
	if (!(close_paren = read_stat(pid, tid, buf, sizeof(buf))))
		return 0;
	snprintf(name, size, "%.*s", (int)(close_paren - strchr(buf, '(') - 1), strchr(buf, '(') + 1);
	return close_paren[2];
}

int target_tasks_each(pid_t pid, int (*fn)(void *ctx, pid_t tid), void *ctx)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int n = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(dir = opendir(path)))
		return errno == ENOENT ? -ESRCH : -errno;
	while ((d = readdir(dir))) {
		pid_t tid = (pid_t)atoi(d->d_name);
		int rc = tid > 0 ? fn(ctx, tid) : 0;
		if (rc < 0) {
			n = rc;
			break;
		}
		n += rc == 1;
	}
	closedir(dir);
	return n;
}

int target_maps_each(pid_t pid, target_map_fn fn, void *ctx)
{
	char path[64], line[PATH_MAX + 128];
	FILE *f;
	int rc = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(path, "re")))
		return -errno;
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff;
		char perms[8], *file = strchr(line, '/');
		if (sscanf(line, "%llx-%llx %7s %llx", &start, &end, perms, &pgoff) != 4 || !strchr(perms, 'x') ||
		    !file)
			continue;
		file[strcspn(file, "\n")] = 0;
		if (!strstr(file, " (deleted)"))
			rc = fn(ctx, start, end, pgoff, file);
	}
	fclose(f);
	return rc;
}

int64_t target_process_age_ns(pid_t pid)
{
	char buf[1024], *p;
	unsigned long long start_ticks;
	struct timespec now;
	/* field 22, counted after the name's closing parenthesis (field 2) */
	if (!(p = read_stat(pid, 0, buf, sizeof(buf))) ||
	    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
		   &start_ticks) != 1 || clock_gettime(CLOCK_BOOTTIME, &now))
		return -1;
	return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec -
	       (int64_t)(start_ticks * (1000000000ull / (unsigned long long)sysconf(_SC_CLK_TCK)));
}
