/*
 * test_scale_cgcpu.c - a VM's CPU from its cgroup: cpu.stat as cgroup v1
 * and v2 write it (cg_parse_cpustat), the probe reading a VM's group (v1: cpu.stat and
 * cpuacct.usage; v2: cpu.stat alone) at both ends of a window, the rates
 * it makes of them (the group's usage replaces the processes' sum;
 * periods, throttled periods and seconds), and a step's quota figures
 * summed over its VMs. The groups are files in a temporary directory
 * holding the figures a kernel would write.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scale/scale.h"

static struct cg_stats unknown(void)
{
        return (struct cg_stats){
            .usage_ns = -1, .periods = -1, .throttled = -1, .throttled_ns = -1};
}

static void test_parse_v1(void **state)
{
        struct cg_stats c = unknown();

        (void)state;
        cg_parse_cpustat("nr_periods 120\nnr_throttled 30\nthrottled_time 4500000000\n"
                         "nr_bursts 0\nburst_time 0\n",
                         &c);
        assert_int_equal(c.periods, 120);
        assert_int_equal(c.throttled, 30);
        assert_int_equal(c.throttled_ns, 4500000000LL);
        assert_int_equal(c.usage_ns, -1); /* v1 keeps it in cpuacct.usage */
}

static void test_parse_v2(void **state)
{
        struct cg_stats c = unknown();

        (void)state;
        cg_parse_cpustat("usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n"
                         "core_sched.force_idle_usec 0\nnr_periods 50\nnr_throttled 10\n"
                         "throttled_usec 750000\nnr_bursts 0\nburst_usec 0\n",
                         &c);
        assert_int_equal(c.usage_ns, 2500000000LL);
        assert_int_equal(c.periods, 50);
        assert_int_equal(c.throttled, 10);
        assert_int_equal(c.throttled_ns, 750000000LL);
}

static void test_parse_empty(void **state)
{
        struct cg_stats c = unknown();

        (void)state;
        cg_parse_cpustat("", &c);
        cg_parse_cpustat(NULL, &c);
        cg_parse_cpustat("garbage\n", &c);
        assert_int_equal(c.usage_ns, -1);
        assert_int_equal(c.periods, -1);
        assert_int_equal(c.throttled_ns, -1);
}

