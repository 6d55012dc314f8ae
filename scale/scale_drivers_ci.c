/*
 * scale_drivers_ci.c - the steady-state rule on the drivers' merged
 * throughput (scale_drivers_ci.h).
 */
#include "scale/scale_drivers_ci.h"

#include <stdlib.h>

#include "lab/backend.h"

#define RING      16 /* samples kept per driver: MERGE_LAG and the one before */
#define MERGE_LAG 4  /* samples (2 s) a driver may be ahead of the slowest one */

struct ci_drv {
        double t[RING];
        uint64_t done[RING];
        unsigned n; /* samples given */
        int gone;
};

struct drivers_ci {
        struct steady *st;
        unsigned n, next; /* drivers; the next sample to merge */
        struct ci_drv d[LAB_MAX_VMS];
};

struct drivers_ci *drivers_ci_new(unsigned n, double target_ci_pct, double warmup_max_s,
                                  double measure_max_s)
{
        struct drivers_ci *c = calloc(1, sizeof(*c));

        if (!c || n > LAB_MAX_VMS ||
            !(c->st = steady_new(&(struct steady_cfg){.target_ci_pct = target_ci_pct,
                                                      .sample_s = STEADY_SAMPLE_S,
                                                      .warmup_max_s = warmup_max_s,
                                                      .measure_max_s = measure_max_s}))) {
                free(c);
                return NULL;
        }
        c->n = n;
        return c;
}

void drivers_ci_free(struct drivers_ci *c)
{
        if (c)
                steady_free(c->st);
        free(c);
}

void drivers_ci_sample(struct drivers_ci *c, unsigned i, double since_go_s, uint64_t done)
{
        struct ci_drv *d;

        if (i >= c->n || (d = &c->d[i])->gone)
                return;
        d->t[d->n % RING] = since_go_s;
        d->done[d->n % RING] = done;
        d->n++;
}

void drivers_ci_gone(struct drivers_ci *c, unsigned i)
{
        if (i < c->n)
                c->d[i].gone = 1;
}

/* 1 when sample k can be merged: every running driver has it, or one is far ahead. */
static int can_merge(const struct drivers_ci *c, unsigned k)
{
        int all = 1, any = 0;

        for (unsigned i = 0; i < c->n; i++) {
                const struct ci_drv *d = &c->d[i];

                if (d->n > k + MERGE_LAG)
                        return 1;
                any |= d->n > k;
                all &= d->gone || d->n > k;
        }
        return any && all;
}

/* Driver d's rate over its sample k; 0 when it has not given it (or no longer holds it). */
static double rate_of(const struct ci_drv *d, unsigned k)
{
        double t0 = 0, t1;
        uint64_t n0 = 0, n1;

        if (d->n <= k || d->n - k > RING - 1)
                return 0;
        t1 = d->t[k % RING];
        n1 = d->done[k % RING];
        if (k) {
                t0 = d->t[(k - 1) % RING];
                n0 = d->done[(k - 1) % RING];
        }
        return t1 > t0 && n1 >= n0 ? (double)(n1 - n0) / (t1 - t0) : 0;
}

enum steady_phase drivers_ci_merge(struct drivers_ci *c)
{
        while (steady_phase(c->st) != STEADY_DONE && can_merge(c, c->next)) {
                double sum = 0;

                for (unsigned i = 0; i < c->n; i++)
                        sum += rate_of(&c->d[i], c->next);
                steady_add(c->st, sum);
                c->next++;
        }
        return steady_phase(c->st);
}

void drivers_ci_result(const struct drivers_ci *c, struct steady_res *r, double *left_s)
{
        steady_result(c->st, r);
        if (left_s)
                *left_s = steady_left_s(c->st);
}
