/*
 * collector/target.h - launching the traced program: forked, held before
 * exec until the perf events exist (they are enabled by the exec itself),
 * then released.
 */
#ifndef MTX_COLLECTOR_TARGET_H
#define MTX_COLLECTOR_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct mtx_target {
	pid_t pid;
	int go_fd;   /* write end: one byte releases the child into exec */
	int err_fd;  /* read end: the child writes errno here if exec fails */
	int own_group; /* the child leads a process group of its own */
	/* Whom the program runs as (target_spawn's caller sets it): user
	 * NULL keeps mtx's own credentials. */
	const char *user;
	uid_t uid;
	gid_t gid;
	/* The last signal passed on, to merge its repeat (target_forward). */
	int last_sig;
	pid_t last_sender;
	uint64_t last_ns;
};

/*
 * target_locate - find @prog the way execvp will (PATH searched when it has
 * no slash), so that a missing program is reported before anything starts.
 * The path found goes to @out. Returns 0, or -ENOENT / -EACCES with the one
 * line that says why in @err (caller frees).
 */
int target_locate(const char *prog, char *out, size_t size, char **err);

/*
 * target_spawn - fork a child that will exec the program at @path (as
 * target_locate found argv[0]) with @argv and @env_extra ("NAME=value"
 * strings, NULL-ended) added to the environment, but waits first. Returns
 * 0, or -errno with a message in @err (caller frees).
 */
int target_spawn(struct mtx_target *t, const char *path, char *const argv[], char *const env_extra[],
		 char **err);

/* target_start - release the child and wait for its exec. Returns 0, or
 * -errno (with @err) if the exec failed; the child has then exited 127. */
int target_start(struct mtx_target *t, const char *prog, char **err);

/*
 * target_forward - pass signal @sig that mtx received from process
 * @sender on to the program, unless the program got it already: a signal
 * to a process group reaches the program only when it shares mtx's group.
 * target_spawn gives the program a group of its own unless mtx runs in a
 * terminal's foreground (where the terminal's keys must reach the program
 * directly); there, a signal the terminal sent (@from_terminal: si_code
 * SI_KERNEL) reached the whole group, and only signals sent to mtx alone
 * are passed on. The same signal from the same sender again within
 * TARGET_MERGE_NS is passed on once: timeout(1) sends its signal to mtx
 * and then to mtx's group, which the kernel merges into one pending
 * signal unless mtx read the first in between.
 */
#define TARGET_MERGE_NS 100000000ull
void target_forward(struct mtx_target *t, int sig, pid_t sender, int from_terminal);

/*
 * target_attach - the running process @pid that mtx collect -p records:
 * its executable (/proc/PID/exe, where its probes go) into @exe, and in
 * @pidfd a descriptor that polls readable when it exits (it is no child
 * of mtx: no SIGCHLD comes). Returns 0, or -errno with the one line that
 * says why in @err (caller frees).
 */
int target_attach(pid_t pid, char *exe, size_t size, int *pidfd, char **err);

/* target_thread_state - thread @tid of process @pid as /proc shows it:
 * its name into @name, the syscall it is in into @syscall_nr (-1: none),
 * and its state letter ('R', 'S', 'D', ...; 0 when it is gone). */
char target_thread_state(pid_t pid, pid_t tid, char *name, size_t size, int *syscall_nr);

/* target_process_age_ns - how long process @pid has run (/proc/PID/stat's
 * start time, in clock ticks since boot), or -1. */
int64_t target_process_age_ns(pid_t pid);

/* One executable mapping of a file: [@start, @end) maps @path from
 * file offset @pgoff. Nonzero stops the walk. */
typedef int (*target_map_fn)(void *ctx, uint64_t start, uint64_t end, uint64_t pgoff, const char *path);

/* target_maps_each - call @fn for each executable mapping of a file that
 * process @pid has (/proc/PID/maps), in address order. Returns 0, @fn's
 * nonzero value, or -errno. */
int target_maps_each(pid_t pid, target_map_fn fn, void *ctx);

/* target_tasks_each - call @fn(@ctx, tid) for each thread of process
 * @pid (/proc/PID/task). Returns how many calls returned 1, @fn's
 * negative value (which stops the walk), or -errno (-ESRCH: the process
 * is gone). */
int target_tasks_each(pid_t pid, int (*fn)(void *ctx, pid_t tid), void *ctx);

/* target_kill - kill and reap a child that was never started. */
void target_kill(struct mtx_target *t);

#endif
