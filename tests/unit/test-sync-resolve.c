/*
 * tests/unit/test-sync-resolve.c - from drained sync records to finished
 * tables: object keys and lifetimes (collector/sync/objects.c), and the
 * passes of collector/sync/resolve.c: lifetimes split at destroy and reuse,
 * blocked intervals joined to the op under way, lock holders and hold times.
 * Each scenario is small enough to compute by hand; the expected values are
 * in the comments.
 */
#include "config.h"
#include "collector/preload/shm.h"
#include "collector/sync/objects.h"
#include "collector/sync/resolve.h"
#include "collector/writer.h"
#include "schema/schema.h"
#include "src/db.h"
#include "src/derived/timeline.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char path[64];
static struct mtx_writer *w;
static struct sync_objects *objs;
static sqlite3 *db;
static struct sync_resolve_stats stats;

static void setup(void)
{
	char *err = NULL;
	snprintf(path, sizeof(path), "/tmp/mtx-test-sync-resolve-%d.db", getpid());
	unlink(path);
	cr_assert_eq(writer_open(&w, path, &err), 0, "%s", err ? err : "");
	objs = sync_objects_new();
	cr_assert_not_null(objs);
	db = writer_db(w);
}

static void teardown(void)
{
	sync_objects_free(objs);
	writer_close(w, 0);
	unlink(path);
}

TestSuite(sync_resolve, .init = setup, .fini = teardown);

static void op(int32_t pid, int32_t tid, enum mtx_sync_kind kind, enum mtx_sync_op o, uint64_t addr,
	       uint64_t start, uint64_t end, int32_t result, uint64_t arg)
{
	struct mtx_sync_record r = { .start_ns = start, .end_ns = end, .addr = addr, .arg = arg,
				     .tid = tid, .pid = pid, .kind = (uint16_t)kind, .op = (uint16_t)o,
				     .result = result };
	cr_assert_eq(sync_objects_record(objs, w, &r, 0, true), 0);
}

static void state(int32_t tid, uint64_t start, uint64_t end, const char *name)
{
	cr_assert_eq(writer_thread_state(w, tid, start, end, name, -1, NULL), 0);
}

/* Resolve the rows written, reading them from the file, or from the
 * writer's capture with @captured (writer_capture before the first row). */
static void resolve_from(bool captured)
{
	size_t n;
	const int64_t *ids = sync_objects_with_lifetime_ops(objs, &n);
	char *err = NULL;
	cr_assert_eq(sync_objects_flush(objs, w), 0);
	db = writer_db(w); /* the rows written */
	cr_assert_eq(db_create_indexes(db, &err), 0, "%s", err ? err : "");
	cr_assert_eq(sync_resolve(db, captured ? writer_captured(w) : NULL, ids, n, &stats, &err), 0, "%s",
		     err ? err : "");
}

static void resolve(void)
{
	resolve_from(false);
}

/* The value of a one-row, one-column query (-1 when NULL or no row). */
static int64_t q(const char *sql)
{
	return db_query_int(db, sql, -1);
}

#define K(x) MTX_SYNC_KIND_##x
#define O(x) MTX_SYNC_OP_##x
#define A 0x1000u
#define B 0x2000u
#define C 0x3000u
#define D 0x4000u

/* Drained out of time order on purpose: the second lifetime's lane first.
 * Mutex A of pid 10: [init 10, lock 20, unlock 30, destroy 40] then
 * [init 50, lock 60, unlock 70]; the cond wait at 62..68 names A and falls
 * in the second lifetime. */
static void mutex_a_reused(void)
{
	op(10, 2, K(MUTEX), O(INIT), A, 50, 51, 0, 0);
	op(10, 2, K(MUTEX), O(LOCK), A, 60, 60, 0, 0);
	op(10, 2, K(COND), O(WAIT), C, 62, 68, 0, A);
	op(10, 2, K(MUTEX), O(UNLOCK), A, 70, 70, 0, 0);
	op(10, 1, K(MUTEX), O(INIT), A, 10, 11, 0, 0);
	op(10, 1, K(MUTEX), O(LOCK), A, 20, 20, 0, 0);
	op(10, 1, K(MUTEX), O(UNLOCK), A, 30, 30, 0, 0);
	op(10, 1, K(MUTEX), O(DESTROY), A, 40, 41, 0, 0);
}

