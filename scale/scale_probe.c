/*
 * scale_probe.c - the per-process and per-VM counters `hcisweep scale`
 * reads at the start and end of each measured window: each VM's disk (its
 * loop device when the datadir is on its LUN) and the disk holding the lab
 * directory (/proc/diskstats, turned into rates by hostsrc_disk_rate, as
 * every disk is), the storage service (tgtd's /proc/PID/io and CPU time,
 * user and system), and each
 * local VM's mariadbd and initiator (CPU time, major faults) and cgroups,
 * v1 or v2 through lab/cgroup.h (its CPU usage: the whole VM, whatever runs
 * in it; its quota's throttling; memory limit hits, OOM kills and major
 * faults). Reading
 * counters at both ends of the window, rather than sampling, makes the
 * figures cover exactly the measured seconds.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/procfs.h"
#include "lab/cgroup.h"
#include "scale/scale.h"

struct scale_probe {
        char dir[512]; /* where the datadirs are (may not exist before the first step) */
        char disk[64];
        int tgt_pid;
        struct scale_follow vm[LAB_MAX_VMS + 1];
        unsigned n;
};

/* The block device of dir's file system, by its major:minor in sysfs. */
static void find_disk(const char *dir, char *out, size_t len)
{
        char path[128], line[256];
        struct stat sb;
        FILE *f;

        out[0] = '\0';
        if (stat(dir, &sb) < 0 || major(sb.st_dev) == 0)
                return;
        snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", major(sb.st_dev),
                 minor(sb.st_dev));
        f = fopen(path, "re");
        if (!f)
                return;
        while (fgets(line, sizeof(line), f))
                if (!strncmp(line, "DEVNAME=", 8)) {
                        line[strcspn(line, "\n")] = '\0';
                        snprintf(out, len, "%.63s", line + 8);
                }
        fclose(f);
}

struct scale_probe *scale_probe_new(const char *dir)
{
        struct scale_probe *p = calloc(1, sizeof(*p));

        if (p)
                snprintf(p->dir, sizeof(p->dir), "%s", dir);
        return p;
}

void scale_probe_free(struct scale_probe *p)
{
        free(p);
}

void scale_probe_set(struct scale_probe *p, int tgt_pid, const struct scale_follow *vm, unsigned n)
{
        if (!p->disk[0])
                find_disk(p->dir, p->disk, sizeof(p->disk));
        p->tgt_pid = tgt_pid;
        p->n = n > LAB_MAX_VMS ? LAB_MAX_VMS : n;
        for (unsigned i = 1; i <= p->n; i++)
                p->vm[i] = vm[i];
}

const char *scale_probe_disk(const struct scale_probe *p)
{
        return p->disk;
}

static void dstat_set(struct scale_dstat *d, const struct procfs_disk *pd)
{
        d->have = hostsrc_disk_of_procfs(pd, &d->d) == 0;
}

struct disk_pass {
        const struct scale_probe *p;
        struct scale_snap *s;
};

static int on_disk(void *user, const struct procfs_disk *d)
{
        struct disk_pass *dp = user;
        const struct scale_probe *p = dp->p;

        if (p->disk[0] && !strcmp(d->name, p->disk))
                dstat_set(&dp->s->disk, d);
        for (unsigned i = 1; i <= p->n; i++)
                if (p->vm[i].disk[0] && !strcmp(d->name, p->vm[i].disk))
                        dstat_set(&dp->s->vd[i], d);
        return 0;
}

/* One pass over /proc/diskstats for the host disk and every VM's disk. */
static void read_disk(const struct scale_probe *p, struct scale_snap *s)
{
        struct disk_pass dp = {p, s};

        procfs_diskstats(on_disk, &dp);
}

/* utime and stime in ns and majflt from /proc/PID/stat; -1 when gone. */
static int read_pid_times(int pid, int64_t *user, int64_t *sys, uint64_t *majflt)
{
        struct procfs_stat st;
        uint64_t tick = procfs_tick_ns();

        if (procfs_pid_stat(pid, &st) < 0)
                return -1;
        if (majflt)
                *majflt = st.majflt;
        *user = (int64_t)(st.utime * tick);
        *sys = (int64_t)(st.stime * tick);
        return 0;
}

/* utime+stime in ns and majflt; -1 when gone. */
static int64_t read_pid_stat(int pid, uint64_t *majflt)
{
        int64_t u, sy;

        return read_pid_times(pid, &u, &sy, majflt) < 0 ? -1 : u + sy;
}

