/*
 * test_parse.c - the value syntaxes of core/parse.c: fio-style sizes,
 * integers, lists and ranges, the exact error text users see for bad
 * input, overflow reported as -ERANGE, and fmt_size reading back.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/parse.h"

static uint64_t size_of(const char *s)
{
        char err[128] = "";
        uint64_t v = 0;

        assert_int_equal(parse_size(s, &v, err, sizeof(err)), 0);
        assert_string_equal(err, "");
        return v;
}

static void expect_size_err(const char *s, int rc, const char *msg)
{
        char err[128] = "";
        uint64_t v = 12345;

        assert_int_equal(parse_size(s, &v, err, sizeof(err)), rc);
        assert_string_equal(err, msg);
        assert_int_equal(v, 12345);
}

static void test_sizes(void **state)
{
        (void)state;
        assert_int_equal(size_of("4k"), 4096);
        assert_int_equal(size_of("4K"), 4096);
        assert_int_equal(size_of("4KiB"), 4096);
        assert_int_equal(size_of("4kb"), 4096);
        assert_int_equal(size_of("64k"), 65536);
        assert_int_equal(size_of("1m"), 1048576);
        assert_int_equal(size_of("1MiB"), 1048576);
        assert_int_equal(size_of("3g"), UINT64_C(3) << 30);
        assert_int_equal(size_of("2T"), UINT64_C(2) << 40);
        assert_int_equal(size_of("1p"), UINT64_C(1) << 50);
        assert_int_equal(size_of("512"), 512);
        assert_int_equal(size_of("512b"), 512);
        assert_int_equal(size_of("0"), 0);
        assert_int_equal(size_of(" 8k "), 8192);
        /* The largest sizes: INT64_MAX, and the last whole tebibyte below it. */
        assert_int_equal(size_of("8388607t"), (UINT64_C(8388607) << 40));
        assert_int_equal(size_of("9223372036854775807"), INT64_MAX);
}

static void test_bad_sizes(void **state)
{
        (void)state;
        expect_size_err("4x", -EINVAL, "'4x' is not a size");
        expect_size_err("k", -EINVAL, "'k' is not a size");
        expect_size_err("4kk", -EINVAL, "'4kk' is not a size");
        expect_size_err("1.5m", -EINVAL, "'1.5m' is not a size");
        expect_size_err("4 k", -EINVAL, "'4 k' is not a size");
        expect_size_err("", -EINVAL, "'' is not a size");
        expect_size_err("-4k", -EINVAL, "'-4k' is negative");
        expect_size_err("8388608t", -ERANGE, "'8388608t' is too large");
        expect_size_err("9223372036854775808", -ERANGE, "'9223372036854775808' is too large");
        expect_size_err("16777216t", -ERANGE, "'16777216t' is too large");
        expect_size_err("18446744073709551616", -ERANGE, "'18446744073709551616' is too large");
}

static void test_u64_i64(void **state)
{
        char err[128];
        uint64_t u;
        int64_t i;

        (void)state;
        assert_int_equal(parse_u64("42", &u, err, sizeof(err)), 0);
        assert_int_equal(u, 42);
        assert_int_equal(parse_u64("18446744073709551615", &u, err, sizeof(err)), 0);
        assert_int_equal(u, UINT64_MAX);
        assert_int_equal(parse_u64("18446744073709551616", &u, err, sizeof(err)), -ERANGE);
        assert_int_equal(parse_u64("-1", &u, err, sizeof(err)), -EINVAL);
        assert_string_equal(err, "'-1' is negative");
        assert_int_equal(parse_u64("12a", &u, err, sizeof(err)), -EINVAL);
        assert_string_equal(err, "'12a' is not a number");
        assert_int_equal(parse_u64("4k", &u, err, sizeof(err)), -EINVAL);

        assert_int_equal(parse_i64("-5", &i, err, sizeof(err)), 0);
        assert_int_equal(i, -5);
        assert_int_equal(parse_i64("-9223372036854775808", &i, err, sizeof(err)), 0);
        assert_true(i == INT64_MIN);
        assert_int_equal(parse_i64("9223372036854775807", &i, err, sizeof(err)), 0);
        assert_true(i == INT64_MAX);
        assert_int_equal(parse_i64("9223372036854775808", &i, err, sizeof(err)), -ERANGE);
        assert_int_equal(parse_i64("-9223372036854775809", &i, err, sizeof(err)), -ERANGE);
        assert_int_equal(parse_i64("--5", &i, err, sizeof(err)), -EINVAL);
        assert_int_equal(parse_i64("", &i, err, sizeof(err)), -EINVAL);
}