Test(sync_resolve, destroy_ends_a_lifetime_and_reuse_is_a_new_object)
{
	/* Mutex A of pid 10 lives twice (mutex_a_reused). The same address in
	 * pid 11 and a statically initialized mutex B are one object each. */
	mutex_a_reused();
	op(11, 3, K(MUTEX), O(LOCK), A, 15, 15, 0, 0);
	op(10, 1, K(MUTEX), O(LOCK), B, 5, 5, 0, 0);
	resolve();

	cr_assert_eq(stats.lifetimes_split, 1);
	cr_assert_eq(q("SELECT COUNT(*) FROM sync_objects WHERE kind = 'mutex' AND addr = 4096 AND pid = 10"), 2);
	cr_assert_eq(q("SELECT COUNT(*) FROM sync_objects WHERE kind = 'mutex' AND addr = 4096 AND pid = 11"), 1);
	/* first lifetime: created by its init, ended by its destroy */
	cr_assert_eq(q("SELECT created_ns FROM sync_objects WHERE addr = 4096 AND pid = 10 AND destroyed_ns = 41"), 10);
	cr_assert_eq(q("SELECT COUNT(*) FROM sync_ops WHERE object_id = (SELECT id FROM sync_objects "
		       "WHERE addr = 4096 AND pid = 10 AND destroyed_ns = 41)"), 4);
	/* second lifetime: never destroyed, holds the three later ops */
	cr_assert_eq(q("SELECT created_ns FROM sync_objects WHERE addr = 4096 AND pid = 10 AND destroyed_ns IS NULL"), 50);
	cr_assert_eq(q("SELECT COUNT(*) FROM sync_ops WHERE object_id = (SELECT id FROM sync_objects "
		       "WHERE addr = 4096 AND pid = 10 AND destroyed_ns IS NULL)"), 3);
	/* the cond wait's arg is the second lifetime of A */
	cr_assert_eq(q("SELECT arg FROM sync_ops WHERE op = 'wait'"),
		     q("SELECT id FROM sync_objects WHERE addr = 4096 AND pid = 10 AND destroyed_ns IS NULL"));
	/* B had no init: created at its first use */
	cr_assert_eq(q("SELECT created_ns FROM sync_objects WHERE addr = 8192"), 5);
	cr_assert_eq(q("SELECT COUNT(*) FROM sync_usage"), 9);
}

Test(sync_resolve, lifetimes_begin_at_a_later_init_and_after_every_end)
{
	/* Mutex A (ops by time, ids in drain order): lock 5, init 10 (not
	 * the first op: a new lifetime), unlock 12, destroy 20, destroy 22
	 * (after an end: a new lifetime, which it ends), lock 30 (after an
	 * end, without an init: a new lifetime), and at 40 an unlock then an
	 * init drained in that order (same start: the init, the later id,
	 * comes after the unlock and begins the fifth lifetime; the unlock
	 * stays in the fourth). */
	op(10, 1, K(MUTEX), O(LOCK), A, 5, 5, 0, 0);
	op(10, 1, K(MUTEX), O(INIT), A, 10, 11, 0, 0);
	op(10, 1, K(MUTEX), O(UNLOCK), A, 12, 12, 0, 0);
	op(10, 1, K(MUTEX), O(DESTROY), A, 20, 21, 0, 0);
	op(10, 1, K(MUTEX), O(DESTROY), A, 22, 23, 0, 0);
	op(10, 1, K(MUTEX), O(LOCK), A, 30, 30, 0, 0);
	op(10, 1, K(MUTEX), O(UNLOCK), A, 40, 40, 0, 0);
	op(10, 1, K(MUTEX), O(INIT), A, 40, 41, 0, 0);
	resolve();

	cr_assert_eq(stats.lifetimes_split, 4);
	cr_assert_eq(q("SELECT COUNT(*) FROM sync_objects WHERE addr = 4096"), 5);
	/* lifetime by lifetime: created_ns, ops, destroyed_ns */
	cr_assert_eq(q("SELECT COUNT(*) FROM sync_ops WHERE object_id = (SELECT id FROM sync_objects "
		       "WHERE created_ns = 5 AND destroyed_ns IS NULL)"), 1);
	cr_assert_eq(q("SELECT COUNT(*) FROM sync_ops WHERE object_id = (SELECT id FROM sync_objects "
		       "WHERE created_ns = 10 AND destroyed_ns = 21)"), 3);
	cr_assert_eq(q("SELECT COUNT(*) FROM sync_ops WHERE object_id = (SELECT id FROM sync_objects "
		       "WHERE created_ns = 22 AND destroyed_ns = 23)"), 1);
	cr_assert_eq(q("SELECT COUNT(*) FROM sync_ops WHERE object_id = (SELECT id FROM sync_objects "
		       "WHERE created_ns = 30 AND destroyed_ns IS NULL)"), 2);
	cr_assert_eq(q("SELECT COUNT(*) FROM sync_ops WHERE object_id = (SELECT id FROM sync_objects "
		       "WHERE created_ns = 40 AND destroyed_ns IS NULL)"), 1);
	cr_assert_eq(q("SELECT COUNT(*) FROM sync_ops WHERE op = 'init' AND start_ns = 40 AND object_id = "
		       "(SELECT id FROM sync_objects WHERE created_ns = 40)"), 1);
}

