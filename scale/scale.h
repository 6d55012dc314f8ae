/*
 * scale.h - what the parts of `hcisweep scale` share (cmd_scale.c runs the
 * plan, scale_probe.c reads the host, storage and VM counters around each
 * measured window, scale_sum.c sums a step's repeats, scale_load.c runs the
 * optional block load on the LUNs during it, scale_out.c prints the table
 * and builds a step's JSON). Internal to
 * scale/; one controlling thread (the block load runs its point in a thread
 * of its own).
 */
#ifndef HCI_SCALE_SCALE_H
#define HCI_SCALE_SCALE_H

#include <stdint.h>
#include <jansson.h>

#include "core/hist.h"
#include "core/hostsrc.h"
#include "core/monitor.h"
#include "oltp/engine.h"
#include "lab/backend.h"
#include "scale/scale_load.h"

#define SCALE_MAX_REPEAT 32

/* Cumulative counters at one instant (scale_probe.c). -1 / 0 when unknown. */
/* /proc/diskstats counters of one block device, as every disk is read (core/hostsrc.h). */
struct scale_dstat {
        int have;
        struct hostsrc_disk d;
};

/* A VM's CPU cgroup counters (cg_read(): cpu.stat, v1 cpuacct.usage); -1 when unknown. */
struct scale_cgcpu {
        int64_t usage_ns;     /* CPU time of everything in the group */
        int64_t periods;      /* CFS periods with the quota in force (nr_periods) */
        int64_t throttled;    /* of those, periods it was throttled in (nr_throttled) */
        int64_t throttled_ns; /* time it spent throttled */
};

struct scale_snap {
        uint64_t t_ns;
        struct scale_dstat disk;                /* the disk holding the lab directory */
        struct scale_dstat vd[LAB_MAX_VMS + 1]; /* VM i's disk (its loop device) */
        int64_t tgt_user_ns, tgt_sys_ns;
        int64_t ini_cpu_ns[LAB_MAX_VMS + 1]; /* VM i's initiator */
        int have_tgt;
        uint64_t tgt_rchar, tgt_wchar, tgt_read_bytes, tgt_write_bytes;
        int64_t tgt_cpu_ns;
        int64_t self_cpu_ns; /* hcisweep itself: the load generator */
        int64_t vm_cpu_ns[LAB_MAX_VMS + 1];
        uint64_t vm_majflt[LAB_MAX_VMS + 1], vm_failcnt[LAB_MAX_VMS + 1];
        uint64_t vm_oom[LAB_MAX_VMS + 1];
        int64_t vm_cg_majflt[LAB_MAX_VMS + 1];     /* the group's memory.stat pgmajfault, -1 */
        struct scale_cgcpu vm_cg[LAB_MAX_VMS + 1]; /* VM i's CPU cgroup */
};

/* One disk's rates; -1 when unknown. */
struct scale_drate {
        double iops, bytes_s, lat_ms, util_pct;
};

/* What happened between two snapshots, as rates. The disk_* figures are
 * the storage path's: the VMs' disks (their loop devices: iops and bytes
 * summed, latency over all their I/Os, utilisation of the busiest) when
 * the backend names them, else the host disk holding the datadirs. */
