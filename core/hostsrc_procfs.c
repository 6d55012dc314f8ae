/*
 * hostsrc_procfs.c - the procfs source: a directory laid out as /proc,
 * "/proc" for the host hcisweep runs on.
 *
 * Reads stat (the cpu lines), meminfo (MemTotal, MemAvailable), vmstat
 * (pswpin, pswpout), diskstats, net/dev and pressure/{cpu,io,memory} — the
 * same files node_exporter's cpu, meminfo, vmstat, diskstats, netdev and
 * pressure collectors read, with the same units (seconds from ticks of
 * USER_HZ, 512-byte sectors, ms), so the two sources of one host agree.
 * stat is required; the rest may be absent (a container, an old kernel).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hostsrc.h"
#include "core/procfs.h"

static FILE *open_in(const struct hostsrc *s, const char *file)
{
        char path[4096];

        snprintf(path, sizeof(path), "%s/%s", (const char *)s->priv, file);
        return fopen(path, "re");
}

static int cpu_line(const char *line, struct hostsrc_cpu *c, double tick_s)
{
        unsigned long long v[8] = {0};

        if (sscanf(line, "%*s %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7]) < 4)
                return -EINVAL;
        c->user = (double)v[0] * tick_s;
        c->nice = (double)v[1] * tick_s;
        c->system = (double)v[2] * tick_s;
        c->idle = (double)v[3] * tick_s;
        c->iowait = (double)v[4] * tick_s;
        c->irq = (double)v[5] * tick_s;
        c->softirq = (double)v[6] * tick_s;
        c->steal = (double)v[7] * tick_s;
        return 0;
}

static int read_stat(struct hostsrc *s, struct hostsrc_counters *out, char *err, size_t errlen)
{
        double tick_s = (double)procfs_tick_ns() / 1e9;
        FILE *f = open_in(s, "stat");
        char line[1024];
        int total = 0;

        if (!f) {
                snprintf(err, errlen, "%s/stat: %s", (const char *)s->priv, strerror(errno));
                return -errno;
        }
        while (fgets(line, sizeof(line), f) && !strncmp(line, "cpu", 3)) {
                if (isspace((unsigned char)line[3])) {
                        total = cpu_line(line, &out->total, tick_s) == 0;
                } else if (out->ncpus < HOSTSRC_MAX_CPUS &&
                           cpu_line(line, &out->cpu[out->ncpus], tick_s) == 0) {
                        out->ncpus++;
                }
        }
        fclose(f);
        if (!total) {
                snprintf(err, errlen, "%s/stat: no cpu line", (const char *)s->priv);
                return -EINVAL;
        }
        return 0;
}

/* "Key: value" / "key value" files: call fn for each line's key and number. */
static void read_keyed(struct hostsrc *s, const char *file,
                       void (*fn)(struct hostsrc_counters *out, const char *key, double v),
                       struct hostsrc_counters *out)
{
        FILE *f = open_in(s, file);
        char line[256], key[64];
        double v;

        if (!f)
                return;
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "%63[^: ]%*[: ]%lf", key, &v) == 2)
                        fn(out, key, v);
        fclose(f);
}

static void on_meminfo(struct hostsrc_counters *out, const char *key, double v)
{
        if (!strcmp(key, "MemTotal"))
                out->mem_total_bytes = v * 1024;
        else if (!strcmp(key, "MemAvailable"))
                out->mem_available_bytes = v * 1024;
}

static void on_vmstat(struct hostsrc_counters *out, const char *key, double v)
{
        if (!strcmp(key, "pswpin"))
                out->pswpin = v;
        else if (!strcmp(key, "pswpout"))
                out->pswpout = v;
}

static int on_disk(void *user, const struct procfs_disk *d)
{
        struct hostsrc_counters *out = user;
        struct hostsrc_disk *o;
        size_t len = strlen(d->name);

        if (!hostsrc_disk_wanted(d->name) || out->ndisks == HOSTSRC_MAX_DISKS ||
            len >= sizeof(o->name))
                return 0;
        o = &out->disk[out->ndisks++];
        memcpy(o->name, d->name, len + 1); /* fits: checked above */
        o->reads = (double)d->rd_ios;
        o->writes = (double)d->wr_ios;
        o->read_s = (double)d->rd_ms / 1000;
        o->write_s = (double)d->wr_ms / 1000;
        o->io_s = (double)d->io_ms / 1000;
        o->read_bytes = (double)d->rd_sectors * 512;
        o->written_bytes = (double)d->wr_sectors * 512;
        return 0;
}

static void read_netdev(struct hostsrc *s, struct hostsrc_counters *out)
{
        FILE *f = open_in(s, "net/dev");
        char line[512], name[64];
        unsigned long long rx, tx;

        if (!f)
                return;
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, " %63[^:]: %llu %*u %*u %*u %*u %*u %*u %*u %llu", name, &rx,
                           &tx) == 3 &&
                    strcmp(name, "lo")) {
                        out->rx_bytes += (double)rx;
                        out->tx_bytes += (double)tx;
                }
        fclose(f);
}

/* pressure/FILE's "some ... total=US" line, in seconds; -1 when absent. */
static double psi_some(struct hostsrc *s, const char *file)
{
        FILE *f = open_in(s, file);
        char line[256];
        unsigned long long us;
        double v = -1;

        if (!f)
                return -1;
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "some avg10=%*f avg60=%*f avg300=%*f total=%llu", &us) == 1)
                        v = (double)us / 1e6;
        fclose(f);
        return v;
}

static int procfs_open(struct hostsrc *s, const char *where, char *err, size_t errlen)
{
        s->priv = strdup(where && *where ? where : "/proc");
        if (!s->priv) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        return 0;
}

static int procfs_read(struct hostsrc *s, struct hostsrc_counters *out, char *err, size_t errlen)
{
        char path[4096];
        int ret = read_stat(s, out, err, errlen);

        if (ret < 0)
                return ret;
        read_keyed(s, "meminfo", on_meminfo, out);
        read_keyed(s, "vmstat", on_vmstat, out);
        snprintf(path, sizeof(path), "%s/diskstats", (const char *)s->priv);
        procfs_diskstats_at(path, on_disk, out);
        read_netdev(s, out);
        out->psi_cpu_s = psi_some(s, "pressure/cpu");
        out->psi_io_s = psi_some(s, "pressure/io");
        out->psi_mem_s = psi_some(s, "pressure/memory");
        out->have_pressure = out->psi_cpu_s >= 0 && out->psi_io_s >= 0 && out->psi_mem_s >= 0;
        if (!out->have_pressure)
                out->psi_cpu_s = out->psi_io_s = out->psi_mem_s = 0;
        return 0;
}

static void procfs_close(struct hostsrc *s)
{
        free(s->priv);
}

const struct hostsrc_ops hostsrc_procfs_ops = {
    .name = "procfs", .open = procfs_open, .read = procfs_read, .close = procfs_close};
