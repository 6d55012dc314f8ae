/*
 * tipping.c - the knee of a ramp, decided beyond the noise (tipping.h has
 * the definition). The efficiency is a log-log slope rather than a gain per
 * VM compared with the first step's: a concave curve gains less per VM at
 * every step than at the first, so comparing with the first step calls
 * every concave curve tipped at its first step, while the slope only falls
 * below its threshold where the curve really flattens.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/steady.h"
#include "results/tipping.h"

void res_tip_step_init(struct res_tip_step *s, double load, double tput)
{
        s->load = load;
        s->tput = s->lo = s->hi = tput;
        memset(&s->hosts, 0, sizeof(s->hosts));
        s->hosts.cpu_next_pct = NAN;
        double *f = (double *)&s->r;

        for (size_t i = 0; i < sizeof(s->r) / sizeof(*f); i++)
                f[i] = NAN;
}

/* Half-width of a step's band in ln(throughput); INFINITY when the band reaches 0. */
static double ln_half(const struct res_tip_step *s)
{
        double lo = fmin(s->lo, s->tput), hi = fmax(s->hi, s->tput);

        if (!(lo > 0))
                return lo == hi ? 0 : INFINITY;
        return log(hi / lo) / 2;
}

double res_tip_efficiency(const struct res_tip_step *a, const struct res_tip_step *b, double *lo,
                          double *hi)
{
        double span, e, h;

        *lo = *hi = NAN;
        if (!(a->load > 0) || !(b->load > a->load) || !(a->tput > 0))
                return NAN;
        span = log(b->load / a->load);
        if (!(b->tput > 0)) {
                *lo = *hi = -INFINITY;
                return -INFINITY;
        }
        e = log(b->tput / a->tput) / span;
        h = hypot(ln_half(a), ln_half(b)) / span;
        *lo = e - h;
        *hi = e + h;
        return e;
}

static int dbl_cmp(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;

        return (x > y) - (x < y);
}

void res_tip_band(const double *v, unsigned n, int repeats, double *mid, double *lo, double *hi)
{
        double tmp[64], mean, half, s = 0;
        unsigned k = n / RES_TIP_MIN_BATCH;

        *mid = *lo = *hi = n ? v[0] : NAN;
        if (n < 2)
                return;
        if (repeats) {
                if (n > 64)
                        n = 64;
                memcpy(tmp, v, n * sizeof(*v));
                qsort(tmp, n, sizeof(*tmp), dbl_cmp);
                *lo = tmp[0];
                *hi = tmp[n - 1];
                *mid = n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
                return;
        }
        for (unsigned i = 0; i < n; i++)
                s += v[i];
        *mid = *lo = *hi = s / n;
        if (k > STEADY_CI_BATCHES)
                k = STEADY_CI_BATCHES;
        if (k < 2 || steady_batch_ci(v, n, k, &mean, &half) < 0)
                return;
        *mid = mean;
        *lo = mean - half;
        *hi = mean + half;
}

void res_tip_band_of_intervals(double tput, const double *v, unsigned n, double *lo, double *hi)
{
        double mid, l, h;

        *lo = *hi = tput;
        if (n < 2)
                return;
        res_tip_band(v, n, 0, &mid, &l, &h);
        if (isnan(mid) || !(h > l))
                return;
        *lo = fmax(tput - (mid - l), 0);
        *hi = tput + (h - mid);
}

static int peak_of(const struct res_tip_step *s, unsigned n)
{
        int best = n ? 0 : -1;

        for (unsigned i = 1; i < n; i++)
                if (s[i].tput > s[best].tput)
                        best = (int)i;
        return best;
}

static void fit(const struct res_tip_step *s, unsigned n, struct res_usl *u)
{
        double x[256], y[256];
        unsigned m = 0;

        for (unsigned i = 0; i < n && m < 256; i++) {
                x[m] = s[i].load;
                y[m++] = s[i].tput;
        }
        res_usl_fit(x, y, m, u);
}

/* "20 VMs", "iodepth 8": how a reason names a step. */
static const char *at(const char *unit, double v, char *buf, size_t len)
{
        if (!strcmp(unit, "VMs"))
                snprintf(buf, len, "%g VMs", v);
        else
                snprintf(buf, len, "%s %g", unit, v);
        return buf;
}

/* What the efficiency means, in the ramp's own words. */
static const char *eff_words(const char *unit)
{
        return strcmp(unit, "VMs") ? "the throughput per added unit of load as a share of the "
                                     "mean per unit"
                                   : "the TPS per added VM as a share of the mean TPS per VM";
}

static double pct(double e)
{
        return isinf(e) ? (e < 0 ? -100 : 100) : 100 * e;
}

/*
 * The resource that stopped the scaling, read from t against the step a
 * where the break was decided, or, when no resource was at its limit
 * there, against the later steps in turn: a resource close to its limit
 * at a (host CPU 89%) shows saturated a step or two later, where the
 * curve stays flat. The first later step that names one is cited; when
 * none does, the reason is a's.
 */