static void read_tgt(const struct scale_probe *p, struct scale_snap *s)
{
        unsigned long long v;
        char path[64], key[32];
        FILE *f;

        s->tgt_cpu_ns = s->tgt_user_ns = s->tgt_sys_ns = -1;
        if (read_pid_times(p->tgt_pid, &s->tgt_user_ns, &s->tgt_sys_ns, NULL) == 0)
                s->tgt_cpu_ns = s->tgt_user_ns + s->tgt_sys_ns;
        snprintf(path, sizeof(path), "/proc/%d/io", p->tgt_pid);
        if (p->tgt_pid <= 0 || !(f = fopen(path, "re")))
                return;
        s->have_tgt = 1;
        while (fscanf(f, "%31[^:]: %llu\n", key, &v) == 2) {
                if (!strcmp(key, "rchar"))
                        s->tgt_rchar = v;
                else if (!strcmp(key, "wchar"))
                        s->tgt_wchar = v;
                else if (!strcmp(key, "read_bytes"))
                        s->tgt_read_bytes = v;
                else if (!strcmp(key, "write_bytes"))
                        s->tgt_write_bytes = v;
        }
        fclose(f);
}

/* VM i's cgroups, either version (cgroup.h): its CPU time and throttling,
 * its memory limit hits and OOM kills, and its major faults. */
static void read_vm_cg(const struct scale_follow *v, unsigned i, struct scale_snap *s)
{
        struct cg_stats cs;

        cg_read(&v->cg, &cs);
        s->vm_cg[i] = (struct scale_cgcpu){cs.usage_ns, cs.periods, cs.throttled, cs.throttled_ns};
        s->vm_failcnt[i] = cs.failcnt > 0 ? (uint64_t)cs.failcnt : 0;
        s->vm_oom[i] = cs.oom_kills > 0 ? (uint64_t)cs.oom_kills : 0;
        s->vm_cg_majflt[i] = cs.majflt;
}

static void read_vm(const struct scale_follow *v, unsigned i, struct scale_snap *s)
{
        read_vm_cg(v, i, s);
        s->vm_cpu_ns[i] = read_pid_stat(v->pid, &s->vm_majflt[i]);
        s->ini_cpu_ns[i] = v->initiator > 0 ? read_pid_stat(v->initiator, NULL) : -1;
        /* the group counts every process of the VM (server, initiator, forks) */
        if (s->vm_cg_majflt[i] >= 0)
                s->vm_majflt[i] = (uint64_t)s->vm_cg_majflt[i];
}

void scale_probe_take(const struct scale_probe *p, struct scale_snap *s)
{
        memset(s, 0, sizeof(*s));
        s->t_ns = clk_now_ns();
        read_disk(p, s);
        read_tgt(p, s);
        s->self_cpu_ns = read_pid_stat(getpid(), NULL);
        for (unsigned i = 1; i <= p->n; i++)
                read_vm(&p->vm[i], i, s);
}

static uint64_t up(uint64_t b, uint64_t a)
{
        return b > a ? b - a : 0;
}

/* One disk's window (hostsrc_disk_rate); all -1 when unknown at either end or gone back. */
static void drate(const struct scale_dstat *a, const struct scale_dstat *b, double secs,
                  struct scale_drate *r, struct hostsrc_disk_rate *hr)
{
        *r = (struct scale_drate){-1, -1, -1, -1};
        memset(hr, 0, sizeof(*hr));
        if (!a->have || !b->have || hostsrc_disk_rate(&a->d, &b->d, secs, hr) < 0)
                return;
        *r = (struct scale_drate){.iops = hr->iops,
                                  .bytes_s = hr->read_bytes_s + hr->write_bytes_s,
                                  .lat_ms = hr->lat_ms,
                                  .util_pct = hr->util_pct};
}

/* The storage path's disk figures: the VMs' disks when there are any. */
static void disk_rates(const struct scale_probe *p, const struct scale_snap *a,
                       const struct scale_snap *b, double secs, struct scale_rates *r)
{
        struct hostsrc_disk_rate hr;
        double ios = 0, lat_sum = 0;

        drate(&a->disk, &b->disk, secs, &r->host, &hr);
        r->disk_util_pct = r->host.util_pct;
        r->disk_bytes_s = r->host.bytes_s;
        r->disk_iops = r->host.iops;
        r->disk_lat_ms = r->host.lat_ms;
        r->vdisks = 0;
        for (unsigned i = 1; i <= p->n; i++) {
                drate(&a->vd[i], &b->vd[i], secs, &r->vd[i], &hr);
                snprintf(r->vd_dev[i], sizeof(r->vd_dev[i]), "%s", p->vm[i].disk);
                if (r->vd[i].iops < 0)
                        continue;
                if (!r->vdisks++)
                        r->disk_util_pct = r->disk_bytes_s = r->disk_iops = 0;
                r->disk_iops += r->vd[i].iops;
                r->disk_bytes_s += r->vd[i].bytes_s;
                if (r->vd[i].util_pct > r->disk_util_pct)
                        r->disk_util_pct = r->vd[i].util_pct;
                ios += hr.ios; /* latency over all their I/Os */
                lat_sum += hr.lat_ms * hr.ios;
        }
        if (r->vdisks)
                r->disk_lat_ms = ios > 0 ? lat_sum / ios : 0;
}

