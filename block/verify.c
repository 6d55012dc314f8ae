/*
 * verify.c - stamping and checking written data (see verify.h).
 *
 * Every written byte goes through vfy_fill and every verified byte through
 * vfy_check, so both are written for speed: CRC-32C uses the SSE4.2 crc32
 * instruction when the CPU has it (a slicing-by-8 table otherwise), and
 * the payload comes from four interleaved xorshift64 generators, which the
 * compiler can keep in independent registers. The payload only has to be
 * unlikely to match anything else on the disk; reads never regenerate it,
 * the crc covers it.
 */
#include <endian.h>
#include <pthread.h>
#include <string.h>

#include "block/verify.h"

#if defined(__x86_64__)
#include <nmmintrin.h>
#define VFY_X86 1
#endif

#define CRC32C_POLY 0x82f63b78u /* Castagnoli, bit-reflected */

static uint32_t crc_tab[8][256];
static pthread_once_t crc_tab_once = PTHREAD_ONCE_INIT;

static void crc_tab_init(void)
{
        for (uint32_t i = 0; i < 256; i++) {
                uint32_t c = i;

                for (int k = 0; k < 8; k++)
                        c = (c >> 1) ^ (CRC32C_POLY & (0u - (c & 1)));
                crc_tab[0][i] = c;
        }
        for (uint32_t i = 0; i < 256; i++)
                for (int t = 1; t < 8; t++)
                        crc_tab[t][i] =
                            (crc_tab[t - 1][i] >> 8) ^ crc_tab[0][crc_tab[t - 1][i] & 0xff];
}

/* Works on the inverted register; callers invert on the way in and out. */
static uint32_t crc_sw_raw(uint32_t c, const uint8_t *p, size_t len)
{
        while (len >= 8) {
                uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                                   (uint32_t)p[3] << 24);

                c = crc_tab[7][lo & 0xff] ^ crc_tab[6][(lo >> 8) & 0xff] ^
                    crc_tab[5][(lo >> 16) & 0xff] ^ crc_tab[4][lo >> 24] ^ crc_tab[3][p[4]] ^
                    crc_tab[2][p[5]] ^ crc_tab[1][p[6]] ^ crc_tab[0][p[7]];
                p += 8;
                len -= 8;
        }
        while (len--)
                c = (c >> 8) ^ crc_tab[0][(c ^ *p++) & 0xff];
        return c;
}

/* The portable implementation, callable on every CPU (see verify.h). */
uint32_t vfy_crc32c_sw(uint32_t crc, const void *buf, size_t len)
{
        pthread_once(&crc_tab_once, crc_tab_init);
        return ~crc_sw_raw(~crc, buf, len);
}

#ifdef VFY_X86
__attribute__((target("sse4.2"))) static uint32_t crc_hw_raw(uint32_t crc, const uint8_t *p,
                                                             size_t len)
{
        uint64_t c = crc;
        uint64_t v;

        for (; len && ((uintptr_t)p & 7); len--)
                c = _mm_crc32_u8((uint32_t)c, *p++);
        for (; len >= 8; len -= 8, p += 8) {
                memcpy(&v, p, 8);
                c = _mm_crc32_u64(c, v);
        }
        for (; len; len--)
                c = _mm_crc32_u8((uint32_t)c, *p++);
        return (uint32_t)c;
}
#endif

uint32_t vfy_crc32c(uint32_t crc, const void *buf, size_t len)
{
#ifdef VFY_X86
        if (__builtin_cpu_supports("sse4.2"))
                return ~crc_hw_raw(~crc, buf, len);
#endif
        return vfy_crc32c_sw(crc, buf, len);
}

static void put_le32(uint8_t *p, uint32_t v)
{
        v = htole32(v);
        memcpy(p, &v, 4);
}

static void put_le64(uint8_t *p, uint64_t v)
{
        v = htole64(v);
        memcpy(p, &v, 8);
}

static uint32_t get_le32(const uint8_t *p)
{
        uint32_t v;

        memcpy(&v, p, 4);
        return le32toh(v);
}

static uint64_t get_le64(const uint8_t *p)
{
        uint64_t v;

        memcpy(&v, p, 8);
        return le64toh(v);
}

void vfy_hdr_encode(void *p, const struct vfy_hdr *h)
{
        uint8_t *b = p;

        put_le32(b, h->magic);
        put_le32(b + 4, h->crc);
        put_le64(b + 8, h->offset);
        put_le64(b + 16, h->generation);
        put_le64(b + 24, h->seq);
}

void vfy_hdr_decode(const void *p, struct vfy_hdr *h)
{
        const uint8_t *b = p;

        h->magic = get_le32(b);
        h->crc = get_le32(b + 4);
        h->offset = get_le64(b + 8);
        h->generation = get_le64(b + 16);
        h->seq = get_le64(b + 24);
}

/* splitmix64's finaliser: spreads a few changed input bits over all 64. */
static uint64_t mix64(uint64_t x)
{
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        return x ^ (x >> 31);
}

static uint64_t xorshift64(uint64_t x)
{
        x ^= x << 13;
        x ^= x >> 7;
        return x ^ (x << 17);
}

/* Four generators in step: their chains are independent, so they overlap. */
struct xs4 {
        uint64_t s[4];
};

