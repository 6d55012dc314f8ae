/*
 * clients_scan.h - a client-count scan's points (`hcisweep block --clients
 * ... --client-counts 1,2,4,8`: the same point run on the first N clients
 * for each N) read into the verdict of results/tip_scan.h, whose rules
 * (efficiency, "linear to", "saturates at", the limit named by scale's
 * attribution on the points' cluster.hosts[]) are the ones `analyze` gives
 * a scan read from CSV. Pure but for printing: any thread.
 */
#ifndef HCI_BLK_CLIENTS_SCAN_H
#define HCI_BLK_CLIENTS_SCAN_H

#include <stdio.h>
#include <jansson.h>

/*
 * agg's scaling efficiency against the point of the same rw, bs and
 * iodepth among points (the scan's points so far, the fewest clients
 * first); 1 when it is the first of its shape.
 */
double blk_scan_point_efficiency(const json_t *points, const json_t *agg);

/*
 * One verdict per point shape of points: result gets scan[]{rw, bs,
 * iodepth, clients, saturated, limited_by, verdict} and
 * tipping_point{clients, verdict, limited_by} (the first shape's); each
 * verdict printed on out as "scan: randread 4k qd 1: linear to ...", out
 * NULL: not printed. 0 or -ENOMEM.
 */
int blk_scan_verdicts(const json_t *points, json_t *result, FILE *out);

#endif
