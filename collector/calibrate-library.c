/* collector/calibrate-library.c - see calibrate-library.h. */
#define _GNU_SOURCE
#include "config.h"
#include "collector/calibrate-library.h"
#include "collector/sync/inject.h"
#include "collector/sync/region.h"
#include "src/clock.h"
#include "src/error.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Operations a timed run makes, runs a child times (its median), and
 * children of each kind: enough for a clear figure in well under a
 * second at ~50 ns an operation. */
#define CHILD_OPS 400000
#define CHILD_RUNS 5
#define ROUNDS 3

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static uint64_t median(uint64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

typedef void (*hook_fn)(void *fn, void *callsite);

/* What a call costs without the hooks: a call that does nothing. */
static __attribute__((noinline)) void no_hook(void *fn, void *callsite)
{
	__asm__ volatile("" : : "r"(fn), "r"(callsite) : "memory");
}

int calibrate_library_child(const char *what)
{
	static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	hook_fn enter = dlsym(RTLD_DEFAULT, "__cyg_profile_func_enter");
	hook_fn leave = dlsym(RTLD_DEFAULT, "__cyg_profile_func_exit");
	int calls = !strcmp(what, "calls");
	uint64_t ns[CHILD_RUNS];
	if (!calls && strcmp(what, "sync"))
		return 2;
	if (!enter || !leave) /* nothing preloaded: the bare calls */
		enter = leave = no_hook;
	for (int r = -1; r < CHILD_RUNS; r++) { /* run -1 warms up */
		uint64_t t0 = clock_now_ns();
		for (int i = 0; i < CHILD_OPS; i++) {
			if (calls) {
				enter((void *)no_hook, (void *)(uintptr_t)i);
				leave((void *)no_hook, (void *)(uintptr_t)i);
			} else {
				pthread_mutex_lock(&m);
				pthread_mutex_unlock(&m);
			}
		}
		if (r >= 0)
			ns[r] = clock_now_ns() - t0;
	}
	printf("ps_per_op %llu\n", (unsigned long long)(median(ns, CHILD_RUNS) * 1000 / CHILD_OPS));
	return 0;
}

static void count(void *ctx, const struct mtx_event *ev)
{
	(void)ev;
	(*(uint64_t *)ctx)++;
}

/* One child: this program's child side for @what, with @lib preloaded and
 * regions drained (NULL: plain). Its per-op time in ps, 0 on failure. */
static uint64_t run_child(const char *what, const char *lib)
{
	struct sync_region *regions[2] = { NULL, NULL };
	char line[64] = "", preload[PATH_MAX + 16];
	uint64_t records = 0, ps = 0;
	int out[2], status;
	FILE *f;
	pid_t pid;
	if (lib && (sync_region_create(&regions[0]) || call_region_create(&regions[1]) ||
		    inject_ld_preload(lib, preload, sizeof(preload))))
		goto done;
	if (pipe(out) < 0)
		goto done;
	pid = fork();
	if (pid == 0) {
		dup2(out[1], STDOUT_FILENO);
		close(out[0]);
		close(out[1]);
		if (lib) {
			putenv(preload);
			putenv((char *)sync_region_env(regions[0]));
			putenv((char *)sync_region_env(regions[1]));
			/* a build with AddressSanitizer (CI's) refuses a library
			 * preloaded ahead of its runtime, mtx's own child too */
			const char *asan = getenv("ASAN_OPTIONS");
			char *options;
			if (asprintf(&options, "%s%sverify_asan_link_order=0", asan ? asan : "", asan ? ":" : "") > 0)
				setenv("ASAN_OPTIONS", options, 1);
		}
		execl("/proc/self/exe", "mtx", "calibrate", "--child", what, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	if (pid < 0) {
		close(out[0]);
		goto done;
	}
	/* the pump's drain: when a lane is half full, at least every ms */
	while (waitpid(pid, &status, WNOHANG) == 0) {
		struct sync_region *busy = regions[!strcmp(what, "calls")];
		uint32_t seq = lib ? sync_region_wake_seq(busy) : 0;
		for (int i = 0; lib && i < 2; i++)
			sync_region_drain(regions[i], count, &records);
		if (lib)
			sync_region_sleep(busy, seq, 1000000);
		else
			usleep(1000);
	}
	f = fdopen(out[0], "r");
	if (f && fgets(line, sizeof(line), f) && WIFEXITED(status) && !WEXITSTATUS(status))
		sscanf(line, "ps_per_op %llu", (unsigned long long *)&ps);
	if (f)
		fclose(f);
	else
		close(out[0]);
done:
	for (int i = 0; i < 2; i++)
		if (regions[i])
			sync_region_destroy(regions[i]);
	return ps;
}

/* What the library adds to an operation of @what, ns; 0 when unclear,
 * with why in *@why. */
static uint64_t cost_of(const char *what, const char *lib, const char **why)
{
	uint64_t plain[ROUNDS], with[ROUNDS], p, w;
	for (int r = 0; r < ROUNDS; r++) {
		plain[r] = run_child(what, NULL);
		with[r] = run_child(what, lib);
		if (!plain[r] || !with[r]) {
			*why = "mtx's timing child did not run to its end";
			return 0;
		}
	}
	p = median(plain, ROUNDS);
	w = median(with, ROUNDS);
	*why = "the runs with and without it did not differ";
	return w > p ? (w - p + 500) / 1000 : 0;
}

int calibrate_library(struct mtx_library_cost *c, char **err)
{
	char lib[PATH_MAX];
	memset(c, 0, sizeof(*c));
	if (inject_find_library(lib, sizeof(lib))) {
		error_set(err, "cannot find libmtx-preload.so (looked for %s); set MTX_PRELOAD_LIB", lib);
		return -ENOENT;
	}
	c->sync_pair_ns = cost_of("sync", lib, &c->sync_why);
	c->hook_call_ns = cost_of("calls", lib, &c->hook_why);
	return 0;
}
