/*
 * test_clients_scan.c - the client-count scan's verdict on recorded scans:
 * as steps (a linear one, a blade characterisation's 1, 2, 4, 8 nodes; one
 * that saturates at 4 clients; one that never scales; a single count) and
 * as recorded block points with their cluster.hosts[] (JSON in, verdict
 * out), where scale's attribution rules name the host and resource that
 * stopped it: a storage host's disks, a storage host's CPU, a client
 * host's CPU, the local host's disks (local:N), or none.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "block/clients_scan.h"
#include "results/tip_scan.h"

static void steps(struct res_scan_step *s, const double (*v)[3], unsigned n)
{
        for (unsigned i = 0; i < n; i++)
                res_scan_step_init(&s[i], (unsigned)v[i][0], v[i][1], v[i][2]);
}

static void test_linear(void **state)
{
        (void)state;
        const double v[][3] = {{1, 10000, 100}, {2, 19900, 101}, {4, 39600, 102}, {8, 79000, 103}};
        struct res_scan_step s[4];
        struct res_scan sc;

        steps(s, v, 4);
        res_scan_verdict(s, 4, &sc);
        assert_int_equal(sc.at, 8);
        assert_int_equal(sc.saturated, 0);
        assert_string_equal(sc.verdict, "linear to 8 clients (7.9x, latency +3%)");
        assert_true(fabs(res_scan_efficiency(s, 3) - 79000.0 / 80000) < 1e-12);
        assert_true(fabs(res_scan_efficiency(s, 0) - 1) < 1e-12);
}

static void test_saturates_no_figures(void **state)
{
        (void)state;
        /* 8 clients add 5% over 4: efficiency 40000 / 80000; no host was read */
        const double v[][3] = {{1, 10000, 100}, {2, 19000, 104}, {4, 38000, 105}, {8, 40000, 200}};
        struct res_scan_step s[4];
        struct res_scan sc;

        steps(s, v, 4);
        res_scan_verdict(s, 4, &sc);
        assert_int_equal(sc.at, 4);
        assert_int_equal(sc.saturated, 1);
        assert_int_equal(sc.limited_by, RES_LIM_NONE);
        assert_string_equal(sc.verdict, "saturates at 4 clients (3.8x, latency +5%); 8 clients: "
                                        "efficiency 0.50, latency +100%");
}

static void test_never_scales(void **state)
{
        (void)state;
        /* the storage is already full with one client: 2 clients share it */
        const double v[][3] = {{1, 10000, 100}, {2, 10100, 198}, {4, 10200, 390}};
        struct res_scan_step s[3];
        struct res_scan sc;

        steps(s, v, 3);
        res_scan_verdict(s, 3, &sc);
        assert_int_equal(sc.at, 1);
        assert_non_null(strstr(sc.verdict, "saturates at 1 client ("));
        assert_non_null(strstr(sc.verdict, "2 clients: efficiency 0.51"));
}

/* A scan from 2 clients: efficiency against (N / 2) x X(2); a single count. */
static void test_base_not_one(void **state)
{
        (void)state;
        const double v[][3] = {{2, 20000, 100}, {4, 40000, 100}};
        struct res_scan_step s[2];
        struct res_scan sc;

        steps(s, v, 2);
        assert_true(fabs(res_scan_efficiency(s, 1) - 1) < 1e-12);
        res_scan_verdict(s, 2, &sc);
        assert_int_equal(sc.at, 4);
        assert_string_equal(sc.verdict, "linear to 4 clients (2.0x, latency +0%)");
        res_scan_verdict(s, 1, &sc);
        assert_int_equal(sc.at, 2);
        assert_string_equal(sc.verdict, "one client count: no scaling to read");
}

/*
 * A recorded block point: randread 4k qd 8 on n clients, iops and mean
 * latency, and its hosts: clients c1..c4 at client CPU ccpu, storage host
 * s1 at CPU scpu with disk sdb at util (the JSON the block hosts sampler
 * writes, cut to the figures read).
 */
static json_t *point(int n, double iops, double mean_us, double ccpu, double scpu, double util)
{
        json_t *hosts = json_array();

        for (int i = 1; i <= 4; i++)
                json_array_append_new(hosts,
                                      json_pack("{s:s,s:s,s:b,s:{s:f,s:f},s:[]}", "name",
                                                i == 1   ? "c1"
                                                : i == 2 ? "c2"
                                                : i == 3 ? "c3"
                                                         : "c4",
                                                "role", "client", "controller", 0, "cpu", "busy",
                                                i == 2 ? ccpu : ccpu / 2, "steal", 0.0, "disks"));
        json_array_append_new(hosts,
                              json_pack("{s:s,s:s,s:b,s:{s:f,s:f},s:[{s:s,s:f,s:f,s:f}]}", "name",
                                        "s1", "role", "storage", "controller", 0, "cpu", "busy",
                                        scpu, "steal", 0.0, "disks", "name", "sdb", "util_pct",
                                        util, "iops", iops, "lat_ms", mean_us / 1e3));
        json_array_append_new(hosts, json_pack("{s:s,s:s,s:b,s:{s:f,s:f},s:[]}", "name", "local",
                                               "role", "controller", "controller", 1, "cpu", "busy",
                                               99.0, "steal", 0.0, "disks"));
        return json_pack("{s:s,s:i,s:i,s:i,s:{s:f,s:f,s:{s:f}},s:{s:f,s:f,s:{s:f}},s:{s:o}}", "rw",
                         "randread", "bs", 4096, "iodepth", 8, "n_clients", n, "read", "iops", iops,
                         "ios", iops * 10, "lat_ns", "mean", mean_us * 1e3, "write", "iops", 0.0,
                         "ios", 0.0, "lat_ns", "mean", 0.0, "cluster", "hosts", hosts);
}

