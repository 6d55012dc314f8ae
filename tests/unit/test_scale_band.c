/*
 * test_scale_band.c - the noise band `scale` shows and records for a step
 * (scale_step_band): the repeats' min..max, else --target-ci's CI, else
 * the batch-means CI of its one run's intervals, and none when there is
 * nothing to tell the noise from. Constructed steps, no servers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/tipping.h"
#include "scale/scale.h"

static void test_sources(void **state)
{
        struct scale_step *st = calloc(1, sizeof(*st));
        double lo, hi, v[20], l2, h2;

        (void)state;
        assert_non_null(st);
        st->vms = 2;
        st->tps = 500;
        /* nothing measured: no band */
        assert_string_equal(scale_step_band(st, &lo, &hi), "none");
        assert_true(lo == 500 && hi == 500);
        /* one run with 20 intervals drifting 480 -> 520: the batch-means CI */
        for (unsigned i = 0; i < 20; i++)
                v[i] = i < 10 ? 480 : 520;
        st->nrep = 1;
        st->rep[0].iv_tps = v;
        st->rep[0].niv = 20;
        assert_string_equal(scale_step_band(st, &lo, &hi), "intervals");
        res_tip_band_of_intervals(500, v, 20, &l2, &h2);
        assert_true(lo == l2 && hi == h2 && hi > lo);
        /* a flat series has no noise to show */
        for (unsigned i = 0; i < 20; i++)
                v[i] = 500;
        assert_string_equal(scale_step_band(st, &lo, &hi), "none");
        /* --target-ci's CI comes before the intervals */
        st->have_steady = 1;
        st->steady.ci_pct = 4;
        assert_string_equal(scale_step_band(st, &lo, &hi), "target_ci");
        assert_true(fabs(lo - 480) < 1e-9 && fabs(hi - 520) < 1e-9);
        /* and repeats before both */
        st->nrep = 3;
        st->tps_min = 450;
        st->tps_max = 530;
        assert_string_equal(scale_step_band(st, &lo, &hi), "repeats");
        assert_true(lo == 450 && hi == 530);
        st->rep[0].iv_tps = NULL;
        free(st);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_sources),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
