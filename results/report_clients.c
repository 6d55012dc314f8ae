/*
 * report_clients.c - the "Clients" section of a block client run's report
 * (`hcisweep block --clients`): for every point the aggregate and how far
 * apart the clients were, then each client, so a straggler is seen at
 * once. Read off points[]{rw, bs, iodepth, n_clients, read/write.iops,
 * client_iops{min,max}, slowest, clients[]{name, host, iops, lat_ns{mean,
 * percentile}, start_skew_ms, late, error}} (block/clients_agg.h).
 *
 * A client-count scan (`--client-counts 1,2,4`: the result has scan[])
 * gets its own part: the aggregate IOPS against the client count, one line
 * per point of the sweep (rw bs qd), and the scaling efficiency X(N) /
 * (N x X(1)) against it the same way (points[].scaling_efficiency, as
 * block/clients_scan.c recorded it), a table of the same figures, and each
 * point's verdict (scan[].verdict).
 *
 * The aggregate curve against the queue depth is the report's IOPS plot;
 * the hosts against the sweep are report_hosts.c's.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parse.h"
#include "results/report_priv.h"
#include "results/result.h"

static int has_clients(const json_t *points)
{
        const json_t *p;
        size_t i;

        json_array_foreach(points, i, p) if (json_is_array(json_object_get(p, "clients"))) return 1;
        return 0;
}

void report_point_name(const json_t *p, size_t i, char *buf, size_t len)
{
        const char *rw = json_string_value(json_object_get(p, "rw"));
        char bs[32];

        fmt_size((uint64_t)res_num(p, "bs"), bs, sizeof(bs));
        snprintf(buf, len, "%zu: %.20s %s qd %g, %g client%s", i + 1, rw ? rw : "?", bs,
                 res_num(p, "iodepth"), res_num(p, "n_clients"),
                 res_num(p, "n_clients") == 1 ? "" : "s");
}

static void num_cell(char *c, size_t len, double v, const char *fmt)
{
        if (isnan(v))
                snprintf(c, len, "—");
        else
                snprintf(c, len, fmt, v);
}

/* The spread table: point | IOPS (all) | client IOPS min | max | max/min | slowest. */
static void spread_table(struct doc *d, const json_t *points)
{
        static const char *const head[] = {"point",           "IOPS (all clients)",
                                           "client IOPS min", "client IOPS max",
                                           "max / min",       "slowest client"};
        const json_t *p;
        size_t i;

        doc_table(d, head, 6);
        json_array_foreach(points, i, p)
        {
                const json_t *ci = json_object_get(p, "client_iops");
                double lo = res_num(ci, "min"), hi = res_num(ci, "max");
                const char *slow = json_string_value(json_object_get(p, "slowest"));
                char c[6][160];
                const char *cells[6] = {c[0], c[1], c[2], c[3], c[4], c[5]};

                report_point_name(p, i, c[0], sizeof(c[0]));
                num_cell(c[1], sizeof(c[1]),
                         res_num(json_object_get(p, "read"), "iops") +
                             res_num(json_object_get(p, "write"), "iops"),
                         "%.1f");
                num_cell(c[2], sizeof(c[2]), lo, "%.1f");
                num_cell(c[3], sizeof(c[3]), hi, "%.1f");
                num_cell(c[4], sizeof(c[4]), lo > 0 ? hi / lo : NAN, "%.2f");
                snprintf(c[5], sizeof(c[5]), "%.100s", slow ? slow : "—");
                doc_row(d, cells, 6);
        }
        doc_table_end(d);
}

/* One row per client and point: point | client | host | IOPS | mean | p99 | skew | error. */
static void client_table(struct doc *d, const json_t *points)
{
        static const char *const head[] = {
            "point", "client", "host", "IOPS", "mean (ms)", "p99 (ms)", "start skew (ms)", "error"};
        const json_t *p, *c;
        size_t i, k;

        doc_table(d, head, 8);
        json_array_foreach(points, i, p) json_array_foreach(json_object_get(p, "clients"), k, c)
        {
                const json_t *lat = json_object_get(c, "lat_ns");
                const char *name = json_string_value(json_object_get(c, "name"));
                const char *host = json_string_value(json_object_get(c, "host"));
                const char *err = json_string_value(json_object_get(c, "error"));
                char x[8][240];
                const char *cells[8] = {x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]};

                report_point_name(p, i, x[0], sizeof(x[0]));
                snprintf(x[1], sizeof(x[1]), "%.100s", name ? name : "?");
                snprintf(x[2], sizeof(x[2]), "%.100s", host ? host : "?");
                num_cell(x[3], sizeof(x[3]), res_num(c, "iops"), "%.1f");
                doc_fmt_sig(res_num(lat, "mean") / 1e6, x[4], sizeof(x[4]));
                doc_fmt_sig(res_num(json_object_get(lat, "percentile"), "99.0") / 1e6, x[5],
                            sizeof(x[5]));
                num_cell(x[6], sizeof(x[6]), res_num(c, "start_skew_ms"),
                         json_is_true(json_object_get(c, "late")) ? "%.1f (late)" : "%.1f");
                snprintf(x[7], sizeof(x[7]), "%.200s", err ? err : "");
                doc_row(d, cells, 8);
        }
        doc_table_end(d);
}

