/*
 * test_steady.c - the warm-up cut (MSER-5) and the batch-means CI on
 * synthetic series whose answers are known: a ramp then a flat stretch
 * (the cut lands at the ramp's end), a flat series of known variance (the
 * CI matches 1.96 sigma / sqrt(n) within the spread of ten batches), an
 * AR(1) series (the batch-means CI is wider than the naive one, close to
 * the true standard error of its mean), a series that never settles (never
 * met, flagged), and the run-level rule driven sample by sample.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "core/steady.h"

/* A seeded normal generator (xorshift64* + Box-Muller): the series are the same every run. */
static uint64_t rng;

/* Each test its own series, whatever ran before it. */
static void seed(uint64_t k)
{
        rng = 0x9e3779b97f4a7c15ull * (2 * k + 1);
}

static double uniform01(void)
{
        rng ^= rng >> 12;
        rng ^= rng << 25;
        rng ^= rng >> 27;
        return ((rng * 0x2545f4914f6cdd1dull) >> 11) * (1.0 / 9007199254740992.0);
}

static double gauss(void)
{
        double u = uniform01(), v = uniform01();

        if (u < 1e-300)
                u = 1e-300;
        return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* Ramp from 0 to level over ramp samples, then flat; noise sd in absolute units. */
static void ramp_flat(double *x, size_t n, size_t ramp, double level, double sd)
{
        for (size_t i = 0; i < n; i++)
                x[i] = (i < ramp ? level * (double)i / (double)ramp : level) + sd * gauss();
}

static void ar1(double *x, size_t n, double mu, double phi, double sd)
{
        double y = 0;

        for (size_t i = 0; i < n; i++) {
                y = phi * y + sd * gauss();
                x[i] = mu + y;
        }
}

static void test_t_quantile(void **state)
{
        (void)state;
        assert_float_equal(steady_t975(1), 12.706, 1e-3);
        assert_float_equal(steady_t975(9), 2.262, 1e-3);
        assert_float_equal(steady_t975(30), 2.042, 1e-3);
        assert_float_equal(steady_t975(40), 2.021, 1e-3); /* from the expansion */
        assert_float_equal(steady_t975(120), 1.980, 1e-3);
        assert_float_equal(steady_t975(100000), 1.960, 1e-3);
}

/* 40 samples of ramp then 160 flat: the cut is never inside the ramp, only
 * comes once the flat part outweighs it, and lands at the ramp's end. */
static void test_mser_cuts_the_ramp(void **state)
{
        double x[200];
        long cut;

        (void)state;
        seed(1);
        ramp_flat(x, 200, 40, 1000, 20);
        for (size_t n = 20; n <= 200; n += 5) {
                cut = steady_mser5(x, n);
                if (n < 70) /* less flat than ramp */
                        assert_int_equal(cut, -1);
                if (cut >= 0) {
                        assert_true(cut >= 40 - STEADY_MSER_BATCH);
                        assert_true(cut <= (long)n / 2);
                        assert_int_equal(cut % STEADY_MSER_BATCH, 0);
                }
        }
        /* MSER's cut is at the ramp's end most often, later (safe) otherwise. */
        cut = steady_mser5(x, 150);
        assert_true(cut >= 40 && cut <= 75);
}

/* Flat series: most are cut nowhere, hardly any is taken for a trend. */
static void test_mser_flat_cuts_nothing(void **state)
{
        double x[100];
        unsigned zero = 0, unsettled = 0;

        (void)state;
        seed(2);
        for (unsigned k = 0; k < 20; k++) {
                long cut;

                ramp_flat(x, 100, 0, 500, 25);
                cut = steady_mser5(x, 100);
                zero += cut == 0;
                unsettled += cut < 0;
                assert_true(cut <= 50);
        }
        assert_true(zero >= 6); /* about 0.6 of flat series, and 0.03 unsettled */
        assert_true(unsettled <= 4);
        /* Too few batches to judge. */
        assert_int_equal(steady_mser5(x, STEADY_MIN_BATCHES * STEADY_MSER_BATCH - 1), -1);
}

/* A linear trend (5 per sample, noise 10) never settles, however long. */
static void test_mser_trend_never_settles(void **state)
{
        double x[400];

        (void)state;
        seed(3);
        for (size_t i = 0; i < 400; i++)
                x[i] = 100 + 5.0 * (double)i + 10 * gauss();
        for (size_t n = 20; n <= 400; n += 5)
                assert_int_equal(steady_mser5(x, n), -1);
}

/* i.i.d. samples, sigma 50 around 1000: half-width 1.96 sigma / sqrt(n). */
static void test_flat_known_variance(void **state)
{
        const size_t n = 400;
        double *x = malloc(n * sizeof(*x)), mean, half, nmean, nhalf, want;

        (void)state;
        seed(11);
        assert_non_null(x);
        ramp_flat(x, n, 0, 1000, 50);
        assert_int_equal(steady_batch_ci(x, n, STEADY_CI_BATCHES, &mean, &half), 0);
        assert_int_equal(steady_naive_ci(x, n, &nmean, &nhalf), 0);
        want = 1.959964 * 50 / sqrt((double)n);
        assert_float_equal(mean, 1000, 4 * 50 / sqrt((double)n));
        assert_float_equal(nhalf, want, 0.15 * want); /* 399 degrees of freedom */
        /* Ten batches: the sd of the batch means has 9 degrees of freedom
         * (chi-square spread about +-45% at 95%), and t(9) is 2.262. */
        assert_true(half > 0.5 * want && half < 2.0 * want);
        assert_float_equal(steady_ci_pct(mean, half), 100 * half / mean, 1e-12);
        free(x);
}

/* AR(1), phi 0.9: the mean's true standard error is sigma / (1 - phi) / sqrt(n). */
static void test_ar1_wider_than_naive(void **state)
{
        const size_t n = 4000;
        const double phi = 0.9, sd = 10;
        double *x = malloc(n * sizeof(*x)), mean, half, nmean, nhalf, want;

        (void)state;
        seed(12);
        assert_non_null(x);
        ar1(x, n, 500, phi, sd);
        assert_int_equal(steady_batch_ci(x, n, STEADY_CI_BATCHES, &mean, &half), 0);
        assert_int_equal(steady_naive_ci(x, n, &nmean, &nhalf), 0);
        want = 1.959964 * sd / (1 - phi) / sqrt((double)n);
        assert_true(half > 2 * nhalf); /* the naive one is about sqrt((1-phi)/(1+phi)) too narrow */
        assert_true(half > 0.5 * want && half < 2.0 * want);
        assert_true(nhalf < 0.5 * want);
        free(x);
}

static void test_ci_needs_two_per_batch(void **state)
{
        double x[19] = {0}, m, h;

        (void)state;
        assert_int_equal(steady_batch_ci(x, 19, 10, &m, &h), -EINVAL);
        assert_int_equal(steady_batch_ci(x, 19, 1, &m, &h), -EINVAL);
        assert_int_equal(steady_naive_ci(x, 1, &m, &h), -EINVAL);
        assert_true(isinf(steady_ci_pct(0, 1)));
}

static struct steady *rule(double target, double warm_max, double meas_max)
{
        struct steady_cfg c = {.target_ci_pct = target,
                               .sample_s = STEADY_SAMPLE_S,
                               .warmup_max_s = warm_max,
                               .measure_max_s = meas_max};
        struct steady *s = steady_new(&c);

        assert_non_null(s);
        return s;
}

/* Feed x until the rule says done; returns the samples used. */
static size_t drive(struct steady *s, const double *x, size_t n)
{
        size_t i = 0;

        while (i < n && steady_add(s, x[i++]) != STEADY_DONE)
                ;
        return i;
}

/* Ramp of 20 samples, flat at 2% noise: warm-up cut after the ramp, CI of 1% met. */
static void test_rule_ramp_then_flat(void **state)
{
        double x[2000];
        struct steady *s = rule(1, 300, 600);
        struct steady_res r;
        size_t used;

        (void)state;
        seed(13);
        ramp_flat(x, 2000, 20, 1000, 20);
        used = drive(s, x, 2000);
        steady_result(s, &r);
        assert_int_equal(steady_phase(s), STEADY_DONE);
        assert_true(r.settled);
        assert_true(r.met);
        assert_true(r.ci_pct > 0 && r.ci_pct <= 1);
        /* Never before the ramp ends; MSER trusts a cut once as much flat
         * has followed, so about twice the ramp. */
        assert_true(r.warmup_s >= 20 * STEADY_SAMPLE_S);
        assert_true(r.warmup_s <= 3 * 20 * STEADY_SAMPLE_S);
        assert_true(r.measured_s >= STEADY_MIN_MEASURED * STEADY_SAMPLE_S);
        assert_float_equal(r.warmup_s + r.measured_s, (double)used * STEADY_SAMPLE_S, 1e-9);
        assert_float_equal(r.mean, 1000, 15);
        assert_float_equal(steady_left_s(s), 0, 0);
        /* Samples after the end change nothing. */
        assert_int_equal(steady_add(s, 0), STEADY_DONE);
        steady_free(s);
}

/* A CI of 0.1% on 2% noise cannot be met in 30 s: flagged, measured to the limit. */
static void test_rule_budget_runs_out(void **state)
{
        double x[2000];
        struct steady *s = rule(0.1, 300, 30);
        struct steady_res r;

        (void)state;
        seed(14);
        ramp_flat(x, 2000, 0, 1000, 20);
        drive(s, x, 2000);
        steady_result(s, &r);
        assert_false(r.met);
        assert_true(r.ci_pct > 0.1);
        assert_float_equal(r.measured_s, 30, 1e-9);
        steady_free(s);
}

/* A series that never settles: the warm-up ends at its limit, unsettled, and the CI is not met. */
static void test_rule_never_settles(void **state)
{
        double x[2000];
        struct steady *s = rule(2, 20, 60);
        struct steady_res r;
        size_t used;

        (void)state;
        seed(15);
        for (size_t i = 0; i < 2000; i++)
                x[i] = 100 + 5.0 * (double)i + 10 * gauss();
        used = drive(s, x, 2000);
        steady_result(s, &r);
        assert_false(r.settled);
        assert_false(r.met);
        assert_float_equal(r.warmup_s, 20, 1e-9);
        assert_float_equal(r.measured_s, 60, 1e-9);
        assert_int_equal(used, (20 + 60) / STEADY_SAMPLE_S);
        assert_true(r.ci_pct > 2);
        steady_free(s);
}

/* The time left: never more than the budget, 0 once done, and the guess made
 * after 100 measured samples is of the right size (the CI shrinks as 1/sqrt(n)). */
static void test_left_s(void **state)
{
        double x[2000], guess = -1, guess_at = 0, left;
        struct steady *s = rule(0.3, 100, 500);
        size_t i;

        (void)state;
        seed(16);
        ramp_flat(x, 2000, 0, 1000, 30);
        for (i = 0; i < 2000 && steady_add(s, x[i]) != STEADY_DONE; i++) {
                struct steady_res r;

                left = steady_left_s(s);
                steady_result(s, &r);
                assert_true(left > 0);
                if (steady_phase(s) == STEADY_WARMUP)
                        assert_true(left >= STEADY_MIN_MEASURED * STEADY_SAMPLE_S);
                else
                        assert_true(left <= 500 - r.measured_s + STEADY_SAMPLE_S);
                if (steady_phase(s) == STEADY_MEASURE && guess < 0 && r.ci_pct > 0 &&
                    r.measured_s >= 100 * STEADY_SAMPLE_S) {
                        guess = left;
                        guess_at = (double)(i + 1) * STEADY_SAMPLE_S;
                }
        }
        assert_int_equal(steady_phase(s), STEADY_DONE);
        assert_float_equal(steady_left_s(s), 0, 0);
        left = (double)(i + 1) * STEADY_SAMPLE_S - guess_at; /* what it took */
        assert_true(guess > 0 && left > 0);
        assert_true(guess < 4 * left && left < 4 * guess);
        steady_free(s);
}

static void test_bad_cfg(void **state)
{
        struct steady_cfg c = {.target_ci_pct = 0, .sample_s = 0.5};

        (void)state;
        assert_null(steady_new(&c));
        c.target_ci_pct = 1;
        c.sample_s = 0;
        assert_null(steady_new(&c));
        steady_free(NULL);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_t_quantile),
            cmocka_unit_test(test_mser_cuts_the_ramp),
            cmocka_unit_test(test_mser_flat_cuts_nothing),
            cmocka_unit_test(test_mser_trend_never_settles),
            cmocka_unit_test(test_flat_known_variance),
            cmocka_unit_test(test_ar1_wider_than_naive),
            cmocka_unit_test(test_ci_needs_two_per_batch),
            cmocka_unit_test(test_rule_ramp_then_flat),
            cmocka_unit_test(test_rule_budget_runs_out),
            cmocka_unit_test(test_rule_never_settles),
            cmocka_unit_test(test_left_s),
            cmocka_unit_test(test_bad_cfg),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
