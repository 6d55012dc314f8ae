/*
 * scale_probe.c - the counters `hcisweep scale` reads at the start and end
 * of each measured window: the disk holding the datadirs (/proc/diskstats:
 * utilisation, bytes, mean latency), the storage service (tgtd's
 * /proc/PID/io and CPU time), the host's swapping (/proc/vmstat) and each
 * local VM's mariadbd (CPU time, major faults) and memory cgroup
 * (memory.failcnt, the oom_kill count of memory.oom_control). Reading
 * counters at both ends of the window, rather than sampling, makes the
 * figures cover exactly the measured seconds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/clock.h"
#include "scale/scale.h"

struct scale_probe {
        char dir[512]; /* where the datadirs are (may not exist before the first step) */
        char disk[64];
        int tgt_pid;
        int pid[LAB_MAX_VMS + 1];
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

void scale_probe_set(struct scale_probe *p, int tgt_pid, const int *pids, unsigned n)
{
        if (!p->disk[0])
                find_disk(p->dir, p->disk, sizeof(p->disk));
        p->tgt_pid = tgt_pid;
        p->n = n > LAB_MAX_VMS ? LAB_MAX_VMS : n;
        for (unsigned i = 1; i <= p->n; i++)
                p->pid[i] = pids[i];
}

const char *scale_probe_disk(const struct scale_probe *p)
{
        return p->disk;
}

static void read_disk(const struct scale_probe *p, struct scale_snap *s)
{
        unsigned long long rio, rsec, rticks, wio, wsec, wticks, busy;
        char line[512], name[64];
        FILE *f;

        if (!p->disk[0] || !(f = fopen("/proc/diskstats", "re")))
                return;
        while (fgets(line, sizeof(line), f)) {
                if (sscanf(line, "%*u %*u %63s %llu %*u %llu %llu %llu %*u %llu %llu %*u %llu",
                           name, &rio, &rsec, &rticks, &wio, &wsec, &wticks, &busy) != 8 ||
                    strcmp(name, p->disk))
                        continue;
                s->have_disk = 1;
                s->disk_ios = rio + wio;
                s->disk_sectors = rsec + wsec;
                s->disk_ticks_ms = rticks + wticks;
                s->disk_busy_ms = busy;
        }
        fclose(f);
}

/* utime+stime in ns and majflt from /proc/PID/stat; -1 when gone. */
static int64_t read_pid_stat(int pid, uint64_t *majflt)
{
        unsigned long long maj, ut, st;
        char path[64], buf[1024], *q;
        size_t n;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%d/stat", pid);
        if (pid <= 0 || !(f = fopen(path, "re")))
                return -1;
        n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = '\0';
        q = strrchr(buf, ')');
        if (!q || sscanf(q + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %llu %*u %llu %llu", &maj, &ut,
                         &st) != 3)
                return -1;
        if (majflt)
                *majflt = maj;
        return (int64_t)((ut + st) * (1000000000ULL / (unsigned long long)sysconf(_SC_CLK_TCK)));
}

