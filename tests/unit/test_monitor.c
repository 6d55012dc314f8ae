/*
 * test_monitor.c - the host monitor against the real /proc of this machine.
 *
 * The test burns CPU itself while the monitor samples, so it can require
 * user+system time in the host split and in its own PID's figures. It never
 * asserts how much: the machine is shared.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/monitor.h"

static volatile uint64_t sink;

static uint64_t cpu_ns(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Burn at least ms of wall time and ms of this process's own CPU time (at
 * most 60 s of wall time): on a loaded machine a wall-clock burn alone may
 * get less CPU than one clock tick, and then /proc shows no CPU for us. */
static void burn_ms(unsigned ms)
{
        uint64_t want = (uint64_t)ms * 1000000ull, t0 = clk_now_ns(), c0 = cpu_ns();
        uint64_t x = 1;

        while (clk_now_ns() - t0 < want ||
               (cpu_ns() - c0 < want && clk_now_ns() - t0 < 60000000000ull))
                for (int i = 0; i < 10000; i++)
                        x = x * 6364136223846793005ull + 1442695040888963407ull;
        sink = x;
}

static double num(const json_t *o, const char *key)
{
        json_t *v = json_object_get(o, key);

        assert_non_null(v);
        assert_true(json_is_number(v));
        return json_number_value(v);
}

/* Every field present, each within 0..100, and the split adds up to 100. */
static void check_split(const json_t *cpu)
{
        static const char *const keys[] = {"user", "nice",    "system", "iowait",
                                           "irq",  "softirq", "steal",  "idle"};
        double sum = 0, v;

        assert_true(json_is_object(cpu));
        for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
                v = num(cpu, keys[i]);
                assert_true(v >= 0 && v <= 100.0 + 1e-9);
                sum += v;
        }
        assert_true(sum > 99.0 && sum < 101.0);
}

static void check_sample(const json_t *s, int *busy, int *self_busy, const char *label)
{
        const char *name;
        json_t *v, *c, *self;
        size_t i;
        char path[256];

        num(s, "t");
        assert_true(num(s, "dt") > 0);
        check_split(json_object_get(s, "cpu"));
        if (num(json_object_get(s, "cpu"), "user") + num(json_object_get(s, "cpu"), "nice") +
                num(json_object_get(s, "cpu"), "system") >
            0)
                *busy = 1;
        json_array_foreach(json_object_get(s, "cpus"), i, c) check_split(c);
        assert_true(json_array_size(json_object_get(s, "cpus")) >= 1);
        json_object_foreach(json_object_get(s, "disks"), name, v)
        {
                snprintf(path, sizeof(path), "/sys/class/block/%s/partition", name);
                assert_int_not_equal(access(path, F_OK), 0);
                assert_true(num(v, "util") >= 0 && num(v, "util") <= 100.0);
                assert_true(num(v, "r_iops") >= 0 && num(v, "w_bytes_s") >= 0);
        }
        assert_non_null(json_object_get(json_object_get(s, "net"), "lo"));
        self = json_object_get(json_object_get(s, "pids"), label);
        if (self && num(self, "cpu_pct") > 0)
                *self_busy = 1;
}

static void test_samples_while_burning(void **state)
{
        char err[256] = "", label[32];
        struct mon_cpu all;
        struct mon *m;
        json_t *j, *s, *sum;
        size_t i;
        int busy = 0, self_busy = 0;

        (void)state;
        m = mon_start(100, err, sizeof(err));
        assert_non_null(m);
        snprintf(label, sizeof(label), "self");
        mon_watch_pid(m, getpid(), label);
        mon_watch_pid(m, INT_MAX - 1, "gone"); /* no such PID: must just be skipped */
        burn_ms(350);
        mon_stop(m);
        mon_stop(m); /* a second call is harmless */

        j = mon_to_json(m);
        assert_non_null(j);
        assert_true(num(j, "interval_s") > 0.099 && num(j, "interval_s") < 0.101);
        assert_true(json_array_size(json_object_get(j, "samples")) >= 2);
        json_array_foreach(json_object_get(j, "samples"), i, s)
        {
                check_sample(s, &busy, &self_busy, label);
                assert_null(json_object_get(json_object_get(s, "pids"), "gone"));
        }
        assert_true(busy);
        assert_true(self_busy);

        sum = json_object_get(j, "summary");
        assert_non_null(sum);
        check_split(json_object_get(sum, "cpu"));
        assert_true(num(sum, "steal_max") >= 0);
        assert_true(json_is_boolean(json_object_get(sum, "untrusted")));
        assert_true(json_is_string(json_object_get(sum, "reason")));
        /* the flag and its reason go together */
        assert_int_equal(json_is_true(json_object_get(sum, "untrusted")),
                         json_string_length(json_object_get(sum, "reason")) > 0);

        mon_cpu_between(m, 0, 0, &all);
        assert_true(all.user + all.nice + all.system > 0);
        assert_true(all.user + all.nice + all.system + all.iowait + all.irq + all.softirq +
                        all.steal + all.idle >
                    99.0);
        json_decref(j);
        mon_free(m);
}

static double busy_of(const struct mon_cpu *c)
{
        return c->user + c->nice + c->system + c->irq + c->softirq + c->steal;
}

/* Host-wide shares of a window add up to 100 (the burn may count as nice, the rest as steal). */
static double split_sum(const struct mon_cpu *c)
{
        return busy_of(c) + c->iowait + c->idle;
}

/* A monitor sampling every 100 ms over a burn of ms, stopped. */
static struct mon *sampled_burn(unsigned ms)
{
        char err[256];
        struct mon *m = mon_start(100, err, sizeof(err));

