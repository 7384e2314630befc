/*
 * tests/unit/test-calls.c - the calls builder: entries and returns pair per
 * thread into rows whose parent and depth follow the nesting, recursion
 * returns to the newest frame, a return closes the frames left above its
 * own, and calls left open are closed at their thread's exit or the run's
 * end and marked so; a return without an entry is counted, not written;
 * calls from uprobes past the kernel's depth of return probes are closed
 * when a later entry's stack pointer or a return below shows they ended,
 * marked return_probe_depth, and counted; a call caught up on (found on
 * the stack as its probe went in) ends only at the return from its own
 * frame.
 */
#include "config.h"
#include "collector/calls.h"
#include "collector/writer.h"

#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[64];
static struct mtx_writer *w;
static struct mtx_calls *c;
static int names_asked;

/* Functions are named by their address: 0x100 is function 1, 0x200 is 2... */
static int64_t name_by_address(void *ctx, int32_t pid, uint64_t ts_ns, uint64_t pc)
{
	(void)ctx;
	(void)pid;
	(void)ts_ns;
	names_asked++;
	return (int64_t)(pc >> 8);
}

static void setup(void)
{
	char *err = NULL;
	snprintf(path, sizeof(path), "/tmp/mtx-test-calls-%d.db", getpid());
	unlink(path);
	cr_assert_eq(writer_open(&w, path, &err), 0, "%s", err ? err : "");
	c = calls_new(w, name_by_address, NULL);
	cr_assert_not_null(c);
	names_asked = 0;
}

static void teardown(void)
{
	unlink(path);
}

TestSuite(calls, .init = setup, .fini = teardown);

static int feed_call(uint64_t ts, int32_t tid, uint64_t fn, int at_return)
{
	struct mtx_event ev = { .ts_ns = ts, .type = MTX_EV_CALL, .pid = 10, .tid = tid, .cpu = 0 };
	ev.u.call.fn = fn;
	ev.u.call.callsite = 0x999;
	ev.u.call.at_return = (uint8_t)at_return;
	return calls_event(c, &ev);
}

#define ENTER(ts, tid, fn) feed_call(ts, tid, fn, 0)
#define LEAVE(ts, tid, fn) feed_call(ts, tid, fn, 1)

/* An entry or a return from uprobes of probe set @set (0: --functions;
 * at_return MTX_CALL_CUT: the set's removal); @sp: the entry's stack
 * pointer. */
static void feed_set_sp(uint64_t ts, int32_t tid, uint64_t fn, int at_return, uint64_t sp, uint16_t set)
{
	struct mtx_event ev = { .ts_ns = ts, .type = MTX_EV_CALL, .pid = 10, .tid = tid, .cpu = 0 };
	ev.u.call.fn = fn;
	ev.u.call.at_return = (uint8_t)at_return;
	ev.u.call.sp = at_return ? 0 : sp;
	ev.u.call.uretprobe = 1;
	ev.u.call.set = set;
	calls_event(c, &ev);
}

static void feed_uprobe(uint64_t ts, int32_t tid, uint64_t fn, int at_return, uint64_t sp)
{
	feed_set_sp(ts, tid, fn, at_return, sp, 0);
}

#define UENTER(ts, tid, fn, sp) feed_uprobe(ts, tid, fn, 0, sp)
#define ULEAVE(ts, tid, fn) feed_uprobe(ts, tid, fn, 1, 0)

/* Finish the run at @end_ns, close the writer, and open the database. */
static sqlite3 *finish(uint64_t end_ns)
{
	sqlite3 *db;
	cr_assert_eq(calls_finish(c, end_ns), 0);
	calls_free(c);
	cr_assert_eq(writer_close(w, 1), 0);
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	return db;
}

static int64_t query_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -1;
	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_type(st, 0) == SQLITE_NULL ? -2 : sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* The row of call @id as "tid fn parent depth start end unfinished". */
