/*
 * backend.h - how the controller gets database "VMs": the backend ops.
 *
 * A backend turns a lab description (struct lab_spec) into N numbered
 * database servers, VM 1..N, each reachable at an endpoint. The
 * controllers (`hcisweep lab`, `hcisweep scale`) only ever talk to these
 * ops and read what a backend can do from its capability flags, never its
 * name, so a backend plugs in by adding one file and one line to the table
 * in backends.c.
 *
 * The backends:
 *   local   every VM is a mariadbd of its own on this host (own datadir,
 *           loopback address, cgroup for CPU and memory), plus a tgtd
 *           serving one file-backed LUN per VM. State lives in --lab-dir, so
 *           another process (`lab down` after a crash) finds everything.
 *   static  an INI inventory of servers that already exist; nothing is
 *           started or stopped, the backend only hands out endpoints and
 *           checks reachability; a VM's driver runs over OpenSSH on its
 *           host (lab/ssh.h).
 *   qemu    a QEMU guest per VM on this host (KVM when it boots one, else
 *           TCG), its database disk a LUN of the lab's tgtd.
 *   libvirt a libvirt domain per VM, round-robin over --libvirt-uri (many
 *           hypervisor hosts through remote URIs), its disk as for qemu;
 *           in a build with libvirt. Its hosts are its URIs, each read by
 *           the libvirt host source on the backend's own connection
 *           (lab_hostinfo.lent; lab/hostsrc_libvirt.h).
 * local, qemu and libvirt keep their state in a lab directory (labdir.h)
 * and share the ops that only read it (labhost.h).
 *
 * Life cycle: open() attaches to the lab (reading any saved state, starting
 * nothing); create(n) makes sure VMs 1..n exist (provisioned, not
 * necessarily running; VMs already there are kept); start(i)/stop(i) run or
 * halt VM i; destroy() stops everything and removes what create() made
 * (prepared data is kept unless purge); close() frees the handle and leaves
 * the VMs as they are. VM indexes are 1-based, as users count them.
 *
 * Errors: every op returns 0 or a negative errno and writes one line for
 * people into err (the caller's buffer). -EINVAL means bad input (exit 2),
 * -ENOTSUP an op the backend does not have, anything else means a server or
 * service could not be started, reached or prepared (exit 3).
 *
 * Threads: a handle is used by one thread at a time. Two processes working
 * on the same lab are serialised by the backend (the local one locks its
 * lab directory).
 */
#ifndef HCI_LAB_BACKEND_H
#define HCI_LAB_BACKEND_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lab/cgroup.h"
#include "lab/proc.h"

#define LAB_MAX_VMS  64
#define LAB_PATH_MAX 512

/* Where a VM's datadir lives. */
enum lab_datadir {
        LAB_DATADIR_LUN,     /* on the VM's iSCSI LUN: the storage service is in the data path */
        LAB_DATADIR_HOST,    /* local: on this host's disk (the storage service is not) */
        LAB_DATADIR_UNKNOWN, /* static: the servers' own business */
};

/* "lun", "host", "unknown". */
static inline const char *lab_datadir_name(enum lab_datadir d)
{
        return d == LAB_DATADIR_LUN ? "lun" : d == LAB_DATADIR_HOST ? "host" : "unknown";
}

enum lab_topology {
        LAB_HCI,       /* VMs and the storage service share every CPU */
        LAB_TWO_LAYER, /* the storage service has CPUs of its own */
};

/* Where hosts' figures are read (--metrics-source, lab_host_metrics()). */
enum lab_metrics {
        LAB_METRICS_AUTO,   /* a host's metrics URL: node_exporter; this host: procfs */
        LAB_METRICS_PROCFS, /* this host's /proc */
        LAB_METRICS_NODE,   /* every host's metrics URL */
        LAB_METRICS_PROM,   /* every host through --prometheus */
};

/* What the user asked for. Each backend reads the fields it needs. */
struct lab_spec {
        const char *lab_dir;     /* local: state directory */
        const char *inventory;   /* static: INI inventory file */
        const char *addr_base;   /* local: "127.0.1"; VM i gets ADDR_BASE.i */
        unsigned base_port;      /* local: every VM listens on its address:base_port */
        const char *target_addr; /* tgtd portal address (IPv4; NULL: 127.0.0.1) */
        unsigned target_port;    /* tgtd portal port */
        double vm_cpus;          /* CPU limit per VM, in CPUs (0: none) */
        uint64_t vm_memory;      /* memory limit per VM in bytes (0: none) */
        uint64_t lun_size;       /* local: bytes of each VM's LUN */
        enum lab_topology topology;
        enum lab_datadir datadir_on; /* local: lun (the default) or host */
        const char *libvirt_uri;     /* libvirt: comma-separated connection URIs */
        int boot_timeout_s;          /* qemu, libvirt: for a VM's database to answer */
        /* libvirt, two-layer: comma-separated names of the hosts of libvirt_uri
         * (lab_uri_host_name(), labopts.h) that are storage hosts; NULL: none */
        const char *storage_hosts;
        enum lab_metrics metrics_source; /* --metrics-source: how hosts are read */
        const char *prometheus;          /* --prometheus: the server's URL, or NULL */
        const char *metrics_token;       /* bearer token for HTTP sources, or NULL; never
                                            printed or written */
        const char *metrics_token_file;  /* where it came from (absolute), or NULL */
        /* The caller has a password of its own (MYSQL_PWD, --mysql-password-file,
         * an option file) for servers the lab gives none: static refuses a
         * server without password_file at open() (-EINVAL, FILE:LINE) unless set. */
        int have_password;
        /* scale --driver-placement vm: every VM must be able to take a driver
         * of its own (static: an ssh destination), refused at open() (-EINVAL,
         * FILE:LINE) when one cannot. */
        int drivers_in_vms;
        /* When not NULL, a long wait (a VM's boot) gives up with -EINTR as
         * soon as *cancel is nonzero: the caller's SIGINT flag. */
        const volatile sig_atomic_t *cancel;
};

