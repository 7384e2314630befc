/*
 * tests/unit/test-critical-path.c - analysis_critical_path on hand-made
 * runs (tests/fixtures/critical-path-*.sql): the path of a lone thread, a
 * join, a lock handoff chain with its object attribution, waits ended by
 * interrupts and untraced tasks, tid reuse and a child process, and
 * inconsistent data. Each expected path is worked out below from the
 * fixture; every path is also checked to tile the run from its first
 * segment to the root's exit, each segment inside one state interval of its
 * thread.
 */
#include "config.h"
#include "schema/schema.h"
#include "src/derived/analysis.h"
#include "src/db.h"
#include "tests/unit/fixture.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

/* One expected segment; object_id and function_id 0 mean NULL (fixture ids
 * are >= 1). */
struct seg {
	int64_t tid, start_ns, end_ns;
	const char *state;
	int64_t object_id, function_id;
};

#define NR(a) (sizeof(a) / sizeof((a)[0]))

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(db));
	return st;
}

/*
 * The invariants of every path: seq runs 1, 2, ... in time order; no segment
 * is empty; each starts where the one before ended (no gap, no overlap);
 * the last is the root process's main thread ending at its exit; the first
 * starts at the run's first instant; each lies inside one thread_states
 * interval of its thread, in that interval's state.
 */
static void expect_tiles(sqlite3 *db)
{
	sqlite3_stmt *st = prepare(db, "SELECT seq, tid, start_ns, end_ns FROM critical_path ORDER BY start_ns");
	int64_t prev_end = 0, last_tid = 0, expected_seq = 1;

	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t seq = sqlite3_column_int64(st, 0), start_ns = sqlite3_column_int64(st, 2);
		int64_t end_ns = sqlite3_column_int64(st, 3);
		cr_expect_eq(seq, expected_seq, "segment %lld: seq %lld", (long long)expected_seq, (long long)seq);
		cr_expect_lt(start_ns, end_ns, "segment %lld is empty", (long long)seq);
		if (expected_seq > 1)
			cr_expect_eq(start_ns, prev_end, "segment %lld starts at %lld, the one before ends at %lld",
				     (long long)seq, (long long)start_ns, (long long)prev_end);
		else
			cr_expect_eq(start_ns, db_query_int(db, "SELECT MIN(start_ns) FROM threads", -1),
				     "the path starts at the run's first instant");
		prev_end = end_ns;
		last_tid = sqlite3_column_int64(st, 1);
		expected_seq++;
	}
	sqlite3_finalize(st);
	cr_assert_gt(expected_seq, 1, "the path is empty");
	cr_expect_eq(last_tid, db_query_int(db, "SELECT pid FROM processes WHERE ppid NOT IN (SELECT pid FROM processes)", -1),
		     "the path ends on the root's main thread");
	cr_expect_eq(prev_end, db_query_int(db, "SELECT t.end_ns FROM threads t JOIN processes p ON t.tid = p.pid "
						"WHERE p.ppid NOT IN (SELECT pid FROM processes)", -1),
		     "the path ends at the main thread's exit");
	cr_expect_eq(db_query_int(db, "SELECT COUNT(*) FROM critical_path c WHERE NOT EXISTS (SELECT 1 FROM "
				      "thread_states s WHERE s.tid = c.tid AND s.state = c.state AND "
				      "s.start_ns <= c.start_ns AND c.end_ns <= s.end_ns)", -1),
		     0, "segments outside their thread's states");
}

/* The path of fixture @name, after @edit_sql (when not NULL) changed it, is
 * exactly @want, in order, and tiles the run. */
static void expect_path(const char *name, const char *edit_sql, const struct seg *want, size_t n)
{
	char path[64], *err = NULL;
	sqlite3 *db = fixture_open(name, path);
	sqlite3_stmt *st;
	size_t i = 0;

	if (edit_sql)
		cr_assert_eq(db_exec(db, edit_sql, &err), 0, "%s", err ? err : "");
	cr_assert_eq(db_exec(db, schema_derived_sql, &err), 0, "%s", err ? err : "");
	fixture_analyse(db, analysis_critical_path);
	st = prepare(db, "SELECT tid, start_ns, end_ns, state, object_id, function_id FROM critical_path ORDER BY seq");
	for (; sqlite3_step(st) == SQLITE_ROW; i++) {
		struct seg got = {
			sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2),
			(const char *)sqlite3_column_text(st, 3), sqlite3_column_int64(st, 4), sqlite3_column_int64(st, 5),
		};
		if (i >= n)
			continue;
		cr_expect(got.tid == want[i].tid && got.start_ns == want[i].start_ns && got.end_ns == want[i].end_ns &&
				  !strcmp(got.state, want[i].state) && got.object_id == want[i].object_id &&
				  got.function_id == want[i].function_id,
			  "segment %zu: %lld [%lld, %lld) %s object %lld function %lld; "
			  "expected %lld [%lld, %lld) %s object %lld function %lld",
			  i + 1, (long long)got.tid, (long long)got.start_ns, (long long)got.end_ns, got.state,
			  (long long)got.object_id, (long long)got.function_id, (long long)want[i].tid,
			  (long long)want[i].start_ns, (long long)want[i].end_ns, want[i].state,
			  (long long)want[i].object_id, (long long)want[i].function_id);
	}
	sqlite3_finalize(st);
	cr_expect_eq(i, n, "%zu segments, expected %zu", i, n);
	if (n)
		expect_tiles(db);
	fixture_close(db, path);
}

