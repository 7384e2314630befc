/*
 * tests/unit/test-model.c - the thread model: states tile each lifetime,
 * syscalls pair, wakeups of untraced tasks are dropped, syscalls carry
 * their descriptor and its kind (looked up once, forgotten when it closes,
 * never trusted across a close), and the rows land in the database through
 * the writer.
 */
#include "config.h"
#include "collector/model.h"
#include "collector/syscall-names.h"
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

/* A resolver standing in for /proc: every descriptor is @kind, read
 * @lag_ns after the event the model is decoding (the collector's delay). */
static struct {
	enum mtx_fd_kind kind;
	uint64_t lag_ns, now_ns;
	int calls, calls_fd[16];
} fake;

static enum mtx_fd_kind fake_resolve(void *ctx, int32_t pid, int32_t fd, uint64_t *looked_ns, char *file,
				     size_t size)
{
	(void)ctx;
	(void)pid;
	fake.calls++;
	if (fd >= 0 && fd < 16)
		fake.calls_fd[fd]++;
	*looked_ns = fake.now_ns;
	/* a file's path names its descriptor and how many lookups came before */
	if (fake.kind == MTX_FD_FILE)
		snprintf(file, size, "/fake/%d.%d", (int)fd, fake.calls);
	else
		snprintf(file, size, "%s", "");
	return fake.kind;
}

/* Process 10 starts (thread 10), its descriptors resolved by the fake. */
static void start_with_fake_resolver(enum mtx_fd_kind kind, uint64_t lag_ns)
{
	memset(&fake, 0, sizeof(fake));
	fake.kind = kind;
	fake.lag_ns = lag_ns;
	model_set_fd_resolver(m, fake_resolve, NULL);
	feed(MTX_EV_COMM, 0, 10, 10, 0);
}

/* Thread 10 exits at @ts; the run's database. */
static sqlite3 *end_main_thread(uint64_t ts)
{
	feed(MTX_EV_EXIT, ts, 10, 10, 0);
	return finish_and_open();
}

static int64_t nr_of(const char *name)
{
	for (int nr = 0; nr < syscall_names_count; nr++)
		if (syscall_names[nr] && strcmp(syscall_names[nr], name) == 0)
			return nr;
	cr_assert_fail("no syscall %s", name);
	return -1;
}

/* Syscall @name of thread @tid of process @pid entered at @ts, returning
 * @ret 5 ns later. */
static void sys_in(int32_t pid, int32_t tid, uint64_t ts, const char *name, int64_t arg0, int64_t arg1, int64_t ret)
{
	struct mtx_event ev = { .ts_ns = ts, .type = MTX_EV_SYS_ENTER, .pid = pid, .tid = tid, .cpu = 0 };
	ev.u.sys_enter.nr = nr_of(name);
	ev.u.sys_enter.arg0 = (uint64_t)arg0;
	ev.u.sys_enter.arg1 = (uint64_t)arg1;
	fake.now_ns = ev.ts_ns + fake.lag_ns;
	model_event(m, &ev);
	ev.ts_ns = ts + 5;
	ev.type = MTX_EV_SYS_EXIT;
	ev.u.sys_exit.nr = nr_of(name);
	ev.u.sys_exit.ret = ret;
	fake.now_ns = ev.ts_ns + fake.lag_ns;
	model_event(m, &ev);
}

static void sys(uint64_t ts, const char *name, int64_t arg0, int64_t arg1, int64_t ret)
{
	sys_in(10, 10, ts, name, arg0, arg1, ret);
}

