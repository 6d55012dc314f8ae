/*
 * steady_merge.c - the steady-state rule on many drivers' merged
 * throughput (steady_merge.h).
 */
#include "core/steady_merge.h"

#include <stdlib.h>

#define RING 16 /* samples kept per driver: STEADY_MERGE_LAG and the one before, with room */

struct sm_drv {
        double t[RING];
        uint64_t done[RING];
        unsigned n; /* samples given */
        int gone;
};

struct steady_merge {
        struct steady *st;
        unsigned n, next; /* drivers; the next sample to merge */
        struct sm_drv *d; /* n of them */
};

struct steady_merge *steady_merge_new(unsigned n, double target_ci_pct, double warmup_max_s,
                                      double measure_max_s)
{
        struct steady_merge *c = n ? calloc(1, sizeof(*c)) : NULL;

        if (!c)
                return NULL;
        c->n = n;
        c->d = calloc(n, sizeof(*c->d));
        c->st = steady_new(&(struct steady_cfg){.target_ci_pct = target_ci_pct,
                                                .sample_s = STEADY_SAMPLE_S,
                                                .warmup_max_s = warmup_max_s,
                                                .measure_max_s = measure_max_s});
        if (!c->d || !c->st) {
                steady_merge_free(c);
                return NULL;
        }
        return c;
}

void steady_merge_free(struct steady_merge *c)
{
        if (!c)
                return;
        steady_free(c->st);
        free(c->d);
        free(c);
}

void steady_merge_sample(struct steady_merge *c, unsigned i, double since_go_s, uint64_t done)
{
        struct sm_drv *d;

        if (i >= c->n || (d = &c->d[i])->gone)
                return;
        d->t[d->n % RING] = since_go_s;
        d->done[d->n % RING] = done;
        d->n++;
}

void steady_merge_gone(struct steady_merge *c, unsigned i)
{
        if (i < c->n)
                c->d[i].gone = 1;
}

/* 1 when sample k can be merged: every running driver has it, or one is far ahead. */
static int can_merge(const struct steady_merge *c, unsigned k)
{
        int all = 1, any = 0;

        for (unsigned i = 0; i < c->n; i++) {
                const struct sm_drv *d = &c->d[i];

                if (d->n > k + STEADY_MERGE_LAG)
                        return 1;
                any |= d->n > k;
                all &= d->gone || d->n > k;
        }
        return any && all;
}

/* Driver d's rate over its sample k; 0 when it has not given it (or no longer holds it). */
static double rate_of(const struct sm_drv *d, unsigned k)
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

enum steady_phase steady_merge_run(struct steady_merge *c)
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

enum steady_phase steady_merge_steer(struct steady_merge *c, enum steady_phase *told,
                                     void (*tell)(void *arg, enum dp_kind kind), void *arg)
{
        enum steady_phase ph = steady_merge_run(c);

        if (ph > STEADY_WARMUP && *told < STEADY_MEASURE)
                tell(arg, DP_MEASURE);
        if (ph == STEADY_DONE && *told < STEADY_DONE)
                tell(arg, DP_STOP);
        if (ph > *told)
                *told = ph;
        return ph;
}

void steady_merge_result(const struct steady_merge *c, struct steady_res *r, double *left_s)
{
        steady_result(c->st, r);
        if (left_s)
                *left_s = steady_left_s(c->st);
}
