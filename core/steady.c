/*
 * steady.c - warm-up truncation (MSER-5) and the batch-means confidence
 * interval that end a run once its throughput is steady and known (see
 * steady.h for the rule and its sources).
 *
 * The samples are kept whole (one double per STEADY_SAMPLE_S), so every
 * test looks at the series as it is, not at running sums that would hide a
 * trend: a day-long run is 172,800 samples, 1.4 MB.
 */
#include "core/steady.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

struct steady {
        struct steady_cfg cfg;
        double *x;
        size_t n, cap;
        size_t warm;  /* samples of warm-up, once it has ended */
        int phase;    /* enum steady_phase */
        int settled;  /* MSER-5 ended the warm-up */
        double ci;    /* last CI in % of the mean; < 0: none yet */
        double mean;  /* of the measured samples, at the last CI */
        size_t limit; /* samples the warm-up may take */
        size_t mmax;  /* samples the measurement may take */
        size_t check; /* measured samples at the next look at the CI */
};

double steady_t975(unsigned df)
{
        /* Exact to three decimals up to 30; beyond, the Cornish-Fisher
         * expansion around the normal quantile is within 0.001. */
        static const double t[] = {0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365,
                                   2.306, 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
                                   2.120, 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
                                   2.064, 2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
        const double z = 1.959964;
        double d = df;

        if (df < sizeof(t) / sizeof(t[0]))
                return df ? t[df] : INFINITY;
        return z + (z * z * z + z) / (4 * d) +
               (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * d * d);
}

double steady_ci_pct(double mean, double half)
{
        return mean > 0 ? 100.0 * half / mean : INFINITY;
}

static void mean_sd(const double *x, size_t n, double *mean, double *sd)
{
        double m = 0, ss = 0;

        for (size_t i = 0; i < n; i++)
                m += x[i];
        m /= (double)n;
        for (size_t i = 0; i < n; i++)
                ss += (x[i] - m) * (x[i] - m);
        *mean = m;
        *sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
}

/* A linear trend in z[0..n): the least-squares slope's 95% t-interval leaves out 0. */
static int trending(const double *z, size_t n)
{
        double xm = (double)(n - 1) / 2, zm = 0, sxx = 0, sxz = 0, sse = 0, b, se;

        if (n < 3)
                return 1;
        for (size_t i = 0; i < n; i++)
                zm += z[i];
        zm /= (double)n;
        for (size_t i = 0; i < n; i++) {
                sxx += ((double)i - xm) * ((double)i - xm);
                sxz += ((double)i - xm) * (z[i] - zm);
        }
        b = sxz / sxx;
        for (size_t i = 0; i < n; i++) {
                double e = z[i] - zm - b * ((double)i - xm);

                sse += e * e;
        }
        se = sqrt(sse / (double)(n - 2) / sxx);
        if (!(se > 0))
                return b != 0;
        return fabs(b) > steady_t975((unsigned)(n - 2)) * se;
}

/* The MSER statistic of z[d..b): the squared marginal standard error of their mean. */
static double mser_at(const double *z, size_t b, size_t d)
{
        double m = 0, ss = 0;
        size_t k = b - d;

        for (size_t j = d; j < b; j++)
                m += z[j];
        m /= (double)k;
        for (size_t j = d; j < b; j++)
                ss += (z[j] - m) * (z[j] - m);
        return ss / ((double)k * (double)k);
}

long steady_mser5(const double *x, size_t n)
{
        size_t b = n / STEADY_MSER_BATCH, best = 0;
        double z[4096], *zb = b <= 4096 ? z : malloc(b * sizeof(*zb)), best_v = INFINITY;
        long cut = -1;

        if (b < STEADY_MIN_BATCHES || !zb)
                goto out;
        for (size_t j = 0; j < b; j++) {
                zb[j] = 0;
                for (size_t i = 0; i < STEADY_MSER_BATCH; i++)
                        zb[j] += x[j * STEADY_MSER_BATCH + i];
                zb[j] /= STEADY_MSER_BATCH;
        }
        /* Only cuts that keep at least half the batches are searched: cuts
         * near the end win by chance on few batches (MSER's end effect). */
        for (size_t d = 0; d <= b / 2; d++) {
                double v = mser_at(zb, b, d);

                if (v < best_v) {
                        best_v = v;
                        best = d;
                }
        }
        /* A best cut that still leaves a trend behind means the series has
         * not settled: a ramp longer than half the series, or no end at all.
         * The samples, not the few batches, give the slope test its power. */
        if (!trending(x + best * STEADY_MSER_BATCH, (b - best) * STEADY_MSER_BATCH))
                cut = (long)(best * STEADY_MSER_BATCH);
out:
        if (zb != z)
                free(zb);
        return cut;
}

int steady_batch_ci(const double *x, size_t n, unsigned k, double *mean, double *half)
{
        double bm[256], sd;
        size_t m, skip;

        if (k < 2 || k > 256 || n < 2 * (size_t)k)
                return -EINVAL;
        m = n / k;
        skip = n - m * k;
        for (unsigned j = 0; j < k; j++) {
                bm[j] = 0;
                for (size_t i = 0; i < m; i++)
                        bm[j] += x[skip + j * m + i];
                bm[j] /= (double)m;
        }
        mean_sd(bm, k, mean, &sd);
        *half = steady_t975(k - 1) * sd / sqrt((double)k);
        return 0;
}

int steady_naive_ci(const double *x, size_t n, double *mean, double *half)
{
        double sd;

        if (n < 2)
                return -EINVAL;
        mean_sd(x, n, mean, &sd);
        *half = steady_t975((unsigned)(n - 1)) * sd / sqrt((double)n);
        return 0;
}

struct steady *steady_new(const struct steady_cfg *cfg)
{
        struct steady *s;

        if (!(cfg->target_ci_pct > 0) || !(cfg->sample_s > 0) || cfg->warmup_max_s < 0 ||
            cfg->measure_max_s < 0)
                return NULL;
        s = calloc(1, sizeof(*s));
        if (!s)
                return NULL;
        s->cfg = *cfg;
        s->ci = -1;
        s->limit = (size_t)(cfg->warmup_max_s / cfg->sample_s + 0.5);
        s->mmax = (size_t)(cfg->measure_max_s / cfg->sample_s + 0.5);
        if (s->mmax < 1)
                s->mmax = 1;
        return s;
}

void steady_free(struct steady *s)
{
        if (!s)
                return;
        free(s->x);
        free(s);
}

static int push(struct steady *s, double v)
{
        if (s->n == s->cap) {
                size_t cap = s->cap ? 2 * s->cap : 256;
                double *x = realloc(s->x, cap * sizeof(*x));

                if (!x)
                        return -ENOMEM;
                s->x = x;
                s->cap = cap;
        }
        s->x[s->n++] = v;
        return 0;
}

static void end_warmup(struct steady *s, int settled)
{
        s->warm = s->n;
        s->check = STEADY_MIN_MEASURED > 2 * STEADY_CI_BATCHES ? STEADY_MIN_MEASURED
                                                               : 2 * STEADY_CI_BATCHES;
        s->settled = settled;
        s->phase = STEADY_MEASURE;
}

static void warmup_sample(struct steady *s)
{
        if (s->n % STEADY_MSER_BATCH == 0 && steady_mser5(s->x, s->n) >= 0)
                end_warmup(s, 1);
        else if (s->n >= s->limit)
                end_warmup(s, 0);
}

static void measure_sample(struct steady *s)
{
        size_t m = s->n - s->warm;
        double mean, half;

        /* Looking after every sample would stop on the first chance dip
         * of a ten-batch estimate; looking each time the run has grown by
         * a tenth keeps the number of looks (and of such chances) small. */
        if (m >= s->check && !steady_batch_ci(s->x + s->warm, m, STEADY_CI_BATCHES, &mean, &half)) {
                s->check = m + (m + 9) / 10;
                s->ci = steady_ci_pct(mean, half);
                s->mean = mean;
                if (s->ci <= s->cfg.target_ci_pct)
                        s->phase = STEADY_DONE;
        }
        if (m >= s->mmax)
                s->phase = STEADY_DONE;
}

enum steady_phase steady_add(struct steady *s, double rate)
{
        if (s->phase == STEADY_DONE)
                return STEADY_DONE;
        if (push(s, rate) < 0) {
                s->phase = STEADY_DONE;
                return STEADY_DONE;
        }
        if (s->phase == STEADY_WARMUP)
                warmup_sample(s);
        else
                measure_sample(s);
        return (enum steady_phase)s->phase;
}

enum steady_phase steady_phase(const struct steady *s)
{
        return (enum steady_phase)s->phase;
}

void steady_result(const struct steady *s, struct steady_res *out)
{
        size_t warm = s->phase == STEADY_WARMUP ? s->n : s->warm;
        size_t m = s->n - warm;

        out->warmup_s = (double)warm * s->cfg.sample_s;
        out->measured_s = (double)m * s->cfg.sample_s;
        out->ci_pct = s->ci;
        out->mean = s->mean;
        if (s->ci < 0 && m >= 2) { /* too short for batches: say what the samples give */
                double half;

                if (!steady_naive_ci(s->x + warm, m, &out->mean, &half))
                        out->ci_pct = steady_ci_pct(out->mean, half);
        }
        out->target_ci_pct = s->cfg.target_ci_pct;
        out->met = s->ci >= 0 && s->ci <= s->cfg.target_ci_pct;
        out->settled = s->settled;
}

double steady_left_s(const struct steady *s)
{
        size_t m = s->n - s->warm, need;
        double r;

        switch (s->phase) {
        case STEADY_DONE:
                return 0;
        case STEADY_WARMUP:
                need = (size_t)STEADY_MIN_BATCHES * STEADY_MSER_BATCH;
                need = need > s->n ? need - s->n : 1;
                return (double)(need + STEADY_MIN_MEASURED) * s->cfg.sample_s;
        default:
                break;
        }
        need = STEADY_MIN_MEASURED;
        if (s->ci > 0) {
                r = s->ci / s->cfg.target_ci_pct;
                need = (size_t)ceil((double)m * r * r);
        }
        if (need > s->mmax)
                need = s->mmax;
        return need > m ? (double)(need - m) * s->cfg.sample_s : s->cfg.sample_s;
}

void steady_describe(const struct steady_res *r, char *buf, size_t len)
{
        char ci[32];

        if (r->ci_pct >= 0 && isfinite(r->ci_pct))
                snprintf(ci, sizeof(ci), "+-%.2f%%", r->ci_pct);
        else
                snprintf(ci, sizeof(ci), "unknown");
        snprintf(buf, len, "warm-up %.1f s, measured %.1f s, CI %s (target %g%%)%s%s", r->warmup_s,
                 r->measured_s, ci, r->target_ci_pct, r->met ? "" : ", not met",
                 r->settled ? "" : ", not settled");
}

json_t *steady_to_json(const struct steady_res *r)
{
        int known = r->ci_pct >= 0 && isfinite(r->ci_pct);

        return json_pack("{s:f,s:f,s:o,s:f,s:b,s:b}", "warmup_s", r->warmup_s, "measured_s",
                         r->measured_s, "ci_pct", known ? json_real(r->ci_pct) : json_null(),
                         "target_ci_pct", r->target_ci_pct, "met", r->met, "settled", r->settled);
}

int steady_from_json(const json_t *j, struct steady_res *r)
{
        const json_t *ci = json_object_get(j, "ci_pct");

        if (!json_is_number(json_object_get(j, "warmup_s")) ||
            !json_is_number(json_object_get(j, "measured_s")))
                return -EINVAL;
        *r = (struct steady_res){
            .warmup_s = json_number_value(json_object_get(j, "warmup_s")),
            .measured_s = json_number_value(json_object_get(j, "measured_s")),
            .ci_pct = json_is_number(ci) ? json_number_value(ci) : -1,
            .mean = 0, /* not in the object */
            .target_ci_pct = json_number_value(json_object_get(j, "target_ci_pct")),
            .met = json_is_true(json_object_get(j, "met")),
            .settled = json_is_true(json_object_get(j, "settled")),
        };
        return 0;
}
