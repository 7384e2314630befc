/*
 * samples/selfcheck.h - ground truth that a sample reports about itself.
 *
 * Every sample calls selfcheck_count(kind, op) right next to each
 * synchronization call it makes, so that the per-thread counts equal the
 * calls made, exactly (init/destroy, create/join and retries after EINTR or
 * ETIMEDOUT included).  Every thread, main included, calls
 * selfcheck_thread_done(role) as the very last thing before it returns or
 * exits.  When the environment variable MTX_SELFCHECK names a file, that
 * call appends to it:
 *
 *   thread pid=<pid> tid=<tid> role=<role> nvcsw=<n> nivcsw=<n> ts_before=<ns> ts_after=<ns> cpu_ns=<ns>
 *   op pid=<pid> tid=<tid> kind=<kind> op=<op> count=<n>     (one per nonzero counter)
 *
 * nvcsw/nivcsw are the voluntary_ctxt_switches / nonvoluntary_ctxt_switches
 * of /proc/self/task/<tid>/status, read between the two CLOCK_MONOTONIC
 * timestamps ts_before and ts_after (nanoseconds), so a test can compare
 * them with the switches a trace holds for that tid up to that moment.
 * nvcsw/nivcsw are -1 when the status file could not be read.  cpu_ns is
 * the thread's own CPU time (CLOCK_THREAD_CPUTIME_ID) at ts_before: what
 * the kernel charged it, user and system, to compare with what a trace
 * makes of its running time.
 *
 * Each line goes out with a single write(2) on an O_APPEND descriptor, so
 * lines of concurrent threads and processes never interleave.  Without
 * MTX_SELFCHECK the counting still happens (thread-local, cheap) and
 * nothing is written.
 *
 * The role is the thread's class ("main", "philosopher", "client", ...),
 * one word without spaces; the thread's own name (pthread_setname_np) tells
 * the instances apart.
 *
 * Nothing here calls a pthread synchronization function (a tracer would
 * see and count it), allocates memory, or uses stdio streams.  Counters are
 * bumped with a single atomic add, so counting from a signal handler (for
 * instance next to a sem_post) cannot lose an update of the thread it
 * interrupted.  After fork() the child must call selfcheck_reset(): it
 * inherits the forking thread's counters.
 */
#ifndef MTX_SAMPLES_SELFCHECK_H
#define MTX_SAMPLES_SELFCHECK_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SELFCHECK_MAX_OPS 9

/* The kinds and their ops, in the spelling tests and the trace use. */
static const char *const selfcheck_kinds[][SELFCHECK_MAX_OPS + 1] = {
	{ "mutex", "init", "lock", "trylock", "timedlock", "unlock", "destroy" },
	{ "rwlock", "init", "rdlock", "wrlock", "tryrdlock", "trywrlock",
	  "timedrdlock", "timedwrlock", "unlock", "destroy" },
	{ "spinlock", "init", "lock", "trylock", "unlock", "destroy" },
	{ "cond", "init", "wait", "timedwait", "signal", "broadcast", "destroy" },
	{ "barrier", "init", "wait", "destroy" },
	{ "sem", "init", "wait", "trywait", "timedwait", "post", "destroy",
	  "open", "close" },
	{ "thread", "create", "join", "detach", "exit" },
	{ "signal", "kill", "tgkill", "pthread_kill", "raise", "sigqueue" },
	{ "phase", "mark" },
};

#define SELFCHECK_NR_KINDS \
	(sizeof(selfcheck_kinds) / sizeof(selfcheck_kinds[0]))

static __thread unsigned long selfcheck_counts[SELFCHECK_NR_KINDS][SELFCHECK_MAX_OPS];

static inline __attribute__((unused)) void selfcheck_die(const char *what, const char *name)
{
	char line[160];
	int n = snprintf(line, sizeof(line), "selfcheck: unknown %s '%s'\n", what, name);

	if (n > 0 && write(2, line, (size_t)n) < 0)
		n = 0;
	abort();
}

/*
 * selfcheck_count - count one call of operation @op on an object of @kind.
 * An unknown kind or op is a bug in the sample: abort.
 */
