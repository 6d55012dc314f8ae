/*
 * hostsrc_libvirt.c - the `libvirt` host-metrics source (hostsrc_libvirt.h):
 * a hypervisor's node CPU and memory counters, read through a connection
 * the backend holds.
 */
#include "lab/hostsrc_libvirt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libvirt/virterror.h>

#define NS              1e9
#define MAX_NODE_PARAMS 16

struct lv_src {
        virConnectPtr conn; /* a reference of our own */
        int ncpu_params;    /* virNodeGetCPUStats' field count, 0 until asked */
        int nmem_params;
};

static const char *lv_error(void)
{
        const char *m = virGetLastErrorMessage();

        return m ? m : "unknown libvirt error";
}

/* On the connection lent (struct hostsrc_libvirt_conn): opened by its URI alone it would
 * be a connection of its own, a second ssh session for qemu+ssh://. */
static int lv_open(struct hostsrc *s, const char *where, char *err, size_t errlen)
{
        const struct hostsrc_libvirt_conn *lent = s->lent;
        struct lv_src *p;

        if (!lent) {
                snprintf(err, errlen,
                         "the libvirt source reads a libvirt lab's connection (%s): open it "
                         "on the connection the lab's backend lends",
                         where);
                return -ENOTSUP;
        }
        if (!lent->conn) {
                snprintf(err, errlen, "%s", lent->why[0] ? lent->why : "not connected");
                return -ECONNREFUSED;
        }
        p = calloc(1, sizeof(*p));
        if (!p) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        if (virConnectRef(lent->conn) < 0) {
                free(p);
                snprintf(err, errlen, "%s", lv_error());
                return -EIO;
        }
        p->conn = lent->conn;
        s->priv = p;
        return 0;
}

/* libvirt's node field count for CPU (cpu_stats) or memory, asked once. */
static int node_nparams(struct lv_src *p, int memory)
{
        int *n = memory ? &p->nmem_params : &p->ncpu_params, rc;

        if (*n > 0)
                return 0;
        rc = memory ? virNodeGetMemoryStats(p->conn, VIR_NODE_MEMORY_STATS_ALL_CELLS, NULL, n, 0)
                    : virNodeGetCPUStats(p->conn, VIR_NODE_CPU_STATS_ALL_CPUS, NULL, n, 0);
        if (rc < 0)
                return -EIO;
        if (*n <= 0 || *n > MAX_NODE_PARAMS) {
                *n = 0;
                return -EPROTO;
        }
        return 0;
}

/* One CPU's times (cpu: its number, or VIR_NODE_CPU_STATS_ALL_CPUS), in seconds. */
static int read_cpu(struct lv_src *p, int cpu, struct hostsrc_cpu *out)
{
        virNodeCPUStats par[MAX_NODE_PARAMS];
        int n = p->ncpu_params;

        if (virNodeGetCPUStats(p->conn, cpu, par, &n, 0) < 0)
                return -EIO;
        memset(out, 0, sizeof(*out));
        for (int k = 0; k < n; k++) {
                double v = (double)par[k].value / NS;

                if (!strcmp(par[k].field, VIR_NODE_CPU_STATS_USER))
                        out->user = v;
                else if (!strcmp(par[k].field, VIR_NODE_CPU_STATS_KERNEL))
                        out->system = v;
                else if (!strcmp(par[k].field, VIR_NODE_CPU_STATS_IDLE))
                        out->idle = v;
                else if (!strcmp(par[k].field, VIR_NODE_CPU_STATS_IOWAIT))
                        out->iowait = v;
        }
        return 0;
}

/* Every online CPU: the busiest is read from them. Offline ones stay 0. */
static int read_cpus(struct lv_src *p, struct hostsrc_counters *out)
{
        unsigned char *map = NULL;
        unsigned int online = 0;
        int n = virNodeGetCPUMap(p->conn, &map, &online, 0), rc = 0;

        if (n < 0)
                return -EIO;
        out->ncpus = n > HOSTSRC_MAX_CPUS ? HOSTSRC_MAX_CPUS : (unsigned)n;
        for (unsigned i = 0; i < out->ncpus && !rc; i++)
                if (VIR_CPU_USED(map, i))
                        rc = read_cpu(p, (int)i, &out->cpu[i]);
        free(map);
        return rc;
}

static int read_memory(struct lv_src *p, struct hostsrc_counters *out)
{
        virNodeMemoryStats par[MAX_NODE_PARAMS];
        double free_b = 0, buffers = 0, cached = 0;
        int n = p->nmem_params;

        if (virNodeGetMemoryStats(p->conn, VIR_NODE_MEMORY_STATS_ALL_CELLS, par, &n, 0) < 0)
                return -EIO;
        for (int k = 0; k < n; k++) {
                double v = (double)par[k].value * 1024; /* KiB */

                if (!strcmp(par[k].field, VIR_NODE_MEMORY_STATS_TOTAL))
                        out->mem_total_bytes = v;
                else if (!strcmp(par[k].field, VIR_NODE_MEMORY_STATS_FREE))
                        free_b = v;
                else if (!strcmp(par[k].field, VIR_NODE_MEMORY_STATS_BUFFERS))
                        buffers = v;
                else if (!strcmp(par[k].field, VIR_NODE_MEMORY_STATS_CACHED))
                        cached = v;
        }
        out->mem_available_bytes = free_b + buffers + cached;
        return 0;
}

static int lv_read(struct hostsrc *s, struct hostsrc_counters *out, char *err, size_t errlen)
{
        struct lv_src *p = s->priv;
        int rc = node_nparams(p, 0);

        if (!rc)
                rc = node_nparams(p, 1);
        if (!rc)
                rc = read_cpu(p, VIR_NODE_CPU_STATS_ALL_CPUS, &out->total);
        if (!rc)
                rc = read_cpus(p, out);
        if (!rc)
                rc = read_memory(p, out);
        if (rc == -EPROTO)
                snprintf(err, errlen, "node stats: libvirt gave an unexpected field count");
        else if (rc < 0)
                snprintf(err, errlen, "node stats: %s", lv_error());
        return rc;
}

static void lv_close(struct hostsrc *s)
{
        struct lv_src *p = s->priv;

        if (!p)
                return;
        virConnectClose(p->conn);
        free(p);
}

const struct hostsrc_ops hostsrc_libvirt_ops = {
    .name = "libvirt",
    /* no swap, disks, network or pressure through virNode*: unknown, never 0 */
    .caps = HOSTSRC_CPU | HOSTSRC_MEM,
    .where = HOSTSRC_AT_CONN,
    .open = lv_open,
    .read = lv_read,
    .close = lv_close,
};
