/*
 * scale_cluster.h - every host of the lab, read through its source
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
 * window opens and closes on all hosts at once, and scale_cluster_begin
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
 * The functions below are called from one controlling thread, as the rest
 * of scale/.
 */
#ifndef HCI_SCALE_SCALE_CLUSTER_H
#define HCI_SCALE_SCALE_CLUSTER_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "core/hostsrc.h"

#include "lab/backend.h"

struct scale_cluster;
struct scale_hosts; /* one step's figures of every host */

/*
 * The lab's hosts (lab/hosts.h, with spec's --metrics-source), each opened
 * and read once: 0, or -EHOSTDOWN with the host and why in err (optional: a
 * host that does not answer is kept as missing, 0); -EINVAL when
 * --metrics-source cannot read a host; -ENOMEM. *out is NULL-safe to close.
 */
int scale_cluster_open(struct scale_cluster **out, const struct lab_backend_ops *ops,
                       struct lab_backend *b, const struct lab_spec *spec, int optional, char *err,
                       size_t errlen);
void scale_cluster_close(struct scale_cluster *c);
/*
 * Whether --metrics-source can read every host of the lab, nothing opened
 * or read (--dry-run checks it too): 0, or -EINVAL with the host and why,
 * as lab status says it. b may be NULL for a backend without hosts.
 */
int scale_cluster_check(const struct lab_backend_ops *ops, struct lab_backend *b,
                        const struct lab_spec *spec, char *err, size_t errlen);
/* Hosts known (read or not); 0 for a NULL cluster. */
unsigned scale_cluster_count(const struct scale_cluster *c);
/* One line on stdout, the hosts the run reads: "hosts: h1 (compute, node_exporter), s1
 * (storage, node_exporter, missing: WHY)"; "hosts: local (both, procfs /proc)" on one host. */
void scale_cluster_print(const struct scale_cluster *c);

/* Post a read to every host now: the window opens. Never waits. */
void scale_cluster_begin(struct scale_cluster *c);
/*
 * Read every host again, all at once, waiting for the answers (each within
 * its source's timeout, HOSTSRC_HTTP_TIMEOUT_MS), and fold each host's
 * figures over the window into *hs (made on first use). Returns the number
 * of hosts the window could not read (each named in why, "h2
 * (node_exporter): ..."), -ENOMEM.
 */
int scale_cluster_end(struct scale_cluster *c, struct scale_hosts **hs, char *why, size_t len);

/*
 * This host's CPU over the window scale_cluster_end just closed, from the
 * same two reads as its cluster figures, so a step measures it once: the
 * split of every CPU together (set NULL), or the mean split of the CPUs in
 * set, each weighing the same. Returns how many CPUs it covers: 0 when this
 * host is not one of the cluster's (a static inventory), or the window did
 * not read it (*pct all 0; the caller falls back to the host monitor).
 * Valid until the next scale_cluster_begin.
 */
int scale_cluster_local_cpu(const struct scale_cluster *c, const cpu_set_t *set,
                            struct hostsrc_cpu *pct);

/* This host's pages swapped in and out over that same window into *pages:
 * 0, or -ENOENT when the cluster did not read this host's swap then. */
int scale_cluster_local_swap(const struct scale_cluster *c, uint64_t *pages);

/* The step's hosts as the result's cluster object: {"hosts": [...]}; NULL on ENOMEM. */
json_t *scale_hosts_json(const struct scale_hosts *hs);
void scale_hosts_free(struct scale_hosts *hs);

#endif
