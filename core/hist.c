/*
 * hist.c - the log-linear latency histogram behind every latency figure.
 *
 * Bucket index of a value v: v itself below 2^HIST_SUB_BITS; above, with m
 * the position of v's top bit, ((m - 7) << 7) + (v >> (m - 7)), i.e. the
 * top eight bits of v pick one of 128 equal slices of [2^m, 2^(m+1)). That
 * costs one count-leading-zeros and two shifts, no division, because
 * hist_record() runs once per I/O. Exact min, max, sum and sum of squares
 * are kept beside the buckets so mean and stddev carry no bucket error.
 * The JSON form holds non-empty buckets only, so a microsecond workload
 * writes a few hundred pairs, not the whole layout; its sum of squares is a
 * JSON real, the one field that loses bits (about 1e-16 of itself).
 */
#include "core/hist.h"
#include "core/log.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HIST_LIN_MAX   (1ull << HIST_SUB_BITS) /* first value of the log part */
#define HIST_SUB_SHIFT (HIST_SUB_BITS - 1)     /* log2 of slices per power */
#define HIST_SUB_COUNT (1u << HIST_SUB_SHIFT)  /* slices per power of two */
#define HIST_TOP_BIT   41                      /* top bit of HIST_MAX_NS - 1 */
#define HIST_NBUCKETS  (((HIST_TOP_BIT - HIST_SUB_SHIFT + 1) << HIST_SUB_SHIFT) + HIST_SUB_COUNT)

_Static_assert(HIST_MAX_NS == 1ull << (HIST_TOP_BIT + 1), "HIST_TOP_BIT must follow HIST_MAX_NS");

__extension__ typedef unsigned __int128 hist_u128;

struct hist {
        uint64_t count;
        uint64_t min; /* UINT64_MAX while empty */
        uint64_t max;
        uint64_t sum;
        /*
         * Exact like sum: a 128-bit add is cheaper than a long double one
         * (1.8 vs 8 ns per record here), and it holds 2^44 values of
         * HIST_MAX_NS before it could wrap.
         */
        hist_u128 sumsq;
        uint64_t buckets[HIST_NBUCKETS];
};

static inline unsigned bucket_of(uint64_t ns)
{
        unsigned shift;

        if (ns < HIST_LIN_MAX)
                return (unsigned)ns;
        if (ns >= HIST_MAX_NS)
                return HIST_NBUCKETS - 1;
        shift = 63 - (unsigned)__builtin_clzll(ns) - HIST_SUB_SHIFT;
        return (shift << HIST_SUB_SHIFT) + (unsigned)(ns >> shift);
}

unsigned hist_bucket_of(uint64_t ns)
{
        return bucket_of(ns);
}

unsigned hist_nbuckets(void)
{
        return HIST_NBUCKETS;
}

/* An index past the layout is read as the last bucket, like a clamped value. */
void hist_bucket_range(unsigned idx, uint64_t *lo, uint64_t *hi)
{
        unsigned shift;

        if (idx >= HIST_NBUCKETS)
                idx = HIST_NBUCKETS - 1;
        if (idx < HIST_LIN_MAX) {
                *lo = idx;
                *hi = idx;
                return;
        }
        shift = (idx >> HIST_SUB_SHIFT) - 1;
        *lo = (uint64_t)(HIST_SUB_COUNT + (idx & (HIST_SUB_COUNT - 1))) << shift;
        *hi = *lo + (1ull << shift) - 1;
}

void hist_reset(struct hist *h)
{
        memset(h, 0, sizeof(*h));
        h->min = UINT64_MAX;
}

struct hist *hist_new(void)
{
        struct hist *h = malloc(sizeof(*h));

        if (h)
                hist_reset(h);
        return h;
}

void hist_free(struct hist *h)
{
        free(h);
}

void hist_record(struct hist *h, uint64_t ns)
{
        h->buckets[bucket_of(ns)]++;
        h->count++;
        h->sum += ns;
        h->sumsq += (hist_u128)ns * ns;
        if (ns < h->min)
                h->min = ns;
        if (ns > h->max)
                h->max = ns;
}

void hist_record_n(struct hist *h, uint64_t ns, uint64_t count)
{
        if (!count)
                return;
        h->buckets[bucket_of(ns)] += count;
        h->count += count;
        h->sum += ns * count;
        h->sumsq += (hist_u128)ns * ns * count;
        if (ns < h->min)
                h->min = ns;
        if (ns > h->max)
                h->max = ns;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
        unsigned i;

        for (i = 0; i < HIST_NBUCKETS; i++)
                dst->buckets[i] += src->buckets[i];
        dst->count += src->count;
        dst->sum += src->sum;
        dst->sumsq += src->sumsq;
        if (src->min < dst->min)
                dst->min = src->min;
        if (src->max > dst->max)
                dst->max = src->max;
}

