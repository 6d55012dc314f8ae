/*
 * tipping.c - the tipping point of a scale plan and the resource that
 * limited it (see tipping.h for the rules). Figures are cited in the reason
 * sentence so a reader can check the verdict without the JSON.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scale/tipping.h"

const char *tip_limit_name(enum tip_limit l)
{
        static const char *const names[] = {"none", "cpu", "storage", "memory"};

        return (unsigned)l < sizeof(names) / sizeof(names[0]) ? names[l] : "none";
}

static int memory_pressed(const struct tip_step *s)
{
        return s->oom_kills > 0 || s->swap_pages > 0 || s->majflt_per_s > TIP_MAJFLT_PER_S;
}

static int latency_doubled(const struct tip_step *s, const struct tip_step *first)
{
        return s->storage_lat_ms >= 0 && first->storage_lat_ms > 0 &&
               s->storage_lat_ms > TIP_LAT_FACTOR * first->storage_lat_ms;
}

/* Which resource, and the clause that says why. Utilisation beats CPU,
 * CPU beats a latency rise (CPU contention alone slows storage down). */
static enum tip_limit attribute(const struct tip_step *s, const struct tip_step *first, char *why,
                                size_t len)
{
        if (memory_pressed(s)) {
                snprintf(why, len,
                         "memory: %llu OOM kill(s), %llu page(s) swapped, %.0f major "
                         "faults/s",
                         (unsigned long long)s->oom_kills, (unsigned long long)s->swap_pages,
                         s->majflt_per_s);
                return TIP_MEMORY;
        }
        if (s->storage_util_pct >= TIP_STORAGE_BUSY_PCT) {
                snprintf(why, len, "storage: the datadirs' disk was %.0f%% utilised (>= %.0f%%)",
                         s->storage_util_pct, TIP_STORAGE_BUSY_PCT);
                return TIP_STORAGE;
        }
        if (s->cpu_busy_pct >= TIP_CPU_BUSY_PCT && s->storage_util_pct < TIP_STORAGE_FREE_PCT) {
                char st[64] = "not measured";

                if (s->storage_util_pct >= 0)
                        snprintf(st, sizeof(st), "%.0f%% utilised", s->storage_util_pct);
                snprintf(why, len,
                         "cpu: the host was %.0f%% busy (>= %.0f%%, steal %.1f%%) while storage "
                         "was %s",
                         s->cpu_busy_pct, TIP_CPU_BUSY_PCT, s->steal_pct, st);
                return TIP_CPU;
        }
        if (latency_doubled(s, first)) {
                snprintf(why, len,
                         "storage: its latency was %.2f ms, more than %.0fx the first step's "
                         "%.2f ms",
                         s->storage_lat_ms, TIP_LAT_FACTOR, first->storage_lat_ms);
                return TIP_STORAGE;
        }
        snprintf(why, len,
                 "no resource at its limit: host CPU %.0f%% busy, storage %.0f%% "
                 "utilised, no memory pressure",
                 s->cpu_busy_pct, s->storage_util_pct < 0 ? 0 : s->storage_util_pct);
        return TIP_NONE;
}

/* Index (into idx[]) of the last step before the gain per added VM drops
 * below half the first step's per-VM TPS, or -1 if it never does. */
static int gain_break(const struct tip_step *s, const int *idx, int m, double base, double *gain)
{
        for (int k = 1; k < m; k++) {
                const struct tip_step *a = &s[idx[k - 1]], *b = &s[idx[k]];

                if (b->vms <= a->vms)
                        continue;
                *gain = (b->tps - a->tps) / (double)(b->vms - a->vms);
                if (*gain < base / 2)
                        return k - 1;
        }
        return -1;
}

void tip_find(const struct tip_step *s, unsigned n, struct tip_result *out)
{
        int idx[256], m = 0, k, peak;
        double base, gain = 0;
        char why[300];

        memset(out, 0, sizeof(*out));
        out->step = -1;
        for (unsigned i = 0; i < n && m < 256; i++)
                if (s[i].valid && s[i].vms > 0)
                        idx[m++] = (int)i;
        if (m == 0) {
                snprintf(out->reason, sizeof(out->reason), "no step completed");
                return;
        }
        base = s[idx[0]].tps / (double)s[idx[0]].vms;
        k = gain_break(s, idx, m, base, &gain);
        if (k < 0) {
                snprintf(out->reason, sizeof(out->reason),
                         "TPS still grew by at least half the first step's %.0f TPS per VM at "
                         "every step up to %u VMs: no tipping point within the plan",
                         base, s[idx[m - 1]].vms);
                return;
        }
        peak = 0;
        for (int j = 1; j <= k; j++)
                if (s[idx[j]].tps > s[idx[peak]].tps)
                        peak = j;
        const struct tip_step *t = &s[idx[peak]];

        out->found = 1;
        out->step = idx[peak];
        out->vms = t->vms;
        out->limited_by = attribute(t, &s[idx[0]], why, sizeof(why));
        snprintf(out->reason, sizeof(out->reason),
                 "%.0f TPS at %u VMs; the next step gained %.0f TPS per added VM, below half the "
                 "first step's %.0f TPS per VM; at %u VMs, %s",
                 t->tps, t->vms, round(gain) + 0.0 /* no "-0" */, base, t->vms, why);
}
