/*
 * cgroup_v1.c - the lab's groups in cgroup v1: a mount per controller
 * (ROOT/cpu, ROOT/memory, ROOT/cpuset, ROOT/cpuacct), a directory in each.
 * cpuset groups start with no CPUs and no memory nodes in v1, so every
 * level made here copies its parent's before a task can join it; v1 counts
 * a group's CPU time in cpuacct, and its cpu.stat only says how often the
 * quota throttled it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/log.h"
#include "lab/cgroup.h"
#include "lab/cgroup_file.h"
#include "lab/proc.h"

static int warned[CG_NCTRL];

static int v1_check(const struct cg_limits *lim, char *err, size_t errlen)
{
        char dir[CG_PATH_MAX];

        (void)lim;
        snprintf(dir, sizeof(dir), "%s/cpu", cg_root());
        if (cg_has(dir, "cpu.cfs_quota_us"))
                return 0;
        snprintf(err, errlen, "%s is neither cgroup v2 nor has a v1 cpu mount with CFS quotas",
                 cg_root());
        return -ENOTSUP;
}

/* mkdir one level; a new cpuset level inherits its parent's CPUs and nodes. */
static int make_level(enum cg_ctrl c, const char *dir, char *err, size_t errlen)
{
        char parent[CG_PATH_MAX], val[256];
        int rc;

        if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
                rc = -errno;
                snprintf(err, errlen, "mkdir %s: %s", dir, strerror(errno));
                return rc;
        }
        if (c != CG_CPUSET)
                return 0;
        snprintf(parent, sizeof(parent), "%s", dir);
        *strrchr(parent, '/') = '\0';
        for (int i = 0; i < 2; i++) {
                const char *name = i ? "cpuset.mems" : "cpuset.cpus";

                cg_line(dir, name, val, sizeof(val));
                if (val[0])
                        continue;
                cg_line(parent, name, val, sizeof(val));
                rc = cg_write(dir, name, val, err, errlen);
                if (rc < 0)
                        return rc;
        }
        return 0;
}

static int make_group(enum cg_ctrl c, const char *lab, const char *leaf, char *out, size_t outlen,
                      char *err, size_t errlen)
{
        const char *name = cg_ctrl_name(c);
        char own[CG_PATH_MAX];
        int rc, n;

        rc = cg_own_group(name, own, sizeof(own));
        if (rc < 0) {
                snprintf(err, errlen, "no %s controller in /proc/self/cgroup", name);
                return rc;
        }
        n = snprintf(out, outlen, "%s/%s%s/hcisweep", cg_root(), name, own);
        if (n < 0 || (size_t)n + strlen(lab) + strlen(leaf) + 2 >= outlen) {
                snprintf(err, errlen, "cgroup path too long");
                return -ENAMETOOLONG;
        }
        rc = make_level(c, out, err, errlen);
        strcat(strcat(out, "/"), lab);
        if (!rc)
                rc = make_level(c, out, err, errlen);
        strcat(strcat(out, "/"), leaf);
        if (!rc)
                rc = make_level(c, out, err, errlen);
        if (rc < 0)
                out[0] = '\0';
        return rc;
}

static int v1_apply(const struct cg_group *g, const struct cg_limits *lim, char *err, size_t errlen)
{
        char val[64], period[32];
        int rc = 0;

        if (g->path[CG_CPU][0]) {
                cg_line(g->path[CG_CPU], "cpu.cfs_period_us", period, sizeof(period));
                if (lim->cpus > 0)
                        snprintf(
                            val, sizeof(val), "%lld",
                            (long long)(lim->cpus * (double)(period[0] ? atoll(period) : 100000)));
                else
                        snprintf(val, sizeof(val), "-1");
                rc = cg_write(g->path[CG_CPU], "cpu.cfs_quota_us", val, err, errlen);
        }
        if (!rc && g->path[CG_MEMORY][0]) {
                if (lim->memory)
                        snprintf(val, sizeof(val), "%llu", (unsigned long long)lim->memory);
                else
                        snprintf(val, sizeof(val), "-1");
                rc = cg_write(g->path[CG_MEMORY], "memory.limit_in_bytes", val, err, errlen);
        }
        if (!rc && g->path[CG_CPUSET][0] && lim->cpuset)
                rc = cg_write(g->path[CG_CPUSET], "cpuset.cpus", lim->cpuset, err, errlen);
        return rc;
}