Test(sync_resolve, cond_waits_name_the_lifetime_of_their_mutex_they_fell_into)
{
	/* Mutex A lives three times: [10, 20], [30, 40], [50, ...); cond C
	 * waits with it at 15, 35 and 55 (and B, never reused, at 36): each
	 * wait's arg is the lifetime of A it fell into. */
	op(10, 1, K(MUTEX), O(INIT), A, 10, 10, 0, 0);
	op(10, 1, K(COND), O(WAIT), C, 15, 16, 0, A);
	op(10, 1, K(MUTEX), O(DESTROY), A, 20, 20, 0, 0);
	op(10, 1, K(MUTEX), O(INIT), A, 30, 30, 0, 0);
	op(10, 1, K(COND), O(WAIT), C, 35, 36, 0, A);
	op(10, 1, K(COND), O(WAIT), C, 36, 37, 0, B);
	op(10, 1, K(MUTEX), O(DESTROY), A, 40, 40, 0, 0);
	op(10, 1, K(MUTEX), O(INIT), A, 50, 50, 0, 0);
	op(10, 1, K(COND), O(WAIT), C, 55, 56, 0, A);
	resolve();

	cr_assert_eq(stats.lifetimes_split, 2);
	cr_assert_eq(q("SELECT arg FROM sync_ops WHERE op = 'wait' AND start_ns = 15"),
		     q("SELECT id FROM sync_objects WHERE addr = 4096 AND created_ns = 10"));
	cr_assert_eq(q("SELECT arg FROM sync_ops WHERE op = 'wait' AND start_ns = 35"),
		     q("SELECT id FROM sync_objects WHERE addr = 4096 AND created_ns = 30"));
	cr_assert_eq(q("SELECT arg FROM sync_ops WHERE op = 'wait' AND start_ns = 55"),
		     q("SELECT id FROM sync_objects WHERE addr = 4096 AND created_ns = 50"));
	cr_assert_eq(q("SELECT arg FROM sync_ops WHERE op = 'wait' AND start_ns = 36"),
		     q("SELECT id FROM sync_objects WHERE addr = 8192"));
}

Test(sync_resolve, blocked_intervals_inside_an_op_become_blocked_sync)
{
	/* Thread 5 locks A over 100..200, blocked 120..170 within it; a
	 * blocked interval at 300..350 is outside any op; thread 6's lock over
	 * 100..200 was only preempted (runnable), so it did not block. */
	op(10, 5, K(MUTEX), O(LOCK), A, 100, 200, 0, 0);
	op(10, 6, K(MUTEX), O(LOCK), B, 100, 200, 0, 0);
	state(5, 90, 120, "running");
	state(5, 120, 170, "blocked");
	state(5, 170, 180, "runnable");
	state(5, 180, 300, "running");
	state(5, 300, 350, "blocked");
	state(6, 90, 150, "running");
	state(6, 150, 160, "runnable");
	state(6, 160, 400, "running");
	resolve();

	cr_assert_eq(q("SELECT blocked FROM sync_ops WHERE tid = 5"), 1);
	cr_assert_eq(q("SELECT wait_ns FROM sync_ops WHERE tid = 5"), 50);
	cr_assert_eq(q("SELECT blocked FROM sync_ops WHERE tid = 6"), 0);
	cr_assert_eq(q("SELECT wait_ns FROM sync_ops WHERE tid = 6"), 0);
	cr_assert_eq(q("SELECT object_id FROM thread_states WHERE tid = 5 AND state = 'blocked_sync'"),
		     q("SELECT id FROM sync_objects WHERE addr = 4096"));
	cr_assert_eq(q("SELECT start_ns FROM thread_states WHERE tid = 5 AND state = 'blocked'"), 300);
	cr_assert_eq(stats.blocked_ops, 1);
	cr_assert_eq(stats.blocked_states, 1);
	cr_assert_eq(q("SELECT blocking_calls FROM sync_usage WHERE tid = 5"), 1);
}

Test(sync_resolve, an_op_nested_in_a_signal_handler_does_not_hide_the_outer_one)
{
	/* A cond wait over 100..500; a handler's sem_post at 150 inside it;
	 * the thread blocks 200..400, in the wait. */
	op(10, 7, K(COND), O(WAIT), C, 100, 500, 0, A);
	op(10, 7, K(SEM), O(POST), B, 150, 150, 0, 0);
	state(7, 100, 200, "running");
	state(7, 200, 400, "blocked");
	state(7, 400, 500, "running");
	resolve();
	cr_assert_eq(q("SELECT wait_ns FROM sync_ops WHERE op = 'wait'"), 200);
	cr_assert_eq(q("SELECT object_id FROM thread_states WHERE state = 'blocked_sync'"),
		     q("SELECT id FROM sync_objects WHERE kind = 'cond'"));
}

Test(sync_resolve, two_blocked_intervals_of_one_op_add_up)
{
	/* A futex wait woken spuriously blocks twice inside one sem_wait. */
	op(10, 5, K(SEM), O(WAIT), A, 100, 400, 0, 0);
	state(5, 100, 150, "running");
	state(5, 150, 200, "blocked");
	state(5, 200, 250, "running");
	state(5, 250, 380, "blocked");
	state(5, 380, 400, "running");
	resolve();
	cr_assert_eq(q("SELECT wait_ns FROM sync_ops"), 50 + 130);
	cr_assert_eq(q("SELECT COUNT(*) FROM thread_states WHERE state = 'blocked_sync'"), 2);
}

