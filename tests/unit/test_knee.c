/*
 * test_knee.c - peak, Kneedle knee, latency knee and SLO on constructed
 * ramps whose answers are worked out by hand, and the ramp parsers (CSV,
 * sysbench text, fio and hcisweep JSON) on small inputs, including the line
 * an error names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/knee.h"
#include "results/ramp.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const double doubling[] = {1, 2, 4, 8, 16, 32};

static void test_linear(void **state)
{
        const double x[] = {1, 2, 3, 4, 5, 6, 7, 8};
        double y[N(x)], y2[N(doubling)];

        (void)state;
        for (unsigned i = 0; i < N(x); i++)
                y[i] = 123.5 * x[i];
        for (unsigned i = 0; i < N(doubling); i++)
                y2[i] = 1000 * doubling[i] + 7;
        assert_int_equal(knee_peak(y, N(y)), N(y) - 1);
        assert_int_equal(knee_kneedle(x, y, N(x), 1.0), -1);
        assert_int_equal(knee_peak(y2, N(y2)), N(y2) - 1);
        assert_int_equal(knee_kneedle(doubling, y2, N(y2), 1.0), -1);
}

static void test_plateau(void **state)
{
        /* y_d = 0, .107, .320, .746, .502, 0; T at load 8 = .746 - 1/5 = .546 > .502 */
        const double y[] = {100, 200, 400, 800, 810, 820};

        (void)state;
        assert_int_equal(knee_peak(y, N(y)), 5);
        assert_int_equal(knee_kneedle(doubling, y, N(y), 1.0), 3);
}

static void test_plateau_then_dip(void **state)
{
        const double y[] = {100, 200, 400, 800, 820, 700};
        struct ramp r = {0};
        struct knee_result k;

        (void)state;
        for (unsigned i = 0; i < N(y); i++)
                assert_int_equal(ramp_add(&r, doubling[i], y[i], NAN), 0);
        assert_int_equal(knee_analyze(&r, 0, &k), 0);
        assert_int_equal(k.peak, 4);          /* load 16: before the dip */
        assert_int_equal(k.knee, 3);          /* load 8: the bend */
        assert_int_equal(k.latency_knee, -1); /* no latency at all */
        assert_int_equal(k.slo, -1);
        free(r.p);
}

static void test_flat_and_short(void **state)
{
        const double y[] = {5, 5, 5, 5};

        (void)state;
        assert_int_equal(knee_kneedle(doubling, y, N(y), 1.0), -1);
        assert_int_equal(knee_kneedle(doubling, y, 2, 1.0), -1);
        assert_int_equal(knee_peak(y, 0), -1);
        assert_int_equal(knee_peak(y, N(y)), 0); /* first on ties */
}

static void test_latency_cliff(void **state)
{
        /* slopes .1 .05 .05 .05 .51: the last exceeds 3 * median(.1,.05,.05,.05) */
        const double lat[] = {1, 1.1, 1.2, 1.4, 1.8, 10};
        const double straight[] = {1, 2, 4, 8, 16, 32};
        const double falling[] = {10, 8, 6, 5.9, 5.95, 5.9};
        double gap[N(lat)];

        (void)state;
        assert_int_equal(knee_latency(doubling, lat, N(lat)), 4); /* load 16 */
        assert_int_equal(knee_latency(doubling, straight, N(straight)), -1);
        assert_int_equal(knee_latency(doubling, falling, N(falling)), -1);
        assert_int_equal(knee_latency(doubling, lat, 3), -1); /* i >= 3 needs 4 points */
        memcpy(gap, lat, sizeof(lat));
        gap[2] = NAN;
        assert_int_equal(knee_latency(doubling, gap, N(gap)), -1);
}

static void test_slo(void **state)
{
        const double lat[] = {1, 2, 3, 5, 8, 13};

        (void)state;
        assert_int_equal(knee_slo(lat, N(lat), 4), 2);
        assert_int_equal(knee_slo(lat, N(lat), 5), 3); /* "at most" includes equal */
        assert_int_equal(knee_slo(lat, N(lat), 100), 5);
        assert_int_equal(knee_slo(lat, N(lat), 0.5), -1);
        assert_int_equal(knee_slo(lat, N(lat), 0), -1); /* no SLO asked */
}