        assert_non_null(m);
        burn_ms(ms);
        mon_stop(m);
        return m;
}

static void test_window_selects_samples(void **state)
{
        struct mon_cpu none, all, wide;
        struct mon *m = sampled_burn(250);

        (void)state;
        /* a window before the run holds no sample: all zero */
        mon_cpu_between(m, 1, 2, &none);
        assert_true(none.user == 0 && none.idle == 0 && none.steal == 0);
        /* a window around the whole run is the whole run */
        mon_cpu_between(m, 0, 0, &all);
        mon_cpu_between(m, 1, UINT64_MAX, &wide);
        assert_true(split_sum(&all) > 99.0);
        assert_memory_equal(&all, &wide, sizeof(all));
        mon_free(m);
}

/* A set of CPUs: every online CPU gives the host's figure (the total line is
 * the sum of the CPU lines), one CPU a full split of its own, a CPU the host
 * does not have nothing. */
static void test_cpu_set_window(void **state)
{
        struct mon_cpu all, every, one, none;
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        cpu_set_t set;
        /*
         * A second: at 100 jiffies a second per CPU line, a jiffy rounded
         * per line is half a point of the host's figure; a quarter second
         * left two points per jiffy, and a loaded machine broke the bound.
         */
        struct mon *m = sampled_burn(1000);

        (void)state;
        mon_cpu_between(m, 0, 0, &all);
        CPU_ZERO(&set);
        for (long c = 0; c < ncpu; c++)
                CPU_SET((int)c, &set);
        assert_int_equal(mon_cpus_between(m, 0, 0, &set, &every), (unsigned)ncpu);
        /* jiffies round per CPU line: a point or two apart at most */
        assert_true(fabs(busy_of(&every) - busy_of(&all)) < 3.0);
        assert_true(fabs(every.idle - all.idle) < 3.0);
        CPU_ZERO(&set);
        CPU_SET(0, &set);
        assert_int_equal(mon_cpus_between(m, 0, 0, &set, &one), 1);
        assert_true(split_sum(&one) > 99.0);
        CPU_ZERO(&set);
        CPU_SET(CPU_SETSIZE - 1, &set);
        assert_int_equal(mon_cpus_between(m, 0, 0, &set, &none), 0);
        assert_true(busy_of(&none) == 0 && none.idle == 0);
        mon_free(m);
}

/* Another thread reads the window while the monitor thread appends samples (scale and block
 * do this every step): under ThreadSanitizer an unguarded read is a reported race. */
static void test_window_while_sampling(void **state)
{
        char err[256];
        struct mon_cpu c;
        struct mon *m;
        uint64_t t0;
        unsigned reads = 0;

        (void)state;
        m = mon_start(100, err, sizeof(err));
        assert_non_null(m);
        t0 = clk_now_ns();
        while (clk_now_ns() - t0 < 450000000ull) {
                mon_cpu_between(m, 0, 0, &c);
                mon_cpu_between(m, t0, clk_now_ns(), &c);
                reads++;
        }
        mon_stop(m);
        assert_true(reads > 0);
        mon_cpu_between(m, 0, 0, &c);
        assert_true(split_sum(&c) > 99.0);
        mon_free(m);
}

static void test_short_run_has_one_sample(void **state)
{
        char err[256];
        struct mon *m;
        json_t *j;

        (void)state;
        /* an hour-long interval: mon_stop must wake the thread, not wait */
        m = mon_start(3600 * 1000, err, sizeof(err));
        assert_non_null(m);
        mon_stop(m);
        j = mon_to_json(m);
        assert_non_null(j);
        assert_int_equal(json_array_size(json_object_get(j, "samples")), 1);
        check_split(json_object_get(json_array_get(json_object_get(j, "samples"), 0), "cpu"));
        json_decref(j);
        mon_free(m);
}

static void test_bad_interval(void **state)
{
        char err[256] = "";

        (void)state;
        assert_null(mon_start(10, err, sizeof(err)));
        assert_non_null(strstr(err, "10 ms"));
        mon_free(NULL);
}

static void test_free_without_stop(void **state)
{
        char err[256];
        struct mon *m;

        (void)state;
        m = mon_start(100, err, sizeof(err));
        assert_non_null(m);
        mon_free(m); /* joins the thread; ASan reports any leak */
}

static void test_host_info(void **state)
{
        json_t *h = host_info_json();
        const char *s;

        (void)state;
        assert_non_null(h);
        assert_int_equal(json_integer_value(json_object_get(h, "cpus")),
                         sysconf(_SC_NPROCESSORS_ONLN));
        assert_true(json_integer_value(json_object_get(h, "cpus")) >= 1);
        assert_true(json_is_string(json_object_get(h, "model")));
        s = json_string_value(json_object_get(h, "kernel"));
        assert_non_null(s);
        assert_true(s[0] >= '1' && s[0] <= '9'); /* a release like "6.1.0-…" */
        assert_true(json_integer_value(json_object_get(h, "memory_bytes")) >= 64ll << 20);
        assert_int_equal(json_integer_value(json_object_get(h, "memory_bytes")) % 1024, 0);
        s = json_string_value(json_object_get(h, "hostname"));
        assert_non_null(s);
        assert_true(strlen(s) > 0);
        json_decref(h);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_samples_while_burning),
            cmocka_unit_test(test_window_selects_samples),
            cmocka_unit_test(test_window_while_sampling),
            cmocka_unit_test(test_cpu_set_window),
            cmocka_unit_test(test_short_run_has_one_sample),
            cmocka_unit_test(test_bad_interval),
            cmocka_unit_test(test_free_without_stop),
            cmocka_unit_test(test_host_info),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
