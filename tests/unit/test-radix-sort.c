/*
 * tests/unit/test-radix-sort.c - src/radix-sort.c against qsort with a
 * comparison that breaks ties by the original position: the same order,
 * for signed keys of each width, several keys, passes skipped for bytes all
 * keys share, and record sizes with and without the fixed-size copy.
 */
#include "config.h"
#include "src/radix-sort.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* 32 bytes, as sync_resolve's lock events. */
struct rec32 {
	int64_t ts, pos;
	int32_t object, pad;
	int8_t type;
	char rest[7];
};

/* 24 bytes: the general copy. */
struct rec24 {
	int16_t a;
	int64_t b, pos;
};

static uint64_t seed = 88172645463325252ull;
static uint64_t next_random(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

static int cmp32(const void *x, const void *y)
{
	const struct rec32 *a = x, *b = y;
	int c = CMP(a->object, b->object);
	c = c ? c : CMP(a->ts, b->ts);
	c = c ? c : CMP(a->type, b->type);
	return c ? c : CMP(a->pos, b->pos);
}

static int cmp24(const void *x, const void *y)
{
	const struct rec24 *a = x, *b = y;
	int c = CMP(a->a, b->a);
	c = c ? c : CMP(a->b, b->b);
	return c ? c : CMP(a->pos, b->pos);
}

Test(radix_sort, three_keys_as_order_by_and_ties_in_place)
{
	enum { N = 20000 };
	struct rec32 *v = calloc(N, sizeof(*v)), *want = calloc(N, sizeof(*want));
	const struct radix_key keys[] = {
		RADIX_KEY(struct rec32, object), RADIX_KEY(struct rec32, ts), RADIX_KEY(struct rec32, type),
	};
	for (int i = 0; i < N; i++) {
		/* times share their high bytes (passes skipped), objects are few
		 * and some negative, types have ties */
		v[i].ts = 1000000000000ll + (int64_t)(next_random() % 5000);
		v[i].object = (int32_t)(next_random() % 40) - 5;
		v[i].type = (int8_t)(next_random() % 3);
		v[i].pos = i;
	}
	memcpy(want, v, N * sizeof(*v));
	qsort(want, N, sizeof(*want), cmp32);
	cr_assert_eq(radix_sort(v, N, sizeof(*v), keys, 3), 0);
	for (int i = 0; i < N; i++)
		cr_assert_eq(v[i].pos, want[i].pos, "record %d: position %lld, qsort's %lld", i, (long long)v[i].pos,
			     (long long)want[i].pos);
	free(v);
	free(want);
}

Test(radix_sort, full_range_signed_keys_of_other_sizes)
{
	enum { N = 5000 };
	struct rec24 *v = calloc(N, sizeof(*v)), *want = calloc(N, sizeof(*want));
	const struct radix_key keys[] = { RADIX_KEY(struct rec24, a), RADIX_KEY(struct rec24, b) };
	for (int i = 0; i < N; i++) {
		v[i].a = (int16_t)(next_random() % 7) - 3;
		v[i].b = (int64_t)next_random(); /* any sign, any byte */
		if (i % 10 == 0)
			v[i].b = i % 20 ? INT64_MIN : INT64_MAX;
		v[i].pos = i;
	}
	memcpy(want, v, N * sizeof(*v));
	qsort(want, N, sizeof(*want), cmp24);
	cr_assert_eq(radix_sort(v, N, sizeof(*v), keys, 2), 0);
	for (int i = 0; i < N; i++)
		cr_assert_eq(v[i].pos, want[i].pos, "record %d", i);
	free(v);
	free(want);
}

Test(radix_sort, nothing_one_and_already_sorted)
{
	struct rec32 one = { .ts = -7, .pos = 0 }, two[2] = { { .ts = 1, .pos = 0 }, { .ts = 1, .pos = 1 } };
	const struct radix_key key = RADIX_KEY(struct rec32, ts);
	cr_assert_eq(radix_sort(NULL, 0, sizeof(one), &key, 1), 0);
	cr_assert_eq(radix_sort(&one, 1, sizeof(one), &key, 1), 0);
	cr_assert_eq(one.ts, -7);
	/* equal keys: every byte shared, no pass, both in place */
	cr_assert_eq(radix_sort(two, 2, sizeof(two[0]), &key, 1), 0);
	cr_assert_eq(two[0].pos, 0);
	cr_assert_eq(two[1].pos, 1);
}
