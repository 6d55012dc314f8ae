/*
 * fio_json.h - a block result in the layout of fio's --output-format=json
 * and json+ (fio 3.33), so tools written for fio read hcisweep's sweeps:
 * fio_jsonplus_clat2csv, fio-plot, PerfKitBenchmarker's fio parser, and
 * `hcisweep analyze`.
 *
 * One fio job per sweep point, in sweep order, as fio writes for a job file
 * with one section per point and group_reporting (all targets and numjobs
 * of a point are one job). "fio version" names hcisweep, not fio.
 *
 * What maps to what:
 *   - read/write: io_bytes, io_kbytes, bw_bytes, bw (KiB/s), iops, runtime
 *     (ms), total_ios; iops_/bw_ min, max, mean, stddev, samples from the
 *     per-interval series. trim is present with zeros (readers expect it).
 *   - hcisweep times each I/O from the moment it is queued to the engine to
 *     its completion; that is what fio calls clat, and with no separate
 *     submission time it is also lat: clat_ns and lat_ns hold the same
 *     figures and slat_ns is all zero with N 0.
 *   - clat_ns.percentile: fio's default list plus the run's --percentile
 *     list, keys printed as fio does ("99.000000"), read from the merged
 *     histogram exactly as the default JSON's percentiles are.
 *   - json+ clat_ns.bins: one bin per non-empty bucket of hcisweep's
 *     log-linear histogram (128 buckets per power of two, under 1% wide),
 *     keyed by the bucket's midpoint in ns with the bucket's count. fio's
 *     own bins are twice as coarse (64 per power of two) and keyed by
 *     fio's bin value; tools read bins as (latency, count) pairs, so the
 *     counts add up to total_ios and any percentile read from the bins is
 *     the one hcisweep reports.
 *   - usr_cpu / sys_cpu: hcisweep's own CPU time during the point, in
 *     percent of the measured time (as fio's).
 *   - block --clients: fio's client-mode layout instead of jobs[]:
 *     client_stats[] holds per point one entry per client (its hostname,
 *     port 0, and hcisweep's client name under "client"; usr_cpu is the
 *     client's whole CPU time, sys_cpu 0) and then an entry named "All
 *     clients", the point's exact aggregate (fio sums its whole run into
 *     one such entry; here each point has its own).
 *   - Not written: iodepth_level and the latency_* distributions, ctx/majf/minf
 *     (zero), disk_util.
 */
#ifndef HCI_BLK_FIO_JSON_H
#define HCI_BLK_FIO_JSON_H

#include <stddef.h>
#include <jansson.h>

/* Output formats of `block --output-format`: index into blk_fio_format_names. */
enum blk_fio_format { BLK_FMT_HCISWEEP, BLK_FMT_FIO_JSON, BLK_FMT_FIO_JSON_PLUS };

/* {"json", "fio-json", "fio-json+", NULL}: the choices of --output-format. */
extern const char *const blk_fio_format_names[];

/*
 * The fio document for a block result (kind "block", as cmd_block writes
 * it). plus != 0 adds clat_ns.bins (json+). Returns a new reference, or
 * NULL with err set when the result is not a block result or memory ran out.
 */
json_t *blk_fio_from_block(const json_t *result, int plus, char *err, size_t errlen);

/*
 * Convert result to format (BLK_FMT_FIO_JSON or _PLUS) and write it to path
 * atomically. 0, or -errno with err set.
 */
int blk_fio_write(const char *path, const json_t *result, int format, char *err, size_t errlen);

#endif
