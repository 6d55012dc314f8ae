/*
 * hostsrc.c - what every host-metrics source shares: lookup by name, errors
 * that name the host, the URL check, the disk and interface filters and the
 * rates between two reads, family by family.
 */
#include "core/hostsrc.h"

#include <errno.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/hostport.h"
#include "core/log.h"
#include "core/procfs.h"

/* The registry: core's own sources first, then what hostsrc_register added. */
static const struct hostsrc_ops *sources[HOSTSRC_MAX_SOURCES] = {
    &hostsrc_procfs_ops, &hostsrc_node_ops, &hostsrc_prom_ops};
static size_t nsources = 3;
static pthread_mutex_t sources_lock = PTHREAD_MUTEX_INITIALIZER;

static const struct hostsrc_ops *find_locked(const char *name)
{
        for (size_t i = 0; i < nsources; i++)
                if (!strcmp(sources[i]->name, name))
                        return sources[i];
        return NULL;
}

int hostsrc_register(const struct hostsrc_ops *ops)
{
        const struct hostsrc_ops *known;
        int rc = 0;

        pthread_mutex_lock(&sources_lock);
        known = find_locked(ops->name);
        if (known)
                rc = known == ops ? 0 : -EEXIST;
        else if (nsources == HOSTSRC_MAX_SOURCES)
                rc = -ENOSPC;
        else
                sources[nsources++] = ops;
        pthread_mutex_unlock(&sources_lock);
        return rc;
}

const struct hostsrc_ops *hostsrc_find(const char *name)
{
        const struct hostsrc_ops *ops;

        pthread_mutex_lock(&sources_lock);
        ops = find_locked(name);
        pthread_mutex_unlock(&sources_lock);
        return ops;
}

/* Prefix err with the host's name: every source's errors then say which host. */
static void name_host(const struct hostsrc *s, char *err, size_t errlen)
{
        char why[256];

        if (!errlen)
                return;
        snprintf(why, sizeof(why), "%s", err);
        snprintf(err, errlen, "%s (%s): %s", s->host, s->ops->name, why);
}

int hostsrc_open(struct hostsrc *s, const struct hostsrc_ops *ops, const char *host,
                 const char *where, const char *token, void *lent, char *err, size_t errlen)
{
        int ret;

        memset(s, 0, sizeof(*s));
        s->ops = ops;
        snprintf(s->host, sizeof(s->host), "%s", host);
        s->token = token;
        s->lent = lent;
        if (errlen)
                err[0] = '\0';
        ret = ops->open(s, where, err, errlen);
        if (ret < 0)
                name_host(s, err, errlen);
        return ret;
}

int hostsrc_read(struct hostsrc *s, struct hostsrc_counters *out, char *err, size_t errlen)
{
        int ret;

        memset(out, 0, sizeof(*out));
        out->have = s->ops->caps;
        if (errlen)
                err[0] = '\0';
        ret = s->ops->read(s, out, err, errlen);
        if (ret < 0) {
                name_host(s, err, errlen);
                return ret;
        }
        if (!out->t_ns)
                out->t_ns = clk_now_ns();
        return 0;
}

void hostsrc_close(struct hostsrc *s)
{
        if (s->ops && s->ops->close)
                s->ops->close(s);
        s->priv = NULL;
}

/* The host[:port] of a URL, at h, n characters, checked by hostport.h: 0, or -EINVAL. */
static int url_authority(const char *h, size_t n, char *host, char *why, size_t whylen)
{
        char auth[HOSTPORT_HOST_MAX + 16];
        unsigned port;

        if (n >= sizeof(auth))
                return errf(why, whylen, -EINVAL, "the host is too long");
        memcpy(auth, h, n);
        auth[n] = '\0';
        return hostport_parse(auth, 80, host, HOSTPORT_HOST_MAX, &port, why, whylen);
}