/* Where VM i is reached. Plain buffers: copied out, nothing to free. */
struct lab_endpoint {
        char host[64];                    /* address or name */
        unsigned port;                    /* TCP port */
        char user[64];                    /* database user */
        char database[64];                /* database the workload uses */
        char password_file[LAB_PATH_MAX]; /* first line is the password; "" = none */
        char socket[LAB_PATH_MAX];        /* local Unix socket, "" if not on this host */
        char lun_url[LAB_PATH_MAX];       /* iscsi:// URL of the VM's LUN, "" if none */
        char load_lun_url[LAB_PATH_MAX];  /* iscsi:// URL of a LUN no filesystem is on,
                                             for a block load; "" if none */
        char driver_host[256];            /* the machine spawn() runs VM i's driver on, when
                                             not this one (static: its ssh host); "" else */
};

/* What is known about VM i right now; unknown numbers are -1. */
struct lab_vm_stats {
        pid_t pid;                /* server process on this host, -1 if not local */
        int alive;                /* 1 running (local) or reachable (static), 0 not */
        double cpu_limit;         /* CPUs the VM may use, -1 unlimited or unknown */
        int64_t mem_limit;        /* bytes, -1 unlimited or unknown */
        int64_t mem_usage;        /* bytes, -1 unknown */
        int64_t cpu_usage_ns;     /* CPU time used so far, -1 unknown */
        char cpuset[64];          /* CPUs it may run on ("0", "0-3"), "" = every CPU */
        char where[LAB_PATH_MAX]; /* where it lives: cgroup path or inventory section */
        /* Its own cgroups on this host, everything the VM runs (server and
         * initiator) inside them; version 0 and every path "" when it has
         * none. Read through cg_read() (cgroup.h), either version. */
        struct cg_group cg;
        /* Its data disk, as the storage path sees it. */
        enum lab_datadir datadir_on;
        char disk[32];            /* host block device under the datadir, as named in
                                     /proc/diskstats ("loop3"); "" if none or not on this host */
        char initiator[64];       /* what speaks iSCSI for it ("qemu-storage-daemon"), "" none */
        pid_t initiator_pid;      /* that process on this host, -1 if none or not local */
        char mount[LAB_PATH_MAX]; /* where its data disk is mounted, "" if not on this host */
};

/* The storage service (local: tgtd). Backends without one leave .exists 0. */
struct lab_storage {
        int exists;
        pid_t pid;
        int alive;
        char portal[64]; /* host:port */
        char iqn[128];
        unsigned luns;
        char cpuset[64]; /* "" = shares every CPU (hci) */
};

/* A host of the lab: a hypervisor or storage server the figures are read on. */
struct lab_hostinfo {
        char name[64];            /* "h1" */
        char role[16];            /* "compute", "storage" or "both" */
        char source[16];          /* "procfs", "node_exporter", "prometheus", "libvirt";
                                     "" none known */
        char where[LAB_PATH_MAX]; /* the source's directory or metrics URL (prometheus:
                                     URL#INSTANCE, core/hostsrc.h) */
        const char *token;        /* bearer token for its source, or NULL (lab_host_metrics) */
        void *lent;               /* what the backend lends the source's open (hostsrc_open's lent:
                                     libvirt's struct hostsrc_libvirt_conn), or NULL; the backend's,
                                     valid while it is open */
};

struct lab_backend;    /* one opened lab, opaque */
struct dp_carrier_ops; /* core/driverproto.h */