static int v1_create(const char *lab, const char *leaf, const struct cg_limits *lim,
                     struct cg_group *g, char *err, size_t errlen)
{
        char why[CG_PATH_MAX + 64];

        memset(g, 0, sizeof(*g));
        g->version = 1;
        for (int c = 0; c < CG_NCTRL; c++) {
                if (c == CG_CPUSET && !lim->cpuset)
                        continue;
                if (make_group(c, lab, leaf, g->path[c], sizeof(g->path[c]), why, sizeof(why)) <
                        0 &&
                    !warned[c]++)
                        log_warn("cgroup %s unavailable (%s): VMs run without %s limits",
                                 cg_ctrl_name(c), why, cg_ctrl_name(c));
        }
        return v1_apply(g, lim, err, errlen);
}

static void v1_procs_files(const struct cg_group *g, char bufs[CG_NCTRL][CG_PATH_MAX + 16],
                           const char *files[CG_NCTRL + 1])
{
        int n = 0;

        for (int c = 0; c < CG_NCTRL; c++) {
                if (!g->path[c][0])
                        continue;
                snprintf(bufs[c], CG_PATH_MAX + 16, "%s/cgroup.procs", g->path[c]);
                files[n++] = bufs[c];
        }
        files[n] = NULL;
}

static int v1_kill_others(const struct cg_group *g, pid_t keep)
{
        pid_t killed[256];
        int n = 0;

        for (int c = 0; c < CG_NCTRL; c++)
                if (g->path[c][0])
                        n += cg_kill_listed(g->path[c], keep, killed + n, 256 - n);
        /* gone, so that nothing of theirs holds a file or a mount any more */
        for (int i = 0; i < n; i++)
                proc_wait_gone(killed[i], 5000);
        return n;
}

static int v1_remove(struct cg_group *g, char *err, size_t errlen)
{
        int rc = 0, r;

        for (int c = 0; c < CG_NCTRL; c++) {
                if (!g->path[c][0])
                        continue;
                r = cg_rmdir(g->path[c]);
                if (r < 0) {
                        snprintf(err, errlen, "rmdir %s: %s", g->path[c], strerror(-r));
                        rc = rc ? rc : r;
                        continue;
                }
                cg_rmdir_parents(g->path[c]);
                g->path[c][0] = '\0';
        }
        return rc;
}

static int64_t num(const char *dir, const char *name)
{
        char val[64];

        if (!dir[0])
                return -1;
        cg_line(dir, name, val, sizeof(val));
        return cg_bytes(val);
}

static void v1_read(const struct cg_group *g, struct cg_stats *st)
{
        const char *cpu = g->path[CG_CPU], *mem = g->path[CG_MEMORY];
        int64_t quota = num(cpu, "cpu.cfs_quota_us"), period = num(cpu, "cpu.cfs_period_us");
        char text[512];

        st->cpus = quota > 0 && period > 0 ? (double)quota / (double)period : -1;
        st->mem_limit = num(mem, "memory.limit_in_bytes");
        st->mem_usage = num(mem, "memory.usage_in_bytes");
        if (g->path[CG_CPUSET][0])
                cg_line(g->path[CG_CPUSET], "cpuset.cpus", st->cpuset, sizeof(st->cpuset));
        if (cpu[0]) {
                cg_text(cpu, "cpu.stat", text, sizeof(text));
                cg_parse_cpustat(text, st);
        }
        if (g->path[CG_CPUACCT][0])
                st->usage_ns = num(g->path[CG_CPUACCT], "cpuacct.usage");
        if (!mem[0])
                return;
        st->failcnt = num(mem, "memory.failcnt");
        st->oom_kills = cg_key(mem, "memory.oom_control", "oom_kill");
        st->majflt = cg_key(mem, "memory.stat", "pgmajfault");
}

const struct cg_ops cg_v1_ops = {
    .version = 1,
    .check = v1_check,
    .create = v1_create,
    .apply = v1_apply,
    .procs_files = v1_procs_files,
    .kill_others = v1_kill_others,
    .remove = v1_remove,
    .read = v1_read,
};