uint64_t hist_count(const struct hist *h)
{
        return h->count;
}

uint64_t hist_min(const struct hist *h)
{
        return h->count ? h->min : 0;
}

uint64_t hist_max(const struct hist *h)
{
        return h->max;
}

double hist_mean(const struct hist *h)
{
        return h->count ? (double)h->sum / (double)h->count : 0.0;
}

double hist_stddev(const struct hist *h)
{
        long double n, mean, var;

        if (!h->count)
                return 0.0;
        n = (long double)h->count;
        mean = (long double)h->sum / n;
        var = (long double)h->sumsq / n - mean * mean;
        /* rounding can push a zero variance slightly negative */
        return var > 0 ? sqrt((double)var) : 0.0;
}

/*
 * ceil(pct/100 * count), with products that are integers up to rounding
 * (99.9% of 1000 computes as 999.0000000000001) snapped to that integer.
 */
static uint64_t percentile_rank(double pct, uint64_t count)
{
        double r = pct / 100.0 * (double)count;
        double near = nearbyint(r);

        if (fabs(r - near) <= 1e-9 * (near > 1.0 ? near : 1.0))
                r = near;
        r = ceil(r);
        if (r < 1.0)
                return 1;
        if (r >= (double)count)
                return count;
        return (uint64_t)r;
}

uint64_t hist_percentile(const struct hist *h, double pct)
{
        uint64_t rank, seen = 0, lo, hi, mid;
        unsigned i;

        if (!h->count)
                return 0;
        rank = percentile_rank(pct, h->count);
        for (i = 0; i < HIST_NBUCKETS - 1; i++) {
                seen += h->buckets[i];
                if (seen >= rank)
                        break;
        }
        hist_bucket_range(i, &lo, &hi);
        mid = lo + (hi - lo) / 2;
        if (mid < h->min)
                return h->min;
        if (mid > h->max)
                return h->max;
        return mid;
}

/* JSON integers are signed 64-bit; nothing real reaches 2^63 ns (292 years). */
static json_t *json_u64(uint64_t v)
{
        return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
}

static json_t *buckets_to_json(const struct hist *h)
{
        json_t *arr = json_array(), *pair;
        unsigned i;

        if (!arr)
                return NULL;
        for (i = 0; i < HIST_NBUCKETS; i++) {
                if (!h->buckets[i])
                        continue;
                pair = json_pack("[Io]", (json_int_t)i, json_u64(h->buckets[i]));
                if (json_array_append_new(arr, pair)) {
                        json_decref(arr);
                        return NULL;
                }
        }
        return arr;
}

json_t *hist_to_json(const struct hist *h)
{
        json_t *buckets = buckets_to_json(h);

        if (!buckets)
                return NULL;
        return json_pack("{s:s, s:o, s:o, s:o, s:o, s:f, s:o}", "layout", HIST_LAYOUT, "count",
                         json_u64(h->count), "min", json_u64(hist_min(h)), "max", json_u64(h->max),
                         "sum", json_u64(h->sum), "sumsq", (double)h->sumsq, "buckets", buckets);
}

/* The totals of a hist JSON object, read and checked before h is touched. */
struct hist_json_head {
        uint64_t count, min, max, sum;
        hist_u128 sumsq;
        const json_t *buckets;
};

static int get_u64(const json_t *j, const char *key, uint64_t *v, char *err, size_t errlen)
{
        const json_t *x = json_object_get(j, key);

        if (!json_is_integer(x) || json_integer_value(x) < 0)
                return errf(err, errlen, -EINVAL,
                            "histogram: \"%s\" must be a non-negative integer", key);
        *v = (uint64_t)json_integer_value(x);
        return 0;
}

static int read_head(const json_t *j, struct hist_json_head *hd, char *err, size_t errlen)
{
        const json_t *layout, *sumsq;

        if (!json_is_object(j))
                return errf(err, errlen, -EINVAL, "histogram: not a JSON object");
        layout = json_object_get(j, "layout");
        if (!json_is_string(layout))
                return errf(err, errlen, -EINVAL, "histogram: no \"layout\" string");
        if (strcmp(json_string_value(layout), HIST_LAYOUT))
                return errf(err, errlen, -EINVAL, "histogram: layout \"%s\" is not \"%s\"",
                            json_string_value(layout), HIST_LAYOUT);
        if (get_u64(j, "count", &hd->count, err, errlen) ||
            get_u64(j, "min", &hd->min, err, errlen) || get_u64(j, "max", &hd->max, err, errlen) ||
            get_u64(j, "sum", &hd->sum, err, errlen))
                return -EINVAL;
        sumsq = json_object_get(j, "sumsq");
        /* the upper bound keeps the conversion to 128 bits defined */
        if (!json_is_number(sumsq) || !(json_number_value(sumsq) >= 0) ||
            !(json_number_value(sumsq) < 0x1p128))
                return errf(err, errlen, -EINVAL,
                            "histogram: \"sumsq\" must be a number in 0..2^128");
        hd->sumsq = (hist_u128)json_number_value(sumsq);
        hd->buckets = json_object_get(j, "buckets");
        if (!json_is_array(hd->buckets))
                return errf(err, errlen, -EINVAL, "histogram: \"buckets\" must be an array");
        if (hd->count && hd->min > hd->max)
                return errf(err, errlen, -EINVAL, "histogram: min %llu is above max %llu",
                            (unsigned long long)hd->min, (unsigned long long)hd->max);
        return 0;
}

