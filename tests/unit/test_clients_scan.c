/*
 * test_clients_scan.c - the client-count scan's verdict on recorded scans:
 * a linear one (a blade characterisation's 1, 2, 4, 8 nodes), one that
 * saturates at 4 clients, one that never scales, and a single count.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "block/clients_scan.h"

static void test_linear(void **state)
{
        (void)state;
        const struct blk_scan_step s[] = {
            {1, 10000, 100}, {2, 19900, 101}, {4, 39600, 102}, {8, 79000, 103}};
        char v[256];

        assert_int_equal(blk_scan_verdict(s, 4, v, sizeof(v)), 8);
        assert_string_equal(v, "linear to 8 clients (7.9x, latency +3%)");
        assert_true(fabs(blk_scan_efficiency(s, 3) - 79000.0 / 80000) < 1e-12);
        assert_true(fabs(blk_scan_efficiency(s, 0) - 1) < 1e-12);
}

static void test_saturates(void **state)
{
        (void)state;
        /* 8 clients add 5% over 4: efficiency 40000 / 80000 */
        const struct blk_scan_step s[] = {
            {1, 10000, 100}, {2, 19000, 104}, {4, 38000, 105}, {8, 40000, 200}};
        char v[256];

        assert_int_equal(blk_scan_verdict(s, 4, v, sizeof(v)), 4);
        assert_string_equal(v, "saturates at 4 clients (3.8x, latency +5%); 8 clients: "
                               "efficiency 0.50, latency +100%");
}

static void test_never_scales(void **state)
{
        (void)state;
        /* the storage is already full with one client: 2 clients share it */
        const struct blk_scan_step s[] = {{1, 10000, 100}, {2, 10100, 198}, {4, 10200, 390}};
        char v[256];

        assert_int_equal(blk_scan_verdict(s, 3, v, sizeof(v)), 1);
        assert_non_null(strstr(v, "saturates at 1 client ("));
        assert_non_null(strstr(v, "2 clients: efficiency 0.51"));
}

/* A scan from 2 clients: efficiency against (N / 2) x X(2). */
static void test_base_not_one(void **state)
{
        (void)state;
        const struct blk_scan_step s[] = {{2, 20000, 100}, {4, 40000, 100}};
        char v[256];

        assert_true(fabs(blk_scan_efficiency(s, 1) - 1) < 1e-12);
        assert_int_equal(blk_scan_verdict(s, 2, v, sizeof(v)), 4);
        assert_string_equal(v, "linear to 4 clients (2.0x, latency +0%)");
        assert_int_equal(blk_scan_verdict(s, 1, v, sizeof(v)), 2);
        assert_string_equal(v, "one client count: no scaling to read");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_linear),
            cmocka_unit_test(test_saturates),
            cmocka_unit_test(test_never_scales),
            cmocka_unit_test(test_base_not_one),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