struct scale_rates {
        double seconds;
        double disk_util_pct, disk_bytes_s, disk_iops, disk_lat_ms; /* -1 when unknown */
        double tgt_cpu_pct, tgt_io_bytes_s, tgt_disk_bytes_s;       /* -1 when unknown */
        double tgt_user_pct, tgt_sys_pct;       /* tgtd's CPU split, % of one CPU; -1 unknown */
        double tgt_host_pct;                    /* tgtd's share of the whole host, %; -1 unknown */
        int vdisks;                             /* VM disks measured (0: disk_* is the host disk) */
        struct scale_drate vd[LAB_MAX_VMS + 1]; /* VM i's disk */
        char vd_dev[LAB_MAX_VMS + 1][32];       /* its device ("loop3"), "" none */
        struct scale_drate host;                /* the host disk holding the lab directory */
        double ini_cpu_pct[LAB_MAX_VMS + 1];    /* VM i's initiator (in vm_cpu_pct too); -1 */
        double self_cpu_pct; /* the load generator, % of one CPU; -1 when unknown */
        uint64_t swap_pages; /* this host's, from its cluster reading (lab_cluster_local_swap) */
        double vm_cpu_pct[LAB_MAX_VMS + 1];  /* -1 when unknown */
        uint64_t majflt, failcnt, oom_kills; /* all VMs */
        /* VM i's CPU cgroup over the window: vm_cpu_pct came from its usage
         * (everything in the group) rather than from its processes; its
         * quota's periods, throttled periods and throttled seconds (-1
         * unknown; summed over repeats). */
        int vm_cpu_cg[LAB_MAX_VMS + 1];
        double vm_periods[LAB_MAX_VMS + 1], vm_throttled[LAB_MAX_VMS + 1];
        double vm_throttled_s[LAB_MAX_VMS + 1];
};

struct scale_probe; /* which disk, which tgtd, which VMs */

/* Probe the disk holding dir (the datadirs; looked up once it exists); NULL on ENOMEM. */
struct scale_probe *scale_probe_new(const char *dir);
void scale_probe_free(struct scale_probe *p);
/* What the probe follows of VM i: its server, its initiator (both <= 0:
 * none or not local), its disk's name in /proc/diskstats ("" none) and
 * its cgroups (lab_vm_stats.cg; version 0 and "" paths: none). A VM's CPU
 * and major faults are its cgroup's when the group accounts them
 * (everything the VM runs is in it), else its server's plus its
 * initiator's. */
struct scale_follow {
        int pid, initiator;
        char disk[32];
        struct cg_group cg;
};
/* Follow the storage service's PID (0: none) and VMs 1..n (vm[i]). */
void scale_probe_set(struct scale_probe *p, int tgt_pid, const struct scale_follow *vm, unsigned n);
/* The disk's name ("" when the directory is on no block device). */
const char *scale_probe_disk(const struct scale_probe *p);
void scale_probe_take(const struct scale_probe *p, struct scale_snap *s);
void scale_probe_rates(const struct scale_probe *p, const struct scale_snap *a,
                       const struct scale_snap *b, struct scale_rates *r);

struct lab_hosts; /* lab/cluster.h */

/* One measured run of a step. */
struct scale_rep {
        double seconds, tps;
        double load_iops; /* block load IOPS, -1 without --block-load */
        struct oltp_counts total;
        struct mon_cpu cpu;
        struct mon_cpu compute_cpu; /* the VMs' own CPUs when pinned (compute_cpus) */
        struct scale_rates rates;
        int lost;         /* a VM was lost (degraded) */
        int hosts_missed; /* hosts whose figures this window lost (degraded) */
        char host_error[512];
        int interrupted; /* SIGINT */
        int have_steady; /* --target-ci */
        struct steady_res steady;
        char error[1024];
        /* The measured window's per-interval TPS (malloc'd; the step's
         * noise band without repeats): interval i ended iv_t[i] s in. */
        double *iv_tps, *iv_t;
        unsigned niv, iv_cap;
        /* Wall clock (clk_real_ms, 0: not reached): warm-up from warm_ms to win_start_ms, the
         * measured window from win_start_ms to win_end_ms. */
        int64_t warm_ms, win_start_ms, win_end_ms;
};

struct scale_vm {
        char host[64];
        unsigned port;
        struct oltp_counts c;
        struct hist *lat;
        double seconds;
        int alive; /* at the end of the step */
        double cpu_pct;
};

