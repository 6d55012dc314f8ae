/*
 * report.c - sysbench-layout text and the JSON the README describes for an OLTP run.
 *
 * The text mirrors sysbench 1.0's column positions on purpose: people
 * compare the two tools side by side and keep their parsing scripts. The
 * JSON carries the raw histogram buckets so runs and hosts can be merged
 * again later; percentiles are always read from merged histograms.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "oltp/report.h"

struct ivrow {
        double t_s, len_s, queue_len, busy;
        struct oltp_counts c;
        uint64_t pct_ns[8];
};

struct oltp_report {
        FILE *out;
        double pcts[8];
        unsigned npct;
        double rate;
        struct ivrow *rows;
        unsigned nrows, cap;
};

struct oltp_report *oltp_report_new(FILE *out, const double *pcts, unsigned npct, double rate)
{
        struct oltp_report *r = calloc(1, sizeof(*r));

        if (!r)
                return NULL;
        r->out = out;
        r->rate = rate;
        r->npct = npct > 8 ? 8 : npct;
        for (unsigned i = 0; i < r->npct; i++)
                r->pcts[i] = pcts[i];
        if (!r->npct) {
                r->pcts[0] = 95;
                r->npct = 1;
        }
        return r;
}

void oltp_report_free(struct oltp_report *r)
{
        if (!r)
                return;
        free(r->rows);
        free(r);
}

static double per_s(uint64_t n, double s)
{
        return s > 0 ? (double)n / s : 0;
}

static int keep_row(struct oltp_report *r, const struct oltp_interval *iv)
{
        struct ivrow *row;

        if (r->nrows == r->cap) {
                unsigned cap = r->cap ? r->cap * 2 : 64;
                struct ivrow *n = realloc(r->rows, cap * sizeof(*n));

                if (!n)
                        return -ENOMEM;
                r->rows = n;
                r->cap = cap;
        }
        row = &r->rows[r->nrows++];
        row->t_s = iv->t_s;
        row->len_s = iv->len_s;
        row->c = iv->c;
        row->queue_len = (double)iv->queue_len;
        row->busy = iv->busy;
        for (unsigned i = 0; i < r->npct; i++)
                row->pct_ns[i] = hist_percentile(iv->lat, r->pcts[i]);
        return 0;
}

void oltp_report_keep(void *user, const struct oltp_interval *iv)
{
        keep_row(user, iv);
}

void oltp_report_interval(void *user, const struct oltp_interval *iv)
{
        struct oltp_report *r = user;
        double s = iv->len_s;
        uint64_t q = iv->c.reads + iv->c.writes + iv->c.other;

        if (keep_row(r, iv))
                return;
        fprintf(r->out,
                "[ %gs ] thds: %u tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f) "
                "lat (ms,%g%%): %4.2f err/s: %4.2f reconn/s: %4.2f\n",
                iv->t_s, iv->threads, per_s(iv->c.txns, s), per_s(q, s), per_s(iv->c.reads, s),
                per_s(iv->c.writes, s), per_s(iv->c.other, s), r->pcts[0],
                (double)r->rows[r->nrows - 1].pct_ns[0] / 1e6, per_s(iv->c.errors, s),
                per_s(iv->c.reconnects, s));
        if (r->rate > 0)
                fprintf(r->out, "[ %gs ] queue length: %llu, concurrency: %u\n", iv->t_s,
                        (unsigned long long)iv->queue_len, iv->busy);
        fflush(r->out);
}

static void line_n(FILE *f, const char *label, uint64_t n)
{
        fprintf(f, "%-41s%llu\n", label, (unsigned long long)n);
}

static void line_rate(FILE *f, const char *label, uint64_t n, double s)
{
        fprintf(f, "%-41s%-6llu (%.2f per sec.)\n", label, (unsigned long long)n, per_s(n, s));
}

static void line_ms(FILE *f, const char *label, double ms)
{
        fprintf(f, "         %s%*.2f\n", label, (int)(44 - strlen(label)), ms);
}

static void mean_sd(const double *v, unsigned n, double *mean, double *sd)
{
        double s = 0, s2 = 0;

        for (unsigned i = 0; i < n; i++)
                s += v[i];
        *mean = n ? s / n : 0;
        for (unsigned i = 0; i < n; i++)
                s2 += (v[i] - *mean) * (v[i] - *mean);
        *sd = n ? sqrt(s2 / n) : 0;
}

static void fairness(FILE *f, const struct oltp_result *res)
{
        double *ev = calloc(res->nconns ? res->nconns : 1, sizeof(*ev));
        double m1, s1, m2, s2;

        if (!ev)
                return;
        for (unsigned i = 0; i < res->nconns; i++)
                ev[i] = (double)res->conn_txns[i];
        mean_sd(ev, res->nconns, &m1, &s1);
        mean_sd(res->conn_busy_s, res->nconns, &m2, &s2);
        fprintf(f, "Threads fairness:\n");
        fprintf(f, "%-35s%.4f/%3.2f\n", "    events (avg/stddev):", m1, s1);
        fprintf(f, "%-35s%.4f/%3.2f\n\n", "    execution time (avg/stddev):", m2, s2);
        free(ev);
}

void oltp_report_final(struct oltp_report *r, const struct oltp_result *res)
{
        FILE *f = r->out;
        const struct oltp_counts *c = &res->total;
        uint64_t q = c->reads + c->writes + c->other;
        double s = res->seconds, sum_ms = 0;
        char label[64];

        for (unsigned i = 0; i < res->nconns; i++)
                sum_ms += res->conn_busy_s[i] * 1e3;
        /* a merged result (oltp/merge.h) has no connections: its latencies' sum is the same */
        if (!res->nconns)
                sum_ms = hist_mean(res->lat) * (double)hist_count(res->lat) / 1e6;
        fprintf(f, "SQL statistics:\n    queries performed:\n");
        line_n(f, "        read:", c->reads);
        line_n(f, "        write:", c->writes);
        line_n(f, "        other:", c->other);
        line_n(f, "        total:", q);
        line_rate(f, "    transactions:", c->txns, s);
        line_rate(f, "    queries:", q, s);
        line_rate(f, "    ignored errors:", c->errors, s);
        line_rate(f, "    reconnects:", c->reconnects, s);
        fprintf(f, "\nGeneral statistics:\n");
        fprintf(f, "%-41s%.4fs\n", "    total time:", s);
        line_n(f, "    total number of events:", c->txns);
        fprintf(f, "\nLatency (ms):\n");
        line_ms(f, "min:", (double)hist_min(res->lat) / 1e6);
        line_ms(f, "avg:", hist_mean(res->lat) / 1e6);
        line_ms(f, "max:", (double)hist_max(res->lat) / 1e6);
        for (unsigned i = 0; i < r->npct; i++) {
                snprintf(label, sizeof(label), "%gth percentile:", r->pcts[i]);
                line_ms(f, label, (double)hist_percentile(res->lat, r->pcts[i]) / 1e6);
        }
        line_ms(f, "sum:", sum_ms);
        if (r->rate > 0) {
                line_ms(f, "queue wait avg:", hist_mean(res->qwait) / 1e6);
                line_ms(f, "queue wait max:", (double)hist_max(res->qwait) / 1e6);
        }
        fprintf(f, "\n");
        if (res->have_steady) {
                char st[256];

                steady_describe(&res->steady, st, sizeof(st));
                fprintf(f, "Steady state: %s\n\n", st);
        }
        if (res->nconns) /* per connection: a merged result has none */
                fairness(f, res);
        fflush(f);
}

