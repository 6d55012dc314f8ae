/*
 * clients_agg.h - the exact aggregate of one sweep point run on many block
 * clients at once (`hcisweep block --clients`).
 *
 * Pure transformation: each client's point (the JSON object a one-process
 * `hcisweep block` writes into points[], with its raw histograms) plus what
 * the controller knows of the client (name, where it ran, its host, its
 * measured window and start skew in the controller's clock) become one point
 * object whose figures are the aggregate:
 *
 *   - read/write ios, bytes, errors summed; iops and bw_bytes the sum of the
 *     clients' own rates (each over its measured window), so the aggregate
 *     equals the per-client sum exactly;
 *   - hist merged bucket by bucket (core/hist.c), lat_ns read from the
 *     merged histogram: exact percentiles, a mean weighted by I/O count;
 *   - intervals re-binned on the controller's clock from the earliest
 *     client start, at the clients' own interval step;
 *   - stonewall.first: I/Os done while every client ran (latest start to
 *     earliest end), over that time; stonewall.last: every I/O, from the
 *     earliest start to the latest end; stonewall.mode the user's choice;
 *   - n_clients, clients[] (name, where, host, targets, iops, bw_bytes,
 *     lat_ns{mean,percentile}, cpu_s, start_skew_ms, late, error, plus the
 *     client's read/write with its histogram, for fio's client_stats, and
 *     window_s{start,end}, its measured window in seconds after the go),
 *     slowest (the lowest IOPS), client_iops{min,max}, degraded[] naming
 *     the clients that gave no result (their error says why).
 *
 * A client is late when its start skew exceeds 1% of the planned runtime.
 */
#ifndef HCI_BLK_CLIENTS_AGG_H
#define HCI_BLK_CLIENTS_AGG_H

#include <stddef.h>
#include <jansson.h>

/* One client's share of one point. Everything is borrowed. */
struct blk_client_point {
        const char *name;      /* the client's name ("c1", an inventory host's name) */
        const char *where;     /* local | ssh | cgroup | guest */
        const char *host;      /* the host it ran on (hostname or address) */
        const json_t *targets; /* array of target labels, or NULL */
        const json_t *point;   /* its point object, or NULL when it gave none */
        double start_s, end_s; /* measured window, controller's clock (seconds) */
        double skew_ms;        /* its go instant minus the common go, controller's clock */
        const char *error;     /* NULL, or why its figures are missing or incomplete */
        const char *carrier;   /* what carried its lines: pipe | ssh | guest; NULL: unsaid */
        double go_s;           /* the point's common go, controller's clock (seconds) */
};

/* Clients later than this share of the runtime are flagged late. */
#define BLK_CLIENT_LATE_SHARE 0.01

/*
 * The aggregate point of n clients. runtime_s is the planned measured time
 * (the late rule's base); pcts[npct] the percentiles to report;
 * stonewall_last != 0 records mode "last" (else "first"). Returns a new
 * object, or NULL with err set (no client gave a point of a known shape, or
 * out of memory). Any thread.
 */
json_t *blk_clients_aggregate(const struct blk_client_point *c, unsigned n, double runtime_s,
                              const double *pcts, unsigned npct, int stonewall_last, char *err,
                              size_t errlen);

#endif