/* One VM count of the plan, all its repeats. */
struct scale_step {
        unsigned vms;
        double vm_cpus; /* each VM's CPU quota in CPUs (0: none) */
        unsigned nrep;
        struct scale_rep rep[SCALE_MAX_REPEAT];
        struct scale_vm vm[LAB_MAX_VMS + 1]; /* 1-based, summed over repeats */
        struct hist *lat;                    /* every VM, every repeat, merged */
        struct oltp_counts total;
        double seconds;
        double tps, tps_min, tps_max; /* median over repeats */
        struct mon_cpu cpu;           /* mean over repeats */
        /* Two-layer: the CPUs the VMs are pinned to ("0"), the compute
         * layer, and their mean split; "" when the VMs share every CPU. */
        char compute_cpus[64];
        struct mon_cpu compute_cpu;
        struct scale_rates rates; /* mean over repeats (counts summed) */
        struct lab_hosts *hosts;  /* every host of the lab over the step (lab/cluster.h) */
        int state;                /* enum scale_state */
        char error[1024];
        uint64_t consoles;          /* bit i-1: VM i's console tail saved (scale_console_name) */
        json_t *monitor;            /* of its last repeat; owned */
        json_t *drivers;            /* --driver-placement vm: its last repeat's drivers[]; owned */
        struct scale_load_res load; /* with --block-load */
        int have_steady;            /* --target-ci: its repeats' steady states together */
        struct steady_res steady;   /* times summed, the widest CI, met and settled by all */
};

enum scale_state { SCALE_OK, SCALE_DEGRADED, SCALE_PARTIAL, SCALE_FAILED };

const char *scale_state_name(int state);
/*
 * Host CPU by owner in % of the host (all CPUs): own[0] the VMs, [1] the
 * storage service, [2] the load generator (hcisweep), [3] the rest of the
 * busy time; -1 when not measured. *quota_pct: the VMs' mean CPU in % of
 * their quota (-1 without a quota).
 */
void scale_cpu_owners(const struct scale_step *s, double own[4], double *quota_pct);
double scale_cpu_busy(const struct mon_cpu *c);

/*
 * The VMs' CPU quotas over a step, from their cgroups' cpu.stat (summed
 * over the VMs and repeats; -1 when no VM's group said): CFS periods,
 * throttled periods and seconds; throttled_pct = throttled periods in % of
 * the periods, throttled_time_pct = throttled seconds in % of the step's
 * time per VM (the share of the step a VM, on average, could not run).
 * cg_vms: VMs whose CPU came from their cgroup's usage.
 */
struct scale_quota {
        unsigned cg_vms, vms;
        double periods, throttled, throttled_s;
        double throttled_pct, throttled_time_pct;
};
void scale_vm_quota(const struct scale_step *s, struct scale_quota *q);

/* scale_sum.c: the step's figures from its nrep repeats (st->rates,
 * st->cpu, st->tps and its spread, st->steady). A rate is the time-weighted
 * mean over the windows that read it; one no window read stays -1. */
void scale_summarise(struct scale_step *st);

/* scale_out.c */
/* The step's noise band [*lo, *hi] of its TPS: the repeats' min..max, else
 * --target-ci's CI, else the batch-means CI of its one run's intervals
 * (results/tipping.h); lo = hi = tps when unknown. Returns "repeats",
 * "target_ci", "intervals" or "none". */
const char *scale_step_band(const struct scale_step *s, double *lo, double *hi);
/* load: a column for the block load's IOPS (--block-load) */
void scale_print_header(unsigned repeat, int load);
void scale_print_step(const struct scale_step *s, unsigned repeat,
                      const struct scale_load_spec *load);
/* The shortest warm-up in which the steady-state rule (core/steady.h, MSER-5) can
 * find TPS settled: STEADY_MIN_BATCHES batches of STEADY_MSER_BATCH samples. */
double scale_min_warmup_s(void);
/* After the verdict, once: which steps did not settle or meet --target-ci, what
 * that means and what to do; nothing when every step did. */
void scale_print_unsettled(const struct scale_step *st, unsigned n, double warmup_max_s,
                           double time_s, double target_ci_pct);
/* The run directory's file for the console tail of VM vm in a step of vms VMs:
 * "console-<vms>vms-vm<vm>.log". */
void scale_console_name(char *out, size_t outlen, unsigned vms, unsigned vm);
json_t *scale_step_json(const struct scale_step *s, const double *pcts, unsigned npct,
                        const struct scale_load_spec *load);

#endif
