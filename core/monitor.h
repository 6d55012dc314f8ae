/*
 * monitor.h - the host monitor: what iostat/mpstat/sar sampled by hand.
 *
 * A background thread samples /proc/stat (per CPU and total: user, nice,
 * system, iowait, irq, softirq, steal, idle), /proc/diskstats (reads,
 * writes, bytes, busy and weighted time → IOPS, MB/s, %util and aqu-sz,
 * the time-weighted requests in flight, per whole disk) and
 * /proc/net/dev (bytes and packets per interface) every interval, and keeps
 * the per-interval rates. Optionally it also follows a set of PIDs
 * (/proc/PID/stat utime+stime, majflt) — used for the load generator's own
 * CPU and for the lab's servers.
 */
#ifndef HCI_MONITOR_H
#define HCI_MONITOR_H

#include <sched.h>
#include <stdint.h>
#include <jansson.h>

/* A run whose CPU steal averaged over this % (or peaked over the second) is untrusted: the one
 * definition, used by the host monitor and by the tipping verdict (results/tip_verdict.h). */
#define MON_STEAL_MEAN_MAX 5.0
#define MON_STEAL_PEAK_MAX 20.0

struct mon;

/* Percentages of all CPU time over an interval (sum ≈ 100). */
struct mon_cpu {
        double user, nice, system, iowait, irq, softirq, steal, idle;
};

/*
 * Start sampling every interval_ms (>= 100). A first snapshot is taken
 * before returning, so even a run shorter than one interval gets one sample
 * at mon_stop(). Returns NULL with err set on failure. Caller owns it.
 */
struct mon *mon_start(unsigned interval_ms, char *err, size_t errlen);

/* Follow this PID's CPU time and major faults too (any thread, before mon_stop). */
void mon_watch_pid(struct mon *m, int pid, const char *label);

/*
 * Stop the thread, take a last sample. Safe to call once. After it, the
 * accessors below describe the whole run.
 */
void mon_stop(struct mon *m);

/* acc += w * c, field by field; then mon_cpu_div(acc, sum of w) gives the weighted mean. */
void mon_cpu_add(struct mon_cpu *acc, const struct mon_cpu *c, double w);
void mon_cpu_div(struct mon_cpu *c, double d);

/* Mean host CPU split over the samples whose start lies in [t0, t1] ns (clk_now_ns); whole run when
 * t0 == t1 == 0. Any thread, while sampling runs too. */
void mon_cpu_between(const struct mon *m, uint64_t t0, uint64_t t1, struct mon_cpu *out);

/* The same over the CPUs in set only (each CPU weighs the same): how busy a
 * group of CPUs was, e.g. the compute CPUs of a two-layer lab while the
 * storage service has CPUs of its own. Returns how many of the set's CPUs
 * the samples held (0: none, *out all zero). */
unsigned mon_cpus_between(const struct mon *m, uint64_t t0, uint64_t t1, const cpu_set_t *set,
                          struct mon_cpu *out);

/*
 * The "monitor" object of the README's JSON:
 * {"started_at":"ISO-8601 UTC with ms, where t is
 * 0","interval_s":2,"samples":[{"t":s_since_start,"cpu":{user,system,iowait,steal,idle,...},
 *   "cpus":[{...} per cpu],"disks":{"vda":{"r_iops","w_iops","r_bytes_s","w_bytes_s","util"}},
 *   "net":{"lo":{"rx_bytes_s","tx_bytes_s"}},"pids":{"label":{"cpu_pct","majflt"}}}],
 *  "summary":{"cpu":{...mean...},"steal_max":..,"untrusted":bool,"reason":".."}}
 * A run is flagged untrusted when mean steal > 5% or any sample's steal > 20%.
 * New reference.
 */
json_t *mon_to_json(const struct mon *m);

void mon_free(struct mon *m);

/* Host facts for the "host" object: {"cpus","model","kernel","memory_bytes","hostname"}. New
 * reference. */
json_t *host_info_json(void);

#endif
