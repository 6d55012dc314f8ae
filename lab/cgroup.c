/*
 * cgroup.c - making, limiting, emptying and removing the lab's cgroup v1
 * groups. cpuset groups start with no CPUs and no memory nodes in v1, so
 * every level made here copies its parent's before a task can join it.
 */
#include "lab/cgroup.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "lab/proc.h"

#define CG_MOUNT "/sys/fs/cgroup"

static const char *const ctrl_names[CG_NCTRL] = {"cpu", "memory", "cpuset", "cpuacct"};
static int warned[CG_NCTRL];

const char *cg_ctrl_name(enum cg_ctrl c)
{
        return ctrl_names[c];
}

static int write_file(const char *dir, const char *name, const char *val, char *err, size_t errlen)
{
        char path[LAB_PATH_MAX + 64];
        FILE *f;
        int rc = 0;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        f = fopen(path, "w");
        if (!f) {
                rc = -errno;
                snprintf(err, errlen, "%s: %s", path, strerror(errno));
                return rc;
        }
        if (fputs(val, f) == EOF)
                rc = -errno;
        if (fclose(f) == EOF && !rc)
                rc = -errno;
        if (rc)
                snprintf(err, errlen, "writing %s to %s: %s", val, path, strerror(-rc));
        return rc;
}

static void read_line(const char *dir, const char *name, char *out, size_t outlen)
{
        char path[LAB_PATH_MAX + 64];
        FILE *f;

        out[0] = '\0';
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        f = fopen(path, "r");
        if (!f)
                return;
        if (!fgets(out, (int)outlen, f))
                out[0] = '\0';
        fclose(f);
        out[strcspn(out, "\n")] = '\0';
}