/* The verdict of the points (n of them) as `block` gives it; the result kept for checks. */
static void verdict_of(json_t *pts, json_t *res, char *v, size_t len)
{
        assert_int_equal(blk_scan_verdicts(pts, res, NULL), 0);
        snprintf(
            v, len, "%s",
            json_string_value(json_object_get(json_object_get(res, "tipping_point"), "verdict")));
}

/* The storage host's disks fill: "saturates at 4 clients: storage host s1's disks 98% busy". */
static void test_json_storage_disks(void **state)
{
        (void)state;
        json_t *pts = json_pack("[o,o,o,o]", point(1, 10000, 100, 20, 10, 25),
                                point(2, 19800, 101, 30, 15, 50), point(4, 38000, 105, 40, 20, 80),
                                point(8, 41000, 195, 45, 22, 98)),
               *res = json_object();
        char v[700];

        verdict_of(pts, res, v, sizeof(v));
        assert_string_equal(v, "randread 4k qd 8: saturates at 4 clients: storage host s1's "
                               "disks 98% busy (3.8x, latency +5%); 8 clients: efficiency 0.51, "
                               "latency +95%");
        assert_string_equal(
            json_string_value(json_object_get(json_object_get(res, "tipping_point"), "limited_by")),
            "storage");
        assert_true(fabs(blk_scan_point_efficiency(pts, json_array_get(pts, 3)) - 41000.0 / 80000) <
                    1e-9);
        json_decref(pts);
        json_decref(res);
}

/* The verdict of pts (consumed) holds want, and the scan was limited by lim. */
static void expect_limit(json_t *pts, const char *want, const char *lim)
{
        json_t *res = json_object();
        char v[700];

        verdict_of(pts, res, v, sizeof(v));
        if (!strstr(v, want))
                fail_msg("verdict '%s' lacks '%s'", v, want);
        assert_string_equal(
            json_string_value(json_object_get(json_object_get(res, "tipping_point"), "limited_by")),
            lim);
        json_decref(pts);
        json_decref(res);
}

/* The storage host's CPU (its service) saturates before its disks. */
static void test_json_storage_cpu(void **state)
{
        (void)state;
        expect_limit(json_pack("[o,o,o]", point(1, 10000, 100, 20, 30, 20),
                               point(2, 19500, 102, 30, 60, 30), point(4, 21000, 190, 40, 97, 35)),
                     "saturates at 2 clients: storage host s1's CPU 97% busy", "storage");
}

/* A client's CPU saturates (c2, the busiest; the controller's own 99% is not a client's). */
static void test_json_client_cpu(void **state)
{
        (void)state;
        expect_limit(json_pack("[o,o,o]", point(1, 10000, 100, 40, 10, 20),
                               point(2, 19000, 101, 70, 15, 30), point(4, 20000, 180, 96, 18, 35)),
                     "saturates at 2 clients: client host c2's CPU 96% busy (", "cpu");
}

/* Hosts read, none at its limit: said so; and a linear scan with hosts stays "linear". */
static void test_json_none_and_linear(void **state)
{
        (void)state;
        json_t *pts = json_pack("[o,o]", point(1, 10000, 100, 20, 10, 20),
                                point(2, 12000, 110, 30, 15, 30)),
               *lin = json_pack("[o,o,o]", point(1, 10000, 100, 20, 10, 20),
                                point(2, 19900, 101, 30, 15, 40), point(4, 39000, 103, 40, 20, 80)),
               *res = json_object();
        char v[700];

        verdict_of(pts, res, v, sizeof(v));
        assert_non_null(strstr(v, "saturates at 1 client: no resource at its limit ("));
        verdict_of(lin, res, v, sizeof(v));
        assert_string_equal(v, "randread 4k qd 8: linear to 4 clients (3.9x, latency +3%)");
        json_decref(pts);
        json_decref(lin);
        json_decref(res);
}

/* local:N: the one host is the controller (role client); its own disks are the storage. */
static void test_json_local(void **state)
{
        (void)state;
        json_t *pts = json_array(), *res = json_object();
        const double v3[][3] = {{1, 10000, 40}, {2, 19000, 70}, {4, 20000, 99}};
        char v[700];

        for (unsigned i = 0; i < 3; i++) {
                json_t *p = point(1 << i, v3[i][1], 100 + 50 * i, 10, 10, 10);
                json_t *h = json_pack("[{s:s,s:s,s:b,s:{s:f,s:f},s:[{s:s,s:f}]}]", "name", "local",
                                      "role", "client", "controller", 1, "cpu", "busy", 30.0,
                                      "steal", 0.0, "disks", "name", "vda", "util_pct", v3[i][2]);
                json_object_set_new(json_object_get(p, "cluster"), "hosts", h);
                json_array_append_new(pts, p);
        }
        verdict_of(pts, res, v, sizeof(v));
        assert_non_null(strstr(v, "saturates at 2 clients: host local's disks 99% busy ("));
        json_decref(pts);
        json_decref(res);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_linear),
            cmocka_unit_test(test_saturates_no_figures),
            cmocka_unit_test(test_never_scales),
            cmocka_unit_test(test_base_not_one),
            cmocka_unit_test(test_json_storage_disks),
            cmocka_unit_test(test_json_storage_cpu),
            cmocka_unit_test(test_json_client_cpu),
            cmocka_unit_test(test_json_none_and_linear),
            cmocka_unit_test(test_json_local),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