static void attribute_after(const struct res_tip_step *s, unsigned n, int t, int a,
                            const char *unit, char *why, size_t len, struct res_tip *out)
{
        enum res_tip_limit l = res_tip_attribute(&s[t], &s[a], unit, why, len);
        char later[1300];

        out->cited = a;
        for (unsigned j = (unsigned)a + 1; l == RES_LIM_NONE && j < n; j++) {
                enum res_tip_limit lj = res_tip_attribute(&s[t], &s[j], unit, later, sizeof(later));

                if (lj != RES_LIM_NONE) {
                        snprintf(why, len, "%s", later);
                        l = lj;
                        out->cited = (int)j;
                }
        }
        out->limited_by = l;
        out->rule = res_tip_classify(&s[t].r, &s[out->cited].r);
}

/* The steps the answer rests on and the efficiency between them. */
static void rests_on(struct res_tip *out, int from, int to, const double e3[3], double lowest)
{
        out->from = from;
        out->to = to;
        out->eff = e3[0];
        out->eff_lo = e3[1];
        out->eff_hi = e3[2];
        out->lowest = lowest;
}

static void say_tipped(const struct res_tip_step *s, unsigned n, int t, int a, const double e3[3],
                       double lowest, const char *unit, struct res_tip *out)
{
        char why[1500], n1[48], n2[48];
        double e = e3[0];

        out->found = 1;
        out->step = t;
        out->load = s[t].load;
        rests_on(out, t, a, e3, lowest);
        attribute_after(s, n, t, a, unit, why, sizeof(why), out);
        at(unit, s[t].load, n1, sizeof(n1));
        at(unit, s[a].load, n2, sizeof(n2));
        if (isnan(lowest))
                snprintf(out->reason, sizeof(out->reason),
                         "%s, the first step: from there to %s throughput went %.1f -> %.1f, an "
                         "efficiency of %.0f%% (%s), below %.0f%% beyond the noise. %s",
                         n1, n2, s[t].tput, s[a].tput, pct(e), eff_words(unit), 100 * RES_TIP_SHARE,
                         why);
        else
                snprintf(out->reason, sizeof(out->reason),
                         "%s: every step up to it kept an efficiency (%s) of at least %.0f%% "
                         "(lowest %.0f%%); from there to %s throughput went %.1f -> %.1f, %.0f%%, "
                         "below %.0f%% beyond the noise. %s",
                         n1, eff_words(unit), 100 * RES_TIP_SHARE, pct(lowest), n2, s[t].tput,
                         s[a].tput, pct(e), 100 * RES_TIP_SHARE, why);
}

static void say_undecided(const struct res_tip_step *s, int p, int k, double e, double elo,
                          double ehi, const char *unit, struct res_tip *out)
{
        char n1[48], n2[48];

        out->undecided = 1;
        out->step = k;
        out->from = p;
        out->to = k;
        out->eff = e;
        out->eff_lo = elo;
        out->eff_hi = ehi;
        snprintf(out->reason, sizeof(out->reason),
                 "undecided: from %s to %s throughput went %.1f [%.1f..%.1f] -> %.1f "
                 "[%.1f..%.1f], an efficiency of %.0f%% whose noise band %.0f..%.0f%% straddles "
                 "the %.0f%% threshold: more repeats needed (--repeat, or longer steps)",
                 at(unit, s[p].load, n1, sizeof(n1)), at(unit, s[k].load, n2, sizeof(n2)),
                 s[p].tput, s[p].lo, s[p].hi, s[k].tput, s[k].lo, s[k].hi, pct(e), pct(elo),
                 pct(ehi), 100 * RES_TIP_SHARE);
}

/*
 * The tipping step t is known only to lie between t and u (t -> u was
 * within the noise), but from t to a later step j the efficiency was
 * below the threshold beyond the noise: the curve tipped at t or at u.
 * The answer is t, the last step known to scale, and the range; the
 * attribution reads t against j, where the break was decided.
 */
static void say_between(const struct res_tip_step *s, unsigned n, int t, int u, int j,
                        const double eu[3], double lowest, const char *unit, struct res_tip *out)
{
        char why[1300], n1[48], n2[48], n3[48], first[200] = "";
        double elo, ehi, e = res_tip_efficiency(&s[t], &s[j], &elo, &ehi);

        out->found = 1;
        out->step = t;
        out->load = s[t].load;
        out->load_hi = s[u].load;
        rests_on(out, t, j, (const double[3]){e, elo, ehi}, lowest);
        attribute_after(s, n, t, j, unit, why, sizeof(why), out);
        at(unit, s[t].load, n1, sizeof(n1));
        at(unit, s[u].load, n2, sizeof(n2));
        at(unit, s[j].load, n3, sizeof(n3));
        if (!isnan(lowest))
                snprintf(first, sizeof(first),
                         " every step up to %s kept an efficiency of at least %.0f%% (lowest "
                         "%.0f%%);",
                         n1, 100 * RES_TIP_SHARE, pct(lowest));
        snprintf(out->reason, sizeof(out->reason),
                 "between %s and %s:%s from %s to %s the efficiency (%s) was %.0f%%, a noise "
                 "band of %.0f..%.0f%% that straddles %.0f%%; from %s to %s throughput went "
                 "%.1f -> %.1f, %.0f%% [%.0f..%.0f%%], below %.0f%% beyond the noise: the curve "
                 "tipped at %s or %s. %s",
                 n1, n2, first, n1, n2, eff_words(unit), pct(eu[0]), pct(eu[1]), pct(eu[2]),
                 100 * RES_TIP_SHARE, n1, n3, s[t].tput, s[j].tput, pct(e), pct(elo), pct(ehi),
                 100 * RES_TIP_SHARE, n1, n2, why);
}

