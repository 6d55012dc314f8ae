/*
 * knee.c - the knee arithmetic of knee.h.
 *
 * Kneedle runs only on the rising part of the curve (up to the peak): past
 * the peak a ramp is no longer concave increasing, and a dip after the peak
 * would otherwise pull the normalisation and hide the bend. Differences
 * below KNEE_EPS count as zero so that a straight line, whose difference
 * curve is zero up to rounding, has no knee. The latency knee takes the
 * median of the slopes' magnitudes: for a rising latency that is the plain
 * median, but while latency still falls (a negative median) the plain rule
 * would call any tiny rise a cliff.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/knee.h"

#define KNEE_EPS 1e-9

int knee_peak(const double *y, unsigned n)
{
        int best = n ? 0 : -1;

        for (unsigned i = 1; i < n; i++)
                if (y[i] > y[best])
                        best = (int)i;
        return best;
}

static int is_local_max(const double *d, unsigned n, unsigned i)
{
        if (i == 0 || i + 1 >= n)
                return 0;
        return d[i] > KNEE_EPS && d[i] > d[i - 1] + KNEE_EPS && d[i] >= d[i + 1] - KNEE_EPS;
}

/* The knee of a difference curve d: the first local max whose threshold is crossed. */
static int kneedle_scan(const double *d, unsigned n, double step)
{
        for (unsigned i = 1; i + 1 < n; i++) {
                double t;

                if (!is_local_max(d, n, i))
                        continue;
                t = d[i] - step;
                for (unsigned j = i + 1; j < n && !is_local_max(d, n, j); j++)
                        if (d[j] < t)
                                return (int)i;
        }
        return -1;
}

int knee_kneedle(const double *x, const double *y, unsigned n, double sensitivity)
{
        double xmin, xmax, ymin, ymax, *d;
        int knee;

        if (n < 3)
                return -1;
        xmin = xmax = x[0];
        ymin = ymax = y[0];
        for (unsigned i = 1; i < n; i++) {
                xmin = fmin(xmin, x[i]), xmax = fmax(xmax, x[i]);
                ymin = fmin(ymin, y[i]), ymax = fmax(ymax, y[i]);
        }
        if (xmax - xmin <= 0 || ymax - ymin <= 0)
                return -1;
        d = malloc(n * sizeof(*d));
        if (!d)
                return -1;
        for (unsigned i = 0; i < n; i++)
                d[i] = (y[i] - ymin) / (ymax - ymin) - (x[i] - xmin) / (xmax - xmin);
        /* The mean spacing of normalised x is 1/(n-1) whatever the spacing of x. */
        knee = kneedle_scan(d, n, sensitivity / (n - 1));
        free(d);
        return knee;
}

static int dbl_cmp(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;

        return (x > y) - (x < y);
}

static double median(double *v, unsigned n)
{
        qsort(v, n, sizeof(*v), dbl_cmp);
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int knee_latency(const double *x, const double *lat, unsigned n)
{
        double *s, *tmp;
        int knee = -1;

        if (n < 4)
                return -1;
        for (unsigned i = 0; i < n; i++)
                if (isnan(lat[i]))
                        return -1;
        s = malloc(2 * n * sizeof(*s));
        if (!s)
                return -1;
        tmp = s + n;
        for (unsigned i = 1; i < n; i++)
                s[i] = (lat[i] - lat[i - 1]) / (x[i] - x[i - 1]);
        for (unsigned i = 3; i < n && knee < 0; i++) {
                for (unsigned j = 1; j < i; j++)
                        tmp[j - 1] = fabs(s[j]);
                if (s[i] > 0 && s[i] > 3 * median(tmp, i - 1))
                        knee = (int)i - 1;
        }
        free(s);
        return knee;
}

int knee_slo(const double *lat, unsigned n, double slo)
{
        int best = -1;

        for (unsigned i = 0; slo > 0 && i < n; i++)
                if (!isnan(lat[i]) && lat[i] <= slo)
                        best = (int)i;
        return best;
}

const char *knee_unit(const struct ramp *r)
{
        if (!strcmp(r->load_name, "vms"))
                return "VMs"; /* as `scale` words its reason */
        return r->load_name[0] ? r->load_name : "load";
}

int knee_analyze(const struct ramp *r, double slo_ms, struct knee_result *out)
{
        double *x = malloc((r->n ? r->n : 1) * 3 * sizeof(*x)), *y, *l;
        struct res_tip_step *st = malloc((r->n ? r->n : 1) * sizeof(*st));

        if (!x || !st) {
                free(x);
                free(st);
                return -ENOMEM;
        }
        y = x + r->n;
        l = y + r->n;
        for (unsigned i = 0; i < r->n; i++) {
                x[i] = r->p[i].load;
                y[i] = r->p[i].tput;
                l[i] = r->p[i].lat_ms;
        }
        out->peak = knee_peak(y, r->n);
        out->kneedle = out->peak < 0 ? -1 : knee_kneedle(x, y, (unsigned)out->peak + 1, 1.0);
        out->latency_knee = knee_latency(x, l, r->n);
        out->slo = knee_slo(l, r->n, slo_ms);
        ramp_tip_steps(r, st);
        res_tip_find(st, r->n, knee_unit(r), &out->tip);
        out->knee = out->tip.found ? out->tip.step : -1;
        free(st);
        free(x);
        return 0;
}
