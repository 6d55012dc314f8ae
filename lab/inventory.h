/*
 * inventory.h - the block clients of a static inventory (the INI file of
 * the static backend, lab/backend_static.c, read by that one reader).
 *
 * A client is a section
 *
 *   [host c1]
 *   role = client
 *   ssh = root@10.0.0.21:22      (where its driver runs; required)
 *   ssh_config = c1.ssh          (ssh -F FILE, relative to the inventory)
 *   hcisweep = /opt/bin/hcisweep (the binary there)
 *   targets = iscsi://10.0.0.1:3260/iqn.x/1,/dev/sdb   (optional)
 *
 * Server sections and hosts of other roles may stand in the same file
 * (role = storage hosts are read for telemetry); they are checked as the
 * static backend checks them, but need not be there.
 */
#ifndef HCI_LAB_INVENTORY_H
#define HCI_LAB_INVENTORY_H

#include <stddef.h>

#include "lab/ssh.h"

#define LAB_INV_TARGETS_MAX 4096

struct lab_inv_client {
        char name[64]; /* the section's NAME */
        int line;      /* of its first key */
        struct lab_ssh ssh;
        char targets[LAB_INV_TARGETS_MAX]; /* its comma list as written; "" none */
};

/*
 * The role = client hosts of the inventory at path into out (at most max),
 * in file order: their count (>= 1), or -EINVAL with err naming FILE:LINE
 * (a bad line, a client without ssh =, targets = on another role, no
 * client at all), or another -errno with err. Nothing is connected.
 */
int lab_inventory_clients(const char *path, struct lab_inv_client *out, unsigned max, char *err,
                          size_t errlen);

struct lab_hostinfo; /* lab/backend.h */

/*
 * The role = storage and role = client hosts of the inventory at path into
 * out (at most max), in file order, as the static backend lists them (name,
 * role, source and metrics URL; "" source when it gives no metrics =): their
 * count (>= 0), or -EINVAL with err naming FILE:LINE, or another -errno.
 */
int lab_inventory_hosts(const char *path, struct lab_hostinfo *out, unsigned max, char *err,
                        size_t errlen);

#endif
