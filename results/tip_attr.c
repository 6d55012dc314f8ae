/*
 * tip_attr.c - which resource stopped the scaling (tipping.h has the rules).
 *
 * The resource is read from the step after the tipping point compared with
 * the tipping step itself: at the tipping point the system still scaled, so
 * the resource that gave out shows where the gain collapsed. Memory comes
 * first (swapping makes everything else look busy), then the HCI effect the
 * tool exists to find (host CPU saturated while the storage service's share
 * of it stays flat or falls and its latency rises: compute is starving
 * storage), then the VMs' own quotas with host CPU to spare (a VM
 * throttled much of the step cannot issue the I/O that would load the
 * storage, so its quota comes before the storage), then a saturated
 * storage device or a storage latency that more than doubled, both with
 * CPU to spare, then a saturated host CPU.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results/tipping.h"

const char *res_tip_limit_name(enum res_tip_limit l)
{
        static const char *const names[] = {"none", "cpu", "storage", "vm-cpu", "memory"};

        return (unsigned)l < sizeof(names) / sizeof(names[0]) ? names[l] : "none";
}

static int known(double v)
{
        return !isnan(v);
}

static int memory_pressed(const struct res_tip_res *r)
{
        return (known(r->oom_kills) && r->oom_kills > 0) ||
               (known(r->swap_pages) && r->swap_pages > 0) ||
               (known(r->majflt_per_s) && r->majflt_per_s > RES_TIP_MAJFLT_PER_S);
}

static int sat(double v)
{
        return known(v) && v >= RES_TIP_SAT_PCT;
}

/* The compute layer's busy CPU: its own CPUs' when it has some (two-layer),
 * else the host's. */
static double cpu_of(const struct res_tip_res *r)
{
        return known(r->compute_cpu_pct) ? r->compute_cpu_pct : r->cpu_busy_pct;
}

static int cpu_left(const struct res_tip_res *r)
{
        return !known(cpu_of(r)) || cpu_of(r) < RES_TIP_SAT_PCT;
}

static int vm_quota_sat(const struct res_tip_res *r)
{
        return sat(r->vm_cpu_pct) ||
               (known(r->vm_throttled_pct) && r->vm_throttled_pct >= RES_TIP_THROTTLE_PCT) ||
               (known(r->vm_throttled_time_pct) &&
                r->vm_throttled_time_pct >= RES_TIP_THROTTLE_TIME_PCT);
}

/* Storage's CPU share flat or falling while its latency rose. */
static int storage_starved(const struct res_tip_res *t, const struct res_tip_res *a)
{
        return known(t->storage_cpu_pct) && known(a->storage_cpu_pct) &&
               t->storage_cpu_pct >= RES_TIP_STORAGE_CPU_MIN &&
               a->storage_cpu_pct <= t->storage_cpu_pct * RES_TIP_FLAT + 0.5 &&
               known(t->storage_lat_ms) && known(a->storage_lat_ms) && t->storage_lat_ms > 0 &&
               a->storage_lat_ms >= t->storage_lat_ms * RES_TIP_LAT_RISE;
}

static int lat_up(const struct res_tip_res *t, const struct res_tip_res *a)
{
        return known(t->storage_lat_ms) && known(a->storage_lat_ms) && t->storage_lat_ms > 0 &&
               a->storage_lat_ms > t->storage_lat_ms * RES_TIP_LAT_FACTOR;
}

struct text {
        char *s;
        size_t len, at;
};

/* Append fmt with a (and b) when the figures it prints are known. */
static void put(struct text *t, const char *fmt, double a, double b, const char *sep)
{
        char one[160];
        int n;

        if (isnan(a) || (strstr(fmt, "->") && isnan(b)))
                return;
        /* a format prints a alone, or a and b ("->"): b is then unused, which is defined */
        // cppcheck-suppress wrongPrintfScanfArgNum
        n = snprintf(one, sizeof(one), fmt, a, b);
        if (n < 0 || t->at >= t->len)
                return;
        n = snprintf(t->s + t->at, t->len - t->at, "%s%s", t->at ? sep : "", one);
        if (n > 0)
                t->at += (size_t)n < t->len - t->at ? (size_t)n : t->len - t->at - 1;
}