/*
 * (1) A lone thread: no waker to follow, the read at 1500 ends with no
 * wakeup seen, so the path is the thread's six states as they are.
 * Function at each segment's start: 1000 is in main (call 1); 1200 in inner
 * (call 3, 1150..1250); at 1300 the latest call begun, inner, has returned,
 * its caller work (1100..1400) has not; 1500 and 1800 are in io
 * (1450..1820); at 1850 io has returned: its caller main.
 */
Test(critical_path, a_lone_thread_is_its_own_path)
{
	static const struct seg want[] = {
		{ 100, 1000, 1200, "running", 0, 1 },    { 100, 1200, 1300, "runnable", 0, 3 },
		{ 100, 1300, 1500, "running", 0, 2 },    { 100, 1500, 1800, "blocked_io", 0, 4 },
		{ 100, 1800, 1850, "runnable", 0, 4 },   { 100, 1850, 2000, "running", 0, 1 },
	};
	expect_path("critical-path-single", NULL, want, NR(want));
}

/*
 * (2) Main 200 creates worker 201 (which starts at 60) and joins it,
 * blocked_sync on thread object 1 from 100 until the worker's exit wakes it
 * at 700. Backwards from main's exit at 1000: main running 720..1000,
 * runnable 700..720; its join wait was ended by 201 at 700, so the path
 * jumps to 201 at 700, and 201's segments within the wait (100..700) are
 * marked with object 1: running 410..700, runnable 400..410, its sleep
 * 300..400 (ended by a timer, so on the path), running 100..300, split at
 * 100 from 70..100 (before the wait: no object), runnable 60..70. At 201's
 * start, its create op (arg 201) was made by main: main running 0..60.
 * Main started the run: the path ends there. Nothing records calls:
 * function_id is NULL throughout.
 */
static const struct seg join_path[] = {
	{ 200, 0, 60, "running", 0, 0 },        { 201, 60, 70, "runnable", 0, 0 },
	{ 201, 70, 100, "running", 0, 0 },      { 201, 100, 300, "running", 1, 0 },
	{ 201, 300, 400, "sleeping", 1, 0 },    { 201, 400, 410, "runnable", 1, 0 },
	{ 201, 410, 700, "running", 1, 0 },     { 200, 700, 720, "runnable", 0, 0 },
	{ 200, 720, 1000, "running", 0, 0 },
};

Test(critical_path, a_join_goes_through_the_worker)
{
	expect_path("critical-path-join", NULL, join_path, NR(join_path));
}

/*
 * (2b) As (2), but the worker's exit is recorded at 690 and its wakeup of
 * main comes at 700, after it (the kernel wakes a joiner from the exiting
 * thread after its exit event, as seen in real runs). The waker exited
 * during the wait: the path keeps main's wait from 690 to 700 (what is left
 * of it after the worker's exit) and continues in the worker at its exit.
 */
Test(critical_path, a_joiner_woken_after_the_exit_record_goes_through_the_worker)
{
	struct seg want[NR(join_path) + 1];

	memcpy(want, join_path, sizeof(join_path));
	want[6].end_ns = 690;
	memmove(&want[8], &want[7], 2 * sizeof(want[0]));
	want[7] = (struct seg){ 200, 690, 700, "blocked_sync", 1, 0 };
	expect_path("critical-path-join",
		    "UPDATE threads SET end_ns = 690 WHERE tid = 201;"
		    "UPDATE thread_states SET end_ns = 690 WHERE tid = 201 AND end_ns = 700;",
		    want, NR(want));
}

/*
 * (3) A (300) waits on mutex Y (11) from 30 until B (301) unlocks it at 500;
 * B waits on mutex X (10) from 40 until C (302) unlocks it at 300.
 * Backwards: A running 510..1000, runnable 500..510 (no object); A's wait on
 * Y was ended by B at 500: jump to B, whose segments within 30..500 take
 * object 11: running 455..500, runnable 450..455; B's own wait on semaphore
 * 12 (400..450) was ended by a timeout (waker 0), so it stays on the path
 * and keeps its own object 12; running 305..400 and runnable 300..305 take
 * 11 again. B's wait on X was ended by C at 300: jump to C, whose segments
 * within 40..300 take object 10: running 150..300, runnable 100..150,
 * running 40..100 (split at 40); C's running 22..40 and runnable 20..22
 * lie before B's wait (and Y's window is B's, not C's): no object. C was
 * created by A at 20: A running 0..20.
 */
