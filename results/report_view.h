/*
 * report_view.h - the figures a report or a comparison reads off a result.
 *
 * The run view (struct run_view) boils any result down to series of load
 * points (load, throughput, mean and p99 latency, ops/s, MB/s): one series
 * per rw/bs group for block (load = queue depth; a client-count scan: per
 * rw/bs and client count, "randread 4k, 2 clients"), one over time for oltp,
 * one over VM count for scale. Percentiles are read from the merged
 * histograms of the result, never averaged. Figures a result does not hold
 * are NaN.
 *
 * Errors: 0 or negative errno with a one-line message in err (-EINVAL not a
 * block, oltp or scale result, or one with no points; -ENOMEM). No state
 * is shared: any thread, one view each.
 */
#ifndef HCI_REPORT_VIEW_H
#define HCI_REPORT_VIEW_H

#include <stddef.h>

#include <jansson.h>

struct run_point {
        double load;
        double tput;    /* IOPS or TPS */
        double mean_ms; /* mean latency, NaN when unknown */
        double p99_ms;  /* from a merged histogram; NaN when the result has none */
        double ops_s;   /* IOPS, or queries per second */
        double mb_s;    /* bytes per second / 1e6 (storage side for scale), NaN when unknown */
        double cv;      /* per-interval throughput coefficient of variation, NaN when unknown */
        double cpu_busy, cpu_steal; /* host CPU %, scale steps only (else NaN) */
        double stor_iops;           /* storage-side IOPS, scale steps only (else NaN) */
        double own[4]; /* scale: cpu_by_owner vms, storage, driver, other (% of host), else NaN */
        double lo, hi; /* the throughput's noise band (tipping.h); lo = hi = tput when unknown */
        /* scale: vm_quota used_pct (the VMs' CPU in % of their quota) and
         * throttled_time_pct (the step's time per VM spent throttled), else NaN */
        double quota_pct, throttled_pct;
        /* block client runs: the per-client IOPS spread and the slowest client, else NaN, "" */
        double client_min, client_max;
        char slowest[48];
};

struct run_series {
        char name[96]; /* "randread 4k"; "" when the run has one series */
        unsigned n;
        struct run_point *p;
};

struct run_view {
        char kind[16];
        char label[96];     /* config.topology, else the run directory's name */
        char load_name[24]; /* "queue depth", "time (s)", "VMs" */
        char tput_name[16]; /* "IOPS", "TPS" */
        int partial;
        unsigned nseries;
        struct run_series *s;
};

/* Build the view of a loaded result (path names it in messages); free it with run_view_free. */
int run_view_build(const json_t *result, const char *path, struct run_view *v, char *err,
                   size_t errlen);
void run_view_free(struct run_view *v);

/*
 * SPEC SFS overall response time: the area under mean latency against
 * throughput (trapezoids from the first point, in load order, up to the
 * peak) divided by the peak throughput. NaN with fewer than two points or
 * a missing latency.
 */
double run_overall_response_ms(const struct run_series *s);

/* A merged-histogram percentile in ms over n "hist" objects (NULLs skipped); NaN when empty. */
double res_hist_pct_ms(const json_t *const *hists, unsigned n, double pct, double *mean_ms);

#endif
