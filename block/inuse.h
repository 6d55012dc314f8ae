/*
 * inuse.h - is a target in use on this host right now? Asked before any
 * write, and --force does not override it: --force lets a benchmark write
 * over a signature nobody uses, never under a filesystem or an initiator
 * that is serving it.
 *
 *   block device  held open exclusively (mounted, a loop or dm holder):
 *                 an O_EXCL open fails with EBUSY
 *   file          the backing file of a loop device, a mount point (a
 *                 FUSE export), or a LUN's backing file open in tgtd
 *   iSCSI URL     opened on this host by a known initiator (another
 *                 hcisweep, fio, qemu or qemu-storage-daemon, libiscsi's
 *                 iscsi-* tools) whose command line names that portal,
 *                 target and LUN; never this process or its ancestors
 *                 (`timeout 60 hcisweep ...`, a shell, `hcisweep run`)
 *
 * Reads /proc and /sys only; any thread.
 */
#ifndef HCI_BLK_INUSE_H
#define HCI_BLK_INUSE_H

#include <stddef.h>

/* 1 if target (a path, or an iscsi:// URL when is_url) is in use, with
 * what names the user ("mounted or held", "the backing file of loop3",
 * "exported by qemu-storage-daemon (pid 123)"); 0 if not or unknown. */
int blk_target_in_use(const char *target, int is_url, char *what, size_t whatlen);

#endif