static void test_csv_reordered(void **state)
{
        const char csv[] = "# a comment\n"
                           "latency_ms, note ,Throughput,load\r\n"
                           "4.0,x,400,4\n"
                           "\n"
                           "1.0,\"y\",100,1\n"
                           "2.0,z,180,2\n"
                           "2.5,z,220,2\n";
        struct ramp_set s;
        char err[256] = "";

        (void)state;
        assert_int_equal(ramp_parse_buf(csv, strlen(csv), &s, err, sizeof(err)), 0);
        assert_string_equal(s.format, "csv");
        assert_int_equal(s.n, 1);
        assert_int_equal(s.r[0].n, 3); /* the two rows at load 2 are averaged */
        assert_true(s.r[0].p[0].load == 1 && s.r[0].p[0].tput == 100);
        assert_true(s.r[0].p[1].load == 2 && s.r[0].p[1].tput == 200);
        assert_true(fabs(s.r[0].p[1].lat_ms - 2.25) < 1e-12);
        assert_true(s.r[0].p[2].load == 4 && s.r[0].p[2].lat_ms == 4.0);
        assert_true(ramp_has_latency(&s.r[0]));
        ramp_set_free(&s);
}

static void expect_csv_error(const char *csv, const char *want)
{
        struct ramp_set s;
        char err[256] = "";

        assert_int_equal(ramp_parse_buf(csv, strlen(csv), &s, err, sizeof(err)), -EINVAL);
        if (!strstr(err, want))
                fail_msg("error '%s' does not contain '%s'", err, want);
        assert_int_equal(s.n, 0);
}

static void test_csv_malformed(void **state)
{
        (void)state;
        expect_csv_error("load,throughput\n1,100\n\n2,abc\n", "line 4: column throughput: 'abc'");
        expect_csv_error("load,throughput\n1,100\n2\n", "line 3: 1 fields, the header has 2");
        expect_csv_error("# x\nqd,iops\n1,100\n", "line 2: the CSV header must name");
        expect_csv_error("load,throughput\n-1,100\n", "line 2: column load: -1 is negative");
        expect_csv_error("", "no CSV header");
}

static void test_csv_no_latency(void **state)
{
        const char csv[] = "load,throughput,latency_ms\n1,10,\n2,20,1\n";
        struct ramp_set s;
        char err[256];

        (void)state;
        assert_int_equal(ramp_parse_buf(csv, strlen(csv), &s, err, sizeof(err)), 0);
        assert_true(isnan(s.r[0].p[0].lat_ms));
        assert_false(ramp_has_latency(&s.r[0]));
        ramp_set_free(&s);
}

#define SB_RUN(threads, tps, avg)                                                                  \
        "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n\n"                                    \
        "Running the test with following options:\n"                                               \
        "Number of threads: " threads "\n"                                                         \
        "Initializing random number generator from current time\n\n"                               \
        "Threads started!\n\n"                                                                     \
        "SQL statistics:\n"                                                                        \
        "    queries performed:\n"                                                                 \
        "        read:                            14000\n"                                         \
        "    transactions:                        1000   (" tps " per sec.)\n"                     \
        "    queries:                             20000  (1996.02 per sec.)\n"                     \
        "    ignored errors:                      0      (0.00 per sec.)\n\n"                      \
        "Latency (ms):\n"                                                                          \
        "         min:                                    5.12\n"                                  \
        "         avg:                                   " avg "\n"                                \
        "         max:                                  120.31\n\n"                                \
        "Threads fairness:\n"                                                                      \
        "    events (avg/stddev):           250.0000/3.00\n"

static void test_sysbench_runs(void **state)
{
        const char txt[] = SB_RUN("1", "99.80", "10.02") SB_RUN("2", "190.5", "10.50")
            SB_RUN("4", "350.25", "11.42");
        struct ramp_set s;
        char err[256] = "";

        (void)state;
        assert_int_equal(ramp_parse_buf(txt, strlen(txt), &s, err, sizeof(err)), 0);
        assert_string_equal(s.format, "sysbench");
        assert_int_equal(s.r[0].n, 3);
        assert_true(s.r[0].p[0].load == 1 && fabs(s.r[0].p[0].tput - 99.80) < 1e-9);
        assert_true(s.r[0].p[2].load == 4 && fabs(s.r[0].p[2].tput - 350.25) < 1e-9);
        assert_true(fabs(s.r[0].p[1].lat_ms - 10.50) < 1e-9);
        ramp_set_free(&s);
}

