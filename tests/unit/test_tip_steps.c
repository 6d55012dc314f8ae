/*
 * test_tip_steps.c - the tipping point read off scale steps as `scale`
 * writes them (results/tip_json.h), with the figures the steps record:
 * storage.vm_disks[], tgtd's user and system CPU, storage latency and
 * utilisation, the VMs' quota use and throttled time from their cgroups.
 * Each case of the attribution (a) compute limiting storage, (b)
 * storage-bound, (c) VM-bound, (d) memory, (e) none is a constructed ramp
 * of 1, 2 and 4 VMs that tips at 2 (100 -> 190 -> 200 TPS), the resource
 * figures of steps 2 and 4 chosen for the case. And the noise band of a
 * step without repeats, from its intervals.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results/tip_json.h"

/* The ramp with step 2's resources t and step 4's a (JSON object members, "" none). */
static void tip_of(const char *t, const char *a, struct res_tip *out)
{
        char text[4096];
        json_error_t e;
        json_t *steps;

        snprintf(text, sizeof(text),
                 "[{\"vms\":1,\"state\":\"ok\",\"totals\":{\"tps\":100,\"seconds\":10}},"
                 "{\"vms\":2,\"state\":\"ok\",\"totals\":{\"tps\":190,\"seconds\":10}%s%s},"
                 "{\"vms\":4,\"state\":\"ok\",\"totals\":{\"tps\":200,\"seconds\":10}%s%s}]",
                 t[0] ? "," : "", t, a[0] ? "," : "", a);
        steps = json_loads(text, 0, &e);
        if (!steps)
                fail_msg("bad JSON (%s): %s", e.text, text);
        assert_int_equal(res_tip_of_steps(steps, NULL, NULL, out), 0);
        json_decref(steps);
        assert_true(out->found);
        assert_true(out->load == 2);
}

static void has(const struct res_tip *t, const char *want)
{
        if (!strstr(t->reason, want))
                fail_msg("'%s' not in: %s", want, t->reason);
}

/* (a) host CPU saturated, tgtd's share flat, the VM disks' latency up: compute limits storage */
static void test_compute_limiting_storage(void **state)
{
        struct res_tip t;

        (void)state;
        tip_of("\"host_cpu\":{\"busy\":86},\"cpu_by_owner\":{\"storage\":12},"
               "\"storage\":{\"target_cpu_user_pct\":9,\"target_cpu_system_pct\":15,"
               "\"vm_disks\":[{\"util_pct\":40,\"iops\":1000,\"lat_ms\":0.3},"
               "{\"util_pct\":30,\"iops\":1000,\"lat_ms\":0.5}]},"
               "\"vm_quota\":{\"used_pct\":60,\"throttled_time_pct\":1}",
               "\"host_cpu\":{\"busy\":99},\"cpu_by_owner\":{\"storage\":11.5},"
               "\"storage\":{\"target_cpu_user_pct\":8.5,\"target_cpu_system_pct\":14.5,"
               "\"vm_disks\":[{\"util_pct\":45,\"iops\":1000,\"lat_ms\":0.8},"
               "{\"util_pct\":50,\"iops\":1000,\"lat_ms\":1.0}]},"
               "\"vm_quota\":{\"used_pct\":62,\"throttled_time_pct\":2}",
               &t);
        assert_int_equal(t.limited_by, RES_LIM_CPU);
        has(&t, "compute limiting storage");
        /* both steps' figures: the VM disks' latency over all their I/Os, the busiest disk */
        has(&t, "host CPU 86% -> 99% busy");
        has(&t, "storage service CPU 12.0% -> 11.5% of the host");
        has(&t, "its user CPU 9.0% -> 8.5% of one CPU, its system CPU 15.0% -> 14.5% of one CPU");
        has(&t, "storage latency 0.40 -> 0.90 ms, storage 40% -> 50% utilised");
        if (strstr(strstr(t.reason, "storage latency") + 1, "storage latency 0.40 -> 0.90"))
                fail_msg("a figure cited twice: %s", t.reason);
        has(&t, "storage 40% -> 50% utilised");
        has(&t, "storage IOPS 2000 -> 2000");
        has(&t, "Headroom at 2 VMs: host CPU 14% idle, storage 40% utilised");
}

/* Two-layer: the host at 70% hides the VMs' own CPU (CPU 0) at 99% while the
 * storage service idles on CPU 1. The compute layer limited it; without the
 * compute figure the VMs' throttling, with host CPU left, read as their quotas. */