static void expect_row(sqlite3 *db, int id, const char *want)
{
	char sql[256];
	sqlite3_stmt *st;
	snprintf(sql, sizeof(sql),
		 "SELECT tid || ' ' || function_id || ' ' || COALESCE(parent_id, '-') || ' ' || depth || ' ' || "
		 "start_ns || ' ' || end_ns || ' ' || COALESCE(unfinished, '-') FROM calls WHERE id = %d", id);
	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "no call %d", id);
	cr_expect_str_eq((const char *)sqlite3_column_text(st, 0), want, "call %d", id);
	sqlite3_finalize(st);
}

Test(calls, nested_calls_get_parent_and_depth)
{
	sqlite3 *db;
	cr_expect_eq(ENTER(100, 7, 0x100), 1); /* a */
	ENTER(110, 7, 0x200);                  /* a -> b */
	ENTER(120, 7, 0x300);                  /* a -> b -> c */
	LEAVE(130, 7, 0x300);
	LEAVE(140, 7, 0x200);
	ENTER(150, 7, 0x300); /* a -> c */
	LEAVE(160, 7, 0x300);
	LEAVE(170, 7, 0x100);
	db = finish(1000);
	cr_expect_eq(query_int(db, "SELECT COUNT(*) FROM calls"), 4);
	expect_row(db, 1, "7 1 - 0 100 170 -");
	expect_row(db, 2, "7 2 1 1 110 140 -");
	expect_row(db, 3, "7 3 2 2 120 130 -");
	expect_row(db, 4, "7 3 1 1 150 160 -");
	cr_expect_eq(query_int(db, "SELECT value FROM meta WHERE key = 'calls'"), 4);
	cr_expect_eq(query_int(db, "SELECT value FROM meta WHERE key = 'calls_unfinished'"), 0);
	sqlite3_close(db);
}

Test(calls, recursion_returns_to_the_newest_frame)
{
	sqlite3 *db;
	ENTER(100, 7, 0x100);
	ENTER(110, 7, 0x100);
	ENTER(120, 7, 0x100);
	LEAVE(130, 7, 0x100);
	LEAVE(140, 7, 0x100);
	LEAVE(150, 7, 0x100);
	db = finish(1000);
	expect_row(db, 1, "7 1 - 0 100 150 -");
	expect_row(db, 2, "7 1 1 1 110 140 -");
	expect_row(db, 3, "7 1 2 2 120 130 -");
	sqlite3_close(db);
}

Test(calls, threads_have_stacks_of_their_own)
{
	sqlite3 *db;
	ENTER(100, 7, 0x100);
	ENTER(105, 8, 0x200);
	ENTER(110, 7, 0x200);
	LEAVE(115, 8, 0x200);
	LEAVE(120, 7, 0x200);
	LEAVE(130, 7, 0x100);
	db = finish(1000);
	expect_row(db, 1, "7 1 - 0 100 130 -");
	expect_row(db, 2, "8 2 - 0 105 115 -");
	expect_row(db, 3, "7 2 1 1 110 120 -");
	sqlite3_close(db);
}

Test(calls, a_return_closes_the_frames_above_its_own)
{
	sqlite3 *db;
	ENTER(100, 7, 0x100);
	ENTER(110, 7, 0x200);
	ENTER(120, 7, 0x300);
	LEAVE(150, 7, 0x100); /* longjmp out of b and c */
	db = finish(1000);
	expect_row(db, 1, "7 1 - 0 100 150 -");
	expect_row(db, 2, "7 2 1 1 110 150 caller_returned");
	expect_row(db, 3, "7 3 2 2 120 150 caller_returned");
	cr_expect_eq(query_int(db, "SELECT value FROM meta WHERE key = 'calls_unfinished'"), 2);
	sqlite3_close(db);
}

Test(calls, a_return_without_entry_is_counted_not_written)
{
	sqlite3 *db;
	ENTER(100, 7, 0x100);
	LEAVE(110, 7, 0x200); /* entered before the trace began */
	LEAVE(120, 7, 0x100);
	LEAVE(130, 9, 0x100); /* a thread never seen */
	db = finish(1000);
	cr_expect_eq(query_int(db, "SELECT COUNT(*) FROM calls"), 1);
	expect_row(db, 1, "7 1 - 0 100 120 -");
	cr_expect_eq(query_int(db, "SELECT value FROM meta WHERE key = 'calls_unmatched_returns'"), 2);
	sqlite3_close(db);
}

