/*
 * report_series.c - the report's time series on a wall-clock axis (UTC), so that a run lines
 * up with the reader's own dashboards (Grafana, vCenter, Prometheus): the host monitor's CPU
 * over the whole run, and the throughput of every step (scale) or sweep point (block) over
 * its measured window, placed at that window's start. The series come from the run's series
 * files (res_load reads them back, thinned to a bound for a long run), or inline from a
 * result written before them.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "results/report_priv.h"

/* Unix seconds of "YYYY-mm-ddTHH:MM:SS[.mmm]Z"; NaN when s is not such a time. */
static double iso_seconds(const char *s)
{
        struct tm tm = {0};
        const char *end = s ? strptime(s, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
        double frac = 0;

        if (!end)
                return NAN;
        if (*end == '.') {
                char *e;

                frac = strtod(end, &e);
                end = e;
        }
        return *end == 'Z' && !end[1] ? (double)timegm(&tm) + frac : NAN;
}

/* Points of one plotted line; a NaN y breaks it (between two windows). */
struct xy {
        double *x, *y;
        unsigned n, cap;
        int oom, finite;
};

static void xy_push(struct xy *a, double x, double y)
{
        if (a->oom || !isfinite(x))
                return;
        if (a->n == a->cap) {
                unsigned cap = a->cap ? 2 * a->cap : 256;
                double *nx = realloc(a->x, cap * sizeof(*nx)), *ny;

                if (nx)
                        a->x = nx;
                ny = nx ? realloc(a->y, cap * sizeof(*ny)) : NULL;
                if (!ny) {
                        a->oom = 1;
                        return;
                }
                a->y = ny;
                a->cap = cap;
        }
        a->x[a->n] = x;
        a->y[a->n++] = y;
        a->finite |= isfinite(y);
}

static void xy_free(struct xy *a)
{
        free(a->x);
        free(a->y);
}

/* The host's busy CPU (all but idle and iowait) and steal, each sample at its middle. */
static void monitor_cpu(const json_t *r, struct xy *busy, struct xy *steal)
{
        const json_t *mon = json_object_get(r, "monitor"), *x;
        double base = iso_seconds(json_string_value(json_object_get(mon, "started_at")));
        size_t i;

        if (!isfinite(base))
                return;
        json_array_foreach(json_object_get(mon, "samples"), i, x)
        {
                const json_t *cpu = json_object_get(x, "cpu");
                double at = base + res_num(x, "t") + res_num(x, "dt") / 2;

                xy_push(busy, at, 100 - res_num(cpu, "idle") - res_num(cpu, "iowait"));
                xy_push(steal, at, res_num(cpu, "steal"));
        }
}

/* Every step's TPS or point's IOPS per interval (its t is the interval's end from the
 * window's start), a break after each window. */
static void window_tput(const json_t *r, int block, struct xy *out)
{
        const json_t *item, *x;
        size_t i, k;

        json_array_foreach(json_object_get(r, block ? "points" : "steps"), i, item)
        {
                double base = iso_seconds(
                    json_string_value(json_object_get(json_object_get(item, "window"), "start")));
                double last = NAN;

                if (!isfinite(base))
                        continue;
                json_array_foreach(json_object_get(item, "intervals"), k, x)
                {
                        double y = block ? res_num(x, "read_iops") + res_num(x, "write_iops")
                                         : res_num(x, "tps");

                        xy_push(out, last = base + res_num(x, "t"), y);
                }
                xy_push(out, last, NAN);
        }
}

int report_time_series(struct doc *d, const json_t *r)
{
        const char *kind = json_string_value(json_object_get(r, "kind"));
        int block = kind && !strcmp(kind, "block");
        struct xy busy = {0}, steal = {0}, tput = {0};
        struct svg_plot cp, tp;
        int rc = 0;

        monitor_cpu(r, &busy, &steal);
        if (block || (kind && !strcmp(kind, "scale")))
                window_tput(r, block, &tput);
        if (busy.oom || steal.oom || tput.oom) {
                rc = -ENOMEM;
                goto out;
        }
        if (!busy.finite && !tput.finite)
                goto out;
        doc_h(d, 2, "Over time (UTC)");
        doc_p(d, "meta",
              "Wall-clock time in UTC, as a Prometheus query_range or a Grafana time range "
              "takes it (hcisweep results show RUN --windows lists every window).");
        svg_plot_init(&tp,
                      block ? "IOPS over time (each point's measured window)"
                            : "TPS over time (each step's measured window)",
                      "time (UTC)", block ? "IOPS" : "TPS");
        tp.xtime = 1;
        svg_plot_add(&tp, block ? "IOPS" : "TPS", tput.x, tput.y, tput.n, 0, 0);
        if (tput.finite)
                doc_plot(d, &tp);
        svg_plot_init(&cp, "Host CPU over time (monitor)", "time (UTC)", "% of all CPUs");
        cp.xtime = 1;
        svg_plot_add(&cp, "busy", busy.x, busy.y, busy.n, 0, 0);
        svg_plot_add(&cp, "steal", steal.x, steal.y, steal.n, SVG_DASHED, 1);
        if (busy.finite)
                doc_plot(d, &cp);
out:
        xy_free(&busy);
        xy_free(&steal);
        xy_free(&tput);
        return rc;
}