static int read_pair(const json_t *pair, size_t k, unsigned *idx, uint64_t *n, char *err,
                     size_t errlen)
{
        const json_t *ji = json_array_get(pair, 0), *jn = json_array_get(pair, 1);

        if (!json_is_array(pair) || json_array_size(pair) != 2 || !json_is_integer(ji) ||
            !json_is_integer(jn))
                return errf(err, errlen, -EINVAL,
                            "histogram: bucket entry %zu is not [index,count]", k);
        if (json_integer_value(ji) < 0 || json_integer_value(ji) >= HIST_NBUCKETS)
                return errf(err, errlen, -EINVAL, "histogram: bucket index %lld out of range 0..%u",
                            (long long)json_integer_value(ji), HIST_NBUCKETS - 1);
        if (json_integer_value(jn) <= 0)
                return errf(err, errlen, -EINVAL, "histogram: bucket %lld has count %lld",
                            (long long)json_integer_value(ji), (long long)json_integer_value(jn));
        *idx = (unsigned)json_integer_value(ji);
        *n = (uint64_t)json_integer_value(jn);
        return 0;
}

/* Bucket counts must add up to count, and min/max must sit in the end buckets. */
static int check_buckets(const struct hist_json_head *hd, char *err, size_t errlen)
{
        uint64_t total = 0, n;
        unsigned idx, first = HIST_NBUCKETS, last = 0;
        size_t k;

        for (k = 0; k < json_array_size(hd->buckets); k++) {
                if (read_pair(json_array_get(hd->buckets, k), k, &idx, &n, err, errlen))
                        return -EINVAL;
                if (__builtin_add_overflow(total, n, &total)) /* a wrapped sum would pass */
                        return errf(err, errlen, -EINVAL, "histogram: bucket counts overflow");
                first = idx < first ? idx : first;
                last = idx > last ? idx : last;
        }
        if (total != hd->count)
                return errf(err, errlen, -EINVAL,
                            "histogram: buckets hold %llu values, count is %llu",
                            (unsigned long long)total, (unsigned long long)hd->count);
        if (hd->count && (bucket_of(hd->min) != first || bucket_of(hd->max) != last))
                return errf(err, errlen, -EINVAL, "histogram: min/max do not match the buckets");
        return 0;
}

int hist_add_json(struct hist *h, const json_t *j, char *err, size_t errlen)
{
        struct hist_json_head hd = {0};
        uint64_t n;
        unsigned idx;
        size_t k;

        if (read_head(j, &hd, err, errlen) || check_buckets(&hd, err, errlen))
                return -EINVAL;
        if (!hd.count)
                return 0;
        if (hd.count > UINT64_MAX - h->count)
                return errf(err, errlen, -ERANGE, "histogram: merged count overflows");
        for (k = 0; k < json_array_size(hd.buckets); k++) {
                read_pair(json_array_get(hd.buckets, k), k, &idx, &n, NULL, 0);
                h->buckets[idx] += n;
        }
        h->count += hd.count;
        h->sum += hd.sum;
        h->sumsq += hd.sumsq;
        if (hd.min < h->min)
                h->min = hd.min;
        if (hd.max > h->max)
                h->max = hd.max;
        return 0;
}

/* "50.0", "99.9", "99.99": one decimal at least, more only when pct needs them. */
static void pct_key(double pct, char *buf, size_t len)
{
        int prec;

        for (prec = 1; prec < 17; prec++) {
                snprintf(buf, len, "%.*f", prec, pct);
                if (strtod(buf, NULL) == pct)
                        return;
        }
}

json_t *hist_lat_json(const struct hist *h, const double *pcts, unsigned npct)
{
        json_t *pj = json_object(), *j;
        char key[64];
        unsigned i;

        if (!pj)
                return NULL;
        for (i = 0; i < npct; i++) {
                pct_key(pcts[i], key, sizeof(key));
                if (json_object_set_new(pj, key, json_u64(hist_percentile(h, pcts[i])))) {
                        json_decref(pj);
                        return NULL;
                }
        }
        j = json_pack("{s:o, s:o, s:f, s:f, s:o}", "min", json_u64(hist_min(h)), "max",
                      json_u64(hist_max(h)), "mean", hist_mean(h), "stddev", hist_stddev(h),
                      "percentile", pj);
        return j;
}
