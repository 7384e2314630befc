/*
 * tests/unit/test-debug-cache.c - the debug cache kept under its size:
 * debug_cache_prune deletes the copies used longest ago first, never the
 * one just added, and leaves other files alone.
 */
#include "config.h"
#include "src/debug-cache.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char dir[] = "/tmp/mtx-test-debug-cache-XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(debug_cache, .init = setup, .fini = teardown);

/* A (sparse) file @name of @mib MiB in the folder, last changed @age s ago. */
static void make_file(const char *name, long long mib, int age)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, mib << 20), 0);
	struct timespec t[2];
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= age;
	t[1] = t[0];
	cr_assert_eq(futimens(fd, t), 0);
	close(fd);
}

static bool exists(const char *name)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

Test(debug_cache, the_least_recently_used_copies_go_first)
{
	/* 4 copies of 300 MiB (1200 in all) under a 700 MiB cap: the two used
	 * longest ago go, 600 MiB stay. */
	make_file("aa.debug", 300, 400);
	make_file("bb.debug", 300, 100);
	make_file("cc.debug", 300, 300);
	make_file("dd.debug", 300, 200);
	debug_cache_prune(dir, 700LL << 20, NULL);
	cr_assert(!exists("aa.debug"));
	cr_assert(!exists("cc.debug"));
	cr_assert(exists("dd.debug"));
	cr_assert(exists("bb.debug"));
}

Test(debug_cache, the_copy_just_added_stays_and_other_files_are_not_counted)
{
	/* keep is the oldest but stays; the half-written copy (a temporary
	 * name) and other files are neither counted nor deleted. */
	make_file("keep.debug", 300, 500);
	make_file("old.debug", 300, 400);
	make_file("new.debug", 300, 10);
	make_file("new.debug.Ab12Cd", 900, 600);
	make_file("notes.txt", 900, 600);
	debug_cache_prune(dir, 650LL << 20, "keep.debug");
	cr_assert(exists("keep.debug"));
	cr_assert(!exists("old.debug"));
	cr_assert(exists("new.debug"));
	cr_assert(exists("new.debug.Ab12Cd"));
	cr_assert(exists("notes.txt"));
}

Test(debug_cache, under_the_cap_nothing_goes)
{
	make_file("aa.debug", 10, 400);
	make_file("bb.debug", 10, 100);
	debug_cache_prune(dir, 20LL << 20, NULL);
	cr_assert(exists("aa.debug"));
	cr_assert(exists("bb.debug"));
}
