/*
 * clients.h - `hcisweep block --clients`: one sweep run on many block
 * clients at once, in lockstep, from this process (the controller).
 *
 * Each client is this binary run as `hcisweep block --start-on-go` with
 * the user's options and its own targets; it speaks the driver protocol
 * (core/driverproto.h) on its stdin and stdout. For every point K of the
 * sweep (rw x bs x iodepth, in block's order) the controller waits until
 * every client said "ready K", reads each client's clock through its
 * carrier, sends one go for one instant a little ahead, and records each
 * client's start skew in its own clock ("started NS" moved into ours).
 * The next point's go waits for every client's result of this one. Each
 * point's client results become one exact aggregate (block/clients_agg.h).
 *
 * Clients: "local:N", N processes on this host (the pipe carrier); "vms",
 * the VMs of the lab lab_spec describes, each started in its VM by the
 * backend's spawn op on its load LUN (block/clients_vms.h); or
 * "inventory", the [host NAME] sections of --inventory FILE (read by the
 * static backend's one reader, lab/inventory.h) with role =
 * client, each run over OpenSSH (lab/ssh.h: ssh =, ssh_config =,
 * hcisweep =; the ssh carrier reads its clock), its targets = URL|PATH[,...]
 * there. Other sections and roles are the inventory's business, not read
 * here. Every ssh destination's version is checked before any client
 * starts. A client without targets = gets them dealt round-robin from
 * --target/--filename: with as many targets as clients or more, client i
 * takes targets i, i+N, ...; with fewer, client i takes target i mod count.
 *
 * Faults: a client whose output ends before its first "ready" is
 * unreachable (-EHOSTUNREACH, naming it, before any go); so is an ssh
 * destination that fails its version check, unless p->optional: then it is
 * missing (warned about, named in p->missing) and the sweep runs on the
 * others (at least one must be left, and --client-counts must fit them); one lost later
 * makes that point degraded (it is named, its error kept) and the others
 * go on. After an interrupt every client's input is closed, so each stops
 * as on SIGINT and gives what it measured. Every client is reaped (or
 * killed) before blk_clients_run returns.
 *
 * Hosts: during every point this host and the inventory's storage and
 * client hosts are sampled (block/clients_hosts.h); each point's aggregate
 * carries them as "cluster".
 */
#ifndef HCI_BLK_CLIENTS_H
#define HCI_BLK_CLIENTS_H

#include <signal.h>
#include <stddef.h>
#include <jansson.h>

struct lab_spec;
struct lab_backend_ops;

struct blk_clients_plan {
        const char *spec;      /* --clients: "local:N", "vms" or "inventory" */
        const char *inventory; /* --inventory FILE (spec "inventory") */
        /* the lab options (labopts.h's lab_spec()): how hosts are read (clients_hosts.h);
         * spec "vms": the lab and its first vms VMs (0: all) */
        const struct lab_spec *lab_spec;
        const struct lab_backend_ops *lab_ops;
        struct lab_backend *lab_b; /* that lab, opened by the caller (or NULL: opened here) */
        unsigned vms;
        char *const *argv; /* the user's block argv (argv[0] "block") */
        int argc;
        const char *target_list; /* --target, or NULL */
        const char *file_list;   /* --filename, or NULL */
        unsigned npoints;        /* points of the sweep */
        double ramp_s, runtime_s;
        double io_timeout_s; /* a client silent past ramp + runtime + this is lost */
        const double *pcts;
        unsigned npct;
        int stonewall_last;
        /*
         * --target-ci > 0: each point's window is decided here, by the steady
         * rule on the merged IOPS series of its clients (core/steady_merge.h):
         * every client streams its I/O count, is told "measure" and then
         * "stop"; ramp_s and runtime_s are the longest warm-up (0: half of
         * runtime_s) and measurement; the point gets "steady" as a
         * one-process point does, plus steady.window_s{start,end} (seconds
         * after the go, this clock), steady.clients (those that fed the
         * series to its end) and steady.stonewall (first: every client ran
         * through the rule's window; last: one was lost and the series went
         * on with the others), and each clients[] its window_s.
         */
        double target_ci_pct;
        /*
         * steered: the window is the caller's, not a rule's here (target_ci_pct
         * is then ignored): the caller writes one byte per order on a pipe whose
         * read end is steer_fd, 'm' to open the measured window and 's' (or the
         * pipe's end) to close it. Every client ramps until "measure" and runs
         * until "stop", each sent to all at once as its byte comes; ramp_s and
         * runtime_s are only the longest they may (their backstop). The point
         * gets window_s{start,end}, seconds after the go in this clock when
         * each order went out (null: it never did), and each clients[] its
         * window_s. `scale --block-load --target-ci` steers its VMs' block
         * clients so, with the orders of the rule that steers its OLTP drivers.
         */
        int steered;
        int steer_fd;
        int optional;    /* --clients-optional: an unreachable client is missing, not an error */
        json_t *missing; /* with optional: gets {name, host, error} per missing client (or NULL) */
        const unsigned *counts; /* --client-counts: the sweep on the first N clients, each N */
        unsigned ncounts;       /* 0: once, on every client */
        const volatile sig_atomic_t *stop; /* set by the caller's signal handler */
        double host_interval_s;            /* hosts sampled this often (0: 2 s, clients_hosts.h) */
        int no_hosts; /* no host is read (the caller reads them: scale's --block-load) */
};

/*
 * Called with each point's aggregate (borrowed; the callee takes a
 * reference to keep it) as soon as every client gave its result.
 */
typedef void (*blk_clients_point_cb)(void *user, unsigned k, json_t *agg);

/*
 * The number of clients spec asks for: N >= 1, 0 for "inventory" and
 * "vms" (its file or its lab says), or -EINVAL with err naming the option.
 * Checked before anything starts.
 */
int blk_clients_count(const char *spec, char *err, size_t errlen);

/*
 * What blk_clients_run would refuse before starting anything (the spec,
 * the inventory, the targets, the counts; for "vms" only the spec, its lab
 * is read when it runs): 0, or -EINVAL with err naming the option or
 * FILE:LINE. Nothing is started or connected.
 */
int blk_clients_check(const struct blk_clients_plan *p, char *err, size_t errlen);

/*
 * Run the sweep on the clients. 0 done; -EINTR interrupted (the points
 * so far were given, the last one partial); -EHOSTUNREACH a client could
 * not start (err names it); other -errno with err. *degraded is set when a
 * point lacked a client.
 */
int blk_clients_run(const struct blk_clients_plan *p, blk_clients_point_cb cb, void *user,
                    int *degraded, char *err, size_t errlen);

#endif