Test(critical_path, a_lock_handoff_chain_is_attributed_to_the_objects_waited_through)
{
	static const struct seg want[] = {
		{ 300, 0, 20, "running", 0, 0 },
		{ 302, 20, 22, "runnable", 0, 0 },
		{ 302, 22, 40, "running", 0, 0 },
		{ 302, 40, 100, "running", 10, 0 },
		{ 302, 100, 150, "runnable", 10, 0 },
		{ 302, 150, 300, "running", 10, 0 },
		{ 301, 300, 305, "runnable", 11, 0 },
		{ 301, 305, 400, "running", 11, 0 },
		{ 301, 400, 450, "blocked_sync", 12, 0 },
		{ 301, 450, 455, "runnable", 11, 0 },
		{ 301, 455, 500, "running", 11, 0 },
		{ 300, 500, 510, "runnable", 0, 0 },
		{ 300, 510, 1000, "running", 0, 0 },
	};
	expect_path("critical-path-locks", NULL, want, NR(want));
}

/*
 * (4) Main 400's sleep (100..400) was ended by a timer (waker 0 at 400; the
 * worker's wakeup at 250 came in the middle and did not end it) and its
 * wait 600..800 by an untraced task (4242): both waits are on the path and
 * it stays on main throughout. The worker, running 55..950 the whole time,
 * never appears.
 */
Test(critical_path, a_wait_ended_by_an_interrupt_stays_on_the_path)
{
	static const struct seg want[] = {
		{ 400, 0, 100, "running", 0, 0 },    { 400, 100, 400, "sleeping", 0, 0 },
		{ 400, 400, 410, "runnable", 0, 0 },  { 400, 410, 600, "running", 0, 0 },
		{ 400, 600, 800, "blocked", 0, 0 },   { 400, 800, 802, "runnable", 0, 0 },
		{ 400, 802, 1000, "running", 0, 0 },
	};
	expect_path("critical-path-interrupt", NULL, want, NR(want));
}

/*
 * (5) Tiling across tid reuse and a child process. Backwards from main
 * 500's exit at 1000: running 810..1000, runnable 800..810; its wait4 wait
 * (310..800, state blocked: no object) was ended by child 510's exit at 800:
 * jump to 510, running 302..800, runnable 300..302. 510 is a process's main
 * thread that no create op names: its parent 500, running at 300, forked
 * it: main running 290..300. Main's second join (object 2, 160..290) was
 * ended at 290 by tid 501, whose lifetime then is the second one
 * (150..290), not the first (10..100): running 160..290 with object 2,
 * 151..160 without, runnable 150..151. That lifetime's create op (145..155)
 * was main's: main running 105..150, runnable 100..105; the first join
 * (object 1, 20..100) was ended at 100 by the first lifetime of 501:
 * running 20..100 with object 1, 12..20 without, runnable 10..12; created
 * by main (op 5..15): main running 0..10, the run's start. expect_path
 * checks the tiling: no gap, no overlap, from the run's first instant to
 * main's exit.
 */
Test(critical_path, tiles_the_run_across_tid_reuse_and_processes)
{
	static const struct seg want[] = {
		{ 500, 0, 10, "running", 0, 0 },        { 501, 10, 12, "runnable", 0, 0 },
		{ 501, 12, 20, "running", 0, 0 },       { 501, 20, 100, "running", 1, 0 },
		{ 500, 100, 105, "runnable", 0, 0 },    { 500, 105, 150, "running", 0, 0 },
		{ 501, 150, 151, "runnable", 0, 0 },    { 501, 151, 160, "running", 0, 0 },
		{ 501, 160, 290, "running", 2, 0 },     { 500, 290, 300, "running", 0, 0 },
		{ 510, 300, 302, "runnable", 0, 0 },    { 510, 302, 800, "running", 0, 0 },
		{ 500, 800, 810, "runnable", 0, 0 },    { 500, 810, 1000, "running", 0, 0 },
	};
	expect_path("critical-path-reuse", NULL, want, NR(want));
}

/*
 * (6) Inconsistent data: main 600's wait (100..600) was ended at 600 by
 * 601, which was itself blocked (50..700) then, and main woke 601 at that
 * same instant. The path follows 601 at 600 once; 601's wait, cut at 600,
 * has main's wakeup at 600 as its latest, but going back to main at 600
 * would loop: the jump is refused and 601's wait 50..600 stays on the path.
 * Then 601 running 12..50, runnable 10..12, created by main: main running
 * 0..10. Main's own wait is not on the path (the path went through 601).
 */
Test(critical_path, a_wakeup_by_a_blocked_thread_terminates, .timeout = 10)
{
	static const struct seg want[] = {
		{ 600, 0, 10, "running", 0, 0 },      { 601, 10, 12, "runnable", 0, 0 },
		{ 601, 12, 50, "running", 0, 0 },     { 601, 50, 600, "blocked", 0, 0 },
		{ 600, 600, 620, "runnable", 0, 0 },  { 600, 620, 1000, "running", 0, 0 },
	};
	expect_path("critical-path-malformed", NULL, want, NR(want));
}

/* A run without processes (nothing recorded) has an empty path, not an error. */
Test(critical_path, an_empty_run_has_an_empty_path)
{
	expect_path("critical-path-single", "DELETE FROM processes", NULL, 0);
}
