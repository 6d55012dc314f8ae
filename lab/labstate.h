/*
 * labstate.h - the local lab's state file, LAB_DIR/state: every PID,
 * address, port, directory and cgroup path of the lab, so a later process
 * (`lab down` after a crash of `lab up`) can find and stop everything. It
 * is an INI file ([lab], [target], [vmN]), rewritten whole through a
 * temporary file and rename() after every change, so a crash leaves either
 * the old or the new version, never half of one.
 *
 * Errors: 0 or a negative errno, one line in err. Not thread-safe.
 */
#ifndef HCI_LAB_LABSTATE_H
#define HCI_LAB_LABSTATE_H

#include <stddef.h>
#include <sys/types.h>

#include "lab/backend.h"
#include "lab/cgroup.h"

struct lab_vm {
        int exists; /* provisioned: directory, datadir, LUN file, cgroups */
        pid_t pid;  /* mariadbd, 0 if not started */
        char addr[64];
        unsigned port;
        unsigned long long pool; /* innodb buffer pool bytes it was started with */
        pid_t initiator;         /* datadir on the LUN: its qemu-storage-daemon, 0 if none */
        char loop[32];           /* datadir on the LUN: its loop device ("loop3"), "" if none */
        struct cg_group cg;
};

struct lab_target {
        pid_t pid;     /* tgtd, 0 if not started */
        char addr[48]; /* portal address; "" (a state from before it was kept): 127.0.0.1 */
        unsigned port, control, luns;
        unsigned load_luns; /* LUNs of the block-load target (tid 2) */
        char iqn[128];
        char cpuset[64];
        struct cg_group cg;
};

/* The portal address of t: t->addr, or 127.0.0.1 when the state had none. */
static inline const char *target_addr(const struct lab_target *t)
{
        return t->addr[0] ? t->addr : "127.0.0.1";
}

struct lab_state {
        char name[64];      /* cgroup directory and IQN suffix */
        char backend[16];   /* the backend that made the lab; "" in a state from before */
        char datadir_on[8]; /* "lun" or "host"; "" (a state from before): host */
        int topology;       /* enum lab_topology */
        char vm_cpuset[64]; /* CPUs of the VMs in two-layer, "" in hci */
        unsigned nvms;      /* highest VM index that exists */
        struct lab_target tgt;
        struct lab_vm vm[LAB_MAX_VMS + 1]; /* 1-based */
};

/* iscsi://ADDR:PORT/IQN/I of LUN i into out, or "" if not served. */
void target_lun_url(const struct lab_target *t, unsigned i, char *out, size_t outlen);

/* The block-load target's name, IQN.load, into out. */
void target_load_iqn(const struct lab_target *t, char *out, size_t outlen);

/* iscsi://ADDR:PORT/IQN.load/I of VM i's block-load LUN into out, or "". */
void target_load_url(const struct lab_target *t, unsigned i, char *out, size_t outlen);

/* The storage service as the backend op reports it (lab_storage). */
void target_storage(const struct lab_target *t, struct lab_storage *st);

/* Read dir/state into *st (zeroed first). -ENOENT if there is none. */
int labstate_read(const char *dir, struct lab_state *st, char *err, size_t errlen);

/* Write *st to dir/state atomically. */
int labstate_write(const char *dir, const struct lab_state *st, char *err, size_t errlen);

/* Remove dir/state (after everything it lists has been stopped). */
int labstate_remove(const char *dir, char *err, size_t errlen);

#endif
