/*
 * report_kinds.c - what a report shows that depends on the kind of run.
 *
 * block: IOPS, and mean and p99 latency (p99 dashed, same colour), against
 * queue depth on a powers-of-two axis, one line per rw/bs group.
 * oltp: TPS and the recorded latency percentiles over time, and a latency
 * table read from the merged histograms (whole run and per server).
 * scale: TPS, latency, host CPU and storage rates against VM count, each
 * with the tipping point marked and its reason beside it; on a cluster, each
 * host's figures after them (report_hosts.c).
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/report_priv.h"
#include "results/tipping.h"

#define MAX_COLS 64

/* Columns handed to plots, freed together once the plots are rendered. */
struct cols {
        double *a[MAX_COLS];
        unsigned n;
        int oom;
};

static const double *col(struct cols *c, const struct run_series *s, size_t off)
{
        static const double none = NAN;
        double *a;

        if (c->n == MAX_COLS || !(a = run_column(s, off))) {
                c->oom = 1;
                return &none;
        }
        c->a[c->n++] = a;
        return a;
}

static double *col_new(struct cols *c, unsigned n)
{
        double *a;

        if (c->n == MAX_COLS || !(a = calloc(n ? n : 1, sizeof(double)))) {
                c->oom = 1;
                return NULL;
        }
        c->a[c->n++] = a;
        return a;
}

static int cols_free(struct cols *c)
{
        for (unsigned i = 0; i < c->n; i++)
                free(c->a[i]);
        return c->oom ? -ENOMEM : 0;
}

#define COL(c, s, f) col(c, s, offsetof(struct run_point, f))

/* ---- block ------------------------------------------------------------------ */

int report_block(struct doc *d, const json_t *r, const struct run_view *v)
{
        struct svg_plot tp, lp;
        struct cols c = {0};
        char names[SVG_MAX_SERIES][112];

        doc_h(d, 2, "Plots");
        svg_plot_init(&tp, "IOPS against queue depth", "queue depth", "IOPS");
        svg_plot_init(&lp, "Latency against queue depth (mean solid, p99 dashed)", "queue depth",
                      "latency (ms)");
        tp.xlog2 = lp.xlog2 = 1;
        for (unsigned i = 0; i < v->nseries && 2 * i + 1 < SVG_MAX_SERIES; i++) {
                const struct run_series *s = &v->s[i];
                const double *x = COL(&c, s, load);

                svg_plot_add(&tp, s->name, x, COL(&c, s, tput), s->n, 0, (int)i);
                snprintf(names[2 * i], sizeof(names[0]), "%s mean", s->name);
                snprintf(names[2 * i + 1], sizeof(names[0]), "%s p99", s->name);
                svg_plot_add(&lp, names[2 * i], x, COL(&c, s, mean_ms), s->n, 0, (int)i);
                svg_plot_add(&lp, names[2 * i + 1], x, COL(&c, s, p99_ms), s->n, SVG_DASHED,
                             (int)i);
        }
        doc_plot(d, &tp);
        doc_plot(d, &lp);
        if (report_block_clients(d, r) || report_block_hosts(d, r))
                c.oom = 1;
        return cols_free(&c);
}

/* ---- oltp ------------------------------------------------------------------- */

static void pct_row(struct doc *d, const char *who, const json_t *hist)
{
        static const double pcts[] = {50, 95, 99, 99.9};
        char c[6][32];
        const char *cells[6] = {who, c[1], c[2], c[3], c[4], c[5]};
        double mean;

        for (unsigned i = 0; i < 4; i++) {
                double v = res_hist_pct_ms(&hist, 1, pcts[i], i ? NULL : &mean);

                doc_fmt_sig(v, c[2 + i], sizeof(c[0]));
        }
        doc_fmt_sig(mean, c[1], sizeof(c[0]));
        doc_row(d, cells, 6);
}

static void oltp_latency_table(struct doc *d, const json_t *r)
{
        static const char *const head[] = {"servers",  "mean (ms)", "p50 (ms)",
                                           "p95 (ms)", "p99 (ms)",  "p99.9 (ms)"};
        const json_t *h;
        size_t i;

        doc_h(d, 2, "Latency (from merged histograms)");
        doc_table(d, head, 6);
        pct_row(d, "all", json_object_get(r, "hist"));
        json_array_foreach(json_object_get(r, "hosts"), i, h)
        {
                char who[320];

                snprintf(who, sizeof(who), "%s:%.0f",
                         json_string_value(json_object_get(h, "host"))
                             ? json_string_value(json_object_get(h, "host"))
                             : "?",
                         json_number_value(json_object_get(h, "port")));
                pct_row(d, who, json_object_get(h, "hist"));
        }
        doc_table_end(d);
}

