/*
 * live.c - a finished scale step onto the metrics endpoint (see live.h).
 */
#include <unistd.h>

#include "core/metrics.h"
#include "scale/live.h"
#include "scale/scale.h"

void scale_live_step_done(struct metrics *m, const struct scale_step *st, unsigned steps_done)
{
        const struct scale_rates *r = &st->rates;
        double vms = 0;
        int have_vms = 0;

        if (!m)
                return;
        for (unsigned i = 1; i <= st->vms; i++)
                if (r->vm_cpu_pct[i] >= 0) {
                        vms += r->vm_cpu_pct[i];
                        have_vms = 1;
                }
        metrics_gauge(m, "step_tps", NULL, "TPS of the last finished step (median of repeats)",
                      st->tps);
        metrics_gauge(m, "step_vms", NULL, "VM count of the last finished step", st->vms);
        metrics_counter(m, "steps_done", NULL, "scale steps finished", steps_done);
        if (have_vms)
                metrics_gauge(m, "step_cpu_percent", "owner=\"vms\"",
                              "CPU of the last finished step by owner, percent of one CPU", vms);
        if (r->tgt_cpu_pct >= 0)
                metrics_gauge(m, "step_cpu_percent", "owner=\"storage\"", NULL, r->tgt_cpu_pct);
        metrics_gauge(m, "step_cpu_percent", "owner=\"host\"", NULL,
                      scale_cpu_busy(&st->cpu) * (double)sysconf(_SC_NPROCESSORS_ONLN));
}
