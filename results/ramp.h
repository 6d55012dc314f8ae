/*
 * ramp.h - load ramps read from any tool's output.
 *
 * A ramp is a list of points (load, throughput, latency) sorted by load: the
 * curve a user sweeps to find where a system stops scaling. One file can hold
 * several ramps (an hcisweep block sweep holds one per rw/bs group), so a
 * parse yields a struct ramp_set. Formats are detected from the content:
 *   - CSV with a header naming load, throughput and optionally latency_ms,
 *     the throughput's band throughput_min and throughput_max, and the
 *     resource columns cpu_busy_pct, storage_cpu_pct, storage_util_pct,
 *     storage_lat_ms, vm_cpu_pct, vm_throttled_time_pct (tipping.h); a
 *     load column named clients instead makes it a client-count scan
 *     (tip_scan.h: its hosts, of role client or storage, read as a block
 *     point's) (any order, other columns
 *     ignored, empty optional cells unknown, '#' lines and blank lines
 *     skipped);
 *   - sysbench text output: final reports (one per "Number of threads: N"
 *     run) or, when there is no final report, --report-interval lines;
 *   - fio JSON output (one document or several concatenated): load =
 *     iodepth, throughput = read+write IOPS, latency = lat (else clat) mean;
 *   - hcisweep result JSON: block (one ramp per rw/bs group, load = iodepth),
 *     oltp (intervals over time), scale (steps over VM count, read as
 *     tip_json.h reads them: the steps that completed, with their band
 *     and resource figures).
 * Points with the same load within a ramp are averaged (repeats: the band
 * then spans them all, resource figures are averaged); points of
 * one fio document with the same iodepth are summed (numjobs > 1).
 *
 * Errors: 0, or -EINVAL with err = "line N: ..." naming the input line
 * (-ENOMEM, -errno for I/O). No global state; any thread.
 */
#ifndef HCI_RAMP_H
#define HCI_RAMP_H

#include <stddef.h>

#include "results/tipping.h"

struct ramp_point {
        double load;
        double tput;
        double lat_ms;              /* NAN when the source has no latency for the point */
        double lo, hi;              /* the throughput's noise band (lo = hi = tput when unknown) */
        struct res_tip_res r;       /* resource figures for attribution (NAN: not in the source) */
        struct res_tip_hosts hosts; /* the cluster's hosts that read them (n = 0: none) */
};

struct ramp {
        char name[96];      /* "randread 4k", "" for a file with one ramp */
        char load_name[16]; /* "iodepth", "threads", "vms", "t_s", "load", "clients" */
        char tput_name[16]; /* "iops", "tps", "eps", "throughput" */
        char lat_name[16];  /* "mean", "avg", "p95", ... */
        unsigned n, cap;
        struct ramp_point *p; /* heap, owned by the ramp */
};

struct ramp_set {
        char format[16]; /* "csv", "sysbench", "fio", "hcisweep-block", ... */
        unsigned n;
        struct ramp *r; /* heap, owned by the set */
};

/* Append a point (no band, no resource figures). 0 or -ENOMEM. */
int ramp_add(struct ramp *r, double load, double tput, double lat_ms);
/* Append a point with the band and resource figures of a tipping-point step. */
int ramp_add_step(struct ramp *r, const struct res_tip_step *s, double lat_ms);

/* The ramp's points as tipping-point steps (out holds r->n). */
void ramp_tip_steps(const struct ramp *r, struct res_tip_step *out);

/* Sort by load and average points of equal load. */
void ramp_normalise(struct ramp *r);

/* 1 when every point has a latency. */
int ramp_has_latency(const struct ramp *r);

/* Parse text of any supported format into *out (zeroed first). Free with ramp_set_free. */
int ramp_parse_buf(const char *buf, size_t len, struct ramp_set *out, char *err, size_t errlen);

/* Read and parse a file, at most RES_FILE_MAX bytes (core/resfile.h, the limit of every
 * reader of results): -EFBIG past it, -EISDIR for a directory; err starts with path. */
int ramp_parse_file(const char *path, struct ramp_set *out, char *err, size_t errlen);

/* The individual parsers, for callers that know the format. */
int ramp_parse_csv(const char *buf, size_t len, struct ramp_set *out, char *err, size_t errlen);
int ramp_parse_sysbench(const char *buf, size_t len, struct ramp_set *out, char *err,
                        size_t errlen);
int ramp_parse_json(const char *buf, size_t len, struct ramp_set *out, char *err, size_t errlen);

void ramp_set_free(struct ramp_set *s);

#endif
