/*
 * tests/unit/test-model.c - the thread model: states tile each lifetime,
 * syscalls pair, wakeups of untraced tasks are dropped, and the rows land in
 * the database through the writer.
 */
#include "config.h"
#include "collector/model.h"
#include "collector/writer.h"
#include "src/db.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[64];
static struct mtx_writer *w;
static struct mtx_model *m;

static void setup(void)
{
	char *err = NULL;
	snprintf(path, sizeof(path), "/tmp/mtx-test-model-%d.db", getpid());
	unlink(path);
	cr_assert_eq(writer_open(&w, path, &err), 0, "%s", err ? err : "");
	m = model_new(w);
	cr_assert_not_null(m);
}

static void teardown(void)
{
	unlink(path);
}

TestSuite(model, .init = setup, .fini = teardown);

static void feed(uint32_t type, uint64_t ts, int32_t pid, int32_t tid, int32_t cpu)
{
	struct mtx_event ev = { .ts_ns = ts, .type = type, .pid = pid, .tid = tid, .cpu = cpu };
	model_event(m, &ev);
}

static void feed_switch_out(uint64_t ts, int32_t tid, int64_t state, int preempt)
{
	struct mtx_event ev = { .ts_ns = ts, .type = MTX_EV_SWITCH_OUT, .pid = 10, .tid = tid, .cpu = 0 };
	ev.u.sw.prev_state = state;
	ev.u.sw.preempt = (uint8_t)preempt;
	model_event(m, &ev);
}

static void feed_sys(uint32_t type, uint64_t ts, int32_t tid, int64_t nr, int64_t arg0)
{
	struct mtx_event ev = { .ts_ns = ts, .type = type, .pid = 10, .tid = tid, .cpu = 0 };
	if (type == MTX_EV_SYS_ENTER) {
		ev.u.sys_enter.nr = nr;
		ev.u.sys_enter.arg0 = (uint64_t)arg0;
	} else {
		ev.u.sys_exit.nr = nr;
		ev.u.sys_exit.ret = 0;
	}
	model_event(m, &ev);
}

static sqlite3 *finish_and_open(void)
{
	sqlite3 *db;
	char *err = NULL;
	cr_assert_eq(model_finish(m, 1000, 10, 0), 0);
	model_free(m);
	cr_assert_eq(writer_close(w, 1), 0);
	cr_assert_eq(db_open_readonly(path, &db, &err), 0, "%s", err ? err : "");
	return db;
}

Test(model, states_tile_each_lifetime)
{
	struct mtx_event exec = { .ts_ns = 100, .type = MTX_EV_COMM, .pid = 10, .tid = 10, .cpu = 0 };
	struct mtx_event fork = { .ts_ns = 150, .type = MTX_EV_FORK, .pid = 10, .tid = 11, .cpu = 0 };
	struct mtx_event wake = { .ts_ns = 400, .type = MTX_EV_WAKEUP, .pid = 10, .tid = 11, .cpu = 1 };
	struct mtx_event foreign = { .ts_ns = 410, .type = MTX_EV_WAKEUP, .pid = 99, .tid = 0, .cpu = 1 };
	sqlite3 *db;

	strcpy(exec.u.comm.comm, "app");
	exec.u.comm.exec = 1;
	model_event(m, &exec);
	fork.u.fork.ppid = 10;
	fork.u.fork.ptid = 10;
	model_event(m, &fork);
	feed(MTX_EV_SWITCH_IN, 200, 10, 11, 1);
	feed_sys(MTX_EV_SYS_ENTER, 250, 11, 202, 0); /* futex */
	feed_switch_out(300, 11, 1, 0);              /* S: blocked in futex */
	wake.u.wakeup.wakee_tid = 11;
	model_event(m, &wake);
	foreign.u.wakeup.wakee_tid = 12345; /* not traced: dropped */
	model_event(m, &foreign);
	feed(MTX_EV_SWITCH_IN, 450, 10, 11, 0);
	feed_sys(MTX_EV_SYS_EXIT, 460, 11, 202, 0);
	feed_switch_out(500, 11, 0x100, 1); /* preempted */
	feed(MTX_EV_SWITCH_IN, 550, 10, 11, 1);
	feed(MTX_EV_EXIT, 600, 10, 11, 1);
	feed_sys(MTX_EV_SYS_ENTER, 700, 10, 231, 3); /* exit_group(3) */
	feed(MTX_EV_EXIT, 800, 10, 10, 0);

	db = finish_and_open();
	/* Tiling: per thread, intervals are contiguous from start to end. */
	cr_assert_eq(db_query_int(db,
		"SELECT COUNT(*) FROM threads t WHERE (SELECT SUM(end_ns - start_ns) FROM thread_states s "
		"WHERE s.tid = t.tid) <> t.end_ns - t.start_ns", -1), 0);
	cr_assert_eq(db_query_int(db,
		"SELECT COUNT(*) FROM thread_states a JOIN thread_states b ON a.tid = b.tid AND b.start_ns > a.start_ns "
		"AND NOT EXISTS (SELECT 1 FROM thread_states c WHERE c.tid = a.tid AND c.start_ns > a.start_ns "
		"AND c.start_ns < b.start_ns) WHERE b.start_ns <> a.end_ns", -1), 0);
	cr_assert_eq(db_query_int(db, "SELECT start_ns FROM threads WHERE tid = 11", -1), 150);
	cr_assert_eq(db_query_int(db, "SELECT end_ns FROM threads WHERE tid = 11", -1), 600);
	/* fork -> runnable 150..200, running 200..300, blocked (futex) 300..400,
	 * runnable 400..450, running 450..500, runnable 500..550, running 550..600 */
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM thread_states WHERE tid = 11", -1), 7);
	cr_assert_eq(db_query_int(db, "SELECT end_ns - start_ns FROM thread_states WHERE tid = 11 AND state = 'blocked' "
				      "AND syscall = 'futex'", -1), 100);
	cr_assert_eq(db_query_int(db, "SELECT SUM(end_ns - start_ns) FROM thread_states WHERE tid = 11 AND state = 'runnable'", -1),
		     50 + 50 + 50);
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM wakeups", -1), 1);
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM switches WHERE preempt = 1", -1), 1);
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM syscalls WHERE name = 'futex' AND end_ns = 460", -1), 1);
	/* exit_group never returns: its row stays open. */
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM syscalls WHERE name = 'exit_group' AND end_ns IS NULL", -1), 1);
	cr_assert_eq(db_query_int(db, "SELECT exit_status FROM processes WHERE pid = 10", -1), 0,
		     "the root's status comes from waitpid (0 here), not exit_group");
	sqlite3_close(db);
}

