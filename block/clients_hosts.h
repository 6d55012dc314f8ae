/*
 * clients_hosts.h - the hosts of a block client run, read during every
 * point through the sources scale reads (lab/cluster.h, core/hostsrc.h):
 * this host (procfs /proc; role client when the clients are local:N, else
 * controller) and the [host NAME] sections of --inventory with role =
 * storage or role = client, each through its metrics = URL
 * (node_exporter); a section without metrics = is listed, never read.
 *
 * Every point's measured window (from the go plus the ramp to its end) is
 * sampled every BLK_HOSTS_INTERVAL_S seconds, as the vendor procedure's
 * iostat/mpstat/sar were, by a sampler thread of its own: the controller
 * only posts "window opens" and "window closes", so no host read ever
 * waits on the thread that drives the clients, let alone on a load
 * thread. A point's figures are the time-weighted means of its samples,
 * and each sample is kept (the series).
 *
 * A host that does not answer when the run opens is recorded as missing,
 * named (its error in cluster.hosts[]), and the run goes on; one that
 * misses a sample loses that sample only.
 *
 * Call blk_hosts_* from one thread (the controller's).
 */
#ifndef HCI_BLK_CLIENTS_HOSTS_H
#define HCI_BLK_CLIENTS_HOSTS_H

#include <stddef.h>
#include <jansson.h>

#define BLK_HOSTS_INTERVAL_S 2.0

struct blk_hosts;

/*
 * This host (role client when local_clients, else controller) and
 * inventory's storage and client hosts (inventory may be NULL), each
 * opened and read once, and the sampler started, sampling every
 * interval_s seconds (<= 0: BLK_HOSTS_INTERVAL_S). 0; -EINVAL with err
 * naming FILE:LINE for a metrics = that cannot be read; -ENOMEM.
 * *out is NULL-safe to close.
 */
int blk_hosts_open(struct blk_hosts **out, const char *inventory, int local_clients,
                   double interval_s, char *err, size_t errlen);
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