int report_oltp(struct doc *d, const json_t *r, const struct run_view *v)
{
        const json_t *iv = json_object_get(r, "intervals"), *x;
        const json_t *pct0 =
            json_object_get(json_object_get(json_array_get(iv, 0), "lat_ns"), "percentile");
        const struct run_series *s = &v->s[0];
        struct svg_plot tp, lp;
        struct cols c = {0};
        char names[SVG_MAX_SERIES][32];
        const char *key;
        const json_t *val;
        unsigned k = 0;
        size_t i;

        doc_h(d, 2, "Plots");
        svg_plot_init(&tp, "TPS over time", "time (s)", "TPS");
        svg_plot_init(&lp, "Latency over time (per-interval percentiles)", "time (s)",
                      "latency (ms)");
        svg_plot_add(&tp, "TPS", COL(&c, s, load), COL(&c, s, tput), s->n, 0, 0);
        json_object_foreach((json_t *)pct0, key, val)
        {
                double *y = col_new(&c, s->n);

                if (!y || k == SVG_MAX_SERIES)
                        break;
                json_array_foreach(iv, i, x) if (i < s->n) y[i] =
                    json_number_value(json_object_get(
                        json_object_get(json_object_get(x, "lat_ns"), "percentile"), key)) /
                    1e6;
                snprintf(names[k], sizeof(names[0]), "p%g", atof(key));
                svg_plot_add(&lp, names[k], tp.s[0].x, y, s->n, 0, (int)k + 1);
                k++;
        }
        doc_plot(d, &tp);
        doc_plot(d, &lp);
        oltp_latency_table(d, r);
        return cols_free(&c);
}

/* ---- scale ------------------------------------------------------------------ */

/* --target-ci: what each step's steady-state rule cut, measured and reached. */
static void steady_table(struct doc *d, const json_t *r)
{
        static const char *const head[] = {"VMs",  "warm-up s", "measured s",
                                           "CI %", "target %",  "met"};
        char c[6][32];
        const char *cells[6] = {c[0], c[1], c[2], c[3], c[4], c[5]};
        const json_t *x, *st;
        size_t i;
        int any = 0;

        json_array_foreach(json_object_get(r, "steps"), i, x) any |=
            json_object_get(x, "steady") != NULL;
        if (!any)
                return;
        doc_h(d, 2, "Steady state");
        doc_p(d, "meta",
              "Warm-up cut by MSER-5; measured until the 95%% CI of the mean TPS (batch means) "
              "was within the target, or the longest measurement ran out.");
        doc_table(d, head, 6);
        json_array_foreach(json_object_get(r, "steps"), i, x)
        {
                const json_t *ci;

                if (!(st = json_object_get(x, "steady")))
                        continue;
                ci = json_object_get(st, "ci_pct");
                snprintf(c[0], 32, "%.0f", json_number_value(json_object_get(x, "vms")));
                snprintf(c[1], 32, "%.1f", json_number_value(json_object_get(st, "warmup_s")));
                snprintf(c[2], 32, "%.1f", json_number_value(json_object_get(st, "measured_s")));
                snprintf(c[3], 32, json_is_number(ci) ? "%.2f" : "-", json_number_value(ci));
                snprintf(c[4], 32, "%g", json_number_value(json_object_get(st, "target_ci_pct")));
                snprintf(c[5], 32, "%s", json_is_true(json_object_get(st, "met")) ? "yes" : "NO");
                doc_row(d, cells, 6);
        }
        doc_table_end(d);
}

/* The three figures of tipping.h, one line of meaning each. */
static void tip_figures(struct doc *d, const json_t *tip, const struct run_series *s)
{
        const json_t *u = json_object_get(tip, "usl");
        unsigned peak = 0;

        for (unsigned i = 1; i < s->n; i++)
                if (s->p[i].tput > s->p[peak].tput)
                        peak = i;
        if (s->n)
                doc_p(d, "tip",
                      "Measured peak: %.1f TPS at %g VMs (the highest throughput any step "
                      "measured).",
                      s->p[peak].tput, s->p[peak].load);
        if (json_is_object(u) && json_is_number(json_object_get(u, "lambda"))) {
                char n[64] = "none (kappa = 0: the fit never turns down)";

                if (!isnan(res_num(u, "peak_load")))
                        snprintf(n, sizeof(n), "%.1f VMs", res_num(u, "peak_load"));
                doc_p(d, "tip",
                      "USL fit X(N) = lambda N / (1 + sigma (N-1) + kappa N (N-1)): lambda %.4g "
                      "TPS, sigma %.4g (contention), kappa %.4g (coherency), rmse %.4g TPS; "
                      "predicted peak N* = sqrt((1 - sigma) / kappa): %s (where the fitted curve "
                      "stops rising).",
                      res_num(u, "lambda"), res_num(u, "sigma"), res_num(u, "kappa"),
                      res_num(u, "rmse"), n);
        }
}

/* "12.3", or "-" when not measured. */
static void cell_pct(char *c, size_t len, double v)
{
        if (isnan(v))
                snprintf(c, len, "-");
        else
                snprintf(c, len, "%.1f", v);
}

/* Host CPU by owner at every step, in % of the host, when the result has
 * it, and the VMs' own quota use beside it (vm_quota). */
