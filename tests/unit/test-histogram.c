/*
 * tests/unit/test-histogram.c - bounded time histograms: where points and
 * intervals land, that doubling keeps every total and happens only when
 * needed, folding to a common width, the sparkline aggregate, and the
 * time_histograms of a hand-computed fixture run.
 */
#include "config.h"
#include "schema/schema.h"
#include "src/derived/analysis.h"
#include "src/db.h"
#include "src/derived/histogram.h"
#include "tests/unit/fixture.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N MTX_HISTOGRAM_BUCKETS

static int64_t total(const struct mtx_histogram *h)
{
	int64_t sum = 0;
	for (int i = 0; i < N; i++)
		sum += histogram_value(h, i);
	return sum;
}

/* Every bucket of @h equals @expected (N values). */
static void expect_buckets(const struct mtx_histogram *h, const int64_t *expected)
{
	for (int i = 0; i < N; i++)
		cr_expect_eq(histogram_value(h, i), expected[i], "bucket %d: %lld, expected %lld", i,
			     (long long)histogram_value(h, i), (long long)expected[i]);
}

Test(histogram, points_land_in_their_bucket_until_one_falls_beyond_the_last)
{
	struct mtx_histogram h;
	histogram_init(&h, 100, 10);

	/* Buckets are [100 + 10i, 110 + 10i): 100 and 109 share bucket 0, 110
	 * opens bucket 1, 419 is the last nanosecond of bucket 31, the last. */
	histogram_add(&h, 100, 1);
	histogram_add(&h, 109, 2);
	histogram_add(&h, 110, 5);
	histogram_add(&h, 419, 7);
	cr_assert_eq(histogram_width_ns(&h), 10, "nothing fell beyond bucket 31: no doubling");
	cr_assert_eq(histogram_value(&h, 0), 3);
	cr_assert_eq(histogram_value(&h, 1), 5);
	cr_assert_eq(histogram_value(&h, 31), 7);

	/* 420 is (420 - 100) / 10 = bucket 32: one doubling to 20 wide, where it
	 * is bucket 320 / 20 = 16; old buckets 0+1 fold into 0, 30+31 into 15. */
	histogram_add(&h, 420, 1);
	int64_t expected[N] = { [0] = 8, [15] = 7, [16] = 1 };
	cr_assert_eq(histogram_width_ns(&h), 20);
	expect_buckets(&h, expected);
	cr_assert_eq(total(&h), 1 + 2 + 5 + 7 + 1);
	cr_assert_eq(histogram_bucket_start_ns(&h, 16), 420);
}

Test(histogram, one_far_point_doubles_as_often_as_needed)
{
	struct mtx_histogram h;
	histogram_init(&h, 0, 1);
	histogram_add(&h, 0, 1);
	histogram_add(&h, 40, 1);
	/* 40 needs 40 / w < 32: w = 2 (bucket 20). 1000 needs 1000 / w < 32:
	 * w = 2, 4, 8, 16 give 500, 250, 125, 62; w = 32 gives 31. 40 / 32 =
	 * bucket 1. */
	histogram_add(&h, 1000, 1);
	int64_t expected[N] = { [0] = 1, [1] = 1, [31] = 1 };
	cr_assert_eq(histogram_width_ns(&h), 32);
	expect_buckets(&h, expected);
}

Test(histogram, stays_bounded_and_minimal_over_a_long_stream)
{
	struct mtx_histogram h;
	int64_t ts = 0, count = 0;
	histogram_init(&h, 0, 1000);

	/* A million points with growing gaps, 0 .. ~5e11 ns; the count is
	 * kept exactly and the width is the narrowest holding the last point. */
	for (int64_t i = 0; i < 1000000; i++, count++) {
		histogram_add(&h, ts, 1);
		ts += i;
	}
	ts -= 999999; /* the last point */
	cr_assert_eq(total(&h), count);
	cr_assert_eq(sizeof(h.value) / sizeof(h.value[0]), N);
	cr_assert_gt(histogram_width_ns(&h), 1000);
	cr_assert_lt(ts / histogram_width_ns(&h), N);
	cr_assert_geq(ts / (histogram_width_ns(&h) / 2), N, "half the width would have held the last point");
	cr_assert_eq(h.nr_dropped, 0);
}