static void tgt_rates(const struct scale_snap *a, const struct scale_snap *b, double secs,
                      struct scale_rates *r)
{
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

        r->tgt_cpu_pct = r->tgt_io_bytes_s = r->tgt_disk_bytes_s = -1;
        r->tgt_user_pct = r->tgt_sys_pct = r->tgt_host_pct = -1;
        if (a->tgt_cpu_ns >= 0 && b->tgt_cpu_ns >= a->tgt_cpu_ns) {
                r->tgt_cpu_pct = (double)(b->tgt_cpu_ns - a->tgt_cpu_ns) / (secs * 1e7);
                r->tgt_user_pct = (double)(b->tgt_user_ns - a->tgt_user_ns) / (secs * 1e7);
                r->tgt_sys_pct = (double)(b->tgt_sys_ns - a->tgt_sys_ns) / (secs * 1e7);
                r->tgt_host_pct = r->tgt_cpu_pct / (double)(ncpu > 0 ? ncpu : 1);
        }
        if (!a->have_tgt || !b->have_tgt)
                return;
        /* Each payload byte passes tgtd twice (socket and LUN file): halve. */
        r->tgt_io_bytes_s =
            (double)(up(b->tgt_rchar, a->tgt_rchar) + up(b->tgt_wchar, a->tgt_wchar)) / 2.0 / secs;
        r->tgt_disk_bytes_s = (double)(up(b->tgt_read_bytes, a->tgt_read_bytes) +
                                       up(b->tgt_write_bytes, a->tgt_write_bytes)) /
                              secs;
}

/* A counter's growth, -1 when unknown at either end or gone backwards (a new group). */
static double grew(int64_t a, int64_t b)
{
        return a >= 0 && b >= a ? (double)(b - a) : -1;
}

/* VM i's cgroup over the window: its usage replaces the processes' sum. */
static void cg_rates(const struct scale_cgcpu *a, const struct scale_cgcpu *b, double secs,
                     struct scale_rates *r, unsigned i)
{
        double use = grew(a->usage_ns, b->usage_ns), thr = grew(a->throttled_ns, b->throttled_ns);

        if (use >= 0) {
                r->vm_cpu_pct[i] = use / (secs * 1e7);
                r->vm_cpu_cg[i] = 1;
        }
        r->vm_periods[i] = grew(a->periods, b->periods);
        r->vm_throttled[i] = grew(a->throttled, b->throttled);
        r->vm_throttled_s[i] = thr >= 0 ? thr / 1e9 : -1;
}

void scale_probe_rates(const struct scale_probe *p, const struct scale_snap *a,
                       const struct scale_snap *b, struct scale_rates *r)
{
        double secs = (double)(b->t_ns - a->t_ns) / 1e9;

        memset(r, 0, sizeof(*r));
        if (secs <= 0)
                secs = 1e-9;
        r->seconds = secs;
        disk_rates(p, a, b, secs, r);
        tgt_rates(a, b, secs, r);
        r->self_cpu_pct = -1;
        if (a->self_cpu_ns >= 0 && b->self_cpu_ns >= a->self_cpu_ns)
                r->self_cpu_pct = (double)(b->self_cpu_ns - a->self_cpu_ns) / (secs * 1e7);
        for (unsigned i = 1; i <= LAB_MAX_VMS; i++) {
                r->vm_cpu_pct[i] = r->ini_cpu_pct[i] = -1;
                r->vm_periods[i] = r->vm_throttled[i] = r->vm_throttled_s[i] = -1;
                if (i > p->n)
                        continue;
                if (a->ini_cpu_ns[i] >= 0 && b->ini_cpu_ns[i] >= a->ini_cpu_ns[i])
                        r->ini_cpu_pct[i] =
                            (double)(b->ini_cpu_ns[i] - a->ini_cpu_ns[i]) / (secs * 1e7);
                if (a->vm_cpu_ns[i] >= 0 && b->vm_cpu_ns[i] >= a->vm_cpu_ns[i])
                        r->vm_cpu_pct[i] =
                            (double)(b->vm_cpu_ns[i] - a->vm_cpu_ns[i]) / (secs * 1e7) +
                            (r->ini_cpu_pct[i] > 0 ? r->ini_cpu_pct[i] : 0);
                cg_rates(&a->vm_cg[i], &b->vm_cg[i], secs, r, i);
                r->majflt += up(b->vm_majflt[i], a->vm_majflt[i]);
                r->failcnt += up(b->vm_failcnt[i], a->vm_failcnt[i]);
                r->oom_kills += up(b->vm_oom[i], a->vm_oom[i]);
        }
}
