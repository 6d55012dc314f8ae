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
 * Unknown through libvirt, left 0: swap-ins and -outs, disks (ndisks 0),
 * network bytes, pressure (have_pressure 0).
 *
 * Per VM, hostsrc_libvirt_vms() reads virConnectGetAllDomainStats for the
 * running domains of the lab on that host: cpu time, vCPU time, block
 * requests, bytes and times, network bytes (of interfaces libvirt defines:
 * a guest network passed through qemu:commandline is not one, its bytes
 * read 0).
 *
 * hostsrc_find() does not know this source (core does not link libvirt):
 * it is opened with hostsrc_libvirt_open(), through the backend's
 * host_source op (lab/backend.h).
 */
#ifndef HCI_LAB_HOSTSRC_LIBVIRT_H
#define HCI_LAB_HOSTSRC_LIBVIRT_H

#include <stddef.h>

#include <libvirt/libvirt.h>

#include "core/hostsrc.h"

#define HOSTSRC_LIBVIRT_MAX_VMS 64

/* One running domain's cumulative counters (seconds, requests, bytes). */
struct hostsrc_libvirt_vm {
        char name[96];
        unsigned vm;     /* N of a lab domain hcisweep-LAB-vmN, else 0 */
        unsigned nvcpus; /* vcpu.current */
        double cpu_s;    /* cpu.time: the whole QEMU process */
        double vcpu_s;   /* sum of vcpu.N.time: the guest's CPUs */
        double rd_reqs, wr_reqs, rd_bytes, wr_bytes; /* over every disk */
        double rd_s, wr_s;                           /* time spent reading / writing */
        double rx_bytes, tx_bytes;                   /* over every interface libvirt defines */
};

extern const struct hostsrc_ops hostsrc_libvirt_ops;

/*
 * Open s on the host conn reaches, named host in errors. conn gets a
 * reference of the source's own (virConnectRef), dropped by hostsrc_close,
 * so the caller may close its own at any time. Domains are the VMs of the
 * lab when their names start with vm_prefix ("hcisweep-LAB-vm"; NULL: every
 * domain). Nothing is read yet. 0, or -errno with err.
 */
int hostsrc_libvirt_open(struct hostsrc *s, const char *host, virConnectPtr conn,
                         const char *vm_prefix, char *err, size_t errlen);

/*
 * The counters of the lab's running domains on s's host now, at most max
 * into out, *n of them. 0, or -EIO with err naming the host.
 */
int hostsrc_libvirt_vms(struct hostsrc *s, struct hostsrc_libvirt_vm *out, unsigned max,
                        unsigned *n, char *err, size_t errlen);

#endif