int hostsrc_url_check(const char *url, int loopback_only, char *err, size_t errlen)
{
        char host[HOSTPORT_HOST_MAX], why[300], show[4 * 160 + 4];
        const char *h = NULL;
        size_t n;

        /* quoted only as printable text: the URL came from a user or a file */
        hostport_printable(url, 160, show, sizeof(show));
        if (!strncmp(url, "http://", 7))
                h = url + 7;
        else if (!strncmp(url, "https://", 8))
                h = url + 8;
        if (!h)
                return errf(err, errlen, -EINVAL,
                            "metrics URL %s: only http:// and https:// are read", show);
        for (const char *p = url; *p; p++)
                if ((unsigned char)*p <= 0x20 || *p == 0x7f || *p == '\\' || *p == '@')
                        return errf(err, errlen, -EINVAL,
                                    "metrics URL %s: blanks, control characters, '\\' and "
                                    "user@ are not taken",
                                    show);
        /* the host and port end at the path, query or fragment */
        n = strcspn(h, "/?#");
        if (n == 0 || *h == ':')
                return errf(err, errlen, -EINVAL, "metrics URL %s: no host", show);
        if (url_authority(h, n, host, why, sizeof(why)) < 0)
                return errf(err, errlen, -EINVAL, "metrics URL %s: %s", show, why);
        if ((loopback_only && !hostport_is_loopback(host)) || !hostport_dial_ok(host))
                return errf(err, errlen, -EINVAL,
                            "metrics URL %s: a test reads loopback IP literals only "
                            "(127.0.0.0/8, [::1])",
                            show);
        return 0;
}

/* node_exporter 1.5's default --collector.diskstats.device-exclude */
static regex_t disk_exclude;
static int disk_exclude_ok;
static pthread_once_t disk_exclude_once = PTHREAD_ONCE_INIT;

static void disk_exclude_compile(void)
{
        static const char pattern[] = "^(ram|loop|fd|(h|s|v|xv)d[a-z]|nvme[0-9]+n[0-9]+p)[0-9]+$";

        disk_exclude_ok = regcomp(&disk_exclude, pattern, REG_EXTENDED | REG_NOSUB) == 0;
}

int hostsrc_disk_wanted(const char *name)
{
        /* Compiled once: compiling it per call was a seventh of a node_exporter read's CPU
         * (bench/hostsrc_cost), called for every disk sample of every read. */
        pthread_once(&disk_exclude_once, disk_exclude_compile);
        if (!disk_exclude_ok)
                return 1;
        return regexec(&disk_exclude, name, 0, NULL, 0) != 0;
}

int hostsrc_net_wanted(const char *name)
{
        static const char *const virt[] = {"lo", "br", "virbr", "tap", "vnet", "veth", "docker"};

        if (!strcmp(name, "lo"))
                return 0;
        for (size_t i = 1; i < sizeof(virt) / sizeof(virt[0]); i++)
                if (!strncmp(name, virt[i], strlen(virt[i])))
                        return 0;
        return 1;
}

struct hostsrc_net *hostsrc_net_of(struct hostsrc_counters *c, const char *name)
{
        struct hostsrc_net *n;

        if (!name || strlen(name) >= sizeof(n->name))
                return NULL;
        for (unsigned i = 0; i < c->nnets; i++)
                if (!strcmp(c->net[i].name, name))
                        return &c->net[i];
        if (c->nnets == HOSTSRC_MAX_NETS)
                return NULL;
        n = &c->net[c->nnets++];
        memset(n, 0, sizeof(*n));
        snprintf(n->name, sizeof(n->name), "%s", name);
        n->link = hostsrc_net_wanted(name);
        return n;
}

const struct hostsrc_net *hostsrc_net_find(const struct hostsrc_counters *c, const char *name)
{
        for (unsigned i = 0; i < c->nnets; i++)
                if (!strcmp(c->net[i].name, name))
                        return &c->net[i];
        return NULL;
}

int hostsrc_net_rate(const struct hostsrc_net *a, const struct hostsrc_net *b, double dt,
                     struct hostsrc_net *per_s)
{
        if (b->rx_bytes < a->rx_bytes || b->tx_bytes < a->tx_bytes ||
            b->rx_packets < a->rx_packets || b->tx_packets < a->tx_packets || !(dt > 0))
                return -ERANGE;
        *per_s = (struct hostsrc_net){.rx_bytes = (b->rx_bytes - a->rx_bytes) / dt,
                                      .tx_bytes = (b->tx_bytes - a->tx_bytes) / dt,
                                      .rx_packets = (b->rx_packets - a->rx_packets) / dt,
                                      .tx_packets = (b->tx_packets - a->tx_packets) / dt,
                                      .link = b->link};
        snprintf(per_s->name, sizeof(per_s->name), "%s", b->name);
        return 0;
}

