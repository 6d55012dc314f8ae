/*
 * report_hosts.c - the "Hosts" section of a scale report: each host of a
 * cluster (the steps' cluster.hosts[], scale/scale_cluster.c) read apart,
 * because the tipping point is where the first host saturates and a
 * cluster-wide mean would hide it (results/tip_hosts.c reads the same
 * figures for the verdict).
 *
 * Two plots against VM count, one line per host (legend "name (role)"):
 * its CPU busy % and its busiest disk's %util; and a table, one row per
 * step and host: VMs | host | role | CPU busy | steal | busiest disk |
 * net rx/tx MB/s. A host the step could not read shows "—" and why. A
 * result whose hosts are all the controller itself (the local lab) gets
 * no section: its host figures are the report's other plots already.
 *
 * A block client run (`block --clients`) gets the same section over its
 * points[].cluster.hosts[]: the x axis is the sweep (point 1, 2, ...; the
 * table names each point "1: randread 4k qd 1, 2 clients"), and it is
 * drawn even when the one host is the controller (local:N: the clients'
 * host, whose figures no other plot shows).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/report_priv.h"
#include "results/result.h"

#define MAX_HOSTS SVG_MAX_SERIES

/* What the x axis counts: a scale step's VMs, or a block point's place in the sweep. */
struct hx {
        int block;
        const char *key;   /* "VMs", "point" */
        const char *title; /* "VM count", "the sweep (point)" */
};

static double x_of(const struct hx *x, const json_t *st, size_t i)
{
        return x->block ? (double)(i + 1) : res_num(st, "vms");
}

/* The table's first cell: "3" (VMs) or "2: randread 4k qd 8, 2 clients". */
static void x_cell(const struct hx *x, const json_t *st, size_t i, char *c, size_t len)
{
        if (!x->block) {
                snprintf(c, len, "%g", res_num(st, "vms"));
                return;
        }
        report_point_name(st, i, c, len);
}

/* The distinct hosts over all steps, in order of first appearance. */
struct host_names {
        unsigned n;
        const char *name[MAX_HOSTS];
        char legend[MAX_HOSTS][96];
};

static const json_t *step_hosts(const json_t *st)
{
        return json_object_get(json_object_get(st, "cluster"), "hosts");
}

/* 1 when some step holds a host that is not the controller's own /proc. */
static int is_cluster(const json_t *steps)
{
        const json_t *st, *h;
        size_t i, k;

        json_array_foreach(steps, i, st) json_array_foreach(
            step_hosts(st), k,
            h) if (json_is_object(h) && !json_is_true(json_object_get(h, "controller"))) return 1;
        return 0;
}

static int host_index(const struct host_names *hn, const char *name)
{
        for (unsigned i = 0; i < hn->n; i++)
                if (!strcmp(hn->name[i], name))
                        return (int)i;
        return -1;
}

static void collect_names(const json_t *steps, struct host_names *hn)
{
        const json_t *st, *h;
        size_t i, k;

        json_array_foreach(steps, i, st) json_array_foreach(step_hosts(st), k, h)
        {
                const char *name = json_string_value(json_object_get(h, "name"));
                const char *role = json_string_value(json_object_get(h, "role"));

                if (!name || host_index(hn, name) >= 0 || hn->n == MAX_HOSTS)
                        continue;
                hn->name[hn->n] = name;
                snprintf(hn->legend[hn->n], sizeof(hn->legend[0]), "%.60s (%.20s)", name,
                         role ? role : "?");
                hn->n++;
        }
}

/* The busiest disk of a host: its %util (NAN when none) and "name" into buf. */
static double busiest_disk(const json_t *h, char *buf, size_t len)
{
        const json_t *x;
        double best = NAN;
        size_t i;

        buf[0] = '\0';
        json_array_foreach(json_object_get(h, "disks"), i, x)
        {
                double u = res_num(x, "util_pct");
                const char *name = json_string_value(json_object_get(x, "name"));

                if (!isnan(u) && !(u <= best)) {
                        best = u;
                        snprintf(buf, len, "%s", name ? name : "?");
                }
        }
        return best;
}

static const json_t *host_of(const json_t *st, const char *name)
{
        const json_t *h;
        size_t k;

        json_array_foreach(step_hosts(st), k, h)
        {
                const char *n = json_string_value(json_object_get(h, "name"));

                if (n && !strcmp(n, name))
                        return h;
        }
        return NULL;
}

