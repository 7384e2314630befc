/*
 * forkexec - threads across fork() and execve(), and exit-status propagation.
 *
 * Usage: forkexec [status=0]      (0 <= status <= 255)
 *
 * The parent process starts 2 worker threads ("worker-0", "worker-1"),
 * which alternate busy work (busy()) and short sleeps, bumping a shared
 * counter under a mutex.  Meanwhile the main thread forks a child.  The
 * child's main thread (renamed "fe-child") creates 2 threads ("child-0",
 * "child-1"), joins them, and then execs /proc/self/exe --exec-child; the
 * new program image (same pid, main thread renamed "fe-exec", since exec
 * would otherwise name it "exe") creates one thread ("exec-0"), joins it
 * and exits with status 3.  The parent waits for the child, prints the
 * child's exit status, joins its workers and exits with the status given
 * as argument.
 *
 * A run under mtx must show:
 *  - two processes: the parent (3 threads) and the child, whose pid keeps
 *    the same main thread across the exec: 3 threads before the exec
 *    (fe-child and child-0/1) and 2 after it (fe-exec and exec-0);
 *  - the child's threads created after fork and the exec'd image's thread
 *    created after exec, all of them traced (following forks and execs);
 *  - the parent's main thread blocked in waitpid while its workers run;
 *  - the child process exiting with status 3 and the parent with
 *    <status>.
 * Output: "child exited with status 3" and the workers' total; the same
 * for the same arguments.  Exit status: <status>.
 *
 * Not for ThreadSanitizer builds: TSan does not support creating threads
 * in the child of a multithreaded fork (its child dies with status 66).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "samples/selfcheck.h"

#define BUSY_ITERS 200000UL	/* ~0.4 ms */
#define WORKER_ROUNDS 100

static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long count;

static __attribute__((noinline)) void busy(unsigned long seed, unsigned long iters)
{
	volatile unsigned long acc = seed;
	unsigned long i;

	for (i = 0; i < iters; i++)
		acc = acc * 31 + i;
}

static void nap_us(long us)
{
	struct timespec ts = { 0, us * 1000 };

	while (nanosleep(&ts, &ts) != 0)
		;
}

static void *worker(void *arg)
{
	unsigned long id = (unsigned long)arg;
	char name[16];
	int r;

	snprintf(name, sizeof(name), "worker-%lu", id);
	pthread_setname_np(pthread_self(), name);
	for (r = 0; r < WORKER_ROUNDS; r++) {
		busy(id, BUSY_ITERS);
		selfcheck_count("mutex", "lock");
		pthread_mutex_lock(&count_lock);
		count++;
		selfcheck_count("mutex", "unlock");
		pthread_mutex_unlock(&count_lock);
		nap_us(2000);
	}
	selfcheck_thread_done("worker");
	return NULL;
}

/* The child's threads, before the exec and after it. */
static void *child_thread(void *arg)
{
	const char *name = arg;

	pthread_setname_np(pthread_self(), name);
	busy(7, 5 * BUSY_ITERS);
	nap_us(20000);
	busy(8, 5 * BUSY_ITERS);
	selfcheck_thread_done(strncmp(name, "exec", 4) == 0 ? "exec-thread" : "child-thread");
	return NULL;
}

static int start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	selfcheck_count("thread", "create");
	if (pthread_create(t, NULL, fn, arg) != 0) {
		fprintf(stderr, "forkexec: pthread_create failed\n");
		return -1;
	}
	return 0;
}

static void join(pthread_t t)
{
	selfcheck_count("thread", "join");
	pthread_join(t, NULL);
}

/* After the exec: one thread, then exit status 3. */
static int exec_child_main(void)
{
	pthread_t t;

	pthread_setname_np(pthread_self(), "fe-exec");
	if (start(&t, child_thread, "exec-0"))
		return 1;
	join(t);
	selfcheck_thread_done("exec-main");
	return 3;
}

/* In the forked child: two threads, then the exec. */
static void child_main(void)
{
	char *const args[] = { "forkexec", "--exec-child", NULL };
	pthread_t t[2];

	selfcheck_reset();	/* the counts so far belong to the parent */
	pthread_setname_np(pthread_self(), "fe-child");
	if (start(&t[0], child_thread, "child-0") || start(&t[1], child_thread, "child-1"))
		_exit(1);
	join(t[0]);
	join(t[1]);
	selfcheck_thread_done("child-pre-exec");
	execv("/proc/self/exe", args);
	perror("forkexec: execv /proc/self/exe");
	_exit(1);
}

int main(int argc, char **argv)
{
	pthread_t workers[2];
	unsigned long status = 0;
	int wstatus;
	pid_t pid;

	if (argc == 2 && strcmp(argv[1], "--exec-child") == 0)
		return exec_child_main();
	if (argc > 1) {
		char *end;

		errno = 0;
		status = strtoul(argv[1], &end, 10);
		if (argc > 2 || errno || end == argv[1] || *end || argv[1][0] == '-' || status > 255) {
			fprintf(stderr, "usage: forkexec [status=0 (0..255)]\n");
			return 2;
		}
	}

	if (start(&workers[0], worker, (void *)0UL) || start(&workers[1], worker, (void *)1UL))
		return 1;
	nap_us(10000);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("forkexec: fork");
		return 1;
	}
	if (pid == 0)
		child_main();
	while (waitpid(pid, &wstatus, 0) < 0) {
		if (errno != EINTR) {
			perror("forkexec: waitpid");
			return 1;
		}
	}
	if (WIFEXITED(wstatus))
		printf("child exited with status %d\n", WEXITSTATUS(wstatus));
	else
		printf("child killed by signal %d\n", WTERMSIG(wstatus));
	join(workers[0]);
	join(workers[1]);
	printf("workers counted %lu\n", count);
	fflush(stdout);
	selfcheck_thread_done("main");
	return (int)status;
}