Test(sync_resolve, holders_and_hold_times)
{
	/* Mutex A: thread 12 takes it at 50 (uncontended) and releases it at
	 * 150; thread 11 asks at 100 (so 12 is the holder), gets it at 200 and
	 * releases it at 260. Hold times: 12's lock 100, 11's lock 60. A
	 * failed trylock by 13 at 120 also found 12 holding it. */
	op(10, 11, K(MUTEX), O(LOCK), A, 100, 200, 0, 0);
	op(10, 11, K(MUTEX), O(UNLOCK), A, 260, 260, 0, 0);
	op(10, 12, K(MUTEX), O(LOCK), A, 50, 50, 0, 0);
	op(10, 12, K(MUTEX), O(UNLOCK), A, 150, 150, 0, 0);
	op(10, 13, K(MUTEX), O(TRYLOCK), A, 120, 120, 16, 0);
	resolve();

	cr_assert_eq(q("SELECT holder_tid FROM sync_ops WHERE tid = 11 AND op = 'lock'"), 12);
	cr_assert_eq(q("SELECT holder_tid FROM sync_ops WHERE tid = 12 AND op = 'lock'"), -1, "it was free");
	cr_assert_eq(q("SELECT holder_tid FROM sync_ops WHERE tid = 13"), 12);
	cr_assert_eq(q("SELECT hold_ns FROM sync_ops WHERE tid = 12 AND op = 'lock'"), 100);
	cr_assert_eq(q("SELECT hold_ns FROM sync_ops WHERE tid = 11 AND op = 'lock'"), 60);
	cr_assert_eq(q("SELECT hold_ns FROM sync_ops WHERE tid = 13"), -1, "a failed trylock holds nothing");
	cr_assert_eq(stats.contended_ops, 2);
	cr_assert_eq(q("SELECT contended FROM lock_contention"), 2);
	cr_assert_eq(q("SELECT total_hold_ns FROM lock_contention"), 160);
	cr_assert_eq(q("SELECT max_hold_ns FROM lock_contention"), 100);
	cr_assert_eq(q("SELECT top_holder_tid FROM lock_contention"), 12);
}

Test(sync_resolve, readers_share_a_rwlock_and_a_writer_waits_for_them)
{
	/* Readers 21 (20..100) and 22 (30..80) overlap without contention;
	 * writer 23 asks at 40 while both read. */
	op(10, 21, K(RWLOCK), O(RDLOCK), A, 20, 20, 0, 0);
	op(10, 22, K(RWLOCK), O(RDLOCK), A, 30, 30, 0, 0);
	op(10, 23, K(RWLOCK), O(WRLOCK), A, 40, 110, 0, 0);
	op(10, 22, K(RWLOCK), O(UNLOCK), A, 80, 80, 0, 0);
	op(10, 21, K(RWLOCK), O(UNLOCK), A, 100, 100, 0, 0);
	op(10, 23, K(RWLOCK), O(UNLOCK), A, 130, 130, 0, 0);
	resolve();
	cr_assert_eq(q("SELECT holder_tid FROM sync_ops WHERE tid = 22 AND op = 'rdlock'"), -1);
	cr_assert(q("SELECT holder_tid FROM sync_ops WHERE tid = 23 AND op = 'wrlock'") == 21 ||
		  q("SELECT holder_tid FROM sync_ops WHERE tid = 23 AND op = 'wrlock'") == 22);
	cr_assert_eq(q("SELECT hold_ns FROM sync_ops WHERE tid = 21 AND op = 'rdlock'"), 80);
	cr_assert_eq(q("SELECT hold_ns FROM sync_ops WHERE tid = 22 AND op = 'rdlock'"), 50);
	cr_assert_eq(q("SELECT hold_ns FROM sync_ops WHERE tid = 23 AND op = 'wrlock'"), 20);
}

Test(sync_resolve, a_cond_wait_releases_and_retakes_its_mutex)
{
	/* Thread 31 locks A at 10, waits on cond C 20..80 (A released at 20,
	 * retaken at 80), unlocks at 90. Thread 32 asks for A at 30: free. */
	op(10, 31, K(MUTEX), O(LOCK), A, 10, 10, 0, 0);
	op(10, 31, K(COND), O(WAIT), C, 20, 80, 0, A);
	op(10, 31, K(MUTEX), O(UNLOCK), A, 90, 90, 0, 0);
	op(10, 32, K(MUTEX), O(LOCK), A, 30, 30, 0, 0);
	op(10, 32, K(MUTEX), O(UNLOCK), A, 40, 40, 0, 0);
	resolve();
	cr_assert_eq(q("SELECT holder_tid FROM sync_ops WHERE tid = 32 AND op = 'lock'"), -1);
	cr_assert_eq(q("SELECT hold_ns FROM sync_ops WHERE tid = 31 AND op = 'lock'"), 10);
	cr_assert_eq(q("SELECT hold_ns FROM sync_ops WHERE tid = 31 AND op = 'wait'"), 10);
	cr_assert_eq(q("SELECT hold_ns FROM sync_ops WHERE tid = 32 AND op = 'lock'"), 10);
}

