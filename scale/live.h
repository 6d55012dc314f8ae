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

/*
 * --driver-placement vm: no engine runs here, so the intervals come from
 * the drivers (`oltp run --live-intervals`: a sample line per report
 * interval, core/driverproto.h, over whichever carrier). Each VM's are
 * served with a vm="N" label and their aggregate without one, under the
 * names oltp/live.h uses: hcisweep_transactions_total and
 * hcisweep_errors_total (per VM monotonic across runs and steps: a new
 * run's driver starts from the VM's total so far), hcisweep_tps (the last
 * interval; the aggregate sums the step's VMs), hcisweep_latency_seconds
 * (a summary of the histogram merged bucket by bucket over the step so
 * far; quantiles within 1/64 when a driver pooled buckets to fit its
 * line), hcisweep_elapsed_seconds. Called on the controller's one loop.
 */
struct scale_live_vms;
struct dp_msg;

/* NULL when m is NULL (metrics off) or on ENOMEM. */
struct scale_live_vms *scale_live_vms_new(struct metrics *m);
void scale_live_vms_free(struct scale_live_vms *l);

/* A measured run of vms drivers begins (each driver counts from 0 again). NULL: no-op. */
void scale_live_vms_run(struct scale_live_vms *l, unsigned vms);

/* VM vm's (1-based) report-interval sample (m->iv_s > 0; others ignored). NULL: no-op. */
void scale_live_vms_sample(struct scale_live_vms *l, unsigned vm, const struct dp_msg *m);

#endif
