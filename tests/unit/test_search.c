/*
 * test_search.c - the searching plan (--vms auto[:MAX]) against synthetic
 * ramps whose tipping points are known: linear scaling (doubling up to MAX,
 * none found), TPS that stops growing at a given count (the search lands
 * on the same tipping step as a full 1..MAX plan, in fewer steps), the
 * resolution, every count measured once, and the worst case it reports.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "scale/search.h"

/* A step of a ramp that grows by 100 TPS per VM up to stop VMs, then is flat. */
static struct res_tip_step ramp(unsigned vms, unsigned stop)
{
        struct res_tip_step s;

        res_tip_step_init(&s, vms, 100.0 * (vms < stop ? vms : stop));
        s.r.cpu_busy_pct = 95;
        return s;
}

/* Run the search to its end; the counts measured, in order, into order[]. */
static unsigned search(const struct search_cfg *c, unsigned stop, unsigned *order)
{
        struct res_tip_step s[SEARCH_MAX_STEPS];
        unsigned n = 0, vms;

        while ((vms = search_next(c, s, n)) != 0) {
                assert_true(n < SEARCH_MAX_STEPS);
                for (unsigned i = 0; i < n; i++)
                        assert_int_not_equal((unsigned)s[i].load, vms); /* each count once */
                assert_true(vms >= 1 && vms <= c->max);
                order[n] = vms;
                s[n++] = ramp(vms, stop);
        }
        return n;
}

/* The tipping step of the full plan 1..max, and of what the search measured. */
static unsigned full_tip(unsigned max, unsigned stop)
{
        struct res_tip_step s[SEARCH_MAX_STEPS];

        for (unsigned v = 1; v <= max; v++)
                s[v - 1] = ramp(v, stop);
        return search_tipping(s, max);
}

static unsigned searched_tip(const unsigned *order, unsigned n, unsigned stop)
{
        struct res_tip_step s[SEARCH_MAX_STEPS];
        unsigned sorted[SEARCH_MAX_STEPS], k = 0;

        for (unsigned v = 1; v <= 64; v++) /* in VM order, as the result lists them */
                for (unsigned i = 0; i < n; i++)
                        if (order[i] == v)
                                sorted[k++] = v;
        for (unsigned i = 0; i < k; i++)
                s[i] = ramp(sorted[i], stop);
        return search_tipping(s, k);
}

static void test_linear_doubles_to_max(void **state)
{
        struct search_cfg c = {.max = 8, .resolution = 1};
        unsigned order[SEARCH_MAX_STEPS], n;

        (void)state;
        n = search(&c, 1000, order);
        assert_int_equal(n, 4);
        assert_int_equal(order[0], 1);
        assert_int_equal(order[1], 2);
        assert_int_equal(order[2], 4);
        assert_int_equal(order[3], 8);
        assert_int_equal(searched_tip(order, n, 1000), 0); /* none within 8 VMs */
        c.max = 6;                                         /* MAX need not be a power of two */
        n = search(&c, 1000, order);
        assert_int_equal(n, 4);
        assert_int_equal(order[3], 6);
}

/* TPS stops growing at 3 of 8: the search finds the full plan's tipping step in 5 steps, not 8. */
static void test_finds_the_full_plans_answer(void **state)
{
        struct search_cfg c = {.max = 8, .resolution = 1};
        unsigned order[SEARCH_MAX_STEPS], n;

        (void)state;
        n = search(&c, 3, order);
        assert_int_equal(full_tip(8, 3), 3);
        assert_int_equal(searched_tip(order, n, 3), 3);
        assert_true(n < 8);
}

/* Every answer from 1 to MAX, for several MAX: the same tipping step as the full plan. */
static void test_every_answer(void **state)
{
        static const unsigned maxes[] = {2, 4, 5, 8, 12, 16, 32};
        unsigned order[SEARCH_MAX_STEPS];

        (void)state;
        for (unsigned m = 0; m < sizeof(maxes) / sizeof(maxes[0]); m++) {
                struct search_cfg c = {.max = maxes[m], .resolution = 1};
                unsigned worst = search_max_steps(&c);

                for (unsigned stop = 1; stop <= c.max + 1; stop++) {
                        unsigned n = search(&c, stop, order);

                        assert_int_equal(searched_tip(order, n, stop), full_tip(c.max, stop));
                        assert_true(n <= worst);
                }
                if (c.max >= 8)
                        assert_true(worst < c.max); /* fewer steps than the full plan */
        }
}

/* --resolution 4: the tipping step is known to within 4 VMs, in fewer steps. */
static void test_resolution(void **state)
{
        struct search_cfg fine = {.max = 32, .resolution = 1},
                          coarse = {.max = 32, .resolution = 4};
        unsigned order[SEARCH_MAX_STEPS], nf, nc, tip;

        (void)state;
        nf = search(&fine, 13, order);
        nc = search(&coarse, 13, order);
        tip = searched_tip(order, nc, 13);
        assert_true(nc <= nf);
        assert_true(tip + 4 >= 13 && tip <= 13 + 4);
        assert_true(search_max_steps(&coarse) <= search_max_steps(&fine));
}

static void test_one_vm(void **state)
{
        struct search_cfg c = {.max = 1, .resolution = 1};
        unsigned order[SEARCH_MAX_STEPS];

        (void)state;
        assert_int_equal(search(&c, 5, order), 1);
        assert_int_equal(search_max_steps(&c), 1);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_linear_doubles_to_max),
            cmocka_unit_test(test_finds_the_full_plans_answer),
            cmocka_unit_test(test_every_answer),
            cmocka_unit_test(test_resolution),
            cmocka_unit_test(test_one_vm),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
