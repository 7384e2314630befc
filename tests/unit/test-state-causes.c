/*
 * tests/unit/test-state-causes.c - why threads were not running
 * (src/derived/state-causes.c) and for whom they waited (src/derived/wait-for.c), on the
 * run of tests/fixtures/waits.sql, whose header tells its story. Every
 * expected value below is worked out from that file by hand.
 */
#include "config.h"
#include "src/derived/analysis.h"
#include "tests/unit/fixture.h"

#include <string.h>

static char path[64];
static sqlite3 *db;

#define T0 1000000000LL
#define US(x) (T0 + (x) * 1000LL)

static void setup(void)
{
	char *err = NULL;
	db = fixture_open("waits", path);
	cr_assert_eq(db_exec(db, schema_derived_sql, &err), 0, "%s", err ? err : "");
	fixture_analyse(db, analysis_state_causes);
}

static void teardown(void)
{
	fixture_close(db, path);
}

TestSuite(causes, .init = setup, .fini = teardown);

/* The text of @column_sql (one text expression) in the row of @table for
 * @tid starting at @start; fails the test if there is none. */
static char *row_text(const char *table, const char *column_sql, int tid, long long start)
{
	static char buf[256];
	char sql[1024];
	sqlite3_stmt *st;
	snprintf(sql, sizeof(sql), "SELECT %s FROM %s WHERE tid = ? AND start_ns = ?", column_sql, table);
	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
	sqlite3_bind_int(st, 1, tid);
	sqlite3_bind_int64(st, 2, start);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "no %s row for %d at %lld", table, tid, start);
	snprintf(buf, sizeof(buf), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return buf;
}

/* A state_causes row: "state cause object op syscall fd fd_kind next
 * ended_by waker", "-" for NULL. */
static char *cause_row(int tid, long long start)
{
	return row_text("state_causes",
			"state || ' ' || cause || ' ' || COALESCE(object_id, '-') || ' ' || COALESCE(op_id, '-') "
			"|| ' ' || COALESCE(syscall, '-') || ' ' || COALESCE(fd, '-') || ' ' || "
			"COALESCE(fd_kind, '-') || ' ' || COALESCE(next_tid, '-') || ' ' || "
			"COALESCE(ended_by, '-') || ' ' || COALESCE(waker_tid, '-')",
			tid, start);
}

Test(causes, one_row_per_non_running_interval)
{
	/* 17 intervals, 8 of them running. */
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM state_causes", -1), 9);
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM state_causes WHERE state = 'running'", -1), 0);
}

Test(causes, runnable_intervals)
{
	/* main lost CPU 0 to worker-a at 100 (a preempting switch). */
	cr_assert_str_eq(cause_row(100, US(100)), "runnable preempted - - - - - 101 - -");
	/* worker-b's first wait for a CPU. */
	cr_assert_str_eq(cause_row(102, US(150)), "runnable new - - - - - - - -");
	/* main, woken at 900, next ran on CPU 1, where worker-b was running
	 * (600-950): worker-b had the CPU instead. */
	cr_assert_str_eq(cause_row(100, US(900)), "runnable woken - - - - - 102 - -");
	/* worker-a, woken at 350, next ran on CPU 0, where nobody traced ran. */
	cr_assert_str_eq(cause_row(101, US(350)), "runnable woken - - - - - - - -");
}

Test(causes, waits_and_what_ended_them)
{
	/* main in pthread_join (op 6) on worker-a's thread object, left CPU 1
	 * idle, woken by worker-a's exit. */
	cr_assert_str_eq(cause_row(100, US(200)), "blocked_sync sync 2 6 futex - - 0 thread 101");
	/* worker-b blocked in lock (op 4) on M, woken by worker-a's unlock. */
	cr_assert_str_eq(cause_row(102, US(250)), "blocked_sync sync 1 4 futex - - 0 thread 101");
	/* worker-a in read(): no sync op under way (its lock ended at 151),
	 * woken from interrupt context. */
	cr_assert_str_eq(cause_row(101, US(300)), "blocked_io syscall - - read 3 pipe 0 interrupt -");
	/* worker-b's sleep, ended by a wakeup from interrupt context: a timer. */
	cr_assert_str_eq(cause_row(102, US(500)), "sleeping sleep - - clock_nanosleep - - 0 timer -");
}

Test(causes, waker_the_kernel_no_longer_named)
{
	char *err = NULL;
	/* worker-b's sleep ended by a wakeup whose waker perf gave as -1 (a
	 * task too far into its exit): not a timer, nor an interrupt. */
	cr_assert_eq(db_exec(db, "UPDATE wakeups SET waker_tid = -1 WHERE wakee_tid = 102 AND ts_ns = 1000600000",
			     &err), 0, "%s", err ? err : "");
	cr_assert_eq(analysis_build(db, 0, &err), 0, "%s", err ? err : "");
	cr_assert_str_eq(cause_row(102, US(500)), "sleeping sleep - - clock_nanosleep - - 0 unknown -");
}