static double cpu_sum(const struct hostsrc_cpu *c)
{
        return c->user + c->nice + c->system + c->idle + c->iowait + c->irq + c->softirq + c->steal;
}

static int cpu_back(const struct hostsrc_cpu *a, const struct hostsrc_cpu *b)
{
        return b->user < a->user || b->nice < a->nice || b->system < a->system ||
               b->idle < a->idle || b->iowait < a->iowait || b->irq < a->irq ||
               b->softirq < a->softirq || b->steal < a->steal;
}

int hostsrc_cpu_split(const struct hostsrc_cpu *a, const struct hostsrc_cpu *b,
                      struct hostsrc_cpu *pct)
{
        /* the modes' growths, then their sum: a difference of the two sums of
         * large cumulative seconds would round, and a mode would read 100.00000001% */
        double d[8] = {b->user - a->user,       b->nice - a->nice,     b->system - a->system,
                       b->idle - a->idle,       b->iowait - a->iowait, b->irq - a->irq,
                       b->softirq - a->softirq, b->steal - a->steal},
               all = 0;

        memset(pct, 0, sizeof(*pct));
        if (!(cpu_sum(a) > 0) || !(cpu_sum(b) > 0))
                return -ENOENT; /* offline at one end */
        if (cpu_back(a, b))
                return -ERANGE;
        for (int k = 0; k < 8; k++)
                all += d[k];
        if (!(all > 0))
                return -EAGAIN;
        *pct = (struct hostsrc_cpu){100 * d[0] / all, 100 * d[1] / all, 100 * d[2] / all,
                                    100 * d[3] / all, 100 * d[4] / all, 100 * d[5] / all,
                                    100 * d[6] / all, 100 * d[7] / all};
        return 0;
}

/* Busy % of a CPU over the window; -1 when it had no time (or went backwards). */
static double cpu_busy(const struct hostsrc_cpu *a, const struct hostsrc_cpu *b)
{
        double all = cpu_sum(b) - cpu_sum(a), idle = (b->idle - a->idle) + (b->iowait - a->iowait);

        return all > 0 ? 100.0 * (all - idle) / all : -1;
}

/* The CPU family: -ERANGE when the total or any CPU present at both ends went back. */
static int cpu_rates(const struct hostsrc_counters *a, const struct hostsrc_counters *b,
                     struct hostsrc_rates *r)
{
        double all = cpu_sum(&b->total) - cpu_sum(&a->total), busiest = 0;

        if (cpu_back(&a->total, &b->total))
                return -ERANGE;
        /* by CPU id: a CPU offline at either end (all 0) has no window */
        for (unsigned i = 0; i < a->ncpus && i < b->ncpus; i++) {
                if (cpu_sum(&a->cpu[i]) <= 0 || cpu_sum(&b->cpu[i]) <= 0)
                        continue;
                if (cpu_back(&a->cpu[i], &b->cpu[i]))
                        return -ERANGE;
                if (cpu_busy(&a->cpu[i], &b->cpu[i]) > busiest)
                        busiest = cpu_busy(&a->cpu[i], &b->cpu[i]);
        }
        if (all <= 0)
                return 0; /* no tick accounted: nothing measured, nothing wrong */
        r->busy = cpu_busy(&a->total, &b->total);
        r->user = 100.0 * ((b->total.user - a->total.user) + (b->total.nice - a->total.nice)) / all;
        r->system = 100.0 *
                    ((b->total.system - a->total.system) + (b->total.irq - a->total.irq) +
                     (b->total.softirq - a->total.softirq)) /
                    all;
        r->iowait = 100.0 * (b->total.iowait - a->total.iowait) / all;
        r->steal = 100.0 * (b->total.steal - a->total.steal) / all;
        r->busiest_cpu = busiest;
        r->have |= HOSTSRC_CPU;
        return 0;
}

static const struct hostsrc_disk *find_disk(const struct hostsrc_counters *c, const char *name)
{
        for (unsigned i = 0; i < c->ndisks; i++)
                if (!strcmp(c->disk[i].name, name))
                        return &c->disk[i];
        return NULL;
}

