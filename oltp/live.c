/*
 * live.c - OLTP intervals onto the metrics endpoint (see live.h). Totals
 * are kept here because the engine hands over per-interval counts only.
 */
#include <stdlib.h>

#include "core/metrics.h"
#include "oltp/live.h"

struct oltp_live {
        struct metrics *m;
        struct oltp_counts total;
        struct hist *merged;
};

static const double quantiles[] = {0.5, 0.9, 0.95, 0.99, 0.999};
#define NQ (sizeof(quantiles) / sizeof(quantiles[0]))

struct oltp_live *oltp_live_new(struct metrics *m)
{
        struct oltp_live *l;

        if (!m || !(l = calloc(1, sizeof(*l))))
                return NULL;
        l->m = m;
        if (!(l->merged = hist_new())) {
                free(l);
                return NULL;
        }
        return l;
}

static double per_s(uint64_t n, double s)
{
        return s > 0 ? (double)n / s : 0;
}

void oltp_live_interval(struct oltp_live *l, const struct oltp_interval *iv)
{
        struct metrics *m;
        const struct oltp_counts *c = &iv->c;

        if (!l)
                return;
        m = l->m;
        l->total.txns += c->txns;
        l->total.reads += c->reads;
        l->total.writes += c->writes;
        l->total.other += c->other;
        l->total.errors += c->errors;
        l->total.reconnects += c->reconnects;
        if (iv->lat)
                hist_merge(l->merged, iv->lat);
        metrics_gauge(m, "tps", NULL, "transactions per second in the last report interval",
                      per_s(c->txns, iv->len_s));
        metrics_gauge(m, "qps", NULL, "queries per second in the last report interval",
                      per_s(c->reads + c->writes + c->other, iv->len_s));
        metrics_gauge(m, "interval_seconds", NULL, "length of the last report interval", iv->len_s);
        metrics_gauge(m, "elapsed_seconds", NULL, "measured seconds so far", iv->t_s);
        metrics_counter(m, "transactions", NULL, "transactions committed", (double)l->total.txns);
        metrics_counter(m, "queries", "kind=\"read\"", "queries by kind", (double)l->total.reads);
        metrics_counter(m, "queries", "kind=\"write\"", NULL, (double)l->total.writes);
        metrics_counter(m, "queries", "kind=\"other\"", NULL, (double)l->total.other);
        metrics_counter(m, "errors", NULL, "transactions rolled back on an ignored error",
                        (double)l->total.errors);
        metrics_counter(m, "reconnects", NULL, "connections re-established",
                        (double)l->total.reconnects);
        metrics_gauge(m, "connections", NULL, "client connections", iv->threads);
        metrics_gauge(m, "connections_busy", NULL, "connections inside a transaction", iv->busy);
        metrics_gauge(m, "queue_length", NULL, "rate mode: transactions waiting to start",
                      (double)iv->queue_len);
        metrics_summary(m, "interval_latency_seconds", NULL,
                        "transaction latency in the last report interval", iv->lat, quantiles, NQ);
        metrics_summary(m, "latency_seconds", NULL,
                        "transaction latency, histogram merged over the run or step so far",
                        l->merged, quantiles, NQ);
}

void oltp_live_step(struct oltp_live *l, unsigned vms)
{
        if (!l)
                return;
        hist_reset(l->merged);
        metrics_gauge(l->m, "vms", NULL, "database VMs in the current scale step", vms);
}

void oltp_live_free(struct oltp_live *l)
{
        if (!l)
                return;
        hist_free(l->merged);
        free(l);
}
