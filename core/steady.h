/*
 * steady.h - when a run's throughput is steady, and when its mean is known
 * well enough: the rule behind --target-ci.
 *
 * The caller samples throughput (transactions or I/Os per second) every
 * STEADY_SAMPLE_S seconds from the start of a run and hands each sample to
 * steady_add(), which says which phase the run is in:
 *
 *   warm-up   ends when MSER-5 (White 1997; Franklin & White 2008) finds the
 *             series settled: the samples are grouped in batches of 5, the
 *             truncation point d* minimises the marginal standard error
 *             sum((Z_j - mean)^2) / (b - d)^2 over the batches left, among
 *             cuts that keep at least half of the b batches, and the batches
 *             after d* show no linear trend (the least-squares slope of their
 *             samples has a 95%
 *             t-interval that holds 0; a trend left means the ramp is longer than
 *             half the series so far, or never ends: wait for more). At
 *             least STEADY_MIN_BATCHES batches are looked at first. The
 *             run is measured from the sample at which the test passed; what
 *             came before is warm-up, never counted. When warmup_max_s goes
 *             by first, measurement starts anyway and the run is marked not
 *             settled.
 *   measure   until the 95% confidence interval of the mean of the measured
 *             samples, by non-overlapping batch means (STEADY_CI_BATCHES
 *             batches of equal size, the oldest leftover samples dropped;
 *             Schmeiser 1982: 10 to 30 batches), is within target_ci_pct
 *             percent of the mean (at least STEADY_MIN_MEASURED samples),
 *             or until measure_max_s goes by: then the run is marked not met.
 *             Batch means, because successive samples of a loaded server are
 *             correlated: the naive t-interval over the samples treats them as
 *             independent and comes out too narrow.
 *   done      the caller ends the run.
 *
 * The CI is looked at once STEADY_MIN_MEASURED samples are in, then each
 * time the measured samples have grown by a tenth: every look is a chance to
 * stop on a narrow interval by luck, so they are kept few. Pure arithmetic
 * (and the result's JSON object): no clock, no threads.
 * One thread per struct steady; the free functions are reentrant.
 */
#ifndef HCI_STEADY_H
#define HCI_STEADY_H

#include <stddef.h>
#include <jansson.h>

#define STEADY_SAMPLE_S     0.5 /* seconds per throughput sample */
#define STEADY_MSER_BATCH   5   /* samples per MSER batch (MSER-5) */
#define STEADY_MIN_BATCHES  4   /* MSER batches before a cut may be made */
#define STEADY_CI_BATCHES   10  /* batches of the batch-means CI */
#define STEADY_MIN_MEASURED 20  /* measured samples before the CI may end a run */

/*
 * MSER-5 truncation of x[0..n): the number of leading samples to drop (a
 * multiple of STEADY_MSER_BATCH), or -1 when the series has not settled
 * (fewer than STEADY_MIN_BATCHES batches, or a trend left after the best
 * cut). Trailing samples that do not fill a batch are ignored.
 */
long steady_mser5(const double *x, size_t n);

/*
 * 95% CI of the mean of x[0..n) by k non-overlapping batch means (the
 * oldest n % k samples left out). *mean is the mean of the samples used,
 * *half the interval's half-width. 0, or -EINVAL when k < 2 or n < 2 * k.
 */
int steady_batch_ci(const double *x, size_t n, unsigned k, double *mean, double *half);

/* The naive t-interval over x[0..n) as if independent (for comparison). 0 or -EINVAL (n < 2). */
int steady_naive_ci(const double *x, size_t n, double *mean, double *half);

/* Student's t quantile 0.975 for df degrees of freedom (df >= 1). */
double steady_t975(unsigned df);

/* The CI as a percentage of the mean (infinite when the mean is not positive). */
double steady_ci_pct(double mean, double half);

struct steady_cfg {
        double target_ci_pct; /* > 0 */
        double sample_s;      /* seconds per sample (STEADY_SAMPLE_S) */
        double warmup_max_s;  /* the longest warm-up */
        double measure_max_s; /* the longest measurement */
};

enum steady_phase { STEADY_WARMUP, STEADY_MEASURE, STEADY_DONE };

/* What a run's steady-state rule found (the result's "steady" object). */
struct steady_res {
        double warmup_s;   /* seconds cut as warm-up */
        double measured_s; /* seconds of samples measured */
        double ci_pct;     /* the last 95% CI as % of the mean; negative when never computed */
        double mean;       /* mean throughput of the measured samples */
        double target_ci_pct;
        int met;     /* ci_pct <= target_ci_pct */
        int settled; /* MSER-5 ended the warm-up (0: warmup_max_s did) */
};

struct steady;

/* A new rule; NULL on ENOMEM or a cfg out of range (target or sample <= 0). Free with steady_free.
 */
struct steady *steady_new(const struct steady_cfg *cfg);
void steady_free(struct steady *s);

/*
 * One more sample: the throughput (per second) over the sample_s seconds
 * that just ended. Returns the phase the run is in from now on: the sample
 * that ends the warm-up returns STEADY_MEASURE (measurement starts after
 * it), the one that meets the CI or uses up measure_max_s returns
 * STEADY_DONE. Samples after STEADY_DONE are ignored. Running out of memory
 * ends the run (STEADY_DONE, not met).
 */
enum steady_phase steady_add(struct steady *s, double rate);

enum steady_phase steady_phase(const struct steady *s);
void steady_result(const struct steady *s, struct steady_res *out);

/*
 * Seconds the run probably has left: the warm-up's worst case plus the
 * measurement's estimate while warming up; then the samples the CI needs
 * if it shrinks as 1/sqrt(n), never more than the budget left; 0 when done.
 */
double steady_left_s(const struct steady *s);

/* "warm-up 10.0 s, measured 12.5 s, CI +-1.8% (target 2%)", then ", not met"
 * and ", not settled" when so; into buf. */
void steady_describe(const struct steady_res *r, char *buf, size_t len);

/* The result's "steady" object {warmup_s, measured_s, ci_pct (null when never
 * computed), target_ci_pct, met, settled}; NULL on ENOMEM. The caller owns it. */
json_t *steady_to_json(const struct steady_res *r);

/* The other way: such an object into *r (a null ci_pct as never computed). 0, or -EINVAL
 * when j is not an object with numeric warmup_s and measured_s. */
int steady_from_json(const json_t *j, struct steady_res *r);

#endif
