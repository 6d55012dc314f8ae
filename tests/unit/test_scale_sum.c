/*
 * test_scale_sum.c - a step's figures from its repeats (scale_summarise):
 * a rate a probe window could not read (-1) is left out of the mean, the
 * other windows' weights renormalised, and a rate no window read stays
 * unknown: null in the step's JSON, which the tipping-point reader takes.
 * Constructed steps, no servers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/hist.h"
#include "results/tip_json.h"
#include "scale/scale.h"

/* Every rate of a window unknown, as the probe leaves a window it could not read. */
static void unknown_window(struct scale_rates *r, double seconds)
{
        struct scale_drate none = {-1, -1, -1, -1};

        memset(r, 0, sizeof(*r));
        r->seconds = seconds;
        r->disk_util_pct = r->disk_bytes_s = r->disk_iops = r->disk_lat_ms = -1;
        r->tgt_cpu_pct = r->tgt_io_bytes_s = r->tgt_disk_bytes_s = -1;
        r->tgt_user_pct = r->tgt_sys_pct = r->tgt_host_pct = r->self_cpu_pct = -1;
        r->host = none;
        for (unsigned i = 0; i <= LAB_MAX_VMS; i++) {
                r->vd[i] = none;
                r->vm_cpu_pct[i] = r->ini_cpu_pct[i] = -1;
                r->vm_periods[i] = r->vm_throttled[i] = r->vm_throttled_s[i] = -1;
        }
}

static void near(double got, double want)
{
        assert_true(fabs(got - want) < 1e-9);
}

static void test_first_window_lacks_disk(void **state)
{
        struct scale_step *st = calloc(1, sizeof(*st));
        struct scale_load_spec load = {0};
        struct res_tip_step ts;
        json_t *j, *sto;

        (void)state;
        assert_non_null(st);
        st->vms = 1;
        st->nrep = 2;
        st->lat = hist_new();
        st->vm[1].lat = hist_new();
        assert_non_null(st->lat);
        assert_non_null(st->vm[1].lat);
        /* window 1 (10 s): no disk figures, the VM's CPU unread; the storage CPU read */
        unknown_window(&st->rep[0].rates, 10);
        st->rep[0].rates.tgt_cpu_pct = 20;
        st->rep[0].tps = 100;
        /* window 2 (30 s): everything but the host disk */
        unknown_window(&st->rep[1].rates, 30);
        st->rep[1].rates.disk_util_pct = 40;
        st->rep[1].rates.disk_lat_ms = 2;
        st->rep[1].rates.disk_iops = 900;
        st->rep[1].rates.tgt_cpu_pct = 40;
        st->rep[1].rates.vm_cpu_pct[1] = 50;
        st->rep[1].rates.vd[1] = (struct scale_drate){900, 3.6e6, 2, 40};
        st->rep[1].tps = 110;
        /* the host CPU: window 1 had no monitor sample (all zero), window 2 60% user */
        st->rep[1].cpu = (struct mon_cpu){.user = 60, .idle = 40};

        scale_summarise(st);
        /* window 2's figures alone, not pulled down by window 1's -1 */
        near(st->rates.disk_util_pct, 40);
        near(st->rates.disk_lat_ms, 2);
        near(st->rates.disk_iops, 900);
        near(st->rates.vm_cpu_pct[1], 50);
        near(st->rates.vd[1].util_pct, 40);
        /* read in both: the time-weighted mean (10 * 20 + 30 * 40) / 40 */
        near(st->rates.tgt_cpu_pct, 35);
        near(st->rates.seconds, 40);
        /* read in neither: unknown, never 0 */
        assert_true(st->rates.host.iops < 0 && st->rates.host.lat_ms < 0);
        assert_true(st->rates.tgt_user_pct < 0 && st->rates.self_cpu_pct < 0);
        near(st->tps, 105);
        /* window 2's CPU alone, not averaged with window 1's missing sample */
        near(st->cpu.user, 60);
        near(st->cpu.idle, 40);

        j = scale_step_json(st, NULL, 0, &load);
        assert_non_null(j);
        sto = json_object_get(j, "storage");
        near(json_number_value(json_object_get(sto, "disk_util_pct")), 40);
        assert_true(json_is_null(json_object_get(json_object_get(sto, "host_disk"), "iops")));
        assert_true(json_is_null(json_object_get(sto, "target_cpu_user_pct")));
        /* the tipping-point reader takes the step, its unknown figures as unknown */
        assert_int_equal(res_tip_step_from_json(j, &ts), 1);
        near(ts.r.storage_util_pct, 40);
        assert_true(isnan(ts.r.storage_cpu_user_pct));
        json_decref(j);

        /* a step with no window at all: every rate unknown */
        st->nrep = 0;
        scale_summarise(st);
        assert_true(st->rates.disk_util_pct < 0 && st->rates.tgt_cpu_pct < 0);
        assert_true(st->rates.vm_cpu_pct[1] < 0 && st->rates.vm_periods[1] < 0);
        j = scale_step_json(st, NULL, 0, &load);
        assert_non_null(j);
        assert_true(json_is_null(json_object_get(json_object_get(j, "storage"), "util_pct")));
        assert_true(json_is_null(json_object_get(j, "memory")));
        json_decref(j);
        hist_free(st->lat);
        hist_free(st->vm[1].lat);
        free(st);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_first_window_lacks_disk),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
