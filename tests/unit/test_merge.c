/*
 * test_merge.c - why percentiles are merged, never averaged.
 *
 * Four "VMs" with very different latency distributions and sample counts
 * (a busy fast one, two middling ones, a slow one that did little work).
 * The p95 read from their bucket-merged histograms, through the same JSON
 * path a report takes (hist_to_json, hist_add_json), matches the p95 of all
 * samples sorted together within the histogram's 1% bucket error; the mean
 * of the four per-VM p95s, which is what HCIBench reports, is far off.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/hist.h"
#include "results/report_view.h"

#define NVM 4

struct vm {
        unsigned n;            /* samples */
        uint64_t lo_ns, hi_ns; /* uniform range */
        unsigned tail_pct;     /* share of samples 10x slower */
};

static const struct vm vms[NVM] = {
    {100000, 500000, 1500000, 1},  /* busy and fast: ~1 ms */
    {20000, 3000000, 7000000, 2},  /* ~5 ms */
    {4000, 20000000, 60000000, 5}, /* ~40 ms */
    {500, 100000000, 300000000, 0} /* slow, little work: ~200 ms */
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
        rng ^= rng >> 12;
        rng ^= rng << 25;
        rng ^= rng >> 27;
        return rng * 2685821657736338717ull;
}

static int cmp_u64(const void *a, const void *b)
{
        uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

        return x < y ? -1 : x > y;
}

static void test_merged_vs_averaged(void **state)
{
        unsigned total = 0, k = 0;
        json_t *js[NVM];
        double mean_of_p95 = 0, merged, exact, mean_ms;
        uint64_t *all;

        (void)state;
        for (int v = 0; v < NVM; v++)
                total += vms[v].n;
        all = malloc(total * sizeof(*all));
        assert_non_null(all);
        for (int v = 0; v < NVM; v++) {
                struct hist *h = hist_new();

                assert_non_null(h);
                for (unsigned i = 0; i < vms[v].n; i++) {
                        uint64_t x = vms[v].lo_ns + next() % (vms[v].hi_ns - vms[v].lo_ns);

                        if (next() % 100 < vms[v].tail_pct)
                                x *= 10;
                        hist_record(h, x);
                        all[k++] = x;
                }
                mean_of_p95 += (double)hist_percentile(h, 95) / 1e6 / NVM;
                js[v] = hist_to_json(h);
                assert_non_null(js[v]);
                hist_free(h);
        }
        qsort(all, total, sizeof(*all), cmp_u64);
        exact = (double)all[(size_t)ceil(0.95 * total) - 1] / 1e6;
        merged = res_hist_pct_ms((const json_t *const *)js, NVM, 95, &mean_ms);
        print_message("p95: all samples %.3f ms, merged histogram %.3f ms, mean of per-VM "
                      "p95s %.3f ms\n",
                      exact, merged, mean_of_p95);
        assert_true(fabs(merged - exact) <= 0.01 * exact);
        assert_true(fabs(mean_of_p95 - exact) > 0.20 * exact);
        for (int v = 0; v < NVM; v++)
                json_decref(js[v]);
        free(all);
}

/* Merging in any order gives the same buckets, hence the same percentiles. */
static void test_merge_order(void **state)
{
        struct hist *a = hist_new(), *b = hist_new(), *ab = hist_new(), *ba = hist_new();

        (void)state;
        assert_true(a && b && ab && ba);
        for (int i = 0; i < 10000; i++) {
                hist_record(a, 1000 + next() % 100000);
                hist_record(b, 1000000 + next() % 9000000);
        }
        hist_merge(ab, a);
        hist_merge(ab, b);
        hist_merge(ba, b);
        hist_merge(ba, a);
        for (double p = 1; p <= 100; p += 7)
                assert_int_equal(hist_percentile(ab, p), hist_percentile(ba, p));
        hist_free(a);
        hist_free(b);
        hist_free(ab);
        hist_free(ba);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_merged_vs_averaged),
            cmocka_unit_test(test_merge_order),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