Test(calls, open_calls_close_at_thread_exit_and_run_end)
{
	struct mtx_event exit_ev = { .ts_ns = 200, .type = MTX_EV_EXIT, .pid = 10, .tid = 7, .cpu = 0 };
	sqlite3 *db;
	ENTER(100, 7, 0x100);
	ENTER(110, 7, 0x200);
	ENTER(120, 8, 0x300);
	cr_expect_eq(calls_event(c, &exit_ev), 0, "the exit is the model's too");
	/* The tid comes back as a new thread: a fresh stack. */
	ENTER(300, 7, 0x300);
	LEAVE(310, 7, 0x300);
	db = finish(1000);
	expect_row(db, 1, "7 1 - 0 100 200 thread_exit");
	expect_row(db, 2, "7 2 1 1 110 200 thread_exit");
	expect_row(db, 3, "8 3 - 0 120 1000 run_end");
	expect_row(db, 4, "7 3 - 0 300 310 -");
	cr_expect_eq(query_int(db, "SELECT value FROM meta WHERE key = 'calls_unfinished'"), 3);
	sqlite3_close(db);
}

Test(calls, a_forked_child_continues_the_open_calls_of_its_parent)
{
	/* Thread 7 of pid 10 forks pid 20 inside 0x100 > 0x200; both return
	 * from both. A thread created meanwhile (pid 10, tid 9) gets none. */
	struct mtx_event fork_ev = { .ts_ns = 150, .type = MTX_EV_FORK, .pid = 20, .tid = 20, .cpu = 0 };
	struct mtx_event thread_ev = { .ts_ns = 160, .type = MTX_EV_FORK, .pid = 10, .tid = 9, .cpu = 0 };
	sqlite3 *db;

	fork_ev.u.fork.ppid = 10;
	fork_ev.u.fork.ptid = 7;
	thread_ev.u.fork.ppid = 10;
	thread_ev.u.fork.ptid = 7;
	ENTER(100, 7, 0x100);
	ENTER(110, 7, 0x200);
	cr_expect_eq(calls_event(c, &fork_ev), 0, "the fork is the model's too");
	calls_event(c, &thread_ev);
	LEAVE(170, 20, 0x200);
	LEAVE(180, 20, 0x100);
	LEAVE(190, 7, 0x200);
	LEAVE(200, 7, 0x100);
	LEAVE(210, 9, 0x100);
	db = finish(1000);
	expect_row(db, 1, "7 1 - 0 100 200 -");
	expect_row(db, 2, "7 2 1 1 110 190 -");
	expect_row(db, 3, "20 1 - 0 150 180 -");
	expect_row(db, 4, "20 2 3 1 150 170 -");
	cr_expect_eq(query_int(db, "SELECT COUNT(*) FROM calls"), 4);
	cr_expect_eq(query_int(db, "SELECT value FROM meta WHERE key = 'calls_unmatched_returns'"), 1,
		     "only the thread's return, which had no entry");
	sqlite3_close(db);
}

Test(calls, other_events_are_left_alone)
{
	struct mtx_event ev = { .ts_ns = 100, .type = MTX_EV_SWITCH_OUT, .pid = 10, .tid = 7, .cpu = 0 };
	sqlite3 *db;
	cr_expect_eq(calls_event(c, &ev), 0);
	db = finish(1000);
	cr_expect_eq(query_int(db, "SELECT COUNT(*) FROM calls"), 0);
	cr_expect_eq(names_asked, 0);
	sqlite3_close(db);
}

/* More calls than the window of rows held for id order, under an outer
 * call that stays open past it: every row is written once, with its parent,
 * and calls_flush writes the closed ones before the run ends. */
