/*
 * src/derived/histogram.h - bounded time histograms (seeds 002/003, after Paradyn's
 * time histograms): a fixed number of buckets from an origin, whose width
 * doubles whenever something falls beyond the last bucket, so a histogram
 * stays the same size however long the run. Doubling folds each pair of
 * buckets into one; the origin never moves, so the buckets of two histograms
 * with the same origin line up once folded to the same width.
 */
#ifndef MTX_HISTOGRAM_H
#define MTX_HISTOGRAM_H

#include <sqlite3.h>
#include <stdint.h>

/* Buckets per histogram; even, so that doubling folds them in pairs. 32:
 * the histogram report's line of an object (pid, address, kind, metric,
 * peak and one character a bucket) then fits 80 columns. */
#define MTX_HISTOGRAM_BUCKETS 32

struct mtx_histogram {
	int64_t start_ns;  /* origin: bucket i is [start_ns + i*width_ns, + width_ns) */
	int64_t width_ns;  /* the initial width times a power of two */
	int64_t value[MTX_HISTOGRAM_BUCKETS];
	/* Points and intervals (whole or in part) before start_ns: not added,
	 * only counted, as perf counts the events it cannot place. */
	int64_t nr_dropped;
};

/* histogram_init - an empty histogram from @start_ns with buckets
 * @width_ns wide (> 0) until something falls beyond the last one. */
void histogram_init(struct mtx_histogram *h, int64_t start_ns, int64_t width_ns);

/* histogram_extend - double the bucket width as often as needed for @ts_ns
 * to fall in a bucket (nothing is added). */
void histogram_extend(struct mtx_histogram *h, int64_t ts_ns);

/* histogram_add - add @value to the bucket holding the instant @ts_ns. */
void histogram_add(struct mtx_histogram *h, int64_t ts_ns, int64_t value);

/*
 * histogram_add_interval - add the time of [@start_ns, @end_ns) to the
 * buckets it covers, each the nanoseconds of it that fall inside the bucket,
 * so the buckets gain exactly end - start in all. An empty or reversed
 * interval adds nothing.
 */
void histogram_add_interval(struct mtx_histogram *h, int64_t start_ns, int64_t end_ns);

/*
 * histogram_spread - add the time of [@start_ns, @end_ns) to @value, the
 * @nr_buckets buckets @width_ns wide from @origin_ns, each the nanoseconds
 * of it inside the bucket; what lies outside them is left out.
 */
void histogram_spread(int64_t *value, int nr_buckets, int64_t origin_ns, int64_t width_ns, int64_t start_ns,
		      int64_t end_ns);

/*
 * histogram_fold_to - double the bucket width until it is @width_ns.
 * Returns 0, or -EINVAL (and leaves @h alone) when @width_ns is not the
 * current width times a power of two.
 */
int histogram_fold_to(struct mtx_histogram *h, int64_t width_ns);

/* histogram_width_ns - the current bucket width. */
static inline int64_t histogram_width_ns(const struct mtx_histogram *h)
{
	return h->width_ns;
}

/* histogram_bucket_start_ns - where bucket @i (0 .. MTX_HISTOGRAM_BUCKETS-1)
 * begins. */
static inline int64_t histogram_bucket_start_ns(const struct mtx_histogram *h, int i)
{
	return h->start_ns + i * h->width_ns;
}

/* histogram_value - the value of bucket @i (0 .. MTX_HISTOGRAM_BUCKETS-1). */
static inline int64_t histogram_value(const struct mtx_histogram *h, int i)
{
	return h->value[i];
}

/* histogram_ramp - how a bucket of @v draws in a sparkline whose largest
 * bucket is @max: ' ' for none, then ".:-=+*#%", '@' for the largest. */
char histogram_ramp(int64_t v, int64_t max);

/* histogram_is_empty - whether every bucket is zero. */
int histogram_is_empty(const struct mtx_histogram *h);

/*
 * histogram_register_sql - register on @db the SQL aggregate
 * sparkline(bucket, value): one character per bucket 0 .. the highest seen
 * (MTX_HISTOGRAM_BUCKETS at most), from the ramp " .:-=+*#%@" scaled to the
 * group's largest value: 0 (or less) is a space, the largest '@', any other
 * positive value at least '.'. Values of a bucket given twice are summed;
 * rows whose bucket is out of range or NULL are ignored. And
 * sparkline_peak(bucket, value): that largest value (a bucket's sum), what
 * '@' stands for. Returns 0 or -EIO.
 */
int histogram_register_sql(sqlite3 *db);

#endif
