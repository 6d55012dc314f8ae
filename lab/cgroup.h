/*
 * cgroup.h - the cgroups that make a local "VM" a VM: a CPU quota, a memory
 * limit and, in the two-layer topology, a CPU set; plus what the VMs'
 * figures read back from them (CPU time, throttling, memory, OOM kills).
 *
 * Two implementations behind one ops struct, picked at run time from what
 * the cgroup root (/sys/fs/cgroup) is:
 *   v2 (cgroup_v2.c)  the root holds cgroup.controllers: one unified
 *                     hierarchy, one directory per group (cpu.max,
 *                     memory.max, memory.swap.max, cpuset.cpus/.mems,
 *                     cpu.stat, memory.events, memory.stat, cgroup.kill).
 *   v1 (cgroup_v1.c)  anything else: a mount per controller under the root
 *                     (cpu.cfs_quota_us, memory.limit_in_bytes, cpuset,
 *                     and cpuacct for the CPU time), one directory in each.
 *                     A hybrid host (v1 controllers, an empty cgroup2 at
 *                     /sys/fs/cgroup/unified) is v1.
 *
 * Groups are made as hcisweep/LAB/LEAF below this process's own group (v1:
 * of each controller), so they nest inside whatever limits the caller
 * already runs under. In v2, hcisweep and LAB are the parents whose
 * cgroup.subtree_control enable the controllers their leaves need; a v2
 * group with processes of its own may not do that ("no internal
 * processes"), so when this process's group cannot, the nearest ancestor
 * that can holds hcisweep. The absolute paths and the version go in the
 * lab's state file so any later process can find and remove the groups.
 *
 * A controller that is missing or not writable is left out with one
 * warning (the lab then runs without that limit) and its path stays "";
 * cg_check() says beforehand whether a CPU quota can be had at all.
 * Errors: 0 or a negative errno, one line in err. Not thread-safe.
 */
#ifndef HCI_LAB_CGROUP_H
#define HCI_LAB_CGROUP_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CG_PATH_MAX 512 /* the same as LAB_PATH_MAX (backend.h) */

enum cg_ctrl { CG_CPU, CG_MEMORY, CG_CPUSET, CG_CPUACCT, CG_NCTRL };

/* The controller's name as in /proc/self/cgroup and the state file. */
const char *cg_ctrl_name(enum cg_ctrl c);

/* One group. v1: a directory per controller. v2: every used controller's
 * path is the group's one directory, and CG_CPUACCT is always set (v2's
 * cpu.stat counts the CPU time with or without the cpu controller). */
struct cg_group {
        int version;                      /* 1 or 2; 0 (an older state file) reads as 1 */
        char path[CG_NCTRL][CG_PATH_MAX]; /* absolute directory, "" = not used */
};

struct cg_limits {
        double cpus;        /* CPU quota in CPUs, <= 0: none */
        uint64_t memory;    /* bytes, 0: none (v2: and no swap under a limit) */
        const char *cpuset; /* CPU list ("1", "0-2"), NULL: no cpuset group */
};

/* What a group says of itself; -1 (or "") where it does not say. */
struct cg_stats {
        double cpus;          /* CPU quota in CPUs, -1 unlimited */
        int64_t mem_limit;    /* bytes, -1 unlimited */
        int64_t mem_usage;    /* bytes */
        char cpuset[64];      /* CPU list, "" every CPU */
        int64_t usage_ns;     /* CPU time of everything in the group */
        int64_t periods;      /* quota periods (cpu.stat nr_periods) */
        int64_t throttled;    /* of those, periods it was throttled in (nr_throttled) */
        int64_t throttled_ns; /* time spent throttled (v1 throttled_time, v2 throttled_usec) */
        int64_t failcnt;   /* times usage hit the limit: v1 memory.failcnt, v2 memory.events max */
        int64_t oom_kills; /* v1 memory.oom_control, v2 memory.events: oom_kill */
        int64_t majflt;    /* memory.stat pgmajfault */
};