/* ---- a client-count scan: the figures against N, one line per point of the sweep ---- */

#define SCAN_MAX_COUNTS 32

/* One point of the sweep (rw bs qd) over the counts: its IOPS and efficiency at each. */
struct scan_line {
        char name[96];
        double n[SCAN_MAX_COUNTS], iops[SCAN_MAX_COUNTS], eff[SCAN_MAX_COUNTS];
        unsigned k;
};

/* "randread 4k qd 8": a point's place in the sweep, whatever its client count. */
static void shape_name(const json_t *p, char *buf, size_t len)
{
        const char *rw = json_string_value(json_object_get(p, "rw"));
        char bs[32];

        fmt_size((uint64_t)res_num(p, "bs"), bs, sizeof(bs));
        snprintf(buf, len, "%.20s %s qd %g", rw ? rw : "?", bs, res_num(p, "iodepth"));
}

/* The points grouped by shape, in sweep order, each line's counts in run order: how many. */
static unsigned scan_lines(const json_t *points, struct scan_line *l, unsigned max)
{
        unsigned n = 0;
        const json_t *p;
        size_t i;

        json_array_foreach(points, i, p)
        {
                char name[96];
                unsigned j = 0;

                shape_name(p, name, sizeof(name));
                while (j < n && strcmp(l[j].name, name))
                        j++;
                if (j == n && n == max)
                        continue;
                if (j == n)
                        snprintf(l[n++].name, sizeof(l[0].name), "%s", name);
                if (l[j].k == SCAN_MAX_COUNTS)
                        continue;
                l[j].n[l[j].k] = res_num(p, "n_clients");
                l[j].iops[l[j].k] = res_num(json_object_get(p, "read"), "iops") +
                                    res_num(json_object_get(p, "write"), "iops");
                l[j].eff[l[j].k++] = res_num(p, "scaling_efficiency");
        }
        return n;
}

/* The table: point | clients | IOPS (all clients) | IOPS per client | efficiency. */
static void scan_table(struct doc *d, const struct scan_line *l, unsigned n)
{
        static const char *const head[] = {"point", "clients", "IOPS (all clients)",
                                           "IOPS per client", "efficiency X(N) / (N x X(1))"};

        doc_table(d, head, 5);
        for (unsigned j = 0; j < n; j++)
                for (unsigned k = 0; k < l[j].k; k++) {
                        char c[5][120];
                        const char *cells[5] = {c[0], c[1], c[2], c[3], c[4]};

                        snprintf(c[0], sizeof(c[0]), "%s", l[j].name);
                        num_cell(c[1], sizeof(c[1]), l[j].n[k], "%g");
                        num_cell(c[2], sizeof(c[2]), l[j].iops[k], "%.1f");
                        num_cell(c[3], sizeof(c[3]), l[j].n[k] > 0 ? l[j].iops[k] / l[j].n[k] : NAN,
                                 "%.1f");
                        num_cell(c[4], sizeof(c[4]), l[j].eff[k], "%.2f");
                        doc_row(d, cells, 5);
                }
        doc_table_end(d);
}

static int report_scan(struct doc *d, const json_t *r)
{
        struct scan_line *l = calloc(SVG_MAX_SERIES, sizeof(*l));
        struct svg_plot tp, ep;
        const json_t *s;
        unsigned n;
        size_t i;

        if (!l)
                return -ENOMEM;
        n = scan_lines(json_object_get(r, "points"), l, SVG_MAX_SERIES);
        doc_h(d, 3, "Client-count scan");
        doc_p(d, "meta",
              "The same points on the first N clients for each N: the aggregate IOPS against N, "
              "one line per point of the sweep, and the scaling efficiency X(N) / (N x X(1)), "
              "1.0 being linear.");
        svg_plot_init(&tp, "Aggregate IOPS against client count", "clients", "IOPS");
        svg_plot_init(&ep, "Scaling efficiency against client count", "clients",
                      "X(N) / (N x X(1))");
        tp.xint = ep.xint = 1;
        for (unsigned j = 0; j < n; j++) {
                svg_plot_add(&tp, l[j].name, l[j].n, l[j].iops, l[j].k, 0, (int)j);
                svg_plot_add(&ep, l[j].name, l[j].n, l[j].eff, l[j].k, 0, (int)j);
        }
        doc_plot(d, &tp);
        doc_plot(d, &ep);
        scan_table(d, l, n);
        json_array_foreach(json_object_get(r, "scan"), i, s)
        {
                const char *v = json_string_value(json_object_get(s, "verdict"));
                char name[96];

                shape_name(s, name, sizeof(name));
                if (v)
                        doc_p(d, NULL, "%s: %s", name, v);
        }
        free(l);
        return 0;
}

int report_block_clients(struct doc *d, const json_t *r)
{
        const json_t *points = json_object_get(r, "points");

        if (!has_clients(points))
                return 0;
        doc_h(d, 2, "Clients");
        doc_p(d, "meta",
              "Every point ran on all its clients at one go; IOPS (all clients) is their exact "
              "sum, latency merged from their histograms. The spread shows how far apart the "
              "clients were, the slowest named; then each client.");
        spread_table(d, points);
        client_table(d, points);
        return json_is_array(json_object_get(r, "scan")) ? report_scan(d, r) : 0;
}
