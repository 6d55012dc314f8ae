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
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hostsrc.h"
#include "core/procfs.h"

static void path_in(const struct hostsrc *s, const char *file, char *path, size_t len)
{
        snprintf(path, len, "%s/%s", (const char *)s->priv, file);
}

static FILE *open_in(const struct hostsrc *s, const char *file)
{
        char path[4096];

        path_in(s, file, path, sizeof(path));
        return fopen(path, "re");
}

struct stat_pass {
        struct hostsrc_counters *out;
        double tick_s;
};

static void cpu_of(const struct procfs_cpu *p, double tick_s, struct hostsrc_cpu *c)
{
        *c = (struct hostsrc_cpu){(double)p->user * tick_s,    (double)p->nice * tick_s,
                                  (double)p->system * tick_s,  (double)p->idle * tick_s,
                                  (double)p->iowait * tick_s,  (double)p->irq * tick_s,
                                  (double)p->softirq * tick_s, (double)p->steal * tick_s};
}

/* CPUs by id, as node_exporter and libvirt give them: an offline CPU leaves a hole. */
static int on_cpu(void *user, const struct procfs_cpu *c)
{
        struct stat_pass *sp = user;
        struct hostsrc_counters *out = sp->out;

        if (c->id < 0) {
                cpu_of(c, sp->tick_s, &out->total);
        } else if (c->id < HOSTSRC_MAX_CPUS) {
                cpu_of(c, sp->tick_s, &out->cpu[c->id]);
                if ((unsigned)c->id + 1 > out->ncpus)
                        out->ncpus = (unsigned)c->id + 1;
        }
        return 0;
}

static int read_stat(struct hostsrc *s, struct hostsrc_counters *out, char *err, size_t errlen)
{
        struct stat_pass sp = {out, (double)procfs_tick_ns() / 1e9};
        char path[4096];
        int ret;

        path_in(s, "stat", path, sizeof(path));
        ret = procfs_stat_at(path, on_cpu, &sp);
        if (ret == -EINVAL)
                snprintf(err, errlen, "%s: no cpu line", path);
        else if (ret < 0)
                snprintf(err, errlen, "%s: %s", path, strerror(-ret));
        return ret;
}

static int on_meminfo(void *user, const char *key, uint64_t v)
{
        struct hostsrc_counters *out = user;

        if (!strcmp(key, "MemTotal"))
                out->mem_total_bytes = (double)v * 1024;
        else if (!strcmp(key, "MemAvailable"))
                out->mem_available_bytes = (double)v * 1024;
        return 0;
}

static int on_vmstat(void *user, const char *key, uint64_t v)
{
        struct hostsrc_counters *out = user;

        if (!strcmp(key, "pswpin"))
                out->pswpin = (double)v;
        else if (!strcmp(key, "pswpout"))
                out->pswpout = (double)v;
        return 0;
}

static int on_disk(void *user, const struct procfs_disk *d)
{
        struct hostsrc_counters *out = user;

        if (hostsrc_disk_wanted(d->name) && out->ndisks < HOSTSRC_MAX_DISKS &&
            hostsrc_disk_of_procfs(d, &out->disk[out->ndisks]) == 0)
                out->ndisks++;
        return 0;
}

static int on_net(void *user, const struct procfs_net *pn)
{
        struct hostsrc_net *n = hostsrc_net_of(user, pn->name);

        if (!n)
                return 0;
        n->rx_bytes = (double)pn->rx_bytes;
        n->tx_bytes = (double)pn->tx_bytes;
        n->rx_packets = (double)pn->rx_packets;
        n->tx_packets = (double)pn->tx_packets;
        return 0;
}

/* An optional file: its family is gone from this read when the file is. */
static void read_opt(struct hostsrc_counters *out, unsigned family, int rc)
{
        if (rc < 0)
                out->have &= ~family;
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
        path_in(s, "meminfo", path, sizeof(path));
        read_opt(out, HOSTSRC_MEM, procfs_keyed_at(path, on_meminfo, out));
        path_in(s, "vmstat", path, sizeof(path));
        read_opt(out, HOSTSRC_SWAP, procfs_keyed_at(path, on_vmstat, out));
        path_in(s, "diskstats", path, sizeof(path));
        read_opt(out, HOSTSRC_DISKS, procfs_diskstats_at(path, on_disk, out));
        path_in(s, "net/dev", path, sizeof(path));
        read_opt(out, HOSTSRC_NET, procfs_netdev_at(path, on_net, out));
        out->psi_cpu_s = psi_some(s, "pressure/cpu");
        out->psi_io_s = psi_some(s, "pressure/io");
        out->psi_mem_s = psi_some(s, "pressure/memory");
        out->have_pressure = out->psi_cpu_s >= 0 && out->psi_io_s >= 0 && out->psi_mem_s >= 0;
        if (!out->have_pressure) {
                out->psi_cpu_s = out->psi_io_s = out->psi_mem_s = 0;
                out->have &= ~HOSTSRC_PSI;
        }
        return 0;
}

static void procfs_close(struct hostsrc *s)
{
        free(s->priv);
}

const struct hostsrc_ops hostsrc_procfs_ops = {.name = "procfs",
                                               .caps = HOSTSRC_ALL,
                                               .where = HOSTSRC_AT_DIR,
                                               .open = procfs_open,
                                               .read = procfs_read,
                                               .close = procfs_close};