static json_t *totals_json(const struct oltp_counts *c, double s)
{
        uint64_t q = c->reads + c->writes + c->other;

        return json_pack("{s:I, s:f, s:{s:I, s:I, s:I}, s:f, s:I, s:I, s:I}", "transactions",
                         (json_int_t)c->txns, "tps", per_s(c->txns, s), "queries", "read",
                         (json_int_t)c->reads, "write", (json_int_t)c->writes, "other",
                         (json_int_t)c->other, "qps", per_s(q, s), "errors", (json_int_t)c->errors,
                         "reconnects", (json_int_t)c->reconnects, "failed_connects",
                         (json_int_t)c->failed_connects);
}

int oltp_rate_overloaded(const struct oltp_result *res, double rate)
{
        double expected = rate * res->seconds;

        if (rate <= 0)
                return 0;
        if (res->queue_overflows > 0)
                return 1;
        /* 1000 arrivals: Poisson noise 3%, so 10% short is the schedule, not chance. */
        return expected >= 1000 && (double)res->total.txns < 0.9 * expected;
}

int oltp_host_degraded(const struct oltp_host_result *h)
{
        return h->down_at_end || h->down_s > 0 || h->c.failed_connects > 0;
}

static json_t *hosts_json(const struct oltp_result *res, const struct oltp_dsn *hosts,
                          const struct oltp_report *r)
{
        json_t *a = json_array();

        for (unsigned h = 0; a && h < res->nhosts; h++) {
                json_t *o = json_pack("{s:s, s:i, s:o, s:o, s:o}", "host", hosts[h].host, "port",
                                      (int)hosts[h].port, "totals",
                                      totals_json(&res->hosts[h].c, res->seconds), "lat_ns",
                                      hist_lat_json(res->hosts[h].lat, r->pcts, r->npct), "hist",
                                      hist_to_json(res->hosts[h].lat));
                const struct oltp_host_result *hr = &res->hosts[h];

                /* a host that lost connections is flagged: its share of the totals is short */
                if (o && json_object_update_new(
                             o, json_pack("{s:f, s:b, s:b}", "down_s", hr->down_s, "down_at_end",
                                          hr->down_at_end, "degraded", oltp_host_degraded(hr)))) {
                        json_decref(o);
                        o = NULL;
                }
                if (!o || json_array_append_new(a, o)) {
                        json_decref(a);
                        return NULL;
                }
        }
        return a;
}

