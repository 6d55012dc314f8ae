/*
 * scale_sum.c - a scale step's figures from its repeats (see scale.h,
 * scale_summarise()): median TPS and its spread, time-weighted means of
 * the rates, counts summed. Pure: no I/O.
 */
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

/* Step figures from its repeats: median TPS and its spread, means of the rest. */
void scale_summarise(struct scale_step *st)
{
        double tps[SCALE_MAX_REPEAT], w, wsum = 0;
        struct scale_rates *a = &st->rates;

        memset(&st->cpu, 0, sizeof(st->cpu));
        memset(&st->compute_cpu, 0, sizeof(st->compute_cpu));
        memset(a, 0, sizeof(*a));
        for (unsigned r = 0; r < st->nrep; r++) {
                const struct scale_rep *p = &st->rep[r];

                tps[r] = p->tps;
                w = p->rates.seconds;
                wsum += w;
                mon_cpu_add(&st->cpu, &p->cpu, w);
                mon_cpu_add(&st->compute_cpu, &p->compute_cpu, w);
                a->disk_util_pct += w * p->rates.disk_util_pct;
                a->disk_bytes_s += w * p->rates.disk_bytes_s;
                a->disk_iops += w * p->rates.disk_iops;
                a->disk_lat_ms += w * p->rates.disk_lat_ms;
                a->tgt_cpu_pct += w * p->rates.tgt_cpu_pct;
                a->self_cpu_pct += w * p->rates.self_cpu_pct;
                a->tgt_io_bytes_s += w * p->rates.tgt_io_bytes_s;
                a->tgt_disk_bytes_s += w * p->rates.tgt_disk_bytes_s;
                a->tgt_user_pct += w * p->rates.tgt_user_pct;
                a->tgt_sys_pct += w * p->rates.tgt_sys_pct;
                a->tgt_host_pct += w * p->rates.tgt_host_pct;
                a->host.iops += w * p->rates.host.iops;
                a->host.bytes_s += w * p->rates.host.bytes_s;
                a->host.lat_ms += w * p->rates.host.lat_ms;
                a->host.util_pct += w * p->rates.host.util_pct;
                a->vdisks = p->rates.vdisks;
                for (unsigned i = 1; i <= st->vms; i++) {
                        a->vm_cpu_pct[i] += w * p->rates.vm_cpu_pct[i];
                        a->ini_cpu_pct[i] += w * p->rates.ini_cpu_pct[i];
                        a->vd[i].iops += w * p->rates.vd[i].iops;
                        a->vd[i].bytes_s += w * p->rates.vd[i].bytes_s;
                        a->vd[i].lat_ms += w * p->rates.vd[i].lat_ms;
                        a->vd[i].util_pct += w * p->rates.vd[i].util_pct;
                        memcpy(a->vd_dev[i], p->rates.vd_dev[i], sizeof(a->vd_dev[i]));
                }
                add_throttling(a, &p->rates, st->vms, r == 0);
                a->swap_pages += p->rates.swap_pages;
                a->majflt += p->rates.majflt;
                a->failcnt += p->rates.failcnt;
                a->oom_kills += p->rates.oom_kills;
        }
        if (wsum > 0) {
                double *f[] = {&a->disk_util_pct,    &a->disk_bytes_s,  &a->disk_iops,
                               &a->disk_lat_ms,      &a->tgt_cpu_pct,   &a->tgt_io_bytes_s,
                               &a->tgt_disk_bytes_s, &a->tgt_user_pct,  &a->tgt_sys_pct,
                               &a->tgt_host_pct,     &a->host.iops,     &a->host.bytes_s,
                               &a->host.lat_ms,      &a->host.util_pct, &a->self_cpu_pct};

                mon_cpu_div(&st->cpu, wsum);
                mon_cpu_div(&st->compute_cpu, wsum);

                for (unsigned k = 0; k < sizeof(f) / sizeof(f[0]); k++)
                        *f[k] /= wsum;
                for (unsigned i = 1; i <= st->vms; i++) {
                        a->vm_cpu_pct[i] /= wsum;
                        a->ini_cpu_pct[i] /= wsum;
                        a->vd[i].iops /= wsum;
                        a->vd[i].bytes_s /= wsum;
                        a->vd[i].lat_ms /= wsum;
                        a->vd[i].util_pct /= wsum;
                }
                a->seconds = wsum;
        }
        if (!st->nrep)
                return;
        step_steady(st);
        qsort(tps, st->nrep, sizeof(tps[0]), cmp_double);
        st->tps_min = tps[0];
        st->tps_max = tps[st->nrep - 1];
        st->tps =
            st->nrep % 2 ? tps[st->nrep / 2] : (tps[st->nrep / 2 - 1] + tps[st->nrep / 2]) / 2;
}
