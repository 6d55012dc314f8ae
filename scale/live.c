/*
 * live.c - a finished scale step onto the metrics endpoint (see live.h).
 */
#include "core/metrics.h"
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
