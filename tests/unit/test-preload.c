/*
 * tests/unit/test-preload.c - build-tree check of libmtx-preload.so: run real
 * threaded programs with the library preloaded and a live region drained by
 * this process, and compare the records per (pid, tid, kind, op) with the
 * counts the programs report about themselves (samples/selfcheck.h). Output
 * and exit status must equal those of a plain run, and nothing may be lost.
 *
 * Paths (relative to the build tree, where `make check` runs):
 *   MTX_TEST_PRELOAD   the library (collector/preload/.libs/libmtx-preload.so)
 *   MTX_TEST_BUILDDIR  where tests/unit/preload-workload and the samples are (.)
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector/preload/shm.h"
#include "collector/sync/region.h"

/* ---- (pid, tid, kind, op) -> count ---------------------------------------- */

#define MAP_SIZE (1u << 16)

struct key {
	int32_t pid, tid;
	uint16_t kind, op;
};

struct map {
	struct key key[MAP_SIZE];
	uint64_t count[MAP_SIZE];
	uint8_t used[MAP_SIZE];
};

static uint64_t *map_slot(struct map *m, struct key k)
{
	uint32_t h = (uint32_t)k.pid * 2654435761u ^ (uint32_t)k.tid * 40503u ^
		     (uint32_t)k.kind * 97u ^ (uint32_t)k.op;

	for (uint32_t i = 0; i < MAP_SIZE; i++) {
		uint32_t s = (h + i) & (MAP_SIZE - 1);

		if (!m->used[s]) {
			m->used[s] = 1;
			m->key[s] = k;
			return &m->count[s];
		}
		if (!memcmp(&m->key[s], &k, sizeof(k)))
			return &m->count[s];
	}
	cr_assert_fail("count map full");
	return NULL;
}

static void trace_emit(void *ctx, const struct mtx_event *ev)
{
	struct key k = { ev->pid, ev->tid, ev->u.sync.kind, ev->u.sync.op };

	(*map_slot(ctx, k))++;
}

static int name_index(const char *name, int kind)
{
	for (unsigned i = 0; i < (kind ? MTX_SYNC_KIND__COUNT : MTX_SYNC_OP__COUNT); i++)
		if (!strcmp(name, kind ? sync_kind_name(i) : sync_op_name(i)))
			return (int)i;
	return -1;
}

/* Sum the "op pid= tid= kind= op= count=" lines of a selfcheck file. */
static void read_selfcheck(const char *path, struct map *m)
{
	FILE *f = fopen(path, "r");
	char line[512], kind[32], op[32];
	int pid, tid, lines = 0;
	unsigned long count;

	cr_assert_not_null(f, "no selfcheck file %s", path);
	while (fgets(line, sizeof(line), f)) {
		struct key k;
		int ki, oi;

		if (sscanf(line, "op pid=%d tid=%d kind=%31s op=%31s count=%lu", &pid, &tid, kind,
			   op, &count) != 5)
			continue;
		ki = name_index(kind, 1);
		oi = name_index(op, 0);
		cr_assert(ki >= 0 && oi >= 0, "selfcheck names unknown: %s %s", kind, op);
		k = (struct key){ pid, tid, (uint16_t)ki, (uint16_t)oi };
		*map_slot(m, k) += count;
		lines++;
	}
	fclose(f);
	cr_assert_gt(lines, 0, "selfcheck file %s has no counts", path);
}

/* ---- running the program ----------------------------------------------------- */

static const char *builddir(void)
{
	const char *d = getenv("MTX_TEST_BUILDDIR");

	return d && *d ? d : ".";
}

static char *preload_path(void)
{
	const char *p = getenv("MTX_TEST_PRELOAD");
	char *s;

	if (p && *p)
		return strdup(p);
	cr_assert_gt(asprintf(&s, "%s/collector/preload/.libs/libmtx-preload.so", builddir()), 0);
	return s;
}

/*
 * Start argv[0] with stdout to @out; with @region, also with the library
 * preloaded, the region's variable and MTX_SELFCHECK=@selfcheck, draining
 * the region into @trace until the program exits. Returns the wait status.
 */
static int run(char *const argv[], const char *out, struct sync_region *region,
	       const char *selfcheck, struct map *trace)
{
	char *lib = preload_path();
	pid_t pid;
	int status;

	cr_assert_eq(access(argv[0], X_OK), 0, "%s not built", argv[0]);
	cr_assert_eq(access(lib, R_OK), 0, "%s not built", lib);
	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(126);
		if (region) {
			putenv((char *)sync_region_env(region));
			setenv("LD_PRELOAD", lib, 1);
			setenv("MTX_SELFCHECK", selfcheck, 1);
		} else {
			unsetenv("MTX_SELFCHECK");
		}
		execv(argv[0], argv);
		_exit(127);
	}
	free(lib);
	for (;;) {
		pid_t w = waitpid(pid, &status, region ? WNOHANG : 0);

		if (region)
			sync_region_drain(region, trace_emit, trace);
		if (w == pid)
			break;
		cr_assert(w == 0 || (w < 0 && errno == EINTR));
		usleep(500);
	}
	if (region)
		sync_region_drain(region, trace_emit, trace);
	return status;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;

	cr_assert_not_null(f);
	cr_assert_geq(getdelim(&buf, &len, '\0', f), 0);
	fclose(f);
	return buf;
}