static void test_two_layer_compute_cpus(void **state)
{
        static const char *const t2 = "\"host_cpu\":{\"busy\":62},\"cpu_by_owner\":{\"storage\":9},"
                                      "\"storage\":{\"util_pct\":30,\"lat_ms\":0.5},"
                                      "\"vm_quota\":{\"used_pct\":80,\"throttled_time_pct\":3}";
        static const char *const a4 = "\"host_cpu\":{\"busy\":70},\"cpu_by_owner\":{\"storage\":9},"
                                      "\"storage\":{\"util_pct\":32,\"lat_ms\":0.55},"
                                      "\"vm_quota\":{\"used_pct\":50,\"throttled_time_pct\":30}";
        char t[512], a[512];
        struct res_tip r;

        (void)state;
        tip_of(t2, a4, &r);
        assert_int_equal(r.limited_by, RES_LIM_VM_CPU);
        snprintf(t, sizeof(t), "%s,\"compute_cpu\":{\"cpus\":\"0\",\"busy\":85}", t2);
        snprintf(a, sizeof(a), "%s,\"compute_cpu\":{\"cpus\":\"0\",\"busy\":99}", a4);
        tip_of(t, a, &r);
        assert_int_equal(r.limited_by, RES_LIM_CPU);
        has(&r, "cpu: the compute CPUs (the VMs' own) saturated");
        has(&r, "compute CPUs (the VMs' own) 85% -> 99% busy, host CPU 62% -> 70% busy");
        has(&r, "Headroom at 2 VMs: compute CPUs 15% idle, host CPU 38% idle");
}

/* (b) the busiest VM disk saturated with CPU to spare */
static void test_storage_bound(void **state)
{
        struct res_tip t;

        (void)state;
        tip_of("\"host_cpu\":{\"busy\":50},\"cpu_by_owner\":{\"storage\":8},"
               "\"storage\":{\"util_pct\":70,\"lat_ms\":0.5,\"iops\":3000,"
               "\"target_cpu_user_pct\":6,\"target_cpu_system_pct\":10},"
               "\"vm_quota\":{\"used_pct\":50,\"throttled_time_pct\":0}",
               "\"host_cpu\":{\"busy\":55},\"cpu_by_owner\":{\"storage\":9},"
               "\"storage\":{\"util_pct\":97,\"lat_ms\":0.8,\"iops\":3100,"
               "\"target_cpu_user_pct\":6,\"target_cpu_system_pct\":11},"
               "\"vm_quota\":{\"used_pct\":40,\"throttled_time_pct\":0}",
               &t);
        assert_int_equal(t.limited_by, RES_LIM_STORAGE);
        has(&t, "storage: the storage side saturated with CPU to spare");
        has(&t, "storage 70% -> 97% utilised");
        has(&t, "Headroom at 2 VMs: host CPU 50% idle");
        /* the same disks with the host saturated too: the CPU is named, the storage beside it */
        tip_of("\"host_cpu\":{\"busy\":80},\"storage\":{\"util_pct\":70,\"lat_ms\":0.5}",
               "\"host_cpu\":{\"busy\":97},\"storage\":{\"util_pct\":97,\"lat_ms\":0.55}", &t);
        assert_int_equal(t.limited_by, RES_LIM_CPU);
        has(&t, "the storage side with it");
        /* latency up 3x with CPU to spare, utilisation below saturation */
        tip_of("\"host_cpu\":{\"busy\":40},\"storage\":{\"util_pct\":50,\"lat_ms\":0.5}",
               "\"host_cpu\":{\"busy\":45},\"storage\":{\"util_pct\":60,\"lat_ms\":1.5}", &t);
        assert_int_equal(t.limited_by, RES_LIM_STORAGE);
        has(&t, "more than doubled");
}

/* (c) the VMs throttled much of the step by their quotas, host CPU left */
static void test_vm_bound(void **state)
{
        struct res_tip t;

        (void)state;
        /* quota use below 90% and throttled in under half the periods: the time decides */
        tip_of("\"host_cpu\":{\"busy\":60},\"cpu_by_owner\":{\"storage\":6},"
               "\"storage\":{\"util_pct\":30,\"lat_ms\":0.40,\"iops\":900},"
               "\"vm_quota\":{\"used_pct\":75,\"throttled_pct\":20,\"throttled_time_pct\":12}",
               "\"host_cpu\":{\"busy\":66},\"cpu_by_owner\":{\"storage\":6},"
               "\"storage\":{\"util_pct\":31,\"lat_ms\":0.42,\"iops\":950},"
               "\"vm_quota\":{\"used_pct\":85,\"throttled_pct\":40,\"throttled_time_pct\":45}",
               &t);
        assert_int_equal(t.limited_by, RES_LIM_VM_CPU);
        has(&t, "vm-cpu");
        has(&t, "VMs throttled 12% -> 45% of the time");
        has(&t, "VMs throttled in 20% -> 40% of periods");
        /* storage idle with flat latency at the tipping point: it had headroom */
        has(&t, "VMs throttled 12% of the time; latency flat: storage had headroom");
        /* throttled as much, but the host itself had no CPU left: the host is the limit */
        tip_of("\"host_cpu\":{\"busy\":90},\"vm_quota\":{\"throttled_time_pct\":12}",
               "\"host_cpu\":{\"busy\":99},\"vm_quota\":{\"throttled_time_pct\":45}", &t);
        assert_int_equal(t.limited_by, RES_LIM_CPU);
        /* a little throttling is no limit */
        tip_of("\"host_cpu\":{\"busy\":50},\"vm_quota\":{\"throttled_time_pct\":5}",
               "\"host_cpu\":{\"busy\":52},\"vm_quota\":{\"throttled_time_pct\":10}", &t);
        assert_int_equal(t.limited_by, RES_LIM_NONE);
}