Test(sync_resolve, recursive_locking_holds_from_the_outermost_acquisition)
{
	op(10, 41, K(MUTEX), O(LOCK), A, 10, 10, 0, 0);
	op(10, 41, K(MUTEX), O(LOCK), A, 20, 20, 0, 0);
	op(10, 41, K(MUTEX), O(UNLOCK), A, 30, 30, 0, 0);
	op(10, 41, K(MUTEX), O(UNLOCK), A, 50, 50, 0, 0);
	resolve();
	cr_assert_eq(q("SELECT hold_ns FROM sync_ops WHERE start_ns = 10"), 40);
	cr_assert_eq(q("SELECT hold_ns FROM sync_ops WHERE start_ns = 20"), -1);
}

Test(sync_resolve, holds_written_from_records_out_of_time_order_are_corrected)
{
	/* Thread 42's records come out of time order (as a signal handler's
	 * can): the lock at 20 and its unlock at 30 first, then the lock at 10
	 * (held until the end). As the records came, the lock at 20 took A and
	 * the unlock released it: a hold of 10 was written with its row. In
	 * time order the lock at 10 took A and the lock at 20 only took it
	 * again (recursive), so neither releases it: both hold NULL. Thread 43,
	 * in order, keeps the hold written with its row: 5. */
	op(10, 42, K(MUTEX), O(LOCK), A, 20, 20, 0, 0);
	op(10, 42, K(MUTEX), O(UNLOCK), A, 30, 30, 0, 0);
	op(10, 42, K(MUTEX), O(LOCK), A, 10, 10, 0, 0);
	op(10, 43, K(MUTEX), O(LOCK), B, 10, 15, 0, 0);
	op(10, 43, K(MUTEX), O(UNLOCK), B, 20, 20, 0, 0);
	resolve();
	cr_assert_eq(q("SELECT COUNT(*) FROM sync_ops WHERE tid = 42 AND hold_ns IS NULL"), 3);
	cr_assert_eq(q("SELECT hold_ns FROM sync_ops WHERE tid = 43 AND op = 'lock'"), 5);
	cr_assert_eq(q("SELECT COUNT(*) FROM sync_ops"), 5);
}

/*
 * Semaphores (Python's threading.Lock is one): used as a lock when binary
 * (init value 1), each post by the thread whose wait took it, never taken
 * while held. Sem A, init 1 at 5: thread 51 takes it at 10 (trywait) and
 * posts at 40; 52 asks at 20 (51 holds it), gets it at 45 and posts at 70;
 * a failed trywait by 53 at 50 finds 52 holding it.
 */
Test(sync_resolve, a_binary_semaphore_used_as_a_lock_has_holders)
{
	op(10, 51, K(SEM), O(INIT), A, 5, 5, 0, 1);
	op(10, 51, K(SEM), O(TRYWAIT), A, 10, 10, 0, 0);
	op(10, 51, K(SEM), O(POST), A, 40, 41, 0, 0);
	op(10, 52, K(SEM), O(WAIT), A, 20, 45, 0, 0);
	op(10, 52, K(SEM), O(POST), A, 70, 71, 0, 0);
	op(10, 53, K(SEM), O(TRYWAIT), A, 50, 50, 11, 0);
	resolve();
	cr_assert_eq(q("SELECT holder_tid FROM sync_ops WHERE tid = 52 AND op = 'wait'"), 51);
	cr_assert_eq(q("SELECT holder_tid FROM sync_ops WHERE tid = 53"), 52);
	cr_assert_eq(q("SELECT holder_tid FROM sync_ops WHERE tid = 51 AND op = 'trywait'"), -1, "it was free");
	cr_assert_eq(q("SELECT hold_ns FROM sync_ops WHERE tid = 51 AND op = 'trywait'"), 30);
	cr_assert_eq(q("SELECT hold_ns FROM sync_ops WHERE tid = 52 AND op = 'wait'"), 25);
	cr_assert_eq(q("SELECT hold_ns FROM sync_ops WHERE tid = 53"), -1, "a failed trywait holds nothing");
	cr_assert_eq(stats.contended_ops, 2);
	cr_assert_eq(stats.sem_locks, 1);
	cr_assert_eq(q("SELECT used_as = 'lock' FROM sync_objects"), 1);
	cr_assert_eq(q("SELECT total_hold_ns FROM lock_contention"), 55);
	cr_assert_eq(q("SELECT top_holder_tid FROM lock_contention"), 51);
}

/*
 * Stamps from two CPUs can invert a handoff by a few tens of ns: a waiter's
 * return stamped before the release that let it in. Semaphore A (init 1):
 * 51 takes it at 1000 and posts at 2030; 52's wait returns at 2000 (30 ns
 * "early") and it posts at 3000; 53's failed trywait at 2500 finds 52.
 * Mutex B: 61 locks at 1000 and unlocks at 2010, 62's lock returns at 2000
 * and it unlocks at 3000; 63 asks at 2005 and finds 62. Semaphore D (init
 * 1): 81's wait returns at 1000, stamped early: 82 takes it at 1050 and
 * posts at 1130 before 81 can have it; 81 posts at 5000, and 83's failed
 * trywait at 3000 finds 81. Semaphore C (init 1) is held by 71 and 72 at
 * once for 3.5 us, past any skew: counting.
 */
