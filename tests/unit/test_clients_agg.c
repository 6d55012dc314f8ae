/*
 * test_clients_agg.c - the aggregate of one point over several block
 * clients against answers computed independently: the merged percentiles
 * against one histogram holding every client's samples, IOPS against the
 * per-client sum, the weighted mean against the sum over all samples, the
 * stonewall windows against hand-computed series, the late rule, the
 * slowest client and a client that gave no result.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/hist.h"
#include "block/clients_agg.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
}

static double num(const json_t *o, const char *k)
{
        return json_number_value(json_object_get(o, k));
}

/*
 * A client's point: nios reads over secs with latencies around base ns
 * (also recorded into all), and a per-second series of rate iops.
 */
static json_t *client_point(uint64_t nios, double secs, uint64_t base, struct hist *all)
{
        struct hist *h = hist_new(), *empty = hist_new();
        double sum = 0;

        for (uint64_t i = 0; i < nios; i++) {
                uint64_t v = base + next() % (base * 4);
                hist_record(h, v);
                hist_record(all, v);
                sum += (double)v;
        }
        json_t *iv = json_array();
        for (unsigned s = 1; s <= (unsigned)secs; s++)
                json_array_append_new(iv, json_pack("{s:f,s:f,s:f}", "t", (double)s, "read_iops",
                                                    nios / secs, "write_iops", 0.0));
        json_t *p = json_pack(
            "{s:s,s:i,s:i,s:f,s:{s:I,s:I,s:f,s:f,s:o,s:i},s:{s:i,s:i,s:f,s:f,s:o},s:o,s:{s:f,s:f}}",
            "rw", "randread", "bs", 4096, "iodepth", 4, "runtime_s", secs, "read", "ios",
            (json_int_t)nios, "bytes", (json_int_t)(nios * 4096), "iops", nios / secs, "bw_bytes",
            nios * 4096 / secs, "hist", hist_to_json(h), "errors", 0, "write", "ios", 0, "bytes", 0,
            "iops", 0.0, "bw_bytes", 0.0, "hist", hist_to_json(empty), "intervals", iv, "cpu",
            "process_user_s", 0.5, "process_system_s", 0.25);
        hist_free(h);
        hist_free(empty);
        (void)sum;
        return p;
}

static const double pcts[] = {50, 99, 99.9};

static void test_exact_aggregate(void **state)
{
        (void)state;
        struct hist *all = hist_new();
        json_t *p[3] = {client_point(30000, 3, 100000, all), client_point(10000, 3, 400000, all),
                        client_point(20000, 3, 50000, all)};
        json_t *tg = json_pack("[s]", "/tmp/x");
        struct blk_client_point c[3] = {
            {"c1", "local", "h1", tg, p[0], 10.0, 13.0, 0.2, NULL, NULL, 0},
            {"c2", "ssh", "h2", tg, p[1], 10.0, 13.0, 45.0, NULL, NULL, 0},
            {"c3", "ssh", "h3", tg, p[2], 10.0, 13.0, -1.0, NULL, NULL, 0},
        };
        char err[256];
        json_t *a = blk_clients_aggregate(c, 3, 3.0, pcts, 3, 0, err, sizeof(err));

        assert_non_null(a);
        const json_t *rd = json_object_get(a, "read");
        assert_int_equal(json_integer_value(json_object_get(rd, "ios")), 60000);
        assert_true(fabs(num(rd, "iops") - 20000) < 1e-6);
        assert_true(fabs(num(rd, "bw_bytes") - 20000.0 * 4096) < 1e-3);
        /* percentiles from the merged buckets equal those of one histogram of every sample */
        const json_t *pj = json_object_get(json_object_get(rd, "lat_ns"), "percentile");
        const char *key;
        json_t *v;
        unsigned k = 0;
        json_object_foreach((json_t *)pj, key, v)
        {
                assert_int_equal((uint64_t)json_integer_value(v), hist_percentile(all, atof(key)));
                k++;
        }
        assert_int_equal(k, 3);
        /* the mean is weighted by I/O count: the mean of every sample */
        assert_true(fabs(num(json_object_get(rd, "lat_ns"), "mean") - hist_mean(all)) <
                    1e-6 * hist_mean(all));
        assert_int_equal(json_integer_value(json_object_get(a, "n_clients")), 3);
        assert_string_equal(json_string_value(json_object_get(a, "slowest")), "c2");
        assert_true(fabs(num(json_object_get(a, "client_iops"), "min") - 10000.0 / 3) < 1e-6);
        assert_true(fabs(num(json_object_get(a, "client_iops"), "max") - 10000) < 1e-6);
        /* late: over 1% of the 3 s runtime (30 ms) */
        const json_t *cl = json_object_get(a, "clients");
        assert_int_equal(json_array_size(cl), 3);
        assert_false(json_is_true(json_object_get(json_array_get(cl, 0), "late")));
        assert_true(json_is_true(json_object_get(json_array_get(cl, 1), "late")));
        assert_false(json_is_true(json_object_get(json_array_get(cl, 2), "late")));
        assert_string_equal(json_string_value(json_object_get(json_array_get(cl, 1), "host")),
                            "h2");
        assert_true(fabs(num(json_array_get(cl, 0), "cpu_s") - 0.75) < 1e-9);
        assert_true(fabs(num(json_object_get(a, "cpu"), "process_user_s") - 1.5) < 1e-9);
        /* identical windows: both stonewalls are the sum */
        const json_t *sw = json_object_get(a, "stonewall");
        assert_true(fabs(num(json_object_get(sw, "first"), "iops") - 20000) < 1e-6);
        assert_true(fabs(num(json_object_get(sw, "last"), "iops") - 20000) < 1e-6);
        assert_string_equal(json_string_value(json_object_get(sw, "mode")), "first");
        /* aligned series: 3 bins of the summed rate */
        const json_t *iv = json_object_get(a, "intervals");
        assert_int_equal(json_array_size(iv), 3);
        assert_true(fabs(num(json_array_get(iv, 1), "read_iops") - 20000) < 1e-6);
        json_decref(a);
        for (unsigned i = 0; i < 3; i++)
                json_decref(p[i]);
        json_decref(tg);
        hist_free(all);
}

