/*
 * live.c - block sweep figures onto the metrics endpoint (see live.h).
 * Interval rates come from deltas of the cumulative I/O count the core
 * loop reports once per --log-interval.
 */
#include <stdio.h>
#include <stdlib.h>

#include "block/live.h"
#include "core/metrics.h"

struct blk_live {
        struct metrics *m;
        uint32_t bs;
        int in_point;
        uint64_t last_ios;
        double last_t;
        uint64_t ios_before, bytes_before; /* finished points */
        uint64_t errors, reconnects, points;
        char rw[32];
};

static const double quantiles[] = {0.5, 0.9, 0.99, 0.999};
#define NQ (sizeof(quantiles) / sizeof(quantiles[0]))

struct blk_live *blk_live_new(struct metrics *m)
{
        struct blk_live *l;

        if (!m || !(l = calloc(1, sizeof(*l))))
                return NULL;
        l->m = m;
        return l;
}

void blk_live_point(struct blk_live *l, unsigned idx, const char *rw,
                    const struct blk_point_spec *p)
{
        char labels[64];

        if (!l)
                return;
        l->bs = p->bs;
        l->in_point = 1;
        l->last_ios = 0;
        l->last_t = (double)p->ramp_ns / 1e9;
        metrics_drop(l->m, "point");
        snprintf(labels, sizeof(labels), "rw=\"%s\"", rw);
        snprintf(l->rw, sizeof(l->rw), "%s", rw);
        metrics_gauge(l->m, "point", labels, "the sweep point running now (its index, from 0)",
                      idx);
        metrics_gauge(l->m, "point_iodepth", NULL, "queue depth of the current point", p->iodepth);
        metrics_gauge(l->m, "point_bs_bytes", NULL, "block size of the current point", p->bs);
}

static void totals(struct blk_live *l, uint64_t ios)
{
        metrics_counter(l->m, "ios", NULL, "I/Os completed in measured time over the sweep",
                        (double)(l->ios_before + ios));
        metrics_counter(l->m, "io_bytes", NULL, "bytes moved in measured time over the sweep",
                        (double)(l->bytes_before + ios * l->bs));
        metrics_counter(l->m, "errors", NULL, "I/Os that failed", (double)l->errors);
        metrics_counter(l->m, "reconnects", NULL, "iSCSI sessions re-established",
                        (double)l->reconnects);
}

void blk_live_progress(struct blk_live *l, double t_s, uint64_t ios)
{
        double dt;

        if (!l || !l->in_point)
                return;
        dt = t_s - l->last_t;
        if (dt > 0 && ios >= l->last_ios) {
                double iops = (double)(ios - l->last_ios) / dt;
                metrics_gauge(l->m, "iops", NULL, "I/Os per second in the last interval", iops);
                metrics_gauge(l->m, "bytes_per_second", NULL,
                              "bytes per second in the last interval", iops * l->bs);
        }
        l->last_ios = ios;
        l->last_t = t_s;
        totals(l, ios);
}

void blk_live_point_done(struct blk_live *l, const struct blk_point_result *r)
{
        static const char *const dirs[2] = {"direction=\"read\"", "direction=\"write\""};
        uint64_t ios = 0;

        if (!l)
                return;
        for (unsigned d = 0; d < 2; d++) {
                const struct blk_dir_result *x = &r->all.dir[d];
                ios += x->ios;
                l->bytes_before += x->bytes;
                l->errors += x->errors;
                if (x->hist && x->ios)
                        metrics_summary(l->m, "point_latency_seconds", dirs[d],
                                        "I/O latency of the last finished point (merged histogram)",
                                        x->hist, quantiles, NQ);
        }
        l->reconnects += r->all.reconnects;
        l->ios_before += ios;
        l->in_point = 0;
        l->points++;
        totals(l, 0);
        metrics_counter(l->m, "points_done", NULL, "sweep points finished", (double)l->points);
}

void blk_live_free(struct blk_live *l)
{
        free(l);
}
