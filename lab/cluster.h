/*
 * lab/cluster.h - every host of the lab, read through its source
 * (core/hostsrc.h) at both ends of each measured window, as the probe
 * (scale.h) reads this host's own counters: a step's figures per host are
 * the time-weighted means of its windows, so they cover exactly the
 * measured seconds on every host.
 *
 * The hosts are the backend's (lab_backend_ops.host: a static inventory's
 * [host] sections, a libvirt lab's URIs); a backend without hosts is one
 * host, this one ("local", role both, /proc), marked as the controller.
 * A host with no source is listed, never read.
 *
 * Hosts are read concurrently, each by a reader thread of its own: every
 * window opens and closes on all hosts at once, and lab_cluster_begin
 * only posts the reads (it runs on the thread that drives the load, which
 * a stalled host must never hold up).
 *
 * Faults: a host that does not answer when the run starts stops it (exit
 * 3, the host named) unless the run was told the figures are optional
 * (--metrics-optional: the host is recorded as missing). A host that does
 * not answer at either end of a window (or still reads an earlier one)
 * loses that window only: its figures over the step come from the windows
 * that read it, and the step names it (error). A counter that went
 * backwards voids its own family for the window (core/hostsrc.h), never
 * the others. A family a source does not give is null. Never a negative
 * rate.
 *
 * The functions below are called from one controlling thread (scale's
 * controller; block's host sampler, block/clients_hosts.h).
 */
#ifndef HCI_LAB_CLUSTER_H
#define HCI_LAB_CLUSTER_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "core/hostsrc.h"

#include "lab/backend.h"

struct lab_cluster;
struct lab_hosts; /* one step's figures of every host */

/*
 * The lab's hosts (lab/hosts.h, with spec's --metrics-source), each opened
 * and read once: 0, or -EHOSTDOWN with the host and why in err (optional: a
 * host that does not answer is kept as missing, 0); -EINVAL when
 * --metrics-source cannot read a host; -ENOMEM. *out is NULL-safe to close.
 */
int lab_cluster_open(struct lab_cluster **out, const struct lab_backend_ops *ops,
                     struct lab_backend *b, const struct lab_spec *spec, int optional, char *err,
                     size_t errlen);
/*
 * The same, on hosts given as a list rather than a lab's (block clients:
 * this host and an inventory's storage and client hosts, block/clients_hosts.h):
 * each opened from hostsrc_find(source) on where; one on procfs /proc is
 * the controller. Faults as above.
 */
int lab_cluster_open_list(struct lab_cluster **out, const struct lab_hostinfo *hosts, unsigned n,
                          int optional, char *err, size_t errlen);
void lab_cluster_close(struct lab_cluster *c);
/*
 * Whether --metrics-source can read every host of the lab, nothing opened
 * or read (--dry-run checks it too): 0, or -EINVAL with the host and why,
 * as lab status says it. b may be NULL for a backend without hosts.
 */
int lab_cluster_check(const struct lab_backend_ops *ops, struct lab_backend *b,
                      const struct lab_spec *spec, char *err, size_t errlen);
/* Hosts known (read or not); 0 for a NULL cluster. */
unsigned lab_cluster_count(const struct lab_cluster *c);
/* One line on stdout, the hosts the run reads: "hosts: h1 (compute, node_exporter), s1
 * (storage, node_exporter, missing: WHY)"; "hosts: local (both, procfs /proc)" on one host. */
void lab_cluster_print(const struct lab_cluster *c);

/* Post a read to every host now: the window opens. Never waits. */
void lab_cluster_begin(struct lab_cluster *c);
/*
 * Read every host again, all at once, waiting for the answers (each within
 * its source's timeout, HOSTSRC_HTTP_TIMEOUT_MS), and fold each host's
 * figures over the window into *hs (made on first use). Returns the number
 * of hosts the window could not read (each named in why, "h2
 * (node_exporter): ..."), -ENOMEM.
 */
int lab_cluster_end(struct lab_cluster *c, struct lab_hosts **hs, char *why, size_t len);

/*
 * This host's CPU over the window lab_cluster_end just closed, from the
 * same two reads as its cluster figures, so a step measures it once: the
 * split of every CPU together (set NULL), or the mean split of the CPUs in
 * set, each weighing the same. Returns how many CPUs it covers: 0 when this
 * host is not one of the cluster's (a static inventory), or the window did
 * not read it (*pct all 0; the caller falls back to the host monitor).
 * Valid until the next lab_cluster_begin.
 */
int lab_cluster_local_cpu(const struct lab_cluster *c, const cpu_set_t *set,
                          struct hostsrc_cpu *pct);

/* This host's pages swapped in and out over that same window into *pages:
 * 0, or -ENOENT when the cluster did not read this host's swap then. */
int lab_cluster_local_swap(const struct lab_cluster *c, uint64_t *pages);

/* The step's hosts as the result's cluster object: {"hosts": [...]}; NULL on ENOMEM. */
json_t *lab_hosts_json(const struct lab_hosts *hs);
void lab_hosts_free(struct lab_hosts *hs);
/* Every host of c, none read yet (figures null), to fold windows into; NULL
 * for a cluster without hosts or on ENOMEM. */
struct lab_hosts *lab_hosts_empty(const struct lab_cluster *c);
/*
 * Fold win, the figures of one window (lab_cluster_end into a fresh set),
 * into dst, a longer span of the same cluster's hosts: how a block point's
 * figures are the time-weighted means of its 2 s samples, each kept on its
 * own too. 0, or -EINVAL when they are not of one cluster.
 */
int lab_hosts_fold(struct lab_hosts *dst, const struct lab_hosts *win);

#endif