/* "host CPU 85% -> 99% busy, ..." with the figures both steps have. */
static void both_steps(const struct res_tip_res *t, const struct res_tip_res *a, char *buf,
                       size_t len)
{
        struct text x = {buf, len, 0};

        buf[0] = '\0';
        put(&x, "compute CPUs (the VMs' own) %.0f%% -> %.0f%% busy", t->compute_cpu_pct,
            a->compute_cpu_pct, ", ");
        put(&x, "host CPU %.0f%% -> %.0f%% busy", t->cpu_busy_pct, a->cpu_busy_pct, ", ");
        put(&x, "storage service CPU %.1f%% -> %.1f%% of the host", t->storage_cpu_pct,
            a->storage_cpu_pct, ", ");
        put(&x, "its user CPU %.1f%% -> %.1f%% of one CPU", t->storage_cpu_user_pct,
            a->storage_cpu_user_pct, ", ");
        put(&x, "its system CPU %.1f%% -> %.1f%% of one CPU", t->storage_cpu_sys_pct,
            a->storage_cpu_sys_pct, ", ");
        put(&x, "storage latency %.2f -> %.2f ms", t->storage_lat_ms, a->storage_lat_ms, ", ");
        put(&x, "storage %.0f%% -> %.0f%% utilised", t->storage_util_pct, a->storage_util_pct,
            ", ");
        put(&x, "storage IOPS %.0f -> %.0f", t->storage_iops, a->storage_iops, ", ");
        put(&x, "VM quotas %.0f%% -> %.0f%% used", t->vm_cpu_pct, a->vm_cpu_pct, ", ");
        put(&x, "VMs throttled in %.0f%% -> %.0f%% of periods", t->vm_throttled_pct,
            a->vm_throttled_pct, ", ");
        put(&x, "VMs throttled %.0f%% -> %.0f%% of the time", t->vm_throttled_time_pct,
            a->vm_throttled_time_pct, ", ");
        put(&x, "load generator CPU %.1f%% -> %.1f%% of the host", t->driver_cpu_pct,
            a->driver_cpu_pct, ", ");
        if (!x.at)
                snprintf(buf, len, "no resource figures");
}

/* Storage unsaturated at t and its latency flat from t to a: it had room. */
static int storage_room(const struct res_tip_res *t, const struct res_tip_res *a)
{
        return known(t->storage_util_pct) && t->storage_util_pct < RES_TIP_SAT_PCT &&
               known(t->storage_lat_ms) && known(a->storage_lat_ms) &&
               a->storage_lat_ms < t->storage_lat_ms * RES_TIP_LAT_RISE;
}

/* What was left at the tipping step t (a: the step after it). */
static void headroom(const struct res_tip_res *t, const struct res_tip_res *a, char *buf,
                     size_t len)
{
        struct text x = {buf, len, 0};

        buf[0] = '\0';
        put(&x, "compute CPUs %.0f%% idle", 100 - t->compute_cpu_pct, NAN, ", ");
        put(&x, "host CPU %.0f%% idle", 100 - t->cpu_busy_pct, NAN, ", ");
        put(&x, "storage %.0f%% utilised", t->storage_util_pct, NAN, ", ");
        put(&x, "storage IOPS %.0f", t->storage_iops, NAN, ", ");
        put(&x, "storage latency %.2f ms", t->storage_lat_ms, NAN, ", ");
        put(&x, "storage service CPU %.1f%% of the host", t->storage_cpu_pct, NAN, ", ");
        put(&x, "VM quotas %.0f%% used", t->vm_cpu_pct, NAN, ", ");
        put(&x, "VMs throttled %.0f%% of the time", t->vm_throttled_time_pct, NAN, ", ");
        if (!x.at)
                snprintf(buf, len, "not measured");
        else if (storage_room(t, a) && x.at < len)
                snprintf(buf + x.at, len - x.at, "; latency flat: storage had headroom");
}

static void missing(const struct res_tip_res *t, const struct res_tip_res *a, char *buf, size_t len)
{
        static const char *const names[] = {"host CPU",        "storage utilisation",
                                            "storage latency", "storage service CPU",
                                            "VM quota use",    "VM throttling"};
        const double v[][2] = {{cpu_of(t), cpu_of(a)},
                               {t->storage_util_pct, a->storage_util_pct},
                               {t->storage_lat_ms, a->storage_lat_ms},
                               {t->storage_cpu_pct, a->storage_cpu_pct},
                               {t->vm_cpu_pct, a->vm_cpu_pct},
                               {t->vm_throttled_time_pct, a->vm_throttled_time_pct}};
        size_t at = 0;

        buf[0] = '\0';
        for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
                if ((isnan(v[i][0]) || isnan(v[i][1])) && at < len)
                        at +=
                            (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "", names[i]);
        if (!at)
                snprintf(buf, len, "none");
}

