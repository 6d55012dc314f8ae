/*
 * safety.h - recognise data that a write benchmark must not destroy.
 *
 * Before writing to a LUN or device, the block command reads its first
 * blocks and asks blk_find_signature() whether they hold a partition table
 * or a filesystem/volume signature. Pure function, any thread.
 */
#ifndef HCI_BLK_SAFETY_H
#define HCI_BLK_SAFETY_H

#include <stddef.h>

/* Bytes to read from the start of a target for a complete check. */
#define BLK_SAFETY_HEAD 69632

/*
 * Look at the first len bytes of a target (block_size: its logical block
 * size, for GPT's LBA 1). Returns 1 and names what it found in what
 * ("a GPT partition table", "an ext4 filesystem", …), or 0.
 */
int blk_find_signature(const unsigned char *buf, size_t len, unsigned block_size, char *what,
                       size_t whatlen);

#endif