static void pct_key(double p, char *buf, size_t len)
{
        snprintf(buf, len, "%.1f", p);
        if (strlen(buf) && fabs(p * 10 - floor(p * 10)) > 1e-9)
                snprintf(buf, len, "%g", p);
}

static json_t *interval_json(const struct oltp_report *r, const struct ivrow *row)
{
        uint64_t q = row->c.reads + row->c.writes + row->c.other;
        json_t *p = json_object(), *o;
        char key[32];

        for (unsigned i = 0; p && i < r->npct; i++) {
                pct_key(r->pcts[i], key, sizeof(key));
                json_object_set_new(p, key, json_integer((json_int_t)row->pct_ns[i]));
        }
        o = json_pack("{s:f, s:f, s:f, s:{s:f, s:f, s:f}, s:f, s:f, s:{s:o}}", "t", row->t_s, "tps",
                      per_s(row->c.txns, row->len_s), "qps", per_s(q, row->len_s), "queries_s",
                      "read", per_s(row->c.reads, row->len_s), "write",
                      per_s(row->c.writes, row->len_s), "other", per_s(row->c.other, row->len_s),
                      "errors_s", per_s(row->c.errors, row->len_s), "reconnects_s",
                      per_s(row->c.reconnects, row->len_s), "lat_ns", "percentile", p);
        if (o && r->rate > 0) {
                json_object_set_new(o, "queue_length", json_real(row->queue_len));
                json_object_set_new(o, "concurrency", json_real(row->busy));
        }
        return o;
}

static json_t *intervals_json(const struct oltp_report *r)
{
        json_t *a = json_array();

        for (unsigned i = 0; a && i < r->nrows; i++) {
                json_t *o = interval_json(r, &r->rows[i]);

                if (!o || json_array_append_new(a, o)) {
                        json_decref(a);
                        return NULL;
                }
        }
        return a;
}

static int add_rate(const struct oltp_report *r, const struct oltp_result *res, json_t *top)
{
        json_t *o;

        if (r->rate <= 0)
                return 0;
        o = json_pack("{s:f, s:f, s:o, s:I, s:b}", "target_tps", r->rate, "achieved_tps",
                      per_s(res->total.txns, res->seconds), "queue_wait_ns",
                      hist_lat_json(res->qwait, r->pcts, r->npct), "queue_overflows",
                      (json_int_t)res->queue_overflows, "overloaded",
                      oltp_rate_overloaded(res, r->rate));
        return o ? json_object_set_new(top, "rate", o) : -ENOMEM;
}

int oltp_report_json(struct oltp_report *r, const struct oltp_result *res,
                     const struct oltp_dsn *hosts, json_t *top)
{
        int rc = 0;

        rc |= json_object_set_new(top, "seconds", json_real(res->seconds));
        rc |= json_object_set_new(top, "threads", json_integer(res->nconns));
        rc |= json_object_set_new(top, "event_threads", json_integer(res->threads_used));
        rc |= json_object_set_new(top, "totals", totals_json(&res->total, res->seconds));
        rc |= json_object_set_new(top, "lat_ns", hist_lat_json(res->lat, r->pcts, r->npct));
        rc |= json_object_set_new(top, "hist", hist_to_json(res->lat));
        rc |= json_object_set_new(top, "hosts", hosts_json(res, hosts, r));
        rc |= json_object_set_new(top, "intervals", intervals_json(r));
        rc |= add_rate(r, res, top);
        if (res->have_steady)
                rc |= json_object_set_new(top, "steady", steady_to_json(&res->steady));
        if (res->exit_code)
                rc |= json_object_set_new(top, "error", json_string(res->err));
        return rc ? -ENOMEM : 0;
}
