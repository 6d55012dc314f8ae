/*
 * test_tipping.c - the tipping point and its attribution on constructed
 * scale plans whose answers are worked out by hand: linear scaling (none),
 * a gain that falls below half the first step's per-VM TPS, a peak followed
 * by a fall, invalid (degraded) steps left out, and each limiting resource.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "scale/tipping.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* A step with no resource at its limit. */
static struct tip_step st(unsigned vms, double tps)
{
        return (struct tip_step){.vms = vms,
                                 .tps = tps,
                                 .cpu_busy_pct = 40,
                                 .steal_pct = 0,
                                 .storage_util_pct = 20,
                                 .storage_lat_ms = 0.5,
                                 .valid = 1};
}

static void test_linear_is_none(void **state)
{
        struct tip_step s[] = {st(1, 100), st(2, 200), st(4, 390), st(8, 700)};
        struct tip_result r;

        (void)state;
        tip_find(s, N(s), &r);
        assert_int_equal(r.found, 0);
        assert_int_equal(r.vms, 0);
        assert_int_equal(r.step, -1);
        assert_int_equal(r.limited_by, TIP_NONE);
        assert_non_null(strstr(r.reason, "no tipping point"));
        assert_string_equal(tip_limit_name(r.limited_by), "none");
}

/* Per-VM TPS of the first step: 100. Gains 90, 60, 45 -> the break is
 * 3 -> 4 VMs (45 < 50), so the tipping point is 3 VMs. */
static void test_gain_below_half(void **state)
{
        struct tip_step s[] = {st(1, 100), st(2, 190), st(3, 250), st(4, 295), st(5, 300)};
        struct tip_result r;

        (void)state;
        s[2].cpu_busy_pct = 95;
        s[2].steal_pct = 3;
        tip_find(s, N(s), &r);
        assert_int_equal(r.found, 1);
        assert_int_equal(r.vms, 3);
        assert_int_equal(r.step, 2);
        assert_int_equal(r.limited_by, TIP_CPU);
        assert_non_null(strstr(r.reason, "95%"));
        assert_non_null(strstr(r.reason, "250 TPS at 3 VMs"));
}

/* Steps of 4 VMs: per-VM 50, gains per added VM 40, 30, 20 -> break at
 * 12 -> 16 (20 < 25): the tipping point is 12 VMs. */
static void test_uneven_plan(void **state)
{
        struct tip_step s[] = {st(4, 200), st(8, 360), st(12, 480), st(16, 560)};
        struct tip_result r;

        (void)state;
        tip_find(s, N(s), &r);
        assert_int_equal(r.vms, 12);
        assert_int_equal(r.limited_by, TIP_NONE);
}

/* The peak comes first: TPS falls right after 2 VMs. */
static void test_peak_then_fall(void **state)
{
        struct tip_step s[] = {st(1, 100), st(2, 180), st(3, 170), st(4, 260)};
        struct tip_result r;

        (void)state;
        tip_find(s, N(s), &r);
        assert_int_equal(r.vms, 2);
        assert_int_equal(r.step, 1);
}

/* A degraded step (a VM lost) is left out: without it the plan scales. */
static void test_invalid_left_out(void **state)
{
        struct tip_step s[] = {st(1, 100), st(2, 60), st(3, 300), st(4, 400)};
        struct tip_result r;

        (void)state;
        s[1].valid = 0;
        tip_find(s, N(s), &r);
        assert_int_equal(r.found, 0);
        s[0].valid = 0;
        s[2].valid = s[3].valid = 0;
        tip_find(s, N(s), &r);
        assert_int_equal(r.found, 0);
        assert_non_null(strstr(r.reason, "no step completed"));
}

static enum tip_limit limit_at_two(struct tip_step two)
{
        struct tip_step s[] = {st(1, 100), two, st(3, 210)};
        struct tip_result r;

        tip_find(s, N(s), &r);
        assert_int_equal(r.vms, 2);
        return r.limited_by;
}

static void test_attribution(void **state)
{
        struct tip_step t = st(2, 200);

        (void)state;
        assert_int_equal(limit_at_two(t), TIP_NONE);
        t.cpu_busy_pct = 92;
        assert_int_equal(limit_at_two(t), TIP_CPU);
        t.storage_util_pct = 75; /* CPU busy, storage not below 70%: not cpu */
        assert_int_equal(limit_at_two(t), TIP_NONE);
        t.storage_util_pct = 91;
        assert_int_equal(limit_at_two(t), TIP_STORAGE);
        t = st(2, 200);
        t.storage_lat_ms = 1.2; /* first step 0.5 ms: more than doubled */
        assert_int_equal(limit_at_two(t), TIP_STORAGE);
        t.storage_lat_ms = 0.9;
        assert_int_equal(limit_at_two(t), TIP_NONE);
        t.swap_pages = 10;
        assert_int_equal(limit_at_two(t), TIP_MEMORY);
        t.swap_pages = 0;
        t.majflt_per_s = TIP_MAJFLT_PER_S + 1;
        assert_int_equal(limit_at_two(t), TIP_MEMORY);
        t.majflt_per_s = 0;
        t.oom_kills = 1;
        t.cpu_busy_pct = 99;
        assert_int_equal(limit_at_two(t), TIP_MEMORY);
        t.oom_kills = 0;
        t.storage_util_pct = -1; /* not measured: CPU decides */
        assert_int_equal(limit_at_two(t), TIP_CPU);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_linear_is_none),   cmocka_unit_test(test_gain_below_half),
            cmocka_unit_test(test_uneven_plan),      cmocka_unit_test(test_peak_then_fall),
            cmocka_unit_test(test_invalid_left_out), cmocka_unit_test(test_attribution),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