/*
 * The whole check for one program: plain run, traced run, same output and
 * status, no loss, and the trace's counts equal the program's own.
 */
static void check_program(const char *prog, char *const args[], uint32_t lanes, uint32_t records)
{
	char dir[] = "/tmp/mtx-test-preload-XXXXXX";
	char *argv[16], *exe, *plain_out, *traced_out, *selfcheck;
	char *plain_text, *traced_text;
	struct sync_region *region;
	struct map *trace = calloc(1, sizeof(*trace)), *truth = calloc(1, sizeof(*truth));
	int plain_status, traced_status, n = 0, mismatches = 0;

	cr_assert(trace && truth);
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_gt(asprintf(&exe, "%s/%s", builddir(), prog), 0);
	argv[n++] = exe;
	for (int i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	cr_assert_gt(asprintf(&plain_out, "%s/plain.out", dir), 0);
	cr_assert_gt(asprintf(&traced_out, "%s/traced.out", dir), 0);
	cr_assert_gt(asprintf(&selfcheck, "%s/selfcheck", dir), 0);

	plain_status = run(argv, plain_out, NULL, NULL, NULL);
	cr_assert_eq(sync_region_create_sized(&region, lanes, records), 0);
	traced_status = run(argv, traced_out, region, selfcheck, trace);

	plain_text = slurp(plain_out);
	traced_text = slurp(traced_out);
	cr_expect_eq(traced_status, plain_status, "%s: status %#x traced, %#x plain", prog,
		     traced_status, plain_status);
	cr_expect_str_eq(traced_text, plain_text, "%s: output differs", prog);
	cr_expect_eq(sync_region_lost(region), 0, "%s: %llu records lost", prog,
		     (unsigned long long)sync_region_lost(region));

	read_selfcheck(selfcheck, truth);
	for (int pass = 0; pass < 2; pass++) {
		struct map *a = pass ? truth : trace, *b = pass ? trace : truth;

		for (uint32_t s = 0; s < MAP_SIZE; s++) {
			struct key k = a->key[s];
			uint64_t want, got;

			if (!a->used[s])
				continue;
			got = pass ? *map_slot(b, k) : a->count[s];
			want = pass ? a->count[s] : *map_slot(b, k);
			if (got == want)
				continue;
			if (++mismatches <= 20)
				cr_log_error("%s: pid %d tid %d %s %s: traced %llu, program says %llu",
					     prog, k.pid, k.tid, sync_kind_name(k.kind),
					     sync_op_name(k.op), (unsigned long long)got,
					     (unsigned long long)want);
		}
	}
	cr_expect_eq(mismatches, 0, "%s: %d (pid, tid, kind, op) counts differ", prog, mismatches);

	sync_region_destroy(region);
	unlink(plain_out);
	unlink(traced_out);
	unlink(selfcheck);
	rmdir(dir);
	free(plain_text);
	free(traced_text);
	free(exe);
	free(plain_out);
	free(traced_out);
	free(selfcheck);
	free(trace);
	free(truth);
}

/* Few, small lanes: claims wait for the drain, lanes are recycled. */
Test(preload, workload_every_call_counted_small_region, .timeout = 120)
{
	char *args[] = { "600", NULL };

	check_program("tests/unit/preload-workload", args, 8, 1024);
}

Test(preload, workload_every_call_counted, .timeout = 120)
{
	char *args[] = { "300", NULL };

	check_program("tests/unit/preload-workload", args, MTX_SHM_DEFAULT_LANES,
		      MTX_SHM_DEFAULT_LANE_RECORDS);
}

#define SAMPLE_TEST(name, ...)                                                        \
	Test(preload, sample_##name, .timeout = 180)                                  \
	{                                                                             \
		char *args[] = { __VA_ARGS__, NULL };                                 \
		check_program("samples/" #name, args, MTX_SHM_DEFAULT_LANES,          \
			      MTX_SHM_DEFAULT_LANE_RECORDS);                          \
	}

SAMPLE_TEST(philosophers, "5")
SAMPLE_TEST(barber, "20", "3")
SAMPLE_TEST(clientserver, "4", "30")
SAMPLE_TEST(crossroad, "6", "10")
SAMPLE_TEST(farm, "3", "100")
SAMPLE_TEST(forkexec, "7")
SAMPLE_TEST(signals, "3")
SAMPLE_TEST(handlers, "3", "200", "5000", "10")
SAMPLE_TEST(iobound, "2")