Test(calls, rows_past_the_window_keep_their_parents)
{
	const int pairs = 100000;
	sqlite3 *db;
	uint64_t ts = 100;

	ENTER(ts++, 7, 0x100);
	for (int i = 0; i < pairs; i++) {
		ENTER(ts++, 7, 0x200);
		ENTER(ts++, 7, 0x300);
		LEAVE(ts++, 7, 0x300);
		LEAVE(ts++, 7, 0x200);
	}
	calls_flush(c);
	cr_assert_eq(writer_commit(w), 0);
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_expect_eq(query_int(db, "SELECT COUNT(*) FROM calls"), 2 * pairs);
	sqlite3_close(db);
	db = finish(ts);
	cr_expect_eq(query_int(db, "SELECT COUNT(*) FROM calls"), 2 * pairs + 1);
	expect_row(db, 1, "7 1 - 0 100 400101 run_end");
	cr_expect_eq(query_int(db, "SELECT COUNT(*) FROM calls WHERE function_id = 2 AND parent_id = 1 AND depth = 1"),
		     pairs);
	cr_expect_eq(query_int(db, "SELECT COUNT(*) FROM calls WHERE function_id = 3 AND parent_id = id - 1 AND "
				   "depth = 2 AND end_ns = start_ns + 1"),
		     pairs);
	sqlite3_close(db);
}

/* Recursion of 0x100 to depth D from uprobes, at time 1000 + depth, stack
 * pointer 0x10000 - 0x40 * depth; only the returns of the outermost
 * CALLS_URETPROBE_DEPTH calls come, from time 2000 (the rest returned
 * unseen). */
static void recurse_past_depth(int32_t tid, int d)
{
	for (int i = 0; i < d; i++)
		UENTER(1000 + (uint64_t)i, tid, 0x100, 0x10000 - 0x40 * (uint64_t)i);
	for (int i = CALLS_URETPROBE_DEPTH - 1; i >= 0; i--)
		ULEAVE(2000 + (uint64_t)(CALLS_URETPROBE_DEPTH - 1 - i), tid, 0x100);
}

Test(calls, calls_past_the_depth_of_return_probes_close_at_the_return_below)
{
	const int d = CALLS_URETPROBE_DEPTH + 10;
	char want[128];
	sqlite3 *db;
	recurse_past_depth(7, d);
	cr_expect_eq(calls_lost_returns(c), 10);
	db = finish(5000);
	cr_expect_eq(query_int(db, "SELECT COUNT(*) FROM calls"), d);
	/* The deepest call that had a return probe pairs with its own return,
	 * not with the deepest call (same function). */
	snprintf(want, sizeof(want), "7 1 %d %d %d 2000 -", CALLS_URETPROBE_DEPTH - 1, CALLS_URETPROBE_DEPTH - 1,
		 1000 + CALLS_URETPROBE_DEPTH - 1);
	expect_row(db, CALLS_URETPROBE_DEPTH, want);
	snprintf(want, sizeof(want), "7 1 %d %d %d 2000 return_probe_depth", CALLS_URETPROBE_DEPTH,
		 CALLS_URETPROBE_DEPTH, 1000 + CALLS_URETPROBE_DEPTH);
	expect_row(db, CALLS_URETPROBE_DEPTH + 1, want);
	snprintf(want, sizeof(want), "7 1 - 0 1000 %d -", 2000 + CALLS_URETPROBE_DEPTH - 1);
	expect_row(db, 1, want);
	cr_expect_eq(query_int(db, "SELECT COUNT(*) FROM calls WHERE unfinished = 'return_probe_depth'"), 10);
	cr_expect_eq(query_int(db, "SELECT MIN(depth) FROM calls WHERE unfinished IS NOT NULL"), CALLS_URETPROBE_DEPTH);
	cr_expect_eq(query_int(db, "SELECT COUNT(*) FROM calls c JOIN calls p ON p.id = c.parent_id "
				   "WHERE c.end_ns > p.end_ns OR c.start_ns < p.start_ns"), 0, "a call outlasts its caller");
	cr_expect_eq(query_int(db, "SELECT value FROM meta WHERE key = 'calls_return_probe_depth'"), 10);
	cr_expect_eq(query_int(db, "SELECT value FROM meta WHERE key = 'calls_unmatched_returns'"), 0);
	sqlite3_close(db);
}

