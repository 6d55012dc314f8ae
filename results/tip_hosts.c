/*
 * tip_hosts.c - a cluster's hosts as the attribution reads them (tipping.h,
 * struct res_tip_hosts): compute limits on the busiest compute host,
 * storage limits on the storage hosts, and the words that name them.
 *
 * Why the busiest compute host and not the mean: VMs are placed, so one
 * hypervisor can saturate while the others idle, and the tipping point is
 * where the first one does; a mean over the cluster would hide it. In
 * HCI every host is both, so the storage side is the same hosts' disks;
 * in two-layer the storage hosts are read apart.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results/result.h"
#include "results/tip_json.h"

/* One host's figures as a step recorded them; busy NAN when it was not read. */
struct hfig {
        const char *name, *role;
        int storage, controller; /* role storage (not both); the controller's /proc */
        int client;              /* role client: a block point's load generator */
        double busy, steal;
        const json_t *disks;
};

static void fig_of(const json_t *h, struct hfig *f)
{
        const json_t *cpu = json_object_get(h, "cpu");
        const char *role = json_string_value(json_object_get(h, "role"));

        f->name = json_string_value(json_object_get(h, "name"));
        f->role = role ? role : "";
        f->storage = role && !strcmp(role, "storage");
        f->client = role && !strcmp(role, "client");
        f->controller = json_is_true(json_object_get(h, "controller"));
        f->busy = res_share(cpu, "busy");
        f->steal = res_share(cpu, "steal");
        f->disks = json_object_get(h, "disks");
        if (!f->name)
                f->busy = NAN;
}

/* The storage side's disks: the busiest one, the IOPS and the latency over all their I/Os. */
struct disks {
        double util, iops, lat_ios;
        const char *host;
        char busiest[100];
};

static void add_disks(const struct hfig *f, struct disks *d)
{
        const json_t *x;
        size_t i;

        json_array_foreach(f->disks, i, x)
        {
                double u = res_share(x, "util_pct"), n = res_num(x, "iops"),
                       l = res_num(x, "lat_ms");
                const char *name = json_string_value(json_object_get(x, "name"));

                if (!isnan(u) && !(u <= d->util)) {
                        d->util = u;
                        d->host = f->name;
                        snprintf(d->busiest, sizeof(d->busiest), "%.40s/%.40s", f->name,
                                 name ? name : "?");
                }
                if (!isnan(n) && !isnan(l)) {
                        d->iops += n;
                        d->lat_ios += n * l;
                }
        }
}

/* Append fmt, which prints s and, when it has a second conversion, v. */
static void put(char *buf, size_t len, const char *fmt, const char *s, double v)
{
        size_t at = strlen(buf);

        /* a format prints s alone or s and v: v is then unused, which is defined */
        // cppcheck-suppress wrongPrintfScanfArgNum
        if (at < len)
                snprintf(buf + at, len - at, fmt, s, v);
}

/* The compute side: the busiest host and the one after it; with only_clients, the hosts of
 * role client alone (a block point: the controller there only steers). */
static void compute_side(const struct hfig *f, unsigned n, int only_clients, struct res_tip_res *r,
                         struct res_tip_hosts *h)
{
        int best = -1, next = -1;

        for (unsigned i = 0; i < n; i++) {
                if (f[i].storage || isnan(f[i].busy) || (only_clients && !f[i].client))
                        continue;
                if (best < 0 || f[i].busy > f[best].busy) {
                        next = best;
                        best = (int)i;
                } else if (next < 0 || f[i].busy > f[next].busy) {
                        next = (int)i;
                }
        }
        if (best < 0)
                return;
        r->cpu_busy_pct = f[best].busy;
        r->steal_pct = f[best].steal;
        snprintf(h->cpu_host, sizeof(h->cpu_host), "%s", f[best].name);
        snprintf(h->cpu_role, sizeof(h->cpu_role), "%s", f[best].role);
        if (next >= 0) {
                snprintf(h->cpu_next, sizeof(h->cpu_next), "%s", f[next].name);
                h->cpu_next_pct = f[next].busy;
        }
}

/* The storage side: the storage hosts when there are some (two-layer), else every host. */
static void storage_side(const struct hfig *f, unsigned n, int nstor, struct res_tip_res *r,
                         struct res_tip_hosts *h)
{
        struct disks d = {NAN, 0, 0, NULL, ""};
        double cpu = NAN;

        h->nstor = nstor;
        for (unsigned i = 0; i < n; i++) {
                if (isnan(f[i].busy) || (nstor && !f[i].storage))
                        continue;
                add_disks(&f[i], &d);
                if (!nstor)
                        continue;
                if (isnan(cpu) || f[i].busy > cpu)
                        snprintf(h->stor_host, sizeof(h->stor_host), "%s", f[i].name);
                cpu = isnan(cpu) ? f[i].busy : fmax(cpu, f[i].busy);
                put(h->storage, sizeof(h->storage),
                    h->storage[0] ? ", %s %.0f%%" : "storage hosts %s %.0f%%", f[i].name,
                    f[i].busy);
        }
        if (nstor) {
                put(h->storage, sizeof(h->storage), "%s", " busy", 0);
                r->storage_cpu_pct = cpu;
                h->stor_pct = cpu;
                r->compute_cpu_pct = r->cpu_busy_pct; /* the compute hosts are the VMs' own */
        }
        if (!isnan(d.util)) {
                r->storage_util_pct = d.util;
                h->disk_pct = d.util;
                snprintf(h->disk_host, sizeof(h->disk_host), "%s", d.host ? d.host : "?");
                put(h->storage, sizeof(h->storage),
                    h->storage[0] ? "; busiest disk %s %.0f%%" : "busiest disk %s %.0f%%",
                    d.busiest, d.util);
        }
        if (d.iops > 0) {
                r->storage_iops = d.iops;
                r->storage_lat_ms = d.lat_ios / d.iops;
        }
}