Test(sync_resolve, a_release_stamped_just_after_the_acquisition_it_allowed_came_first)
{
	op(10, 51, K(SEM), O(INIT), A, 5, 5, 0, 1);
	op(10, 51, K(SEM), O(TRYWAIT), A, 1000, 1000, 0, 0);
	op(10, 51, K(SEM), O(POST), A, 2030, 2030, 0, 0);
	op(10, 52, K(SEM), O(WAIT), A, 1500, 2000, 0, 0);
	op(10, 52, K(SEM), O(POST), A, 3000, 3000, 0, 0);
	op(10, 53, K(SEM), O(TRYWAIT), A, 2500, 2500, 11, 0);
	op(10, 61, K(MUTEX), O(LOCK), B, 1000, 1000, 0, 0);
	op(10, 61, K(MUTEX), O(UNLOCK), B, 2010, 2010, 0, 0);
	op(10, 62, K(MUTEX), O(LOCK), B, 1200, 2000, 0, 0);
	op(10, 62, K(MUTEX), O(UNLOCK), B, 3000, 3000, 0, 0);
	op(10, 63, K(MUTEX), O(LOCK), B, 2005, 3100, 0, 0);
	op(10, 63, K(MUTEX), O(UNLOCK), B, 3200, 3200, 0, 0);
	op(10, 81, K(SEM), O(INIT), D, 5, 5, 0, 1);
	op(10, 81, K(SEM), O(WAIT), D, 500, 1000, 0, 0);
	op(10, 82, K(SEM), O(TRYWAIT), D, 1050, 1050, 0, 0);
	op(10, 82, K(SEM), O(POST), D, 1130, 1130, 0, 0);
	op(10, 81, K(SEM), O(POST), D, 5000, 5000, 0, 0);
	op(10, 83, K(SEM), O(TRYWAIT), D, 3000, 3000, 11, 0);
	op(10, 71, K(SEM), O(INIT), C, 5, 5, 0, 1);
	op(10, 71, K(SEM), O(TRYWAIT), C, 1000, 1000, 0, 0);
	op(10, 72, K(SEM), O(TRYWAIT), C, 1500, 1500, 0, 0);
	op(10, 71, K(SEM), O(POST), C, 5030, 5030, 0, 0);
	op(10, 72, K(SEM), O(POST), C, 6000, 6000, 0, 0);
	resolve();
	cr_assert_eq(q("SELECT used_as = 'lock' FROM sync_objects WHERE addr = 4096"), 1);
	cr_assert_eq(q("SELECT holder_tid FROM sync_ops WHERE tid = 52 AND op = 'wait'"), 51);
	cr_assert_eq(q("SELECT holder_tid FROM sync_ops WHERE tid = 53"), 52);
	cr_assert_eq(q("SELECT hold_ns FROM sync_ops WHERE tid = 51 AND op = 'trywait'"), 1030);
	cr_assert_eq(q("SELECT hold_ns FROM sync_ops WHERE tid = 52 AND op = 'wait'"), 1000);
	cr_assert_eq(q("SELECT holder_tid FROM sync_ops WHERE tid = 62 AND op = 'lock'"), 61);
	cr_assert_eq(q("SELECT holder_tid FROM sync_ops WHERE tid = 63 AND op = 'lock'"), 62);
	cr_assert_eq(q("SELECT hold_ns FROM sync_ops WHERE tid = 61 AND op = 'lock'"), 1010);
	cr_assert_eq(q("SELECT hold_ns FROM sync_ops WHERE tid = 62 AND op = 'lock'"), 1000);
	cr_assert_eq(q("SELECT used_as = 'lock' FROM sync_objects WHERE addr = 16384"), 1);
	cr_assert_eq(q("SELECT hold_ns FROM sync_ops WHERE tid = 82 AND op = 'trywait'"), 80);
	cr_assert_eq(q("SELECT hold_ns FROM sync_ops WHERE tid = 81 AND op = 'wait'"), 4000);
	cr_assert_eq(q("SELECT holder_tid FROM sync_ops WHERE tid = 83"), 81);
	cr_assert_eq(q("SELECT used_as IS NULL FROM sync_objects WHERE addr = 12288"), 1, "C is counting");
	cr_assert_eq(q("SELECT COUNT(*) FROM sync_ops WHERE tid IN (71, 72) AND holder_tid IS NOT NULL"), 0);
}

/* Semaphores used to signal are not locks, and get no holders: B (init 0)
 * posted by 61 and waited on by 62; C (init 1) taken by 61 and posted by
 * 62; A (init 2) held by 61 and 62 at once; D (never seen initialized)
 * taken twice by 61 before its post. */