int hostsrc_disk_of_procfs(const struct procfs_disk *d, struct hostsrc_disk *o)
{
        size_t len = strlen(d->name);

        if (len >= sizeof(o->name))
                return -ENAMETOOLONG;
        memset(o, 0, sizeof(*o));
        memcpy(o->name, d->name, len + 1);
        o->reads = (double)d->rd_ios;
        o->writes = (double)d->wr_ios;
        o->read_s = (double)d->rd_ms / 1000;
        o->write_s = (double)d->wr_ms / 1000;
        o->io_s = (double)d->io_ms / 1000;
        o->queue_s = (double)d->in_queue_ms / 1000;
        o->read_bytes = (double)d->rd_sectors * 512;
        o->written_bytes = (double)d->wr_sectors * 512;
        return 0;
}

int hostsrc_disk_rate(const struct hostsrc_disk *a, const struct hostsrc_disk *b, double dt,
                      struct hostsrc_disk_rate *r)
{
        double ios = (b->reads - a->reads) + (b->writes - a->writes);

        if (b->reads < a->reads || b->writes < a->writes || b->read_s < a->read_s ||
            b->write_s < a->write_s || b->io_s < a->io_s || b->read_bytes < a->read_bytes ||
            b->written_bytes < a->written_bytes || b->queue_s < a->queue_s || !(dt > 0))
                return -ERANGE;
        memset(r, 0, sizeof(*r));
        snprintf(r->name, sizeof(r->name), "%s", b->name);
        r->seconds = dt;
        r->busy_s = b->io_s - a->io_s;
        r->util_pct = 100.0 * r->busy_s / dt;
        if (r->util_pct > 100)
                r->util_pct = 100; /* io_ticks is sampled at request ends, it can run ahead */
        r->ios = ios;
        r->iops = ios / dt;
        r->read_iops = (b->reads - a->reads) / dt;
        r->write_iops = (b->writes - a->writes) / dt;
        r->lat_ms =
            ios > 0 ? 1000.0 * ((b->read_s - a->read_s) + (b->write_s - a->write_s)) / ios : 0;
        r->read_bytes_s = (b->read_bytes - a->read_bytes) / dt;
        r->write_bytes_s = (b->written_bytes - a->written_bytes) / dt;
        r->aqu_sz = (b->queue_s - a->queue_s) / dt;
        return 0;
}

/* The network family: the host's links present at both ends. */
static int net_rates(const struct hostsrc_counters *a, const struct hostsrc_counters *b, double dt,
                     struct hostsrc_rates *r)
{
        double rx = 0, tx = 0;

        for (unsigned i = 0; i < b->nnets; i++) {
                const struct hostsrc_net *x = hostsrc_net_find(a, b->net[i].name);
                struct hostsrc_net per_s;

                if (!b->net[i].link || !x)
                        continue; /* not a link of the host's own, or came up in the window */
                if (hostsrc_net_rate(x, &b->net[i], dt, &per_s) < 0)
                        return -ERANGE;
                rx += per_s.rx_bytes;
                tx += per_s.tx_bytes;
        }
        r->rx_bytes_s = rx;
        r->tx_bytes_s = tx;
        return 0;
}

/* Memory in use is a gauge of b: it voids itself when it does not add up. */
static int mem_rates(const struct hostsrc_counters *b, struct hostsrc_rates *r)
{
        if (!(b->mem_total_bytes > 0) || b->mem_available_bytes < 0 ||
            b->mem_available_bytes > b->mem_total_bytes)
                return -ERANGE;
        r->mem_used_pct =
            100.0 * (b->mem_total_bytes - b->mem_available_bytes) / b->mem_total_bytes;
        return 0;
}

static int swap_rates(const struct hostsrc_counters *a, const struct hostsrc_counters *b, double dt,
                      struct hostsrc_rates *r)
{
        if (b->pswpin < a->pswpin || b->pswpout < a->pswpout)
                return -ERANGE;
        r->swap_in_s = (b->pswpin - a->pswpin) / dt;
        r->swap_out_s = (b->pswpout - a->pswpout) / dt;
        return 0;
}

static int psi_rates(const struct hostsrc_counters *a, const struct hostsrc_counters *b, double dt,
                     struct hostsrc_rates *r)
{
        if (b->psi_cpu_s < a->psi_cpu_s || b->psi_io_s < a->psi_io_s || b->psi_mem_s < a->psi_mem_s)
                return -ERANGE;
        r->have_pressure = 1;
        r->psi_cpu_pct = 100.0 * (b->psi_cpu_s - a->psi_cpu_s) / dt;
        r->psi_io_pct = 100.0 * (b->psi_io_s - a->psi_io_s) / dt;
        r->psi_mem_pct = 100.0 * (b->psi_mem_s - a->psi_mem_s) / dt;
        return 0;
}

