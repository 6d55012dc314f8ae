/*
 * cgroup.c - the one cgroup interface: which implementation the root calls
 * for, and the calls that dispatch to a group's own version.
 */
#include "lab/cgroup.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/cgroup_file.h"

#define CG_MOUNT "/sys/fs/cgroup"

static const char *const ctrl_names[CG_NCTRL] = {"cpu", "memory", "cpuset", "cpuacct"};

static struct {
        int set;
        char mount[CG_PATH_MAX];
        char self[CG_PATH_MAX]; /* "" none set: /proc/self/cgroup */
        const struct cg_ops *ops;
} root;

const char *cg_ctrl_name(enum cg_ctrl c)
{
        return ctrl_names[c];
}

const char *cg_root(void)
{
        const char *env = getenv("HCISWEEP_CGROUP_ROOT");

        if (root.set)
                return root.mount;
        return env && env[0] ? env : CG_MOUNT;
}

void cg_use_root(const char *mount, const char *self)
{
        root.set = mount != NULL;
        snprintf(root.mount, sizeof(root.mount), "%s", mount ? mount : "");
        snprintf(root.self, sizeof(root.self), "%s", self ? self : "");
        root.ops = NULL;
}

const struct cg_ops *cg_ops_now(void)
{
        if (!root.ops)
                root.ops = cg_has(cg_root(), "cgroup.controllers") ? &cg_v2_ops : &cg_v1_ops;
        return root.ops;
}

static const struct cg_ops *ops_of(const struct cg_group *g)
{
        return g->version == 2 ? &cg_v2_ops : &cg_v1_ops;
}

/* Does the /proc/self/cgroup line's controller list ("cpu,cpuacct", "" in v2) name name? */
static int names(char *list, const char *name)
{
        char *save, *tok;

        if (!name)
                return !list[0];
        for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
                if (!strcmp(tok, name))
                        return 1;
        return 0;
}

int cg_own_group(const char *name, char *out, size_t outlen)
{
        char line[CG_PATH_MAX + 64], *ctrls, *path;
        FILE *f;
        int found = 0;

        if (root.set && root.self[0]) {
                snprintf(out, outlen, "%s", strcmp(root.self, "/") ? root.self : "");
                return 0;
        }
        if (!(f = fopen("/proc/self/cgroup", "re")))
                return -errno;
        while (!found && fgets(line, sizeof(line), f)) {
                ctrls = strchr(line, ':');
                path = ctrls ? strchr(ctrls + 1, ':') : NULL;
                if (!path)
                        continue;
                *path++ = '\0';
                path[strcspn(path, "\n")] = '\0';
                found = names(ctrls + 1, name);
                if (found)
                        snprintf(out, outlen, "%s", strcmp(path, "/") ? path : "");
        }
        fclose(f);
        return found ? 0 : -ENOENT;
}

int cg_check(const struct cg_limits *lim, char *err, size_t errlen)
{
        char why[CG_PATH_MAX + 128];

        if (lim->cpus <= 0 || cg_ops_now()->check(lim, why, sizeof(why)) == 0)
                return 0;
        snprintf(err, errlen,
                 "no cgroup CPU controller (%s), so --vm-cpus %g cannot be applied: enable it, "
                 "or give --vm-cpus 0 to run the VMs without a CPU limit on purpose",
                 why, lim->cpus);
        return -ENOTSUP;
}

int cg_create(const char *lab, const char *leaf, const struct cg_limits *lim, struct cg_group *g,
              char *err, size_t errlen)
{
        return cg_ops_now()->create(lab, leaf, lim, g, err, errlen);
}

int cg_apply(const struct cg_group *g, const struct cg_limits *lim, char *err, size_t errlen)
{
        return ops_of(g)->apply(g, lim, err, errlen);
}

void cg_procs_files(const struct cg_group *g, char bufs[CG_NCTRL][CG_PATH_MAX + 16],
                    const char *files[CG_NCTRL + 1])
{
        ops_of(g)->procs_files(g, bufs, files);
}

int cg_kill_others(const struct cg_group *g, pid_t keep)
{
        return ops_of(g)->kill_others(g, keep);
}

int cg_kill_all(const struct cg_group *g)
{
        return cg_kill_others(g, 0);
}

int cg_remove(struct cg_group *g, char *err, size_t errlen)
{
        return ops_of(g)->remove(g, err, errlen);
}

void cg_read(const struct cg_group *g, struct cg_stats *st)
{
        memset(st, 0, sizeof(*st));
        st->cpus = -1;
        st->mem_limit = st->mem_usage = st->usage_ns = st->periods = st->throttled = -1;
        st->throttled_ns = st->failcnt = st->oom_kills = st->majflt = -1;
        ops_of(g)->read(g, st);
}

const cpu_set_t *cg_affinity(const struct cg_group *g, const char *list, cpu_set_t *set)
{
        const char *p = list;

        if (!list[0] || g->path[CG_CPUSET][0])
                return NULL;
        CPU_ZERO(set);
        while (*p) {
                CPU_SET(atoi(p), set);
                p += strcspn(p, ",");
                p += *p == ',';
        }
        return set;
}

void cg_parse_cpustat(const char *text, struct cg_stats *st)
{
        static const struct {
                const char *key;
                size_t off;
                int64_t scale; /* to the field's unit */
        } keys[] = {
            {"usage_usec", offsetof(struct cg_stats, usage_ns), 1000},
            {"nr_periods", offsetof(struct cg_stats, periods), 1},
            {"nr_throttled", offsetof(struct cg_stats, throttled), 1},
            {"throttled_usec", offsetof(struct cg_stats, throttled_ns), 1000},
            {"throttled_time", offsetof(struct cg_stats, throttled_ns), 1},
        };
        unsigned long long v;
        char k[64];
        int used;

        while (text && sscanf(text, "%63s %llu%n", k, &v, &used) == 2) {
                for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
                        if (!strcmp(k, keys[i].key))
                                *(int64_t *)((char *)st + keys[i].off) = (int64_t)v * keys[i].scale;
                text += used;
        }
}
