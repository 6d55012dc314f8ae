/*
 * hostsrc_libvirt.h - the `libvirt` host-metrics source: a hypervisor host
 * read through a libvirt connection somebody already holds (a libvirt lab's
 * backend, one connection per --libvirt-uri), so nothing is installed on the
 * host and a qemu+ssh:// URI works as a local one does.
 *
 * A read fills struct hostsrc_counters (core/hostsrc.h) from
 *   virNodeGetCPUStats   every CPU together and each online CPU: user,
 *                        system (libvirt's "kernel"), idle, iowait. libvirt
 *                        gives nanoseconds and, on Linux, folds nice into
 *                        user and irq and softirq into kernel; it gives no
 *                        steal. So nice, irq, softirq and steal stay 0: a
 *                        guest host's steal is unknown through this source
 *                        (its busy % is then of the time the host had).
 *   virNodeGetMemoryStats  total; available as free + buffers + cached (libvirt
 *                        has no MemAvailable, so memory in use reads a little
 *                        higher than procfs's).
 * Unknown through libvirt, so not in its caps and written as null, never 0:
 * swap-ins and -outs, disks, network bytes, pressure.
 *
 * Registered (hostsrc_register) by the libvirt backend when it opens, so
 * hostsrc_find("libvirt") and hostsrc_open() work as for core's sources.
 * Its where is the connection URI (errors and records); what it reads
 * through is lent: a struct hostsrc_libvirt_conn the backend holds per URI
 * (lab_hostinfo.lent), whose connection gets a reference of the source's
 * own (virConnectRef, dropped by hostsrc_close), so the backend may close
 * its own at any time.
 */
#ifndef HCI_LAB_HOSTSRC_LIBVIRT_H
#define HCI_LAB_HOSTSRC_LIBVIRT_H

#include <stddef.h>

#include <libvirt/libvirt.h>

#include "core/hostsrc.h"

/* What a libvirt lab lends the source's open (hostsrc_open's lent). */
struct hostsrc_libvirt_conn {
        virConnectPtr conn; /* NULL: the backend could not connect, why says why */
        char why[256];
};

extern const struct hostsrc_ops hostsrc_libvirt_ops;

#endif
