/*
 * hist.h - log-linear latency histogram.
 *
 * Values are integer nanoseconds. The layout is fixed (HIST_LAYOUT): values
 * below 2^HIST_SUB_BITS get one bucket each; above that, every power of two
 * is split into 2^(HIST_SUB_BITS-1) equal buckets, so any value is known to
 * within 1/2^(HIST_SUB_BITS-1) < 1% of itself. Values past HIST_MAX_NS are
 * clamped into the last bucket (and still counted in min/max/mean exactly).
 *
 * Because the layout is fixed, two histograms merge by adding bucket counts,
 * which is how per-thread, per-connection, per-VM and per-run latencies
 * are combined. A percentile is always read from a (merged) histogram, never
 * averaged from other percentiles.
 *
 * A struct hist is not thread-safe: keep one per thread and merge them.
 */
#ifndef HCI_HIST_H
#define HCI_HIST_H

#include <stdint.h>
#include <jansson.h>

#define HIST_SUB_BITS 8
#define HIST_LAYOUT   "loglin-8"
#define HIST_MAX_NS   (1ull << 42) /* ~73 minutes */

struct hist;

/* New empty histogram (calloc'd), or NULL on ENOMEM. Caller owns it. */
struct hist *hist_new(void);
void hist_free(struct hist *h);
void hist_reset(struct hist *h);

/* Record one value / count values. Hot path: no allocation, no lock. */
void hist_record(struct hist *h, uint64_t ns);
void hist_record_n(struct hist *h, uint64_t ns, uint64_t count);

/* dst += src, bucket by bucket (also min, max, sum, sum of squares). */
void hist_merge(struct hist *dst, const struct hist *src);

uint64_t hist_count(const struct hist *h);
uint64_t hist_min(const struct hist *h); /* 0 when empty */
uint64_t hist_max(const struct hist *h);
double hist_mean(const struct hist *h);   /* exact (from the running sum) */
double hist_stddev(const struct hist *h); /* population stddev, exact sums */

/*
 * Value at percentile pct (0 < pct <= 100): the smallest bucket whose
 * cumulative count reaches ceil(pct/100 * count), reported as that bucket's
 * midpoint clamped into [min, max]. 0 when empty.
 */
uint64_t hist_percentile(const struct hist *h, double pct);

/* Bucket index of a value and the [lo, hi] range a bucket covers (for tests/plots). */
unsigned hist_bucket_of(uint64_t ns);
unsigned hist_nbuckets(void);
void hist_bucket_range(unsigned idx, uint64_t *lo, uint64_t *hi);

/*
 * Raw buckets as JSON: {"layout":"loglin-8","count":N,"min":..,"max":..,
 * "sum":..,"sumsq":..,"buckets":[[index,count],...]} (non-empty buckets only).
 * Returns a new reference or NULL on ENOMEM.
 */
json_t *hist_to_json(const struct hist *h);

/* Add the buckets of a hist_to_json() object into h. 0, or -EINVAL with err set. */
int hist_add_json(struct hist *h, const json_t *j, char *err, size_t errlen);

/*
 * The lat_ns object of the README's JSON: {"min","max","mean","stddev",
 * "percentile":{"50.0":v,...}} for the npct percentiles in pcts[].
 */
json_t *hist_lat_json(const struct hist *h, const double *pcts, unsigned npct);

#endif
