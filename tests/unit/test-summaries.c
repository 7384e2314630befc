/*
 * tests/unit/test-summaries.c - the summary tables (src/derived/summaries.c and
 * switch_totals from src/derived/state-causes.c) on the run of
 * tests/fixtures/waits.sql, whose header tells its story. Every expected
 * value is worked out from that file by hand.
 */
#include "config.h"
#include "src/derived/analysis.h"
#include "tests/unit/fixture.h"

#include <string.h>

static char path[64];
static sqlite3 *db;

static void setup(void)
{
	char *err = NULL;
	db = fixture_open("waits", path);
	cr_assert_eq(db_exec(db, schema_derived_sql, &err), 0, "%s", err ? err : "");
	fixture_analyse(db, analysis_state_causes);
	fixture_analyse(db, analysis_summaries);
}

static void teardown(void)
{
	fixture_close(db, path);
}

TestSuite(summaries, .init = setup, .fini = teardown);

Test(summaries, thread_totals)
{
	/* main: running 0-100, 120-200, 910-1000; runnable 100-120, 900-910;
	 * blocked_sync 200-900 (the join). worker-a: running 100-300,
	 * 360-900; blocked_io 300-350; runnable 350-360. worker-b: runnable
	 * 150-210, 390-400; running 210-250, 400-500, 600-950; blocked_sync
	 * 250-390; sleeping 500-600. (us) */
	cr_assert_str_eq(fixture_rows(db, "SELECT tid, name, nr_states, running_ns, runnable_ns, blocked_other_ns, "
				 "blocked_sync_ns, blocked_io_ns, sleeping_ns FROM thread_totals ORDER BY tid"),
			 "100|main|6|270000|30000|0|700000|0|0\n"
			 "101|worker-a|4|740000|10000|0|0|50000|0\n"
			 "102|worker-b|7|490000|70000|0|140000|0|100000\n");
}

Test(summaries, sync_totals)
{
	/* Each of the 8 ops is alone in its (tid, object, op): the two creates
	 * are on two thread objects. The join and worker-b's lock blocked
	 * (contended); worker-b's lock also found worker-a holding M. */
	cr_assert_str_eq(fixture_rows(db, "SELECT tid, object_id, op, calls, blocked, contended, wait_ns, max_wait_ns, "
				 "hold_ns, max_hold_ns FROM sync_totals ORDER BY tid, object_id, op"),
			 "100|2|create|1|0|0|0|0|0|0\n"
			 "100|2|join|1|1|1|700000|700000|0|0\n"
			 "100|3|create|1|0|0|0|0|0|0\n"
			 "101|1|lock|1|0|0|0|0|239000|239000\n"
			 "101|1|unlock|1|0|0|0|0|0|0\n"
			 "101|2|exit|1|0|0|0|0|0|0\n"
			 "102|1|lock|1|1|1|140000|140000|60000|60000\n"
			 "102|1|unlock|1|0|0|0|0|0|0\n");
}

Test(summaries, lock_holders)
{
	/* Only worker-b's lock found a holder: worker-a, 140 us of wait. */
	cr_assert_str_eq(fixture_rows(db, "SELECT object_id, holder_tid, ops, wait_ns FROM lock_holders"), "1|101|1|140000\n");
}

Test(summaries, switch_totals)
{
	/* The five switches: main preempted by worker-a at 100 and blocked in
	 * the join at 200; worker-a in read() at 300; worker-b blocked on M at
	 * 250 and in clock_nanosleep at 500; each to idle but the first. */
	cr_assert_str_eq(fixture_rows(db, "SELECT from_tid, to_tid, at, count FROM switch_totals ORDER BY from_tid, to_tid, at"),
			 "100|0|thread join|1\n"
			 "100|101|preempted|1\n"
			 "101|0|read|1\n"
			 "102|0|clock_nanosleep|1\n"
			 "102|0|mutex lock|1\n");
}

Test(summaries, equal_the_sums_of_the_recorded_rows)
{
	/* The same figures added up by SQL from the recorded rows. */
	cr_assert_eq(db_query_int(db,
				  "SELECT COUNT(*) FROM (SELECT tid, object_id, op, COUNT(*), SUM(blocked), "
				  "SUM(holder_tid IS NOT NULL OR blocked), SUM(wait_ns), MAX(wait_ns), "
				  "COALESCE(SUM(hold_ns), 0), COALESCE(MAX(hold_ns), 0) FROM sync_ops "
				  "GROUP BY tid, object_id, op EXCEPT SELECT tid, object_id, op, calls, blocked, "
				  "contended, wait_ns, max_wait_ns, hold_ns, max_hold_ns FROM sync_totals)",
				  -1),
		     0);
	cr_assert_eq(db_query_int(db, "SELECT SUM(calls) FROM sync_totals", -1), 8);
}

Test(summaries, wait_chains_end_at_a_thread_met_again)
{
	/* main waits for worker-a, which waits for worker-b, which waits for
	 * main, all over [0, 100): the chain closes the circle once and stops,
	 * rather than going round it to the 8-link limit. Each wait is
	 * clipped to the others', so the three have 100 ns each. */
	const struct wait_link links[] = {
		{ .tid = 100, .start_ns = 0, .end_ns = 100, .other = 101 },
		{ .tid = 101, .start_ns = 0, .end_ns = 100, .other = 102 },
		{ .tid = 102, .start_ns = 0, .end_ns = 100, .other = 100 },
	};
	char *err = NULL;
	int rc;
	int64_t ns;
	const struct tl_buckets buckets = { 0, 64 };
	struct wait_chains *c = wait_chains_new(db, &buckets, &rc);
	cr_assert_eq(rc, 0);
	cr_assert_eq(db_exec(db, "DELETE FROM wait_chain_totals; DELETE FROM wait_chain_buckets", &err), 0, "%s",
		     err ? err : "");
	cr_assert_eq(wait_chains_follow(c, links, 3), 0);
	cr_assert_str_eq(wait_chains_of(c, 1, &ns), "worker-a > worker-b > main > worker-a");
	cr_assert_eq(ns, 100);
	cr_assert_eq(wait_chains_write(db, c), 0);
	wait_chains_free(c);
	cr_assert_str_eq(fixture_rows(db, "SELECT tid, chain, waits, wait_ns FROM wait_chain_totals ORDER BY tid"),
			 "100|main > worker-a > worker-b > main|1|100\n"
			 "101|worker-a > worker-b > main > worker-a|1|100\n"
			 "102|worker-b > main > worker-a > worker-b|1|100\n");
}
