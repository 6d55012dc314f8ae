/*
 * guest.h - the guest image and a VM's disks, shared by the VM backends
 * (qemu, libvirt). The image is the Debian guest of
 * scripts/build-guest-image.sh: a directory GUEST ($HCISWEEP_GUEST_DIR/current,
 * default /var/tmp/hcisweep-guest/current) holding image.raw, vmlinuz and
 * initrd.img. VM N of a lab (labdir.h) boots it with two disks: its root,
 * LAB/vmN/root.qcow2, a qcow2 overlay on the image, and its database disk,
 * the file LAB/vmN/lun.img that the lab's target serves as LUN N. The LUN
 * file is formatted here with mkfs.ext4 -d, carrying init.sql (database
 * sbtest, root@'%' with the lab's password), my.cnf (buffer pool a
 * quarter of the VM's memory) and bin/hcisweep, a copy of this binary for
 * the load drivers run in the guest (GUEST_DRIVER_BIN, guest_driver.h);
 * the guest keeps MariaDB's datadir on it. A third disk, GUEST_LOAD_DISK in the
 * guest, is the VM's load LUN (lab_endpoint.load_lun_url, no filesystem on it), which
 * block clients in the guest (`block --clients vms`, scale's --block-load with
 * --driver-placement vm) drive.
 *
 * Errors: 0 or a negative errno, one line in err (the caller's buffer).
 */
#ifndef HCI_LAB_GUEST_H
#define HCI_LAB_GUEST_H

#include <stddef.h>
#include <stdint.h>

#include "lab/backend.h"
#include "lab/labdir.h"

/* The VM's load LUN as its guest names it: the third virtio disk (root vda, database
 * vdb), attached in that order by the backend. */
#define GUEST_LOAD_DISK "/dev/vdc"

/* The guest directory GUEST of a backend. */
typedef char guest_dir_t[LAB_PATH_MAX - 128];

/* GUEST into out: $HCISWEEP_GUEST_DIR/current, /var/tmp/hcisweep-guest/current when unset. */
void guest_dir(guest_dir_t out);

/* GUEST/NAME into out. */
void guest_path(const char *guest, const char *name, lab_path_t out);

/* A VM's memory in bytes: --vm-memory, 512 MiB when unset, 256 MiB at least. */
uint64_t guest_vm_memory(const struct lab_spec *spec);

/* 0 if GUEST has image.raw, vmlinuz and initrd.img; else -ENOENT with
 * "BACKEND backend: guest PATH missing; build it with
 * scripts/build-guest-image.sh DIR (or set HCISWEEP_GUEST_DIR)". */
int guest_check(const char *guest, const char *backend, char *err, size_t errlen);

/* What create(n) of a VM backend takes: 1..LAB_MAX_VMS VMs in the hci
 * topology (their disks are served by the lab's target on the same CPUs);
 * else -EINVAL naming --vms or --topology, before anything is made. */
int guest_check_plan(const struct lab_spec *spec, unsigned n, const char *backend, char *err,
                     size_t errlen);

/* Provision VMs 1..n of the lab: create and lock its directory, make its
 * password file, give every VM not yet on record its address and port
 * (labdir_new_vm), root disk and formatted LUN file, then start the lab's
 * target (target.h) on spec->target_port serving the n LUN files, and save
 * the state. A disk file that exists already (data of an earlier lab) is
 * kept as it is. */
int guest_create_vms(struct labdir *lab, const char *guest, const struct lab_spec *spec, unsigned n,
                     char *err, size_t errlen);

/* What guest_wait_ready() needs of the backend besides the lab. */
struct guest_boot {
        const struct labdir *lab;
        unsigned vm;                   /* VM i */
        const struct lab_endpoint *ep; /* where MariaDB answers, password file */
        int timeout_s;                 /* for MariaDB to answer after the boot began; 0: 240 */
        const volatile sig_atomic_t *cancel; /* give up (-EINTR) once nonzero; may be NULL */
        const char *stopped;                 /* why it failed when alive() says 0 */
        /* The hypervisor's own log, LAB/vmI/NAME, whose last lines go into a
         * failure message after "; LABEL: "; NULL when there is none. */
        const char *hv_log, *hv_label;
        /* 1 while the VM runs, 0 once it stopped, or a negative errno (with
         * err set) when that cannot be told. */
        int (*alive)(void *ctx, char *err, size_t errlen);
        void *ctx;
};

/* Wait until MariaDB in the guest answers on the endpoint. When the VM
 * stops (-EIO) or the time runs out (-ETIMEDOUT), err reads
 * "vmI: WHY[; LABEL: LOG TAIL]; console (LAB/vmI/console.log): CONSOLE TAIL".
 * -EINTR ("vmI: boot interrupted") within about a second of *cancel
 * becoming nonzero. */
int guest_wait_ready(const struct guest_boot *boot, char *err, size_t errlen);

/* How long a guest gets for an orderly shutdown before its VM is
 * switched off: systemd stopping MariaDB and syncing, under TCG too. */
#define GUEST_SHUTDOWN_MS 90000U

/* Wait up to timeout_ms, polling alive(b, i), until VM i is off: 1 once
 * it is (or alive() cannot tell), 0 if it still runs. Every 10 s it calls
 * ask(b, i) again (when not NULL): a key pressed before the guest's
 * keyboard driver came up is lost, and one more Ctrl-Alt-Del during an
 * orderly shutdown changes nothing. */
int guest_wait_off(struct lab_backend *b, unsigned i,
                   int (*alive)(struct lab_backend *b, unsigned i, char *err, size_t errlen),
                   int (*ask)(struct lab_backend *b, unsigned i), unsigned timeout_ms);

/* A VM lab's teardown, the order both VM backends need: every guest is
 * asked for an orderly shutdown at once (ask: 1 if it was asked), then
 * each is switched off (off: waits when asked, forces after), then the
 * target stops and the lab is forgotten (labdir_forget); with purge its
 * files go too (guest_purge with extra). The first error wins. */
int guest_destroy(struct lab_backend *b, struct labdir *lab,
                  int (*ask)(struct lab_backend *b, unsigned i),
                  int (*off)(struct lab_backend *b, unsigned i, int asked, char *err,
                             size_t errlen),
                  int purge, const char *extra, char *err, size_t errlen);

/* Remove what the VM disks and their tools left in the lab: every
 * LAB/vmN's root.qcow2, lun.img, console.log, qemu-img.log, mkfs.log and
 * extra (when not NULL), the empty LAB/vmN, LAB/password and LAB/tgtd.log.
 * For `lab down --purge`, once nothing runs. */
void guest_purge(const struct labdir *lab, const char *extra);

#endif