Test(histogram, intervals_split_exactly_at_bucket_edges)
{
	struct mtx_histogram h;
	histogram_init(&h, 0, 10);

	histogram_add_interval(&h, 5, 27);  /* 5 in [0,10), 10 in [10,20), 7 in [20,30) */
	histogram_add_interval(&h, 30, 40); /* exactly bucket 3: 40 is not in it */
	histogram_add_interval(&h, 40, 41); /* 1 ns in bucket 4 */
	histogram_add_interval(&h, 50, 50); /* empty */
	histogram_add_interval(&h, 60, 55); /* reversed */
	int64_t before[N] = { [0] = 5, [1] = 10, [2] = 7, [3] = 10, [4] = 1 };
	expect_buckets(&h, before);

	/* [0, 320) ends on the last nanosecond of bucket 31: no doubling. */
	histogram_add_interval(&h, 0, 320);
	cr_assert_eq(histogram_width_ns(&h), 10);
	cr_assert_eq(total(&h), 33 + 320);

	/* [310, 340): its last nanosecond 339 is bucket 33 at width 10, so one
	 * doubling; then 10 ns in [300, 320) and 20 in [320, 340). Every old
	 * pair folds: bucket 0 = (5 + 10) + (10 + 10), 1 = (7 + 10) + (10 + 10),
	 * 2 = (1 + 10) + 10, the others 10 + 10 = 20. */
	histogram_add_interval(&h, 310, 340);
	cr_assert_eq(histogram_width_ns(&h), 20);
	int64_t after[N] = { [0] = 35, [1] = 37, [2] = 21 };
	for (int i = 3; i < 16; i++)
		after[i] = 20;
	after[15] += 10;
	after[16] = 20;
	expect_buckets(&h, after);
	cr_assert_eq(total(&h), 33 + 320 + 30);
}

Test(histogram, a_long_interval_fills_full_buckets_and_keeps_its_length)
{
	struct mtx_histogram h;
	histogram_init(&h, 0, 1);
	histogram_add_interval(&h, 0, 1000000000);

	/* 999999999 / 2^24 = 59 >= 32, / 2^25 = 29: 2^25 wide, buckets 0..28
	 * full, bucket 29 the rest: 1e9 - 29 * 2^25 = 26921472. */
	cr_assert_eq(histogram_width_ns(&h), 1 << 25);
	for (int i = 0; i < 29; i++)
		cr_assert_eq(histogram_value(&h, i), 1 << 25);
	cr_assert_eq(histogram_value(&h, 29), 26921472);
	cr_assert_eq(histogram_value(&h, 30), 0);
	cr_assert_eq(total(&h), 1000000000);
}

Test(histogram, time_before_the_origin_is_counted_not_added)
{
	struct mtx_histogram h;
	histogram_init(&h, 100, 10);
	histogram_add(&h, 99, 1);
	histogram_add_interval(&h, 80, 90);
	histogram_add_interval(&h, 95, 105); /* only [100, 105) is added */
	cr_assert_eq(h.nr_dropped, 3);
	cr_assert_eq(histogram_value(&h, 0), 5);
	cr_assert_eq(total(&h), 5);
}

Test(histogram, fold_to_reaches_a_wider_width_by_doubling_only)
{
	struct mtx_histogram h;
	histogram_init(&h, 0, 10);
	for (int i = 0; i < N; i++)
		histogram_add(&h, 10 * i, i);

	cr_assert_eq(histogram_fold_to(&h, 10), 0, "the same width is a no-op");
	cr_assert_eq(histogram_fold_to(&h, 30), -EINVAL, "30 is not 10 * 2^k");
	cr_assert_eq(histogram_fold_to(&h, 5), -EINVAL, "narrower cannot be");
	cr_assert_eq(histogram_width_ns(&h), 10);
	cr_assert_eq(histogram_value(&h, N - 1), N - 1, "a refused fold leaves it alone");

	/* 40 wide: bucket i holds old 4i .. 4i+3, whose values sum to 16i + 6. */
	cr_assert_eq(histogram_fold_to(&h, 40), 0);
	cr_assert_eq(histogram_width_ns(&h), 40);
	for (int i = 0; i < N / 4; i++)
		cr_assert_eq(histogram_value(&h, i), 16 * i + 6);
	for (int i = N / 4; i < N; i++)
		cr_assert_eq(histogram_value(&h, i), 0);
	cr_assert_eq(total(&h), N * (N - 1) / 2);
}

