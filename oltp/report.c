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

struct oltp_report {
        FILE *out;
        double pcts[OLTP_MAX_PCTS];
        unsigned npct;
        double rate;
        struct oltp_row *rows;
        unsigned nrows, cap;
        struct oltp_rows_out rows_out; /* writes rows into a result */
};

struct oltp_report *oltp_report_new(FILE *out, const double *pcts, unsigned npct, double rate)
{
        struct oltp_report *r = calloc(1, sizeof(*r));

        if (!r)
                return NULL;
        r->out = out;
        r->rate = rate;
        r->npct = npct > OLTP_MAX_PCTS ? OLTP_MAX_PCTS : npct;
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
        oltp_rows_out_free(&r->rows_out);
        free(r->rows);
        free(r);
}

static double per_s(uint64_t n, double s)
{
        return s > 0 ? (double)n / s : 0;
}

static int keep_row(struct oltp_report *r, const struct oltp_interval *iv)
{
        struct oltp_row *row;
        double s = iv->len_s;

        if (r->nrows == r->cap) {
                unsigned cap = r->cap ? r->cap * 2 : 64;
                struct oltp_row *n = realloc(r->rows, cap * sizeof(*n));

                if (!n)
                        return -ENOMEM;
                r->rows = n;
                r->cap = cap;
        }
        row = &r->rows[r->nrows++];
        *row = (struct oltp_row){
            .t = iv->t_s,
            .tps = per_s(iv->c.txns, s),
            .qps = per_s(iv->c.reads + iv->c.writes + iv->c.other, s),
            .rd = per_s(iv->c.reads, s),
            .wr = per_s(iv->c.writes, s),
            .ot = per_s(iv->c.other, s),
            .err_s = per_s(iv->c.errors, s),
            .rec_s = per_s(iv->c.reconnects, s),
            .qlen = (double)iv->queue_len,
            .conc = iv->busy,
            .has_queue = r->rate > 0,
        };
        for (unsigned i = 0; i < r->npct; i++)
                row->pct[i] = hist_percentile(iv->lat, r->pcts[i]);
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
                (double)r->rows[r->nrows - 1].pct[0] / 1e6, per_s(iv->c.errors, s),
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

json_t *oltp_totals_json(const struct oltp_counts *c, double tps, double qps, double seconds)
{
        if (!isfinite(tps) || !isfinite(qps) || !isfinite(seconds))
                return NULL;
        return json_pack("{s:I, s:f, s:{s:I, s:I, s:I}, s:f, s:I, s:I, s:I, s:f}", "transactions",
                         (json_int_t)c->txns, "tps", tps, "queries", "read", (json_int_t)c->reads,
                         "write", (json_int_t)c->writes, "other", (json_int_t)c->other, "qps", qps,
                         "errors", (json_int_t)c->errors, "reconnects", (json_int_t)c->reconnects,
                         "failed_connects", (json_int_t)c->failed_connects, "seconds", seconds);
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

json_t *oltp_host_json(const struct oltp_json_host *e, const double *pcts, unsigned npct)
{
        const struct oltp_host_result *hr = e->h;

        /* a host that lost connections is flagged: its share of the totals is short */
        return json_pack(
            "{s:s, s:i, s:o, s:o, s:o, s:f, s:b, s:b}", "host", e->name, "port", (int)e->port,
            "totals", oltp_totals_json(&hr->c, e->tps, e->qps, e->seconds), "lat_ns",
            hist_lat_json(hr->lat, pcts, npct), "hist", hist_to_json(hr->lat), "down_s", hr->down_s,
            "down_at_end", hr->down_at_end, "degraded", e->degraded);
}

/* hosts[] of a run: its own figures, host by host. */
static int run_host(void *user, unsigned i, struct oltp_json_host *e, struct oltp_host_result *hr,
                    struct hist *scratch)
{
        const struct oltp_result *res = ((const void *const *)user)[0];
        const struct oltp_dsn *hosts = ((const void *const *)user)[1];
        const struct oltp_counts *c = &res->hosts[i].c;

        (void)scratch;
        *hr = res->hosts[i];
        *e = (struct oltp_json_host){hosts[i].host,
                                     hosts[i].port,
                                     hr,
                                     per_s(c->txns, res->seconds),
                                     per_s(c->reads + c->writes + c->other, res->seconds),
                                     res->seconds,
                                     oltp_host_degraded(hr)};
        return 0;
}

static json_t *hosts_json(const double *pcts, unsigned npct, const struct oltp_json_over *o)
{
        json_t *a = json_array();
        struct hist *scratch = hist_new();

        for (unsigned h = 0; a && scratch && h < o->nhosts; h++) {
                struct oltp_json_host e;
                struct oltp_host_result hr;
                json_t *j = NULL;

                hist_reset(scratch);
                if (!o->host(o->user, h, &e, &hr, scratch))
                        j = oltp_host_json(&e, pcts, npct);
                if (!j || json_array_append_new(a, j)) {
                        json_decref(a);
                        a = NULL;
                }
        }
        hist_free(scratch);
        if (!scratch)
                json_decref(a);
        return scratch ? a : NULL;
}

static void pct_key(double p, char *buf, size_t len)
{
        snprintf(buf, len, "%.1f", p);
        if (strlen(buf) && fabs(p * 10 - floor(p * 10)) > 1e-9)
                snprintf(buf, len, "%g", p);
}

json_t *oltp_row_json(const struct oltp_row *w, const double *pcts, unsigned npct)
{
        json_t *p = json_object(), *o;
        char key[32];

        for (unsigned i = 0; p && i < npct; i++) {
                pct_key(pcts[i], key, sizeof(key));
                json_object_set_new(p, key, json_integer((json_int_t)w->pct[i]));
        }
        o = json_pack("{s:f, s:f, s:f, s:{s:f, s:f, s:f}, s:f, s:f, s:{s:o}}", "t", w->t, "tps",
                      w->tps, "qps", w->qps, "queries_s", "read", w->rd, "write", w->wr, "other",
                      w->ot, "errors_s", w->err_s, "reconnects_s", w->rec_s, "lat_ns", "percentile",
                      p);
        if (o && w->has_queue) {
                json_object_set_new(o, "queue_length", json_real(w->qlen));
                json_object_set_new(o, "concurrency", json_real(w->conc));
        }
        if (o && w->inputs)
                json_object_set_new(o, "inputs", json_integer(w->inputs));
        return o;
}

void oltp_rows_out_free(struct oltp_rows_out *o)
{
        json_decref(o->row);
        o->row = NULL;
}

/* A new row object for w, and where its numbers are (o's shape is w's from now on). */
static json_t *row_shape(struct oltp_rows_out *o, const struct oltp_row *w)
{
        static const char *const top[] = {
            "t", "tps", "qps", "errors_s", "reconnects_s", "queue_length", "concurrency"};
        static const char *const q[] = {"read", "write", "other"};
        json_t *qs, *p;
        char key[32];

        json_decref(o->row);
        if (!(o->row = oltp_row_json(w, o->pcts, o->npct)))
                return NULL;
        memset(o->num, 0, sizeof(o->num));
        for (unsigned i = 0; i < 7; i++)
                o->num[i] = json_object_get(o->row, top[i]);
        qs = json_object_get(o->row, "queries_s");
        for (unsigned i = 0; i < 3; i++)
                o->num[7 + i] = json_object_get(qs, q[i]);
        p = json_object_get(json_object_get(o->row, "lat_ns"), "percentile");
        for (unsigned i = 0; i < o->npct; i++) {
                pct_key(o->pcts[i], key, sizeof(key));
                o->pct[i] = json_object_get(p, key);
        }
        o->inputs = json_object_get(o->row, "inputs");
        o->has_queue = w->has_queue;
        o->has_inputs = w->inputs > 0;
        return o->row;
}

/*
 * Row i: the row object of the last row filled with row i's figures, so 100k rows cost one
 * object, not 100k (a new one only when a row has keys the last did not).
 */
static const json_t *row_at(void *user, size_t i)
{
        struct oltp_rows_out *o = user;
        const struct oltp_row *w = &o->rows[i];
        const double v[10] = {w->t,    w->tps,  w->qps, w->err_s, w->rec_s,
                              w->qlen, w->conc, w->rd,  w->wr,    w->ot};
        int bad = 0;

        if (!o->row || o->has_queue != w->has_queue || o->has_inputs != (w->inputs > 0))
                return row_shape(o, w);
        for (unsigned k = 0; k < 10; k++)
                if (o->num[k])
                        bad |= json_real_set(o->num[k], v[k]);
        for (unsigned k = 0; k < o->npct; k++)
                bad |= json_integer_set(o->pct[k], (json_int_t)w->pct[k]);
        if (o->inputs)
                bad |= json_integer_set(o->inputs, w->inputs);
        return bad ? NULL : o->row; /* a figure that is not finite */
}

/* The value standing for the rows in the result (core/resfile.h's res_rows_ref). */
static json_t *rows_json(const double *pcts, unsigned npct, const struct oltp_json_over *over)
{
        struct oltp_rows_out *o = over->rows_out;

        o->src = (struct res_rows){over->nrows, row_at, o};
        o->rows = over->rows;
        o->pcts = pcts;
        o->npct = npct;
        return res_rows_ref(&o->src);
}

static int add_rate_obj(const struct oltp_report *r, const struct oltp_result *res, json_t **out)
{
        json_t *o;

        *out = NULL;
        if (r->rate <= 0)
                return 0;
        o = json_pack("{s:f, s:f, s:o, s:I, s:b}", "target_tps", r->rate, "achieved_tps",
                      per_s(res->total.txns, res->seconds), "queue_wait_ns",
                      hist_lat_json(res->qwait, r->pcts, r->npct), "queue_overflows",
                      (json_int_t)res->queue_overflows, "overloaded",
                      oltp_rate_overloaded(res, r->rate));
        *out = o;
        return o ? 0 : -ENOMEM;
}

int oltp_result_json(const struct oltp_result *res, const double *pcts, unsigned npct,
                     const struct oltp_json_over *o, json_t *top)
{
        int rc = 0;

        rc |= json_object_set_new(top, "seconds", json_real(res->seconds));
        rc |= json_object_set_new(top, "threads", json_integer(o->threads));
        rc |= json_object_set_new(top, "event_threads", json_integer(res->threads_used));
        rc |= json_object_set_new(top, "totals",
                                  oltp_totals_json(&res->total, o->tps, o->qps, res->seconds));
        rc |= json_object_set_new(top, "lat_ns", hist_lat_json(res->lat, pcts, npct));
        rc |= json_object_set_new(top, "hist", hist_to_json(res->lat));
        rc |= json_object_set_new(top, "hosts", hosts_json(pcts, npct, o));
        rc |= json_object_set_new(top, "intervals", rows_json(pcts, npct, o));
        if (o->rate)
                rc |= json_object_set_new(top, "rate", o->rate);
        if (res->have_steady)
                rc |= json_object_set_new(top, "steady", steady_to_json(&res->steady));
        if (res->exit_code)
                rc |= json_object_set_new(top, "error", json_string(res->err));
        return rc ? -ENOMEM : 0;
}

int oltp_report_json(struct oltp_report *r, const struct oltp_result *res,
                     const struct oltp_dsn *hosts, json_t *top)
{
        const void *ctx[2] = {res, hosts};
        const struct oltp_counts *c = &res->total;
        struct oltp_json_over o = {
            .tps = per_s(c->txns, res->seconds),
            .qps = per_s(c->reads + c->writes + c->other, res->seconds),
            .threads = res->nconns,
            .rows = r->rows,
            .nrows = r->nrows,
            .rows_out = &r->rows_out,
            .nhosts = res->nhosts,
            .host = run_host,
            .user = ctx,
            .rate = NULL,
        };

        if (add_rate_obj(r, res, &o.rate))
                return -ENOMEM;
        return oltp_result_json(res, r->pcts, r->npct, &o, top);
}
