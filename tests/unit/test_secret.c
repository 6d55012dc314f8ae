/*
 * test_secret.c - CHAP secrets leave URLs in both of libiscsi's forms, under
 * any scheme spelling, in lists and inside messages; nothing else changes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/secret.h"

static void check(const char *in, const char *want, int dropped)
{
        char out[512];

        assert_int_equal(secret_redact(in, out, sizeof(out)), dropped);
        assert_string_equal(out, want);
}

static void test_forms(void **state)
{
        (void)state;
        check("iscsi://u%s3cret@h:3260/iqn.x:y/1", "iscsi://u@h:3260/iqn.x:y/1", 1);
        check("iscsi://u:s3cret@h/iqn.x:y/1", "iscsi://u@h/iqn.x:y/1", 1);
        check("iscs://u:s3cret@h/x", "iscs://u@h/x", 1);
        check("ISCSI://u%s3cret@h/x", "ISCSI://u@h/x", 1);
        check("iscsi://u%pa/ss@h/x", "iscsi://u@h/x", 1);
}

static void test_mutual(void **state)
{
        (void)state;
        check("iscsi://u%a@h/i/1?target_user=t&target_password=b", "iscsi://u@h/i/1?target_user=t",
              1);
        check("iscsi://u@h/i/1?target_password=b&target_user=t", "iscsi://u@h/i/1?target_user=t",
              1);
        check("iscsi://u@h/i/1?target_password=b", "iscsi://u@h/i/1", 1);
}

static void test_lists_and_messages(void **state)
{
        (void)state;
        check("iscsi://a%x1@h/i/1,iscsi://b:y2@g/i/2", "iscsi://a@h/i/1,iscsi://b@g/i/2", 1);
        check("option --target: 'iscs://u:pw@h/x' is not an iscsi:// URL",
              "option --target: 'iscs://u@h/x' is not an iscsi:// URL", 1);
}

static void test_untouched(void **state)
{
        (void)state;
        check("iscsi://h:3260/iqn.2026-11.io.x%3Alab/1", "iscsi://h:3260/iqn.2026-11.io.x%3Alab/1",
              0);
        check("iscsi://user@h/i/1", "iscsi://user@h/i/1", 0);
        check("/dev/sdb,/tmp/f.img", "/dev/sdb,/tmp/f.img", 0);
        check("99.9% done at 12:30", "99.9% done at 12:30", 0);
}

static void test_short_buffer(void **state)
{
        char out[8];

        (void)state;
        secret_redact("iscsi://u%secret@host/x", out, sizeof(out));
        assert_int_equal(strlen(out), 7);
        assert_null(strstr(out, "sec"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_forms),
            cmocka_unit_test(test_mutual),
            cmocka_unit_test(test_lists_and_messages),
            cmocka_unit_test(test_untouched),
            cmocka_unit_test(test_short_buffer),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