/* Past the depth, a leaf called twice in a row from the same frame: the
 * second entry (same stack pointer) shows the first one ended. Then the
 * recursion returns unseen to a shallower level past the depth and
 * descends again: the new entry's stack pointer, above those frames,
 * closes them, and the new call is the child of the level it came from. */
Test(calls, a_later_entry_closes_the_calls_past_the_depth_it_shows_ended)
{
	const int top = CALLS_URETPROBE_DEPTH + 5; /* levels 0 .. top - 1 */
	const uint64_t sp_top = 0x10000 - 0x40 * (uint64_t)(top - 1);
	char want[128];
	sqlite3 *db;
	for (int i = 0; i < top; i++)
		UENTER(1000 + (uint64_t)i, 7, 0x100, 0x10000 - 0x40 * (uint64_t)i);
	UENTER(1100, 7, 0x200, sp_top - 0x40); /* leaf, id top + 1 */
	UENTER(1110, 7, 0x200, sp_top - 0x40); /* leaf again, id top + 2 */
	/* back to level top - 3 unseen, which calls itself again */
	UENTER(1200, 7, 0x100, 0x10000 - 0x40 * (uint64_t)(top - 2)); /* id top + 3 */
	cr_expect_eq(calls_lost_returns(c), 4, "both leaves, levels top - 1 and top - 2");
	db = finish(5000);
	snprintf(want, sizeof(want), "7 2 %d %d 1100 1110 return_probe_depth", top, top);
	expect_row(db, top + 1, want);
	snprintf(want, sizeof(want), "7 2 %d %d 1110 1200 return_probe_depth", top, top);
	expect_row(db, top + 2, want);
	snprintf(want, sizeof(want), "7 1 %d %d %d 1200 return_probe_depth", top - 1, top - 1, 1000 + top - 1);
	expect_row(db, top, want);
	snprintf(want, sizeof(want), "7 1 %d %d %d 1200 return_probe_depth", top - 2, top - 2, 1000 + top - 2);
	expect_row(db, top - 1, want);
	snprintf(want, sizeof(want), "7 1 %d %d 1200 5000 return_probe_depth", top - 2, top - 2);
	expect_row(db, top + 3, want);
	/* the level it came from is still open: closed at the run's end */
	snprintf(want, sizeof(want), "7 1 %d %d %d 5000 return_probe_depth", top - 3, top - 3, 1000 + top - 3);
	expect_row(db, top - 2, want);
	sqlite3_close(db);
}

Test(calls, calls_past_the_depth_say_so_when_their_thread_exits)
{
	struct mtx_event exit_ev = { .ts_ns = 3000, .type = MTX_EV_EXIT, .pid = 10, .tid = 7, .cpu = 0 };
	sqlite3 *db;
	for (int i = 0; i < CALLS_URETPROBE_DEPTH + 2; i++)
		UENTER(1000 + (uint64_t)i, 7, 0x100, 0x10000 - 0x40 * (uint64_t)i);
	calls_event(c, &exit_ev);
	db = finish(5000);
	cr_expect_eq(query_int(db, "SELECT COUNT(*) FROM calls WHERE unfinished = 'thread_exit'"), CALLS_URETPROBE_DEPTH);
	cr_expect_eq(query_int(db, "SELECT COUNT(*) FROM calls WHERE unfinished = 'return_probe_depth' AND "
				   "end_ns = 3000"), 2);
	sqlite3_close(db);
}

/* Each thread has its own depth; the hooks of -pg programs have none. */
Test(calls, the_depth_is_per_thread_and_only_for_uprobes)
{
	const int d = CALLS_URETPROBE_DEPTH + 3;
	sqlite3 *db;
	recurse_past_depth(7, d);
	recurse_past_depth(8, CALLS_URETPROBE_DEPTH);
	for (int i = 0; i < d; i++)
		ENTER(3000 + (uint64_t)i, 9, 0x100);
	for (int i = 0; i < d; i++)
		LEAVE(4000 + (uint64_t)i, 9, 0x100);
	db = finish(5000);
	cr_expect_eq(query_int(db, "SELECT COUNT(*) FROM calls WHERE unfinished IS NOT NULL AND tid = 7"), 3);
	cr_expect_eq(query_int(db, "SELECT COUNT(*) FROM calls WHERE unfinished IS NOT NULL AND tid <> 7"), 0);
	cr_expect_eq(query_int(db, "SELECT COUNT(*) FROM calls WHERE tid = 9"), d);
	sqlite3_close(db);
}

