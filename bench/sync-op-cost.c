/*
 * bench/sync-op-cost.c - what the preload library adds to an uncontended
 * pthread_mutex_lock + pthread_mutex_unlock pair.
 *
 *   sync-op-cost measure [pairs=5000000] [runs=7]
 *       time `pairs` lock+unlock pairs on one mutex, `runs` times; print the
 *       median ns per pair ("ns_per_pair <median>"). Run it plain and with
 *       LD_PRELOAD to compare.
 *   sync-op-cost collect LIBRARY LANE_RECORDS PERIOD_US -- COMMAND [ARGS...]
 *       what `mtx collect` does for sync tracing, and nothing else: create a
 *       region of 64 lanes of LANE_RECORDS records, run COMMAND with LIBRARY
 *       preloaded and the region in its environment, drain the region while
 *       it runs as mtx collect's pump does (collector/sync/pump.c): whenever a
 *       writer wakes it (a lane reached half full) and at least every
 *       PERIOD_US microseconds (-1: never; records are counted, not stored),
 *       print "records N lost N (...)" on stderr and exit with
 *       COMMAND's status. With SYNC_OP_COST_STACK_FRAMES=N in the
 *       environment the region asks for N frames of user stack per record
 *       (mtx collect --sync-stacks=N); frames records count as records.
 *   sync-op-cost collect-calls LIBRARY LANE_RECORDS PERIOD_US -- COMMAND [ARGS...]
 *       the same with a call region (the -pg / -finstrument-functions hooks,
 *       bench/function-hook-cost.sh) instead of a sync region.
 *
 * bench/sync-op-cost.sh runs both and prints the figures.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/lock-pairs.h"
#include "collector/preload/shm.h"
#include "collector/sync/region.h"

static void count_emit(void *ctx, const struct mtx_event *ev)
{
	(void)ev;
	(*(uint64_t *)ctx)++;
}

static int collect(const char *lib, char **argv, uint32_t lane_records, long period_us, int calls,
		   uint32_t stack_frames)
{
	struct sync_region *region;
	uint64_t records = 0;
	int rc, status;
	pid_t pid;

	rc = calls ? call_region_create_sized(&region, 64, lane_records) :
		     sync_region_create_sized(&region, 64, lane_records);
	if (rc < 0) {
		fprintf(stderr, "sync-op-cost: cannot create the region: %s\n", strerror(-rc));
		return 1;
	}
	sync_region_set_stack_frames(region, stack_frames);
	pid = fork();
	if (pid < 0) {
		perror("sync-op-cost: fork");
		return 1;
	}
	if (pid == 0) {
		putenv((char *)sync_region_env(region));
		setenv("LD_PRELOAD", lib, 1);
		execvp(argv[0], argv);
		perror("sync-op-cost: exec");
		_exit(127);
	}
	for (;;) {
		uint32_t seq = sync_region_wake_seq(region);
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (period_us >= 0)
			sync_region_drain(region, count_emit, &records);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			perror("sync-op-cost: waitpid");
			return 1;
		}
		if (period_us >= 0) {
			sync_region_sleep(region, seq, period_us * 1000L);
		} else {
			struct timespec nap = { 0, 1000000 };
			nanosleep(&nap, NULL);
		}
	}
	sync_region_drain(region, count_emit, &records);
	{
		const struct mtx_shm_header *h = sync_region_map(region, NULL);

		fprintf(stderr, "records %llu lost %llu (lane full %llu, no lane %llu) lanes used %u\n",
			(unsigned long long)records,
			(unsigned long long)sync_region_lost(region),
			(unsigned long long)h->lost_full, (unsigned long long)h->lost_nolane,
			h->lanes_used);
	}
	sync_region_destroy(region);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "measure"))
		return measure(argc > 2 ? atol(argv[2]) : 5000000, argc > 3 ? atoi(argv[3]) : 7);
	if (argc >= 7 && (!strcmp(argv[1], "collect") || !strcmp(argv[1], "collect-calls")) &&
	    !strcmp(argv[5], "--")) {
		const char *frames = getenv("SYNC_OP_COST_STACK_FRAMES");
		return collect(argv[2], argv + 6, (uint32_t)atol(argv[3]), atol(argv[4]),
			       !strcmp(argv[1], "collect-calls"), frames ? (uint32_t)atol(frames) : 0);
	}
	fprintf(stderr, "usage: sync-op-cost measure [pairs] [runs]\n"
			"       sync-op-cost collect[-calls] LIBRARY LANE_RECORDS PERIOD_US -- COMMAND [ARGS...]\n");
	return 2;
}