/* Assert that the syscall that started at @ts has fd_kind @want ("NULL"). */
static void assert_kind_at(sqlite3 *db, uint64_t ts, const char *want)
{
	sqlite3_stmt *st;
	char got[32] = "(no row)";
	cr_assert_eq(sqlite3_prepare_v2(db, "SELECT IFNULL(fd_kind, 'NULL') FROM syscalls WHERE start_ns = ?", -1,
					&st, NULL), SQLITE_OK);
	sqlite3_bind_int64(st, 1, (int64_t)ts);
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(got, sizeof(got), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	cr_assert_str_eq(got, want, "fd_kind of the syscall at %llu", (unsigned long long)ts);
}

Test(model, syscalls_carry_their_descriptor_argument)
{
	sqlite3 *db;
	feed(MTX_EV_COMM, 0, 10, 10, 0);
	sys(10, "read", 5, 0, 100);
	sys(20, "futex", 0x7f00, 0, 0);      /* no descriptor */
	sys(30, "openat", -100, 0, 6);       /* AT_FDCWD is a directory, not ours */
	sys(40, "signalfd4", -1, 0, 7);      /* -1 is passed as it is */
	sys(50, "close", 6, 0, 0);
	feed(MTX_EV_EXIT, 100, 10, 10, 0);
	db = finish_and_open();
	cr_assert_eq(db_query_int(db, "SELECT fd FROM syscalls WHERE name = 'read'", -2), 5);
	cr_assert_eq(db_query_int(db, "SELECT fd FROM syscalls WHERE name = 'close'", -2), 6);
	cr_assert_eq(db_query_int(db, "SELECT fd FROM syscalls WHERE name = 'signalfd4'", -2), -1);
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM syscalls WHERE fd IS NULL", -1), 2);
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM syscalls WHERE fd_kind IS NOT NULL", -1), 0,
		     "without a resolver no kind is known");
	sqlite3_close(db);
}

Test(model, a_hot_descriptor_is_looked_up_once)
{
	sqlite3 *db;
	start_with_fake_resolver(MTX_FD_PIPE, 50);
	for (uint64_t ts = 100; ts < 1100; ts += 10)
		sys(ts, "read", 5, 0, 4096);
	sys(1100, "write", 6, 0, 4096);
	sys(1200, "fstat", 5, 0, 0);
	db = end_main_thread(2000);
	cr_assert_eq(fake.calls_fd[5], 1);
	cr_assert_eq(fake.calls_fd[6], 1);
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM syscalls WHERE fd_kind = 'pipe'", -1), 102,
		     "rows held for the first lookup are written too");
	sqlite3_close(db);
}

