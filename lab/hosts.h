/*
 * hosts.h - a lab's hosts as `lab status` and `scale` read them: the
 * backend's own list (lab_backend_ops.host) with the source
 * --metrics-source picks for each (lab_host_metrics), and that source
 * opened on what the backend lends it (lab_hostinfo.lent: libvirt's
 * connection), like any other (hostsrc_open).
 *
 * A backend without a host op is one host, this one: "local", role both,
 * procfs on /proc.
 */
#ifndef HCI_LAB_HOSTS_H
#define HCI_LAB_HOSTS_H

#include <stddef.h>

#include "core/hostsrc.h"
#include "lab/backend.h"

/*
 * Host i (0-based) of the lab into *h: 0, -ENOENT past the last, -EINVAL
 * with err when --metrics-source cannot read it (bad input).
 */
int lab_host_get(const struct lab_backend_ops *ops, struct lab_backend *b,
                 const struct lab_spec *spec, unsigned i, struct lab_hostinfo *h, char *err,
                 size_t errlen);

/* Open h's source (h from lab_host_get or an inventory) into *s; errors name the host. */
int lab_host_src_open(const struct lab_hostinfo *h, struct hostsrc *s, char *err, size_t errlen);

/* Whether a host of ops is this machine read from its own /proc (the controller). */
int lab_host_is_controller(const struct lab_backend_ops *ops);

#endif