/* The two plots: per host, CPU busy and busiest disk %util at every step. */
static int host_plots(struct doc *d, const json_t *steps, const struct host_names *hn,
                      const struct hx *hx)
{
        size_t n = json_array_size(steps), i;
        double *x = calloc(n ? n : 1, sizeof(double));
        double *y = calloc((n ? n : 1) * 2 * hn->n, sizeof(double));
        struct svg_plot cpu, disk;
        const json_t *st;
        char dn[64], tc[96], td[96];

        if (!x || !y) {
                free(x);
                free(y);
                return -ENOMEM;
        }
        snprintf(tc, sizeof(tc), "Each host's CPU against %s", hx->title);
        snprintf(td, sizeof(td), "Each host's busiest disk against %s", hx->title);
        svg_plot_init(&cpu, tc, hx->key, "CPU busy %");
        svg_plot_init(&disk, td, hx->key, "disk %util");
        cpu.xint = disk.xint = 1;
        json_array_foreach(steps, i, st) x[i] = x_of(hx, st, i);
        for (unsigned h = 0; h < hn->n; h++) {
                double *yc = y + 2 * h * n, *yd = yc + n;

                json_array_foreach(steps, i, st)
                {
                        const json_t *o = host_of(st, hn->name[h]);

                        yc[i] = res_num(json_object_get(o, "cpu"), "busy");
                        yd[i] = o ? busiest_disk(o, dn, sizeof(dn)) : NAN;
                }
                svg_plot_add(&cpu, hn->legend[h], x, yc, (unsigned)n, 0, (int)h);
                svg_plot_add(&disk, hn->legend[h], x, yd, (unsigned)n, 0, (int)h);
        }
        doc_plot(d, &cpu);
        doc_plot(d, &disk);
        free(x);
        free(y);
        return 0;
}

/* "—", or "— (why)" for the first figure of a host the step did not read. */
static void none_cell(char *c, size_t len, const json_t *h)
{
        const char *err = json_string_value(json_object_get(h, "error"));

        if (err)
                snprintf(c, len, "— (%.200s)", err);
        else if (json_is_true(json_object_get(h, "missing")))
                snprintf(c, len, "— (missing)");
        else
                snprintf(c, len, "— (not read)");
}

static void fig_cell(char *c, size_t len, double v, const char *fmt)
{
        if (isnan(v))
                snprintf(c, len, "—");
        else
                snprintf(c, len, fmt, v);
}

static void host_row(struct doc *d, const json_t *st, size_t i, const json_t *h,
                     const struct hx *hx)
{
        const json_t *cpu = json_object_get(h, "cpu"), *net = json_object_get(h, "net");
        const char *name = json_string_value(json_object_get(h, "name"));
        const char *role = json_string_value(json_object_get(h, "role"));
        char c[7][240], dn[64];
        const char *cells[7] = {c[0], c[1], c[2], c[3], c[4], c[5], c[6]};
        double busy = res_num(cpu, "busy"), util = busiest_disk(h, dn, sizeof(dn));
        double rx = res_num(net, "rx_bytes_s"), tx = res_num(net, "tx_bytes_s");

        x_cell(hx, st, i, c[0], sizeof(c[0]));
        snprintf(c[1], sizeof(c[1]), "%.100s", name ? name : "?");
        snprintf(c[2], sizeof(c[2]), "%.20s", role ? role : "?");
        if (isnan(busy))
                none_cell(c[3], sizeof(c[3]), h);
        else
                snprintf(c[3], sizeof(c[3]), "%.1f%%", busy);
        fig_cell(c[4], sizeof(c[4]), res_num(cpu, "steal"), "%.1f%%");
        if (isnan(util))
                snprintf(c[5], sizeof(c[5]), "—");
        else
                snprintf(c[5], sizeof(c[5]), "%s %.1f%%", dn, util);
        if (isnan(rx) && isnan(tx))
                snprintf(c[6], sizeof(c[6]), "—");
        else
                snprintf(c[6], sizeof(c[6]), "%.2f / %.2f", rx / 1e6, tx / 1e6);
        doc_row(d, cells, 7);
}

static void host_table(struct doc *d, const json_t *steps, const struct hx *hx)
{
        const char *const head[] = {hx->key,           "host",  "role",
                                    "CPU busy",        "steal", "busiest disk (util)",
                                    "net rx / tx MB/s"};
        const json_t *st, *h;
        size_t i, k;

        doc_table(d, head, 7);
        json_array_foreach(steps, i, st) json_array_foreach(step_hosts(st), k, h)
            host_row(d, st, i, h, hx);
        doc_table_end(d);
}

static int hosts_section(struct doc *d, const json_t *steps, const struct hx *hx, const char *about)
{
        struct host_names hn = {0};

        collect_names(steps, &hn);
        if (!hn.n)
                return 0;
        doc_h(d, 2, "Hosts");
        doc_p(d, "meta", "%s CPU busy includes steal; \"—\": the host gave no figure there.",
              about);
        if (host_plots(d, steps, &hn, hx))
                return -ENOMEM;
        host_table(d, steps, hx);
        return 0;
}

int report_hosts(struct doc *d, const json_t *r)
{
        static const struct hx vms = {0, "VMs", "VM count"};
        const json_t *steps = json_object_get(r, "steps");

        if (!is_cluster(steps))
                return 0;
        return hosts_section(d, steps, &vms,
                             "Each host of the cluster as the step read it (cluster.hosts): the "
                             "verdict reads compute limits on the busiest compute host and storage "
                             "limits on the storage hosts.");
}

int report_block_hosts(struct doc *d, const json_t *r)
{
        static const struct hx pts = {1, "point", "the sweep (point)"};

        return hosts_section(d, json_object_get(r, "points"), &pts,
                             "Each host as the block point read it (cluster.hosts, sampled every "
                             "2 s over its measured window): the clients (role client), the "
                             "storage hosts (role storage) and the controller.");
}
