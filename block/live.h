/*
 * live.h - block figures for the live metrics endpoint (core/metrics.h).
 *
 * During a sweep point: hcisweep_iops and hcisweep_bytes_per_second of the
 * last interval (from the core loop's per-interval progress), the current
 * point (hcisweep_point_iodepth, _bs_bytes, a hcisweep_point info gauge
 * labelled with rw), and running totals of I/Os, bytes, errors and
 * reconnects over the sweep. When a point ends: its latency quantiles per
 * direction from the point's merged histogram (the core loop merges its
 * workers' histograms at the end of a point, not while it runs).
 * Call from the command's controlling thread.
 */
#ifndef HCI_BLK_LIVE_H
#define HCI_BLK_LIVE_H

#include <stdint.h>

#include "block/run.h"

struct metrics;
struct blk_live;

/* New publisher onto m; NULL when m is NULL (metrics off) or on ENOMEM. */
struct blk_live *blk_live_new(struct metrics *m);

/* A point starts (index in the sweep, rw by name). */
void blk_live_point(struct blk_live *l, unsigned idx, const char *rw,
                    const struct blk_point_spec *p);

/* Progress inside the point: seconds since the point started, I/Os measured so far in it. */
void blk_live_progress(struct blk_live *l, double t_s, uint64_t ios);

/* The point's result: latency quantiles and the totals. */
void blk_live_point_done(struct blk_live *l, const struct blk_point_result *r);

void blk_live_free(struct blk_live *l);

#endif