/* Read st's hosts; block: a block point's (the controller's own figures are read too, the
 * point having none of its own; the clients are the compute side; a storage host's CPU is
 * its service's utilisation). */
static void hosts_read(const json_t *st, int block, struct res_tip_res *r, struct res_tip_hosts *h)
{
        const json_t *hosts = json_object_get(json_object_get(st, "cluster"), "hosts"), *x;
        struct hfig f[64];
        unsigned n = 0, read = 0, nclient = 0;
        int remote = 0, nstor = 0;
        size_t i;

        json_array_foreach(hosts, i, x)
        {
                if (n == sizeof(f) / sizeof(f[0]))
                        break;
                fig_of(x, &f[n]);
                if (isnan(f[n].busy))
                        continue;
                read++;
                remote |= !f[n].controller;
                nstor += f[n].storage;
                nclient += f[n].client;
                n++;
        }
        if (!remote && !(block && read))
                return; /* the controller alone: the step's own figures are its */
        h->n = read;
        h->disk_pct = h->stor_pct = NAN;
        compute_side(f, n, block && nclient, r, h);
        storage_side(f, n, nstor, r, h);
        if (block && nstor && !isnan(h->stor_pct) &&
            (isnan(r->storage_util_pct) || h->stor_pct > r->storage_util_pct)) {
                r->storage_util_pct = h->stor_pct;
                h->stor_cpu_util = 1;
        }
}

void res_tip_hosts_read(const json_t *st, struct res_tip_res *r, struct res_tip_hosts *h)
{
        hosts_read(st, 0, r, h);
}

void res_tip_block_hosts_read(const json_t *point, struct res_tip_res *r, struct res_tip_hosts *h)
{
        hosts_read(point, 1, r, h);
}

void res_tip_host_words(const struct res_tip_step *a, enum res_tip_rule rule, char *buf, size_t len)
{
        const struct res_tip_hosts *h = &a->hosts;
        double cpu = isnan(a->r.compute_cpu_pct) ? a->r.cpu_busy_pct : a->r.compute_cpu_pct;
        int cpu_rule = rule == RES_RULE_CPU || rule == RES_RULE_CPU_STARVES;
        int storage_rule = rule == RES_RULE_STORAGE_UTIL || rule == RES_RULE_STORAGE_LAT;

        buf[0] = '\0';
        if (!h->n || !len)
                return;
        if (cpu_rule && h->cpu_host[0] && !isnan(cpu)) {
                put(buf, len, " on %s: %.0f%% busy", h->cpu_host, cpu);
                if (h->cpu_next[0])
                        put(buf, len, " (%s %.0f%%)", h->cpu_next, h->cpu_next_pct);
        }
        if ((cpu_rule || storage_rule) && h->storage[0])
                put(buf, len, "; %s", h->storage, 0);
}

/* "storage host s1's", "client host c2's", "host h1's" or "the" when unnamed. */
static void owner(const char *role, const char *name, char *buf, size_t len)
{
        if (!name || !name[0])
                snprintf(buf, len, "the");
        else if (role && (!strcmp(role, "storage") || !strcmp(role, "client")))
                snprintf(buf, len, "%s host %.63s's", role, name);
        else
                snprintf(buf, len, "host %.63s's", name);
}

void res_tip_limit_owner(const struct res_tip_step *t, const struct res_tip_step *a,
                         enum res_tip_rule rule, char *buf, size_t len)
{
        const struct res_tip_hosts *h = &a->hosts;
        double cpu = isnan(a->r.compute_cpu_pct) ? a->r.cpu_busy_pct : a->r.compute_cpu_pct;
        char who[96];

        if (!len)
                return;
        buf[0] = '\0';
        switch (rule) {
        case RES_RULE_CPU:
        case RES_RULE_CPU_STARVES:
                owner(h->cpu_role, h->n ? h->cpu_host : NULL, who, sizeof(who));
                snprintf(buf, len, "%s CPU %.0f%% busy%s", who, cpu,
                         rule == RES_RULE_CPU_STARVES ? " (compute limiting storage)" : "");
                break;
        case RES_RULE_STORAGE_UTIL:
                if (h->n && h->stor_cpu_util) {
                        owner("storage", h->stor_host, who, sizeof(who));
                        snprintf(buf, len, "%s CPU %.0f%% busy", who, a->r.storage_util_pct);
                } else {
                        owner(h->nstor ? "storage" : "", h->n ? h->disk_host : NULL, who,
                              sizeof(who));
                        snprintf(buf, len, "%s disks %.0f%% busy", who, a->r.storage_util_pct);
                }
                break;
        case RES_RULE_STORAGE_LAT:
                snprintf(buf, len, "storage latency %.2f -> %.2f ms", t->r.storage_lat_ms,
                         a->r.storage_lat_ms);
                if (h->n && h->nstor && h->stor_host[0])
                        snprintf(buf + strlen(buf), len - strlen(buf), " (storage host %s)",
                                 h->stor_host);
                break;
        case RES_RULE_MEMORY:
                snprintf(buf, len, "memory (swapping, major faults or OOM kills)");
                break;
        case RES_RULE_VM_QUOTA:
                snprintf(buf, len, "the VMs' own CPU quotas");
                break;
        case RES_RULE_NONE:
        default:
                break;
        }
}
