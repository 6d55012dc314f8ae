/*
 * usl.c - a least-squares fit of Gunther's Universal Scalability Law.
 *
 * N / X(N) = (1 + sigma (N-1) + kappa N (N-1)) / lambda is linear in
 * c = (1/lambda, sigma/lambda, kappa/lambda), so the fit is a linear least
 * squares on N/X. An error dX in throughput moves N/X by about N dX / X^2,
 * so each point is weighted by (X^2 / N)^2 to make the fit minimise errors
 * in throughput, the units a reader sees. sigma and kappa must not be
 * negative (a negative contention would mean superlinear scaling the law
 * does not describe): every subset of {sigma, kappa} is fitted and the
 * feasible one with the smallest throughput rmse wins, which is the
 * constrained optimum for a problem this small.
 */
#include <math.h>
#include <string.h>

#include "results/tipping.h"

#define NPAR 3

static double basis(unsigned j, double x)
{
        return j == 0 ? 1.0 : j == 1 ? x - 1 : x * (x - 1);
}

/* Solve the m x m system a c = b in place (partial pivoting); 0, or -1 when singular. */
static int solve(double a[NPAR][NPAR], double *b, unsigned m, double *c)
{
        for (unsigned i = 0; i < m; i++) {
                unsigned p = i;

                for (unsigned r = i + 1; r < m; r++)
                        if (fabs(a[r][i]) > fabs(a[p][i]))
                                p = r;
                if (fabs(a[p][i]) < 1e-300)
                        return -1;
                for (unsigned k = 0; k < m; k++) {
                        double t = a[i][k];

                        a[i][k] = a[p][k], a[p][k] = t;
                }
                double t = b[i];

                b[i] = b[p], b[p] = t;
                for (unsigned r = i + 1; r < m; r++) {
                        double f = a[r][i] / a[i][i];

                        for (unsigned k = i; k < m; k++)
                                a[r][k] -= f * a[i][k];
                        b[r] -= f * b[i];
                }
        }
        for (unsigned i = m; i-- > 0;) {
                double s = b[i];

                for (unsigned k = i + 1; k < m; k++)
                        s -= a[i][k] * c[k];
                c[i] = s / a[i][i];
        }
        return 0;
}

static double model(const double *c, double x)
{
        double d = c[0] + c[1] * (x - 1) + c[2] * x * (x - 1);

        return d > 0 ? x / d : NAN;
}

/* Fit the parameters in mask (bit j: c[j] free; c[0] always); rmse, or NAN when infeasible. */
static double fit_subset(const double *x, const double *y, unsigned n, unsigned mask, double *c)
{
        double a[NPAR][NPAR] = {{0}}, b[NPAR] = {0}, sol[NPAR] = {0}, wmax = 0, ss = 0;
        unsigned idx[NPAR], m = 0, used = 0;

        for (unsigned j = 0; j < NPAR; j++)
                if (j == 0 || (mask & (1u << j)))
                        idx[m++] = j;
        for (unsigned i = 0; i < n; i++)
                if (x[i] > 0 && y[i] > 0)
                        wmax = fmax(wmax, pow(y[i] * y[i] / x[i], 2));
        for (unsigned i = 0; i < n; i++) {
                double w, t;

                if (!(x[i] > 0 && y[i] > 0))
                        continue;
                w = pow(y[i] * y[i] / x[i], 2) / wmax;
                t = x[i] / y[i];
                for (unsigned r = 0; r < m; r++) {
                        for (unsigned k = 0; k < m; k++)
                                a[r][k] += w * basis(idx[r], x[i]) * basis(idx[k], x[i]);
                        b[r] += w * basis(idx[r], x[i]) * t;
                }
                used++;
        }
        if (used < m || solve(a, b, m, sol))
                return NAN;
        memset(c, 0, NPAR * sizeof(*c));
        for (unsigned r = 0; r < m; r++)
                c[idx[r]] = sol[r];
        if (!(c[0] > 0) || c[1] < 0 || c[2] < 0)
                return NAN;
        for (unsigned i = 0; i < n; i++) {
                double f;

                if (!(x[i] > 0 && y[i] > 0))
                        continue;
                f = model(c, x[i]);
                if (isnan(f))
                        return NAN;
                ss += (f - y[i]) * (f - y[i]);
        }
        return sqrt(ss / used);
}

void res_usl_fit(const double *x, const double *y, unsigned n, struct res_usl *out)
{
        double best = NAN, c[NPAR], bc[NPAR] = {0}, ymax = 0;
        unsigned pts = 0;

        memset(out, 0, sizeof(*out));
        out->lambda = out->sigma = out->kappa = out->peak_load = out->rmse = NAN;
        for (unsigned i = 0; i < n; i++) {
                pts += x[i] > 0 && y[i] > 0;
                ymax = fmax(ymax, y[i]);
        }
        if (pts < 2)
                return;
        for (unsigned mask = 0; mask < 4; mask++) {
                double e = fit_subset(x, y, n, mask << 1, c);

                /* ties (within rounding) go to the simpler law: sigma before kappa */
                if (!isnan(e) && (isnan(best) || e < best - 1e-9 * ymax)) {
                        best = e;
                        memcpy(bc, c, sizeof(bc));
                }
        }
        if (isnan(best))
                return;
        out->ok = 1;
        out->lambda = 1 / bc[0];
        out->sigma = bc[1] / bc[0];
        out->kappa = bc[2] / bc[0];
        out->rmse = best;
        if (out->kappa > 0 && out->sigma < 1)
                out->peak_load = sqrt((1 - out->sigma) / out->kappa);
}

double res_usl_eval(const struct res_usl *u, double x)
{
        double d;

        if (!u->ok)
                return NAN;
        d = 1 + u->sigma * (x - 1) + u->kappa * x * (x - 1);
        return d > 0 ? u->lambda * x / d : NAN;
}