/* A wait_for row: "object op waited_for relation running runnable blocked
 * other_object other_callsite". */
static char *wait_row(int tid, long long start)
{
	return row_text("wait_for",
			"object_id || ' ' || op_id || ' ' || COALESCE(waited_for_tid, '-') || ' ' || relation "
			"|| ' ' || other_running_ns || ' ' || other_runnable_ns || ' ' || other_blocked_ns || ' ' "
			"|| COALESCE(other_object_id, '-') || ' ' || COALESCE(other_callsite, '-')",
			tid, start);
}

Test(causes, wait_for_holder_and_waker)
{
	/* Only the two blocked_sync intervals wait on objects. */
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM wait_for", -1), 2);
	/* worker-b waited 250-390 for M's holder worker-a, which took it at
	 * callsite 2048 and meanwhile ran 250-300 and 360-390 (80 us), was
	 * runnable 350-360 (10 us) and in read() 300-350 (50 us, no object). */
	cr_assert_str_eq(wait_row(102, US(250)), "1 4 101 holder 80000 10000 50000 - 2048");
	/* main waited 200-900 for worker-a to exit; worker-a woke it from its
	 * exit op (callsite 2080: its last op on the thread object by the
	 * wakeup, though it ended at 899, before it), having run 200-300 and
	 * 360-900 (640 us). */
	cr_assert_str_eq(wait_row(100, US(200)), "2 6 101 waker 640000 10000 50000 - 2080");
}

/* Put worker-a's exit op (op 8, 898-899) back as op @op at @start_us on
 * a signal object (callsite 2096), run @more_sql, rebuild, and return
 * main's wait_for row. */
static char *wait_row_after_signal(const char *op, long long start_us, const char *more_sql)
{
	char sql[512], *err = NULL;
	snprintf(sql, sizeof(sql),
		 "DELETE FROM sync_ops WHERE id = 8; INSERT INTO sync_objects (id, kind, addr, pid) "
		 "VALUES (4, 'signal', 10, 100); "
		 "INSERT INTO sync_ops (id, tid, object_id, op, start_ns, end_ns, blocked, wait_ns, result, arg, "
		 "callsite) VALUES (8, 101, 4, '%s', %lld, %lld, 0, 0, 0, 100, 2096); %s",
		 op, US(start_us), US(start_us), more_sql);
	cr_assert_eq(db_exec(db, sql, &err), 0, "%s", err ? err : "");
	cr_assert_eq(analysis_build(db, 0, &err), 0, "%s", err ? err : "");
	return wait_row(100, US(200));
}

Test(causes, waker_woke_by_a_signal)
{
	/* worker-a's last op by the wakeup at 900 is a kill sent at 898 (to
	 * the process): the signal interrupted main's wait, and that is
	 * where worker-a woke it. */
	cr_assert_str_eq(wait_row_after_signal("kill", 898, ""), "2 6 101 waker 640000 10000 50000 - 2096");
}

Test(causes, waker_raise_is_not_it)
{
	/* A raise signals the sender itself: it woke no one. */
	cr_assert_str_eq(wait_row_after_signal("raise", 898, ""), "2 6 101 waker 640000 10000 50000 - -");
}

Test(causes, waker_signal_followed_by_another_op_is_not_it)
{
	/* A signal sent at 190, before worker-a's unlock at 389 (op 5): not
	 * the call under way when it woke main at 900. */
	cr_assert_str_eq(wait_row_after_signal("tgkill", 190, ""), "2 6 101 waker 640000 10000 50000 - -");
}

Test(causes, waker_unlock_stamped_before_the_lock)
{
	char *err = NULL;
	/* worker-a's unlock (op 5) stamped at 240, before worker-b's lock at
	 * 250, which then found M still held, no holder recorded, and slept
	 * until the unlock's wakeup at 390: that unlock woke it (callsite
	 * 2064), its last op by then. worker-a meanwhile ran 250-300 and
	 * 360-390, was runnable 350-360 and in read() 300-350. */
	cr_assert_eq(db_exec(db, "UPDATE sync_ops SET start_ns = 1000240000, end_ns = 1000240000 WHERE id = 5; "
				 "UPDATE sync_ops SET holder_tid = NULL WHERE id = 4", &err), 0, "%s", err ? err : "");
	cr_assert_eq(analysis_build(db, 0, &err), 0, "%s", err ? err : "");
	cr_assert_str_eq(wait_row(102, US(250)), "1 4 101 waker 80000 10000 50000 - 2064");
}

Test(causes, rebuilt_by_analysis_build)
{
	char *err = NULL;
	/* analysis_build replaces the tables built above, not add to them. */
	cr_assert_eq(analysis_build(db, 0, &err), 0, "%s", err ? err : "");
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM state_causes", -1), 9);
	cr_assert(analysis_is_current(db));
	cr_assert_eq(db_query_int(db, "SELECT value FROM meta WHERE key = 'derived_version'", -1),
		     MTX_DERIVED_VERSION);
}