static void test_double_bool(void **state)
{
        char err[128];
        double d;
        int b = -1;

        (void)state;
        assert_int_equal(parse_double("99.9", &d, err, sizeof(err)), 0);
        assert_true(d == 99.9);
        assert_int_equal(parse_double("1e3", &d, err, sizeof(err)), 0);
        assert_true(d == 1000.0);
        assert_int_equal(parse_double("abc", &d, err, sizeof(err)), -EINVAL);
        assert_string_equal(err, "'abc' is not a number");
        assert_int_equal(parse_double("nan", &d, err, sizeof(err)), -EINVAL);
        assert_int_equal(parse_double("1.5x", &d, err, sizeof(err)), -EINVAL);
        assert_int_equal(parse_double("1e999", &d, err, sizeof(err)), -ERANGE);

        assert_int_equal(parse_bool("yes", &b, err, sizeof(err)), 0);
        assert_int_equal(b, 1);
        assert_int_equal(parse_bool("OFF", &b, err, sizeof(err)), 0);
        assert_int_equal(b, 0);
        assert_int_equal(parse_bool("true", &b, err, sizeof(err)), 0);
        assert_int_equal(b, 1);
        assert_int_equal(parse_bool("0", &b, err, sizeof(err)), 0);
        assert_int_equal(b, 0);
        assert_int_equal(parse_bool("maybe", &b, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "'maybe' is not a boolean"));
}

static void expect_list(const char *s, int is_size, unsigned n, const uint64_t *want)
{
        struct u64_list l;
        char err[128] = "";
        unsigned i;

        assert_int_equal(parse_u64_list(s, is_size, &l, err, sizeof(err)), 0);
        assert_string_equal(err, "");
        assert_int_equal(l.n, n);
        for (i = 0; i < n; i++)
                assert_int_equal(l.v[i], want[i]);
}

static void expect_list_err(const char *s, int is_size, int rc, const char *msg)
{
        struct u64_list l = {.n = 3};
        char err[128] = "";

        assert_int_equal(parse_u64_list(s, is_size, &l, err, sizeof(err)), rc);
        assert_string_equal(err, msg);
        assert_int_equal(l.n, 3);
}

static void test_lists(void **state)
{
        static const uint64_t plain[] = {1, 4, 16};
        static const uint64_t dbl[] = {1, 2, 4, 8, 16, 32, 64, 128};
        static const uint64_t step[] = {4, 8, 12, 16, 20, 24, 28, 32};
        static const uint64_t to100[] = {1, 2, 4, 8, 16, 32, 64};
        static const uint64_t sizes[] = {4096, 65536, 1048576};
        static const uint64_t sizerange[] = {4096, 8192, 16384, 32768, 65536};
        static const uint64_t mixed[] = {1, 8, 16, 24, 32};
        static const uint64_t one[] = {7};

        (void)state;
        expect_list("1,4,16", 0, 3, plain);
        expect_list(" 1 , 4 ,16 ", 0, 3, plain);
        expect_list("1-128", 0, 8, dbl);
        expect_list("4-32:4", 0, 8, step);
        expect_list("1-100", 0, 7, to100);
        expect_list("4k,64k,1m", 1, 3, sizes);
        expect_list("4k-64k", 1, 5, sizerange);
        expect_list("1,8-32:8", 0, 5, mixed);
        expect_list("7-7", 0, 1, one);
        expect_list("7-8:4", 0, 1, one);
}

