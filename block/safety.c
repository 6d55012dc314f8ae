/*
 * safety.c - partition table and filesystem signatures.
 *
 * Checks are strict enough that random data (what a previous benchmark run
 * leaves behind) does not match: an MBR needs the 0x55AA mark *and* four
 * plausible partition entries with at least one in use; the others are long
 * magic strings at fixed offsets.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "block/safety.h"

struct magic {
        size_t off;
        const char *bytes;
        size_t len;
        const char *what;
};

static const struct magic magics[] = {
    {0, "XFSB", 4, "an XFS filesystem"},
    {65600, "_BHRfS_M", 8, "a btrfs filesystem"},
    {512, "LABELONE", 8, "an LVM2 physical volume"},
    {4086, "SWAPSPACE2", 10, "a swap area"},
    {0, "LUKS\xba\xbe", 6, "a LUKS encrypted volume"},
    {3, "NTFS    ", 8, "an NTFS filesystem"},
    {82, "FAT32   ", 8, "a FAT32 filesystem"},
    {4096, "\xfc\x4e\x2b\xa9", 4, "a Linux RAID (md) member"},
    {32769, "CD001", 5, "an ISO 9660 filesystem"},
};

static int has(const unsigned char *buf, size_t len, size_t off, const void *m, size_t mlen)
{
        return off + mlen <= len && memcmp(buf + off, m, mlen) == 0;
}

/* An MBR: boot mark, every entry's boot flag 0x00/0x80, and at least one entry in use. */
static int is_mbr(const unsigned char *buf, size_t len)
{
        int used = 0;

        if (len < 512 || buf[510] != 0x55 || buf[511] != 0xAA)
                return 0;
        for (int i = 0; i < 4; i++) {
                const unsigned char *e = buf + 446 + 16 * i;
                if (e[0] != 0x00 && e[0] != 0x80)
                        return 0;
                used += e[4] != 0;
        }
        return used > 0;
}

/* ext2/3/4: magic 0xEF53 plus a sane block-size exponent and revision. */
static int is_ext(const unsigned char *buf, size_t len)
{
        if (len < 1024 + 80 || buf[1080] != 0x53 || buf[1081] != 0xEF)
                return 0;
        uint32_t log_bs = buf[1048] | buf[1049] << 8 | buf[1050] << 16 | (uint32_t)buf[1051] << 24;
        uint32_t rev = buf[1100] | buf[1101] << 8 | buf[1102] << 16 | (uint32_t)buf[1103] << 24;
        return log_bs <= 6 && rev <= 1;
}

int blk_find_signature(const unsigned char *buf, size_t len, unsigned block_size, char *what,
                       size_t whatlen)
{
        const char *found = NULL;

        if (has(buf, len, 512, "EFI PART", 8) || has(buf, len, block_size, "EFI PART", 8))
                found = "a GPT partition table";
        else if (is_mbr(buf, len))
                found = "an MBR partition table";
        else if (is_ext(buf, len))
                found = "an ext2/3/4 filesystem";
        for (size_t i = 0; !found && i < sizeof(magics) / sizeof(magics[0]); i++)
                if (has(buf, len, magics[i].off, magics[i].bytes, magics[i].len))
                        found = magics[i].what;
        if (!found)
                return 0;
        snprintf(what, whatlen, "%s", found);
        return 1;
}
