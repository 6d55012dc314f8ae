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
 * (absolute), or -1 if there is none. */
int bdev_loop_of(const char *file);

#endif