/*
 * The step k after prev could not be decided: the later steps decide from
 * prev. Returns the step the curve is known to have scaled up to (prev = j,
 * the walk goes on from there), or -1 once the answer is written.
 */
static int decide_later(const struct res_tip_step *s, unsigned n, int prev, int k, double e,
                        double elo, double ehi, double *lowest, const char *unit,
                        struct res_tip *out)
{
        for (unsigned j = (unsigned)k + 1; j < n; j++) {
                double lo2, hi2, e2 = res_tip_efficiency(&s[prev], &s[j], &lo2, &hi2);

                if (isnan(e2))
                        continue;
                if (lo2 >= RES_TIP_SHARE) {
                        *lowest = isnan(*lowest) ? e2 : fmin(*lowest, e2);
                        return (int)j;
                }
                if (hi2 < RES_TIP_SHARE) {
                        say_between(s, n, prev, k, (int)j, (const double[3]){e, elo, ehi}, *lowest,
                                    unit, out);
                        return -1;
                }
        }
        out->lowest = *lowest;
        say_undecided(s, prev, k, e, elo, ehi, unit, out);
        return -1;
}

void res_tip_find(const struct res_tip_step *s, unsigned n, const char *unit, struct res_tip *out)
{
        double lowest = NAN;
        char n1[48];
        int prev = 0;

        memset(out, 0, sizeof(*out));
        unit = unit ? unit : "VMs";
        out->step = out->from = out->to = out->cited = -1;
        out->load = out->load_hi = NAN;
        out->eff = out->eff_lo = out->eff_hi = out->lowest = NAN;
        out->peak = peak_of(s, n);
        fit(s, n, &out->usl);
        if (!n) {
                snprintf(out->reason, sizeof(out->reason), "no step completed");
                return;
        }
        for (unsigned k = 1; k < n; k++) {
                double elo, ehi, e = res_tip_efficiency(&s[prev], &s[k], &elo, &ehi);

                if (isnan(e))
                        continue;
                if (elo >= RES_TIP_SHARE) {
                        lowest = isnan(lowest) ? e : fmin(lowest, e);
                        prev = (int)k;
                        continue;
                }
                if (ehi < RES_TIP_SHARE) {
                        say_tipped(s, n, prev, (int)k, (const double[3]){e, elo, ehi}, lowest, unit,
                                   out);
                        return;
                }
                prev = decide_later(s, n, prev, (int)k, e, elo, ehi, &lowest, unit, out);
                if (prev < 0)
                        return;
                k = (unsigned)prev;
        }
        out->from = prev;
        out->to = (int)n - 1;
        out->lowest = lowest;
        if (isnan(lowest))
                snprintf(out->reason, sizeof(out->reason),
                         "one step (%s): no tipping point can be read off it",
                         at(unit, s[0].load, n1, sizeof(n1)));
        else
                snprintf(out->reason, sizeof(out->reason),
                         "no tipping point within the steps: every step up to %s kept an "
                         "efficiency (%s) of at least %.0f%% (lowest %.0f%%): still scaling",
                         at(unit, s[prev].load, n1, sizeof(n1)), eff_words(unit),
                         100 * RES_TIP_SHARE, pct(lowest));
}

static const struct res_tip_step *same_load(const struct res_tip_step *b, unsigned nb, double load)
{
        for (unsigned i = 0; i < nb; i++)
                if (fabs(b[i].load - load) <= 1e-9 * fmax(1, fabs(load)))
                        return &b[i];
        return NULL;
}

int res_tip_crossover(const struct res_tip_step *a, unsigned na, const struct res_tip_step *b,
                      unsigned nb, int *first)
{
        *first = 0;
        for (unsigned i = 0; i < na; i++) {
                const struct res_tip_step *q = same_load(b, nb, a[i].load);
                int now;

                if (!q)
                        continue;
                if (fmin(q->lo, q->tput) > fmax(a[i].hi, a[i].tput))
                        now = 1;
                else if (fmin(a[i].lo, a[i].tput) > fmax(q->hi, q->tput))
                        now = -1;
                else
                        continue;
                if (!*first)
                        *first = now;
                else if (now != *first)
                        return (int)i;
        }
        return -1;
}
