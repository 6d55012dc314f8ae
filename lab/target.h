/*
 * target.h - the lab's iSCSI target: one tgtd, one LUN per VM.
 *
 * tgtd listens on the portal ADDR:PORT (--target-addr, default 127.0.0.1;
 * --target-port) and serves one
 * target, iqn.2026-11.io.hcisweep:LABNAME (tid 1, open to every
 * initiator), whose LUN N is the file LAB/vmN/lun.img of VM N: VM N's
 * disk. A second target, the same name plus ".load" (tid 2), serves LUN
 * N from LAB/vmN/load.img for scale's --block-load, so that load never
 * writes into a disk that a VM's filesystem is on. tgtd is
 * driven with tgtadm over control port PORT too (PORT - 32767 above 32767,
 * tgtd's limit): one tgtd per portal port
 * makes that number unique on the host. Its output, and tgtadm's, go to
 * LAB/tgtd.log.
 *
 * What is started is recorded in the lab's state (labdir.h) as soon as it
 * runs, so `lab down` from another process finds it. tgtd ignores SIGTERM:
 * stopping takes it offline and deletes the target and the system first.
 *
 * Errors: 0 or a negative errno, one line in err. One thread at a time.
 */
#ifndef HCI_LAB_TARGET_H
#define HCI_LAB_TARGET_H

#include <stddef.h>

#include "lab/backend.h"
#include "lab/labdir.h"
#include "lab/labstate.h"

/* Start tgtd on addr:port (addr NULL: 127.0.0.1) unless it runs, wait (bounded) until it answers on
 * its control and portal ports, and create the target. -EADDRINUSE if
 * something else holds the port. With in_cgroup, tgtd runs in the lab's
 * cgroup "target", limited to st.tgt.cpuset when that is set (two-layer). */
int target_start(struct labdir *l, const char *addr, unsigned port, int in_cgroup, char *err,
                 size_t errlen);

/* Serve LUNs 1..n of both targets; LUN i is LAB/vmi/lun.img, which must
 * exist, and LAB/vmi/load.img, made as big when missing. LUNs already
 * served are kept. */
int target_add_luns(struct labdir *l, unsigned n, char *err, size_t errlen);

/* Stop tgtd (bounded wait); -EBUSY if it would not go. Its cgroup is the
 * caller's to remove. */
int target_stop(struct labdir *l, char *err, size_t errlen);

#endif