static void test_sysbench_intervals(void **state)
{
        const char txt[] = "Number of threads: 8\n"
                           "[ 1s ] thds: 2 tps: 100.00 qps: 2000.00 (r/w/o: 1400.00/400.00/200.00) "
                           "lat (ms,95%): 12.50 err/s: 0.00 reconn/s: 0.00\n"
                           "[ 2s ] thds: 4 tps: 180.00 qps: 3600.00 lat (ms,95%): 14.00 err/s: 0\n"
                           "[ 3s ] thds: 4 tps: 200.00 qps: 4000.00 lat (ms,95%): 16.00 err/s: 0\n";
        struct ramp_set s;
        char err[256] = "";

        (void)state;
        assert_int_equal(ramp_parse_buf(txt, strlen(txt), &s, err, sizeof(err)), 0);
        assert_int_equal(s.r[0].n, 2);
        assert_string_equal(s.r[0].lat_name, "p95");
        assert_true(s.r[0].p[1].load == 4 && s.r[0].p[1].tput == 190 && s.r[0].p[1].lat_ms == 15);
        ramp_set_free(&s);
}

static void test_fio_concatenated(void **state)
{
        const char txt[] =
            "{\"fio version\": \"fio-3.33\", \"global options\": {\"iodepth\": \"2\"},\n"
            " \"jobs\": [{\"job options\": {}, \"read\": {\"iops\": 300, \"total_ios\": 300,\n"
            "   \"lat_ns\": {\"mean\": 2000000}}, \"write\": {\"iops\": 100, \"total_ios\": 100,\n"
            "   \"lat_ns\": {\"mean\": 6000000}}}]}\n"
            "{\"fio version\": \"fio-3.33\", \"jobs\": [\n"
            "  {\"job options\": {\"iodepth\": \"1\"}, \"read\": {\"iops\": 150, \"total_ios\": 1,"
            "   \"clat_ns\": {\"mean\": 1000000}}},\n"
            "  {\"job options\": {\"iodepth\": \"1\"}, \"read\": {\"iops\": 50, \"total_ios\": 1,"
            "   \"clat_ns\": {\"mean\": 3000000}}}]}\n";
        struct ramp_set s;
        char err[256] = "";

        (void)state;
        assert_int_equal(ramp_parse_buf(txt, strlen(txt), &s, err, sizeof(err)), 0);
        assert_string_equal(s.format, "fio");
        assert_int_equal(s.r[0].n, 2);
        /* iodepth 1: two jobs side by side, IOPS added, latency weighted by ios */
        assert_true(s.r[0].p[0].load == 1 && s.r[0].p[0].tput == 200);
        assert_true(fabs(s.r[0].p[0].lat_ms - 2.0) < 1e-9);
        /* iodepth 2 from global options: (300*2 + 100*6) / 400 = 3 ms */
        assert_true(s.r[0].p[1].load == 2 && s.r[0].p[1].tput == 400);
        assert_true(fabs(s.r[0].p[1].lat_ms - 3.0) < 1e-9);
        ramp_set_free(&s);
}

static void test_json_errors(void **state)
{
        /* The error is in the second document: its line counts from the start of the file. */
        const char two[] = "{\"fio version\": \"x\", \"jobs\": [{\"read\": {\"iops\": 1}}]}\n"
                           "\n{\n  \"jobs\": [\n    {,\n";
        const char nojobs[] = "{\"fio version\": \"x\", \"jobs\": []}";
        const char newer[] = "{\"schema_version\": 99, \"kind\": \"block\", \"points\": []}";
        struct ramp_set s;
        char err[256] = "";

        (void)state;
        assert_int_equal(ramp_parse_buf(two, strlen(two), &s, err, sizeof(err)), -EINVAL);
        if (!strstr(err, "line 5: JSON"))
                fail_msg("unexpected: %s", err);
        assert_int_equal(ramp_parse_buf(nojobs, strlen(nojobs), &s, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "line 1: fio output without jobs"));
        assert_int_equal(ramp_parse_buf(newer, strlen(newer), &s, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "schema_version 99 is newer"));
}

static void test_hcisweep_block_groups(void **state)
{
        const char txt[] =
            "{\"schema_version\": 1, \"kind\": \"block\", \"points\": [\n"
            " {\"rw\": \"randread\", \"bs\": 4096, \"iodepth\": 1, \"read\": {\"ios\": 10, "
            "\"iops\": 1000, \"lat_ns\": {\"mean\": 1000000}}, \"write\": {\"ios\": 0, \"iops\": "
            "0}},\n"
            " {\"rw\": \"randread\", \"bs\": 4096, \"iodepth\": 2, \"read\": {\"ios\": 10, "
            "\"iops\": 1800, \"lat_ns\": {\"mean\": 1100000}}, \"write\": {\"ios\": 0, \"iops\": "
            "0}},\n"
            " {\"rw\": \"randwrite\", \"bs\": 65536, \"iodepth\": 1, \"read\": {\"ios\": 0, "
            "\"iops\": 0}, \"write\": {\"ios\": 5, \"iops\": 500, \"lat_ns\": {\"mean\": "
            "2e6}}}]}\n";
        struct ramp_set s;
        char err[256] = "";

        (void)state;
        assert_int_equal(ramp_parse_buf(txt, strlen(txt), &s, err, sizeof(err)), 0);
        assert_string_equal(s.format, "hcisweep-block");
        assert_int_equal(s.n, 2);
        assert_string_equal(s.r[0].name, "randread 4k");
        assert_string_equal(s.r[1].name, "randwrite 64k");
        assert_int_equal(s.r[0].n, 2);
        assert_true(s.r[0].p[1].tput == 1800 && fabs(s.r[0].p[1].lat_ms - 1.1) < 1e-9);
        assert_true(s.r[1].p[0].tput == 500 && s.r[1].p[0].lat_ms == 2.0);
        ramp_set_free(&s);
}

