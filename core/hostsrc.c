/*
 * hostsrc.c - what every host-metrics source shares: lookup by name, errors
 * that name the host, the URL check, the disk filter and the rates between
 * two reads.
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

static const struct hostsrc_ops *const sources[] = {&hostsrc_procfs_ops, &hostsrc_node_ops,
                                                    &hostsrc_prom_ops};

const struct hostsrc_ops *hostsrc_find(const char *name)
{
        for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++)
                if (!strcmp(sources[i]->name, name))
                        return sources[i];
        return NULL;
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
                 const char *where, const char *token, char *err, size_t errlen)
{
        int ret;

        memset(s, 0, sizeof(*s));
        s->ops = ops;
        snprintf(s->host, sizeof(s->host), "%s", host);
        s->token = token;
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

/* Busy % of a CPU over the window; -1 when it had no time (or went backwards). */
static double cpu_busy(const struct hostsrc_cpu *a, const struct hostsrc_cpu *b)
{
        double all = cpu_sum(b) - cpu_sum(a), idle = (b->idle - a->idle) + (b->iowait - a->iowait);

        return all > 0 ? 100.0 * (all - idle) / all : -1;
}

static int cpu_rates(const struct hostsrc_counters *a, const struct hostsrc_counters *b,
                     struct hostsrc_rates *r)
{
        double all = cpu_sum(&b->total) - cpu_sum(&a->total);

        if (cpu_back(&a->total, &b->total))
                return -ERANGE;
        if (all > 0) {
                r->busy = cpu_busy(&a->total, &b->total);
                r->user = 100.0 *
                          ((b->total.user - a->total.user) + (b->total.nice - a->total.nice)) / all;
                r->system = 100.0 *
                            ((b->total.system - a->total.system) + (b->total.irq - a->total.irq) +
                             (b->total.softirq - a->total.softirq)) /
                            all;
                r->iowait = 100.0 * (b->total.iowait - a->total.iowait) / all;
                r->steal = 100.0 * (b->total.steal - a->total.steal) / all;
        }
        for (unsigned i = 0; i < a->ncpus && i < b->ncpus; i++) {
                if (cpu_back(&a->cpu[i], &b->cpu[i]))
                        return -ERANGE;
                if (cpu_busy(&a->cpu[i], &b->cpu[i]) > r->busiest_cpu)
                        r->busiest_cpu = cpu_busy(&a->cpu[i], &b->cpu[i]);
        }
        return 0;
}

static const struct hostsrc_disk *find_disk(const struct hostsrc_counters *c, const char *name)
{
        for (unsigned i = 0; i < c->ndisks; i++)
                if (!strcmp(c->disk[i].name, name))
                        return &c->disk[i];
        return NULL;
}

static int disk_rate(const struct hostsrc_disk *a, const struct hostsrc_disk *b, double dt,
                     struct hostsrc_disk_rate *r)
{
        double ios = (b->reads - a->reads) + (b->writes - a->writes);

        if (b->reads < a->reads || b->writes < a->writes || b->read_s < a->read_s ||
            b->write_s < a->write_s || b->io_s < a->io_s || b->read_bytes < a->read_bytes ||
            b->written_bytes < a->written_bytes)
                return -ERANGE;
        snprintf(r->name, sizeof(r->name), "%s", b->name);
        r->util_pct = 100.0 * (b->io_s - a->io_s) / dt;
        if (r->util_pct > 100)
                r->util_pct = 100; /* io_ticks is sampled at request ends, it can run ahead */
        r->iops = ios / dt;
        r->lat_ms =
            ios > 0 ? 1000.0 * ((b->read_s - a->read_s) + (b->write_s - a->write_s)) / ios : 0;
        r->read_bytes_s = (b->read_bytes - a->read_bytes) / dt;
        r->write_bytes_s = (b->written_bytes - a->written_bytes) / dt;
        return 0;
}

static int other_rates(const struct hostsrc_counters *a, const struct hostsrc_counters *b,
                       double dt, struct hostsrc_rates *r)
{
        if (b->pswpin < a->pswpin || b->pswpout < a->pswpout || b->rx_bytes < a->rx_bytes ||
            b->tx_bytes < a->tx_bytes)
                return -ERANGE;
        if (b->mem_total_bytes > 0)
                r->mem_used_pct =
                    100.0 * (b->mem_total_bytes - b->mem_available_bytes) / b->mem_total_bytes;
        r->swap_in_s = (b->pswpin - a->pswpin) / dt;
        r->swap_out_s = (b->pswpout - a->pswpout) / dt;
        r->rx_bytes_s = (b->rx_bytes - a->rx_bytes) / dt;
        r->tx_bytes_s = (b->tx_bytes - a->tx_bytes) / dt;
        if (a->have_pressure && b->have_pressure) {
                if (b->psi_cpu_s < a->psi_cpu_s || b->psi_io_s < a->psi_io_s ||
                    b->psi_mem_s < a->psi_mem_s)
                        return -ERANGE;
                r->have_pressure = 1;
                r->psi_cpu_pct = 100.0 * (b->psi_cpu_s - a->psi_cpu_s) / dt;
                r->psi_io_pct = 100.0 * (b->psi_io_s - a->psi_io_s) / dt;
                r->psi_mem_pct = 100.0 * (b->psi_mem_s - a->psi_mem_s) / dt;
        }
        return 0;
}

int hostsrc_rates(const struct hostsrc_counters *a, const struct hostsrc_counters *b,
                  struct hostsrc_rates *out)
{
        double dt = (double)(b->t_ns - a->t_ns) / 1e9;
        int ret;

        memset(out, 0, sizeof(*out));
        if (b->t_ns <= a->t_ns)
                return -EINVAL;
        out->seconds = dt;
        ret = cpu_rates(a, b, out);
        if (ret == 0)
                ret = other_rates(a, b, dt, out);
        /* a disk that came or went in the window has no rate; one that went backwards spoils it */
        for (unsigned i = 0; ret == 0 && i < b->ndisks; i++) {
                const struct hostsrc_disk *d = find_disk(a, b->disk[i].name);

                if (d)
                        ret = disk_rate(d, &b->disk[i], dt, &out->disk[out->ndisks++]);
        }
        if (ret < 0)
                memset(out, 0, sizeof(*out));
        return ret;
}