/* A disk that came or went in the window has no rate; one that went back is left out. */
static void disks_rates(const struct hostsrc_counters *a, const struct hostsrc_counters *b,
                        double dt, struct hostsrc_rates *r)
{
        for (unsigned i = 0; i < b->ndisks; i++) {
                const struct hostsrc_disk *d = find_disk(a, b->disk[i].name);

                if (d && hostsrc_disk_rate(d, &b->disk[i], dt, &r->disk[r->ndisks]) == 0)
                        r->ndisks++;
                else if (d)
                        r->back |= HOSTSRC_DISKS;
        }
}

/* Family bit f of the window: measured when fn says so, voided when it says -ERANGE. */
static void family(struct hostsrc_rates *r, unsigned both, unsigned f, int rc)
{
        if (!(both & f))
                return;
        if (rc == 0)
                r->have |= f;
        else
                r->back |= f;
}

int hostsrc_rates(const struct hostsrc_counters *a, const struct hostsrc_counters *b,
                  struct hostsrc_rates *out)
{
        double dt = (double)(b->t_ns - a->t_ns) / 1e9;
        unsigned both = a->have & b->have;
        struct hostsrc_rates *r = out;

        memset(out, 0, sizeof(*out));
        if (b->t_ns <= a->t_ns)
                return -EINVAL;
        out->seconds = dt;
        if (both & HOSTSRC_CPU && cpu_rates(a, b, out) < 0) {
                out->back |= HOSTSRC_CPU;
                out->busy = out->user = out->system = out->iowait = out->steal = 0;
                out->busiest_cpu = 0;
        }
        if (both & HOSTSRC_MEM)
                family(r, both, HOSTSRC_MEM, mem_rates(b, out));
        if (both & HOSTSRC_SWAP)
                family(r, both, HOSTSRC_SWAP, swap_rates(a, b, dt, out));
        if (both & HOSTSRC_NET)
                family(r, both, HOSTSRC_NET, net_rates(a, b, dt, out));
        if ((both & HOSTSRC_PSI) && a->have_pressure && b->have_pressure)
                family(r, both, HOSTSRC_PSI, psi_rates(a, b, dt, out));
        if (!(out->have & HOSTSRC_NET))
                out->rx_bytes_s = out->tx_bytes_s = 0;
        if (!(out->have & HOSTSRC_PSI))
                out->have_pressure = 0, out->psi_cpu_pct = out->psi_io_pct = out->psi_mem_pct = 0;
        if (!(out->have & HOSTSRC_SWAP))
                out->swap_in_s = out->swap_out_s = 0;
        if (!(out->have & HOSTSRC_MEM))
                out->mem_used_pct = 0;
        if (both & HOSTSRC_DISKS) {
                disks_rates(a, b, dt, out);
                /* measured unless every disk there at both ends went back */
                if (out->ndisks || !(out->back & HOSTSRC_DISKS))
                        out->have |= HOSTSRC_DISKS;
        }
        if (!out->have && out->back)
                return -ERANGE;
        return 0;
}

void hostsrc_rates_why(int rc, const struct hostsrc_rates *r, char *buf, size_t len)
{
        static const char *const names[] = {"CPU", "memory", "swap", "disk", "network", "pressure"};
        size_t at = 0;

        if (len)
                buf[0] = '\0';
        if (rc == -EINVAL) {
                snprintf(buf, len,
                         "the second reading is not later than the first (one sample "
                         "read twice?): window left out");
                return;
        }
        if (rc == -ERANGE) {
                snprintf(buf, len,
                         "a counter went backwards (the source restarted?): window left "
                         "out");
                return;
        }
        if (rc < 0) {
                snprintf(buf, len, "%s: window left out", strerror(-rc));
                return;
        }
        for (unsigned i = 0; r && i < sizeof(names) / sizeof(names[0]) && at < len; i++)
                if (r->back & (1u << i))
                        at +=
                            (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "", names[i]);
        if (at && at < len)
                snprintf(buf + at, len - at, " counters went backwards: %s left out",
                         r->back & (r->back - 1) ? "those figures" : "that figure");
}
