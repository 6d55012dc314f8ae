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

#include "core/resfile.h"
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
 * intervals[] is a row source into r (struct oltp_rows_out below): write
 * top before r keeps another row or is freed. 0, or -ENOMEM.
 */
int oltp_report_json(struct oltp_report *r, const struct oltp_result *res,
                     const struct oltp_dsn *hosts, json_t *top);

/* ---- the one writer of an OLTP result's parts (runs, merges, scale's steps and VMs) ---- */

#define OLTP_MAX_PCTS 16

/*
 * totals{transactions, tps, queries{read,write,other}, qps, errors,
 * reconnects, failed_connects, seconds}: tps and qps as given (a run's are
 * its counts over its seconds, a merge's the sum of its inputs'). New
 * reference, NULL on ENOMEM (or a rate that is not finite).
 */
json_t *oltp_totals_json(const struct oltp_counts *c, double tps, double qps, double seconds);

/* One hosts[] entry: {host, port, totals, lat_ns, hist, down_s, down_at_end, degraded}. */
struct oltp_json_host {
        const char *name;
        unsigned port;
        const struct oltp_host_result *h;
        double tps, qps, seconds;
        int degraded;
};
json_t *oltp_host_json(const struct oltp_json_host *e, const double *pcts, unsigned npct);

/* One intervals[] row, as rates over its length; inputs > 0 (a merge's) is written too. */
struct oltp_row {
        double t, tps, qps, rd, wr, ot, err_s, rec_s, qlen, conc;
        int has_queue;
        unsigned inputs;
        uint64_t pct[OLTP_MAX_PCTS]; /* for the report's (or merge's) percentiles, in order */
};
json_t *oltp_row_json(const struct oltp_row *w, const double *pcts, unsigned npct);

/*
 * A result's intervals[] written row by row (core/resfile.h's res_rows) rather than held as a
 * tree: the rows, their percentiles and one row object filled again for each row. Owned by
 * whoever owns the rows (a report, a merge), zeroed to start, freed with oltp_rows_out_free;
 * it must outlive every write of a tree that oltp_result_json made with it, and the rows must
 * stay where they are meanwhile. One thread.
 */
struct oltp_rows_out {
        struct res_rows src;
        const struct oltp_row *rows;
        const double *pcts;
        unsigned npct;
        json_t *row; /* the row being filled, and its numbers' nodes: */
        json_t *num[10], *pct[OLTP_MAX_PCTS], *inputs;
        int has_queue, has_inputs;
};
void oltp_rows_out_free(struct oltp_rows_out *o);

/*
 * What a result not measured by one process (a merge, oltp/merge.h) gives
 * instead of what oltp_report_json derives from res: the totals' rates,
 * the threads, the rows (written through rows_out, never held as a tree), the hosts (one at a time,
 * so a merge of many hosts never holds all their histograms at once: host(user, i, &e, hist) fills
 * e and may point e.h->lat at hist, a scratch histogram the writer owns; 0 or -ENOMEM) and the rate
 * object (a reference is stolen; NULL: none).
 */
struct oltp_json_over {
        double tps, qps;
        unsigned threads;
        const struct oltp_row *rows;
        unsigned nrows;
        struct oltp_rows_out *rows_out; /* what writes the rows (above) */
        unsigned nhosts;
        int (*host)(void *user, unsigned i, struct oltp_json_host *e, struct oltp_host_result *hr,
                    struct hist *scratch);
        void *user;
        json_t *rate;
};
/*
 * top gains seconds, threads, event_threads, totals, lat_ns, hist, hosts[],
 * intervals[], rate, steady and error: res's figures, with over's in place
 * of what only one process measures; lat_ns and the rows carry the npct
 * percentiles pcts[]. oltp_report_json is this with a run's own. 0 or
 * -ENOMEM (or a figure that is not finite).
 */
int oltp_result_json(const struct oltp_result *res, const double *pcts, unsigned npct,
                     const struct oltp_json_over *over, json_t *top);

#endif
