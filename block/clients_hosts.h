/*
 * clients_hosts.h - the hosts of a block client run, read during every
 * point through the sources scale reads (lab/cluster.h, core/hostsrc.h),
 * each with the source --metrics-source picks for it (lab_host_metrics,
 * lab/labopts.h), as scale picks it:
 *   - this host, always from its own /proc (procfs; role client when the
 *     clients are local:N, else controller): the controller's own reading,
 *     as scale's probe reads it, which no metrics URL names;
 *   - --clients vms on a lab whose backend lists hosts (static, libvirt):
 *     the lab's hosts, as scale reads them (lab/hosts.h: a libvirt lab's
 *     URIs through the libvirt source on the backend's connection, a
 *     static lab's [host] sections);
 *   - otherwise the [host NAME] sections of --inventory with role =
 *     storage or role = client: auto reads each through its metrics = URL
 *     (node_exporter), --metrics-source prometheus through --prometheus
 *     (the instance its metrics URL's host:port); a section without
 *     metrics = is listed, never read.
 *
 * Every point's measured window (from the go plus the ramp to its end) is
 * sampled every BLK_HOSTS_INTERVAL_S seconds, as the vendor procedure's
 * iostat/mpstat/sar were, by a sampler thread of its own: the controller
 * only posts "window opens" and "window closes", so no host read ever
 * waits on the thread that drives the clients, let alone on a load
 * thread. A point's figures are the time-weighted means of its samples,
 * and each sample is kept (the series).
 *
 * A host that does not answer when the run opens (a Prometheus that
 * stalls or is gone) is recorded as missing, named (its error in
 * cluster.hosts[]), and the run goes on; one that misses a sample loses
 * that sample only.
 *
 * Call blk_hosts_* from one thread (the controller's).
 */
#ifndef HCI_BLK_CLIENTS_HOSTS_H
#define HCI_BLK_CLIENTS_HOSTS_H

#include <stddef.h>
#include <jansson.h>

#define BLK_HOSTS_INTERVAL_S 2.0

struct blk_hosts;
struct lab_spec;
struct lab_backend_ops;
struct lab_backend;

/* Which hosts a block client run reads, and how. */
struct blk_hosts_cfg {
        const char *inventory;       /* its storage and client hosts, or NULL */
        const struct lab_spec *spec; /* --metrics-source, --prometheus, the token; NULL: auto */
        /* --clients vms: the lab, opened; its hosts are read when its backend lists any */
        const struct lab_backend_ops *lab_ops;
        struct lab_backend *lab_b;
        int local_clients; /* this host's role: client (local:N) or controller */
        double interval_s; /* sampled this often (<= 0: BLK_HOSTS_INTERVAL_S) */
};

/*
 * The hosts of cfg, each opened and read once, and the sampler started.
 * 0; -EINVAL with err naming FILE:LINE for a metrics = that cannot be
 * read, or the host and option --metrics-source cannot read it with;
 * -ENOMEM. *out is NULL-safe to close.
 */
int blk_hosts_open(struct blk_hosts **out, const struct blk_hosts_cfg *cfg, char *err,
                   size_t errlen);
void blk_hosts_close(struct blk_hosts *h);

/* The point's window opens in delay_s seconds (its go and ramp) and stays
 * open length_s seconds (its runtime; 0: until blk_hosts_end). Never waits. */
void blk_hosts_begin(struct blk_hosts *h, double delay_s, double length_s);

/*
 * The window closes now: waits for the last sample (each host within its
 * source's timeout) and returns the point's cluster object,
 * {"interval_s", "hosts": [...as scale's steps[].cluster.hosts[]],
 * "series": [{"t_s", "seconds", "hosts": [...]}]}, t_s from the window's
 * start; a point closed before its window opened has hosts without
 * figures and an empty series. NULL for NULL h or on ENOMEM.
 */
json_t *blk_hosts_end(struct blk_hosts *h);

#endif