Test(model, sleeping_and_io_are_told_apart_by_the_syscall)
{
	sqlite3 *db;
	feed(MTX_EV_COMM, 0, 10, 10, 0);
	feed_sys(MTX_EV_SYS_ENTER, 10, 10, 230, 0); /* clock_nanosleep */
	feed_switch_out(20, 10, 1, 0);
	feed(MTX_EV_SWITCH_IN, 40, 10, 10, 0);
	feed_sys(MTX_EV_SYS_EXIT, 41, 10, 230, 0);
	feed_sys(MTX_EV_SYS_ENTER, 50, 10, 0, 0); /* read */
	feed_switch_out(60, 10, 1, 0);
	feed(MTX_EV_SWITCH_IN, 90, 10, 10, 0);
	feed_sys(MTX_EV_SYS_EXIT, 91, 10, 0, 0);
	feed_switch_out(95, 10, 2, 0); /* D, no syscall: a page fault on I/O */
	feed(MTX_EV_SWITCH_IN, 99, 10, 10, 0);
	feed(MTX_EV_EXIT, 100, 10, 10, 0);
	db = finish_and_open();
	cr_assert_eq(db_query_int(db, "SELECT end_ns - start_ns FROM thread_states WHERE state = 'sleeping'", -1), 20);
	cr_assert_eq(db_query_int(db, "SELECT SUM(end_ns - start_ns) FROM thread_states WHERE state = 'blocked_io'", -1),
		     30 + 4);
	cr_assert_eq(db_query_int(db, "SELECT SUM(end_ns - start_ns) FROM thread_states", -1), 100);
	sqlite3_close(db);
}

Test(model, a_reused_tid_is_a_new_thread)
{
	sqlite3 *db;
	struct mtx_event fork = { .ts_ns = 10, .type = MTX_EV_FORK, .pid = 10, .tid = 11 };
	feed(MTX_EV_COMM, 0, 10, 10, 0);
	model_event(m, &fork);
	feed(MTX_EV_EXIT, 20, 10, 11, 0);
	fork.ts_ns = 30;
	model_event(m, &fork);
	feed(MTX_EV_EXIT, 40, 10, 11, 0);
	feed(MTX_EV_EXIT, 50, 10, 10, 0);
	db = finish_and_open();
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM threads WHERE tid = 11", -1), 2);
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM threads", -1), 3);
	sqlite3_close(db);
}

Test(model, many_threads_grow_the_table)
{
	sqlite3 *db;
	feed(MTX_EV_COMM, 0, 10, 10, 0);
	for (int32_t tid = 100; tid < 5100; tid++) {
		struct mtx_event fork = { .ts_ns = (uint64_t)tid, .type = MTX_EV_FORK, .pid = 10, .tid = tid };
		model_event(m, &fork);
	}
	for (int32_t tid = 100; tid < 5100; tid += 2)
		feed(MTX_EV_EXIT, 6000 + (uint64_t)tid, 10, tid, 0);
	db = finish_and_open();
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM threads", -1), 5001);
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM threads t WHERE (SELECT SUM(end_ns - start_ns) FROM "
				      "thread_states s WHERE s.tid = t.tid) <> t.end_ns - t.start_ns", -1), 0);
	sqlite3_close(db);
}
