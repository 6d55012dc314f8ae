/*
 * cgroup_v2.c - the lab's groups in the unified hierarchy (cgroup v2): one
 * directory per group. A controller reaches a leaf only when every parent
 * lists it in cgroup.subtree_control, and a group other than the root may
 * do that only while it has no processes of its own, so the parents made
 * here (hcisweep, LAB) never hold a task, and hcisweep goes below the
 * nearest group, from this process's own upwards, that can enable what
 * the leaves need. Formats: the kernel's Documentation/admin-guide/
 * cgroup-v2.rst ("max" for no limit, cpu.max "$MAX $PERIOD").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/log.h"
#include "lab/cgroup.h"
#include "lab/cgroup_file.h"
#include "lab/proc.h"

#define KILL_WAIT_MS 5000

static int warned[CG_NCTRL];

/* Does the space-separated list in dir/name (cgroup.controllers, .subtree_control) hold word? */
static int listed(const char *dir, const char *name, const char *word)
{
        char text[256], *save, *tok;

        cg_line(dir, name, text, sizeof(text));
        for (tok = strtok_r(text, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
                if (!strcmp(tok, word))
                        return 1;
        return 0;
}

static int v2_check(const struct cg_limits *lim, char *err, size_t errlen)
{
        (void)lim;
        if (listed(cg_root(), "cgroup.controllers", "cpu"))
                return 0;
        snprintf(err, errlen, "cgroup v2 at %s lists no cpu in cgroup.controllers", cg_root());
        return -ENOTSUP;
}

/* The controllers a group with lim needs, NULL-terminated. */
static void wanted(const struct cg_limits *lim, const char *out[4])
{
        int n = 0;

        out[n++] = "cpu";
        out[n++] = "memory";
        if (lim->cpuset)
                out[n++] = "cpuset";
        out[n] = NULL;
}

/* Enable every wanted controller dir has for its children, in one write
 * ("+cpu +memory"); -EBUSY when dir has processes of its own and is not
 * the root. */
static int enable(const char *dir, const char *const want[], char *err, size_t errlen)
{
        char plus[64];
        size_t len = 0;

        plus[0] = '\0';
        for (int i = 0; want[i]; i++)
                if (listed(dir, "cgroup.controllers", want[i]) &&
                    !listed(dir, "cgroup.subtree_control", want[i]))
                        len += (size_t)snprintf(plus + len, sizeof(plus) - len, "%s+%s",
                                                len ? " " : "", want[i]);
        return len ? cg_write(dir, "cgroup.subtree_control", plus, err, errlen) : 0;
}

/* dir can give its children the cpu controller: -ENOENT when it has none. */
static int can_give(const char *dir, const char *const want[], char *err, size_t errlen)
{
        if (!listed(dir, "cgroup.controllers", want[0]))
                return -ENOENT;
        return enable(dir, want, err, errlen);
}

/* The group hcisweep goes below: this process's own, or the nearest
 * ancestor that has the cpu controller and may enable it for children. */
static int base_dir(const char *const want[], char *out, size_t outlen, char *err, size_t errlen)
{
        char own[CG_PATH_MAX], *slash;
        size_t root_len = strlen(cg_root());
        int rc = cg_own_group(NULL, own, sizeof(own));

        if (rc < 0) {
                snprintf(err, errlen, "no cgroup v2 line in /proc/self/cgroup");
                return rc;
        }
        snprintf(out, outlen, "%s%s", cg_root(), own);
        while (((rc = can_give(out, want, err, errlen)) == -EBUSY || rc == -ENOENT) &&
               (slash = strrchr(out, '/')) && (size_t)(slash - out) >= root_len)
                *slash = '\0';
        /* no cpu anywhere (cg_check() let it be: --vm-cpus 0): what the group has */
        return rc == -ENOENT ? enable(out, want, err, errlen) : rc;
}

static int make_dir(const char *dir, char *err, size_t errlen)
{
        if (mkdir(dir, 0755) == 0 || errno == EEXIST)
                return 0;
        snprintf(err, errlen, "mkdir %s: %s", dir, strerror(errno));
        return -errno;
}

/* base/hcisweep/lab/leaf, the two parents enabling want for their children. */
static int make_levels(const char *lab, const char *leaf, const char *const want[], char *out,
                       size_t outlen, char *err, size_t errlen)
{
        const char *level[] = {"hcisweep", lab, leaf};
        size_t len;
        int rc = base_dir(want, out, outlen, err, errlen);

        for (int i = 0; !rc && i < 3; i++) {
                len = strlen(out);
                if (len + strlen(level[i]) + 2 > outlen) {
                        snprintf(err, errlen, "cgroup path too long");
                        return -ENAMETOOLONG;
                }
                snprintf(out + len, outlen - len, "/%s", level[i]);
                rc = make_dir(out, err, errlen);
                if (!rc && i < 2)
                        rc = enable(out, want, err, errlen);
        }
        return rc;
}

/* Record dir as g's path of every controller it got; warn once of the others. */
static void record(struct cg_group *g, const char *dir, const struct cg_limits *lim)
{
        static const enum cg_ctrl ctrls[] = {CG_CPU, CG_MEMORY, CG_CPUSET};

        snprintf(g->path[CG_CPUACCT], sizeof(g->path[CG_CPUACCT]), "%s", dir);
        for (unsigned i = 0; i < sizeof(ctrls) / sizeof(ctrls[0]); i++) {
                enum cg_ctrl c = ctrls[i];

                if (c == CG_CPUSET && !lim->cpuset)
                        continue;
                if (listed(dir, "cgroup.controllers", cg_ctrl_name(c)))
                        snprintf(g->path[c], sizeof(g->path[c]), "%s", dir);
                else if (!warned[c]++)
                        log_warn("cgroup v2 %s controller unavailable in %s: VMs run without "
                                 "%s limits",
                                 cg_ctrl_name(c), dir, cg_ctrl_name(c));
        }
}

/* cpu.max "$MAX $PERIOD": the quota for lim->cpus at the group's period. */
static int apply_cpu(const char *dir, double cpus, char *err, size_t errlen)
{
        char cur[64], val[64];
        const char *sp;
        long long period;

        cg_line(dir, "cpu.max", cur, sizeof(cur));
        sp = strchr(cur, ' ');
        period = sp ? atoll(sp + 1) : 0;
        if (period <= 0)
                period = 100000;
        if (cpus > 0)
                snprintf(val, sizeof(val), "%lld %lld", (long long)(cpus * (double)period), period);
        else
                snprintf(val, sizeof(val), "max %lld", period);
        return cg_write(dir, "cpu.max", val, err, errlen);
}

/* memory.max, and no swap beyond it: the limit is the VM's RAM. */
static int apply_memory(const char *dir, uint64_t memory, char *err, size_t errlen)
{
        char val[32];
        int rc;

        if (memory)
                snprintf(val, sizeof(val), "%llu", (unsigned long long)memory);
        else
                snprintf(val, sizeof(val), "max");
        rc = cg_write(dir, "memory.max", val, err, errlen);
        /* memory.swap.max is there only with swap accounting */
        if (!rc && cg_has(dir, "memory.swap.max"))
                rc = cg_write(dir, "memory.swap.max", memory ? "0" : "max", err, errlen);
        return rc;
}

/* cpuset.cpus, and the parent's memory nodes (empty would mean the same, said outright). */
static int apply_cpuset(const char *dir, const char *cpus, char *err, size_t errlen)
{
        char parent[CG_PATH_MAX], mems[256];
        int rc = cg_write(dir, "cpuset.cpus", cpus, err, errlen);

        snprintf(parent, sizeof(parent), "%s", dir);
        *strrchr(parent, '/') = '\0';
        cg_line(parent, "cpuset.mems.effective", mems, sizeof(mems));
        if (!rc && mems[0])
                rc = cg_write(dir, "cpuset.mems", mems, err, errlen);
        return rc;
}

static int v2_apply(const struct cg_group *g, const struct cg_limits *lim, char *err, size_t errlen)
{
        int rc = 0;

        if (g->path[CG_CPU][0])
                rc = apply_cpu(g->path[CG_CPU], lim->cpus, err, errlen);
        if (!rc && g->path[CG_MEMORY][0])
                rc = apply_memory(g->path[CG_MEMORY], lim->memory, err, errlen);
        if (!rc && g->path[CG_CPUSET][0] && lim->cpuset)
                rc = apply_cpuset(g->path[CG_CPUSET], lim->cpuset, err, errlen);
        return rc;
}

static int v2_create(const char *lab, const char *leaf, const struct cg_limits *lim,
                     struct cg_group *g, char *err, size_t errlen)
{
        const char *want[4];
        char dir[CG_PATH_MAX];
        int rc;

        memset(g, 0, sizeof(*g));
        g->version = 2;
        wanted(lim, want);
        rc = make_levels(lab, leaf, want, dir, sizeof(dir), err, errlen);
        if (rc < 0)
                return rc;
        record(g, dir, lim);
        return v2_apply(g, lim, err, errlen);
}

/* The group's one directory ("" none). */
static const char *dir_of(const struct cg_group *g)
{
        for (int c = 0; c < CG_NCTRL; c++)
                if (g->path[c][0])
                        return g->path[c];
        return "";
}

static void v2_procs_files(const struct cg_group *g, char bufs[CG_NCTRL][CG_PATH_MAX + 16],
                           const char *files[CG_NCTRL + 1])
{
        const char *dir = dir_of(g);

        files[0] = NULL;
        if (!dir[0])
                return;
        snprintf(bufs[0], CG_PATH_MAX + 16, "%s/cgroup.procs", dir);
        files[0] = bufs[0];
        files[1] = NULL;
}

/* Until dir/cgroup.procs is empty, bounded. */
static void wait_empty(const char *dir)
{
        struct timespec ts = {0, 20 * 1000000L};
        char text[16];

        for (int waited = 0; waited < KILL_WAIT_MS; waited += 20) {
                cg_text(dir, "cgroup.procs", text, sizeof(text));
                if (!text[0])
                        return;
                nanosleep(&ts, NULL);
        }
}

static int v2_kill_others(const struct cg_group *g, pid_t keep)
{
        const char *dir = dir_of(g);
        pid_t killed[256];
        char text[16], ignored[CG_PATH_MAX + 64];
        int n;

        if (!dir[0])
                return 0;
        /* cgroup.kill (Linux 5.14) kills the whole group at once, forks and all */
        if (!keep && cg_has(dir, "cgroup.kill")) {
                cg_text(dir, "cgroup.procs", text, sizeof(text));
                if (!text[0] || cg_write(dir, "cgroup.kill", "1", ignored, sizeof(ignored)) < 0)
                        return 0;
                wait_empty(dir);
                return 1;
        }
        n = cg_kill_listed(dir, keep, killed, 256);
        for (int i = 0; i < n; i++)
                proc_wait_gone(killed[i], KILL_WAIT_MS);
        return n;
}

static int v2_remove(struct cg_group *g, char *err, size_t errlen)
{
        const char *dir = dir_of(g);
        int rc;

        if (!dir[0])
                return 0;
        rc = cg_rmdir(dir);
        if (rc < 0) {
                snprintf(err, errlen, "rmdir %s: %s", dir, strerror(-rc));
                return rc;
        }
        cg_rmdir_parents(dir);
        memset(g->path, 0, sizeof(g->path));
        return 0;
}

/* cpu.max as CPUs; -1 for "max". */
static double quota_cpus(const char *dir)
{
        char val[64];
        long long quota, period;

        cg_line(dir, "cpu.max", val, sizeof(val));
        if (sscanf(val, "%lld %lld", &quota, &period) != 2 || quota <= 0 || period <= 0)
                return -1;
        return (double)quota / (double)period;
}

static void v2_read(const struct cg_group *g, struct cg_stats *st)
{
        const char *dir = dir_of(g);
        char text[2048];

        if (!dir[0])
                return;
        if (g->path[CG_CPU][0])
                st->cpus = quota_cpus(dir);
        if (g->path[CG_MEMORY][0]) {
                cg_line(dir, "memory.max", text, sizeof(text));
                st->mem_limit = cg_bytes(text);
                cg_line(dir, "memory.current", text, sizeof(text));
                st->mem_usage = cg_bytes(text);
                st->failcnt = cg_key(dir, "memory.events", "max");
                st->oom_kills = cg_key(dir, "memory.events", "oom_kill");
                st->majflt = cg_key(dir, "memory.stat", "pgmajfault");
        }
        if (g->path[CG_CPUSET][0])
                cg_line(dir, "cpuset.cpus", st->cpuset, sizeof(st->cpuset));
        cg_text(dir, "cpu.stat", text, sizeof(text));
        cg_parse_cpustat(text, st);
}

const struct cg_ops cg_v2_ops = {
    .version = 2,
    .check = v2_check,
    .create = v2_create,
    .apply = v2_apply,
    .procs_files = v2_procs_files,
    .kill_others = v2_kill_others,
    .remove = v2_remove,
    .read = v2_read,
};