Test(model, closing_or_replacing_a_descriptor_forgets_it)
{
	sqlite3 *db;
	start_with_fake_resolver(MTX_FD_FILE, 1);
	sys(100, "read", 5, 0, 1);
	sys(200, "close", 5, 0, 0);
	sys(300, "read", 5, 0, 1);          /* 2nd lookup */
	sys(400, "dup2", 7, 5, 5);          /* 7 looked up; 5 replaced */
	sys(500, "read", 5, 0, 1);          /* 3rd */
	sys(600, "openat", -100, 0, 5);     /* a new 5 (its close was missed) */
	sys(700, "read", 5, 0, 1);          /* 4th */
	sys(800, "fcntl", 7, 0 /* F_DUPFD */, 5);
	sys(900, "read", 5, 0, 1);          /* 5th */
	sys(950, "fcntl", 5, 1 /* F_GETFD */, 0); /* not a new descriptor */
	{
		struct mtx_event exec = { .ts_ns = 1000, .type = MTX_EV_COMM, .pid = 10, .tid = 10 };
		strcpy(exec.u.comm.comm, "app");
		exec.u.comm.exec = 1;
		model_event(m, &exec);
	}
	sys(1100, "read", 5, 0, 1);         /* 6th: exec closed who knows what */
	sys(1200, "close_range", 3, ~0u, 0);
	sys(1300, "read", 5, 0, 1);         /* 7th */
	db = end_main_thread(2000);
	cr_assert_eq(fake.calls_fd[5], 7);
	cr_assert_eq(fake.calls_fd[7], 1);
	assert_kind_at(db, 200, "file"); /* the close itself: known before it */
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM syscalls WHERE name = 'read' AND fd_kind = 'file'", -1), 7);
	/* each row has the path of the lookup that vouched for it (the fake
	 * numbers them: fd.lookup), never one from before its descriptor changed */
	{
		sqlite3_stmt *st;
		cr_assert_eq(sqlite3_prepare_v2(db, "SELECT group_concat(path, ' ') FROM (SELECT path FROM syscalls "
						    "WHERE fd IN (5, 7) AND name IN ('read', 'close', 'fcntl') "
						    "ORDER BY start_ns)", -1, &st, NULL), SQLITE_OK);
		cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
		cr_assert_str_eq((const char *)sqlite3_column_text(st, 0),
				 "/fake/5.1 /fake/5.1 /fake/5.2 /fake/5.4 /fake/5.5 /fake/7.3 /fake/5.6 /fake/5.6 "
				 "/fake/5.7 /fake/5.8");
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
}

Test(model, a_lookup_made_after_a_close_is_not_trusted)
{
	sqlite3 *db;
	/* The collector reads /proc 500 ns after the events it decodes: by
	 * then the read at 100 may have been followed by the close at 200
	 * and something else opened as 5. */
	start_with_fake_resolver(MTX_FD_SOCKET, 500);
	sys(100, "read", 5, 0, 1);
	sys(200, "close", 5, 0, 0);
	sys(300, "read", 5, 0, 1);  /* looked up at 800 */
	sys(900, "write", 5, 0, 1); /* the stream is past 800: trusted */
	sys(1000, "read", 9, 0, -9); /* EBADF: 9 was not open */
	db = end_main_thread(2000);
	assert_kind_at(db, 100, "NULL");
	assert_kind_at(db, 200, "NULL");
	assert_kind_at(db, 300, "socket");
	assert_kind_at(db, 900, "socket");
	assert_kind_at(db, 1000, "NULL");
	sqlite3_close(db);
}

Test(model, a_close_under_way_in_another_thread_blocks_lookups)
{
	sqlite3 *db;
	struct mtx_event ev = { .ts_ns = 100, .type = MTX_EV_SYS_ENTER, .pid = 10, .tid = 11, .cpu = 0 };
	start_with_fake_resolver(MTX_FD_PIPE, 1);
	ev.u.sys_enter.nr = nr_of("close"); /* thread 11 closes 5 from 100 to 300 */
	ev.u.sys_enter.arg0 = 5;
	fake.now_ns = 10;
	model_event(m, &ev);
	sys(200, "read", 5, 0, 1); /* may have read the old pipe, or the next 5 */
	ev.ts_ns = 300;
	ev.type = MTX_EV_SYS_EXIT;
	ev.u.sys_exit.nr = nr_of("close");
	ev.u.sys_exit.ret = 0;
	model_event(m, &ev);
	sys(400, "read", 5, 0, 1);
	feed(MTX_EV_EXIT, 2000, 10, 11, 0);
	db = end_main_thread(2001);
	cr_assert_eq(fake.calls_fd[5], 1);
	assert_kind_at(db, 200, "NULL");
	assert_kind_at(db, 400, "pipe");
	sqlite3_close(db);
}

/* (tid, file or NULL, stack) -> wait, from model_each_io_time */
static uint64_t io_wait_of[2];

static void note_io(void *ctx, const struct model_io_time *f)
{
	(void)ctx;
	if (f->tid == 10 && f->stack == 7)
		io_wait_of[f->path != NULL] += f->io_wait_ns;
}

static void switch_out_with_stack(uint64_t ts, int64_t state, uint32_t stack)
{
	struct mtx_event ev = { .ts_ns = ts, .type = MTX_EV_SWITCH_OUT, .pid = 10, .tid = 10, .cpu = 0 };
	ev.u.sw.prev_state = state;
	ev.u.sw.stack_id = stack;
	fake.now_ns = ts;
	model_event(m, &ev);
}

/* An I/O wait counts in the stack the thread left the CPU with, on the
 * file too; a syscall under way when the syscalls go off ends there: its
 * wait on the file stops then, its interval keeps its syscall's name. */
Test(model, io_waits_by_stack_stop_at_the_syscalls_off)
{
	sqlite3 *db;
	struct mtx_event ev = { .ts_ns = 10, .type = MTX_EV_SYS_ENTER, .pid = 10, .tid = 10, .cpu = 0 };
	start_with_fake_resolver(MTX_FD_FILE, 0);
	model_keep_io_times(m);
	ev.u.sys_enter.nr = nr_of("fdatasync");
	ev.u.sys_enter.arg0 = 5;
	fake.now_ns = 10;
	model_event(m, &ev);
	switch_out_with_stack(20, 2, 7); /* D in fdatasync */
	struct mtx_event off = { .ts_ns = 50, .type = MTX_EV_SOURCE_OFF, .cpu = -1 };
	off.u.source_off.source = MTX_SRC_SYSCALLS;
	model_event(m, &off);
	feed(MTX_EV_SWITCH_IN, 80, 10, 10, 0);
	/* on again: a whole fdatasync */
	ev.ts_ns = fake.now_ns = 100;
	model_event(m, &ev);
	switch_out_with_stack(110, 2, 7);
	feed(MTX_EV_SWITCH_IN, 130, 10, 10, 0);
	ev.ts_ns = fake.now_ns = 131;
	ev.type = MTX_EV_SYS_EXIT;
	ev.u.sys_exit.nr = nr_of("fdatasync");
	model_event(m, &ev);
	feed(MTX_EV_EXIT, 200, 10, 10, 0);
	io_wait_of[0] = io_wait_of[1] = 0;
	model_each_io_time(m, 200, note_io, NULL);
	cr_assert_eq(io_wait_of[0], 60 + 20, "the thread's I/O wait in the stack");
	cr_assert_eq(io_wait_of[1], 30 + 20, "on the file: the first sync's wait up to the off, the second's (%llu)", (unsigned long long)io_wait_of[1]);
	db = finish_and_open();
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM syscalls WHERE name = 'fdatasync' AND end_ns IS NULL "
				      "AND start_ns = 10", -1), 1, "the sync under way never returned");
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM thread_states WHERE state = 'blocked_io' "
				      "AND syscall = 'fdatasync'", -1), 2);
	sqlite3_close(db);
}