Test(sync_resolve, semaphores_that_signal_are_not_locks)
{
	op(10, 61, K(SEM), O(INIT), B, 5, 5, 0, 0);
	op(10, 61, K(SEM), O(POST), B, 30, 31, 0, 0);
	op(10, 62, K(SEM), O(WAIT), B, 10, 35, 0, 0);
	op(10, 61, K(SEM), O(INIT), C, 5, 5, 0, 1);
	op(10, 61, K(SEM), O(WAIT), C, 10, 10, 0, 0);
	op(10, 62, K(SEM), O(WAIT), C, 20, 30, 0, 0);
	op(10, 62, K(SEM), O(POST), C, 25, 26, 0, 0);
	op(10, 61, K(SEM), O(INIT), A, 5, 5, 0, 2);
	op(10, 61, K(SEM), O(WAIT), A, 10, 10, 0, 0);
	op(10, 62, K(SEM), O(WAIT), A, 12, 12, 0, 0);
	op(10, 61, K(SEM), O(POST), A, 20, 20, 0, 0);
	op(10, 62, K(SEM), O(POST), A, 22, 22, 0, 0);
	op(10, 61, K(SEM), O(WAIT), 0x4000u, 10, 10, 0, 0);
	op(10, 61, K(SEM), O(WAIT), 0x4000u, 12, 12, 0, 0);
	op(10, 61, K(SEM), O(POST), 0x4000u, 20, 20, 0, 0);
	resolve();
	cr_assert_eq(q("SELECT COUNT(*) FROM sync_ops WHERE holder_tid IS NOT NULL OR hold_ns IS NOT NULL"), 0);
	cr_assert_eq(q("SELECT COUNT(*) FROM sync_objects WHERE used_as IS NOT NULL"), 0);
	cr_assert_eq(stats.contended_ops, 0);
	cr_assert_eq(stats.sem_locks, 0);
	cr_assert_eq(q("SELECT COUNT(*) FROM lock_contention"), 0);
}

/* The call sites to name: one per (pid, address), with the first op's start
 * (whatever order the records came in); address 0 (unknown) left out. */
Test(sync_resolve, callsites_distinct_with_first_start)
{
	const uint64_t sites[][3] = { /* pid, callsite, start */
		{ 1, 0x10, 5 }, { 1, 0x10, 3 }, { 2, 0x10, 7 }, { 1, 0x20, 9 }, { 1, 0, 1 }, { 1, 0x10, 4 },
	};
	for (size_t i = 0; i < sizeof(sites) / sizeof(sites[0]); i++) {
		struct mtx_sync_record r = { .start_ns = sites[i][2], .end_ns = sites[i][2], .addr = 0x1000,
					     .callsite = sites[i][1], .tid = (int32_t)sites[i][0],
					     .pid = (int32_t)sites[i][0], .kind = MTX_SYNC_KIND_MUTEX,
					     .op = MTX_SYNC_OP_LOCK };
		cr_assert_eq(sync_objects_record(objs, w, &r, 0, true), 0);
	}
	size_t n;
	const struct sync_callsite *c = sync_objects_callsites(objs, &n);
	cr_assert_eq(n, 3);
	cr_assert(c[0].pid == 1 && c[0].addr == 0x10 && c[0].first_ns == 3);
	cr_assert(c[1].pid == 2 && c[1].addr == 0x10 && c[1].first_ns == 7);
	cr_assert(c[2].pid == 1 && c[2].addr == 0x20 && c[2].first_ns == 9);
}

/* A wrapper preempted (runnable) or asleep between its entry and the real
 * call keeps as overhead only its time on a CPU; an injected wait stays
 * whole; an op whose overhead is small is not looked at. */
Test(sync_resolve, overhead_keeps_only_the_time_on_a_cpu)
{
	struct mtx_sync_record r = { .addr = A, .tid = 11, .pid = 11, .kind = K(MUTEX), .op = O(LOCK) };

	state(11, 0, 1000000, "running");
	state(11, 1000000, 9000000, "runnable"); /* 8 ms preempted inside the first wrapper */
	state(11, 9000000, 30000000, "running");
	/* entry at 0.5 ms, real call at 10 ms: 9.5 ms measured, 1.5 ms on a CPU */
	r.start_ns = r.end_ns = 10000000, r.overhead = 9500000;
	cr_assert_eq(sync_objects_record(objs, w, &r, 0, true), 0);
	/* 6 ms injected of 9.5 ms measured in the same kind of window: the
	 * injected wait is CPU time (the library leaves out its gaps) */
	state(11, 30000000, 38000000, "blocked");
	state(11, 38000000, 50000000, "running");
	r.op = O(UNLOCK), r.start_ns = r.end_ns = 39500000, r.overhead = 9500000, r.injected = 6000000;
	cr_assert_eq(sync_objects_record(objs, w, &r, 0, true), 0);
	/* 1.5 us: under the threshold, kept as measured even if off a CPU */
	state(11, 50000000, 50001000, "runnable");
	state(11, 50001000, 60000000, "running");
	r.op = O(LOCK), r.start_ns = r.end_ns = 50001200, r.overhead = 1500, r.injected = 0;
	cr_assert_eq(sync_objects_record(objs, w, &r, 0, true), 0);
	/* entry at 61 ms, inside a runnable interval that began before it:
	 * its last 1 ms is off the CPU, of 2 ms measured */
	state(11, 60000000, 62000000, "runnable");
	state(11, 62000000, 70000000, "running");
	r.op = O(UNLOCK), r.start_ns = r.end_ns = 63000000, r.overhead = 2000000, r.injected = 0;
	cr_assert_eq(sync_objects_record(objs, w, &r, 0, true), 0);
	resolve();
	cr_assert_eq(q("SELECT overhead_ns FROM sync_ops WHERE start_ns = 10000000"), 1500000);
	cr_assert_eq(q("SELECT overhead_ns FROM sync_ops WHERE start_ns = 39500000"), 6000000);
	cr_assert_eq(q("SELECT injected_ns FROM sync_ops WHERE start_ns = 39500000"), 6000000);
	cr_assert_eq(q("SELECT overhead_ns FROM sync_ops WHERE start_ns = 50001200"), 1500);
	cr_assert_eq(q("SELECT overhead_ns FROM sync_ops WHERE start_ns = 63000000"), 1000000);
}

