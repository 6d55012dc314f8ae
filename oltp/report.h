/*
 * report.h - what an OLTP run prints and writes.
 *
 * Interval lines and the final report use sysbench's layout, so scripts
 * that scrape sysbench output read hcisweep's too; the JSON follows
 * the README (totals, lat_ns, hist, hosts[], intervals[]). A report collects the
 * intervals it prints, for the JSON. Used by the reporting thread only.
 */
#ifndef HCI_OLTP_REPORT_H
#define HCI_OLTP_REPORT_H

#include <stdio.h>
#include <jansson.h>

#include "oltp/engine.h"

struct oltp_report;

/* pcts: the --percentile list (the first one is shown in interval lines). NULL on ENOMEM. */
struct oltp_report *oltp_report_new(FILE *out, const double *pcts, unsigned npct, double rate);
void oltp_report_free(struct oltp_report *r);

/* The engine's on_interval callback (user = the report). */
void oltp_report_interval(void *user, const struct oltp_interval *iv);
/* The same row kept for the result's intervals, not printed (runs without --report-interval). */
void oltp_report_keep(void *user, const struct oltp_interval *iv);

/*
 * A host whose connections were lost during the measured time (down_s > 0,
 * failed reconnects, or still down at the end): its hosts[] entry says
 * "degraded": true.
 */
int oltp_host_degraded(const struct oltp_host_result *h);
/*
 * An open-loop run (rate > 0) whose schedule fell behind: arrivals were
 * dropped from a full queue (queue_overflows), or it reached under 90% of
 * the rate over at least 1000 expected arrivals. The result's rate object
 * says "overloaded" and the terminal warns.
 */
int oltp_rate_overloaded(const struct oltp_result *res, double rate);

/* sysbench's final block: SQL statistics, general statistics, latency, fairness (left out
 * for a result without connections, nconns 0: a merge of results, oltp/merge.h). */
void oltp_report_final(struct oltp_report *r, const struct oltp_result *res);

/*
 * The result object: top (from res_new, a reference is taken) gains
 * totals, lat_ns, hist, hosts[], intervals[] (and rate figures).
 * 0, or -ENOMEM.
 */
int oltp_report_json(struct oltp_report *r, const struct oltp_result *res,
                     const struct oltp_dsn *hosts, json_t *top);

#endif