static void put(const char *dir, const char *name, const char *text)
{
        char path[600];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

static void rm(const char *dir, const char *name)
{
        char path[600];

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        unlink(path);
}

/*
 * Two VMs over one window: vm1 in a v1 group (cpu.stat + cpuacct.usage),
 * vm2 in a v2 group (cpu.stat alone). Snapshot times are set by hand so the
 * window is exactly 10 s.
 */
static void test_probe_window(void **state)
{
        char dir[] = "/tmp/test_scale_cgcpu.XXXXXX", cpu1[64], acct1[64], cpu2[64];
        struct scale_follow vm[3];
        struct scale_snap *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
        struct scale_rates *r = calloc(1, sizeof(*r));
        struct scale_probe *p;

        (void)state;
        assert_non_null(mkdtemp(dir));
        snprintf(cpu1, sizeof(cpu1), "%s", dir);
        snprintf(acct1, sizeof(acct1), "%s/acct", dir);
        snprintf(cpu2, sizeof(cpu2), "%s/v2", dir);
        assert_int_equal(mkdir(acct1, 0700), 0);
        assert_int_equal(mkdir(cpu2, 0700), 0);
        memset(vm, 0, sizeof(vm));
        vm[1].cg.version = 1;
        snprintf(vm[1].cg.path[CG_CPU], sizeof(vm[1].cg.path[CG_CPU]), "%s", cpu1);
        snprintf(vm[1].cg.path[CG_CPUACCT], sizeof(vm[1].cg.path[CG_CPUACCT]), "%s", acct1);
        vm[2].cg.version = 2; /* one directory; cpu.stat has the usage */
        snprintf(vm[2].cg.path[CG_CPUACCT], sizeof(vm[2].cg.path[CG_CPUACCT]), "%s", cpu2);
        p = scale_probe_new(dir);
        assert_non_null(p);
        scale_probe_set(p, 0, vm, 2);

        put(cpu1, "cpu.stat", "nr_periods 1000\nnr_throttled 100\nthrottled_time 2000000000\n");
        put(acct1, "cpuacct.usage", "50000000000\n");
        put(cpu2, "cpu.stat",
            "usage_usec 10000000\nnr_periods 500\nnr_throttled 0\n"
            "throttled_usec 0\n");
        scale_probe_take(p, a);
        /* vm1: 8 s of CPU in 10 s (80% of one CPU), throttled in 60 of 100 periods for 3 s;
         * vm2: 2.5 s of CPU, never throttled */
        put(cpu1, "cpu.stat", "nr_periods 1100\nnr_throttled 160\nthrottled_time 5000000000\n");
        put(acct1, "cpuacct.usage", "58000000000\n");
        put(cpu2, "cpu.stat",
            "usage_usec 12500000\nnr_periods 600\nnr_throttled 0\n"
            "throttled_usec 0\n");
        scale_probe_take(p, b);
        b->t_ns = a->t_ns + 10000000000ULL;
        scale_probe_rates(p, a, b, r);

        assert_true(r->vm_cpu_cg[1] && r->vm_cpu_cg[2]);
        assert_true(fabs(r->vm_cpu_pct[1] - 80) < 1e-9);
        assert_true(fabs(r->vm_cpu_pct[2] - 25) < 1e-9);
        assert_true(fabs(r->vm_periods[1] - 100) < 1e-9);
        assert_true(fabs(r->vm_throttled[1] - 60) < 1e-9);
        assert_true(fabs(r->vm_throttled_s[1] - 3) < 1e-9);
        assert_true(fabs(r->vm_throttled_s[2]) < 1e-9);

        {
                struct scale_step *st = calloc(1, sizeof(*st));
                struct scale_quota q;

                assert_non_null(st);
                st->vms = 2;
                st->rates = *r;
                scale_vm_quota(st, &q);
                assert_int_equal(q.cg_vms, 2);
                assert_true(fabs(q.periods - 200) < 1e-9);
                assert_true(fabs(q.throttled - 60) < 1e-9);
                assert_true(fabs(q.throttled_pct - 30) < 1e-9);      /* 60 of 200 periods */
                assert_true(fabs(q.throttled_time_pct - 15) < 1e-9); /* 3 s of 2 VMs x 10 s */
                /* a VM whose group said nothing leaves the others' figures alone */
                st->vms = 3;
                st->rates.vm_periods[3] = st->rates.vm_throttled[3] = -1;
                st->rates.vm_throttled_s[3] = -1;
                scale_vm_quota(st, &q);
                assert_int_equal(q.cg_vms, 2);
                assert_true(fabs(q.throttled_time_pct - 15) < 1e-9);
                free(st);
        }

        /* the group gone (a VM restarted elsewhere): no cgroup figures, the processes' sum */
        rm(acct1, "cpuacct.usage");
        rm(cpu1, "cpu.stat");
        scale_probe_take(p, b);
        b->t_ns = a->t_ns + 10000000000ULL;
        scale_probe_rates(p, a, b, r);
        assert_false(r->vm_cpu_cg[1]);
        assert_true(r->vm_periods[1] < 0 && r->vm_throttled_s[1] < 0);

        rm(cpu2, "cpu.stat");
        rmdir(cpu2);
        rmdir(acct1);
        rmdir(dir);
        scale_probe_free(p);
        free(a);
        free(b);
        free(r);
}

/* No group at all (backends without cgroups): nothing is read, the figures stay unknown. */
static void test_no_group(void **state)
{
        struct scale_follow vm[2];
        struct scale_snap *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
        struct scale_rates *r = calloc(1, sizeof(*r));
        struct scale_probe *p = scale_probe_new("/nonexistent");

        (void)state;
        memset(vm, 0, sizeof(vm));
        scale_probe_set(p, 0, vm, 1);
        scale_probe_take(p, a);
        scale_probe_take(p, b);
        b->t_ns = a->t_ns + 1000000000ULL;
        scale_probe_rates(p, a, b, r);
        assert_false(r->vm_cpu_cg[1]);
        assert_true(r->vm_cpu_pct[1] < 0);
        assert_true(r->vm_periods[1] < 0);
        scale_probe_free(p);
        free(a);
        free(b);
        free(r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_parse_v1),    cmocka_unit_test(test_parse_v2),
            cmocka_unit_test(test_parse_empty), cmocka_unit_test(test_probe_window),
            cmocka_unit_test(test_no_group),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
