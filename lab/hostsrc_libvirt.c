/*
 * hostsrc_libvirt.c - the `libvirt` host-metrics source (hostsrc_libvirt.h):
 * a hypervisor's node CPU and memory counters and its lab domains' stats,
 * read through a connection the backend holds.
 */
#include "lab/hostsrc_libvirt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libvirt/virterror.h>

#define NS              1e9
#define MAX_NODE_PARAMS 16
#define DOMAIN_STATS_WANT                                                                          \
        (VIR_DOMAIN_STATS_CPU_TOTAL | VIR_DOMAIN_STATS_VCPU | VIR_DOMAIN_STATS_BLOCK |             \
         VIR_DOMAIN_STATS_INTERFACE)

struct lv_src {
        virConnectPtr conn; /* a reference of our own */
        char *vm_prefix;    /* NULL: every domain */
        int ncpu_params;    /* virNodeGetCPUStats' field count, 0 until asked */
        int nmem_params;
};

static const char *lv_error(void)
{
        const char *m = virGetLastErrorMessage();

        return m ? m : "unknown libvirt error";
}

/* Opened by name alone it would need a connection of its own: refused. */
static int lv_open_where(struct hostsrc *s, const char *where, char *err, size_t errlen)
{
        (void)s;
        snprintf(err, errlen,
                 "the libvirt source reads a libvirt lab's connection (%s): open it "
                 "through the lab's backend",
                 where);
        return -ENOTSUP;
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
        free(p->vm_prefix);
        free(p);
}

const struct hostsrc_ops hostsrc_libvirt_ops = {
    .name = "libvirt",
    /* no swap, disks, network or pressure through virNode*: unknown, never 0 */
    .caps = HOSTSRC_CPU | HOSTSRC_MEM,
    .where = HOSTSRC_AT_CONN,
    .open = lv_open_where,
    .read = lv_read,
    .close = lv_close,
};

int hostsrc_libvirt_open(struct hostsrc *s, const char *host, virConnectPtr conn,
                         const char *vm_prefix, char *err, size_t errlen)
{
        struct lv_src *p = calloc(1, sizeof(*p));

        memset(s, 0, sizeof(*s));
        s->ops = &hostsrc_libvirt_ops;
        snprintf(s->host, sizeof(s->host), "%s", host);
        if (p && vm_prefix)
                p->vm_prefix = strdup(vm_prefix);
        if (!p || (vm_prefix && !p->vm_prefix)) {
                free(p);
                snprintf(err, errlen, "%s (libvirt): out of memory", host);
                return -ENOMEM;
        }
        if (virConnectRef(conn) < 0) {
                free(p->vm_prefix);
                free(p);
                snprintf(err, errlen, "%s (libvirt): %s", host, lv_error());
                return -EIO;
        }
        p->conn = conn;
        s->priv = p;
        return 0;
}

/* ---- domains ---------------------------------------------------------------- */

static double param_value(const virTypedParameter *t)
{
        switch (t->type) {
        case VIR_TYPED_PARAM_ULLONG:
                return (double)t->value.ul;
        case VIR_TYPED_PARAM_LLONG:
                return (double)t->value.l;
        case VIR_TYPED_PARAM_UINT:
                return t->value.ui;
        case VIR_TYPED_PARAM_INT:
                return t->value.i;
        default:
                return 0;
        }
}

/* Whether field is PREFIX.N.SUFFIX (a per-vCPU, per-disk or per-interface one). */
static int indexed(const char *field, const char *prefix, const char *suffix)
{
        size_t p = strlen(prefix), f = strlen(field), x = strlen(suffix);
        const char *d;

        if (strncmp(field, prefix, p) || f <= p + x || strcmp(field + f - x, suffix))
                return 0;
        for (d = field + p; d < field + f - x; d++)
                if (*d < '0' || *d > '9')
                        return 0;
        return 1;
}

/* Where a per-vCPU, per-disk or per-interface field's value is summed, or NULL. */
static double *summed_field(struct hostsrc_libvirt_vm *v, const char *field)
{
        static const char *const fields[][2] = {
            {"vcpu.", ".time"},      {"block.", ".rd.reqs"},  {"block.", ".wr.reqs"},
            {"block.", ".rd.bytes"}, {"block.", ".wr.bytes"}, {"block.", ".rd.times"},
            {"block.", ".wr.times"}, {"net.", ".rx.bytes"},   {"net.", ".tx.bytes"},
        };
        double *const sums[] = {&v->vcpu_s, &v->rd_reqs, &v->wr_reqs,  &v->rd_bytes, &v->wr_bytes,
                                &v->rd_s,   &v->wr_s,    &v->rx_bytes, &v->tx_bytes};

        for (size_t k = 0; k < sizeof(sums) / sizeof(sums[0]); k++)
                if (indexed(field, fields[k][0], fields[k][1]))
                        return sums[k];
        return NULL;
}

static void domain_counters(virDomainStatsRecordPtr r, const char *name,
                            struct hostsrc_libvirt_vm *v)
{
        const char *vm = strrchr(name, 'm');

        memset(v, 0, sizeof(*v));
        snprintf(v->name, sizeof(v->name), "%s", name);
        if (vm && strlen(name) > 3 && !strncmp(vm - 2, "-vm", 3) && vm[1])
                v->vm = (unsigned)strtoul(vm + 1, NULL, 10);
        for (int k = 0; k < r->nparams; k++) {
                const virTypedParameter *t = &r->params[k];
                double *sum = summed_field(v, t->field);

                if (sum)
                        *sum += param_value(t);
                else if (!strcmp(t->field, "cpu.time"))
                        v->cpu_s = param_value(t);
                else if (!strcmp(t->field, "vcpu.current"))
                        v->nvcpus = (unsigned)param_value(t);
        }
        /* libvirt's times are nanoseconds */
        v->cpu_s /= NS;
        v->vcpu_s /= NS;
        v->rd_s /= NS;
        v->wr_s /= NS;
}

int hostsrc_libvirt_vms(struct hostsrc *s, struct hostsrc_libvirt_vm *out, unsigned max,
                        unsigned *n, char *err, size_t errlen)
{
        struct lv_src *p = s->priv;
        virDomainStatsRecordPtr *recs = NULL;
        int nrec = virConnectGetAllDomainStats(p->conn, DOMAIN_STATS_WANT, &recs,
                                               VIR_CONNECT_GET_ALL_DOMAINS_STATS_ACTIVE);

        *n = 0;
        if (nrec < 0) {
                snprintf(err, errlen, "%s (libvirt): domain stats: %s", s->host, lv_error());
                return -EIO;
        }
        for (int k = 0; k < nrec && *n < max; k++) {
                const char *name = virDomainGetName(recs[k]->dom);

                if (!name || (p->vm_prefix && strncmp(name, p->vm_prefix, strlen(p->vm_prefix))))
                        continue;
                domain_counters(recs[k], name, &out[(*n)++]);
        }
        virDomainStatsRecordListFree(recs);
        return 0;
}
