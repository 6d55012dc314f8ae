/*
 * vmdisk.h - a local VM's data disk: its iSCSI LUN turned into the
 * filesystem that holds its datadir, so the database's I/O crosses the
 * storage service as it would from a real VM. All of it is user space
 * except the loop device and ext4:
 *
 *   tgtd LUN i  <-  qemu-storage-daemon (libiscsi; the VM's "hypervisor I/O
 *   thread", in VM i's cgroups)  exporting the LUN as the FUSE file
 *   LAB/vmI/lun.fuse  <-  a buffered loop device  <-  ext4 mounted on
 *   LAB/vmI/disk  <-  the datadir LAB/vmI/disk/data
 *
 * The loop device is never opened with direct I/O: with qemu 7.2 direct
 * I/O on a FUSE export returns wrong blocks. A LUN without a filesystem is
 * checked first (a crc32c write/read-back through the loop device, then
 * read again straight from the target: `hcisweep block --verify crc32c`,
 * results in LAB/vmI/chain-verify-loop.json and -lun.json) and only then
 * formatted; a LUN with
 * one is checked (e2fsck -p) and mounted, so data survives down and up.
 *
 * Teardown works from paths as well as from the state, so it also cleans
 * up after a kill -9 of any part (or of hcisweep half-way through up):
 * the mount is LAB/vmI/disk, the export LAB/vmI/lun.fuse, the loop device
 * the one whose backing file is that export.
 *
 * Errors: 0 or a negative errno, one line in err. One thread at a time;
 * the caller holds the lab's lock.
 */
#ifndef HCI_LAB_VMDISK_H
#define HCI_LAB_VMDISK_H

#include <stddef.h>

#include "lab/labdir.h"

/* The program that is each VM's initiator, as recorded in results. */
#define VMDISK_INITIATOR "qemu-storage-daemon"

/* Smallest LUN a datadir fits on (MariaDB's redo log and system tables). */
#define VMDISK_MIN_LUN (256ULL << 20)

/* 0 if this host can build the chain; otherwise -ENODEV and err names
 * every missing piece (root, /dev/fuse, loop devices, programs) and the
 * way out, --datadir-on host. */
int vmdisk_check(char *err, size_t errlen);

/* 1 if VM i's chain is whole: initiator alive, export and ext4 mounted. */
int vmdisk_healthy(const struct labdir *l, unsigned i);

/* For a VM about to be stopped: if its chain is broken (initiator or
 * target gone), kill the initiator so every I/O on it fails at once, and
 * return 1 (the database cannot shut down cleanly: kill it); else 0. */
int vmdisk_abort(const struct labdir *l, unsigned i);

/* Build VM i's chain on LUN i of the lab's target (which must serve it),
 * keeping whatever part of it is whole; records the initiator's PID and
 * the loop device in the state. The VM's cgroups must exist. */
int vmdisk_up(struct labdir *l, unsigned i, char *err, size_t errlen);

/* Undo VM i's chain in order: sync, umount, loop detached, initiator
 * stopped, export gone. The database must be stopped first. When the
 * chain is broken (initiator or target gone) the initiator is killed
 * first, so nothing waits on I/O that cannot complete. */
int vmdisk_down(struct labdir *l, unsigned i, char *err, size_t errlen);

/* The loop device under VM i's datadir ("loop3"), "" if none. */
void vmdisk_loop_name(const struct labdir *l, unsigned i, char *out, size_t outlen);

#endif
