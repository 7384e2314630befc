/*
 * tests/unit/test-program-frames.c - where in the program's own code a
 * C++ program's sync ops and switches were (src/derived/program-frames.c,
 * src/frames.c) on the run of tests/fixtures/cxx-frames.sql, whose header
 * works out each answer; and the rule itself on the paths it decides by.
 */
#include "config.h"
#include "src/frames.h"
#include "tests/unit/fixture.h"

Test(frames, system_code_is_libraries_mtx_and_system_headers)
{
	cr_assert(frame_is_system("/usr/lib/x86_64-linux-gnu/libc.so.6", "../sysdeps/nptl/pthread_mutex_lock.c"));
	cr_assert(frame_is_system("/lib/x86_64-linux-gnu/libstdc++.so.6", NULL));
	cr_assert(frame_is_system("/usr/bin/bank", "/usr/include/c++/12/bits/std_mutex.h"));
	cr_assert(frame_is_system("/usr/bin/bank", "/usr/lib/gcc/x86_64-linux-gnu/12/include/xmmintrin.h"));
	cr_assert(frame_is_system("/home/me/mtx/collector/preload/.libs/libmtx-preload.so", NULL));
	cr_assert(frame_is_system("[vdso]", NULL));
	cr_assert(frame_is_system(NULL, "bank.cc"));
	/* The program, wherever it is, and its own libraries. */
	cr_assert_not(frame_is_system("/usr/bin/bank", "bank.cc"));
	cr_assert_not(frame_is_system("/usr/bin/python3.11", NULL));
	cr_assert_not(frame_is_system("/home/me/app/libledger.so", "/home/me/app/ledger.h"));
	cr_assert_not(frame_is_system("/usr/bin/bank", "src/include/usr.h"));
	cr_assert(frame_is_mtx("/usr/lib/mtx/libmtx-preload.so"));
	cr_assert_not(frame_is_mtx("/usr/lib/mtx/libmtx-preload.so.1"));
	cr_assert_not(frame_is_mtx(NULL));
}

static char path[64];
static sqlite3 *db;

static void setup(void)
{
	db = fixture_open("cxx-frames", path);
}

static void teardown(void)
{
	fixture_close(db, path);
}

TestSuite(program_frames, .init = setup, .fini = teardown);

Test(program_frames, switches_are_in_the_program_not_in_its_headers)
{
	struct mtx_timeline *tl = NULL;
	char *err = NULL;
	cr_assert_eq(timeline_load(db, &tl, &err), 0, "%s", err ? err : "");
	const struct tl_thread *main_thread = timeline_thread(tl, 500);
	cr_assert_not_null(main_thread);
	cr_assert_eq(main_thread->nr_switches, 2);
	/* Under mtx's and libc's frames and the inlined std::mutex ones:
	 * deposit. In libc alone, inside the join: the join's call site. */
	cr_assert_eq(main_thread->switches[0].function_id, 2);
	cr_assert_eq(main_thread->switches[1].function_id, 10);
	timeline_free(tl);
}

Test(program_frames, tables_name_each_stack_and_call_site)
{
	char *err = NULL;
	cr_assert_eq(analysis_build(db, 0, &err), 0, "%s", err ? err : "");
	/* Rows 5-7 and 13 hold none of the program's frames. */
	cr_assert_str_eq(fixture_rows(db, "SELECT stack_id, function_id, file, line FROM stack_frames ORDER BY stack_id"),
			 "1|2|bank.cc|42\n2|2|bank.cc|42\n3|2|bank.cc|42\n4|2|bank.cc|42\n"
			 "8|1|bank.cc|101\n9|1|bank.cc|101\n10|1|bank.cc|101\n"
			 "11|2|bank.cc|42\n12|2|bank.cc|42\n");
	cr_assert_str_eq(fixture_rows(db, "SELECT pid, addr, function_id, file, line FROM callsite_frames ORDER BY addr"),
			 "500|4096|2|bank.cc|42\n"
			 "500|8192|6|/usr/include/c++/12/bits/unique_lock.h|195\n"
			 "500|12288|10|-|-\n");
}

Test(program_frames, a_run_from_before_names_the_innermost_function)
{
	char *err = NULL;
	/* As a run.db recorded before callsites.stack_id and stacks' lines. */
	cr_assert_eq(db_exec(db,
			     "ALTER TABLE callsites DROP COLUMN stack_id; "
			     "ALTER TABLE stacks DROP COLUMN file; ALTER TABLE stacks DROP COLUMN line",
			     &err),
		     0, "%s", err ? err : "");
	cr_assert_eq(analysis_build(db, 0, &err), 0, "%s", err ? err : "");
	cr_assert_str_eq(fixture_rows(db, "SELECT pid, addr, function_id, file, line FROM callsite_frames ORDER BY addr"),
			 "500|4096|5|-|-\n500|8192|7|-|-\n500|12288|10|-|-\n");
	cr_assert_str_eq(fixture_rows(db, "SELECT stack_id, function_id, file FROM stack_frames WHERE stack_id = 12"),
			 "12|2|-\n");
}