Test(model, each_process_has_its_own_descriptors)
{
	sqlite3 *db;
	struct mtx_event fork = { .ts_ns = 50, .type = MTX_EV_FORK, .pid = 20, .tid = 20 };
	start_with_fake_resolver(MTX_FD_TTY, 1);
	fork.u.fork.ppid = fork.u.fork.ptid = 10;
	model_event(m, &fork);
	sys(100, "write", 1, 0, 1);
	sys_in(20, 20, 200, "write", 1, 0, 1);
	sys_in(20, 20, 300, "write", 1, 0, 1);
	feed(MTX_EV_EXIT, 400, 20, 20, 0);
	fork.ts_ns = 500; /* pid 20 again: a new process */
	model_event(m, &fork);
	sys_in(20, 20, 600, "write", 1, 0, 1);
	sys(700, "write", 1, 0, 1);
	feed(MTX_EV_EXIT, 800, 20, 20, 0);
	db = end_main_thread(900);
	cr_assert_eq(fake.calls_fd[1], 3);
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM syscalls WHERE fd_kind = 'tty'", -1), 5);
	sqlite3_close(db);
}

Test(model, rows_still_held_when_the_stream_ends_have_no_kind)
{
	sqlite3 *db;
	start_with_fake_resolver(MTX_FD_FILE, 5000); /* looked up after the last event */
	sys(100, "read", 5, 0, 1);
	sys(200, "read", 5, 0, 1);
	db = finish_and_open();
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM syscalls WHERE fd = 5 AND fd_kind IS NULL", -1), 2);
	sqlite3_close(db);
}

Test(model, a_descriptor_found_closed_is_not_asked_for_again_until_later)
{
	sqlite3 *db;
	start_with_fake_resolver(MTX_FD_UNKNOWN, 500); /* closed by the time we look */
	sys(100, "read", 5, 0, 1); /* looked up at 600: gone */
	sys(200, "read", 5, 0, 1); /* before 600: would be gone again */
	sys(700, "read", 5, 0, 1); /* after: maybe a new 5 (pipe2 tells no number) */
	db = end_main_thread(2000);
	cr_assert_eq(fake.calls_fd[5], 2);
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM syscalls WHERE fd_kind IS NULL", -1), 3);
	sqlite3_close(db);
}
