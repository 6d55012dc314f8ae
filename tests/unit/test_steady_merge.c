/*
 * test_steady_merge.c - the steady rule on many drivers' merged series
 * (core/steady_merge.h), fed by hand: the merged sample is the sum of the
 * drivers' rates; "measure" then "stop" are told once each, in that order;
 * a driver that is gone is not waited for, and one that stalls holds the
 * rule back by at most STEADY_MERGE_LAG samples (what it gives late is
 * left out), so no driver can hang the rule.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "core/steady_merge.h"

struct told {
        int measure, stop, order_ok;
};

static void tell(void *arg, enum dp_kind kind)
{
        struct told *t = arg;

        if (kind == DP_MEASURE)
                t->measure++;
        else if (kind == DP_STOP)
                t->order_ok = t->measure == 1, t->stop++;
}

/* Driver i's sample k (1-based) at rate per second: done counts from its go. */
static void feed(struct steady_merge *c, unsigned i, unsigned k, double rate)
{
        steady_merge_sample(c, i, k * STEADY_SAMPLE_S, (uint64_t)(k * STEADY_SAMPLE_S * rate));
}

/* Two drivers at 1000/s and 3000/s: the rule sees 4000/s, measures, stops, each told once. */
static void test_sum_and_orders(void **state)
{
        (void)state;
        struct steady_merge *c = steady_merge_new(2, 50, 1.0, 10.0);
        enum steady_phase told = STEADY_WARMUP, ph = STEADY_WARMUP;
        struct told t = {0};
        struct steady_res r;
        unsigned k;

        assert_non_null(c);
        for (k = 1; k <= 60 && ph != STEADY_DONE; k++) {
                feed(c, 0, k, 1000);
                ph = steady_merge_steer(c, &told, tell, &t);
                feed(c, 1, k, 3000);
                ph = steady_merge_steer(c, &told, tell, &t);
        }
        assert_int_equal(ph, STEADY_DONE);
        assert_int_equal(t.measure, 1);
        assert_int_equal(t.stop, 1);
        assert_true(t.order_ok);
        steady_merge_result(c, &r, NULL);
        assert_true(r.met);
        assert_true(fabs(r.mean - 4000) < 4000 * 1e-6);
        assert_true(fabs(r.warmup_s - 1.0) < 1e-9);    /* warmup_max_s: 2 samples */
        assert_true(fabs(r.measured_s - 10.0) < 1e-9); /* 20 samples give the first CI */
        steady_merge_steer(c, &told, tell, &t);        /* done: nothing told again */
        assert_int_equal(t.measure + t.stop, 2);
        steady_merge_free(c);
}

/* Driver 1 is lost after 3 samples: the rule goes on with driver 0 alone and ends. */
static void test_gone_is_not_waited_for(void **state)
{
        (void)state;
        struct steady_merge *c = steady_merge_new(2, 50, 1.0, 5.0);
        enum steady_phase told = STEADY_WARMUP, ph = STEADY_WARMUP;
        struct told t = {0};
        struct steady_res r;

        assert_non_null(c);
        for (unsigned k = 1; k <= 3; k++) {
                feed(c, 0, k, 1000);
                feed(c, 1, k, 1000);
        }
        steady_merge_gone(c, 1);
        for (unsigned k = 4; k <= 40 && ph != STEADY_DONE; k++) {
                feed(c, 0, k, 1000);
                ph = steady_merge_steer(c, &told, tell, &t);
        }
        assert_int_equal(ph, STEADY_DONE);
        assert_int_equal(t.stop, 1);
        steady_merge_result(c, &r, NULL);
        assert_false(r.met);                          /* 10 samples: too few for a CI */
        assert_true(fabs(r.measured_s - 5.0) < 1e-9); /* measure_max_s ended it */
        steady_merge_free(c);
}

/*
 * Driver 1 stalls (not gone, gives nothing): sample j merges once driver 0
 * is STEADY_MERGE_LAG samples past it. With a warm-up of 2 samples at most,
 * "measure" comes with driver 0's sample STEADY_MERGE_LAG + 2, not before.
 */
static void test_stall_holds_back_a_little(void **state)
{
        (void)state;
        struct steady_merge *c = steady_merge_new(2, 50, 1.0, 100.0);
        struct told t = {0};
        enum steady_phase told = STEADY_WARMUP;

        assert_non_null(c);
        for (unsigned k = 1; k <= STEADY_MERGE_LAG + 1; k++) {
                feed(c, 0, k, 1000);
                steady_merge_steer(c, &told, tell, &t);
        }
        assert_int_equal(t.measure, 0);
        feed(c, 0, STEADY_MERGE_LAG + 2, 1000);
        assert_int_equal(steady_merge_steer(c, &told, tell, &t), STEADY_MEASURE);
        assert_int_equal(t.measure, 1);
        assert_int_equal(t.stop, 0);
        assert_null(steady_merge_new(0, 50, 1, 1));
        assert_null(steady_merge_new(2, 0, 1, 1));
        steady_merge_free(c);
        steady_merge_free(NULL);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_sum_and_orders),
            cmocka_unit_test(test_gone_is_not_waited_for),
            cmocka_unit_test(test_stall_holds_back_a_little),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
