/*
 * verify.h - stamping and checking written data (--verify crc32c).
 *
 * Every verify unit (the target's logical block size, at least 512 bytes)
 * of a written I/O carries a 32-byte header followed by a payload derived
 * from (offset, generation, seq):
 *
 *   0  u32 magic  VFY_MAGIC
 *   4  u32 crc32c of the whole unit with this field taken as 0
 *   8  u64 offset of the unit in bytes (catches misdirected writes/reads)
 *  16  u64 generation (one per verify-write run; 0 is never used)
 *  24  u64 seq (the writer's I/O sequence number, for diagnostics)
 *
 * All fields little-endian. A later read checks magic, crc and offset, and
 * the generation when one is expected. Pure functions, any thread.
 */
#ifndef HCI_BLK_VERIFY_H
#define HCI_BLK_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#define VFY_MAGIC    0x48435657u /* "HCVW" */
#define VFY_HDR_SIZE 32

struct vfy_hdr {
        uint32_t magic;
        uint32_t crc;
        uint64_t offset;
        uint64_t generation;
        uint64_t seq;
};

enum vfy_status {
        VFY_OK = 0,
        VFY_NO_MAGIC,   /* never stamped (or overwritten by something else) */
        VFY_BAD_CRC,    /* stamped, but the content changed */
        VFY_BAD_OFFSET, /* a block meant for another offset */
        VFY_BAD_GEN,    /* stamped by another verify run than expected */
};

struct vfy_bad {
        uint64_t offset; /* byte offset of the bad unit */
        enum vfy_status status;
};

/* CRC-32C (Castagnoli), hardware instruction when the CPU has SSE4.2. crc starts at 0. */
uint32_t vfy_crc32c(uint32_t crc, const void *buf, size_t len);

/* The same CRC by the portable table method on every CPU, so tests can hold the
 * hardware path to it. */
uint32_t vfy_crc32c_sw(uint32_t crc, const void *buf, size_t len);

/* Encode/decode a header at p (little-endian). */
void vfy_hdr_encode(void *p, const struct vfy_hdr *h);
void vfy_hdr_decode(const void *p, struct vfy_hdr *h);

/* Stamp every unit of buf (len a multiple of unit), which will be written at offset. */
void vfy_fill(void *buf, uint32_t len, uint32_t unit, uint64_t offset, uint64_t generation,
              uint64_t seq);

/*
 * Check every unit of buf, which was read from offset. expect_gen 0 accepts
 * any generation. Returns the number of bad units; the first maxbad of them
 * are described in bad[] (bad may be NULL when maxbad is 0).
 */
unsigned vfy_check(const void *buf, uint32_t len, uint32_t unit, uint64_t offset,
                   uint64_t expect_gen, struct vfy_bad *bad, unsigned maxbad);

/* Name of a status ("crc mismatch", …). */
const char *vfy_status_name(enum vfy_status s);

#endif
