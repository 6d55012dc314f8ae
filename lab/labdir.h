/*
 * labdir.h - a lab directory held open by a backend that runs its servers
 * on this host (local, qemu, libvirt): the absolute path, the exclusive lock on
 * LAB/lock that makes a second hcisweep working on the same lab wait
 * instead of racing, and the state (labstate.h) that records everything
 * started, so a later process finds it. Also what every such lab has: the
 * password file LAB/password, the directory LAB/vmN of VM N, and VM N's
 * endpoint.
 *
 * Life: labdir_open() reads; labdir_create() makes the directory and takes
 * the lock; labdir_save() after every change; labdir_close() unlocks.
 * Errors: 0 or a negative errno, one line in err. One thread at a time.
 */
#ifndef HCI_LAB_LABDIR_H
#define HCI_LAB_LABDIR_H

#include <stddef.h>

#include "lab/backend.h"
#include "lab/labstate.h"

/* A path below the lab directory. */
typedef char lab_path_t[LAB_PATH_MAX + 64];

struct labdir {
        char dir[LAB_PATH_MAX - 128]; /* absolute, no trailing '/' */
        int lock_fd;                  /* -1 until locked */
        struct lab_state st;
};

/* Make lab_dir (--lab-dir) absolute, lock it if it exists and read its
 * state (none: an empty one); st.name is set either way. Starts nothing.
 * backend is the caller's name: a lab made by another backend is -EINVAL
 * (exit 2) with the way out in err, before any wait for the lock; a new
 * lab is recorded as backend's. */
int labdir_open(struct labdir *l, const char *lab_dir, const char *backend, char *err,
                size_t errlen);

/* Create the directory (and its parents) if needed and take the lock
 * (kept until close). */
int labdir_create(struct labdir *l, char *err, size_t errlen);

/* Write the state to LAB/state now. */
int labdir_save(struct labdir *l, char *err, size_t errlen);

/* Release the lock. The VMs keep running. */
void labdir_close(struct labdir *l);

/* The end of `lab down`, once everything was asked to stop: with rc < 0
 * (something still runs) the state stays on record and rc is returned;
 * otherwise LAB/state is removed and the VMs are forgotten. */
int labdir_forget(struct labdir *l, int rc, char *err, size_t errlen);

/* How many VMs exist. */
unsigned labdir_count(const struct labdir *l);

/* Create LAB/password (20 random letters and digits, mode 0600) unless
 * there is one already. */
int labdir_ensure_password(const struct labdir *l, char *err, size_t errlen);

/* LAB/vmI/NAME into out; LAB/vmI when name is "". */
void labdir_vm_path(const struct labdir *l, unsigned i, const char *name, lab_path_t out);

/* Make LAB/vmI and give VM i its address ADDR_BASE.I and port; it is not
 * on record until labdir_add_vm(). */
int labdir_new_vm(struct labdir *l, unsigned i, const char *addr_base, unsigned port, char *err,
                  size_t errlen);

/* Record that VM i exists (is provisioned); save to keep it. */
void labdir_add_vm(struct labdir *l, unsigned i);

/* Stop VM i's process, called comm: SIGTERM, SIGKILL after timeout_ms;
 * then save it as stopped. A VM that does not exist is not an error. */
int labdir_stop_vm(struct labdir *l, unsigned i, const char *comm, unsigned timeout_ms, char *err,
                   size_t errlen);

/* 0 if VM i exists, else -ENOENT with "vmI does not exist in LAB". */
int labdir_check_vm(const struct labdir *l, unsigned i, char *err, size_t errlen);

/* VM i's endpoint: its address and port, root on database sbtest with the
 * lab's password file, and its LUN's URL once the target serves it. */
int labdir_endpoint(const struct labdir *l, unsigned i, struct lab_endpoint *ep, char *err,
                    size_t errlen);

#endif
