/*
 * live.c - scale on the metrics endpoint (see live.h): a finished step's
 * summary, and the report intervals of drivers in the VMs, merged.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/driverproto.h"
#include "core/metrics.h"
#include "lab/backend.h"
#include "scale/live.h"

void scale_live_step_done(struct metrics *m, const struct scale_live_step *st, unsigned steps_done)
{
        if (!m)
                return;
        metrics_gauge(m, "step_tps", NULL, "TPS of the last finished step (median of repeats)",
                      st->tps);
        metrics_gauge(m, "step_vms", NULL, "VM count of the last finished step", st->vms);
        metrics_counter(m, "steps_done", NULL, "scale steps finished", steps_done);
        if (st->vms_cpu_pct >= 0)
                metrics_gauge(m, "step_cpu_percent", "owner=\"vms\"",
                              "CPU of the last finished step by owner, percent of one CPU",
                              st->vms_cpu_pct);
        if (st->storage_cpu_pct >= 0)
                metrics_gauge(m, "step_cpu_percent", "owner=\"storage\"", NULL,
                              st->storage_cpu_pct);
        metrics_gauge(m, "step_cpu_percent", "owner=\"host\"", NULL, st->host_cpu_pct);
}

/* ---- drivers in the VMs: their report intervals, merged -------------------------- */

struct vm_fig {
        uint64_t base_txns, base_errors; /* what earlier runs' drivers did */
        uint64_t txns, errors;           /* this run's driver, so far (its sample's) */
        double tps;                      /* its last interval's */
        struct hist *lat;                /* merged over the step so far */
};

struct scale_live_vms {
        struct metrics *m;
        unsigned vms; /* of the step */
        struct hist *all;
        struct vm_fig v[LAB_MAX_VMS];
};

static const double quantiles[] = {0.5, 0.9, 0.95, 0.99, 0.999};
#define NQ (sizeof(quantiles) / sizeof(quantiles[0]))

struct scale_live_vms *scale_live_vms_new(struct metrics *m)
{
        struct scale_live_vms *l;

        if (!m || !(l = calloc(1, sizeof(*l))))
                return NULL;
        l->m = m;
        if (!(l->all = hist_new())) {
                free(l);
                return NULL;
        }
        for (unsigned i = 0; i < LAB_MAX_VMS; i++)
                if (!(l->v[i].lat = hist_new())) {
                        scale_live_vms_free(l);
                        return NULL;
                }
        return l;
}

void scale_live_vms_free(struct scale_live_vms *l)
{
        if (!l)
                return;
        for (unsigned i = 0; i < LAB_MAX_VMS; i++)
                hist_free(l->v[i].lat);
        hist_free(l->all);
        free(l);
}

void scale_live_vms_run(struct scale_live_vms *l, unsigned vms)
{
        if (!l)
                return;
        if (vms != l->vms) { /* a new step: its latency starts again */
                hist_reset(l->all);
                for (unsigned i = 0; i < LAB_MAX_VMS; i++)
                        hist_reset(l->v[i].lat);
        }
        l->vms = vms < LAB_MAX_VMS ? vms : LAB_MAX_VMS;
        for (unsigned i = 0; i < LAB_MAX_VMS; i++) {
                struct vm_fig *f = &l->v[i];

                f->base_txns += f->txns;
                f->base_errors += f->errors;
                f->txns = f->errors = 0;
                f->tps = 0;
        }
}

/* The aggregate: counters summed over every VM (each monotonic, so is their sum), the TPS
 * of the step's VMs' last intervals, the latency of all of them merged. */
static void publish_all(struct scale_live_vms *l, double elapsed_s)
{
        double txns = 0, errors = 0, tps = 0;

        for (unsigned i = 0; i < LAB_MAX_VMS; i++) {
                txns += (double)(l->v[i].base_txns + l->v[i].txns);
                errors += (double)(l->v[i].base_errors + l->v[i].errors);
                if (i < l->vms)
                        tps += l->v[i].tps;
        }
        metrics_counter(l->m, "transactions", NULL, "transactions committed", txns);
        metrics_counter(l->m, "errors", NULL, "transactions rolled back on an ignored error",
                        errors);
        metrics_gauge(l->m, "tps", NULL, "transactions per second in the last report interval",
                      tps);
        metrics_gauge(l->m, "elapsed_seconds", NULL, "measured seconds so far", elapsed_s);
        metrics_summary(l->m, "latency_seconds", NULL,
                        "transaction latency, histogram merged over the run or step so far", l->all,
                        quantiles, NQ);
}

void scale_live_vms_sample(struct scale_live_vms *l, unsigned vm, const struct dp_msg *m)
{
        struct vm_fig *f;
        char lab[32];

        if (!l || !vm || vm > LAB_MAX_VMS || !(m->iv_s > 0))
                return;
        f = &l->v[vm - 1];
        /* a sample's figures are its driver's so far: one out of order never goes back */
        f->tps = m->done > f->txns ? (double)(m->done - f->txns) / m->iv_s : 0;
        if (m->done > f->txns)
                f->txns = m->done;
        if (m->errors > f->errors)
                f->errors = m->errors;
        dp_lat_add(m->lat, m->latlen, f->lat); /* checked when it was decoded */
        dp_lat_add(m->lat, m->latlen, l->all);
        snprintf(lab, sizeof(lab), "vm=\"%u\"", vm);
        metrics_counter(l->m, "transactions", lab, NULL, (double)(f->base_txns + f->txns));
        metrics_counter(l->m, "errors", lab, NULL, (double)(f->base_errors + f->errors));
        metrics_gauge(l->m, "tps", lab, NULL, f->tps);
        metrics_summary(l->m, "latency_seconds", lab, NULL, f->lat, quantiles, NQ);
        publish_all(l, m->t_s);
}