/* This process's group of controller c, from /proc/self/cgroup ("/" at the root). */
static int own_group(enum cg_ctrl c, char *out, size_t outlen)
{
        char line[LAB_PATH_MAX + 64], *ctrls, *path, *tok, *save;
        FILE *f = fopen("/proc/self/cgroup", "r");
        int found = 0;

        if (!f)
                return -errno;
        while (!found && fgets(line, sizeof(line), f)) {
                ctrls = strchr(line, ':');
                path = ctrls ? strchr(ctrls + 1, ':') : NULL;
                if (!path)
                        continue;
                *path++ = '\0';
                path[strcspn(path, "\n")] = '\0';
                for (tok = strtok_r(ctrls + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
                        if (!strcmp(tok, ctrl_names[c]))
                                found = 1;
                if (found)
                        snprintf(out, outlen, "%s", strcmp(path, "/") ? path : "");
        }
        fclose(f);
        return found ? 0 : -ENOENT;
}

/* mkdir one level; a new cpuset level inherits its parent's CPUs and nodes. */
static int make_level(enum cg_ctrl c, const char *dir, char *err, size_t errlen)
{
        char parent[LAB_PATH_MAX], val[256];
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

                read_line(dir, name, val, sizeof(val));
                if (val[0])
                        continue;
                read_line(parent, name, val, sizeof(val));
                rc = write_file(dir, name, val, err, errlen);
                if (rc < 0)
                        return rc;
        }
        return 0;
}

static int make_group(enum cg_ctrl c, const char *lab, const char *leaf, char *out, size_t outlen,
                      char *err, size_t errlen)
{
        char own[LAB_PATH_MAX];
        int rc, n;

        rc = own_group(c, own, sizeof(own));
        if (rc < 0) {
                snprintf(err, errlen, "no %s controller in /proc/self/cgroup", ctrl_names[c]);
                return rc;
        }
        n = snprintf(out, outlen, "%s/%s%s/hcisweep", CG_MOUNT, ctrl_names[c], own);
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

int cg_apply(const struct cg_group *g, const struct cg_limits *lim, char *err, size_t errlen)
{
        char val[64], period[32];
        int rc = 0;

        if (g->path[CG_CPU][0]) {
                read_line(g->path[CG_CPU], "cpu.cfs_period_us", period, sizeof(period));
                if (lim->cpus > 0)
                        snprintf(
                            val, sizeof(val), "%lld",
                            (long long)(lim->cpus * (double)(period[0] ? atoll(period) : 100000)));
                else
                        snprintf(val, sizeof(val), "-1");
                rc = write_file(g->path[CG_CPU], "cpu.cfs_quota_us", val, err, errlen);
        }
        if (!rc && g->path[CG_MEMORY][0]) {
                if (lim->memory)
                        snprintf(val, sizeof(val), "%llu", (unsigned long long)lim->memory);
                else
                        snprintf(val, sizeof(val), "-1");
                rc = write_file(g->path[CG_MEMORY], "memory.limit_in_bytes", val, err, errlen);
        }
        if (!rc && g->path[CG_CPUSET][0] && lim->cpuset)
                rc = write_file(g->path[CG_CPUSET], "cpuset.cpus", lim->cpuset, err, errlen);
        return rc;
}

int cg_create(const char *lab, const char *leaf, const struct cg_limits *lim, struct cg_group *g,
              char *err, size_t errlen)
{
        char why[LAB_PATH_MAX + 64];

        memset(g, 0, sizeof(*g));
        for (int c = 0; c < CG_NCTRL; c++) {
                if (c == CG_CPUSET && !lim->cpuset)
                        continue;
                if (make_group(c, lab, leaf, g->path[c], sizeof(g->path[c]), why, sizeof(why)) <
                        0 &&
                    !warned[c]++)
                        log_warn("cgroup %s unavailable (%s): VMs run without %s limits",
                                 ctrl_names[c], why, ctrl_names[c]);
        }
        return cg_apply(g, lim, err, errlen);
}

void cg_procs_files(const struct cg_group *g, char bufs[CG_NCTRL][LAB_PATH_MAX + 16],
                    const char *files[CG_NCTRL + 1])
{
        int n = 0;

        for (int c = 0; c < CG_NCTRL; c++) {
                if (!g->path[c][0])
                        continue;
                snprintf(bufs[c], LAB_PATH_MAX + 16, "%s/cgroup.procs", g->path[c]);
                files[n++] = bufs[c];
        }
        files[n] = NULL;
}

int cg_kill_others(const struct cg_group *g, pid_t keep)
{
        char path[LAB_PATH_MAX + 16];
        pid_t killed[256];
        int n = 0, pid;
        FILE *f;

        for (int c = 0; c < CG_NCTRL; c++) {
                if (!g->path[c][0])
                        continue;
                snprintf(path, sizeof(path), "%s/cgroup.procs", g->path[c]);
                f = fopen(path, "r");
                if (!f)
                        continue;
                while (fscanf(f, "%d", &pid) == 1)
                        if (pid > 0 && pid != keep && kill(pid, SIGKILL) == 0 && n < 256)
                                killed[n++] = pid;
                fclose(f);
        }
        /* gone, so that nothing of theirs holds a file or a mount any more */
        for (int i = 0; i < n; i++)
                proc_wait_gone(killed[i], 5000);
        return n;
}

int cg_kill_all(const struct cg_group *g)
{
        return cg_kill_others(g, 0);
}

/* rmdir that waits out tasks that are still exiting (EBUSY). */
static int remove_dir(const char *dir)
{
        struct timespec ts = {0, 50 * 1000000L};

        for (int i = 0; i < 100; i++) {
                if (rmdir(dir) == 0 || errno == ENOENT)
                        return 0;
                if (errno != EBUSY)
                        return -errno;
                nanosleep(&ts, NULL);
        }
        return -EBUSY;
}

int cg_remove(struct cg_group *g, char *err, size_t errlen)
{
        char parent[LAB_PATH_MAX];
        int rc = 0, r;

        for (int c = 0; c < CG_NCTRL; c++) {
                if (!g->path[c][0])
                        continue;
                r = remove_dir(g->path[c]);
                if (r < 0) {
                        snprintf(err, errlen, "rmdir %s: %s", g->path[c], strerror(-r));
                        rc = rc ? rc : r;
                        continue;
                }
                /* The lab and hcisweep levels go once their last child has gone. */
                snprintf(parent, sizeof(parent), "%s", g->path[c]);
                for (int up = 0; up < 2; up++) {
                        *strrchr(parent, '/') = '\0';
                        if (rmdir(parent) < 0)
                                break;
                }
                g->path[c][0] = '\0';
        }
        return rc;
}

int64_t cg_read_i64(const struct cg_group *g, enum cg_ctrl c, const char *name)
{
        char val[64];
        long long v;

        if (!g->path[c][0])
                return -1;
        read_line(g->path[c], name, val, sizeof(val));
        if (!val[0])
                return -1;
        v = atoll(val);
        /* v1 spells "no memory limit" as a page-rounded LLONG_MAX. */
        if (v < 0 || v >= (1LL << 62))
                return -1;
        return v;
}

void cg_read_str(const struct cg_group *g, enum cg_ctrl c, const char *name, char *out,
                 size_t outlen)
{
        out[0] = '\0';
        if (g->path[c][0])
                read_line(g->path[c], name, out, outlen);
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
