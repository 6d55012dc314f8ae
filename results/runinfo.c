/*
 * runinfo.c - the facts the run index keeps about one result.json.
 *
 * A result is read once, when it is added, and boiled down to a headline a
 * person can scan in a list ("randread 4k: peak 12.3k IOPS @ QD 16") plus
 * the two numbers worth sorting by. The schema_version is checked here so
 * that a newer result is refused rather than half understood.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/parse.h"
#include "results/result.h"
#include "results/rundir.h"
#include "results/store.h"

static const char *jstr(const json_t *o, const char *key)
{
        const char *s = json_string_value(json_object_get(o, key));

        return s ? s : "";
}

/* 12345 -> "12.3k": headlines are read, not computed with. */
static void fmt_count(double v, char *buf, size_t len)
{
        if (v >= 1e6)
                snprintf(buf, len, "%.1fM", v / 1e6);
        else if (v >= 1e4)
                snprintf(buf, len, "%.1fk", v / 1e3);
        else
                snprintf(buf, len, "%.1f", v);
}

static double p99_ms(const json_t *lat_ns)
{
        return res_num(json_object_get(lat_ns, "percentile"), "99.0") / 1e6;
}

static void block_facts(const json_t *doc, struct res_run *r)
{
        const json_t *pts = json_object_get(doc, "points"), *p, *best = NULL;
        double best_iops = -1;
        char n[32], bs[32];
        size_t i;

        json_array_foreach(pts, i, p)
        {
                double iops = 0, v;

                for (int d = 0; d < 2; d++)
                        if (isfinite(v = res_num(json_object_get(p, d ? "write" : "read"), "iops")))
                                iops += v;
                if (iops > best_iops) {
                        best_iops = iops;
                        best = p;
                }
        }
        if (!best) {
                snprintf(r->headline, sizeof(r->headline), "no points");
                return;
        }
        r->tps_or_iops = best_iops;
        for (int d = 0; d < 2; d++) {
                const json_t *dj = json_object_get(best, d ? "write" : "read");
                double v = p99_ms(json_object_get(dj, "lat_ns"));

                if (res_num(dj, "ios") > 0 && isfinite(v) && (isnan(r->p99_ms) || v > r->p99_ms))
                        r->p99_ms = v;
        }
        fmt_count(best_iops, n, sizeof(n));
        fmt_size((uint64_t)fmax(res_num(best, "bs"), 0), bs, sizeof(bs));
        snprintf(r->headline, sizeof(r->headline), "%s %s: peak %s IOPS @ QD %.0f",
                 jstr(best, "rw"), bs, n, res_num(best, "iodepth"));
}

static void oltp_facts(const json_t *doc, struct res_run *r)
{
        const json_t *tot = json_object_get(doc, "totals");
        char n[32], p[48] = "";

        r->tps_or_iops = res_num(tot, "tps");
        r->p99_ms = p99_ms(json_object_get(doc, "lat_ns"));
        fmt_count(r->tps_or_iops, n, sizeof(n));
        if (isfinite(r->p99_ms))
                snprintf(p, sizeof(p), ", p99 %.2f ms", r->p99_ms);
        snprintf(r->headline, sizeof(r->headline), "%s TPS%s, %.0f threads", n, p,
                 res_num(doc, "threads"));
}

static void scale_facts(const json_t *doc, struct res_run *r)
{
        const json_t *steps = json_object_get(doc, "steps"), *s, *best = NULL;
        const json_t *tip = json_object_get(doc, "tipping_point");
        char n[32], t[80] = "";
        size_t i;

        json_array_foreach(steps, i, s)
        {
                double tps = res_num(json_object_get(s, "totals"), "tps");

                if (isfinite(tps) && (!best || tps > r->tps_or_iops)) {
                        best = s;
                        r->tps_or_iops = tps;
                }
        }
        if (!best) {
                snprintf(r->headline, sizeof(r->headline), "no steps");
                return;
        }
        r->p99_ms = p99_ms(json_object_get(best, "lat_ns"));
        fmt_count(r->tps_or_iops, n, sizeof(n));
        if (isfinite(res_num(tip, "vms")))
                snprintf(t, sizeof(t), ", tipping point %.0f VMs (%s)", res_num(tip, "vms"),
                         jstr(tip, "limited_by"));
        snprintf(r->headline, sizeof(r->headline), "peak %s TPS @ %.0f VMs%s", n,
                 res_num(best, "vms"), t);
}

/* The facts of doc, the result saved at path (already resolved to out->path). */
static void run_facts(const json_t *doc, struct res_run *out)
{
        snprintf(out->kind, sizeof(out->kind), "%s", jstr(doc, "kind"));
        snprintf(out->started_at, sizeof(out->started_at), "%s", jstr(doc, "started_at"));
        snprintf(out->topology, sizeof(out->topology), "%s",
                 jstr(json_object_get(doc, "config"), "topology"));
        if (!strcmp(out->kind, "block"))
                block_facts(doc, out);
        else if (!strcmp(out->kind, "oltp"))
                oltp_facts(doc, out);
        else
                scale_facts(doc, out);
        if (json_is_true(json_object_get(doc, "partial")))
                strncat(out->headline, " (partial)",
                        sizeof(out->headline) - strlen(out->headline) - 1);
}

int res_run_from_doc(const char *path, const json_t *doc, struct res_run *out, char *err,
                     size_t errlen)
{
        memset(out, 0, sizeof(*out));
        out->tps_or_iops = out->p99_ms = NAN;
        if (!realpath(path, out->path)) {
                int rc = -errno;

                snprintf(err, errlen, "%s: %s", path, strerror(errno));
                return rc;
        }
        run_facts(doc, out);
        return 0;
}

int res_run_from_file(const char *path, struct res_run *out, char *err, size_t errlen)
{
        json_t *doc;
        int rc = res_load(path, &doc, err, errlen);

        if (rc) {
                memset(out, 0, sizeof(*out));
                return rc;
        }
        rc = res_run_from_doc(path, doc, out, err, errlen);
        json_decref(doc);
        return rc;
}