static void owner_table(struct doc *d, const struct run_series *s)
{
        static const char *const head[] = {
            "VMs",      "host CPU busy %", "VMs %",           "storage %",
            "driver %", "other %",         "VM quota used %", "VMs throttled % of time"};
        char c[8][32];
        const char *cells[8] = {c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]};
        unsigned have = 0;

        for (unsigned i = 0; i < s->n; i++)
                have += !isnan(s->p[i].own[0]);
        if (!have)
                return;
        doc_h(d, 2, "Where the CPU went (cpu_by_owner, %% of the host; vm_quota)");
        doc_table(d, head, 8);
        for (unsigned i = 0; i < s->n; i++) {
                snprintf(c[0], sizeof(c[0]), "%g", s->p[i].load);
                snprintf(c[1], sizeof(c[1]), "%.1f", s->p[i].cpu_busy);
                for (unsigned k = 0; k < 4; k++)
                        snprintf(c[2 + k], sizeof(c[0]), "%.1f", s->p[i].own[k]);
                cell_pct(c[6], sizeof(c[6]), s->p[i].quota_pct);
                cell_pct(c[7], sizeof(c[7]), s->p[i].throttled_pct);
                doc_row(d, cells, 8);
        }
        doc_table_end(d);
}

int report_scale(struct doc *d, const json_t *r, const struct run_view *v,
                 const struct res_verdict *vd)
{
        static const char *const owners[4] = {"VMs", "storage service", "load generator", "other"};
        const json_t *tip = json_object_get(r, "tipping_point");
        const struct run_series *s = &v->s[0];
        struct svg_plot p[5];
        struct cols c = {0};
        double mark = NAN, *fit;
        const double *x;
        char mlabel[96] = "";
        const char *by = json_string_value(json_object_get(tip, "limited_by"));

        /* the verdict heads the page; here is what it rests on, figure by figure */
        doc_h(d, 2, "Tipping point: the evidence");
        doc_evidence(d, vd);
        if (json_is_number(json_object_get(tip, "vms")) &&
            json_number_value(json_object_get(tip, "vms")) > 0) {
                mark = json_number_value(json_object_get(tip, "vms"));
                snprintf(mlabel, sizeof(mlabel), "tipping point %g VMs (%s)", mark, by ? by : "?");
        }
        tip_figures(d, tip, s);
        doc_h(d, 2, "Plots");
        x = COL(&c, s, load);
        svg_plot_init(&p[0], "TPS against VM count", "VMs", "TPS");
        svg_plot_add(&p[0], "TPS", x, COL(&c, s, tput), s->n, 0, 0);
        fit = col_new(&c, s->n);
        if (fit && json_is_number(json_object_get(json_object_get(tip, "usl"), "lambda"))) {
                const json_t *u = json_object_get(tip, "usl");
                struct res_usl us = {1,
                                     res_num(u, "lambda"),
                                     res_num(u, "sigma"),
                                     res_num(u, "kappa"),
                                     res_num(u, "peak_load"),
                                     res_num(u, "rmse")};

                for (unsigned i = 0; i < s->n; i++)
                        fit[i] = res_usl_eval(&us, s->p[i].load);
                svg_plot_add(&p[0], "USL fit", x, fit, s->n, SVG_DASHED, 0);
        }
        svg_plot_init(&p[1], "Latency against VM count (merged histograms)", "VMs", "latency (ms)");
        svg_plot_add(&p[1], "mean", x, COL(&c, s, mean_ms), s->n, 0, 1);
        svg_plot_add(&p[1], "p99", x, COL(&c, s, p99_ms), s->n, SVG_DASHED, 1);
        svg_plot_init(&p[2], "Host CPU against VM count, by owner", "VMs", "% of all CPU time");
        svg_plot_add(&p[2], "busy (steal included)", x, COL(&c, s, cpu_busy), s->n, 0, 2);
        svg_plot_add(&p[2], "steal", x, COL(&c, s, cpu_steal), s->n, SVG_DASHED, 3);
        for (unsigned k = 0; k < 4; k++)
                svg_plot_add(&p[2], owners[k], x,
                             col(&c, s, offsetof(struct run_point, own) + k * sizeof(double)), s->n,
                             0, 4 + (int)k);
        svg_plot_init(&p[3], "Storage-side IOPS against VM count", "VMs", "IOPS");
        svg_plot_add(&p[3], "storage IOPS", x, COL(&c, s, stor_iops), s->n, 0, 4);
        svg_plot_init(&p[4], "Storage-side throughput against VM count", "VMs", "MB/s");
        svg_plot_add(&p[4], "storage MB/s", x, COL(&c, s, mb_s), s->n, 0, 5);
        for (int i = 0; i < 5; i++) {
                p[i].xint = 1;
                svg_plot_mark(&p[i], mark, mlabel, -1);
                doc_plot(d, &p[i]);
        }
        owner_table(d, s);
        steady_table(d, r);
        if (report_hosts(d, r))
                c.oom = 1;
        return cols_free(&c);
}
