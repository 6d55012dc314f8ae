/*
 * test_hist.c - the latency histogram against exact answers: percentiles
 * against a sorted copy of the same random samples, merging against
 * recording everything into one histogram, the JSON form against itself,
 * and the bucket layout against its own promise of <= 1% relative width.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/hist.h"

#define NSAMPLES 200000

static const double test_pcts[] = {0.001, 0.1, 1,  5,    10,   25,    50, 75,
                                   90,    95,  99, 99.5, 99.9, 99.99, 100};
#define NPCTS (sizeof(test_pcts) / sizeof(test_pcts[0]))

/* xorshift64*: fixed seeds, so a failure reproduces */
static uint64_t rng_state;

static uint64_t rng_next(void)
{
        rng_state ^= rng_state >> 12;
        rng_state ^= rng_state << 25;
        rng_state ^= rng_state >> 27;
        return rng_state * 0x2545F4914F6CDD1Dull;
}

static double rng_unit(void)
{
        return (double)(rng_next() >> 11) * 0x1p-53;
}

static double rng_normal(void)
{
        double u1 = rng_unit() + 0x1p-60, u2 = rng_unit();

        return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

enum dist { DIST_UNIFORM_SMALL, DIST_UNIFORM, DIST_LOGNORMAL, DIST_LOGUNIFORM, DIST_BIMODAL };

static uint64_t sample(enum dist d)
{
        switch (d) {
        case DIST_UNIFORM_SMALL: /* the exact one-per-value region and just above */
                return rng_next() % 600;
        case DIST_UNIFORM: /* flat 0..2 ms */
                return rng_next() % 2000000;
        case DIST_LOGNORMAL: /* ~200 us median with a long right tail */
                return (uint64_t)exp(log(200000.0) + 1.2 * rng_normal());
        case DIST_LOGUNIFORM: /* 1 ns to ~30 s, every decade alike */
                return (uint64_t)pow(10.0, rng_unit() * 10.5);
        case DIST_BIMODAL: /* cache hits and disk reads */
                return rng_next() % 10 ? 20000 + rng_next() % 5000 : 8000000 + rng_next() % 4000000;
        }
        return 0;
}

static int cmp_u64(const void *a, const void *b)
{
        uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

        return x < y ? -1 : x > y;
}

/* The oracle: the sample at rank ceil(p/100*n) of the sorted samples. */
static uint64_t oracle(const uint64_t *sorted, size_t n, double pct)
{
        double r = pct / 100.0 * (double)n, near = nearbyint(r);
        size_t rank;

        if (fabs(r - near) < 1e-9 * (near > 1 ? near : 1))
                r = near;
        rank = (size_t)ceil(r);
        if (rank < 1)
                rank = 1;
        if (rank > n)
                rank = n;
        return sorted[rank - 1];
}

static uint64_t *fill(enum dist d, size_t n, uint64_t seed)
{
        uint64_t *v = malloc(n * sizeof(*v));
        size_t i;

        assert_non_null(v);
        rng_state = seed;
        for (i = 0; i < n; i++)
                v[i] = sample(d);
        return v;
}

static void check_percentiles(enum dist d, uint64_t seed)
{
        uint64_t *v = fill(d, NSAMPLES, seed);
        struct hist *h = hist_new();
        uint64_t got, want;
        long double sum = 0;
        size_t i;

        assert_non_null(h);
        for (i = 0; i < NSAMPLES; i++) {
                hist_record(h, v[i]);
                sum += v[i];
        }
        qsort(v, NSAMPLES, sizeof(*v), cmp_u64);
        assert_int_equal(hist_count(h), NSAMPLES);
        assert_int_equal(hist_min(h), v[0]);
        assert_int_equal(hist_max(h), v[NSAMPLES - 1]);
        assert_true(fabs(hist_mean(h) - (double)(sum / NSAMPLES)) <= 1e-9 * hist_mean(h));
        for (i = 0; i < NPCTS; i++) {
                got = hist_percentile(h, test_pcts[i]);
                want = oracle(v, NSAMPLES, test_pcts[i]);
                if (fabs((double)got - (double)want) > 0.01 * (double)want)
                        fail_msg("dist %d p%g: histogram %llu, exact %llu", d, test_pcts[i],
                                 (unsigned long long)got, (unsigned long long)want);
        }
        hist_free(h);
        free(v);
}

static void test_percentiles_uniform(void **state)
{
        (void)state;
        check_percentiles(DIST_UNIFORM_SMALL, 1);
        check_percentiles(DIST_UNIFORM, 2);
}

static void test_percentiles_skewed(void **state)
{
        (void)state;
        check_percentiles(DIST_LOGNORMAL, 3);
        check_percentiles(DIST_BIMODAL, 4);
}

static void test_percentiles_wide(void **state)
{
        (void)state;
        check_percentiles(DIST_LOGUNIFORM, 5);
        check_percentiles(DIST_LOGUNIFORM, 6);
}

/* A tiny set where every rank is known by hand. */
static void test_percentile_definition(void **state)
{
        struct hist *h = hist_new();
        uint64_t i;

        (void)state;
        for (i = 1; i <= 10; i++)
                hist_record(h, i * 10);
        assert_int_equal(hist_percentile(h, 10), 10);
        assert_int_equal(hist_percentile(h, 10.0001), 20);
        assert_int_equal(hist_percentile(h, 50), 50);
        assert_int_equal(hist_percentile(h, 90), 90);
        assert_int_equal(hist_percentile(h, 99.9), 100);
        assert_int_equal(hist_percentile(h, 100), 100);
        /* 99.9% of 1000 must be rank 999, not 1000 through rounding */
        hist_reset(h);
        hist_record_n(h, 10, 999);
        hist_record(h, 200);
        assert_int_equal(hist_percentile(h, 99.9), 10);
        assert_int_equal(hist_percentile(h, 99.91), 200);
        assert_int_equal(hist_percentile(h, 0.1), 10);
        hist_free(h);
}

static json_t *buckets_of(const struct hist *h)
{
        json_t *j = hist_to_json(h), *b;

        assert_non_null(j);
        b = json_incref(json_object_get(j, "buckets"));
        json_decref(j);
        return b;
}

static void assert_same_hist(const struct hist *a, const struct hist *b)
{
        json_t *ba = buckets_of(a), *bb = buckets_of(b);

        assert_true(json_equal(ba, bb));
        assert_int_equal(hist_count(a), hist_count(b));
        assert_int_equal(hist_min(a), hist_min(b));
        assert_int_equal(hist_max(a), hist_max(b));
        assert_true(hist_mean(a) == hist_mean(b));
        assert_true(fabs(hist_stddev(a) - hist_stddev(b)) <= 1e-9 * hist_stddev(a));
        json_decref(ba);
        json_decref(bb);
}

static void test_merge_equals_concatenation(void **state)
{
        enum dist dists[3] = {DIST_LOGNORMAL, DIST_LOGUNIFORM, DIST_UNIFORM_SMALL};
        struct hist *all = hist_new(), *part[3], *merged = hist_new();
        uint64_t *v;
        size_t i, k;

        (void)state;
        assert_non_null(all);
        assert_non_null(merged);
        for (k = 0; k < 3; k++) {
                part[k] = hist_new();
                assert_non_null(part[k]);
                v = fill(dists[k], 50000, 100 + k);
                for (i = 0; i < 50000; i++) {
                        hist_record(part[k], v[i]);
                        hist_record(all, v[i]);
                }
                free(v);
        }
        for (k = 0; k < 3; k++)
                hist_merge(merged, part[k]);
        assert_same_hist(all, merged);
        /* merging an empty histogram changes nothing, min included */
        hist_reset(part[0]);
        hist_merge(merged, part[0]);
        assert_same_hist(all, merged);
        for (k = 0; k < 3; k++)
                hist_free(part[k]);
        hist_free(all);
        hist_free(merged);
}

static void test_record_n(void **state)
{
        struct hist *a = hist_new(), *b = hist_new();
        unsigned i;

        (void)state;
        for (i = 0; i < 7; i++)
                hist_record(a, 123456);
        hist_record(a, 9);
        hist_record_n(b, 123456, 7);
        hist_record_n(b, 9, 1);
        hist_record_n(b, 5, 0);
        assert_same_hist(a, b);
        assert_int_equal(hist_min(b), 9);
        hist_free(a);
        hist_free(b);
}

static void test_json_round_trip(void **state)
{
        struct hist *h = hist_new(), *back = hist_new();
        json_t *j, *j2;
        char err[256] = "";
        uint64_t *v = fill(DIST_LOGUNIFORM, 20000, 7);
        size_t i;

        (void)state;
        for (i = 0; i < 20000; i++)
                hist_record(h, v[i]);
        hist_record(h, HIST_MAX_NS * 3); /* clamped values survive too */
        j = hist_to_json(h);
        assert_non_null(j);
        assert_string_equal(json_string_value(json_object_get(j, "layout")), HIST_LAYOUT);
        assert_int_equal(hist_add_json(back, j, err, sizeof(err)), 0);
        assert_same_hist(h, back);
        for (i = 0; i < NPCTS; i++)
                assert_int_equal(hist_percentile(h, test_pcts[i]),
                                 hist_percentile(back, test_pcts[i]));
        j2 = hist_to_json(back);
        assert_true(json_equal(j, j2));
        /* adding the same JSON again doubles every bucket */
        assert_int_equal(hist_add_json(back, j, err, sizeof(err)), 0);
        hist_merge(h, h);
        assert_same_hist(h, back);
        json_decref(j);
        json_decref(j2);
        free(v);
        hist_free(h);
        hist_free(back);
}

static void test_json_sparse(void **state)
{
        struct hist *h = hist_new();
        json_t *j, *b;

        (void)state;
        hist_record(h, 5);
        hist_record(h, 5);
        hist_record(h, 1000000);
        j = hist_to_json(h);
        b = json_object_get(j, "buckets");
        assert_int_equal(json_array_size(b), 2);
        assert_int_equal(json_integer_value(json_array_get(json_array_get(b, 0), 0)), 5);
        assert_int_equal(json_integer_value(json_array_get(json_array_get(b, 0), 1)), 2);
        assert_int_equal(json_integer_value(json_array_get(json_array_get(b, 1), 0)),
                         hist_bucket_of(1000000));
        assert_int_equal(json_integer_value(json_object_get(j, "sum")), 1000010);
        assert_true(json_number_value(json_object_get(j, "sumsq")) == 1e12 + 50);
        json_decref(j);
        hist_free(h);
}

/* Each bad input, and a word its error message must contain. */
static const struct {
        const char *json, *why;
} bad_json[] = {
    {"[]", "object"},
    {"{\"count\":0,\"min\":0,\"max\":0,\"sum\":0,\"sumsq\":0,\"buckets\":[]}", "layout"},
    {"{\"layout\":\"loglin-7\",\"count\":0,\"min\":0,\"max\":0,\"sum\":0,\"sumsq\":0,"
     "\"buckets\":[]}",
     "loglin-7"},
    {"{\"layout\":\"loglin-8\",\"count\":1,\"min\":5,\"max\":5,\"sum\":5,\"sumsq\":25,"
     "\"buckets\":[[4608,1]]}",
     "index 4608"},
    {"{\"layout\":\"loglin-8\",\"count\":1,\"min\":5,\"max\":5,\"sum\":5,\"sumsq\":25,"
     "\"buckets\":[[-1,1]]}",
     "index -1"},
    {"{\"layout\":\"loglin-8\",\"count\":1,\"min\":5,\"max\":5,\"sum\":5,\"sumsq\":25,"
     "\"buckets\":[[5]]}",
     "[index,count]"},
    {"{\"layout\":\"loglin-8\",\"count\":1,\"min\":5,\"max\":5,\"sum\":5,\"sumsq\":25,"
     "\"buckets\":[[5,\"1\"]]}",
     "[index,count]"},
    {"{\"layout\":\"loglin-8\",\"count\":1,\"min\":5,\"max\":5,\"sum\":5,\"sumsq\":25,"
     "\"buckets\":[[5,0],[5,1]]}",
     "count 0"},
    {"{\"layout\":\"loglin-8\",\"count\":2,\"min\":5,\"max\":5,\"sum\":10,\"sumsq\":50,"
     "\"buckets\":[[5,1]]}",
     "hold 1"},
    {"{\"layout\":\"loglin-8\",\"count\":1,\"min\":6,\"max\":5,\"sum\":6,\"sumsq\":36,"
     "\"buckets\":[[5,1]]}",
     "min"},
    {"{\"layout\":\"loglin-8\",\"count\":2,\"min\":5,\"max\":6,\"sum\":11,\"sumsq\":61,"
     "\"buckets\":[[5,2]]}",
     "min/max"},
    {"{\"layout\":\"loglin-8\",\"count\":2,\"min\":4,\"max\":5,\"sum\":9,\"sumsq\":41,"
     "\"buckets\":[[5,2]]}",
     "min/max"},
    {"{\"layout\":\"loglin-8\",\"count\":-1,\"min\":5,\"max\":5,\"sum\":5,\"sumsq\":25,"
     "\"buckets\":[]}",
     "count"},
    {"{\"layout\":\"loglin-8\",\"count\":1,\"min\":5,\"max\":5,\"sum\":5,\"sumsq\":-1,"
     "\"buckets\":[[5,1]]}",
     "sumsq"},
    {"{\"layout\":\"loglin-8\",\"count\":1,\"min\":5,\"max\":5,\"sum\":5,\"sumsq\":1e300,"
     "\"buckets\":[[5,1]]}",
     "sumsq"},
    {"{\"layout\":\"loglin-8\",\"count\":1,\"min\":5,\"max\":5,\"sum\":5,\"sumsq\":25,"
     "\"buckets\":{}}",
     "buckets"},
};

static void test_json_rejects_bad_input(void **state)
{
        struct hist *h = hist_new();
        json_t *before, *after, *j;
        char err[256];
        size_t i;

        (void)state;
        hist_record(h, 42);
        hist_record(h, 4242);
        before = hist_to_json(h);
        for (i = 0; i < sizeof(bad_json) / sizeof(bad_json[0]); i++) {
                j = json_loads(bad_json[i].json, 0, NULL);
                assert_non_null(j);
                err[0] = '\0';
                if (hist_add_json(h, j, err, sizeof(err)) != -EINVAL)
                        fail_msg("accepted bad histogram #%zu: %s", i, bad_json[i].json);
                if (strncmp(err, "histogram: ", 11) || !strstr(err, bad_json[i].why))
                        fail_msg("bad histogram #%zu: message \"%s\" lacks \"%s\"", i, err,
                                 bad_json[i].why);
                json_decref(j);
        }
        /* a rejected input leaves the histogram as it was */
        after = hist_to_json(h);
        assert_true(json_equal(before, after));
        /* and a well-formed one from the same family is accepted */
        j = json_loads("{\"layout\":\"loglin-8\",\"count\":2,\"min\":5,\"max\":5,\"sum\":10,"
                       "\"sumsq\":50,\"buckets\":[[5,2]]}",
                       0, NULL);
        assert_int_equal(hist_add_json(h, j, err, sizeof(err)), 0);
        assert_int_equal(hist_count(h), 4);
        assert_int_equal(hist_min(h), 5);
        json_decref(j);
        json_decref(before);
        json_decref(after);
        hist_free(h);
}

static void check_value_in_bucket(uint64_t ns)
{
        uint64_t lo, hi;
        unsigned idx = hist_bucket_of(ns);

        assert_true(idx < hist_nbuckets());
        hist_bucket_range(idx, &lo, &hi);
        if (ns < HIST_MAX_NS && (ns < lo || ns > hi))
                fail_msg("%llu in bucket %u [%llu, %llu]", (unsigned long long)ns, idx,
                         (unsigned long long)lo, (unsigned long long)hi);
}

static void test_bucket_layout(void **state)
{
        uint64_t lo, hi, prev_hi = 0;
        unsigned idx, shift;

        (void)state;
        /* buckets tile [0, HIST_MAX_NS) in order, without gaps or overlaps */
        for (idx = 0; idx < hist_nbuckets(); idx++) {
                hist_bucket_range(idx, &lo, &hi);
                assert_true(lo <= hi);
                assert_true(idx == 0 ? lo == 0 : lo == prev_hi + 1);
                assert_true((double)(hi - lo + 1) <= (lo < 256 ? 1.0 : 0.01 * (double)lo));
                assert_int_equal(hist_bucket_of(lo), idx);
                assert_int_equal(hist_bucket_of(hi), idx);
                prev_hi = hi;
        }
        assert_true(prev_hi == HIST_MAX_NS - 1);
        for (lo = 0; lo < 70000; lo++)
                check_value_in_bucket(lo);
        for (shift = 0; shift < 64; shift++) {
                check_value_in_bucket(1ull << shift);
                check_value_in_bucket((1ull << shift) - 1);
                check_value_in_bucket((1ull << shift) + 1);
        }
        rng_state = 11;
        for (lo = 0; lo < 100000; lo++)
                check_value_in_bucket(rng_next() >> (rng_next() % 64));
}

static void test_clamp(void **state)
{
        struct hist *h = hist_new();
        uint64_t lo, hi, last = hist_nbuckets() - 1;

        (void)state;
        assert_int_equal(hist_bucket_of(HIST_MAX_NS - 1), last);
        assert_int_equal(hist_bucket_of(HIST_MAX_NS), last);
        assert_int_equal(hist_bucket_of(UINT64_MAX), last);
        hist_bucket_range(last, &lo, &hi);
        hist_record(h, 100);
        hist_record(h, 1ull << 50);
        /* min/max/mean stay exact past the clamp */
        assert_true(hist_max(h) == 1ull << 50);
        assert_true(hist_mean(h) == (double)((1ull << 50) + 100) / 2);
        /* the percentile is read from the last bucket, inside [min, max] */
        assert_true(hist_percentile(h, 100) == lo + (hi - lo) / 2);
        assert_true(hist_percentile(h, 100) < HIST_MAX_NS);
        assert_int_equal(hist_percentile(h, 50), 100);
        /* with only clamped values, clamping into [min, max] gives the exact value */
        hist_reset(h);
        hist_record(h, 1ull << 45);
        assert_true(hist_percentile(h, 99) == 1ull << 45);
        hist_free(h);
}

static void test_empty(void **state)
{
        struct hist *h = hist_new();
        double pcts[] = {50, 99};
        json_t *j;
        char err[64];

        (void)state;
        assert_int_equal(hist_count(h), 0);
        assert_int_equal(hist_min(h), 0);
        assert_int_equal(hist_max(h), 0);
        assert_true(hist_mean(h) == 0.0);
        assert_true(hist_stddev(h) == 0.0);
        assert_int_equal(hist_percentile(h, 50), 0);
        assert_int_equal(hist_percentile(h, 100), 0);
        j = hist_to_json(h);
        assert_int_equal(json_array_size(json_object_get(j, "buckets")), 0);
        assert_int_equal(json_integer_value(json_object_get(j, "min")), 0);
        assert_int_equal(hist_add_json(h, j, err, sizeof(err)), 0);
        assert_int_equal(hist_count(h), 0);
        json_decref(j);
        j = hist_lat_json(h, pcts, 2);
        assert_int_equal(
            json_integer_value(json_object_get(json_object_get(j, "percentile"), "99.0")), 0);
        json_decref(j);
        /* after a reset an old minimum must not survive */
        hist_record(h, 7);
        hist_reset(h);
        hist_record(h, 900);
        assert_int_equal(hist_min(h), 900);
        hist_free(h);
}

static void test_stddev(void **state)
{
        struct hist *h = hist_new();

        (void)state;
        hist_record(h, 2);
        hist_record(h, 4);
        hist_record(h, 4);
        hist_record(h, 4);
        hist_record(h, 5);
        hist_record(h, 5);
        hist_record(h, 7);
        hist_record(h, 9);
        assert_true(hist_mean(h) == 5.0);
        assert_true(fabs(hist_stddev(h) - 2.0) < 1e-12);
        /* large equal values: no cancellation into a nonzero spread */
        hist_reset(h);
        hist_record_n(h, 3000000000ull, 1000000);
        assert_true(hist_stddev(h) == 0.0);
        hist_free(h);
}

static void test_lat_json(void **state)
{
        struct hist *h = hist_new();
        double pcts[] = {50, 99, 99.9, 99.99, 99.999, 12.5, 100};
        const char *keys[] = {"50.0", "99.0", "99.9", "99.99", "99.999", "12.5", "100.0"};
        json_t *j, *p;
        uint64_t i;

        (void)state;
        for (i = 1; i <= 100000; i++)
                hist_record(h, i);
        j = hist_lat_json(h, pcts, 7);
        assert_non_null(j);
        assert_int_equal(json_integer_value(json_object_get(j, "min")), 1);
        assert_int_equal(json_integer_value(json_object_get(j, "max")), 100000);
        assert_true(json_real_value(json_object_get(j, "mean")) == 50000.5);
        assert_true(json_is_real(json_object_get(j, "stddev")));
        p = json_object_get(j, "percentile");
        assert_int_equal(json_object_size(p), 7);
        for (i = 0; i < 7; i++) {
                if (!json_is_integer(json_object_get(p, keys[i])))
                        fail_msg("no percentile key \"%s\"", keys[i]);
                assert_int_equal(json_integer_value(json_object_get(p, keys[i])),
                                 hist_percentile(h, pcts[i]));
        }
        json_decref(j);
        hist_free(h);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_percentiles_uniform),
            cmocka_unit_test(test_percentiles_skewed),
            cmocka_unit_test(test_percentiles_wide),
            cmocka_unit_test(test_percentile_definition),
            cmocka_unit_test(test_merge_equals_concatenation),
            cmocka_unit_test(test_record_n),
            cmocka_unit_test(test_json_round_trip),
            cmocka_unit_test(test_json_sparse),
            cmocka_unit_test(test_json_rejects_bad_input),
            cmocka_unit_test(test_bucket_layout),
            cmocka_unit_test(test_clamp),
            cmocka_unit_test(test_empty),
            cmocka_unit_test(test_stddev),
            cmocka_unit_test(test_lat_json),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
