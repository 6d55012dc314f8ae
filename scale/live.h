/*
 * live.h - scale steps on the live metrics endpoint (core/metrics.h).
 *
 * While a step runs, the OLTP intervals go out through oltp/live.h (TPS,
 * QPS, latency, errors, reconnects) and hcisweep_vms holds the step's VM
 * count. When a step ends, scale_live_step_done() adds its summary:
 * hcisweep_step_tps (median over repeats), hcisweep_steps_done, and host
 * CPU split by owner in percent of one CPU, hcisweep_step_cpu_percent with
 * owner="vms" (all VMs' cgroups), "storage" (the storage service) and
 * "host" (the whole host busy, all owners), each where the step measured it.
 */
#ifndef HCI_SCALE_LIVE_H
#define HCI_SCALE_LIVE_H

struct metrics;

/* A finished step's figures, as the endpoint shows them; CPU in % of one
 * CPU, < 0 when the step did not measure it. */
struct scale_live_step {
        unsigned vms;
        double tps;         /* median over repeats */
        double vms_cpu_pct; /* all VMs */
        double storage_cpu_pct;
        double host_cpu_pct; /* the whole host busy */
};

void scale_live_step_done(struct metrics *m, const struct scale_live_step *st, unsigned steps_done);

#endif