static void test_hcisweep_oltp_scale(void **state)
{
        const char oltp[] =
            "{\"schema_version\": 1, \"kind\": \"oltp\", \"intervals\": [\n"
            " {\"t\": 1, \"tps\": 100, \"lat_ns\": {\"percentile\": {\"95.0\": 2e6}}},\n"
            " {\"t\": 2, \"tps\": 120, \"lat_ns\": {\"percentile\": {\"95.0\": 3e6}}}]}";
        const char scale[] =
            "{\"schema_version\": 1, \"kind\": \"scale\", \"steps\": [\n"
            " {\"vms\": 8, \"totals\": {\"tps\": 700}, \"lat_ns\": {\"mean\": 9e6}},\n"
            " {\"vms\": 4, \"totals\": {\"tps\": 400}, \"lat_ns\": {\"mean\": 5e6}}]}";
        const char nosteps[] = "{\"schema_version\": 1, \"kind\": \"scale\",\n \"steps\": [{}]}";
        const char sb_nothreads[] = "SQL statistics:\n    transactions: 10 (5.00 per sec.)\n";
        struct ramp_set s;
        char err[256] = "";

        (void)state;
        assert_int_equal(ramp_parse_buf(oltp, strlen(oltp), &s, err, sizeof(err)), 0);
        assert_string_equal(s.format, "hcisweep-oltp");
        assert_string_equal(s.r[0].lat_name, "p95");
        assert_true(s.r[0].n == 2 && s.r[0].p[1].tput == 120 && s.r[0].p[1].lat_ms == 3.0);
        ramp_set_free(&s);
        assert_int_equal(ramp_parse_buf(scale, strlen(scale), &s, err, sizeof(err)), 0);
        assert_string_equal(s.r[0].load_name, "vms");
        assert_true(s.r[0].p[0].load == 4 && s.r[0].p[0].tput == 400 && s.r[0].p[0].lat_ms == 5);
        ramp_set_free(&s);
        assert_int_equal(ramp_parse_buf(nosteps, strlen(nosteps), &s, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "steps[0] lacks vms"));
        assert_int_equal(
            ramp_parse_sysbench(sb_nothreads, strlen(sb_nothreads), &s, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "without a 'Number of threads:' line"));
}

static void test_analyze_slo(void **state)
{
        const char csv[] = "load,throughput,latency_ms\n1,100,1\n2,190,1.5\n4,300,3\n8,320,9\n";
        struct ramp_set s;
        struct knee_result k;
        char err[256] = "";

        (void)state;
        assert_int_equal(ramp_parse_buf(csv, strlen(csv), &s, err, sizeof(err)), 0);
        assert_int_equal(knee_analyze(&s.r[0], 3, &k), 0);
        assert_int_equal(k.peak, 3);
        assert_int_equal(k.slo, 2); /* load 4 at exactly 3 ms */
        assert_int_equal(knee_analyze(&s.r[0], 0.5, &k), 0);
        assert_int_equal(k.slo, -1);
        ramp_set_free(&s);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_linear),
            cmocka_unit_test(test_plateau),
            cmocka_unit_test(test_plateau_then_dip),
            cmocka_unit_test(test_flat_and_short),
            cmocka_unit_test(test_latency_cliff),
            cmocka_unit_test(test_slo),
            cmocka_unit_test(test_csv_reordered),
            cmocka_unit_test(test_csv_malformed),
            cmocka_unit_test(test_csv_no_latency),
            cmocka_unit_test(test_sysbench_runs),
            cmocka_unit_test(test_sysbench_intervals),
            cmocka_unit_test(test_fio_concatenated),
            cmocka_unit_test(test_json_errors),
            cmocka_unit_test(test_hcisweep_block_groups),
            cmocka_unit_test(test_hcisweep_oltp_scale),
            cmocka_unit_test(test_analyze_slo),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
