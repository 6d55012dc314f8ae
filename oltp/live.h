/*
 * live.h - OLTP figures for the live metrics endpoint (core/metrics.h).
 *
 * The engine hands every report interval to oltp_live_interval(), which
 * publishes the interval's throughput (hcisweep_tps, hcisweep_qps), the
 * running totals (transactions, queries by kind, errors, reconnects), and
 * latency: the interval's own quantiles and those of the histogram merged
 * over the run (or the scale step) so far, the same histogram the result's
 * percentiles come from. Call from the engine's reporting thread.
 */
#ifndef HCI_OLTP_LIVE_H
#define HCI_OLTP_LIVE_H

#include "oltp/engine.h"

struct metrics;
struct oltp_live;

/* New publisher onto m; NULL when m is NULL (metrics off) or on ENOMEM. */
struct oltp_live *oltp_live_new(struct metrics *m);

/* Publish one interval. NULL l is a no-op. */
void oltp_live_interval(struct oltp_live *l, const struct oltp_interval *iv);

/* A new scale step: the merged latency starts again and hcisweep_vms is set. */
void oltp_live_step(struct oltp_live *l, unsigned vms);

void oltp_live_free(struct oltp_live *l);

#endif