/* A call event of probe set @set (mtx ctl probe add). */
static void feed_set(uint64_t ts, int32_t tid, uint64_t fn, int at_return, uint16_t set)
{
	feed_set_sp(ts, tid, fn, at_return, 0, set);
}

Test(calls, a_removed_probe_set_ends_its_open_calls_there)
{
	sqlite3 *db;
	feed_set(100, 7, 0x100, 0, 0);           /* a, probed from the start */
	feed_set(110, 7, 0x200, 0, 3);           /* a -> b, of set 3 */
	feed_set(120, 7, 0x300, 0, 0);           /* a -> b -> c */
	feed_set(125, 8, 0x200, 0, 3);           /* b on another thread */
	feed_set(130, 0, 0, MTX_CALL_CUT, 3);    /* set 3 removed */
	feed_set(140, 7, 0x300, 1, 0);           /* c returns: it is still open */
	feed_set(150, 7, 0x200, 1, 3);           /* b's return, unseen after the removal */
	feed_set(160, 7, 0x100, 1, 0);
	db = finish(1000);
	expect_row(db, 2, "7 2 1 1 110 130 probe_removed");
	expect_row(db, 4, "8 2 - 0 125 130 probe_removed");
	expect_row(db, 3, "7 3 2 2 120 140 -");
	expect_row(db, 1, "7 1 - 0 100 160 -");
	cr_expect_eq(query_int(db, "SELECT value FROM meta WHERE key = 'calls_unmatched_returns'"), 1);
	sqlite3_close(db);
}

/* A call found on the stack as its probe went in (collector/catch-up.h):
 * entry @sp is its stack pointer at entry; a catch-up probe's hit carries
 * the stack pointer after the return, 8 bytes above. */
static void feed_catch_up(uint64_t ts, int32_t tid, uint64_t fn, int at_return, uint64_t sp)
{
	struct mtx_event ev = { .ts_ns = ts, .type = MTX_EV_CALL, .pid = 10, .tid = tid, .cpu = 0 };
	ev.u.call.fn = fn;
	ev.u.call.at_return = (uint8_t)at_return;
	ev.u.call.sp = sp;
	ev.u.call.catch_up = 1;
	calls_event(c, &ev);
}

Test(calls, a_call_caught_up_ends_at_the_return_from_its_own_frame)
{
	sqlite3 *db;
	/* f (0x100) runs, recursing, when probes go in at 100: two frames on
	 * the stack, base first; then a later f recursion with probes */
	feed_catch_up(100, 7, 0x100, 0, 0x7f00); /* outer f */
	feed_catch_up(100, 7, 0x100, 0, 0x7e00); /* inner f */
	UENTER(110, 7, 0x200, 0x7d00);             /* g, seen entered */
	ULEAVE(120, 7, 0x200);
	UENTER(130, 7, 0x100, 0x7d00);             /* f again, seen entered */
	ULEAVE(140, 7, 0x100);                     /* its return probe: the new f */
	feed_catch_up(141, 7, 0x100, 1, 0x7d08);   /* and the return address: no caught-up f there */
	feed_catch_up(150, 7, 0x100, 1, 0x7f08);   /* outer f's frame: not the newest */
	db = finish(1000);
	cr_expect_eq(query_int(db, "SELECT COUNT(*) FROM calls"), 4);
	cr_expect_eq(query_int(db, "SELECT COUNT(*) FROM calls WHERE retroactive"), 2);
	cr_expect_eq(query_int(db, "SELECT value FROM meta WHERE key = 'calls_unmatched_returns'"), 0);
	expect_row(db, 1, "7 1 - 0 100 150 -");
	expect_row(db, 2, "7 1 1 1 100 150 caller_returned");
	expect_row(db, 3, "7 2 2 2 110 120 -");
	expect_row(db, 4, "7 1 2 2 130 140 -");
	sqlite3_close(db);
}