/* Every row of the sync tables and the thread states, as one string. */
static char *sync_tables(void)
{
	static const char *const sql[] = {
		"SELECT * FROM sync_ops ORDER BY id", "SELECT * FROM sync_objects ORDER BY id",
		"SELECT * FROM thread_states ORDER BY rowid",
	};
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	cr_assert_not_null(f);
	for (size_t i = 0; i < sizeof(sql) / sizeof(sql[0]); i++) {
		sqlite3_stmt *st;
		cr_assert_eq(sqlite3_prepare_v2(db, sql[i], -1, &st, NULL), SQLITE_OK);
		while (sqlite3_step(st) == SQLITE_ROW) {
			for (int c = 0; c < sqlite3_column_count(st); c++) {
				const unsigned char *v = sqlite3_column_text(st, c);
				fprintf(f, "%s|", v ? (const char *)v : "NULL");
			}
			fputc('\n', f);
		}
		sqlite3_finalize(st);
	}
	fclose(f);
	return out;
}

/* A run of every kind the passes treat, drained out of time order across
 * threads: lifetimes, a cond wait on a re-initialized mutex, contention,
 * a rwlock, recursion, a thread that died inside a lock, semaphores as
 * and not as locks, blocked intervals. */
static void mixed_run(void)
{
	mutex_a_reused();
	op(10, 11, K(MUTEX), O(LOCK), B, 100, 200, 0, 0);
	op(10, 11, K(MUTEX), O(UNLOCK), B, 260, 260, 0, 0);
	op(10, 12, K(MUTEX), O(LOCK), B, 50, 50, 0, 0);
	op(10, 12, K(MUTEX), O(LOCK), B, 60, 60, 0, 0);
	op(10, 12, K(MUTEX), O(UNLOCK), B, 70, 70, 0, 0);
	op(10, 12, K(MUTEX), O(UNLOCK), B, 150, 150, 0, 0);
	op(10, 13, K(MUTEX), O(TRYLOCK), B, 120, 120, 16, 0);
	op(11, 21, K(RWLOCK), O(RDLOCK), A, 20, 20, 0, 0);
	op(11, 22, K(RWLOCK), O(RDLOCK), A, 30, 30, 0, 0);
	op(11, 23, K(RWLOCK), O(WRLOCK), A, 40, 110, 0, 0);
	op(11, 22, K(RWLOCK), O(UNLOCK), A, 80, 80, 0, 0);
	op(11, 21, K(RWLOCK), O(UNLOCK), A, 100, 100, 0, 0);
	op(11, 23, K(RWLOCK), O(UNLOCK), A, 130, 130, 0, 0);
	op(11, 24, K(MUTEX), O(LOCK), C, 300, 300, MTX_SYNC_RESULT_UNRETURNED, 0);
	op(12, 51, K(SEM), O(INIT), A, 5, 5, 0, 1);
	op(12, 51, K(SEM), O(TRYWAIT), A, 10, 10, 0, 0);
	op(12, 52, K(SEM), O(WAIT), A, 20, 45, 0, 0);
	op(12, 51, K(SEM), O(POST), A, 40, 40, 0, 0);
	op(12, 52, K(SEM), O(POST), A, 70, 70, 0, 0);
	op(12, 53, K(SEM), O(WAIT), B, 10, 20, 0, 0);
	op(12, 54, K(SEM), O(POST), B, 15, 15, 0, 0);
	cr_assert_eq(writer_thread(w, 24, 11, "dies", 290, 320, 0), 0);
	state(11, 90, 120, "running");
	state(11, 120, 170, "blocked");
	state(11, 170, 300, "running");
	state(24, 290, 300, "running");
	state(24, 300, 320, "blocked"); /* inside the lock only once it ends with its thread */
	state(52, 15, 25, "running");
	state(52, 25, 40, "blocked");
	state(52, 40, 80, "running");
}

Test(sync_resolve, the_capture_and_the_file_resolve_alike)
{
	char *from_file, *from_capture;
	mixed_run();
	resolve();
	from_file = sync_tables();
	teardown();
	setup();
	cr_assert_eq(writer_capture(w), 0);
	mixed_run();
	resolve_from(true);
	cr_assert_gt(timeline_capture_nr_ops(writer_captured(w)), 0, "the capture was dropped");
	from_capture = sync_tables();
	cr_assert_str_eq(from_capture, from_file);
	cr_assert(strstr(from_file, "thread_exit") && strstr(from_file, "blocked_sync") && strstr(from_file, "lock|"),
		  "the run lacks a case: %s", from_file);
	free(from_file);
	free(from_capture);
}
