/*
 * tip_scan.h - the verdict of a client-count scan (`hcisweep block
 * --clients ... --client-counts 1,2,4,8`, or `analyze` of such a scan's
 * CSV): the same point run on the first N clients for each N, read as a
 * blade characterisation reads it, and the resource that stopped it named
 * by the attribution rules of `scale` (tipping.h: res_tip_classify on the
 * hosts tip_hosts.c reads), not by a rule set of its own.
 *
 * Scaling efficiency at N is X(N) / ((N / N0) x X(N0)), N0 the smallest
 * count (1 in the usual scan: X(N) / (N x X(1))). The scan is linear up to
 * the largest N whose efficiency, and that of every smaller N, is at least
 * RES_SCAN_LINEAR; it saturates at the last such N when a larger one falls
 * below. The limit is read between that N and the first count below (or,
 * when no resource was at its limit there, each later count in turn, as
 * the tipping point's attribution does).
 *
 * Verdicts:
 *   "linear to 8 clients (7.9x, latency +3%)"
 *   "saturates at 4 clients: storage host s1's disks 98% busy (3.8x,
 *    latency +5%); 8 clients: efficiency 0.50, latency +100%"
 *   "saturates at 4 clients: no resource at its limit (3.8x, ...); ..."
 *    when hosts were read, without the clause when none were;
 *   "one client count: no scaling to read".
 * Pure functions: any thread.
 */
#ifndef HCI_RES_TIP_SCAN_H
#define HCI_RES_TIP_SCAN_H

#include <stddef.h>
#include <jansson.h>

#include "results/tipping.h"

#define RES_SCAN_LINEAR 0.9 /* efficiency still called linear */

struct res_scan_step {
        struct res_tip_step st; /* load = the client count N, tput = the aggregate X(N) */
        double mean_us;         /* the aggregate's I/O-weighted mean latency (0: unknown) */
};

struct res_scan {
        unsigned at;            /* the saturation count: the largest linear N (the last N
                                   when linear throughout; 0 for no step) */
        int saturated;          /* 1: a larger count fell below RES_SCAN_LINEAR */
        enum res_tip_rule rule; /* the rule that named the limit (RES_RULE_NONE: none) */
        enum res_tip_limit limited_by;
        int cited; /* the step whose figures named it; -1 when none */
        char verdict[512];
};

/* A step: N clients, aggregate iops and mean latency, no resource figures. */
void res_scan_step_init(struct res_scan_step *s, unsigned clients, double iops, double mean_us);

/*
 * A block point of a scan's result (points[]: n_clients, read/write iops,
 * ios and lat_ns.mean, cluster.hosts[] read by res_tip_block_hosts_read).
 * 0, or -EINVAL without n_clients.
 */
int res_scan_step_of_point(const json_t *point, struct res_scan_step *s);

/* Efficiency of step i against step 0; 0 when step 0 has no throughput. */
double res_scan_efficiency(const struct res_scan_step *s, unsigned i);

/* The verdict of n steps in ascending client count (see above) into out. */
void res_scan_verdict(const struct res_scan_step *s, unsigned n, struct res_scan *out);

#endif
