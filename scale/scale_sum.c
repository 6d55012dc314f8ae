/*
 * scale_sum.c - a scale step's figures from its repeats (see scale.h,
 * scale_summarise()): median TPS and its spread, time-weighted means of
 * the rates over the windows that read them (unknown stays unknown: -1,
 * null in the result, never averaged in), counts summed. Pure: no I/O.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "scale/scale.h"

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;

        return x < y ? -1 : x > y;
}

/* The step's steady state from its repeats': a step met --target-ci only if every run did. */
static void step_steady(struct scale_step *st)
{
        struct steady_res *a = &st->steady;

        st->have_steady = st->rep[0].have_steady;
        if (!st->have_steady)
                return;
        *a = st->rep[0].steady;
        for (unsigned r = 1; r < st->nrep; r++) {
                const struct steady_res *b = &st->rep[r].steady;

                a->warmup_s += b->warmup_s;
                a->measured_s += b->measured_s;
                if (b->ci_pct < 0 || (a->ci_pct >= 0 && b->ci_pct > a->ci_pct))
                        a->ci_pct = b->ci_pct < 0 ? -1 : b->ci_pct;
                a->met &= b->met;
                a->settled &= b->settled;
        }
}

/* The repeats' cgroup counts, summed (unknown in one: unknown); usage from the cgroup in all. */
static void add_throttling(struct scale_rates *a, const struct scale_rates *b, unsigned vms,
                           int first)
{
        for (unsigned i = 1; i <= vms; i++) {
                double *sum[] = {&a->vm_periods[i], &a->vm_throttled[i], &a->vm_throttled_s[i]};
                const double add[] = {b->vm_periods[i], b->vm_throttled[i], b->vm_throttled_s[i]};

                for (unsigned k = 0; k < 3; k++)
                        *sum[k] = first || (*sum[k] >= 0 && add[k] >= 0) ? *sum[k] + add[k] : -1;
                a->vm_cpu_cg[i] = (first || a->vm_cpu_cg[i]) && b->vm_cpu_cg[i];
        }
}

/*
 * A repeat's CPU split into the step's mean, weighted by its seconds, only
 * when the repeat read one (all zero: the monitor had no sample for its
 * window), so a window without a reading does not pull the mean to idle.
 */
static void cpu_add(struct mon_cpu *acc, const struct mon_cpu *c, double w, double *wsum)
{
        double total =
            c->user + c->nice + c->system + c->iowait + c->irq + c->softirq + c->steal + c->idle;

        if (total <= 0 || w <= 0)
                return;
        mon_cpu_add(acc, c, w);
        *wsum += w;
}

/* The rates averaged over the repeats, by their offset in struct scale_rates. */
#define RATE(f) offsetof(struct scale_rates, f)
static const size_t step_rates[] = {
    RATE(disk_util_pct), RATE(disk_bytes_s),   RATE(disk_iops),        RATE(disk_lat_ms),
    RATE(tgt_cpu_pct),   RATE(tgt_io_bytes_s), RATE(tgt_disk_bytes_s), RATE(tgt_user_pct),
    RATE(tgt_sys_pct),   RATE(tgt_host_pct),   RATE(host.iops),        RATE(host.bytes_s),
    RATE(host.lat_ms),   RATE(host.util_pct),  RATE(self_cpu_pct)};
#define NVM_RATES 6
#undef RATE

/* VM i's k-th averaged rate: its CPU, its initiator's, its disk's four. */
static size_t vm_rate(unsigned i, unsigned k)
{
        const size_t d = offsetof(struct scale_rates, vd) + i * sizeof(struct scale_drate);
        const size_t off[NVM_RATES] = {
            offsetof(struct scale_rates, vm_cpu_pct) + i * sizeof(double),
            offsetof(struct scale_rates, ini_cpu_pct) + i * sizeof(double),
            d + offsetof(struct scale_drate, iops),
            d + offsetof(struct scale_drate, bytes_s),
            d + offsetof(struct scale_drate, lat_ms),
            d + offsetof(struct scale_drate, util_pct)};

        return off[k];
}

static double rate_at(const struct scale_rates *r, size_t off)
{
        return *(const double *)(const void *)((const char *)r + off);
}

/*
 * The time-weighted mean of the rate at off over the repeats whose window
 * read it (>= 0): a window that could not read it is left out and the
 * weights of the others renormalised; -1 (unknown, null in the result)
 * when no window read it.
 */
static void mean_rate(struct scale_step *st, size_t off)
{
        double sum = 0, wsum = 0;

        for (unsigned r = 0; r < st->nrep; r++) {
                double v = rate_at(&st->rep[r].rates, off), w = st->rep[r].rates.seconds;

                if (v >= 0 && w > 0) {
                        sum += w * v;
                        wsum += w;
                }
        }
        *(double *)(void *)((char *)&st->rates + off) = wsum > 0 ? sum / wsum : -1;
}

/* Step figures from its repeats: median TPS and its spread, means of the rest. */
void scale_summarise(struct scale_step *st)
{
        double tps[SCALE_MAX_REPEAT], w, wsum = 0, cpu_w = 0, compute_w = 0;
        struct scale_rates *a = &st->rates;

        memset(&st->cpu, 0, sizeof(st->cpu));
        memset(&st->compute_cpu, 0, sizeof(st->compute_cpu));
        memset(a, 0, sizeof(*a));
        for (unsigned k = 0; k < sizeof(step_rates) / sizeof(step_rates[0]); k++)
                mean_rate(st, step_rates[k]);
        for (unsigned i = 1; i <= st->vms; i++)
                for (unsigned k = 0; k < NVM_RATES; k++)
                        mean_rate(st, vm_rate(i, k));
        for (unsigned r = 0; r < st->nrep; r++) {
                const struct scale_rep *p = &st->rep[r];

                tps[r] = p->tps;
                w = p->rates.seconds;
                wsum += w;
                cpu_add(&st->cpu, &p->cpu, w, &cpu_w);
                cpu_add(&st->compute_cpu, &p->compute_cpu, w, &compute_w);
                a->vdisks = p->rates.vdisks;
                for (unsigned i = 1; i <= st->vms; i++)
                        memcpy(a->vd_dev[i], p->rates.vd_dev[i], sizeof(a->vd_dev[i]));
                add_throttling(a, &p->rates, st->vms, r == 0);
                a->swap_pages += p->rates.swap_pages;
                a->majflt += p->rates.majflt;
                a->failcnt += p->rates.failcnt;
                a->oom_kills += p->rates.oom_kills;
        }
        if (!st->nrep)
                for (unsigned i = 1; i <= st->vms; i++)
                        a->vm_periods[i] = a->vm_throttled[i] = a->vm_throttled_s[i] = -1;
        if (cpu_w > 0)
                mon_cpu_div(&st->cpu, cpu_w);
        if (compute_w > 0)
                mon_cpu_div(&st->compute_cpu, compute_w);
        if (wsum > 0)
                a->seconds = wsum;
        if (!st->nrep)
                return;
        step_steady(st);
        qsort(tps, st->nrep, sizeof(tps[0]), cmp_double);
        st->tps_min = tps[0];
        st->tps_max = tps[st->nrep - 1];
        st->tps =
            st->nrep % 2 ? tps[st->nrep / 2] : (tps[st->nrep / 2 - 1] + tps[st->nrep / 2]) / 2;
}
