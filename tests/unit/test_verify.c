/*
 * test_verify.c - the verify stamps: CRC-32C against published vectors and
 * against the table implementation, the header layout, and every way
 * vfy_check can classify a unit (good, flipped byte, misplaced, other
 * generation, never written), including how maxbad bounds the report.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "block/verify.h"

#define BASE_OFF (1ull << 33)
#define GEN      7u
#define SEQ      12345u

static void *xalloc(size_t len)
{
        void *p = NULL;

        assert_int_equal(posix_memalign(&p, 4096, len), 0);
        return p;
}

static void test_crc_vectors(void **state)
{
        uint8_t buf[32];

        (void)state;
        assert_int_equal(vfy_crc32c(0, "123456789", 9), 0xE3069283u);
        assert_int_equal(vfy_crc32c_sw(0, "123456789", 9), 0xE3069283u);
        assert_int_equal(vfy_crc32c(0, "", 0), 0);
        memset(buf, 0, sizeof(buf));
        assert_int_equal(vfy_crc32c(0, buf, 32), 0x8A9136AAu);
        memset(buf, 0xff, sizeof(buf));
        assert_int_equal(vfy_crc32c(0, buf, 32), 0x62A8AB43u);
        for (int i = 0; i < 32; i++)
                buf[i] = (uint8_t)i;
        assert_int_equal(vfy_crc32c(0, buf, 32), 0x46DD794Eu);
}

/* Chained calls equal one call over the concatenation. */
static void test_crc_chaining(void **state)
{
        const char *s = "123456789";

        (void)state;
        for (size_t cut = 0; cut <= 9; cut++) {
                assert_int_equal(vfy_crc32c(vfy_crc32c(0, s, cut), s + cut, 9 - cut), 0xE3069283u);
                assert_int_equal(vfy_crc32c_sw(vfy_crc32c_sw(0, s, cut), s + cut, 9 - cut),
                                 0xE3069283u);
        }
}

/* Every length and misalignment the word loop and its edges can see. */
static void test_crc_hw_equals_table(void **state)
{
        size_t len = 65536 + 16;
        uint8_t *buf = xalloc(len);
        uint64_t x = 88172645463325252ull;

        (void)state;
        for (size_t i = 0; i < len; i++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                buf[i] = (uint8_t)x;
        }
        for (size_t align = 0; align < 8; align++)
                for (size_t n = 0; n < 300; n++)
                        assert_int_equal(vfy_crc32c(0x1234, buf + align, n),
                                         vfy_crc32c_sw(0x1234, buf + align, n));
        assert_int_equal(vfy_crc32c(0, buf + 3, 65536), vfy_crc32c_sw(0, buf + 3, 65536));
        free(buf);
}

static void test_hdr_round_trip(void **state)
{
        struct vfy_hdr h = {VFY_MAGIC, 0xdeadbeefu, 0x0102030405060708ull, 0x1112131415161718ull,
                            0xa1a2a3a4a5a6a7a8ull};
        struct vfy_hdr back;
        uint8_t raw[VFY_HDR_SIZE];

        (void)state;
        vfy_hdr_encode(raw, &h);
        /* little-endian on the medium, whatever the host */
        assert_int_equal(raw[0], 0x57);
        assert_int_equal(raw[3], 0x48);
        assert_int_equal(raw[4], 0xef);
        assert_int_equal(raw[8], 0x08);
        assert_int_equal(raw[15], 0x01);
        assert_int_equal(raw[16], 0x18);
        assert_int_equal(raw[31], 0xa1);
        vfy_hdr_decode(raw, &back);
        assert_int_equal(back.magic, h.magic);
        assert_int_equal(back.crc, h.crc);
        assert_int_equal(back.offset, h.offset);
        assert_int_equal(back.generation, h.generation);
        assert_int_equal(back.seq, h.seq);
}

static void fill_check_ok(uint32_t unit)
{
        uint32_t len = unit * 8;
        uint8_t *buf = xalloc(len);
        struct vfy_hdr h;

        vfy_fill(buf, len, unit, BASE_OFF, GEN, SEQ);
        assert_int_equal(vfy_check(buf, len, unit, BASE_OFF, GEN, NULL, 0), 0);
        assert_int_equal(vfy_check(buf, len, unit, BASE_OFF, 0, NULL, 0), 0);
        vfy_hdr_decode(buf + 3 * unit, &h);
        assert_int_equal(h.magic, VFY_MAGIC);
        assert_int_equal(h.offset, BASE_OFF + 3 * unit);
        assert_int_equal(h.generation, GEN);
        assert_int_equal(h.seq, SEQ);
        /* the payload is not a constant: neighbouring units differ */
        assert_memory_not_equal(buf + VFY_HDR_SIZE, buf + unit + VFY_HDR_SIZE, unit - VFY_HDR_SIZE);
        free(buf);
}

static void test_fill_check_ok(void **state)
{
        (void)state;
        fill_check_ok(512);
        fill_check_ok(4096);
        fill_check_ok(520); /* a payload that is not whole 32-byte steps */
}

/* The same place written by another I/O carries different bytes. */
static void test_payload_depends_on_seq(void **state)
{
        uint8_t *a = xalloc(4096), *b = xalloc(4096);

        (void)state;
        vfy_fill(a, 4096, 4096, BASE_OFF, GEN, SEQ);
        vfy_fill(b, 4096, 4096, BASE_OFF, GEN, SEQ + 1);
        assert_memory_not_equal(a + VFY_HDR_SIZE, b + VFY_HDR_SIZE, 4096 - VFY_HDR_SIZE);
        vfy_fill(b, 4096, 4096, BASE_OFF, GEN, SEQ);
        assert_memory_equal(a, b, 4096);
        free(a);
        free(b);
}