static inline __attribute__((unused)) void selfcheck_count(const char *kind, const char *op)
{
	size_t k, o;

	for (k = 0; k < SELFCHECK_NR_KINDS; k++)
		if (strcmp(selfcheck_kinds[k][0], kind) == 0)
			break;
	if (k == SELFCHECK_NR_KINDS)
		selfcheck_die("kind", kind);
	for (o = 1; o <= SELFCHECK_MAX_OPS && selfcheck_kinds[k][o]; o++) {
		if (strcmp(selfcheck_kinds[k][o], op) == 0) {
			__atomic_fetch_add(&selfcheck_counts[k][o - 1], 1, __ATOMIC_RELAXED);
			return;
		}
	}
	selfcheck_die("op", op);
}

/* selfcheck_reset - forget all counts of the calling thread (child after fork). */
static inline __attribute__((unused)) void selfcheck_reset(void)
{
	memset(selfcheck_counts, 0, sizeof(selfcheck_counts));
}

static inline unsigned long long selfcheck_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/* Value of the "<key>:" line in a NUL-terminated status text, or -1. */
static inline long selfcheck_status_field(const char *text, const char *key)
{
	size_t len = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (strncmp(p, key, len) == 0 && p[len] == ':')
			return strtol(p + len + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

/* The self-check file opened for appending a thread's lines, or -1 when
 * MTX_SELFCHECK is not set (or the file cannot be opened). Never
 * instrumented: -pg samples count their own functions' calls. */
__attribute__((no_instrument_function))
static inline int selfcheck_open(void)
{
	const char *path = getenv("MTX_SELFCHECK");

	if (!path || !*path)
		return -1;
	return open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
}

static inline void selfcheck_write_line(int fd, const char *line, int n)
{
	if (n <= 0)
		return;
	if ((size_t)n >= 512)	/* truncated by the caller's buffer */
		n = 511;
	while (write(fd, line, (size_t)n) < 0 && errno == EINTR)
		;
}

/*
 * selfcheck_thread_done - report the calling thread (see the top of this
 * file).  Call it last, after the thread's final counted operation.
 */
static inline __attribute__((unused)) void selfcheck_thread_done(const char *role)
{
	const char *path = getenv("MTX_SELFCHECK");
	unsigned long long ts_before, ts_after, cpu_ns;
	struct timespec cpu;
	long nvcsw = -1, nivcsw = -1;
	char status[4096], line[512];
	int pid, tid, fd, n;
	size_t used = 0, k, o;
	ssize_t got;

	if (!path || !*path)
		return;
	pid = (int)getpid();
	tid = (int)syscall(SYS_gettid);

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
	cpu_ns = (unsigned long long)cpu.tv_sec * 1000000000ULL + (unsigned long long)cpu.tv_nsec;
	ts_before = selfcheck_now_ns();
	snprintf(line, sizeof(line), "/proc/self/task/%d/status", tid);
	fd = open(line, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		while (used < sizeof(status) - 1) {
			got = read(fd, status + used, sizeof(status) - 1 - used);
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0)
				break;
			used += (size_t)got;
		}
		close(fd);
		status[used] = '\0';
		nvcsw = selfcheck_status_field(status, "voluntary_ctxt_switches");
		nivcsw = selfcheck_status_field(status, "nonvoluntary_ctxt_switches");
	}
	ts_after = selfcheck_now_ns();

	fd = selfcheck_open();
	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line),
		     "thread pid=%d tid=%d role=%s nvcsw=%ld nivcsw=%ld ts_before=%llu ts_after=%llu cpu_ns=%llu\n",
		     pid, tid, role, nvcsw, nivcsw, ts_before, ts_after, cpu_ns);
	selfcheck_write_line(fd, line, n);
	for (k = 0; k < SELFCHECK_NR_KINDS; k++) {
		for (o = 0; o < SELFCHECK_MAX_OPS; o++) {
			unsigned long c = __atomic_load_n(&selfcheck_counts[k][o], __ATOMIC_RELAXED);

			if (!c)
				continue;
			n = snprintf(line, sizeof(line),
				     "op pid=%d tid=%d kind=%s op=%s count=%lu\n",
				     pid, tid, selfcheck_kinds[k][0], selfcheck_kinds[k][o + 1], c);
			selfcheck_write_line(fd, line, n);
		}
	}
	close(fd);
}

#endif /* MTX_SAMPLES_SELFCHECK_H */