static void read_tgt(const struct scale_probe *p, struct scale_snap *s)
{
        unsigned long long v;
        char path[64], key[32];
        FILE *f;

        s->tgt_cpu_ns = read_pid_stat(p->tgt_pid, NULL);
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

static uint64_t vmstat_swap(void)
{
        unsigned long long v, sum = 0;
        char key[64];
        FILE *f = fopen("/proc/vmstat", "re");

        if (!f)
                return 0;
        while (fscanf(f, "%63s %llu", key, &v) == 2)
                if (!strcmp(key, "pswpin") || !strcmp(key, "pswpout"))
                        sum += v;
        fclose(f);
        return sum;
}

/* The memory cgroup directory of pid (cgroup v1), "" if none. */
static void memcg_dir(int pid, char *out, size_t len)
{
        char path[64], line[600];
        FILE *f;

        out[0] = '\0';
        snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
        if (!(f = fopen(path, "re")))
                return;
        while (fgets(line, sizeof(line), f)) {
                char *m = strstr(line, ":memory:");

                if (!m)
                        continue;
                m[strcspn(m, "\n")] = '\0';
                snprintf(out, len, "/sys/fs/cgroup/memory%s", m + 8);
        }
        fclose(f);
}

static uint64_t read_key(const char *path, const char *key)
{
        unsigned long long v = 0, x;
        char k[64];
        FILE *f = fopen(path, "re");

        if (!f)
                return 0;
        if (!key) {
                if (fscanf(f, "%llu", &v) != 1)
                        v = 0;
        } else {
                while (fscanf(f, "%63s %llu", k, &x) == 2)
                        if (!strcmp(k, key))
                                v = x;
        }
        fclose(f);
        return v;
}

static void read_vm(int pid, unsigned i, struct scale_snap *s)
{
        char dir[560], path[600];

        s->vm_cpu_ns[i] = read_pid_stat(pid, &s->vm_majflt[i]);
        memcg_dir(pid, dir, sizeof(dir));
        if (!dir[0])
                return;
        snprintf(path, sizeof(path), "%s/memory.failcnt", dir);
        s->vm_failcnt[i] = read_key(path, NULL);
        snprintf(path, sizeof(path), "%s/memory.oom_control", dir);
        s->vm_oom[i] = read_key(path, "oom_kill");
}

void scale_probe_take(const struct scale_probe *p, struct scale_snap *s)
{
        memset(s, 0, sizeof(*s));
        s->t_ns = clk_now_ns();
        read_disk(p, s);
        read_tgt(p, s);
        s->swap_pages = vmstat_swap();
        for (unsigned i = 1; i <= p->n; i++)
                read_vm(p->pid[i], i, s);
}

static uint64_t up(uint64_t b, uint64_t a)
{
        return b > a ? b - a : 0;
}

static void disk_rates(const struct scale_snap *a, const struct scale_snap *b, double secs,
                       struct scale_rates *r)
{
        uint64_t ios = up(b->disk_ios, a->disk_ios);

        r->disk_util_pct = r->disk_bytes_s = r->disk_iops = r->disk_lat_ms = -1;
        if (!a->have_disk || !b->have_disk)
                return;
        r->disk_util_pct = (double)up(b->disk_busy_ms, a->disk_busy_ms) / (secs * 10.0);
        if (r->disk_util_pct > 100)
                r->disk_util_pct = 100;
        r->disk_bytes_s = (double)up(b->disk_sectors, a->disk_sectors) * 512.0 / secs;
        r->disk_iops = (double)ios / secs;
        if (ios)
                r->disk_lat_ms = (double)up(b->disk_ticks_ms, a->disk_ticks_ms) / (double)ios;
}

static void tgt_rates(const struct scale_snap *a, const struct scale_snap *b, double secs,
                      struct scale_rates *r)
{
        r->tgt_cpu_pct = r->tgt_io_bytes_s = r->tgt_disk_bytes_s = -1;
        if (a->tgt_cpu_ns >= 0 && b->tgt_cpu_ns >= a->tgt_cpu_ns)
                r->tgt_cpu_pct = (double)(b->tgt_cpu_ns - a->tgt_cpu_ns) / (secs * 1e7);
        if (!a->have_tgt || !b->have_tgt)
                return;
        /* Each payload byte passes tgtd twice (socket and LUN file): halve. */
        r->tgt_io_bytes_s =
            (double)(up(b->tgt_rchar, a->tgt_rchar) + up(b->tgt_wchar, a->tgt_wchar)) / 2.0 / secs;
        r->tgt_disk_bytes_s = (double)(up(b->tgt_read_bytes, a->tgt_read_bytes) +
                                       up(b->tgt_write_bytes, a->tgt_write_bytes)) /
                              secs;
}

void scale_probe_rates(const struct scale_probe *p, const struct scale_snap *a,
                       const struct scale_snap *b, struct scale_rates *r)
{
        double secs = (double)(b->t_ns - a->t_ns) / 1e9;

        memset(r, 0, sizeof(*r));
        if (secs <= 0)
                secs = 1e-9;
        r->seconds = secs;
        disk_rates(a, b, secs, r);
        tgt_rates(a, b, secs, r);
        r->swap_pages = up(b->swap_pages, a->swap_pages);
        for (unsigned i = 1; i <= LAB_MAX_VMS; i++) {
                r->vm_cpu_pct[i] = -1;
                if (i > p->n)
                        continue;
                if (a->vm_cpu_ns[i] >= 0 && b->vm_cpu_ns[i] >= a->vm_cpu_ns[i])
                        r->vm_cpu_pct[i] =
                            (double)(b->vm_cpu_ns[i] - a->vm_cpu_ns[i]) / (secs * 1e7);
                r->majflt += up(b->vm_majflt[i], a->vm_majflt[i]);
                r->failcnt += up(b->vm_failcnt[i], a->vm_failcnt[i]);
                r->oom_kills += up(b->vm_oom[i], a->vm_oom[i]);
        }
}