Test(histogram, folded_histograms_line_up_with_one_built_wide)
{
	struct mtx_histogram fine, wide;
	histogram_init(&fine, 1000, 1);
	histogram_init(&wide, 1000, 64);
	/* The same intervals, one histogram 1 ns wide at first (it doubles on
	 * its own), the other 64 ns: after folding to 64 they are equal. */
	for (int64_t s = 1000; s < 3000; s += 37) {
		histogram_add_interval(&fine, s, s + 11);
		histogram_add_interval(&wide, s, s + 11);
	}
	cr_assert_leq(histogram_width_ns(&fine), 64);
	cr_assert_eq(histogram_fold_to(&fine, histogram_width_ns(&wide)), 0);
	cr_assert_eq(memcmp(fine.value, wide.value, sizeof(fine.value)), 0);
}

/* ---- sparkline ---- */

/* An in-memory database with sparkline and a table t(g, bucket, value)
 * holding @rows (an SQL VALUES list). */
static sqlite3 *sparkline_db(const char *rows)
{
	sqlite3 *db;
	char *err = NULL, *sql = sqlite3_mprintf("CREATE TABLE t (g, bucket, value); INSERT INTO t VALUES %s", rows);
	cr_assert_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	cr_assert_eq(histogram_register_sql(db), 0);
	cr_assert_eq(db_exec(db, sql, &err), 0, "%s", err);
	sqlite3_free(sql);
	return db;
}

/* The first column of the one row of @sql, as text. */
static char *query_text(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	char *text;
	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	text = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return text;
}

/* The sparkline of group @g of table t is @expected. */
static void expect_sparkline(sqlite3 *db, int g, const char *expected)
{
	char *sql = sqlite3_mprintf("SELECT sparkline(bucket, value) FROM t WHERE g = %d", g);
	char *text = query_text(db, sql);
	cr_expect_str_eq(text, expected, "group %d: '%s', expected '%s'", g, text, expected);
	free(text);
	sqlite3_free(sql);
}

Test(sparkline, scales_to_the_group_maximum)
{
	/* Group 1, max 100: 0 is ' ', 1 the least mark '.', 50 is 1 + 50 * 8 /
	 * 100 = 5 ('+'), 99 is 1 + 792 / 100 = 8 ('%'), 100 '@'.
	 * Group 2: buckets 0 and 1 unseen (blank), 2 the max.
	 * Group 3: all zero: blanks.
	 * Group 4: bucket 0 given twice (3 + 3) equals bucket 1: both '@'.
	 * Group 5: out-of-range and NULL buckets are ignored.
	 * Group 6: only the last bucket: N (32) characters, no more. */
	sqlite3 *db = sparkline_db("(1, 0, 0), (1, 1, 1), (1, 2, 50), (1, 3, 100), (1, 4, 99),"
				   " (2, 2, 7), (3, 0, 0), (3, 1, 0), (4, 0, 3), (4, 0, 3), (4, 1, 6),"
				   " (5, -1, 9), (5, 32, 9), (5, NULL, 9), (5, 1, 2), (6, 31, 1), (6, 32, 5)");
	expect_sparkline(db, 1, " .+@%");
	expect_sparkline(db, 2, "  @");
	expect_sparkline(db, 3, "  ");
	expect_sparkline(db, 4, "@@");
	expect_sparkline(db, 5, " @");
	expect_sparkline(db, 6, "                               @");
	expect_sparkline(db, 7, ""); /* no rows */
	sqlite3_close(db);
}

Test(sparkline, its_peak_is_the_largest_bucket_summed)
{
	/* Group 1: bucket 0 given as 3 + 4 = 7, above bucket 1's 6 and any
	 * single row. Group 2: the out-of-range bucket is ignored, as by
	 * sparkline. Group 3: all zero. */
	sqlite3 *db = sparkline_db("(1, 0, 3), (1, 0, 4), (1, 1, 6), (2, 32, 90), (2, 2, 5), (3, 0, 0)");
	sqlite3_stmt *st;
	cr_assert_eq(sqlite3_prepare_v2(db, "SELECT g, sparkline_peak(bucket, value) FROM t GROUP BY g ORDER BY g", -1,
					&st, NULL),
		     SQLITE_OK);
	const int64_t want[] = { 7, 5, 0 };
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
		cr_assert_eq(sqlite3_column_int64(st, 1), want[i], "group %d: %lld", i + 1,
			     (long long)sqlite3_column_int64(st, 1));
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
}