/* (d) the VMs swapped or were OOM-killed */
static void test_memory(void **state)
{
        struct res_tip t;

        (void)state;
        tip_of("\"host_cpu\":{\"busy\":50},\"memory\":{\"swap_pages\":0,\"oom_kills\":0}",
               "\"host_cpu\":{\"busy\":99},\"memory\":{\"swap_pages\":0,\"oom_kills\":1},"
               "\"vm_quota\":{\"throttled_time_pct\":60}",
               &t);
        assert_int_equal(t.limited_by, RES_LIM_MEMORY);
        has(&t, "memory");
}

/* (e) nothing at its limit: the reason names what was not measured */
static void test_none(void **state)
{
        struct res_tip t;

        (void)state;
        tip_of("\"host_cpu\":{\"busy\":50}", "\"host_cpu\":{\"busy\":52}", &t);
        assert_int_equal(t.limited_by, RES_LIM_NONE);
        has(&t, "figures missing: storage utilisation, storage latency, storage service CPU, "
                "VM quota use, VM throttling");
        has(&t, "host CPU 50% -> 52% busy");
}

/* A step of vms VMs at tps whose one run's intervals go around it by +-dev in blocks of 5. */
static json_t *iv_step(unsigned vms, double tps, double dev)
{
        json_t *iv = json_array();

        for (unsigned i = 0; i < 40; i++)
                json_array_append_new(iv, json_pack("{s:f,s:f}", "t", 0.5 * (i + 1), "tps",
                                                    tps + ((i / 5) % 2 ? dev : -dev)));
        return json_pack("{s:i,s:s,s:{s:f,s:f},s:o}", "vms", (int)vms, "state", "ok", "totals",
                         "tps", tps, "seconds", 20.0, "intervals", iv);
}

/*
 * Without --repeat every step still has a band, from its intervals' batch
 * means: a second VM that adds 3% is no gain when the intervals are quiet
 * (+-1%: tipped at the first step), and cannot be told from noise when they
 * swing +-30% (undecided: more repeats needed).
 */
static void test_band_from_intervals(void **state)
{
        struct res_tip_step st;
        struct res_tip t;
        json_t *steps;
        double lo, hi;

        (void)state;
        steps = json_pack("[o,o]", iv_step(1, 1000, 10), iv_step(2, 1030, 10.3));
        assert_int_equal(res_tip_step_from_json(json_array_get(steps, 0), &st), 1);
        /* batches of 4 samples (40 / 10): -,-,-,-  -,+,+,+  +,+,-,- ... the CI of their means */
        {
                double v[40], mid;

                for (unsigned i = 0; i < 40; i++)
                        v[i] = 1000 + ((i / 5) % 2 ? 10 : -10);
                res_tip_band(v, 40, 0, &mid, &lo, &hi);
        }
        assert_true(hi > lo);
        assert_true(fabs(st.lo - lo) < 1e-9 && fabs(st.hi - hi) < 1e-9);
        assert_int_equal(res_tip_of_steps(steps, NULL, NULL, &t), 0);
        json_decref(steps);
        assert_true(t.found);
        assert_true(t.load == 1);
        has(&t, "the first step");

        steps = json_pack("[o,o]", iv_step(1, 1000, 300), iv_step(2, 1030, 309));
        assert_int_equal(res_tip_of_steps(steps, NULL, NULL, &t), 0);
        json_decref(steps);
        assert_false(t.found);
        assert_true(t.undecided);
        has(&t, "more repeats needed");

        /* repeats, when there are, decide the band, not the intervals */
        steps = json_pack("[o]", iv_step(1, 1000, 100));
        json_object_set_new(json_array_get(steps, 0), "repeats",
                            json_pack("[{s:f},{s:f}]", "tps", 990.0, "tps", 1010.0));
        assert_int_equal(res_tip_step_from_json(json_array_get(steps, 0), &st), 1);
        assert_true(st.lo == 990 && st.hi == 1010);
        json_decref(steps);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_compute_limiting_storage),
            cmocka_unit_test(test_two_layer_compute_cpus),
            cmocka_unit_test(test_storage_bound),
            cmocka_unit_test(test_vm_bound),
            cmocka_unit_test(test_memory),
            cmocka_unit_test(test_none),
            cmocka_unit_test(test_band_from_intervals),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
