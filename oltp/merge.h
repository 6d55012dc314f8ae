/*
 * merge.h - many `oltp run` results made into one, exactly: the one merge
 * routine behind `hcisweep oltp run --merge A.json B.json ...` and behind
 * scale's drivers placed in the VMs (scale/scale_drivers.h).
 *
 * What is merged, and how:
 *   totals      summed (transactions, queries, errors, reconnects, failed
 *               connects); tps and qps are the sum of the inputs' own
 *               (concurrent drivers' rates add), "seconds" is the longest
 *               input's measured time;
 *   hist        bucket by bucket (core/hist.h), so every percentile of the
 *               merged lat_ns is read from all samples, never averaged;
 *   hosts[]     kept, one entry per host:port; two inputs that drove the
 *               same server add into one entry (histograms merged, down_s
 *               the longest, degraded if either was);
 *   intervals[] aligned by "t" (seconds since the measurement start):
 *               rates of rows at the same t summed, "inputs" saying how
 *               many inputs had that row. The inputs keep no per-interval
 *               histogram, so an interval's lat_ns percentile is the
 *               largest of the inputs' (an upper bound of the merged one;
 *               the result's merge object says so);
 *   partial     the merged result is partial when any input is, its reason
 *               "FILE: reason" of each such input; an input's "error" is
 *               carried the same way;
 *   rate        (open-loop inputs) target and achieved TPS and queue
 *               overflows summed, overloaded if any input was; the queue
 *               wait keeps min and max only (no histogram in the inputs).
 * Not carried: an input's steady object, monitor samples and per-connection
 * fairness (they describe one process); the merge object lists the inputs
 * (file, started_at, hostname, seconds, tps, partial).
 *
 * Refused (-EINVAL, err starting with the input's name): a file that is
 * not an oltp result (no schema_version, another kind, a newer schema, a
 * field missing or of the wrong type, a histogram of another layout), one
 * larger than RES_FILE_MAX (core/resfile.h), truncated JSON, and an input
 * whose workload or interval length differs from the first one's. A
 * refused input leaves the merge as it was, so a caller may go on without
 * it. Also refused: a negative or non-finite rate or time, a port over
 * 65535, a count that does not fit, two intervals at the same t, sums
 * that would exceed what the result's integers hold (never wrapped), and
 * through oltp_merge_add_file an input that is not a regular file or is
 * one already added. Rows are merged in one pass and hosts found by hash,
 * so a merge takes time linear in its rows and hosts. One thread.
 */
#ifndef HCI_OLTP_MERGE_H
#define HCI_OLTP_MERGE_H

#include <stddef.h>
#include <jansson.h>

#include "oltp/engine.h"

struct oltp_merge;

/* An empty merge (NULL on ENOMEM). */
struct oltp_merge *oltp_merge_new(void);
void oltp_merge_free(struct oltp_merge *m);

/* Add the result object j, called name in messages and in the merge object. 0, -EINVAL with err
 * "NAME: why", or -ENOMEM. */
int oltp_merge_add(struct oltp_merge *m, const char *name, const json_t *j, char *err,
                   size_t errlen);
/* Read path (at most RES_FILE_MAX) and add it as oltp_merge_add does, named by path. */
int oltp_merge_add_file(struct oltp_merge *m, const char *path, char *err, size_t errlen);

/* Inputs added so far. */
unsigned oltp_merge_count(const struct oltp_merge *m);

/*
 * The merged figures as an engine result, for oltp_report_final() and for
 * callers that merge on (scale's steps): seconds, total, lat, qwait (empty),
 * hosts[] (their names through oltp_merge_host, lat NULL: see oltp_merge_host_lat),
 * queue_overflows, nconns 0 (no per-connection figures). Points into m: valid until the next add or
 * oltp_merge_free; do not oltp_result_free it.
 */
void oltp_merge_result(const struct oltp_merge *m, struct oltp_result *res);
/* Host i's merged latency added into `into` (hosts[].lat of oltp_merge_result is NULL: a merge
 * keeps each host's histogram compact, so 20k hosts fit). 0, -EINVAL or -ENOMEM. */
int oltp_merge_host_lat(const struct oltp_merge *m, unsigned i, struct hist *into);
/* Host i of the merged result: its name and port. */
const char *oltp_merge_host(const struct oltp_merge *m, unsigned i, unsigned *port);
/* The merged intervals: how many, and row i's t and summed TPS. */
unsigned oltp_merge_nintervals(const struct oltp_merge *m);
void oltp_merge_interval(const struct oltp_merge *m, unsigned i, double *t, double *tps);
/* The sum of the inputs' own TPS. */
double oltp_merge_tps(const struct oltp_merge *m);
/* The percentiles of the first input's lat_ns (what the merged one reports), *n of them. */
const double *oltp_merge_pcts(const struct oltp_merge *m, unsigned *n);
/* The first input's config (a borrowed reference), for the merged result's config. */
const json_t *oltp_merge_config(const struct oltp_merge *m);
/* The partial reason of the merge ("A.json: interrupted; B.json: ..."), NULL when no input was
 * partial. */
const char *oltp_merge_partial(const struct oltp_merge *m);

/* top (from res_new) gains seconds, threads, event_threads, totals, lat_ns, hist, hosts[],
 * intervals[], rate, error and the merge object described above. intervals[] is a row source
 * (core/resfile.h's res_rows_ref) into m: written row by row by res_write_json and the other
 * writers, so write top before the next add or oltp_merge_free. 0 or -ENOMEM. */
int oltp_merge_json(const struct oltp_merge *m, json_t *top);

#endif