enum res_tip_rule res_tip_classify(const struct res_tip_res *t, const struct res_tip_res *a)
{
        if (memory_pressed(a) || memory_pressed(t))
                return RES_RULE_MEMORY;
        if (sat(cpu_of(a)) && storage_starved(t, a))
                return RES_RULE_CPU_STARVES;
        if (vm_quota_sat(a) && cpu_left(a))
                return RES_RULE_VM_QUOTA;
        if (sat(a->storage_util_pct) && cpu_left(a))
                return RES_RULE_STORAGE_UTIL;
        if (lat_up(t, a) && cpu_left(a))
                return RES_RULE_STORAGE_LAT;
        if (sat(cpu_of(a)))
                return RES_RULE_CPU;
        return RES_RULE_NONE;
}

enum res_tip_limit res_tip_rule_limit(enum res_tip_rule rule)
{
        switch (rule) {
        case RES_RULE_MEMORY:
                return RES_LIM_MEMORY;
        case RES_RULE_CPU_STARVES:
        case RES_RULE_CPU:
                return RES_LIM_CPU;
        case RES_RULE_VM_QUOTA:
                return RES_LIM_VM_CPU;
        case RES_RULE_STORAGE_UTIL:
        case RES_RULE_STORAGE_LAT:
                return RES_LIM_STORAGE;
        case RES_RULE_NONE:
        default:
                return RES_LIM_NONE;
        }
}

static enum res_tip_limit classify(const struct res_tip_res *t, const struct res_tip_res *a,
                                   const char **what)
{
        static const char *const said[2][2] = {
            {"cpu: the host CPU saturated",
             "cpu: the host CPU saturated, the storage side with it"},
            {"cpu: the compute CPUs (the VMs' own) saturated",
             "cpu: the compute CPUs (the VMs' own) saturated, the storage side with it"}};

        switch (res_tip_classify(t, a)) {
        case RES_RULE_MEMORY:
                *what = "memory: the VMs swapped, faulted or were OOM-killed";
                return RES_LIM_MEMORY;
        case RES_RULE_CPU_STARVES:
                *what =
                    known(a->compute_cpu_pct)
                        ? "cpu, compute limiting storage: the compute CPUs saturated while the "
                          "storage service's share of the host stayed flat or fell and its "
                          "latency rose"
                        : "cpu, compute limiting storage: the host CPU saturated while the storage "
                          "service's share of it stayed flat or fell and its latency rose";
                return RES_LIM_CPU;
        case RES_RULE_VM_QUOTA:
                *what = "vm-cpu: the VMs' own CPU quotas saturated (they were throttled) with "
                        "host CPU left (add VMs or vCPUs, not storage)";
                return RES_LIM_VM_CPU;
        case RES_RULE_STORAGE_UTIL:
                *what = "storage: the storage side saturated with CPU to spare";
                return RES_LIM_STORAGE;
        case RES_RULE_STORAGE_LAT:
                *what = "storage: its latency more than doubled with CPU to spare";
                return RES_LIM_STORAGE;
        case RES_RULE_CPU:
                *what = said[known(a->compute_cpu_pct)][sat(a->storage_util_pct)];
                return RES_LIM_CPU;
        case RES_RULE_NONE:
        default:
                break;
        }
        *what = NULL;
        return RES_LIM_NONE;
}

enum res_tip_limit res_tip_attribute(const struct res_tip_step *t, const struct res_tip_step *a,
                                     const char *unit, char *why, size_t len)
{
        char figs[900], room[400], miss[160], u[40] = "", on[400];
        const char *what;
        enum res_tip_limit l = classify(&t->r, &a->r, &what);

        res_tip_host_words(a, res_tip_classify(&t->r, &a->r), on, sizeof(on));
        if (!unit || !strcmp(unit, "VMs"))
                snprintf(u, sizeof(u), " VMs");
        both_steps(&t->r, &a->r, figs, sizeof(figs));
        headroom(&t->r, &a->r, room, sizeof(room));
        if (l == RES_LIM_NONE) {
                missing(&t->r, &a->r, miss, sizeof(miss));
                snprintf(why, len,
                         "Limited by none: no resource at its limit from %g to %g%s (%s); "
                         "figures missing: %s.",
                         t->load, a->load, u, figs, miss);
        } else {
                snprintf(why, len, "Limited by %s%s; from %g to %g%s: %s. Headroom at %g%s: %s.",
                         what, on, t->load, a->load, u, figs, t->load, u, room);
        }
        return l;
}