static void flip_at(uint32_t unit, uint32_t victim, uint32_t byte)
{
        uint32_t len = unit * 8;
        uint8_t *buf = xalloc(len);
        struct vfy_bad bad[4];

        vfy_fill(buf, len, unit, BASE_OFF, GEN, SEQ);
        buf[victim * unit + byte] ^= 0x10;
        assert_int_equal(vfy_check(buf, len, unit, BASE_OFF, GEN, bad, 4), 1);
        assert_int_equal(bad[0].offset, BASE_OFF + (uint64_t)victim * unit);
        assert_int_equal(bad[0].status, VFY_BAD_CRC);
        free(buf);
}

static void test_flipped_byte(void **state)
{
        (void)state;
        flip_at(512, 5, 300);   /* payload */
        flip_at(4096, 0, 4095); /* last byte of the unit */
        flip_at(4096, 7, 24);   /* seq field of the header */
        flip_at(512, 2, 4);     /* the crc itself */
}

static void test_wrong_offset(void **state)
{
        uint32_t unit = 512, len = unit * 8;
        uint8_t *buf = xalloc(len);
        struct vfy_bad bad[8];

        (void)state;
        vfy_fill(buf, len, unit, BASE_OFF, GEN, SEQ);
        assert_int_equal(vfy_check(buf, len, unit, BASE_OFF + len, GEN, bad, 8), 8);
        for (int i = 0; i < 8; i++) {
                assert_int_equal(bad[i].status, VFY_BAD_OFFSET);
                assert_int_equal(bad[i].offset, BASE_OFF + len + (uint64_t)i * unit);
        }
        /* a misdirected write: unit 2's content landed where unit 4 belongs */
        memcpy(buf + 4 * unit, buf + 2 * unit, unit);
        assert_int_equal(vfy_check(buf, len, unit, BASE_OFF, GEN, bad, 8), 1);
        assert_int_equal(bad[0].status, VFY_BAD_OFFSET);
        assert_int_equal(bad[0].offset, BASE_OFF + 4 * unit);
        free(buf);
}

static void test_wrong_generation(void **state)
{
        uint32_t unit = 4096, len = unit * 4;
        uint8_t *buf = xalloc(len);
        struct vfy_bad bad[4];

        (void)state;
        vfy_fill(buf, len, unit, BASE_OFF, GEN, SEQ);
        assert_int_equal(vfy_check(buf, len, unit, BASE_OFF, GEN + 1, bad, 4), 4);
        assert_int_equal(bad[0].status, VFY_BAD_GEN);
        assert_int_equal(bad[3].status, VFY_BAD_GEN);
        assert_int_equal(bad[3].offset, BASE_OFF + 3 * unit);
        assert_int_equal(vfy_check(buf, len, unit, BASE_OFF, 0, bad, 4), 0);
        free(buf);
}

static void test_zeros_no_magic(void **state)
{
        uint32_t unit = 512, len = unit * 4;
        uint8_t *buf = xalloc(len);
        struct vfy_bad bad[4];

        (void)state;
        memset(buf, 0, len);
        assert_int_equal(vfy_check(buf, len, unit, 0, 0, bad, 4), 4);
        for (int i = 0; i < 4; i++) {
                assert_int_equal(bad[i].status, VFY_NO_MAGIC);
                assert_int_equal(bad[i].offset, (uint64_t)i * unit);
        }
        free(buf);
}

static void test_maxbad_limits_array_only(void **state)
{
        uint32_t unit = 512, len = unit * 16;
        uint8_t *buf = xalloc(len);
        struct vfy_bad bad[5];

        (void)state;
        memset(buf, 0, len);
        memset(bad, 0xa5, sizeof(bad));
        assert_int_equal(vfy_check(buf, len, unit, BASE_OFF, 0, bad, 3), 16);
        assert_int_equal(bad[2].offset, BASE_OFF + 2 * unit);
        assert_int_equal(bad[3].offset, 0xa5a5a5a5a5a5a5a5ull);
        assert_int_equal(vfy_check(buf, len, unit, BASE_OFF, 0, NULL, 0), 16);
        free(buf);
}

static void test_status_names(void **state)
{
        (void)state;
        assert_string_equal(vfy_status_name(VFY_OK), "ok");
        assert_string_equal(vfy_status_name(VFY_BAD_CRC), "crc mismatch");
        assert_string_not_equal(vfy_status_name(VFY_NO_MAGIC), vfy_status_name(VFY_BAD_OFFSET));
        assert_string_not_equal(vfy_status_name(VFY_BAD_GEN), vfy_status_name(VFY_BAD_OFFSET));
        assert_string_equal(vfy_status_name((enum vfy_status)99), "unknown");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_crc_vectors),
            cmocka_unit_test(test_crc_chaining),
            cmocka_unit_test(test_crc_hw_equals_table),
            cmocka_unit_test(test_hdr_round_trip),
            cmocka_unit_test(test_fill_check_ok),
            cmocka_unit_test(test_payload_depends_on_seq),
            cmocka_unit_test(test_flipped_byte),
            cmocka_unit_test(test_wrong_offset),
            cmocka_unit_test(test_wrong_generation),
            cmocka_unit_test(test_zeros_no_magic),
            cmocka_unit_test(test_maxbad_limits_array_only),
            cmocka_unit_test(test_status_names),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
