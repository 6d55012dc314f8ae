/*
 * bdev.h - what the kernel says about mounts and loop devices on this
 * host, read from /proc/self/mountinfo and /sys/block (no state kept).
 * Used where a process must find out for itself what is mounted where,
 * e.g. after a kill -9 left no record. Any thread.
 */
#ifndef HCI_CORE_BDEV_H
#define HCI_CORE_BDEV_H

#include <stddef.h>

/* 1 if something is mounted on path (absolute, as mountinfo spells it),
 * with its filesystem type in fstype when that is not NULL; else 0. */
int bdev_mounted(const char *path, char *fstype, size_t len);

/* The number N of the loop device /dev/loopN whose backing file is file
 * (absolute), or -1 if there is none. With several, the lowest. */
int bdev_loop_of(const char *file);

/* The lowest N above after (-1: any) of a loop device on file, or -1. Walks
 * every loop device on one file, e.g. one still bound beside a new one. */
int bdev_loop_next(const char *file, int after);

/* The PID of a process in another mount namespace than this one that has
 * /dev/loopN mounted (its /proc/PID/mountinfo names the device), or 0 if none
 * (or /proc cannot tell). Such a mount keeps the device open whatever is
 * unmounted here: a namespace made by unshare -m, a container or a service
 * with PrivateTmp while the filesystem was mounted holds a copy of it. */
int bdev_loop_mounted_elsewhere(int n);

#endif