struct lab_backend_ops {
        const char *name; /* as given to --backend */
        const char *help; /* one line for --help */
        /* What the backend can do, so callers never ask for it by name. */
        unsigned can_start : 1;   /* makes, starts and removes its servers (in --lab-dir);
                                     0: servers that exist already, count() of them */
        unsigned has_storage : 1; /* a storage service with one iSCSI LUN per VM */
        /* Where spawn() runs a VM's driver, as a result's drivers[].where
         * says: "cgroup" (this host, in the VM's cgroups), "guest" (inside
         * the guest), "ssh" (on the VM's host over OpenSSH); NULL: no spawn. */
        const char *driver_where;
        /* spawn()'s pipes carry the driver protocol both ways for the driver's whole
         * life, any number of ready/go exchanges (block's lockstep clients: one per
         * point; the guest agent bridge streams a --start-on-go driver, guest_driver.h);
         * 0: one ready and one go, its other lines at its end, which only OLTP drivers
         * can run on. Every backend here streams. */
        unsigned spawn_streams : 1;
        /* What carries the lines of a driver spawn() started, and reads its
         * clock (core/driverproto.h): dp_carrier_ssh for "ssh",
         * dp_carrier_guest for "guest"; NULL: dp_carrier_pipe (this host). */
        const struct dp_carrier_ops *driver_carrier;

        /* Attach to the lab described by spec (which must outlive the
         * handle). Starts nothing. *out is the new handle. */
        int (*open)(const struct lab_spec *spec, struct lab_backend **out, char *err,
                    size_t errlen);
        /* The number of VMs the lab has now (provisioned or in the inventory). */
        unsigned (*count)(struct lab_backend *b);
        /* Can create() give what the spec asks (local: a CPU controller for
         * --vm-cpus)? -ENOTSUP and why if not; starts nothing. NULL: yes. */
        int (*check)(struct lab_backend *b, char *err, size_t errlen);
        /* Make sure VMs 1..n and the storage service exist; keeps what is there. */
        int (*create)(struct lab_backend *b, unsigned n, char *err, size_t errlen);
        /* Run VM i and return once it answers queries. *started is set to 1 if
         * it was started now, 0 if it was already running. */
        int (*start)(struct lab_backend *b, unsigned i, int *started, char *err, size_t errlen);
        /* Halt VM i (bounded wait); halting a halted VM is not an error. */
        int (*stop)(struct lab_backend *b, unsigned i, char *err, size_t errlen);
        /* Stop every VM and the storage service, remove what create() made
         * (cgroups, targets); datadirs and LUN files only when purge. */
        int (*destroy)(struct lab_backend *b, int purge, char *err, size_t errlen);
        /* Fill *ep for VM i. */
        int (*endpoint)(struct lab_backend *b, unsigned i, struct lab_endpoint *ep, char *err,
                        size_t errlen);
        /* Run argv "inside" VM i (local: in its cgroups) and wait; *status is
         * the exit status (as from waitpid). -ENOTSUP if the backend cannot. */
        int (*exec)(struct lab_backend *b, unsigned i, char *const argv[], int *status, char *err,
                    size_t errlen);
        /* Start sp->argv "inside" VM i without waiting (local: in its cgroups,
         * with its CPU affinity; static: over ssh on the VM's ssh destination,
         * argv[0], this binary, replaced by the hcisweep there; sp's own
         * cgroup_procs and cpus are ignored),
         * stdin and stdout on the pipes stdio[0..1], as proc_spawn_io (proc.h)
         * with die_with_parent: *pid is the child, the caller reaps it. NULL:
         * the backend cannot (scale's --driver-placement vm needs it). The
         * driver's stdout protocol (oltp/oltp.h) passes through whatever
         * carries it, so its result comes back on the pipe. */
        int (*spawn)(struct lab_backend *b, unsigned i, const struct proc_spawn *sp,
                     const int *stdio, pid_t *pid, char *err, size_t errlen);
        /* Before drivers are spawned in VMs 1..n: can each take one? Reaches
         * where they would run and checks the hcisweep there is this build's
         * version (static: `ssh DEST HCISWEEP --version` once per distinct
         * destination, bounded). 0; -EINTR once *spec->cancel is set; else
         * -errno (a host that cannot be reached or logged in to, another
         * version: exit 3) with err naming the destination. NULL: nothing to
         * check (spawn runs this very binary). */
        int (*driver_check)(struct lab_backend *b, unsigned n, char *err, size_t errlen);
        /* Fill *st for VM i. */
        int (*stats)(struct lab_backend *b, unsigned i, struct lab_vm_stats *st, char *err,
                     size_t errlen);
        /* Fill *h for host i (0-based) as the lab describes it; -ENOENT past
         * the last. NULL: the lab is one host, this one (role both, procfs
         * /proc). The source used is lab_host_metrics()'s (labopts.h); a
         * source that reads through what the backend holds (libvirt: its
         * connection to that host's URI) gets it as h.lent, and is closed
         * (hostsrc_close) before the backend. */
        int (*host)(struct lab_backend *b, unsigned i, struct lab_hostinfo *h);
        /* Fill *st for the storage service (may be NULL: no storage service). */
        int (*storage)(struct lab_backend *b, struct lab_storage *st, char *err, size_t errlen);
        /* Free the handle; VMs keep running. NULL is fine. */
        void (*close)(struct lab_backend *b);
};

/* The backends of this build, NULL-terminated, in --help order (backends.c). */
extern const struct lab_backend_ops *const lab_backends[];

/* Their names, in the same order: --backend's choices (lab_backends[i]->name). */
extern const char *const lab_backend_names[];

#endif