/* Shifted windows: first counts only the overlap, last the whole span. */
static void test_stonewall_windows(void **state)
{
        (void)state;
        struct hist *all = hist_new();
        json_t *p[2] = {client_point(4000, 4, 1000, all), client_point(8000, 4, 1000, all)};
        struct blk_client_point c[2] = {
            {"a", "local", "h", NULL, p[0], 0.0, 4.0, 0, NULL, NULL, 0},
            {"b", "local", "h", NULL, p[1], 2.0, 6.0, 0, NULL, NULL, 0},
        };
        char err[256];
        json_t *x = blk_clients_aggregate(c, 2, 4.0, pcts, 3, 1, err, sizeof(err));

        assert_non_null(x);
        const json_t *sw = json_object_get(x, "stonewall");
        /* overlap [2,4]: a does 1000/s, b 2000/s */
        assert_true(fabs(num(json_object_get(sw, "first"), "seconds") - 2) < 1e-9);
        assert_true(fabs(num(json_object_get(sw, "first"), "iops") - 3000) < 1e-6);
        /* span [0,6]: 12000 I/Os */
        assert_true(fabs(num(json_object_get(sw, "last"), "seconds") - 6) < 1e-9);
        assert_true(fabs(num(json_object_get(sw, "last"), "iops") - 2000) < 1e-6);
        assert_string_equal(json_string_value(json_object_get(sw, "mode")), "last");
        /* the aligned series: 1000, 1000, 3000, 3000, 2000, 2000 */
        const json_t *iv = json_object_get(x, "intervals");
        static const double want[] = {1000, 1000, 3000, 3000, 2000, 2000};
        assert_int_equal(json_array_size(iv), 6);
        for (unsigned i = 0; i < 6; i++)
                assert_true(fabs(num(json_array_get(iv, i), "read_iops") - want[i]) < 1e-6);
        json_decref(x);
        json_decref(p[0]);
        json_decref(p[1]);
        hist_free(all);
}

/* A client lost mid-point: named in degraded[], its error kept, the others summed. */
static void test_missing_client(void **state)
{
        (void)state;
        struct hist *all = hist_new();
        json_t *p = client_point(3000, 3, 1000, all);
        struct blk_client_point c[2] = {
            {"ok", "local", "h", NULL, p, 0, 3, 0, NULL, NULL, 0},
            {"gone", "ssh", "h2", NULL, NULL, 0, 0, 0, "lost: end of its output", NULL, 0},
        };
        char err[256];
        json_t *x = blk_clients_aggregate(c, 2, 3.0, pcts, 3, 0, err, sizeof(err));

        assert_non_null(x);
        assert_int_equal(json_integer_value(json_object_get(x, "n_clients")), 2);
        assert_true(fabs(num(json_object_get(x, "read"), "iops") - 1000) < 1e-6);
        assert_string_equal(json_string_value(json_array_get(json_object_get(x, "degraded"), 0)),
                            "gone");
        assert_string_equal(json_string_value(json_object_get(
                                json_array_get(json_object_get(x, "clients"), 1), "error")),
                            "lost: end of its output");
        assert_string_equal(json_string_value(json_object_get(x, "slowest")), "ok");
        json_decref(x);
        /* nobody answered: no aggregate, and a message that says so */
        c[0].point = NULL;
        assert_null(blk_clients_aggregate(c, 2, 3.0, pcts, 3, 0, err, sizeof(err)));
        assert_non_null(strstr(err, "none of the 2 clients"));
        json_decref(p);
        hist_free(all);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_exact_aggregate),
            cmocka_unit_test(test_stonewall_windows),
            cmocka_unit_test(test_missing_client),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