Test(sparkline, every_ramp_level_is_reachable)
{
	/* Max 80: level 1 + v * 8 / 80 = 1 + v / 10 for v < 80. */
	sqlite3 *db = sparkline_db("(1, 0, 0), (1, 1, 5), (1, 2, 10), (1, 3, 20), (1, 4, 30),"
				   " (1, 5, 40), (1, 6, 50), (1, 7, 60), (1, 8, 79), (1, 9, 80)");
	expect_sparkline(db, 1, " .:-=+*#%@");
	sqlite3_close(db);
}

/* ---- analysis_histograms on tests/fixtures/histogram.sql ---- */

/*
 * The fixture's run starts at O = 1 s and ends at O + 60 µs. 60 µs do not
 * fit 32 buckets of 1 µs, so every row is 2 µs wide (59999 / 2000 = 29 < 32)
 * and there are 30 buckets: bucket b is [O + 2000b, O + 2000b + 2000).
 */
#define ORIGIN 1000000000
#define WIDTH 2000
#define NR_FIXTURE_BUCKETS 30

static sqlite3 *fixture_histograms(char *path)
{
	sqlite3 *db = fixture_open("histogram", path);
	char *err = NULL;
	cr_assert_eq(db_exec(db, schema_derived_sql, &err), 0, "%s", err);
	fixture_analyse(db, analysis_histograms);
	return db;
}

/* The rows of one subject's metric are the buckets of @expected that are
 * not 0, each with its value: no row for a 0. */
static void expect_row(sqlite3 *db, const char *subject, int64_t id, const char *metric, const int64_t *expected)
{
	sqlite3_stmt *st;
	int rows = 0, nonzero = 0;
	cr_assert_eq(sqlite3_prepare_v2(db,
					"SELECT bucket, start_ns, width_ns, value FROM time_histograms"
					" WHERE subject = ? AND subject_id = ? AND metric = ? ORDER BY bucket",
					-1, &st, NULL),
		     SQLITE_OK);
	sqlite3_bind_text(st, 1, subject, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, id);
	sqlite3_bind_text(st, 3, metric, -1, SQLITE_STATIC);
	for (; sqlite3_step(st) == SQLITE_ROW; rows++) {
		int b = sqlite3_column_int(st, 0);
		cr_assert(b >= 0 && b < NR_FIXTURE_BUCKETS, "%s %lld %s: bucket %d", subject, (long long)id, metric, b);
		cr_assert_eq(sqlite3_column_int64(st, 1), ORIGIN + (int64_t)b * WIDTH);
		cr_assert_eq(sqlite3_column_int64(st, 2), WIDTH);
		cr_expect_eq(sqlite3_column_int64(st, 3), expected[b], "%s %lld %s bucket %d: %lld, expected %lld",
			     subject, (long long)id, metric, b, (long long)sqlite3_column_int64(st, 3),
			     (long long)expected[b]);
	}
	sqlite3_finalize(st);
	for (int b = 0; b < NR_FIXTURE_BUCKETS; b++)
		nonzero += expected[b] != 0;
	cr_assert_eq(rows, nonzero, "%s %lld %s: %d rows for %d buckets not 0", subject, (long long)id, metric, rows,
		     nonzero);
}

/* Set buckets @from .. @to of @v to @value. */
static void fill(int64_t *v, int from, int to, int64_t value)
{
	for (int b = from; b <= to; b++)
		v[b] = value;
}

