/*
 * tipping.h - where adding VMs stops paying, and which resource is to blame.
 *
 * Pure arithmetic over the figures of a finished scale plan, so it can be
 * tested without servers. The tipping point is the last step before the
 * TPS gained per added VM falls below half the per-VM TPS of the first step
 * (or the TPS peak, if that comes first); there is none when the plan ends
 * while TPS still scales. The resource that limited it is read at that step:
 *   memory   swapping, OOM kills or major faults (> TIP_MAJFLT_PER_S) in a VM;
 *   storage  storage utilisation >= 90%, or storage latency more than twice
 *            that of the first step;
 *   cpu      host CPU busy (every non-idle state, steal included, iowait
 *            not) >= 90% while storage utilisation is below 70%;
 *   none     none of these.
 * Steps marked invalid (degraded, interrupted) are left out.
 */
#ifndef HCI_SCALE_TIPPING_H
#define HCI_SCALE_TIPPING_H

#include <stdint.h>

#define TIP_CPU_BUSY_PCT     90.0
#define TIP_STORAGE_BUSY_PCT 90.0
#define TIP_STORAGE_FREE_PCT 70.0
#define TIP_LAT_FACTOR       2.0
#define TIP_MAJFLT_PER_S     50.0

/* One step's figures; a figure that is not known is negative. */
struct tip_step {
        unsigned vms;
        double tps;              /* the step's TPS (median over repeats) */
        double cpu_busy_pct;     /* host, 0..100 */
        double steal_pct;        /* host, 0..100 */
        double storage_util_pct; /* busiest storage device or service, 0..100 */
        double storage_lat_ms;   /* mean storage latency */
        double majflt_per_s;     /* major faults per second, all VMs */
        uint64_t swap_pages;     /* host pages swapped in + out during the step */
        uint64_t oom_kills;      /* OOM kills in the VMs during the step */
        int valid;               /* 0: left out */
};

enum tip_limit { TIP_NONE, TIP_CPU, TIP_STORAGE, TIP_MEMORY };

struct tip_result {
        int found;    /* 1: a tipping point within the plan */
        unsigned vms; /* its VM count (0 when none) */
        int step;     /* its index into the steps, -1 when none */
        enum tip_limit limited_by;
        char reason[512]; /* one sentence citing the figures */
};

/* Analyse n steps (in plan order). Never fails; no valid step gives "none". */
void tip_find(const struct tip_step *s, unsigned n, struct tip_result *out);

/* "cpu", "storage", "memory" or "none". */
const char *tip_limit_name(enum tip_limit l);

#endif
