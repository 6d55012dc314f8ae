/*
 * clients_scan.h - the verdict of a client-count scan (`hcisweep block
 * --clients ... --client-counts 1,2,4,8`): the same point run on the first
 * N clients for each N, read as a blade characterisation reads it.
 *
 * Scaling efficiency at N is X(N) / ((N / N0) x X(N0)), N0 the smallest
 * count (1 in the usual scan: X(N) / (N x X(1))). The scan is linear up to
 * the largest N whose efficiency, and that of every smaller N, is at least
 * BLK_SCAN_LINEAR; it saturates at the last such N when a larger one falls
 * below. Pure functions: any thread.
 */
#ifndef HCI_BLK_CLIENTS_SCAN_H
#define HCI_BLK_CLIENTS_SCAN_H

#include <stddef.h>

#define BLK_SCAN_LINEAR 0.9 /* efficiency still called linear */

struct blk_scan_step {
        unsigned clients; /* N */
        double iops;      /* the aggregate X(N) */
        double mean_us;   /* the aggregate's I/O-weighted mean latency */
};

/* Efficiency of step i against step 0; 0 when step 0 has no throughput. */
double blk_scan_efficiency(const struct blk_scan_step *s, unsigned i);

/*
 * One line into out: "linear to 8 clients (7.9x, latency +3%)", or
 * "saturates at 4 clients (3.8x, latency +5%); 8 clients: efficiency 0.61,
 * latency +160%", or "one client count: no scaling to read" for n < 2.
 * Steps in ascending client count. Returns the saturation count (the
 * largest linear N; the last N when linear throughout).
 */
unsigned blk_scan_verdict(const struct blk_scan_step *s, unsigned n, char *out, size_t outlen);

#endif