static void test_list_limits(void **state)
{
        struct u64_list l;
        char err[128];

        (void)state;
        /* Exactly 64 items fits; the doubling range to UINT64_MAX must not wrap. */
        assert_int_equal(parse_u64_list("1-64:1", 0, &l, err, sizeof(err)), 0);
        assert_int_equal(l.n, 64);
        assert_int_equal(parse_u64_list("1-18446744073709551615", 0, &l, err, sizeof(err)), 0);
        assert_int_equal(l.n, 64);
        assert_int_equal(l.v[63], UINT64_C(1) << 63);
        assert_int_equal(
            parse_u64_list("18446744073709551614-18446744073709551615:1", 0, &l, err, sizeof(err)),
            0);
        assert_int_equal(l.n, 2);
        assert_int_equal(l.v[1], UINT64_MAX);

        expect_list_err("1-65:1", 0, -ERANGE, "list has more than 64 items");
        expect_list_err("1-64:1,5", 0, -ERANGE, "list has more than 64 items");
}

static void test_bad_lists(void **state)
{
        (void)state;
        expect_list_err("", 0, -EINVAL, "empty list ''");
        expect_list_err("1,,2", 0, -EINVAL, "empty item in list '1,,2'");
        expect_list_err("1,", 0, -EINVAL, "empty item in list '1,'");
        expect_list_err("1,x", 0, -EINVAL, "'x' is not a number");
        expect_list_err("4k", 0, -EINVAL, "'4k' is not a number");
        expect_list_err("4k,8q", 1, -EINVAL, "'8q' is not a size");
        expect_list_err("-1", 0, -EINVAL, "'-1' is negative");
        expect_list_err("1,-4", 0, -EINVAL, "'-4' is negative");
        expect_list_err("32-4", 0, -EINVAL, "range '32-4' runs backwards");
        expect_list_err("4-32:0", 0, -EINVAL, "range '4-32:0' has a step of 0");
        expect_list_err("0-8", 0, -EINVAL,
                        "doubling range '0-8' must start above 0 (or give a step, A-B:STEP)");
        expect_list_err("4-", 0, -EINVAL, "'4-' is not a range (use A-B or A-B:STEP)");
        expect_list_err("1-99999999999999999999", 0, -ERANGE,
                        "'99999999999999999999' is too large");
}

static void test_fmt_size(void **state)
{
        static const uint64_t back[] = {0,
                                        1,
                                        511,
                                        512,
                                        4096,
                                        1536,
                                        65536,
                                        UINT64_C(3) << 30,
                                        UINT64_C(5) << 40,
                                        UINT64_C(1) << 50,
                                        (uint64_t)INT64_MAX};
        char buf[32];
        unsigned i;

        (void)state;
        fmt_size(4096, buf, sizeof(buf));
        assert_string_equal(buf, "4k");
        fmt_size(1048576, buf, sizeof(buf));
        assert_string_equal(buf, "1m");
        fmt_size(1000, buf, sizeof(buf));
        assert_string_equal(buf, "1000");
        fmt_size(0, buf, sizeof(buf));
        assert_string_equal(buf, "0");
        fmt_size(1536, buf, sizeof(buf));
        assert_string_equal(buf, "1536");
        fmt_size(UINT64_C(3) << 30, buf, sizeof(buf));
        assert_string_equal(buf, "3g");
        fmt_size(UINT64_C(1) << 62, buf, sizeof(buf));
        assert_string_equal(buf, "4096p");
        for (i = 0; i < sizeof(back) / sizeof(back[0]); i++) {
                fmt_size(back[i], buf, sizeof(buf));
                assert_int_equal(size_of(buf), back[i]);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_sizes),     cmocka_unit_test(test_bad_sizes),
            cmocka_unit_test(test_u64_i64),   cmocka_unit_test(test_double_bool),
            cmocka_unit_test(test_lists),     cmocka_unit_test(test_list_limits),
            cmocka_unit_test(test_bad_lists), cmocka_unit_test(test_fmt_size),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
