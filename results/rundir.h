/*
 * rundir.h - a run on disk, and the figures a report or a comparison reads
 * off it.
 *
 * A run directory (res_rundir_create) holds:
 *   result.json    the result (CLI.md), written last-complete-wins;
 *   intervals.csv  one row per interval (block: per point per interval,
 *                  oltp: per interval, scale: per step);
 *   job.ini        the effective config as a job file for `hcisweep run`;
 *   report.html, report.md   written later by `hcisweep report`.
 * Every file is written atomically (core/resfile.h). A run that is
 * interrupted is written the same way with "partial": true, so what is on
 * disk is always a valid result.
 *
 * The run view (struct run_view) boils any result down to series of load
 * points (load, throughput, mean and p99 latency, ops/s, MB/s): one series
 * per rw/bs group for block (load = queue depth), one over time for oltp,
 * one over VM count for scale. Percentiles are read from the merged
 * histograms of the result, never averaged.
 *
 * Errors: 0 or negative errno with a one-line message in err (-ENOENT no
 * such file or run, -EINVAL not a result or a newer schema_version).
 */
#ifndef HCI_RUNDIR_H
#define HCI_RUNDIR_H

#include <stddef.h>

#include <jansson.h>

/* Load a result: a JSON object of kind block|oltp|scale and a schema_version this build reads. */
int res_load(const char *path, json_t **out, char *err, size_t errlen);

/*
 * The result.json a RUN argument names: a run directory, a result.json
 * path, or an id of the run index (all digits, looked up in the default
 * index or $HCISWEEP_INDEX).
 */
int res_resolve_run(const char *run, char *path, size_t len, char *err, size_t errlen);

/* Mark a result partial (an interrupted run), with the reason. 0 or -ENOMEM. */
int res_mark_partial(json_t *result, const char *why);

/*
 * Name a new run directory OUTPUT_DIR/KIND-YYYYmmdd-HHMMSS-PID (UTC, as in
 * runs/scale-20261130-041500-1234) into dir and create it with its parents.
 * One format for every command, so runs sort by time whatever their kind.
 */
int res_rundir_create(const char *output_dir, const char *kind, char *dir, size_t len, char *err,
                      size_t errlen);
/* The same name without creating it (res_rundir_write creates it later). */
void res_rundir_name(const char *output_dir, const char *kind, char *dir, size_t len);

/* Write result.json, intervals.csv and job.ini into dir (created when missing). */
int res_rundir_write(const char *dir, const json_t *result, char *err, size_t errlen);

/* The CSV / INI text res_rundir_write writes (malloc'd, caller frees); NULL on ENOMEM. */
char *res_intervals_csv(const json_t *result);
char *res_job_ini(const json_t *result);

/* ---- figures -------------------------------------------------------------- */

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

/* Build the view of a loaded result. */
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
