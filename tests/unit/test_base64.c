/*
 * test_base64.c - base64 both ways: RFC 4648's test vectors, every byte
 * value through a round trip, and decoding that refuses what no encoder
 * writes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "core/base64.h"

static void test_rfc4648(void **state)
{
        static const char *const vec[][2] = {{"", ""},
                                             {"f", "Zg=="},
                                             {"fo", "Zm8="},
                                             {"foo", "Zm9v"},
                                             {"foob", "Zm9vYg=="},
                                             {"fooba", "Zm9vYmE="},
                                             {"foobar", "Zm9vYmFy"}};
        char enc[32], dec[32];
        size_t n;

        (void)state;
        for (size_t i = 0; i < sizeof(vec) / sizeof(vec[0]); i++) {
                assert_int_equal(b64_encode(vec[i][0], strlen(vec[i][0]), enc), strlen(vec[i][1]));
                assert_string_equal(enc, vec[i][1]);
                assert_int_equal(b64_decode(vec[i][1], strlen(vec[i][1]), dec, &n), 0);
                assert_int_equal(n, strlen(vec[i][0]));
                assert_memory_equal(dec, vec[i][0], n);
        }
}

static void test_every_byte(void **state)
{
        unsigned char in[256], out[256 + 3];
        char enc[B64_ENCODED_LEN(256) + 1];
        size_t n;

        (void)state;
        for (unsigned i = 0; i < 256; i++)
                in[i] = (unsigned char)(255 - i);
        for (size_t len = 0; len <= 256; len += 37) {
                assert_int_equal(b64_encode(in, len, enc), B64_ENCODED_LEN(len));
                assert_int_equal(b64_decode(enc, strlen(enc), out, &n), 0);
                assert_int_equal(n, len);
                assert_memory_equal(out, in, len);
        }
}

static void test_lenient_forms(void **state)
{
        char out[16];
        size_t n;

        (void)state;
        assert_int_equal(b64_decode("Zm9v\nYmE=\n", 10, out, &n), 0); /* wrapped */
        assert_int_equal(n, 5);
        assert_int_equal(b64_decode("Zm9vYmE", 7, out, &n), 0); /* padding left out */
        assert_int_equal(n, 5);
        assert_memory_equal(out, "fooba", 5);
}

static void test_refused(void **state)
{
        char out[16];
        size_t n;

        (void)state;
        assert_int_equal(b64_decode("Zm9v!", 5, out, &n), -EINVAL);    /* not the alphabet */
        assert_int_equal(b64_decode("Zg==Zg==", 8, out, &n), -EINVAL); /* data after padding */
        assert_int_equal(b64_decode("Zm9vY", 5, out, &n), -EINVAL);    /* a lone character */
        assert_int_equal(b64_decode("Zg=", 3, out, &n), -EINVAL);      /* half the padding */
        assert_int_equal(b64_decode("Zm9v-_", 6, out, &n), -EINVAL);   /* the URL alphabet */
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_rfc4648),
            cmocka_unit_test(test_every_byte),
            cmocka_unit_test(test_lenient_forms),
            cmocka_unit_test(test_refused),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
