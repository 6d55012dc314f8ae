/*
 * knee.h - where a load ramp stops scaling.
 *
 * Pure functions over arrays sorted by load (x strictly increasing, as
 * ramp_normalise() leaves them). Every index result is -1 for "none".
 *
 *   peak          the point of highest throughput (the first on ties);
 *   kneedle       Satopaa et al. 2011 for a concave increasing curve:
 *                 normalise x and y to [0,1], difference curve
 *                 y_d = y_n - x_n, at each local maximum of y_d the threshold
 *                 T = y_d(max) - S * mean spacing of x_n; the first local
 *                 maximum after which y_d drops below its T (before the next
 *                 local maximum) is the knee;
 *   latency knee  with s_i the latency slope between points i-1 and i, the
 *                 point i-1 for the first i >= 3 where s_i exceeds three
 *                 times the median of |s_1| .. |s_(i-1)| (the median of
 *                 s when latency rises; magnitudes keep a falling latency
 *                 from making every small rise a cliff);
 *   slo           the highest load whose latency is at most the SLO;
 *   knee          in knee_analyze: the tipping point of tipping.h (the
 *                 one definition `scale` uses too); Kneedle is reported
 *                 beside it as kneedle.
 */
#ifndef HCI_KNEE_H
#define HCI_KNEE_H

#include "results/ramp.h"
#include "results/tipping.h"

struct knee_result {
        int peak;           /* index of the peak point, -1 when the ramp is empty */
        int knee;           /* the tipping point (tip.step when tip.found), or -1 */
        int kneedle;        /* Kneedle knee on points 0..peak, or -1 */
        struct res_tip tip; /* the tipping point, its reason and the USL fit */
        int latency_knee;   /* -1 when none or when some point has no latency */
        int slo;            /* -1 when none meets the SLO or no SLO was asked */
};

int knee_peak(const double *y, unsigned n);
int knee_kneedle(const double *x, const double *y, unsigned n, double sensitivity);
int knee_latency(const double *x, const double *lat, unsigned n);
int knee_slo(const double *lat, unsigned n, double slo);

/* How the tipping point's reason names the ramp's load ("VMs" for a VM count). */
const char *knee_unit(const struct ramp *r);

/* All of them on a ramp; slo_ms <= 0 means no SLO. 0, or -ENOMEM. */
int knee_analyze(const struct ramp *r, double slo_ms, struct knee_result *out);

#endif
