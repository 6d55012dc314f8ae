/*
 * test_oltp_rand.c - the id distributions behave as sysbench defines them:
 * every draw stays in [a, b]; uniform is flat with the right mean; special
 * puts rand_spec_res % of draws into the rand_spec_pct % hot spot in the
 * middle; pareto with h puts 1-h of the draws into the first h of the
 * range; zipfian follows k^-exp (P(1) = 1 / sum k^-exp); gaussian centres.
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

#include "oltp/rand.h"

#define N 200000

static void setup_dist(struct oltp_dist *d, enum oltp_dist_type t)
{
        char err[128];

        oltp_dist_defaults(d, t);
        assert_int_equal(oltp_dist_init(d, err, sizeof(err)), 0);
}

static void test_ranges(void **state)
{
        struct oltp_rng r;
        struct oltp_dist d;

        (void)state;
        oltp_rng_seed(&r, 1);
        for (int t = OLTP_DIST_UNIFORM; t <= OLTP_DIST_ZIPFIAN; t++) {
                uint32_t lo = UINT32_MAX, hi = 0;

                setup_dist(&d, (enum oltp_dist_type)t);
                for (int i = 0; i < N; i++) {
                        uint32_t v = oltp_rand_dist(&r, &d, 7, 1006);

                        assert_true(v >= 7 && v <= 1006);
                        lo = v < lo ? v : lo;
                        hi = v > hi ? v : hi;
                }
                /* a single-value range gives that value */
                assert_int_equal(oltp_rand_dist(&r, &d, 42, 42), 42);
                assert_true(hi > lo);
        }
}

static void test_uniform(void **state)
{
        struct oltp_rng r;
        unsigned seen[11] = {0};
        double sum = 0;

        (void)state;
        oltp_rng_seed(&r, 2);
        for (int i = 0; i < N; i++) {
                uint32_t v = oltp_rand_uniform(&r, 5, 15);

                assert_true(v >= 5 && v <= 15);
                seen[v - 5]++;
                sum += v;
        }
        assert_true(fabs(sum / N - 10.0) < 0.05);
        for (int i = 0; i < 11; i++) /* each of 11 values near 1/11 */
                assert_true(fabs(seen[i] / (double)N - 1 / 11.0) < 0.005);
}

static void test_special_hot_spot(void **state)
{
        struct oltp_rng r;
        struct oltp_dist d;
        unsigned in = 0;

        (void)state;
        oltp_rng_seed(&r, 3);
        setup_dist(&d, OLTP_DIST_SPECIAL);
        /* range 1..10000: the hot spot is 1% of it, centred: ids 4951..5051 */
        for (int i = 0; i < N; i++) {
                uint32_t v = oltp_rand_dist(&r, &d, 1, 10000);

                in += v >= 4951 && v <= 5051;
        }
        /* 75% land there by construction, plus the bell curve's share of those 1% */
        assert_true(in / (double)N > 0.75 && in / (double)N < 0.79);
}

static void test_pareto(void **state)
{
        struct oltp_rng r;
        struct oltp_dist d;
        unsigned low = 0;

        (void)state;
        oltp_rng_seed(&r, 4);
        setup_dist(&d, OLTP_DIST_PARETO);
        for (int i = 0; i < N; i++)
                low += oltp_rand_dist(&r, &d, 1, 10000) <= 2000;
        assert_true(fabs(low / (double)N - 0.8) < 0.01);
}

static void test_zipfian(void **state)
{
        struct oltp_rng r;
        struct oltp_dist d;
        unsigned c[4] = {0};
        double hsum = 0;

        (void)state;
        oltp_rng_seed(&r, 5);
        setup_dist(&d, OLTP_DIST_ZIPFIAN);
        for (int k = 1; k <= 1000; k++)
                hsum += pow(k, -0.8);
        for (int i = 0; i < N; i++) {
                uint32_t v = oltp_rand_dist(&r, &d, 1, 1000);

                if (v <= 3)
                        c[v]++;
        }
        for (int k = 1; k <= 3; k++) {
                double want = pow(k, -0.8) / hsum, got = c[k] / (double)N;

                assert_true(fabs(got - want) < 0.1 * want);
        }
        assert_true(c[1] > c[2] && c[2] > c[3]);
}

static void test_gaussian(void **state)
{
        struct oltp_rng r;
        struct oltp_dist d;
        double sum = 0;
        unsigned mid = 0;

        (void)state;
        oltp_rng_seed(&r, 6);
        setup_dist(&d, OLTP_DIST_GAUSSIAN);
        for (int i = 0; i < N; i++) {
                uint32_t v = oltp_rand_dist(&r, &d, 1, 10000);

                sum += v;
                mid += v > 4000 && v <= 6000;
        }
        assert_true(fabs(sum / N - 5000.5) < 25);
        /* mean of 12 uniforms: sd = range/12, so +-1000 is +-1.2 sd, about 77% */
        assert_true(mid / (double)N > 0.72 && mid / (double)N < 0.82);
}

static void test_strings(void **state)
{
        struct oltp_rng r;
        char c[OLTP_C_LEN + 1] = {0}, pad[OLTP_PAD_LEN + 1] = {0};

        (void)state;
        oltp_rng_seed(&r, 7);
        assert_int_equal(strlen(oltp_c_tmpl), OLTP_C_LEN);
        assert_int_equal(strlen(oltp_pad_tmpl), OLTP_PAD_LEN);
        oltp_rand_str(&r, oltp_c_tmpl, OLTP_C_LEN, c);
        oltp_rand_str(&r, oltp_pad_tmpl, OLTP_PAD_LEN, pad);
        for (int i = 0; i < OLTP_C_LEN; i++)
                assert_true(i % 12 == 11 ? c[i] == '-' : (c[i] >= '0' && c[i] <= '9'));
        for (int i = 0; i < OLTP_PAD_LEN; i++)
                assert_true(i % 12 == 11 ? pad[i] == '-' : (pad[i] >= '0' && pad[i] <= '9'));
}

static void test_bad_params(void **state)
{
        struct oltp_dist d;
        char err[128];

        (void)state;
        oltp_dist_defaults(&d, OLTP_DIST_PARETO);
        d.pareto_h = 1.5;
        assert_int_equal(oltp_dist_init(&d, err, sizeof(err)), -EINVAL);
        oltp_dist_defaults(&d, OLTP_DIST_SPECIAL);
        d.spec_res = 100;
        assert_int_equal(oltp_dist_init(&d, err, sizeof(err)), -EINVAL);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_ranges),           cmocka_unit_test(test_uniform),
            cmocka_unit_test(test_special_hot_spot), cmocka_unit_test(test_pareto),
            cmocka_unit_test(test_zipfian),          cmocka_unit_test(test_gaussian),
            cmocka_unit_test(test_strings),          cmocka_unit_test(test_bad_params),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