/* One implementation (cgroup_v1.c, cgroup_v2.c). */
struct cg_ops {
        int version;
        /* 0 if a group made now can get what lim asks of the CPU; else
         * -ENOTSUP and why in err. */
        int (*check)(const struct cg_limits *lim, char *err, size_t errlen);
        int (*create)(const char *lab, const char *leaf, const struct cg_limits *lim,
                      struct cg_group *g, char *err, size_t errlen);
        int (*apply)(const struct cg_group *g, const struct cg_limits *lim, char *err,
                     size_t errlen);
        /* The cgroup.procs files a new task writes itself into. */
        void (*procs_files)(const struct cg_group *g, char bufs[CG_NCTRL][CG_PATH_MAX + 16],
                            const char *files[CG_NCTRL + 1]);
        int (*kill_others)(const struct cg_group *g, pid_t keep);
        int (*remove)(struct cg_group *g, char *err, size_t errlen);
        void (*read)(const struct cg_group *g, struct cg_stats *st);
};

extern const struct cg_ops cg_v1_ops, cg_v2_ops;

/* The implementation the cgroup root calls for (new groups use it). */
const struct cg_ops *cg_ops_now(void);

/* The cgroup root: /sys/fs/cgroup, or $HCISWEEP_CGROUP_ROOT (for tests only). */
const char *cg_root(void);

/*
 * Tests only: use mount as the cgroup root and self as this process's group
 * in it ("/" the root; NULL: from /proc/self/cgroup), and pick the version
 * from it afresh. NULL mount goes back to cg_root()'s default.
 */
void cg_use_root(const char *mount, const char *self);

/* This process's group ("" at the root): v1 of controller name, v2 (name
 * NULL) the unified one; the cg_use_root() self when one is set. */
int cg_own_group(const char *name, char *out, size_t outlen);

/* 0 when a CPU quota of lim->cpus can be applied (or none is asked);
 * -ENOTSUP with one line saying so and what to do. Call before starting
 * anything. */
int cg_check(const struct cg_limits *lim, char *err, size_t errlen);

/* Create (or reuse) hcisweep/lab/leaf in every usable controller and apply lim. */
int cg_create(const char *lab, const char *leaf, const struct cg_limits *lim, struct cg_group *g,
              char *err, size_t errlen);

/* Write lim into an existing group (e.g. lab up again with other limits). */
int cg_apply(const struct cg_group *g, const struct cg_limits *lim, char *err, size_t errlen);

/* The cgroup.procs files of g, NULL-terminated, pointing into bufs. */
void cg_procs_files(const struct cg_group *g, char bufs[CG_NCTRL][CG_PATH_MAX + 16],
                    const char *files[CG_NCTRL + 1]);

/* The CPU affinity that stands in for g's cpuset group when the cpuset
 * controller is missing: list ("0,2") in *set, returned; NULL when list is
 * "" or g has its cpuset group. */
const cpu_set_t *cg_affinity(const struct cg_group *g, const char *list, cpu_set_t *set);

/* SIGKILL every process still in g and wait (bounded) until they are gone;
 * returns how many were signalled (v2 with cgroup.kill: 1 if any was). */
int cg_kill_all(const struct cg_group *g);

/* The same for every process in g but keep (0: none). */
int cg_kill_others(const struct cg_group *g, pid_t keep);

/* Remove g (waiting briefly for exiting tasks), then its lab and hcisweep
 * parents if they are empty. Paths of removed groups are cleared. */
int cg_remove(struct cg_group *g, char *err, size_t errlen);

/* What g says of its limits, usage and counters, in either version. */
void cg_read(const struct cg_group *g, struct cg_stats *st);

/* The counters of a cpu.stat text (v1 or v2) into st, keeping what it
 * lacks: v2 has usage_usec and throttled_usec, v1 throttled_time (ns) and
 * no usage (cpuacct.usage has it). Pure: no I/O. */
void cg_parse_cpustat(const char *text, struct cg_stats *st);

#endif