static void xs4_init(struct xs4 *x, uint64_t seed)
{
        for (int i = 0; i < 4; i++)
                x->s[i] = mix64(seed + (uint64_t)i) | 1;
}

static void xs4_step(struct xs4 *x, uint8_t *p)
{
        for (int i = 0; i < 4; i++)
                x->s[i] = xorshift64(x->s[i]);
        memcpy(p, x->s, sizeof(x->s));
}

/* Payloads are whole 32-byte steps for every real unit size; this is the rest. */
static void xs4_tail(struct xs4 *x, uint8_t *p, size_t len)
{
        uint64_t v = xorshift64(x->s[0]);

        for (size_t i = 0; i < len; i++)
                p[i] = (uint8_t)(v >> (i % 8 * 8));
}

/*
 * Fills the payload of a unit whose header is already in place (crc field
 * 0) and returns the crc of the whole unit.
 */
static uint32_t stamp_generic(uint8_t *u, uint32_t unit, uint64_t seed)
{
        uint8_t *p = u + VFY_HDR_SIZE;
        size_t len = unit - VFY_HDR_SIZE;
        struct xs4 x;

        xs4_init(&x, seed);
        for (; len >= 32; len -= 32, p += 32)
                xs4_step(&x, p);
        xs4_tail(&x, p, len);
        return vfy_crc32c(0, u, unit);
}

#ifdef VFY_X86
/* Same bytes as stamp_generic, but the crc runs on the words still in registers. */
__attribute__((target("sse4.2"))) static uint32_t stamp_hw(uint8_t *u, uint32_t unit, uint64_t seed)
{
        uint8_t *p = u + VFY_HDR_SIZE;
        size_t len = unit - VFY_HDR_SIZE;
        uint64_t c = crc_hw_raw(~0u, u, VFY_HDR_SIZE);
        struct xs4 x;

        xs4_init(&x, seed);
        for (; len >= 32; len -= 32, p += 32) {
                xs4_step(&x, p);
                for (int i = 0; i < 4; i++)
                        c = _mm_crc32_u64(c, htole64(x.s[i]));
        }
        xs4_tail(&x, p, len);
        return ~crc_hw_raw((uint32_t)c, p, len);
}
#endif

static uint32_t stamp(uint8_t *u, uint32_t unit, uint64_t seed)
{
#ifdef VFY_X86
        if (__builtin_cpu_supports("sse4.2"))
                return stamp_hw(u, unit, seed);
#endif
        return stamp_generic(u, unit, seed);
}

static uint32_t unit_crc(const uint8_t *u, uint32_t unit)
{
        uint8_t hdr[VFY_HDR_SIZE];

        memcpy(hdr, u, VFY_HDR_SIZE);
        put_le32(hdr + 4, 0);
        return vfy_crc32c(vfy_crc32c(0, hdr, VFY_HDR_SIZE), u + VFY_HDR_SIZE, unit - VFY_HDR_SIZE);
}

/* Units smaller than the header cannot be stamped; such calls do nothing. */
void vfy_fill(void *buf, uint32_t len, uint32_t unit, uint64_t offset, uint64_t generation,
              uint64_t seq)
{
        struct vfy_hdr h = {.magic = VFY_MAGIC, .generation = generation, .seq = seq};
        uint8_t *u = buf;

        if (unit < VFY_HDR_SIZE)
                return;
        for (uint32_t at = 0; len - at >= unit; at += unit, u += unit) {
                h.offset = offset + at;
                h.crc = 0;
                vfy_hdr_encode(u, &h);
                put_le32(u + 4, stamp(u, unit, h.offset ^ generation ^ (seq << 32 | seq >> 32)));
        }
}

static enum vfy_status unit_check(const uint8_t *u, uint32_t unit, uint64_t offset,
                                  uint64_t expect_gen)
{
        struct vfy_hdr h;

        vfy_hdr_decode(u, &h);
        if (h.magic != VFY_MAGIC)
                return VFY_NO_MAGIC;
        if (h.crc != unit_crc(u, unit))
                return VFY_BAD_CRC;
        if (h.offset != offset)
                return VFY_BAD_OFFSET;
        if (expect_gen && h.generation != expect_gen)
                return VFY_BAD_GEN;
        return VFY_OK;
}

unsigned vfy_check(const void *buf, uint32_t len, uint32_t unit, uint64_t offset,
                   uint64_t expect_gen, struct vfy_bad *bad, unsigned maxbad)
{
        const uint8_t *u = buf;
        unsigned nbad = 0;

        if (unit < VFY_HDR_SIZE)
                return 0;
        for (uint32_t at = 0; len - at >= unit; at += unit, u += unit) {
                enum vfy_status st = unit_check(u, unit, offset + at, expect_gen);

                if (st == VFY_OK)
                        continue;
                if (nbad < maxbad) {
                        bad[nbad].offset = offset + at;
                        bad[nbad].status = st;
                }
                nbad++;
        }
        return nbad;
}

const char *vfy_status_name(enum vfy_status s)
{
        switch (s) {
        case VFY_OK:
                return "ok";
        case VFY_NO_MAGIC:
                return "no verify header";
        case VFY_BAD_CRC:
                return "crc mismatch";
        case VFY_BAD_OFFSET:
                return "offset mismatch";
        case VFY_BAD_GEN:
                return "generation mismatch";
        }
        return "unknown";
}