Test(analysis, thread_histograms_of_the_fixture)
{
	char path[64];
	sqlite3 *db = fixture_histograms(path);

	/* Thread 100 running: [0, 3000) is 2000 in b0 and 1000 in b1;
	 * [7500, 20000) is 500 in b3 ([7500, 8000)) then b4..b9 full;
	 * [42500, 60000) is 1500 in b21 ([42500, 44000)) then b22..b29 full. */
	int64_t running[NR_FIXTURE_BUCKETS] = { [0] = 2000, [1] = 1000, [3] = 500, [21] = 1500 };
	fill(running, 4, 9, 2000);
	fill(running, 22, 29, 2000);
	expect_row(db, "thread", 100, "running_ns", running);

	/* blocked_ns: blocked_sync [3000, 7500) is 1000 in b1, 2000 in b2, 1500
	 * in b3; sleeping [20000, 41000) fills b10..b19 and 1000 of b20. */
	int64_t blocked[NR_FIXTURE_BUCKETS] = { [1] = 1000, [2] = 2000, [3] = 1500, [20] = 1000 };
	fill(blocked, 10, 19, 2000);
	expect_row(db, "thread", 100, "blocked_ns", blocked);

	/* runnable [41000, 42500): 1000 in b20, 500 in b21. */
	int64_t runnable[NR_FIXTURE_BUCKETS] = { [20] = 1000, [21] = 500 };
	expect_row(db, "thread", 100, "runnable_ns", runnable);

	/* sync ops at 2900 (b1), 8000 (b4), 45000 (b22); syscalls at 20000
	 * (b10) and 50500 (b25). */
	int64_t sync_ops[NR_FIXTURE_BUCKETS] = { [1] = 1, [4] = 1, [22] = 1 };
	expect_row(db, "thread", 100, "sync_ops", sync_ops);
	int64_t syscalls[NR_FIXTURE_BUCKETS] = { [10] = 1, [25] = 1 };
	expect_row(db, "thread", 100, "syscalls", syscalls);

	/* Thread 101 lives [5000, 30000): runnable [5000, 6000) in b2; running
	 * [6000, 9000) is b3 and 1000 of b4, [12300, 30000) is 1700 of b6 then
	 * b7..b14; blocked_sync [9000, 12300) is 1000 in b4, b5, 300 in b6. */
	int64_t running_101[NR_FIXTURE_BUCKETS] = { [3] = 2000, [4] = 1000, [6] = 1700 };
	fill(running_101, 7, 14, 2000);
	expect_row(db, "thread", 101, "running_ns", running_101);
	int64_t runnable_101[NR_FIXTURE_BUCKETS] = { [2] = 1000 };
	expect_row(db, "thread", 101, "runnable_ns", runnable_101);
	int64_t blocked_101[NR_FIXTURE_BUCKETS] = { [4] = 1000, [5] = 2000, [6] = 300 };
	expect_row(db, "thread", 101, "blocked_ns", blocked_101);
	int64_t sync_ops_101[NR_FIXTURE_BUCKETS] = { [4] = 1, [6] = 1 };
	expect_row(db, "thread", 101, "sync_ops", sync_ops_101);

	/* Thread 101 made no syscall: no rows rather than 30 zeros. */
	cr_assert_eq(db_query_int(db,
				  "SELECT COUNT(*) FROM time_histograms WHERE subject = 'thread' AND subject_id = 101"
				  " AND metric = 'syscalls'",
				  -1),
		     0);

	/* Thread 100 lives the whole run, so in every bucket its three states
	 * add up to the width. */
	cr_assert_eq(db_query_int(db,
				  "SELECT COUNT(*) FROM (SELECT bucket, SUM(value) AS t FROM time_histograms"
				  " WHERE subject = 'thread' AND subject_id = 100 AND metric LIKE '%_ns'"
				  " GROUP BY bucket) WHERE t = 2000",
				  -1),
		     NR_FIXTURE_BUCKETS);
	fixture_close(db, path);
}

