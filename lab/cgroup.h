/*
 * cgroup.h - the cgroup v1 groups that make a local "VM" a VM: a CPU quota
 * (cpu controller, CFS quota = CPUs x period), a memory limit (memory
 * controller) and, in the two-layer topology, a CPU set (cpuset
 * controller) and a CPU usage account (cpuacct controller: v1 counts a
 * group's CPU time there, and cpu.stat only says how often the quota
 * throttled it). Groups are made below this process's own group of each
 * controller, as hcisweep/LAB/LEAF, so they nest inside whatever limits the
 * caller already runs under; the absolute paths are kept in the lab's state
 * file so any later process can find and remove them.
 *
 * A controller that is not mounted or not writable is left out with one
 * warning (the lab then runs without that limit); its path stays "".
 * Errors: 0 or a negative errno, one line in err. Not thread-safe.
 */
#ifndef HCI_LAB_CGROUP_H
#define HCI_LAB_CGROUP_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lab/backend.h"

enum cg_ctrl { CG_CPU, CG_MEMORY, CG_CPUSET, CG_CPUACCT, CG_NCTRL };

/* The controller's name as in /proc/self/cgroup and under /sys/fs/cgroup. */
const char *cg_ctrl_name(enum cg_ctrl c);

struct cg_group {
        char path[CG_NCTRL][LAB_PATH_MAX]; /* absolute directory, "" = not used */
};

struct cg_limits {
        double cpus;        /* CPU quota in CPUs, <= 0: none */
        uint64_t memory;    /* bytes, 0: none */
        const char *cpuset; /* CPU list ("1", "0-2"), NULL: no cpuset group */
};

/* Create (or reuse) hcisweep/lab/leaf in every usable controller and apply lim. */
int cg_create(const char *lab, const char *leaf, const struct cg_limits *lim, struct cg_group *g,
              char *err, size_t errlen);

/* Write lim into an existing group (e.g. lab up again with other limits). */
int cg_apply(const struct cg_group *g, const struct cg_limits *lim, char *err, size_t errlen);

/* The cgroup.procs files of g, NULL-terminated, pointing into bufs. */
void cg_procs_files(const struct cg_group *g, char bufs[CG_NCTRL][LAB_PATH_MAX + 16],
                    const char *files[CG_NCTRL + 1]);

/* The CPU affinity that stands in for g's cpuset group when the cpuset
 * controller is missing: list ("0,2") in *set, returned; NULL when list is
 * "" or g has its cpuset group. */
const cpu_set_t *cg_affinity(const struct cg_group *g, const char *list, cpu_set_t *set);

/* SIGKILL every process still in g and wait (bounded) until they are gone;
 * returns how many were signalled. */
int cg_kill_all(const struct cg_group *g);

/* The same for every process in g but keep (0: none). */
int cg_kill_others(const struct cg_group *g, pid_t keep);

/* Remove g (waiting briefly for exiting tasks), then its lab and hcisweep
 * parents if they are empty. Paths of removed groups are cleared. */
int cg_remove(struct cg_group *g, char *err, size_t errlen);

/* A number from file name in controller c of g; -1 if unknown or unlimited
 * (a v1 "unlimited" memory limit reads as a huge number). */
int64_t cg_read_i64(const struct cg_group *g, enum cg_ctrl c, const char *name);

/* A one-line file of controller c into out ("" if unknown). */
void cg_read_str(const struct cg_group *g, enum cg_ctrl c, const char *name, char *out,
                 size_t outlen);

#endif
