/*
 * ramp_hosts.c - a CSV's per-host rows (columns host, role, cpu_busy_pct,
 * steal_pct, disk_util_pct; ramp.h) gathered into one step per load whose
 * cluster.hosts are those rows, then read by res_tip_hosts_read exactly as
 * a scale step's hosts are (tip_json.h): the busiest compute host named by
 * the one rule in results/tip_hosts.c, not by a copy of it here.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "results/ramp.h"
#include "results/ramp_priv.h"
#include "results/tip_json.h"

static void load_key(double load, char *buf, size_t len)
{
        snprintf(buf, len, "%.17g", load);
}

static json_t *num(double v)
{
        return isnan(v) ? json_null() : json_real(v);
}

static int known_role(const char *role)
{
        return !strcmp(role, "compute") || !strcmp(role, "storage") || !strcmp(role, "both") ||
               !strcmp(role, "client");
}

int ramp_hosts_add(json_t *clusters, double load, const struct ramp_host_row *h, unsigned line,
                   char *err, size_t errlen)
{
        const char *role = h->role;
        char key[40];
        json_t *hosts, *x, *o;
        size_t i;

        if (!h->name[0])
                return errf(err, errlen, -EINVAL, "line %u: column host is empty", line);
        if (!known_role(role))
                return errf(err, errlen, -EINVAL,
                            "line %u: column role: '%s' is not compute, storage, both or client",
                            line, role);
        load_key(load, key, sizeof(key));
        hosts = json_object_get(clusters, key);
        if (!hosts) {
                if (json_object_set_new(clusters, key, json_array()))
                        return -ENOMEM;
                hosts = json_object_get(clusters, key);
        }
        json_array_foreach(
            hosts, i,
            x) if (!strcmp(json_string_value(json_object_get(x, "name")),
                           h->name)) return errf(err, errlen, -EINVAL,
                                                 "line %u: host %s is listed twice at load %g",
                                                 line, h->name, load);
        o = json_pack("{s:s,s:s,s:b,s:{s:o,s:o},s:[{s:s,s:o}]}", "name", h->name, "role", role,
                      "controller", 0, "cpu", "busy", num(h->cpu_busy), "steal", num(h->steal),
                      "disks", "name", "disk", "util_pct", num(h->disk_util));
        return o && !json_array_append_new(hosts, o) ? 0 : -ENOMEM;
}

int ramp_hosts_apply(const json_t *clusters, struct ramp *r)
{
        for (unsigned i = 0; i < r->n; i++) {
                struct ramp_point *p = &r->p[i];
                char key[40];
                json_t *st;

                load_key(p->load, key, sizeof(key));
                st = json_pack("{s:{s:O*}}", "cluster", "hosts", json_object_get(clusters, key));
                if (!st)
                        return -ENOMEM;
                memset(&p->hosts, 0, sizeof(p->hosts));
                if (!strcmp(r->load_name, "clients")) /* a client-count scan: its block points' */
                        res_tip_block_hosts_read(st, &p->r, &p->hosts);
                else
                        res_tip_hosts_read(st, &p->r, &p->hosts);
                json_decref(st);
        }
        return 0;
}