Test(analysis, object_histograms_of_the_fixture)
{
	char path[64];
	sqlite3 *db = fixture_histograms(path);

	/* Object 1: ops at 2900 (b1), 8000 and 8900 (b4), 13000 (b6); waits
	 * are the two blocked_sync intervals: [3000, 7500) gives 1000, 2000,
	 * 1500 in b1..b3, [9000, 12300) 1000, 2000, 300 in b4..b6. */
	int64_t ops_1[NR_FIXTURE_BUCKETS] = { [1] = 1, [4] = 2, [6] = 1 };
	expect_row(db, "object", 1, "ops", ops_1);
	int64_t wait_1[NR_FIXTURE_BUCKETS] = { [1] = 1000, [2] = 2000, [3] = 1500, [4] = 1000, [5] = 2000, [6] = 300 };
	expect_row(db, "object", 1, "wait_ns", wait_1);

	/* Object 2: one signal at 45000 (b22), never waited on; object 3
	 * unused: neither has rows it does not need. */
	int64_t ops_2[NR_FIXTURE_BUCKETS] = { [22] = 1 };
	expect_row(db, "object", 2, "ops", ops_2);
	cr_assert_eq(db_query_int(db,
				  "SELECT COUNT(*) FROM time_histograms WHERE subject = 'object'"
				  " AND (subject_id = 3 OR (subject_id = 2 AND metric = 'wait_ns'))",
				  -1),
		     0);
	fixture_close(db, path);
}

Test(analysis, every_row_shares_one_width_and_totals_match_the_tables)
{
	char path[64];
	sqlite3 *db = fixture_histograms(path);

	/* 5 metrics of thread 100, 4 of thread 101, 2 of object 1, 1 of object
	 * 2 (the tests above check each one's rows), over the 30 buckets. */
	cr_assert_eq(db_query_int(db, "SELECT COUNT(DISTINCT subject || subject_id || metric) FROM time_histograms", -1),
		     12);
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM histogram_buckets", -1), 1);
	cr_assert_eq(db_query_int(db, "SELECT origin_ns FROM histogram_buckets", -1), ORIGIN);
	cr_assert_eq(db_query_int(db, "SELECT width_ns FROM histogram_buckets", -1), WIDTH);
	cr_assert_eq(db_query_int(db, "SELECT nr_buckets FROM histogram_buckets", -1), NR_FIXTURE_BUCKETS);
	cr_assert_eq(db_query_int(db, "SELECT COUNT(DISTINCT width_ns) FROM time_histograms", -1), 1);
	cr_assert_eq(db_query_int(db,
				  "SELECT (SELECT SUM(value) FROM time_histograms WHERE metric = 'running_ns')"
				  " = (SELECT SUM(end_ns - start_ns) FROM thread_states WHERE state = 'running')",
				  -1),
		     1);
	cr_assert_eq(db_query_int(db,
				  "SELECT (SELECT SUM(value) FROM time_histograms WHERE metric = 'wait_ns')"
				  " = (SELECT SUM(end_ns - start_ns) FROM thread_states WHERE state = 'blocked_sync')",
				  -1),
		     1);
	cr_assert_eq(db_query_int(db, "SELECT SUM(value) FROM time_histograms WHERE metric = 'ops'", -1),
		     db_query_int(db, "SELECT COUNT(*) FROM sync_ops", -2));
	fixture_close(db, path);
}

Test(analysis, sparkline_draws_a_fixture_row)
{
	char path[64], *text;
	sqlite3 *db = fixture_histograms(path);

	/* Thread 100's syscalls: one each in b10 and b25, both the maximum;
	 * drawn up to b25, or padded to the run's 30 buckets. */
	cr_assert_eq(histogram_register_sql(db), 0);
	text = query_text(db, "SELECT sparkline(bucket, value) FROM time_histograms WHERE subject = 'thread'"
			      " AND subject_id = 100 AND metric = 'syscalls'");
	cr_assert_str_eq(text, "          @              @");
	free(text);
	text = query_text(db, "SELECT sparkline(bucket, value, 30) FROM time_histograms WHERE subject = 'thread'"
			      " AND subject_id = 100 AND metric = 'syscalls'");
	cr_assert_str_eq(text, "          @              @    ");
	free(text);
	fixture_close(db, path);
}

Test(analysis, a_run_without_threads_has_no_histograms)
{
	char path[64], *err = NULL;
	sqlite3 *db = fixture_histograms(path);
	cr_assert_eq(db_exec(db, "DELETE FROM time_histograms; DELETE FROM histogram_buckets; DELETE FROM threads", &err),
		     0, "%s", err);
	fixture_analyse(db, analysis_histograms);
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM time_histograms", -1), 0);
	cr_assert_eq(db_query_int(db, "SELECT COUNT(*) FROM histogram_buckets", -1), 0);
	fixture_close(db, path);
}
