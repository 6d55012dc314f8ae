/*
 * clients_vms.h - `hcisweep block --clients vms`: the lab's VMs as block
 * clients, the HCIBench worker VMs and the vendor procedure's VM clients.
 *
 * The lab is found with the lab options `scale` takes (lab/labopts.h:
 * --backend, --lab-dir, --inventory...) and must be up (`hcisweep lab up
 * --vms N`): nothing is created or started here. Its first --vms N VMs (0:
 * every VM it has) become clients vm1..vmN, each with one target, the VM's
 * load LUN (lab_endpoint.load_lun_url: a LUN no filesystem is on), and each
 * is started through the backend's spawn op, the path scale's
 * --driver-placement vm starts its OLTP drivers on (lab/backend.h): the
 * local lab runs it in the VM's cgroups with its CPU affinity, the static
 * backend over ssh on the VM's host. A client's where is the backend's
 * driver_where ("cgroup", "guest", "ssh"), its host the machine it runs on
 * ("localhost" when this one); a client on another host is spoken to
 * through the ssh carrier (its clock asked), one here through the pipe, one
 * in a guest (qemu, libvirt) through the guest carrier, on the guest's disk
 * of its load LUN (GUEST_LOAD_DISK, lab/guest.h), by the guest agent's
 * bridge, which streams every point's lines (lab/guest_driver.h).
 *
 * So the lockstep sweep (clients.h), the aggregate and the JSON are those
 * of local:N and inventory clients: only where the clients come from and
 * how each is started differ.
 */
#ifndef HCI_BLK_CLIENTS_VMS_H
#define HCI_BLK_CLIENTS_VMS_H

#include <stddef.h>
#include <sys/types.h>

#include "core/driverproto.h"
#include "lab/backend.h"

struct blk_vms; /* an opened lab, for the spawns */

/* One VM as a client: what clients.c needs to name, start and speak to it. */
struct blk_vm_client {
        unsigned vm;                          /* 1-based, as lab_endpoint's */
        char name[64];                        /* "vm1" */
        char where[16];                       /* the backend's driver_where */
        char host[256];                       /* where it runs: "localhost", or its driver_host */
        int remote;                           /* on another host: the ssh carrier asks its clock */
        const struct dp_carrier_ops *carrier; /* the backend's driver_carrier, or NULL */
        char target[LAB_PATH_MAX];            /* its load LUN's URL */
};

/*
 * Open the lab of spec with ops (or use opened, a handle the caller holds
 * and keeps: scale's, whose lab is locked by it) and describe its first n
 * VMs (0: all) into cl (max of them): their number, or -errno with err
 * (-EINVAL naming the
 * option: a backend that cannot spawn, n past the lab's VMs, a VM without
 * a load LUN; -EHOSTUNREACH: a driver host that fails the backend's
 * driver_check). *out is NULL-safe to close.
 */
int blk_vms_open(const struct lab_spec *spec, const struct lab_backend_ops *ops,
                 struct lab_backend *opened, unsigned n, struct blk_vms **out,
                 struct blk_vm_client *cl, unsigned max, char *err, size_t errlen);

/* Start argv as VM c's client through the backend's spawn op, stdin and stdout on
 * stdio[0..1] (proc_spawn_io, die_with_parent); *pid the child. 0 or -errno with err. */
int blk_vms_spawn(struct blk_vms *v, const struct blk_vm_client *c, char *const *argv,
                  const int *stdio, pid_t *pid, char *err, size_t errlen);

/* The lab v spawns in (its hosts are read as scale reads them, clients_hosts.h); NULL for NULL v.
 */
struct lab_backend *blk_vms_lab(const struct blk_vms *v);

/* Closes the lab unless it was given opened. */
void blk_vms_close(struct blk_vms *v);

#endif
